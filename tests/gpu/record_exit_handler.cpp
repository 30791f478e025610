// Records what the driver answers from an exit handler, which runs after the main thread's
// thread-local destructors (NVIDIA's libraries free device memory there, e.g. cuFFT): is the
// context still current, and does a free succeed? cucpu's answer is checked by
// ContextAtExit.ExitHandlersStillHaveTheMainThreadsContext (tests/api/context_test.cpp).
#include <cuda.h>

#include <cstdio>
#include <cstdlib>

namespace {

CUdeviceptr buffer;

void freeAtExit() {
  CUcontext cur = nullptr;
  const CUresult current = cuCtxGetCurrent(&cur);
  const CUresult freed = cuMemFree(buffer);
  std::printf("at exit: current %d %s, free %d\n", int(current), cur ? "set" : "null", int(freed));
  std::fflush(stdout);
}

} // namespace

int main() {
  CUdevice d;
  CUcontext c;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&d, 0) != CUDA_SUCCESS ||
      cuCtxCreate(&c, nullptr, 0, d) != CUDA_SUCCESS || cuMemAlloc(&buffer, 64) != CUDA_SUCCESS)
    return 1;
  std::atexit(freeAtExit);
  return 0;
}
