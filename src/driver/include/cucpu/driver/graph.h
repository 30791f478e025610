// CUDA graphs: nodes and their dependencies, clones, executable graphs compiled into a schedule
// that one stream operation runs, whole-graph updates, graph-owned memory and user objects.
#pragma once

#include "cucpu/driver/launch.h"

#include <cuda.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace cucpu::driver {

class Context;
class Event;
class Function;
class Graph;
class GraphExec;
class Stream;
struct Progress;
struct StreamPoint;

// What a node does when its turn comes, checked when its parameters were set: runs on the
// stream's executor, returns the error the stream reports later (kernel faults are sticky).
using Work = std::function<CUresult()>;

// A kernel's parameters copied into one buffer (the values as the kernel reads them).
struct PackedArgs {
  std::vector<unsigned char> bytes;
  std::vector<void *> pointers; // one per parameter, into bytes
  size_t bufferSize = 0;
  std::vector<void *> extra; // CU_LAUNCH_PARAM_* when given as one buffer
};
// Copies `kernelParams` (one pointer per parameter of `f`) or `extra` into `out`.
CUresult packArgs(const Function *f, void **kernelParams, void **extra, PackedArgs *out);

// Memory a graph's allocation node reserves when it is added: the address stays the graph's;
// a launch makes it live until a free node, cuMemFreeAsync or cuMemFree releases it.
struct GraphAllocation {
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  std::atomic<bool> live{false};
  std::atomic<int> execs{0}; // executable graphs holding it (each graph instantiates it once)
  ~GraphAllocation();
};
// Creates one in `ctx`; what cuDeviceGetGraphMemAttribute reports.
CUresult allocateGraphMemory(Context *ctx, size_t bytes, std::shared_ptr<GraphAllocation> *out);
std::shared_ptr<GraphAllocation> findGraphMemory(CUdeviceptr ptr);
// A free outside a graph (cuMemFree, cuMemFreeAsync) of graph memory: it stops being live.
bool releaseGraphMemory(CUdeviceptr ptr);
unsigned long long graphMemoryInUse();
unsigned long long graphMemoryHigh();
void resetGraphMemoryHigh();

struct KernelNodeParams {
  Function *function = nullptr;
  CUkernel kernel = nullptr; // as given, reported back
  LaunchConfig cfg;
  std::shared_ptr<PackedArgs> args;
  std::map<int, CUkernelNodeAttrValue> attributes; // set through cuGraphKernelNodeSetAttribute
};
struct MemcpyNodeParams {
  CUDA_MEMCPY3D copy{};
  Context *ctx = nullptr;
};
struct MemsetNodeParams {
  CUDA_MEMSET_NODE_PARAMS memset{};
  Context *ctx = nullptr;
};
struct HostNodeParams {
  CUDA_HOST_NODE_PARAMS host{};
};
struct ChildNodeParams {
  std::shared_ptr<Graph> graph; // the node's own copy of the child
};
struct EventNodeParams {
  Event *event = nullptr;
};
struct MemAllocNodeParams {
  CUDA_MEM_ALLOC_NODE_PARAMS params{};
  std::vector<CUmemAccessDesc> access;
  std::shared_ptr<GraphAllocation> memory;
};
struct MemFreeNodeParams {
  CUdeviceptr ptr = 0;
};
struct BatchMemOpNodeParams {
  Context *ctx = nullptr;
  std::vector<CUstreamBatchMemOpParams> ops;
  unsigned flags = 0;
};
struct EmptyNodeParams {};

// The value behind a CUgraphConditionalHandle, which is its address: device code sets it with
// cudaGraphSetConditional (a plain store), the conditional node reads it when its turn comes.
struct ConditionalSlot {
  unsigned value = 0; // first: the handle points here
  unsigned defaultValue = 0;
  bool assignDefault = false; // CU_GRAPH_COND_ASSIGN_DEFAULT: reset at each launch
};
struct ConditionalNodeParams {
  CUgraphConditionalHandle handle = 0;
  CUgraphConditionalNodeType type = CU_GRAPH_COND_TYPE_IF;
  std::vector<std::shared_ptr<Graph>> bodies;    // the node's own graphs, filled by the caller
  std::shared_ptr<std::vector<CUgraph>> handles; // the bodies as the node's creator got them
  Context *ctx = nullptr;
};

using NodeParams =
    std::variant<KernelNodeParams, MemcpyNodeParams, MemsetNodeParams, HostNodeParams,
                 ChildNodeParams, EventNodeParams, MemAllocNodeParams, MemFreeNodeParams,
                 BatchMemOpNodeParams, EmptyNodeParams, ConditionalNodeParams>;

// A node's kind, parameters and prepared work (kinds the graph runs itself have none).
struct NodeSpec {
  CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
  NodeParams params = EmptyNodeParams{};
  Work work;
};

struct Node {
  Graph *graph = nullptr;
  NodeSpec spec;
  std::vector<Node *> deps, dependents;
};

