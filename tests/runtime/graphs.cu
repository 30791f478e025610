// Runtime API: CUDA graphs as programs use them. A fork-join pipeline captured across two streams
// and launched many times; a graph built node by node with per-node updates; re-capture plus
// cudaGraphExecUpdate (the pattern of frameworks that replay a step); stream-ordered allocation
// inside a capture; a conditional while loop ended by device code; the errors a global capture
// gives for an unsafe call. Expected values are exact; the same program passes on an H200
// (nvcc -arch=sm_90 -Itests/runtime tests/runtime/graphs.cu).
#include "check.h"

#include <vector>

__global__ void axpb(int *p, int a, int b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = a * p[i] + b;
}

__global__ void sum2(int *out, const int *x, const int *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = x[i] + y[i];
}

// One iteration of a conditional while loop: counts down and ends the loop at zero.
__global__ void countDown(int *counter, int *iterations, cudaGraphConditionalHandle loop) {
  ++*iterations;
  if (--*counter == 0)
    cudaGraphSetConditional(loop, 0);
}

int hostRuns = 0;
void CUDART_CB countRun(void *) { ++hostRuns; }

constexpr int n = 1 << 14;
constexpr int threads = 256, blocks = (n + threads - 1) / threads;

bool expect(const char *what, const int *h, int (*f)(int)) {
  for (int i = 0; i < n; ++i)
    if (h[i] != f(i)) {
      std::printf("FAIL %s: element %d is %d, expected %d\n", what, i, h[i], f(i));
      return false;
    }
  return true;
}

// Captured: x = i (copied in), then in parallel x = 2x + 1 on s1 and y = 3x - 1 on s2 (y from a
// copy of x), then out = x + y, copied back, and a host function.
cudaGraph_t capturePipeline(cudaStream_t s1, cudaStream_t s2, int *dx, int *dy, int *dout, int *hin,
                            int *hout) {
  cudaEvent_t fork, join;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemcpyAsync(dx, hin, n * sizeof(int), cudaMemcpyHostToDevice, s1));
  CHECK(cudaMemcpyAsync(dy, dx, n * sizeof(int), cudaMemcpyDeviceToDevice, s1));
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  axpb<<<blocks, threads, 0, s1>>>(dx, 2, 1, n);
  axpb<<<blocks, threads, 0, s2>>>(dy, 3, -1, n);
  CHECK(cudaEventRecord(join, s2));
  CHECK(cudaStreamWaitEvent(s1, join, 0));
  sum2<<<blocks, threads, 0, s1>>>(dout, dx, dy, n);
  CHECK(cudaMemcpyAsync(hout, dout, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CHECK(cudaLaunchHostFunc(s1, countRun, nullptr));
  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(s1, &g));
  CHECK(cudaEventDestroy(fork));
  CHECK(cudaEventDestroy(join));
  return g;
}

