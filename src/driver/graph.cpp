// CUDA graphs as data: nodes, dependencies, clones, topological order, user objects, dot output,
// and the registry of live graphs, nodes and user objects that handles are checked against.
#include "cucpu/driver/graph.h"
#include "cucpu/driver/sanitizer.h"

#include "cucpu/driver/module.h"
#include "cucpu/driver/reason.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace cucpu::driver {
namespace {

struct Registry {
  std::mutex mutex;
  std::set<const Graph *> graphs;
  std::set<const Node *> nodes;
  std::set<const UserObject *> userObjects;
};
Registry &registry() {
  static auto *r = new Registry; // outlives static destructors that may still free graphs
  return *r;
}

void forgetNode(const Node *n) {
  std::lock_guard lk(registry().mutex);
  registry().nodes.erase(n);
}

void unlink(std::vector<Node *> &list, const Node *n) {
  list.erase(std::remove(list.begin(), list.end(), n), list.end());
}

const char *typeName(CUgraphNodeType t) {
  switch (t) {
  case CU_GRAPH_NODE_TYPE_KERNEL:
    return "kernel";
  case CU_GRAPH_NODE_TYPE_MEMCPY:
    return "memcpy";
  case CU_GRAPH_NODE_TYPE_MEMSET:
    return "memset";
  case CU_GRAPH_NODE_TYPE_HOST:
    return "host";
  case CU_GRAPH_NODE_TYPE_GRAPH:
    return "graph";
  case CU_GRAPH_NODE_TYPE_EMPTY:
    return "empty";
  case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    return "wait_event";
  case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
    return "event_record";
  case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
    return "mem_alloc";
  case CU_GRAPH_NODE_TYPE_MEM_FREE:
    return "mem_free";
  case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
    return "batch_mem_op";
  case CU_GRAPH_NODE_TYPE_CONDITIONAL:
    return "conditional";
  default:
    return "node";
  }
}

} // namespace

Graph *createGraph() {
  auto *g = new Graph;
  std::lock_guard lk(registry().mutex);
  registry().graphs.insert(g);
  return g;
}

void destroyGraph(Graph *g) {
  {
    std::lock_guard lk(registry().mutex);
    registry().graphs.erase(g);
  }
  delete g;
}

bool isLiveGraph(const Graph *g) {
  std::lock_guard lk(registry().mutex);
  return registry().graphs.count(g) != 0;
}

bool isLiveGraphNode(const Node *n) {
  std::lock_guard lk(registry().mutex);
  return registry().nodes.count(n) != 0;
}

Graph::~Graph() {
  for (auto &n : nodes_)
    forgetNode(n.get());
  for (auto [o, count] : userObjects_)
    o->release(count);
}

CUresult Graph::add(NodeSpec spec, Node *const *deps, size_t count, Node **out) {
  for (size_t i = 0; i < count; ++i) {
    if (!contains(deps[i]))
      return fail(CUDA_ERROR_INVALID_VALUE, "dependency {} is not a node of the graph", i);
    for (size_t j = 0; j < i; ++j)
      if (deps[j] == deps[i])
        return fail(CUDA_ERROR_INVALID_VALUE, "dependency {} is listed twice", i);
  }
  auto n = std::make_unique<Node>();
  n->graph = this;
  n->spec = std::move(spec);
  for (size_t i = 0; i < count; ++i) {
    n->deps.push_back(deps[i]);
    deps[i]->dependents.push_back(n.get());
  }
  *out = n.get();
  {
    std::lock_guard lk(registry().mutex);
    registry().nodes.insert(n.get());
  }
  nodes_.push_back(std::move(n));
  return CUDA_SUCCESS;
}

bool Graph::contains(const Node *n) const { return n && n->graph == this && isLiveGraphNode(n); }

CUresult Graph::addEdges(Node *const *from, Node *const *to, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (!contains(from[i]) || !contains(to[i]) || from[i] == to[i])
      return fail(CUDA_ERROR_INVALID_VALUE,
                  "edge {} joins nodes of another graph or a node to itself", i);
    const auto &d = to[i]->deps;
    if (std::find(d.begin(), d.end(), from[i]) != d.end()) // the edge exists
      return fail(CUDA_ERROR_INVALID_VALUE, "edge {} exists already", i);
  }
  for (size_t i = 0; i < count; ++i) {
    to[i]->deps.push_back(from[i]);
    from[i]->dependents.push_back(to[i]);
  }
  return CUDA_SUCCESS;
}

