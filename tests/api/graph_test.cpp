// CUDA graphs and stream capture beyond tests/gpu/answers/graphs.txt: the generic node API for
// every kind, capture on the per-thread stream and of a graph launch, captured 2D memsets and
// stream memory operations, dot output, setters racing launches, user objects outliving a launch
// in flight, a fault inside a graph, destroying a capturing stream. Expected values are exact.
#include <cuda.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr unsigned kN = 256;

class Graphs : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
    std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/api/graphs/graph_kernels.ptx");
    std::stringstream ss;
    ss << in.rdbuf();
    ASSERT_EQ(cuModuleLoadData(&mod, ss.str().c_str()), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&add, mod, "add"), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc(&d, kN * 4), CUDA_SUCCESS);
    ASSERT_EQ(cuMemsetD32(d, 0, kN), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(cuCtxDestroy(ctx), CUDA_SUCCESS); }

  // add(d, v, kN) as node parameters; `v` must outlive the call that copies it.
  CUDA_KERNEL_NODE_PARAMS addParams(unsigned *v) {
    args[0] = &d;
    args[1] = v;
    args[2] = &n;
    CUDA_KERNEL_NODE_PARAMS k;
    std::memset(&k, 0, sizeof k);
    k.func = add;
    k.gridDimX = 2;
    k.gridDimY = k.gridDimZ = 1;
    k.blockDimX = 128;
    k.blockDimY = k.blockDimZ = 1;
    k.kernelParams = args;
    return k;
  }
  std::vector<unsigned> read() {
    std::vector<unsigned> h(kN);
    EXPECT_EQ(cuMemcpyDtoH(h.data(), d, kN * 4), CUDA_SUCCESS);
    return h;
  }
  CUgraphNodeType typeOf(CUgraphNode node) {
    CUgraphNodeType t = CU_GRAPH_NODE_TYPE_EMPTY;
    EXPECT_EQ(cuGraphNodeGetType(node, &t), CUDA_SUCCESS);
    return t;
  }

  CUcontext ctx;
  CUmodule mod;
  CUfunction add;
  CUdeviceptr d;
  CUstream s;
  unsigned n = kN;
  void *args[3];
};

int hostCalls = 0;
void CUDA_CB countCall(void *data) { ++*static_cast<int *>(data); }

