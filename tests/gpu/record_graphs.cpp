// Records NVIDIA's CUDA graphs and stream capture: building graphs of every host-visible node kind,
// queries of nodes and edges, instantiation, launches and their results, enabling and disabling
// nodes, per-node setters of an executable graph, whole-graph update and its refusals, clones,
// memory allocation and free nodes, user objects, and stream capture in each mode with the calls
// that are illegal during it, across streams through events and into an existing graph, and
// conditional nodes (while, if/else, switch) whose values device code sets. Its output
// on cucpu must equal the GPU's (tests/gpu/answers/graphs.txt, compared by the ctest
// api_graph_answers). Usage: record_graphs graph_kernels.ptx
#include "record.h"

#include <cuda.h>

#include <cstring>
#include <functional>
#include <thread>
#include <vector>

namespace {

constexpr unsigned kN = 1000;
CUfunction add, scale, countdown, setc;
const char *kernelPath;
unsigned *host; // page-locked, kN words

// Prints the first, a middle and the last word of the page-locked result buffer.
void result(const char *what) {
  std::printf("%s: %u %u %u\n", what, host[0], host[kN / 2], host[kN - 1]);
  std::fflush(stdout);
}

struct KernelArgs {
  CUdeviceptr p;
  unsigned v, n;
  void *params[3] = {&p, &v, &n};
};

CUDA_KERNEL_NODE_PARAMS kernelNode(CUfunction f, KernelArgs &a) {
  CUDA_KERNEL_NODE_PARAMS k;
  std::memset(&k, 0, sizeof k);
  k.func = f;
  k.gridDimX = (kN + 127) / 128;
  k.gridDimY = k.gridDimZ = 1;
  k.blockDimX = 128;
  k.blockDimY = k.blockDimZ = 1;
  k.kernelParams = a.params;
  return k;
}

CUDA_MEMCPY3D linearCopy(CUdeviceptr dst, bool dstHost, CUdeviceptr src, bool srcHost,
                         size_t bytes) {
  CUDA_MEMCPY3D c;
  std::memset(&c, 0, sizeof c);
  c.srcMemoryType = srcHost ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
  c.dstMemoryType = dstHost ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
  if (srcHost)
    c.srcHost = reinterpret_cast<void *>(src);
  else
    c.srcDevice = src;
  if (dstHost)
    c.dstHost = reinterpret_cast<void *>(dst);
  else
    c.dstDevice = dst;
  c.WidthInBytes = bytes;
  c.Height = c.Depth = 1;
  return c;
}

CUDA_MEMSET_NODE_PARAMS memsetNode(CUdeviceptr dst, unsigned value) {
  CUDA_MEMSET_NODE_PARAMS m;
  std::memset(&m, 0, sizeof m);
  m.dst = dst;
  m.value = value;
  m.elementSize = 4;
  m.width = kN;
  m.height = 1;
  return m;
}

int hostCalls = 0;
void CUDA_CB countCall(void *data) { ++*static_cast<int *>(data); }
int destroyed = 0;
void CUDA_CB ignoreCallback(CUstream, CUresult, void *) {}
void CUDA_CB destroyObject(void *data) { ++*static_cast<int *>(data); }

void counts(const char *what, CUgraph g) {
  size_t nodes = 0, roots = 0, edges = 0;
  CUresult a = cuGraphGetNodes(g, nullptr, &nodes);
  CUresult b = cuGraphGetRootNodes(g, nullptr, &roots);
  CUresult c = cuGraphGetEdges(g, nullptr, nullptr, nullptr, &edges);
  std::printf("%s: %d %d %d, nodes %zu roots %zu edges %zu\n", what, a, b, c, nodes, roots, edges);
  std::vector<CUgraphNode> all(nodes);
  if (nodes)
    cuGraphGetNodes(g, all.data(), &nodes);
  std::printf("%s: types", what);
  for (CUgraphNode n : all) {
    CUgraphNodeType t;
    cuGraphNodeGetType(n, &t);
    size_t deps = 0, dependents = 0;
    cuGraphNodeGetDependencies(n, nullptr, nullptr, &deps);
    cuGraphNodeGetDependentNodes(n, nullptr, nullptr, &dependents);
    std::printf(" %d(%zu,%zu)", int(t), deps, dependents);
  }
  std::printf("\n");
  std::fflush(stdout);
}

// A graph built node by node: memset, then two kernels, a host node, a copy back to the host.
void explicitGraphs(CUcontext ctx, CUstream s, CUdeviceptr d) {
  std::printf("-- explicit graphs\n");
  CUgraph g = nullptr;
  SHOW(cuGraphCreate(&g, 1));
  SHOW(cuGraphCreate(nullptr, 0));
  SHOW(cuGraphCreate(&g, 0));
  counts("empty graph", g);
  CUgraphNode set, k1, k2, hostNode, back, empty;
  auto m = memsetNode(d, 5);
  SHOW(cuGraphAddMemsetNode(&set, g, nullptr, 0, &m, ctx));
  KernelArgs a1{d, 10, kN}, a2{d, 3, kN};
  auto p1 = kernelNode(add, a1);
  auto p2 = kernelNode(scale, a2);
  SHOW(cuGraphAddKernelNode(&k1, g, &set, 1, &p1));
  SHOW(cuGraphAddKernelNode(&k2, g, &k1, 1, &p2));
  CUDA_HOST_NODE_PARAMS hp{countCall, &hostCalls};
  SHOW(cuGraphAddHostNode(&hostNode, g, &k2, 1, &hp));
  auto cp = linearCopy(CUdeviceptr(host), true, d, false, kN * 4);
  SHOW(cuGraphAddMemcpyNode(&back, g, &k2, 1, &cp, ctx));
  CUgraphNode both[2] = {hostNode, back};
  SHOW(cuGraphAddEmptyNode(&empty, g, both, 2));
  counts("built", g);

  // Misuse while building.
  SHOW(cuGraphAddKernelNode(&k1, g, nullptr, 1, &p1));
  SHOW(cuGraphAddKernelNode(&k1, nullptr, &set, 1, &p1));
  SHOW(cuGraphAddKernelNode(nullptr, g, &set, 1, &p1));
  SHOW(cuGraphAddKernelNode(&k1, g, &set, 1, nullptr));
  CUgraphNode twice[2] = {set, set};
  CUgraphNode dup;
  SHOW(cuGraphAddEmptyNode(&dup, g, twice, 2));
  CUgraph other;
  SHOW(cuGraphCreate(&other, 0));
  CUgraphNode foreign;
  SHOW(cuGraphAddEmptyNode(&foreign, other, &set, 1));
  auto badSet = memsetNode(d, 1);
  badSet.elementSize = 3;
  SHOW(cuGraphAddMemsetNode(&foreign, other, nullptr, 0, &badSet, ctx));
  badSet = memsetNode(d + 1, 1);
  SHOW(cuGraphAddMemsetNode(&foreign, other, nullptr, 0, &badSet, ctx));
  CUDA_HOST_NODE_PARAMS noFn{nullptr, nullptr};
  SHOW(cuGraphAddHostNode(&foreign, other, nullptr, 0, &noFn));
  SHOW(cuGraphAddDependencies(g, &k1, &set, nullptr, 1));    // a cycle
  SHOW(cuGraphAddDependencies(g, &set, &k1, nullptr, 1));    // already there
  SHOW(cuGraphRemoveDependencies(g, &set, &k2, nullptr, 1)); // not there
  counts("after misuse", g);
  CUgraphExec cyclic;
  SHOW(cuGraphInstantiate(&cyclic, g, 0));
  SHOW(cuGraphRemoveDependencies(g, &k1, &set, nullptr, 1));
  counts("cycle removed", g);

  // Queries.
  CUgraphNodeType t;
  SHOWV(cuGraphNodeGetType(k1, &t), t);
  CUDA_KERNEL_NODE_PARAMS got;
  std::memset(&got, 0, sizeof got);
  SHOWV(cuGraphKernelNodeGetParams(k1, &got), got.func == add);
  std::printf("kernel node: grid %u block %u shared %u v %u\n", got.gridDimX, got.blockDimX,
              got.sharedMemBytes,
              got.kernelParams ? *static_cast<unsigned *>(got.kernelParams[1]) : 0);
  SHOW(cuGraphKernelNodeGetParams(set, &got));
  CUDA_MEMSET_NODE_PARAMS gm;
  SHOWV(cuGraphMemsetNodeGetParams(set, &gm), gm.value);
  CUDA_MEMCPY3D gc;
  SHOWV(cuGraphMemcpyNodeGetParams(back, &gc), gc.WidthInBytes);
  CUDA_HOST_NODE_PARAMS gh;
  SHOWV(cuGraphHostNodeGetParams(hostNode, &gh), gh.fn == countCall);
  size_t n = 1;
  CUgraphNode dep = nullptr;
  SHOWV(cuGraphNodeGetDependencies(k2, &dep, nullptr, &n), dep == k1);
  CUgraphNode from[8], to[8];
  n = 8;
  SHOWV(cuGraphGetEdges(g, from, to, nullptr, &n), n);
  n = 2;
  SHOWV(cuGraphGetEdges(g, from, to, nullptr, &n), n);

  // Instantiate and launch twice: (5 + 10) * 3 = 45.
  CUgraphExec exec = nullptr;
  SHOW(cuGraphInstantiate(&exec, g, 0));
  cuuint64_t flags = 99;
  SHOWV(cuGraphExecGetFlags(exec, &flags), flags);
  SHOW(cuGraphUpload(exec, s));
  SHOW(cuGraphLaunch(exec, s));
  SHOW(cuStreamSynchronize(s));
  result("launched once");
  SHOW(cuGraphLaunch(exec, s));
  SHOW(cuGraphLaunch(exec, s));
  SHOW(cuStreamSynchronize(s));
  result("launched twice more");
  std::printf("host node calls: %d\n", hostCalls);
  SHOW(cuGraphLaunch(nullptr, s));

  // Changing the graph does not change the instantiated one; per-node setters do.
  a1.v = 20;
  SHOW(cuGraphKernelNodeSetParams(k1, &p1));
  SHOW(cuGraphLaunch(exec, s));
  SHOW(cuStreamSynchronize(s));
  result("graph node changed, exec launched");
  SHOW(cuGraphExecKernelNodeSetParams(exec, k1, &p1));
  SHOW(cuGraphLaunch(exec, s));
  SHOW(cuStreamSynchronize(s));
  result("exec node changed");
  auto m2 = memsetNode(d, 1);
  SHOW(cuGraphExecMemsetNodeSetParams(exec, set, &m2, ctx));
  SHOW(cuGraphExecKernelNodeSetParams(exec, set, &p1));
  SHOW(cuGraphNodeSetEnabled(exec, k2, 0));
  unsigned on = 9;
  SHOWV(cuGraphNodeGetEnabled(exec, k2, &on), on);
  SHOW(cuGraphNodeSetEnabled(exec, back, 0));
  SHOW(cuGraphLaunch(exec, s));
  SHOW(cuStreamSynchronize(s));
  result("memset 1, scale and copy disabled (stale host)");
  SHOW(cuGraphNodeSetEnabled(exec, back, 1));
  SHOW(cuGraphLaunch(exec, s));
  SHOW(cuStreamSynchronize(s));
  result("copy enabled again");
  SHOW(cuGraphNodeSetEnabled(exec, k2, 1));
  CUDA_HOST_NODE_PARAMS hp2{countCall, &hostCalls};
  SHOW(cuGraphExecHostNodeSetParams(exec, hostNode, &hp2));

  // Whole-graph update: same topology with new values; another function; another topology.
  CUgraphExecUpdateResultInfo info;
  a1.v = 100;
  SHOW(cuGraphKernelNodeSetParams(k1, &p1));
  std::memset(&info, 0, sizeof info);
  SHOWV(cuGraphExecUpdate(exec, g, &info), info.result);
  SHOW(cuGraphLaunch(exec, s));
  SHOW(cuStreamSynchronize(s));
  result("updated: (5 + 100) * 3");
  auto swapped = kernelNode(scale, a1);
  SHOW(cuGraphKernelNodeSetParams(k1, &swapped));
  std::memset(&info, 0, sizeof info);
  SHOWV(cuGraphExecUpdate(exec, g, &info), info.result);
  SHOW(info.errorNode == nullptr);
  SHOW(cuGraphLaunch(exec, s));
  SHOW(cuStreamSynchronize(s));
  result("function changed by update: 5 * 100 * 3");
  CUgraphNode extra;
  SHOW(cuGraphAddEmptyNode(&extra, g, &back, 1));
  std::memset(&info, 0, sizeof info);
  SHOWV(cuGraphExecUpdate(exec, g, &info), info.result);
  SHOW(cuGraphDestroyNode(extra));
  SHOW(cuGraphDestroyNode(hostNode));
  counts("host node destroyed", g);
  std::memset(&info, 0, sizeof info);
  SHOWV(cuGraphExecUpdate(exec, g, &info), info.result);

  // Clones.
  CUgraph copy;
  SHOW(cuGraphClone(&copy, g));
  counts("clone", copy);
  CUgraphNode inClone = nullptr, notThere = nullptr;
  SHOW(cuGraphNodeFindInClone(&notThere, k1, other));
  SHOWV(cuGraphNodeFindInClone(&inClone, k1, copy), inClone != nullptr && inClone != k1);
  CUDA_KERNEL_NODE_PARAMS cloned;
  SHOWV(cuGraphKernelNodeGetParams(inClone, &cloned), cloned.func == scale);

  // A child graph node holds a copy of the child.
  CUgraph parent;
  CUgraphNode child;
  SHOW(cuGraphCreate(&parent, 0));
  SHOW(cuGraphAddChildGraphNode(&child, parent, nullptr, 0, copy));
  CUgraph inner = nullptr;
  SHOWV(cuGraphChildGraphNodeGetGraph(child, &inner), inner != copy);
  counts("child's graph", inner);
  CUgraphExec pe;
  SHOW(cuGraphInstantiate(&pe, parent, 0));
  SHOW(cuGraphLaunch(pe, s));
  SHOW(cuStreamSynchronize(s));
  result("child graph: memset 5, scale by 100, scale by 3");
  SHOW(cuGraphDebugDotPrint(parent, "/tmp/record_graphs.dot", CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE));

  SHOW(cuGraphExecDestroy(pe));
  SHOW(cuGraphExecDestroy(exec));
  SHOW(cuGraphDestroy(parent));
  SHOW(cuGraphDestroy(copy));
  SHOW(cuGraphDestroy(other));
  SHOW(cuGraphDestroy(g));
}

// Event record and wait nodes, and memory allocation and free nodes.
void eventAndMemoryNodes(CUcontext ctx, CUstream s, CUdeviceptr d) {
  std::printf("-- event and memory nodes\n");
  CUevent e;
  SHOW(cuEventCreate(&e, 0));
  CUgraph g;
  SHOW(cuGraphCreate(&g, 0));
  CUgraphNode alloc, set, k, back, freeNode, rec, wait;
  CUDA_MEM_ALLOC_NODE_PARAMS ap;
  std::memset(&ap, 0, sizeof ap);
  ap.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  ap.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  ap.poolProps.location.id = 0;
  ap.bytesize = kN * 4;
  SHOW(cuGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
  SHOW(ap.dptr != 0);
  CUdeviceptr mem = ap.dptr;
  auto m = memsetNode(mem, 7);
  SHOW(cuGraphAddMemsetNode(&set, g, &alloc, 1, &m, ctx));
  KernelArgs a{mem, 1, kN};
  auto kp = kernelNode(add, a);
  SHOW(cuGraphAddKernelNode(&k, g, &set, 1, &kp));
  auto cp = linearCopy(CUdeviceptr(host), true, mem, false, kN * 4);
  SHOW(cuGraphAddMemcpyNode(&back, g, &k, 1, &cp, ctx));
  SHOW(cuGraphAddMemFreeNode(&freeNode, g, &back, 1, mem));
  SHOW(cuGraphAddMemFreeNode(&wait, g, &back, 1, d));
  SHOW(cuGraphAddEventRecordNode(&rec, g, &freeNode, 1, e));
  CUDA_MEM_ALLOC_NODE_PARAMS gotAlloc;
  SHOWV(cuGraphMemAllocNodeGetParams(alloc, &gotAlloc), gotAlloc.bytesize);
  CUdeviceptr freed = 0;
  SHOWV(cuGraphMemFreeNodeGetParams(freeNode, &freed), freed == mem);
  CUevent got = nullptr;
  SHOWV(cuGraphEventRecordNodeGetEvent(rec, &got), got == e);
  counts("memory graph", g);
  CUgraphExec exec, second;
  SHOW(cuGraphInstantiate(&exec, g, 0));
  SHOW(cuGraphInstantiate(&second, g, 0));
  std::memset(host, 0, kN * 4);
  SHOW(cuGraphLaunch(exec, s));
  SHOW(cuEventSynchronize(e));
  result("allocated, set to 7, added 1, copied, freed");
  cuuint64_t used = 0;
  SHOWV(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &used), used > 0);
  SHOW(cuGraphLaunch(exec, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuGraphExecDestroy(exec));
  SHOW(cuDeviceGraphMemTrim(0));
  SHOWV(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &used), used);

  // A graph that allocates without freeing: the memory outlives the launch.
  CUgraph keep;
  SHOW(cuGraphCreate(&keep, 0));
  SHOW(cuGraphAddMemAllocNode(&alloc, keep, nullptr, 0, &ap));
  CUgraphExec ke;
  SHOW(cuGraphInstantiate(&ke, keep, 0));
  SHOW(cuGraphInstantiate(&second, keep, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH));
  SHOW(cuGraphLaunch(ke, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuGraphLaunch(ke, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuMemsetD32(ap.dptr, 3, kN));
  SHOW(cuMemFreeAsync(ap.dptr, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuGraphLaunch(ke, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuMemFree(ap.dptr));
  SHOW(cuGraphExecDestroy(ke));
  SHOW(cuGraphDestroy(keep));

  // Wait nodes: a graph that waits for an event recorded on another stream.
  CUgraph w;
  SHOW(cuGraphCreate(&w, 0));
  SHOW(cuGraphAddEventWaitNode(&wait, w, nullptr, 0, e));
  SHOWV(cuGraphEventWaitNodeGetEvent(wait, &got), got == e);
  CUevent e2;
  SHOW(cuEventCreate(&e2, CU_EVENT_DISABLE_TIMING));
  SHOW(cuGraphEventWaitNodeSetEvent(wait, e2));
  CUgraphExec we;
  SHOW(cuGraphInstantiate(&we, w, 0));
  SHOW(cuEventRecord(e2, s));
  SHOW(cuGraphLaunch(we, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuGraphExecEventWaitNodeSetEvent(we, wait, e));
  SHOW(cuGraphExecEventRecordNodeSetEvent(we, wait, e));
  SHOW(cuGraphExecDestroy(we));
  SHOW(cuGraphDestroy(w));
  SHOW(cuGraphDestroy(g));
  SHOW(cuEventDestroy(e2));
  SHOW(cuEventDestroy(e));
}

void userObjects(CUstream s) {
  std::printf("-- user objects\n");
  CUuserObject o;
  SHOW(cuUserObjectCreate(&o, &destroyed, destroyObject, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
  SHOW(cuUserObjectCreate(&o, &destroyed, destroyObject, 1, 0));
  SHOW(cuUserObjectCreate(&o, &destroyed, nullptr, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
  SHOW(cuUserObjectCreate(&o, &destroyed, destroyObject, 0, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
  SHOW(cuUserObjectCreate(&o, &destroyed, destroyObject, 2, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
  SHOW(cuUserObjectRetain(o, 1));
  SHOW(cuUserObjectRelease(o, 2));
  std::printf("destroyed: %d\n", destroyed);
  CUgraph g;
  SHOW(cuGraphCreate(&g, 0));
  SHOW(cuGraphRetainUserObject(g, o, 1, CU_GRAPH_USER_OBJECT_MOVE));
  SHOW(cuGraphRetainUserObject(g, o, 1, 2));
  SHOW(cuGraphReleaseUserObject(g, o, 5));
  CUgraphNode n;
  SHOW(cuGraphAddEmptyNode(&n, g, nullptr, 0));
  CUgraphExec exec;
  SHOW(cuGraphInstantiate(&exec, g, 0));
  SHOW(cuGraphDestroy(g));
  std::printf("destroyed after the graph: %d\n", destroyed);
  SHOW(cuGraphLaunch(exec, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuGraphExecDestroy(exec));
  SHOW(cuCtxSynchronize());
  for (int i = 0; i < 100 && destroyed == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::printf("destroyed after the exec: %d\n", destroyed);
}

void captureInfo(const char *what, CUstream s) {
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  cuuint64_t id = 0;
  CUgraph g = nullptr;
  const CUgraphNode *deps = nullptr;
  size_t n = 99;
  CUresult r = cuStreamGetCaptureInfo(s, &st, &id, &g, &deps, nullptr, &n);
  std::printf("%s: %d status %d id %s graph %s deps %zu\n", what, int(r), int(st), id ? "set" : "0",
              g ? "set" : "null", n);
  std::fflush(stdout);
}

// Stream capture: what is recorded, and what a capture refuses.
void capture(CUcontext ctx, CUstream s, CUstream s2, CUdeviceptr d) {
  std::printf("-- stream capture\n");
  CUstreamCaptureStatus st;
  SHOWV(cuStreamIsCapturing(s, &st), st);
  captureInfo("before", s);
  SHOW(cuStreamBeginCapture(nullptr, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuStreamBeginCapture(s, CUstreamCaptureMode(7)));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOWV(cuStreamIsCapturing(s, &st), st);
  captureInfo("begun", s);
  SHOW(cuMemsetD32Async(d, 2, kN, s));
  captureInfo("memset", s);
  KernelArgs a{d, 40, kN};
  SHOW(cuLaunchKernel(add, (kN + 127) / 128, 1, 1, 128, 1, 1, 0, s, a.params, nullptr));
  SHOW(cuMemcpyDtoHAsync(host, d, kN * 4, s));
  SHOW(cuLaunchHostFunc(s, countCall, &hostCalls));
  captureInfo("four operations", s);
  CUgraph g = nullptr;
  SHOW(cuStreamEndCapture(s, &g));
  CUgraph none = g;
  SHOW(cuStreamEndCapture(s, &none));
  SHOW(none == nullptr);
  counts("captured", g);
  std::memset(host, 0, kN * 4);
  result("nothing ran during capture");
  CUgraphExec exec;
  SHOW(cuGraphInstantiate(&exec, g, 0));
  hostCalls = 0;
  SHOW(cuGraphLaunch(exec, s));
  SHOW(cuStreamSynchronize(s));
  result("captured graph launched: 2 + 40");
  std::printf("host calls: %d\n", hostCalls);
  SHOW(cuGraphExecDestroy(exec));
  SHOW(cuGraphDestroy(g));

  // Calls a global capture refuses, and what they do to it.
  std::printf("-- illegal calls during global capture\n");
  CUevent e;
  SHOW(cuEventCreate(&e, 0));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuStreamQuery(s));
  captureInfo("after a query", s);
  SHOW(cuStreamEndCapture(s, &g));
  SHOW(g == nullptr);
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuStreamSynchronize(s));
  captureInfo("after a synchronize", s);
  SHOW(cuMemsetD32Async(d, 2, kN, s));
  SHOW(cuStreamEndCapture(s, &g));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CUdeviceptr tmp = 0;
  SHOW(cuMemAlloc(&tmp, 4096));
  SHOW(cuMemsetD32(d, 1, kN));
  SHOW(cuMemcpyHtoD(d, host, 16));
  captureInfo("after synchronous calls", s);
  SHOW(cuStreamEndCapture(s, &g));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuMemsetD32Async(d, 1, kN, nullptr));
  captureInfo("after the legacy stream was used", s);
  SHOW(cuStreamEndCapture(s, &g));
  CUstream b;
  SHOW(cuStreamCreate(&b, 0));
  SHOW(cuStreamBeginCapture(b, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuMemsetD32Async(d, 1, kN, nullptr));
  captureInfo("blocking stream, after the legacy stream was used", b);
  SHOW(cuStreamEndCapture(b, &g));
  SHOW(cuStreamBeginCapture(b, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOWV(cuStreamIsCapturing(nullptr, &st), st);
  captureInfo("legacy stream, while a blocking stream captures", nullptr);
  captureInfo("blocking stream, after the legacy stream was queried", b);
  SHOW(cuMemsetD32Async(d, 1, kN, b));
  SHOW(cuStreamQuery(nullptr));
  captureInfo("blocking stream, after cuStreamQuery(0)", b);
  SHOW(cuStreamEndCapture(b, &g));
  SHOW(cuStreamBeginCapture(b, CU_STREAM_CAPTURE_MODE_RELAXED));
  SHOW(cuStreamSynchronize(nullptr));
  captureInfo("blocking stream, after cuStreamSynchronize(0)", b);
  SHOW(cuStreamEndCapture(b, &g));
  SHOW(cuStreamBeginCapture(b, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuMemsetD32(d, 1, kN));
  captureInfo("blocking stream, after cuMemsetD32", b);
  SHOW(cuStreamEndCapture(b, &g));
  SHOW(cuStreamBeginCapture(b, CU_STREAM_CAPTURE_MODE_RELAXED));
  SHOW(cuMemsetD32Async(d, 1, kN, nullptr));
  captureInfo("relaxed blocking stream, after the legacy stream was used", b);
  SHOW(cuStreamEndCapture(b, &g));
  SHOW(cuStreamDestroy(b));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuMemsetD32(d, 1, kN));
  SHOW(cuMemcpyDtoH(host, d, 16));
  captureInfo("non-blocking stream, after synchronous copies", s);
  SHOW(cuStreamEndCapture(s, &g));
  SHOW(cuGraphDestroy(g));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuEventRecord(e, s));
  SHOW(cuEventSynchronize(e));
  captureInfo("after synchronizing with a captured event", s);
  SHOW(cuStreamEndCapture(s, &g));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuEventRecord(e, s));
  SHOW(cuEventQuery(e));
  SHOW(cuEventSynchronize(e));
  captureInfo("after querying a captured event", s);
  SHOW(cuStreamEndCapture(s, &g));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuCtxSynchronize());
  captureInfo("after cuCtxSynchronize", s);
  SHOW(cuStreamEndCapture(s, &g));
  SHOW(cuEventRecord(e, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuStreamWaitEvent(s, e, 0));
  captureInfo("after waiting for an uncaptured event", s);
  SHOW(cuStreamEndCapture(s, &g));
  if (g) {
    counts("waited for an uncaptured event", g);
    SHOW(cuGraphDestroy(g));
  }

  // Which calls a global capture forbids: each on its own capture of the non-blocking stream.
  std::printf("-- calls during a global capture, one by one\n");
  CUdeviceptr victim = 0;
  SHOW(cuMemAlloc(&victim, 4096));
  void *pinnedHost = nullptr;
  SHOW(cuMemAllocHost(&pinnedHost, 4096));
  CUevent idle;
  SHOW(cuEventCreate(&idle, 0));
  SHOW(cuEventRecord(idle, s2));
  SHOW(cuStreamSynchronize(s2));
  const std::string ptx = readFile(kernelPath);
  auto during = [&](const char *what, const std::function<CUresult()> &call) {
    cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL);
    CUresult r = call();
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    cuStreamIsCapturing(s, &status);
    CUgraph ended = nullptr;
    CUresult e = cuStreamEndCapture(s, &ended);
    if (ended)
      cuGraphDestroy(ended);
    std::printf("%-40s %d, capture status %d, end %d\n", what, int(r), int(status), int(e));
    std::fflush(stdout);
  };
  during("cuMemFree", [&] { return cuMemFree(victim); });
  during("cuMemFreeHost", [&] { return cuMemFreeHost(pinnedHost); });
  void *more = nullptr;
  during("cuMemHostAlloc", [&] { return cuMemHostAlloc(&more, 4096, 0); });
  CUdeviceptr pitched = 0;
  size_t pitch = 0;
  during("cuMemAllocPitch", [&] { return cuMemAllocPitch(&pitched, &pitch, 64, 4, 4); });
  CUdeviceptr managedPtr = 0;
  during("cuMemAllocManaged",
         [&] { return cuMemAllocManaged(&managedPtr, 4096, CU_MEM_ATTACH_GLOBAL); });
  during("cuEventSynchronize(uncaptured event)", [&] { return cuEventSynchronize(idle); });
  during("cuEventQuery(uncaptured event)", [&] { return cuEventQuery(idle); });
  CUmodule extra = nullptr;
  during("cuModuleLoadData", [&] { return cuModuleLoadData(&extra, ptx.c_str()); });
  size_t freeBytes = 0, totalBytes = 0;
  during("cuMemGetInfo", [&] { return cuMemGetInfo(&freeBytes, &totalBytes); });
  CUstream fresh = nullptr;
  during("cuStreamCreate", [&] { return cuStreamCreate(&fresh, CU_STREAM_NON_BLOCKING); });
  CUevent freshEvent = nullptr;
  during("cuEventCreate", [&] { return cuEventCreate(&freshEvent, 0); });
  unsigned word = 0;
  during("cuMemcpyDtoH(pinned)", [&] { return cuMemcpyDtoH(pinnedHost, d, 4); });
  during("cuMemcpyDtoH(pageable)", [&] { return cuMemcpyDtoH(&word, d, 4); });
  during("cuStreamSynchronize(other stream)", [&] { return cuStreamSynchronize(s2); });
  during("cuStreamQuery(other stream)", [&] { return cuStreamQuery(s2); });
  int attr = 0;
  during("cuFuncGetAttribute",
         [&] { return cuFuncGetAttribute(&attr, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, add); });
  if (fresh)
    cuStreamDestroy(fresh);
  if (freshEvent)
    cuEventDestroy(freshEvent);
  if (extra)
    cuModuleUnload(extra);
  SHOW(cuEventDestroy(idle));

  // Relaxed mode lets the thread allocate; thread-local mode refuses other threads' ending.
  std::printf("-- capture modes\n");
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
  SHOW(cuMemAlloc(&tmp, 4096));
  SHOW(cuMemFree(tmp));
  SHOW(cuMemsetD32Async(d, 9, kN, s));
  SHOW(cuStreamEndCapture(s, &g));
  counts("relaxed", g);
  SHOW(cuGraphDestroy(g));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
  SHOW(cuMemAlloc(&tmp, 4096));
  captureInfo("thread-local, after cuMemAlloc", s);
  SHOW(cuStreamEndCapture(s, &g));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
  CUresult fromThread = CUDA_SUCCESS, allocThread = CUDA_SUCCESS;
  std::thread([&] {
    cuCtxSetCurrent(ctx);
    CUdeviceptr t2 = 0;
    allocThread = cuMemAlloc(&t2, 4096);
    if (t2)
      cuMemFree(t2);
    CUgraph g2 = nullptr;
    fromThread = cuStreamEndCapture(s, &g2);
  }).join();
  std::printf("another thread: cuMemAlloc %d, cuStreamEndCapture %d\n", int(allocThread),
              int(fromThread));
  SHOW(cuStreamEndCapture(s, &g));
  if (g)
    SHOW(cuGraphDestroy(g));
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
  SHOWV(cuThreadExchangeStreamCaptureMode(&mode), mode);
  SHOWV(cuThreadExchangeStreamCaptureMode(&mode), mode);
  mode = CUstreamCaptureMode(9);
  SHOW(cuThreadExchangeStreamCaptureMode(&mode));
  mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
  SHOWV(cuThreadExchangeStreamCaptureMode(&mode), mode);
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  std::thread([&] {
    cuCtxSetCurrent(ctx);
    CUdeviceptr t2 = 0;
    allocThread = cuMemAlloc(&t2, 4096);
    if (t2)
      cuMemFree(t2);
    fromThread = cuStreamSynchronize(s2);
  }).join();
  std::printf("another thread during global capture: cuMemAlloc %d, cuStreamSynchronize %d\n",
              int(allocThread), int(fromThread));
  captureInfo("after the other thread", s);
  SHOW(cuStreamEndCapture(s, &g));
  if (g)
    SHOW(cuGraphDestroy(g));

  // Fork and join through events; an unjoined stream.
  std::printf("-- across streams\n");
  CUevent fork, join;
  SHOW(cuEventCreate(&fork, CU_EVENT_DISABLE_TIMING));
  SHOW(cuEventCreate(&join, CU_EVENT_DISABLE_TIMING));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuMemsetD32Async(d, 1, kN, s));
  SHOW(cuEventRecord(fork, s));
  SHOW(cuStreamWaitEvent(s2, fork, 0));
  captureInfo("second stream joined", s2);
  SHOWV(cuStreamIsCapturing(s2, &st), st);
  KernelArgs a2{d, 4, kN / 2};
  SHOW(cuLaunchKernel(add, (kN + 127) / 128, 1, 1, 128, 1, 1, 0, s2, a2.params, nullptr));
  KernelArgs a3{d + kN / 2 * 4, 6, kN / 2};
  SHOW(cuLaunchKernel(add, (kN + 127) / 128, 1, 1, 128, 1, 1, 0, s, a3.params, nullptr));
  SHOW(cuEventRecord(join, s2));
  SHOW(cuStreamWaitEvent(s, join, 0));
  captureInfo("joined back", s);
  SHOW(cuMemcpyDtoHAsync(host, d, kN * 4, s));
  SHOW(cuStreamEndCapture(s, &g));
  counts("fork and join", g);
  SHOWV(cuStreamIsCapturing(s2, &st), st);
  SHOW(cuGraphInstantiate(&exec, g, 0));
  SHOW(cuGraphLaunch(exec, s2));
  SHOW(cuStreamSynchronize(s2));
  std::printf("halves: %u %u\n", host[0], host[kN - 1]);
  SHOW(cuGraphExecDestroy(exec));
  SHOW(cuGraphDestroy(g));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuEventRecord(fork, s));
  SHOW(cuStreamWaitEvent(s2, fork, 0));
  SHOW(cuMemsetD32Async(d, 1, kN, s2));
  SHOW(cuStreamEndCapture(s, &g));
  SHOW(g == nullptr);
  SHOWV(cuStreamIsCapturing(s2, &st), st);
  SHOW(cuStreamEndCapture(s2, &g));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuEventRecord(fork, s));
  SHOW(cuStreamWaitEvent(s2, fork, 0));
  SHOW(cuStreamEndCapture(s2, &g));
  captureInfo("ended on the joined stream", s);
  SHOW(cuStreamEndCapture(s, &g));

  // Stream-ordered allocation in a capture becomes allocation and free nodes.
  std::printf("-- allocation during capture\n");
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CUdeviceptr p = 0;
  SHOW(cuMemAllocAsync(&p, kN * 4, s));
  SHOW(p != 0);
  SHOW(cuMemsetD32Async(p, 11, kN, s));
  SHOW(cuMemcpyDtoHAsync(host, p, kN * 4, s));
  SHOW(cuMemFreeAsync(p, s));
  SHOW(cuStreamEndCapture(s, &g));
  counts("allocation captured", g);
  SHOW(cuGraphInstantiate(&exec, g, 0));
  SHOW(cuGraphLaunch(exec, s));
  SHOW(cuStreamSynchronize(s));
  result("allocated in the graph, set to 11");
  SHOW(cuGraphExecDestroy(exec));
  SHOW(cuGraphDestroy(g));

  // Other stream work in a capture: callbacks, prefetches, pool allocations, external event
  // records and waits.
  std::printf("-- other operations in a capture\n");
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuStreamAddCallback(s, ignoreCallback, nullptr, 0));
  captureInfo("after a callback", s);
  SHOW(cuStreamEndCapture(s, &g));
  if (g)
    SHOW(cuGraphDestroy(g));
  CUdeviceptr managed;
  SHOW(cuMemAllocManaged(&managed, 4096, CU_MEM_ATTACH_GLOBAL));
  CUmemLocation cpu{CU_MEM_LOCATION_TYPE_HOST, 0};
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuMemPrefetchAsync(managed, 4096, cpu, 0, s));
  SHOW(cuStreamAttachMemAsync(s, managed, 0, CU_MEM_ATTACH_GLOBAL));
  captureInfo("after a prefetch and an attach", s);
  SHOW(cuStreamEndCapture(s, &g));
  if (g) {
    counts("prefetch and attach", g);
    SHOW(cuGraphDestroy(g));
  }
  SHOW(cuMemFree(managed));
  CUmemoryPool pool;
  SHOW(cuDeviceGetDefaultMemPool(&pool, 0));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuMemAllocFromPoolAsync(&p, 4096, pool, s));
  SHOW(cuMemsetD32Async(p, 5, 1024, s));
  SHOW(cuMemFreeAsync(p, s));
  SHOW(cuEventRecordWithFlags(fork, s, CU_EVENT_RECORD_EXTERNAL));
  captureInfo("after pool allocation and an external record", s);
  SHOW(cuStreamEndCapture(s, &g));
  if (g) {
    counts("pool allocation and an external record", g);
    SHOW(cuGraphDestroy(g));
  }
  CUevent outside;
  SHOW(cuEventCreate(&outside, CU_EVENT_DISABLE_TIMING));
  SHOW(cuEventRecord(outside, s2));
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuStreamWaitEvent(s, outside, CU_EVENT_WAIT_EXTERNAL));
  captureInfo("after an external wait", s);
  SHOW(cuStreamEndCapture(s, &g));
  if (g) {
    counts("an external wait", g);
    SHOW(cuGraphDestroy(g));
  }
  SHOW(cuEventDestroy(outside));

  // Capture into an existing graph, behind a chosen node; changing the capture's dependencies.
  std::printf("-- capture into a graph\n");
  CUgraph into;
  SHOW(cuGraphCreate(&into, 0));
  CUgraphNode first, second;
  auto m = memsetNode(d, 30);
  SHOW(cuGraphAddMemsetNode(&first, into, nullptr, 0, &m, ctx));
  SHOW(cuGraphAddEmptyNode(&second, into, nullptr, 0));
  SHOW(cuStreamBeginCaptureToGraph(s, into, &first, nullptr, 1, CU_STREAM_CAPTURE_MODE_GLOBAL));
  captureInfo("begun into a graph", s);
  KernelArgs a4{d, 3, kN};
  SHOW(cuLaunchKernel(add, (kN + 127) / 128, 1, 1, 128, 1, 1, 0, s, a4.params, nullptr));
  SHOW(cuStreamUpdateCaptureDependencies(s, &second, nullptr, 1,
                                         CU_STREAM_ADD_CAPTURE_DEPENDENCIES));
  captureInfo("dependency added", s);
  SHOW(cuStreamUpdateCaptureDependencies(s, &second, nullptr, 1, 7));
  SHOW(cuStreamUpdateCaptureDependencies(s, &second, nullptr, 1,
                                         CU_STREAM_SET_CAPTURE_DEPENDENCIES));
  captureInfo("dependencies set", s);
  SHOW(cuMemcpyDtoHAsync(host, d, kN * 4, s));
  CUgraph ended = nullptr;
  SHOW(cuStreamEndCapture(s, &ended));
  SHOW(ended == into);
  counts("captured into a graph", into);
  SHOW(cuGraphInstantiate(&exec, into, 0));
  SHOW(cuGraphLaunch(exec, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuGraphExecDestroy(exec));
  SHOW(cuGraphDestroy(into));
  SHOW(cuEventDestroy(fork));
  SHOW(cuEventDestroy(join));
  SHOW(cuEventDestroy(e));
}

// A conditional node of `type` with `size` bodies behind `deps`; the driver's array of its bodies
// in *bodies.
CUresult addConditional(CUgraphNode *node, CUgraph g, CUgraphNode *deps, size_t n,
                        CUgraphConditionalHandle h, CUgraphConditionalNodeType type, unsigned size,
                        CUgraph **bodies, CUcontext ctx) {
  CUgraphNodeParams p;
  std::memset(&p, 0, sizeof p);
  p.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
  p.conditional.handle = h;
  p.conditional.type = type;
  p.conditional.size = size;
  p.conditional.ctx = ctx;
  CUresult r = cuGraphAddNode(node, g, deps, nullptr, n, &p);
  *bodies = p.conditional.phGraph_out;
  return r;
}

CUDA_KERNEL_NODE_PARAMS oneThread(CUfunction f, void **params) {
  CUDA_KERNEL_NODE_PARAMS k;
  std::memset(&k, 0, sizeof k);
  k.func = f;
  k.gridDimX = k.gridDimY = k.gridDimZ = 1;
  k.blockDimX = k.blockDimY = k.blockDimZ = 1;
  k.kernelParams = params;
  return k;
}

// Conditional nodes: a while loop counting down, if/else and switch chosen by device code.
void conditionalNodes(CUcontext ctx, CUstream s, CUdeviceptr d) {
  std::printf("-- conditional nodes\n");
  CUgraph g;
  SHOW(cuGraphCreate(&g, 0));
  CUgraphConditionalHandle loop = 0, choice = 0, which = 0;
  SHOW(cuGraphConditionalHandleCreate(&loop, g, ctx, 1, CU_GRAPH_COND_ASSIGN_DEFAULT));
  SHOW(cuGraphConditionalHandleCreate(&choice, g, ctx, 0, 0));
  SHOW(cuGraphConditionalHandleCreate(&which, g, ctx, 0, 4));
  SHOW(cuGraphConditionalHandleCreate(&which, g, ctx, 0, 0));
  CUgraph *bodies = nullptr;
  CUgraphNode whileNode, n1, n2, ifNode, switchNode, setNode, bad;
  SHOW(addConditional(&bad, g, nullptr, 0, loop, CU_GRAPH_COND_TYPE_WHILE, 2, &bodies, ctx));
  SHOW(addConditional(&bad, g, nullptr, 0, loop, CU_GRAPH_COND_TYPE_IF, 3, &bodies, ctx));
  SHOW(addConditional(&bad, g, nullptr, 0, loop, CU_GRAPH_COND_TYPE_SWITCH, 0, &bodies, ctx));
  CUgraph other;
  SHOW(cuGraphCreate(&other, 0));
  SHOW(addConditional(&bad, other, nullptr, 0, loop, CU_GRAPH_COND_TYPE_WHILE, 1, &bodies, ctx));
  SHOW(cuGraphDestroy(other));
  // while (d[0] != 0) { d[0] -= 1; d[1..8] += 1 }
  SHOW(addConditional(&whileNode, g, nullptr, 0, loop, CU_GRAPH_COND_TYPE_WHILE, 1, &bodies, ctx));
  CUgraph whileBody = bodies[0];
  CUdeviceptr counter = d, tail = d + 4;
  void *down[] = {&counter, &loop};
  auto downp = oneThread(countdown, down);
  SHOW(cuGraphAddKernelNode(&n1, whileBody, nullptr, 0, &downp));
  KernelArgs inc{tail, 1, 8};
  auto incp = kernelNode(add, inc);
  SHOW(cuGraphAddKernelNode(&n2, whileBody, &n1, 1, &incp));
  counts("while body", whileBody);
  // if (choice) d[16..31] = 7 else d[16..31] = 9; choice set by a kernel to its argument
  unsigned chosen = 0;
  void *pick[] = {&choice, &chosen};
  auto pickp = oneThread(setc, pick);
  SHOW(cuGraphAddKernelNode(&setNode, g, &whileNode, 1, &pickp));
  SHOW(addConditional(&ifNode, g, &setNode, 1, choice, CU_GRAPH_COND_TYPE_IF, 2, &bodies, ctx));
  auto seven = memsetNode(d + 64, 7), nine = memsetNode(d + 64, 9);
  seven.width = nine.width = 16;
  SHOW(cuGraphAddMemsetNode(&n1, bodies[0], nullptr, 0, &seven, ctx));
  SHOW(cuGraphAddMemsetNode(&n2, bodies[1], nullptr, 0, &nine, ctx));
  // switch (which) { 0: d[32..47] = 20; 1: 21; 2: 22 }
  SHOW(addConditional(&switchNode, g, &ifNode, 1, which, CU_GRAPH_COND_TYPE_SWITCH, 3, &bodies,
                      ctx));
  for (unsigned i = 0; i < 3; ++i) {
    auto m = memsetNode(d + 128, 20 + i);
    m.width = 16;
    SHOW(cuGraphAddMemsetNode(&n1, bodies[i], nullptr, 0, &m, ctx));
  }
  counts("conditional graph", g);
  CUgraphExec exec;
  SHOW(cuGraphInstantiate(&exec, g, 0));
  auto run = [&](const char *what, unsigned start) {
    SHOW(cuMemsetD32(d, 0, 64));
    SHOW(cuMemsetD32(d, start, 1));
    SHOW(cuGraphLaunch(exec, s));
    SHOW(cuStreamSynchronize(s));
    SHOW(cuMemcpyDtoH(host, d, 4 * 64));
    std::printf("%s: counter %u, added %u, if %u, switch %u\n", what, host[0], host[1], host[16],
                host[32]);
    std::fflush(stdout);
  };
  run("5 iterations, else branch, case 0", 5);
  chosen = 1;
  SHOW(cuGraphExecKernelNodeSetParams(exec, setNode, &pickp));
  run("3 iterations, if branch, case 0", 3);
  unsigned two = 2;
  void *toCase2[] = {&which, &two};
  auto casep = oneThread(setc, toCase2);
  CUgraphNode caseNode;
  SHOW(cuGraphAddKernelNode(&caseNode, g, nullptr, 0, &casep));
  SHOW(cuGraphAddDependencies(g, &caseNode, &switchNode, nullptr, 1));
  CUgraphExec second;
  SHOW(cuGraphInstantiate(&second, g, 0));
  SHOW(cuGraphExecDestroy(exec));
  SHOW(cuGraphInstantiate(&exec, g, 0));
  run("1 iteration, else branch, case 2", 1);
  SHOW(cuGraphExecDestroy(exec));
  SHOW(cuGraphDestroy(g));
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s graph_kernels.ptx\n", argv[0]);
    return 2;
  }
  CUcontext ctx;
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&ctx, nullptr, 0, 0));
  CUmodule mod;
  kernelPath = argv[1];
  const std::string ptx = readFile(argv[1]);
  SHOW(cuModuleLoadData(&mod, ptx.c_str()));
  SHOW(cuModuleGetFunction(&add, mod, "add"));
  SHOW(cuModuleGetFunction(&scale, mod, "scale"));
  SHOW(cuModuleGetFunction(&countdown, mod, "countdown"));
  SHOW(cuModuleGetFunction(&setc, mod, "setc"));
  SHOW(cuMemAllocHost(reinterpret_cast<void **>(&host), kN * 4));
  CUdeviceptr d;
  SHOW(cuMemAlloc(&d, kN * 4));
  CUstream s, s2;
  SHOW(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  SHOW(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
  explicitGraphs(ctx, s, d);
  eventAndMemoryNodes(ctx, s, d);
  userObjects(s);
  capture(ctx, s, s2, d);
  conditionalNodes(ctx, s, d);
  SHOW(cuStreamDestroy(s2));
  SHOW(cuStreamDestroy(s));
  SHOW(cuMemFree(d));
  SHOW(cuCtxDestroy(ctx));
  return 0;
}
