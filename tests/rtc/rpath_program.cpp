// A program linked against the toolkit's NVRTC with an RPATH naming the toolkit (as CMake's
// build trees are): under cucpu-run it still compiles through cucpu's front end, whose sm_80
// output runs on the CPU. Prints PASS.
#include <cuda.h>
#include <nvrtc.h>

#include <cstdio>
#include <string>

int main() {
  const char *src =
      R"(extern "C" __global__ void square(int *a) { a[threadIdx.x] *= a[threadIdx.x]; })";
  nvrtcProgram prog;
  const char *opts[] = {"-arch=sm_80"};
  size_t n = 0;
  if (nvrtcCreateProgram(&prog, src, "square.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS ||
      nvrtcCompileProgram(prog, 1, opts) != NVRTC_SUCCESS || nvrtcGetCUBINSize(prog, &n))
    return std::puts("FAIL: nvrtc"), 1;
  std::string cubin(n, '\0');
  nvrtcGetCUBIN(prog, cubin.data());
  nvrtcDestroyProgram(&prog);
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction f;
  CUdeviceptr d;
  int host[32];
  for (int i = 0; i < 32; ++i)
    host[i] = i - 7;
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
      cuCtxSetCurrent(ctx))
    return std::puts("FAIL: context"), 1;
  if (CUresult r = cuModuleLoadData(&mod, cubin.data()))
    return std::printf("FAIL: cuModuleLoadData %d\n", r), 1;
  void *args[] = {&d};
  if (cuModuleGetFunction(&f, mod, "square") || cuMemAlloc(&d, sizeof host) ||
      cuMemcpyHtoD(d, host, sizeof host) ||
      cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr) ||
      cuMemcpyDtoH(host, d, sizeof host))
    return std::puts("FAIL: launch"), 1;
  for (int i = 0; i < 32; ++i)
    if (host[i] != (i - 7) * (i - 7))
      return std::printf("FAIL: element %d is %d\n", i, host[i]), 1;
  std::puts("PASS");
  return 0;
}