CUresult Graph::removeEdges(Node *const *from, Node *const *to, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (!contains(from[i]) || !contains(to[i]))
      return fail(CUDA_ERROR_INVALID_VALUE, "edge {} joins nodes of another graph", i);
    const auto &d = to[i]->deps;
    if (std::find(d.begin(), d.end(), from[i]) == d.end()) // no such edge
      return fail(CUDA_ERROR_INVALID_VALUE, "edge {} does not exist", i);
  }
  for (size_t i = 0; i < count; ++i) {
    unlink(to[i]->deps, from[i]);
    unlink(from[i]->dependents, to[i]);
  }
  return CUDA_SUCCESS;
}

void Graph::destroy(Node *n) {
  for (Node *d : n->deps)
    unlink(d->dependents, n);
  for (Node *d : n->dependents)
    unlink(d->deps, n);
  forgetNode(n);
  nodes_.erase(std::find_if(nodes_.begin(), nodes_.end(),
                            [n](const std::unique_ptr<Node> &p) { return p.get() == n; }));
}

std::vector<Node *> Graph::roots() const {
  std::vector<Node *> out;
  for (auto &n : nodes_)
    if (n->deps.empty())
      out.push_back(n.get());
  return out;
}

std::vector<std::pair<Node *, Node *>> Graph::edges() const {
  std::vector<std::pair<Node *, Node *>> out;
  for (auto &n : nodes_)
    for (Node *d : n->dependents)
      out.emplace_back(n.get(), d);
  return out;
}

bool Graph::topologicalOrder(std::vector<Node *> *out) const {
  std::map<const Node *, size_t> waiting;
  std::vector<Node *> ready;
  for (auto &n : nodes_) {
    waiting[n.get()] = n->deps.size();
    if (n->deps.empty())
      ready.push_back(n.get());
  }
  out->clear();
  for (size_t i = 0; i < ready.size(); ++i) {
    out->push_back(ready[i]);
    for (Node *d : ready[i]->dependents)
      if (--waiting[d] == 0)
        ready.push_back(d);
  }
  return out->size() == nodes_.size();
}

bool Graph::reaches(const Node *ancestor, const Node *n) const {
  std::vector<const Node *> todo{n};
  std::set<const Node *> seen;
  while (!todo.empty()) {
    const Node *x = todo.back();
    todo.pop_back();
    if (x == ancestor)
      return true;
    if (!seen.insert(x).second)
      continue;
    todo.insert(todo.end(), x->deps.begin(), x->deps.end());
  }
  return false;
}

std::shared_ptr<Graph> Graph::clone(std::map<const Node *, Node *> *map) const {
  auto copy = std::shared_ptr<Graph>(createGraph(), destroyGraph);
  cloneInto(*copy, map);
  return copy;
}

void Graph::cloneInto(Graph &copy, std::map<const Node *, Node *> *map) const {
  std::map<const Node *, Node *> local;
  auto &m = map ? *map : local;
  for (auto &n : nodes_) {
    NodeSpec spec = n->spec;
    if (auto *child = std::get_if<ChildNodeParams>(&spec.params))
      child->graph = child->graph->clone(&m);
    if (auto *cond = std::get_if<ConditionalNodeParams>(&spec.params))
      for (auto &body : cond->bodies)
        body = body->clone(&m);
    Node *c;
    copy.add(std::move(spec), nullptr, 0, &c);
    m[n.get()] = c;
    copy.origins_[c] = n.get();
  }
  for (auto &n : nodes_)
    for (Node *d : n->deps) {
      Node *from = m[d], *to = m[n.get()];
      to->deps.push_back(from);
      from->dependents.push_back(to);
    }
  for (auto [o, count] : userObjects_)
    copy.retainUserObject(o, count);
  copy.conditionals_ = conditionals_; // the handles stay valid in copies and executable graphs
}

Node *Graph::cloneOf(const Node *original) const {
  for (auto [c, o] : origins_)
    if (o == original)
      return const_cast<Node *>(c);
  return nullptr;
}

bool Graph::has(CUgraphNodeType type) const {
  for (auto &n : nodes_) {
    if (n->spec.type == type)
      return true;
    if (auto *child = std::get_if<ChildNodeParams>(&n->spec.params);
        child && child->graph->has(type))
      return true;
    if (auto *cond = std::get_if<ConditionalNodeParams>(&n->spec.params))
      for (auto &body : cond->bodies)
        if (body->has(type))
          return true;
  }
  return false;
}

void Graph::retainUserObject(UserObject *o, unsigned count) {
  o->retain(count);
  userObjects_[o] += count;
}

CUresult Graph::releaseUserObject(UserObject *o, unsigned count) {
  auto it = userObjects_.find(o);
  if (it == userObjects_.end() || it->second < count)
    return CUDA_SUCCESS; // more than the graph holds: NVIDIA's driver ignores it too
  if ((it->second -= count) == 0)
    userObjects_.erase(it);
  o->release(count);
  return CUDA_SUCCESS;
}