class Graph {
public:
  Graph() = default;
  Graph(const Graph &) = delete;
  ~Graph();
  // Adds a node behind `deps` (nodes of this graph, no repeats).
  CUresult add(NodeSpec spec, Node *const *deps, size_t count, Node **out);
  CUresult addEdges(Node *const *from, Node *const *to, size_t count);
  CUresult removeEdges(Node *const *from, Node *const *to, size_t count);
  void destroy(Node *n);
  bool contains(const Node *n) const;
  const std::vector<std::unique_ptr<Node>> &nodes() const { return nodes_; }
  std::vector<Node *> roots() const;
  std::vector<std::pair<Node *, Node *>> edges() const;
  // The nodes in an order that respects every edge; false if there is a cycle.
  bool topologicalOrder(std::vector<Node *> *out) const;
  // A deep copy; `map` (optional) receives original -> copy for every node, child graphs too.
  std::shared_ptr<Graph> clone(std::map<const Node *, Node *> *map = nullptr) const;
  void cloneInto(Graph &copy, std::map<const Node *, Node *> *map = nullptr) const;
  // The clone node made from `original`, if this graph is a clone of its graph.
  Node *cloneOf(const Node *original) const;
  // Whether `ancestor` reaches `n` through edges (or is n).
  bool reaches(const Node *ancestor, const Node *n) const;
  // Whether a node of `type` is in the graph, its child graphs or conditional bodies.
  bool has(CUgraphNodeType type) const;
  void retainUserObject(class UserObject *o, unsigned count);
  CUresult releaseUserObject(UserObject *o, unsigned count);
  std::string dot(unsigned flags) const;
  // cuGraphConditionalHandleCreate: a value the graph's conditional nodes may test.
  CUgraphConditionalHandle createConditional(unsigned defaultValue, bool assignDefault);
  bool ownsConditional(CUgraphConditionalHandle h) const;
  // This graph's values and its conditional bodies' (a launch resets those that ask for it).
  void conditionals(std::vector<std::shared_ptr<ConditionalSlot>> *out) const;
  // Executable graphs of this graph alive that allow only one at a time (allocation or
  // conditional nodes).
  std::atomic<int> exclusiveExecs{0};

private:
  std::vector<std::unique_ptr<Node>> nodes_;
  std::map<const Node *, const Node *> origins_; // clone -> original
  std::map<UserObject *, unsigned> userObjects_;
  std::vector<std::shared_ptr<ConditionalSlot>> conditionals_;
};

// cuUserObjectCreate: a reference-counted object whose destructor runs when the last reference
// (the application's, graphs', executable graphs') goes away.
class UserObject {
public:
  UserObject(void *ptr, CUhostFn destroy, unsigned count)
      : ptr_(ptr), destroy_(destroy), refs_(count) {}
  void retain(unsigned count) { refs_ += count; }
  void release(unsigned count);

private:
  void *ptr_;
  CUhostFn destroy_;
  std::atomic<long> refs_;
};
bool isLiveUserObject(const UserObject *o);
UserObject *createUserObject(void *ptr, CUhostFn destroy, unsigned count);

// An instantiated graph: a private copy of the graph whose nodes (child graphs inlined) are
// compiled into a schedule, an order that respects every edge, run one after another by a single
// operation of the launching stream. Per-node setters change the copy and rebuild the schedule.
class GraphExec {
public:
  // A node to run; a conditional node's bodies are schedules of their own.
  struct Step {
    const NodeSpec *spec = nullptr;
    std::vector<std::vector<Step>> bodies;
  };
  using Schedule = std::vector<Step>;
  // NOT_SUPPORTED when `g` has allocation or conditional nodes and another executable graph of it
  // is alive, as with NVIDIA's driver;
  // INVALID_VALUE for a cycle.
  static CUresult instantiate(const Graph &g, unsigned long long flags, GraphExec **out);
  ~GraphExec();
  unsigned long long flags() const { return flags_; }
  // Queues the schedule on `s`; INVALID_VALUE while its allocations are still live.
  CUresult launch(Stream *s);
  // The copy's node made from the graph's node `origin` (null if none).
  Node *find(const Node *origin);
  // Replaces that node's parameters (kinds must agree: INVALID_VALUE otherwise).
  CUresult setSpec(const Node *origin, NodeSpec spec);
  CUresult setEnabled(const Node *origin, bool enabled);
  CUresult enabled(const Node *origin, bool *out);
  // cuGraphExecUpdate: same topology and node kinds; parameters taken from `g`.
  CUresult update(const Graph &g, CUgraphExecUpdateResultInfo *info);
  // Adds the instantiated graph as a child node of a graph being captured.
  const Graph &graph() const { return *graph_; }

private:
  void rebuild(); // mutex_ held
  // Launches in flight keep the copy they took: changes go to a new copy, made here (mutex_
  // held); returns the old copy's node -> the new one's.
  std::map<const Node *, Node *> copyOnWrite();
  std::shared_ptr<Graph> graph_;
  std::map<const Node *, Node *> fromOriginal_;
  std::set<const Node *> disabled_;
  // The schedule and the copy it points into, as the last launch took them.
  struct Compiled {
    std::shared_ptr<Graph> graph;
    Schedule steps;
    std::vector<std::shared_ptr<ConditionalSlot>> conditionals;
  };
  // The points event wait nodes wait for, taken at launch, in schedule order.
  using Waits = std::vector<std::vector<StreamPoint>>;
  static void run(const Schedule &steps, Stream *s, const Waits &waits, size_t *wait);
  std::shared_ptr<const Compiled> compiled_;
  unsigned long long flags_ = 0;
  const Graph *source_ = nullptr; // counted in its exclusiveExecs
  std::mutex mutex_;
};
bool isLiveGraph(const Graph *g);
bool isLiveGraphNode(const Node *n);
bool isLiveGraphExec(const GraphExec *e);
Graph *createGraph();
void destroyGraph(Graph *g);
void destroyGraphExec(GraphExec *e);

} // namespace cucpu::driver
