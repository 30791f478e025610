// Runs the device-services test kernels on a real GPU and prints what the driver prints: device
// printf output (stdout) and the failed-assert message (stderr), plus the sticky error codes.
// Usage: record_services <faults_kernels.ptx>
#include <cuda.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  std::ifstream f(argv[1]);
  std::stringstream ss;
  ss << f.rdbuf();
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction printer, asserter;
  cuInit(0);
  cuDeviceGet(&dev, 0);
  cuCtxCreate(&ctx, nullptr, 0, dev);
  cuModuleLoadData(&mod, ss.str().c_str());
  cuModuleGetFunction(&printer, mod, "printer");
  cuModuleGetFunction(&asserter, mod, "asserter");
  int base = 40;
  void *pargs[] = {&base};
  cuLaunchKernel(printer, 1, 1, 1, 32, 1, 1, 0, nullptr, pargs, nullptr);
  std::printf("sync after printf: %d\n", cuCtxSynchronize());
  std::vector<int> h(64, 1);
  h[37] = -5;
  CUdeviceptr d;
  cuMemAlloc(&d, h.size() * 4);
  cuMemcpyHtoD(d, h.data(), h.size() * 4);
  void *aargs[] = {&d};
  std::printf("launch assert: %d\n", cuLaunchKernel(asserter, 2, 1, 1, 32, 1, 1, 0, nullptr,
                                                     aargs, nullptr));
  std::fflush(stdout);
  std::printf("sync after assert: %d\n", cuCtxSynchronize());
  std::printf("sync again: %d\n", cuCtxSynchronize());
  CUdeviceptr d2;
  std::printf("alloc after assert: %d\n", cuMemAlloc(&d2, 16));
  return 0;
}
