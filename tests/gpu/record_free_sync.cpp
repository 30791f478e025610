// Records whether NVIDIA's freeing calls wait for a kernel still running on another stream that
// uses the memory: cuMemFree, cuMemFreeHost, cuMemFreeAsync (stream-ordered), cuArrayDestroy,
// cuModuleUnload and cuLibraryUnload.
// Usage: record_free_sync tests/api/free/spin.ptx. Checked by tests/api/free_sync_test.cpp.
#include "record.h"

#include <chrono>
#include <cuda.h>

namespace {
CUfunction spin;
CUstream stream;

// Starts a 300 ms kernel on `stream` that then writes *flag.
void start(CUdeviceptr flag) {
  unsigned long long ns = 300000000ull;
  void *args[] = {&ns, &flag};
  cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, stream, args, nullptr);
}

template <class F> void timed(const char *what, F f) {
  auto t0 = std::chrono::steady_clock::now();
  CUresult r = f();
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  CUresult q = cuStreamQuery(stream);
  std::printf("%-40s -> %d, %s (stream %s)\n", what, int(r),
              ms > 150 ? "waited" : "returned at once", q == CUDA_SUCCESS ? "idle" : "busy");
  std::fflush(stdout);
  cuStreamSynchronize(stream);
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  std::string ptx = readFile(argv[1]);
  CUcontext ctx;
  CUmodule mod;
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&ctx, nullptr, 0, 0));
  SHOW(cuModuleLoadData(&mod, ptx.c_str()));
  SHOW(cuModuleGetFunction(&spin, mod, "spin"));
  SHOW(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUdeviceptr d;
  cuMemAlloc(&d, 64);
  start(d);
  timed("cuMemFree(used by a running kernel)", [&] { return cuMemFree(d); });
  CUdeviceptr other;
  cuMemAlloc(&d, 64);
  cuMemAlloc(&other, 64);
  start(d);
  timed("cuMemFree(unrelated memory)", [&] { return cuMemFree(other); });
  cuMemFree(d);
  void *host;
  cuMemAllocHost(&host, 64);
  start(reinterpret_cast<CUdeviceptr>(host));
  timed("cuMemFreeHost(used by a running kernel)", [&] { return cuMemFreeHost(host); });
  cuMemAlloc(&d, 64);
  start(d);
  timed("cuMemFreeAsync(same stream)", [&] { return cuMemFreeAsync(d, stream); });
  CUDA_ARRAY_DESCRIPTOR desc{};
  desc.Width = 64;
  desc.Height = 64;
  desc.Format = CU_AD_FORMAT_FLOAT;
  desc.NumChannels = 1;
  CUarray array;
  cuArrayCreate(&array, &desc);
  cuMemAlloc(&d, 64);
  start(d);
  timed("cuArrayDestroy(kernel running)", [&] { return cuArrayDestroy(array); });
  start(d);
  timed("cuModuleUnload(kernel running)", [&] { return cuModuleUnload(mod); });
  CUlibrary lib;
  CUkernel kernel;
  SHOW(cuLibraryLoadData(&lib, ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  SHOW(cuLibraryGetKernel(&kernel, lib, "spin"));
  SHOW(cuKernelGetFunction(&spin, kernel));
  start(d);
  timed("cuLibraryUnload(kernel running)", [&] { return cuLibraryUnload(lib); });
  return 0;
}