TEST_F(Graphs, GenericAddNodeOfEveryKind) {
  CUgraph g;
  ASSERT_EQ(cuGraphCreate(&g, 0), CUDA_SUCCESS);
  CUgraphNodeParams p;
  CUgraphNode alloc, set, kernel, copy, host, rec, wait, memop, freeNode, empty;
  std::memset(&p, 0, sizeof p);
  p.type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
  p.alloc.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.alloc.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.alloc.bytesize = kN * 4;
  ASSERT_EQ(cuGraphAddNode(&alloc, g, nullptr, nullptr, 0, &p), CUDA_SUCCESS);
  const CUdeviceptr scratch = p.alloc.dptr;
  ASSERT_NE(scratch, 0u);
  std::memset(&p, 0, sizeof p);
  p.type = CU_GRAPH_NODE_TYPE_MEMSET;
  p.memset = {scratch, 0, 6, 4, kN, 1, ctx};
  ASSERT_EQ(cuGraphAddNode(&set, g, &alloc, nullptr, 1, &p), CUDA_SUCCESS);
  unsigned v = 4;
  std::memset(&p, 0, sizeof p);
  p.type = CU_GRAPH_NODE_TYPE_KERNEL;
  CUDA_KERNEL_NODE_PARAMS k = addParams(&v);
  std::memcpy(&p.kernel, &k, sizeof k);
  ASSERT_EQ(cuGraphAddNode(&kernel, g, nullptr, nullptr, 0, &p), CUDA_SUCCESS);
  std::memset(&p, 0, sizeof p);
  p.type = CU_GRAPH_NODE_TYPE_MEMCPY; // scratch (6) added to d's words after the kernel
  p.memcpy.copyCtx = ctx;
  p.memcpy.copyParams.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  p.memcpy.copyParams.srcDevice = scratch;
  p.memcpy.copyParams.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  p.memcpy.copyParams.dstDevice = d + kN * 2;
  p.memcpy.copyParams.WidthInBytes = kN * 2;
  p.memcpy.copyParams.Height = p.memcpy.copyParams.Depth = 1;
  CUgraphNode both[2] = {set, kernel};
  ASSERT_EQ(cuGraphAddNode(&copy, g, both, nullptr, 2, &p), CUDA_SUCCESS);
  std::memset(&p, 0, sizeof p);
  p.type = CU_GRAPH_NODE_TYPE_HOST;
  p.host = {countCall, &hostCalls};
  ASSERT_EQ(cuGraphAddNode(&host, g, &copy, nullptr, 1, &p), CUDA_SUCCESS);
  CUevent e;
  ASSERT_EQ(cuEventCreate(&e, 0), CUDA_SUCCESS);
  std::memset(&p, 0, sizeof p);
  p.type = CU_GRAPH_NODE_TYPE_EVENT_RECORD;
  p.eventRecord.event = e;
  ASSERT_EQ(cuGraphAddNode(&rec, g, &host, nullptr, 1, &p), CUDA_SUCCESS);
  std::memset(&p, 0, sizeof p);
  p.type = CU_GRAPH_NODE_TYPE_WAIT_EVENT;
  p.eventWait.event = e;
  ASSERT_EQ(cuGraphAddNode(&wait, g, &host, nullptr, 1, &p), CUDA_SUCCESS);
  CUstreamBatchMemOpParams op;
  std::memset(&op, 0, sizeof op);
  op.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
  op.writeValue.address = d + 4 * (kN - 1);
  op.writeValue.value = 99;
  std::memset(&p, 0, sizeof p);
  p.type = CU_GRAPH_NODE_TYPE_BATCH_MEM_OP;
  p.memOp = {ctx, 1, &op, 0};
  ASSERT_EQ(cuGraphAddNode(&memop, g, &wait, nullptr, 1, &p), CUDA_SUCCESS);
  std::memset(&p, 0, sizeof p);
  p.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
  p.free.dptr = scratch;
  ASSERT_EQ(cuGraphAddNode(&freeNode, g, &memop, nullptr, 1, &p), CUDA_SUCCESS);
  std::memset(&p, 0, sizeof p);
  p.type = CU_GRAPH_NODE_TYPE_EMPTY;
  ASSERT_EQ(cuGraphAddNode(&empty, g, &freeNode, nullptr, 1, &p), CUDA_SUCCESS);
  p.reserved0[1] = 1;
  CUgraphNode refused;
  EXPECT_EQ(cuGraphAddNode(&refused, g, nullptr, nullptr, 0, &p), CUDA_ERROR_INVALID_VALUE);

  EXPECT_EQ(typeOf(alloc), CU_GRAPH_NODE_TYPE_MEM_ALLOC);
  EXPECT_EQ(typeOf(memop), CU_GRAPH_NODE_TYPE_BATCH_MEM_OP);
  EXPECT_EQ(typeOf(wait), CU_GRAPH_NODE_TYPE_WAIT_EVENT);
  CUgraphExec exec;
  ASSERT_EQ(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
  hostCalls = 0;
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(cuGraphLaunch(exec, s), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(cuEventQuery(e), CUDA_SUCCESS);
  const auto h = read();
  EXPECT_EQ(h[0], 8u);       // the kernel twice
  EXPECT_EQ(h[kN / 2], 6u);  // the copy of the memset
  EXPECT_EQ(h[kN - 1], 99u); // the batch write
  EXPECT_EQ(hostCalls, 2);
  EXPECT_EQ(cuGraphExecDestroy(exec), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphDestroy(g), CUDA_SUCCESS);
  EXPECT_EQ(cuEventDestroy(e), CUDA_SUCCESS);
}

TEST_F(Graphs, CapturedGraphLaunchIsAChildGraphNode) {
  CUgraph inner, outer;
  ASSERT_EQ(cuGraphCreate(&inner, 0), CUDA_SUCCESS);
  unsigned v = 3;
  auto k = addParams(&v);
  CUgraphNode node;
  ASSERT_EQ(cuGraphAddKernelNode(&node, inner, nullptr, 0, &k), CUDA_SUCCESS);
  CUgraphExec innerExec, outerExec;
  ASSERT_EQ(cuGraphInstantiate(&innerExec, inner, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(innerExec, s), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(innerExec, s), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamEndCapture(s, &outer), CUDA_SUCCESS);
  CUgraphNode nodes[2];
  size_t count = 2;
  ASSERT_EQ(cuGraphGetNodes(outer, nodes, &count), CUDA_SUCCESS);
  ASSERT_EQ(count, 2u);
  EXPECT_EQ(typeOf(nodes[0]), CU_GRAPH_NODE_TYPE_GRAPH);
  EXPECT_EQ(read()[0], 0u); // nothing ran during capture
  ASSERT_EQ(cuGraphInstantiate(&outerExec, outer, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(outerExec, s), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(read()[kN - 1], 6u);
  EXPECT_EQ(cuGraphExecDestroy(outerExec), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphExecDestroy(innerExec), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphDestroy(outer), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphDestroy(inner), CUDA_SUCCESS);
}

TEST_F(Graphs, PerThreadStreamCapturesAndLegacyStreamLaunches) {
  ASSERT_EQ(cuStreamBeginCapture(CU_STREAM_PER_THREAD, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
            CUDA_SUCCESS);
  CUstreamCaptureStatus st;
  ASSERT_EQ(cuStreamIsCapturing(CU_STREAM_PER_THREAD, &st), CUDA_SUCCESS);
  EXPECT_EQ(st, CU_STREAM_CAPTURE_STATUS_ACTIVE);
  // Rows of 64 words, 128 words apart: every other half row set to 5.
  ASSERT_EQ(cuMemsetD2D32Async(d, 512, 5, 64, 2, CU_STREAM_PER_THREAD), CUDA_SUCCESS);
  CUgraph g;
  ASSERT_EQ(cuStreamEndCapture(CU_STREAM_PER_THREAD, &g), CUDA_SUCCESS);
  CUgraphNode node;
  size_t count = 1;
  ASSERT_EQ(cuGraphGetNodes(g, &node, &count), CUDA_SUCCESS);
  CUDA_MEMSET_NODE_PARAMS m;
  ASSERT_EQ(cuGraphMemsetNodeGetParams(node, &m), CUDA_SUCCESS);
  EXPECT_EQ(m.pitch, 512u);
  EXPECT_EQ(m.width, 64u);
  EXPECT_EQ(m.height, 2u);
  EXPECT_EQ(m.elementSize, 4u);
  CUgraphExec exec;
  ASSERT_EQ(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(exec, nullptr), CUDA_SUCCESS); // the legacy stream
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  const auto h = read();
  EXPECT_EQ(h[63], 5u);
  EXPECT_EQ(h[64], 0u);
  EXPECT_EQ(h[128 + 63], 5u);
  EXPECT_EQ(h[128 + 64], 0u);
  EXPECT_EQ(cuGraphExecDestroy(exec), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphDestroy(g), CUDA_SUCCESS);
}

TEST_F(Graphs, StreamMemOpsAreCapturedAsBatchNodes) {
  ASSERT_EQ(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWriteValue32(s, d, 17, 0), CUDA_SUCCESS);
  CUgraph g;
  ASSERT_EQ(cuStreamEndCapture(s, &g), CUDA_SUCCESS);
  EXPECT_EQ(read()[0], 0u);
  CUgraphNode node;
  size_t count = 1;
  ASSERT_EQ(cuGraphGetNodes(g, &node, &count), CUDA_SUCCESS);
  EXPECT_EQ(typeOf(node), CU_GRAPH_NODE_TYPE_BATCH_MEM_OP);
  CUgraphExec exec;
  ASSERT_EQ(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(exec, s), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(read()[0], 17u);
  EXPECT_EQ(cuGraphExecDestroy(exec), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphDestroy(g), CUDA_SUCCESS);
}

TEST_F(Graphs, DotOutputNamesNodesAndEdges) {
  CUgraph g;
  ASSERT_EQ(cuGraphCreate(&g, 0), CUDA_SUCCESS);
  unsigned v = 1;
  auto k = addParams(&v);
  CUgraphNode kernel, empty;
  ASSERT_EQ(cuGraphAddKernelNode(&kernel, g, nullptr, 0, &k), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphAddEmptyNode(&empty, g, &kernel, 1), CUDA_SUCCESS);
  const std::string path = testing::TempDir() + "/graph.dot";
  ASSERT_EQ(cuGraphDebugDotPrint(g, path.c_str(), CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE), CUDA_SUCCESS);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "digraph cudaGraph {\n"
                        "  node0 [shape=box label=\"kernel\\nadd <<<2,1,1 x 128,1,1, 0>>>\\n16 bytes of parameters\"];\n"
                        "  node1 [shape=box label=\"empty\"];\n"
                        "  node0 -> node1;\n"
                        "}\n");
  EXPECT_EQ(cuGraphDebugDotPrint(g, "/nonexistent/dir/graph.dot", 0), CUDA_ERROR_OPERATING_SYSTEM);
  EXPECT_EQ(cuGraphDestroy(g), CUDA_SUCCESS);
}

// One thread launches while another changes the kernel node (to the same value): every launch
// runs a whole schedule, old or new.
TEST_F(Graphs, ExecSettersRaceLaunches) {
  CUgraph g;
  ASSERT_EQ(cuGraphCreate(&g, 0), CUDA_SUCCESS);
  unsigned v = 1;
  auto k = addParams(&v);
  CUgraphNode node;
  ASSERT_EQ(cuGraphAddKernelNode(&node, g, nullptr, 0, &k), CUDA_SUCCESS);
  CUgraphExec exec;
  ASSERT_EQ(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
  constexpr int kLaunches = 200;
  std::atomic<bool> done{false};
  std::thread setter([&] {
    ASSERT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    while (!done)
      ASSERT_EQ(cuGraphExecKernelNodeSetParams(exec, node, &k), CUDA_SUCCESS);
  });
  for (int i = 0; i < kLaunches; ++i)
    ASSERT_EQ(cuGraphLaunch(exec, s), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  done = true;
  setter.join();
  EXPECT_EQ(read()[7], unsigned(kLaunches));
  EXPECT_EQ(cuGraphExecDestroy(exec), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphDestroy(g), CUDA_SUCCESS);
}

std::atomic<bool> releaseHost{false};
void CUDA_CB blockHost(void *) {
  while (!releaseHost)
    std::this_thread::yield();
}
std::atomic<int> destroyed{0};
void CUDA_CB destroyObject(void *) { ++destroyed; }

TEST_F(Graphs, UserObjectOutlivesALaunchInFlight) {
  CUgraph g;
  ASSERT_EQ(cuGraphCreate(&g, 0), CUDA_SUCCESS);
  CUgraphNode node;
  CUDA_HOST_NODE_PARAMS hp{blockHost, nullptr};
  ASSERT_EQ(cuGraphAddHostNode(&node, g, nullptr, 0, &hp), CUDA_SUCCESS);
  CUuserObject o;
  ASSERT_EQ(cuUserObjectCreate(&o, nullptr, destroyObject, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC),
            CUDA_SUCCESS);
  ASSERT_EQ(cuGraphRetainUserObject(g, o, 1, CU_GRAPH_USER_OBJECT_MOVE), CUDA_SUCCESS);
  CUgraphExec exec;
  ASSERT_EQ(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphDestroy(g), CUDA_SUCCESS);
  releaseHost = false;
  destroyed = 0;
  ASSERT_EQ(cuGraphLaunch(exec, s), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphExecDestroy(exec), CUDA_SUCCESS);
  EXPECT_EQ(destroyed, 0); // the launch in flight still holds the object
  releaseHost = true;
  ASSERT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(destroyed, 1);
}

TEST_F(Graphs, DestroyingTheCapturingStreamEndsTheCapture) {
  CUstream origin, joined;
  ASSERT_EQ(cuStreamCreate(&origin, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamCreate(&joined, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  CUevent e;
  ASSERT_EQ(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamBeginCapture(origin, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(e, origin), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitEvent(joined, e, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamDestroy(origin), CUDA_SUCCESS);
  CUstreamCaptureStatus st;
  ASSERT_EQ(cuStreamIsCapturing(joined, &st), CUDA_SUCCESS);
  EXPECT_EQ(st, CU_STREAM_CAPTURE_STATUS_NONE);
  ASSERT_EQ(cuMemsetD32Async(d, 4, kN, joined), CUDA_SUCCESS); // runs: no capture any more
  ASSERT_EQ(cuStreamSynchronize(joined), CUDA_SUCCESS);
  EXPECT_EQ(read()[0], 4u);
  EXPECT_EQ(cuEventDestroy(e), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamDestroy(joined), CUDA_SUCCESS);
}

TEST_F(Graphs, FaultInsideAGraphIsSticky) {
  CUgraph g;
  ASSERT_EQ(cuGraphCreate(&g, 0), CUDA_SUCCESS);
  unsigned v = 1;
  auto k = addParams(&v);
  CUgraphNode node;
  ASSERT_EQ(cuGraphAddKernelNode(&node, g, nullptr, 0, &k), CUDA_SUCCESS);
  CUgraphExec exec;
  ASSERT_EQ(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
  const CUdeviceptr good = d;
  d = 64; // the kernel now stores to an unmapped page
  auto bad = addParams(&v);
  ASSERT_EQ(cuGraphExecKernelNodeSetParams(exec, node, &bad), CUDA_SUCCESS);
  d = good;
  ASSERT_EQ(cuGraphLaunch(exec, s), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamSynchronize(s), CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_EQ(cuGraphLaunch(exec, s), CUDA_ERROR_ILLEGAL_ADDRESS);
}

} // namespace