// Graphviz: one box per node (kind, and with CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE its main
// parameters), child graphs as clusters.
std::string Graph::dot(unsigned flags) const {
  std::ostringstream os;
  int next = 0;
  std::map<const Node *, int> ids;
  std::function<void(const Graph &, int)> emit = [&](const Graph &g, int depth) {
    for (auto &n : g.nodes_) {
      const int id = ids[n.get()] = next++;
      os << std::string(depth * 2, ' ') << "node" << id << " [shape=box label=\""
         << typeName(n->spec.type);
      // A kernel's name and launch always (tools look for it), the others' parameters on demand.
      if (auto *k = std::get_if<KernelNodeParams>(&n->spec.params))
        os << "\\n"
           << k->function->name() << " <<<" << k->cfg.grid[0] << "," << k->cfg.grid[1] << ","
           << k->cfg.grid[2] << " x " << k->cfg.block[0] << "," << k->cfg.block[1] << ","
           << k->cfg.block[2] << ", " << k->cfg.sharedBytes << ">>>";
      if (flags & CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE) {
        if (auto *k = std::get_if<KernelNodeParams>(&n->spec.params))
          os << "\\n"
             << k->args->bytes.size() << " bytes of parameters"
             << (k->cfg.cooperative ? ", cooperative" : "");
        else if (auto *c = std::get_if<MemcpyNodeParams>(&n->spec.params))
          os << "\\n"
             << c->copy.WidthInBytes << " x " << c->copy.Height << " x " << c->copy.Depth
             << " bytes";
        else if (auto *m = std::get_if<MemsetNodeParams>(&n->spec.params))
          os << "\\nvalue " << m->memset.value << ", " << m->memset.width << " x "
             << m->memset.height << " of " << m->memset.elementSize << " bytes";
      }
      os << "\"];\n";
      std::vector<const Graph *> inner;
      if (auto *child = std::get_if<ChildNodeParams>(&n->spec.params))
        inner.push_back(child->graph.get());
      if (auto *cond = std::get_if<ConditionalNodeParams>(&n->spec.params))
        for (auto &body : cond->bodies)
          inner.push_back(body.get());
      for (const Graph *g : inner) {
        os << std::string(depth * 2, ' ') << "subgraph cluster_" << next++ << " {\n";
        emit(*g, depth + 1);
        os << std::string(depth * 2, ' ') << "}\n";
      }
    }
    for (auto &n : g.nodes_)
      for (Node *d : n->deps)
        os << std::string(depth * 2, ' ') << "node" << ids[d] << " -> node" << ids[n.get()]
           << ";\n";
  };
  os << "digraph cudaGraph {\n";
  emit(*this, 1);
  os << "}\n";
  return os.str();
}

CUgraphConditionalHandle Graph::createConditional(unsigned defaultValue, bool assignDefault) {
  // Kernels store to the slot (cudaGraphSetConditional): memcheck accepts it while it lives.
  std::shared_ptr<ConditionalSlot> slot(new ConditionalSlot, [](ConditionalSlot *c) {
    sanitizer::removeRange(reinterpret_cast<uintptr_t>(c));
    delete c;
  });
  sanitizer::addRange(reinterpret_cast<uintptr_t>(slot.get()), sizeof slot->value);
  slot->value = slot->defaultValue = defaultValue;
  slot->assignDefault = assignDefault;
  conditionals_.push_back(slot);
  return reinterpret_cast<CUgraphConditionalHandle>(slot.get());
}

bool Graph::ownsConditional(CUgraphConditionalHandle h) const {
  return std::any_of(conditionals_.begin(), conditionals_.end(), [h](const auto &slot) {
    return reinterpret_cast<CUgraphConditionalHandle>(slot.get()) == h;
  });
}

void Graph::conditionals(std::vector<std::shared_ptr<ConditionalSlot>> *out) const {
  out->insert(out->end(), conditionals_.begin(), conditionals_.end());
  for (auto &n : nodes_) {
    if (auto *child = std::get_if<ChildNodeParams>(&n->spec.params))
      child->graph->conditionals(out);
    if (auto *cond = std::get_if<ConditionalNodeParams>(&n->spec.params))
      for (auto &body : cond->bodies)
        body->conditionals(out);
  }
}

UserObject *createUserObject(void *ptr, CUhostFn destroy, unsigned count) {
  auto *o = new UserObject(ptr, destroy, count);
  std::lock_guard lk(registry().mutex);
  registry().userObjects.insert(o);
  return o;
}

bool isLiveUserObject(const UserObject *o) {
  std::lock_guard lk(registry().mutex);
  return registry().userObjects.count(o) != 0;
}

void UserObject::release(unsigned count) {
  if ((refs_ -= count) > 0)
    return;
  {
    std::lock_guard lk(registry().mutex);
    registry().userObjects.erase(this);
  }
  destroy_(ptr_);
  delete this;
}

} // namespace cucpu::driver
