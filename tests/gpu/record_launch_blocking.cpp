// Records what a launch does under CUDA_LAUNCH_BLOCKING=1 (run with it set, and without for the
// contrast): whether cuLaunchKernel returns only once the kernel has run (a 300 ms spinning kernel
// on the legacy stream and on a non-blocking stream), and what a launch whose kernel faults
// returns. Usage: record_launch_blocking tests/api/free/spin.ptx tests/e2e/faults_kernels.ptx.
// Checked by the api_launch_blocking_answers tests (tests/gpu/answers/launch_blocking*.txt).
#include "record.h"

#include <chrono>
#include <cstdlib>
#include <cuda.h>

namespace {

void timedLaunch(const char *what, CUfunction spin, CUstream s) {
  unsigned long long ns = 300000000ull;
  CUdeviceptr flag = 0;
  cuMemAlloc(&flag, 8);
  void *args[] = {&ns, &flag};
  auto t0 = std::chrono::steady_clock::now();
  CUresult r = cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, args, nullptr);
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-44s -> %d, %s (stream %s)\n", what, int(r),
              ms > 150 ? "returned after the kernel" : "returned at once",
              cuStreamQuery(s) == CUDA_SUCCESS ? "idle" : "busy");
  std::fflush(stdout);
  cuStreamSynchronize(s);
  cuMemFree(flag);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  const char *blocking = std::getenv("CUDA_LAUNCH_BLOCKING");
  std::printf("CUDA_LAUNCH_BLOCKING=%s\n", blocking ? blocking : "(unset)");
  std::string spinPtx = readFile(argv[1]), faultPtx = readFile(argv[2]);
  CUcontext ctx;
  CUmodule spinMod, faultMod;
  CUfunction spin, wild;
  CUstream s;
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&ctx, nullptr, 0, 0));
  SHOW(cuModuleLoadData(&spinMod, spinPtx.c_str()));
  SHOW(cuModuleLoadData(&faultMod, faultPtx.c_str()));
  SHOW(cuModuleGetFunction(&spin, spinMod, "spin"));
  SHOW(cuModuleGetFunction(&wild, faultMod, "wildWrite"));
  SHOW(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  timedLaunch("spin on the legacy stream", spin, nullptr);
  timedLaunch("spin on a non-blocking stream", spin, s);
  // A write through a wild pointer: what the launch itself answers, then the synchronisation.
  CUdeviceptr bad = 0x10;
  unsigned long long index = 0;
  void *args[] = {&bad, &index};
  SHOW(cuLaunchKernel(wild, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr));
  SHOW(cuCtxSynchronize());
  return 0;
}