int main() {
  int *dx, *dy, *dout, *hin, *hout;
  CHECK(cudaMalloc(&dx, n * sizeof(int)));
  CHECK(cudaMalloc(&dy, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMallocHost(&hin, n * sizeof(int)));
  CHECK(cudaMallocHost(&hout, n * sizeof(int)));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

  // 1. The captured pipeline: 7 nodes (2 copies in, 3 kernels, a copy out, a host node).
  cudaGraph_t g = capturePipeline(s1, s2, dx, dy, dout, hin, hout);
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &nodes));
  if (nodes != 7) {
    std::printf("FAIL captured %zu nodes, expected 7\n", nodes);
    return 1;
  }
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, g, 0));
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < n; ++i)
      hin[i] = i + round;
    CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaStreamSynchronize(s1));
    for (int i = 0; i < n; ++i) // (2x + 1) + (3x - 1) = 5x
      if (hout[i] != 5 * (i + round)) {
        std::printf("FAIL round %d element %d: %d\n", round, i, hout[i]);
        return 1;
      }
  }
  if (hostRuns != 20) {
    std::printf("FAIL host node ran %d times\n", hostRuns);
    return 1;
  }

  // 2. Re-capture with other constants and update the executable graph in place.
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeThreadLocal));
  CHECK(cudaMemcpyAsync(dx, hin, n * sizeof(int), cudaMemcpyHostToDevice, s1));
  CHECK(cudaMemcpyAsync(dy, dx, n * sizeof(int), cudaMemcpyDeviceToDevice, s1));
  cudaEvent_t fork, join;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  axpb<<<blocks, threads, 0, s1>>>(dx, 4, 0, n);
  axpb<<<blocks, threads, 0, s2>>>(dy, 1, 7, n);
  CHECK(cudaEventRecord(join, s2));
  CHECK(cudaStreamWaitEvent(s1, join, 0));
  sum2<<<blocks, threads, 0, s1>>>(dout, dx, dy, n);
  CHECK(cudaMemcpyAsync(hout, dout, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CHECK(cudaLaunchHostFunc(s1, countRun, nullptr));
  cudaGraph_t g2;
  CHECK(cudaStreamEndCapture(s1, &g2));
  cudaGraphExecUpdateResultInfo info;
  CHECK(cudaGraphExecUpdate(exec, g2, &info));
  for (int i = 0; i < n; ++i)
    hin[i] = i;
  CHECK(cudaGraphLaunch(exec, s1));
  CHECK(cudaStreamSynchronize(s1));
  if (!expect("updated pipeline", hout, [](int i) { return 4 * i + i + 7; }))
    return 1;

  // 3. A graph built node by node: memset, kernel; the kernel's arguments changed in the
  // executable graph only.
  cudaGraph_t built;
  CHECK(cudaGraphCreate(&built, 0));
  cudaMemsetParams ms{};
  ms.dst = dx;
  ms.value = 3;
  ms.elementSize = 4;
  ms.width = n;
  ms.height = 1;
  cudaGraphNode_t setNode, kernelNode;
  CHECK(cudaGraphAddMemsetNode(&setNode, built, nullptr, 0, &ms));
  int a = 10, b = 1, count = n;
  void *args[] = {&dx, &a, &b, &count};
  cudaKernelNodeParams kp{};
  kp.func = reinterpret_cast<void *>(axpb);
  kp.gridDim = dim3(blocks);
  kp.blockDim = dim3(threads);
  kp.kernelParams = args;
  CHECK(cudaGraphAddKernelNode(&kernelNode, built, &setNode, 1, &kp));
  cudaGraphExec_t builtExec;
  CHECK(cudaGraphInstantiate(&builtExec, built, 0));
  CHECK(cudaGraphLaunch(builtExec, s1));
  CHECK(cudaMemcpyAsync(hout, dx, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CHECK(cudaStreamSynchronize(s1));
  if (!expect("built graph", hout, [](int) { return 31; }))
    return 1;
  a = 100;
  CHECK(cudaGraphExecKernelNodeSetParams(builtExec, kernelNode, &kp));
  CHECK(cudaGraphLaunch(builtExec, s1));
  CHECK(cudaMemcpyAsync(hout, dx, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CHECK(cudaStreamSynchronize(s1));
  if (!expect("kernel node changed", hout, [](int) { return 301; }))
    return 1;

  // 4. Stream-ordered allocation inside a capture: the graph allocates and frees.
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  int *scratch = nullptr;
  CHECK(cudaMallocAsync(&scratch, n * sizeof(int), s1));
  CHECK(cudaMemcpyAsync(scratch, hin, n * sizeof(int), cudaMemcpyHostToDevice, s1));
  axpb<<<blocks, threads, 0, s1>>>(scratch, -1, 5, n);
  CHECK(cudaMemcpyAsync(hout, scratch, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CHECK(cudaFreeAsync(scratch, s1));
  cudaGraph_t g3;
  CHECK(cudaStreamEndCapture(s1, &g3));
  cudaGraphExec_t exec3;
  CHECK(cudaGraphInstantiate(&exec3, g3, 0));
  for (int k = 0; k < 3; ++k)
    CHECK(cudaGraphLaunch(exec3, s1));
  CHECK(cudaStreamSynchronize(s1));
  if (!expect("graph allocation", hout, [](int i) { return 5 - i; }))
    return 1;

  // 5. A conditional while loop whose body, captured into the node's graph, ends it from device
  // code.
  cudaGraph_t cg;
  CHECK(cudaGraphCreate(&cg, 0));
  cudaGraphConditionalHandle loop;
  CHECK(cudaGraphConditionalHandleCreate(&loop, cg, 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams cp{};
  cp.type = cudaGraphNodeTypeConditional;
  cp.conditional.handle = loop;
  cp.conditional.type = cudaGraphCondTypeWhile;
  cp.conditional.size = 1;
  cudaGraphNode_t whileNode;
  CHECK(cudaGraphAddNode(&whileNode, cg, nullptr, nullptr, 0, &cp));
  cudaGraph_t body = cp.conditional.phGraph_out[0];
  CHECK(cudaStreamBeginCaptureToGraph(s1, body, nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
  countDown<<<1, 1, 0, s1>>>(dx, dx + 1, loop);
  CHECK(cudaStreamEndCapture(s1, &body));
  cudaGraphExec_t loopExec;
  CHECK(cudaGraphInstantiate(&loopExec, cg, 0));
  const int start[2] = {6, 0};
  CHECK(cudaMemcpy(dx, start, sizeof start, cudaMemcpyHostToDevice));
  CHECK(cudaGraphLaunch(loopExec, s1));
  int after[2];
  CHECK(cudaMemcpyAsync(after, dx, sizeof after, cudaMemcpyDeviceToHost, s1));
  CHECK(cudaStreamSynchronize(s1));
  if (after[0] != 0 || after[1] != 6) {
    std::printf("FAIL while loop: counter %d after %d iterations\n", after[0], after[1]);
    return 1;
  }
  CHECK(cudaGraphExecDestroy(loopExec));
  CHECK(cudaGraphDestroy(cg));

  // 6. An unsafe call during a global capture: refused, and the capture is invalidated.
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  void *p = nullptr;
  cudaError_t e1 = cudaMalloc(&p, 64);
  cudaGraph_t none = nullptr;
  cudaError_t e2 = cudaStreamEndCapture(s1, &none);
  if (e1 != cudaErrorStreamCaptureUnsupported || e2 != cudaErrorStreamCaptureInvalidated || none) {
    std::printf("FAIL unsafe call during capture: %s, %s\n", cudaGetErrorName(e1),
                cudaGetErrorName(e2));
    return 1;
  }
  (void)cudaGetLastError();

  CHECK(cudaGraphExecDestroy(exec3));
  CHECK(cudaGraphExecDestroy(builtExec));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(g3));
  CHECK(cudaGraphDestroy(built));
  CHECK(cudaGraphDestroy(g2));
  CHECK(cudaGraphDestroy(g));
  std::printf("PASS graphs\n");
  return 0;
}
