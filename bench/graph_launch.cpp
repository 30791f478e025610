// cucpu-graph-launch-bench: a chain of small kernels launched call by call against the same chain
// captured once into a graph and launched as one, in one run (median of 7 runs, us per chain).
// Builds against NVIDIA's driver too, for the GPU's figures: g++ ... -lcuda.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// bump(p): p[tid] += 1, one block of 32 threads: launch overhead is all there is to measure.
constexpr const char *kPtx = R"(.version 7.0
.target sm_50
.address_size 64
.visible .entry bump(.param .u64 p)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  add.s32 %r2, %r2, 1;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";

void check(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "%s failed: %d\n", what, int(r));
    std::exit(1);
  }
}

template <class F> double usPerRun(int rounds, F op) {
  std::vector<double> runs;
  for (int r = 0; r < 7; ++r) {
    auto t0 = Clock::now();
    for (int i = 0; i < rounds; ++i)
      op();
    runs.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / rounds);
  }
  std::sort(runs.begin(), runs.end());
  return runs[3];
}

} // namespace

int main() {
  check(cuInit(0), "cuInit");
  CUcontext ctx;
  check(cuCtxCreate(&ctx, nullptr, 0, 0), "cuCtxCreate");
  CUmodule mod;
  check(cuModuleLoadData(&mod, kPtx), "cuModuleLoadData");
  CUfunction bump;
  check(cuModuleGetFunction(&bump, mod, "bump"), "cuModuleGetFunction");
  CUdeviceptr d;
  check(cuMemAlloc(&d, 128), "cuMemAlloc");
  check(cuMemsetD32(d, 0, 32), "cuMemsetD32");
  CUstream s;
  check(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  void *args[] = {&d};
  unsigned long long launched = 0;
  std::printf("%-8s %14s %14s %8s\n", "kernels", "stream us", "graph us", "ratio");
  for (int chain : {1, 10, 100, 1000}) {
    auto enqueue = [&] {
      for (int k = 0; k < chain; ++k)
        check(cuLaunchKernel(bump, 1, 1, 1, 32, 1, 1, 0, s, args, nullptr), "cuLaunchKernel");
    };
    check(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), "cuStreamBeginCapture");
    enqueue();
    CUgraph g;
    check(cuStreamEndCapture(s, &g), "cuStreamEndCapture");
    CUgraphExec exec;
    check(cuGraphInstantiate(&exec, g, 0), "cuGraphInstantiate");
    const int rounds = std::max(10, 2000 / chain);
    const double stream = usPerRun(rounds, [&] {
      enqueue();
      check(cuStreamSynchronize(s), "cuStreamSynchronize");
    });
    const double graph = usPerRun(rounds, [&] {
      check(cuGraphLaunch(exec, s), "cuGraphLaunch");
      check(cuStreamSynchronize(s), "cuStreamSynchronize");
    });
    launched += 2ull * 7 * rounds * chain;
    std::printf("%-8d %14.1f %14.1f %8.2f\n", chain, stream, graph, graph / stream);
    check(cuGraphExecDestroy(exec), "cuGraphExecDestroy");
    check(cuGraphDestroy(g), "cuGraphDestroy");
  }
  unsigned got = 0;
  check(cuMemcpyDtoH(&got, d, 4), "cuMemcpyDtoH");
  if (got != unsigned(launched)) {
    std::fprintf(stderr, "wrong count: %u, expected %u\n", got, unsigned(launched));
    return 1;
  }
  return 0;
}
