// Loads NVIDIA's libraries from a CUDA toolkit on cucpu and creates each one's handle (cuBLAS,
// cuBLASLt, cuFFT, cuSPARSE, cuSOLVER, cuRAND, NPP), printing the status each returns. Run with
// CUCPU_LOG=api=debug, cucpu's log lists every private export table each library asks for
// (cuGetExportTable: table {...} served / unknown): the test fails on an unknown one, so a new
// table is noticed the day a library asks for it. Usage: export_table_probe TOOLKIT_LIB_DIR.
// Exits 77 (skipped) when the folder holds none of the libraries.
#include <cuda.h>

#include <cstdio>
#include <dlfcn.h>
#include <string>

namespace {

// One library and the call that makes it set itself up: a handle (or plan) creation taking a
// pointer to the handle, plus an optional integer argument list for cuFFT and cuRAND.
struct Probe {
  const char *library;
  const char *function;
  enum Kind { Handle, FftPlan, RandGenerator, NoArgs } kind;
};

constexpr Probe kProbes[] = {
    {"libcublas.so.13", "cublasCreate_v2", Probe::Handle},
    {"libcublasLt.so.13", "cublasLtCreate", Probe::Handle},
    {"libcufft.so.12", "cufftPlan1d", Probe::FftPlan},
    {"libcusparse.so.12", "cusparseCreate", Probe::Handle},
    {"libcusolver.so.12", "cusolverDnCreate", Probe::Handle},
    {"libcurand.so.10", "curandCreateGenerator", Probe::RandGenerator},
    {"libnppc.so.13", "nppGetGpuNumSMs", Probe::NoArgs},
};

int call(void *f, Probe::Kind kind) {
  void *handle = nullptr;
  int plan = 0;
  switch (kind) {
  case Probe::Handle:
    return reinterpret_cast<int (*)(void **)>(f)(&handle);
  case Probe::FftPlan: // a 256-point complex-to-complex plan (CUFFT_C2C = 0x29), one batch
    return reinterpret_cast<int (*)(int *, int, int, int)>(f)(&plan, 256, 0x29, 1);
  case Probe::RandGenerator: // CURAND_RNG_PSEUDO_DEFAULT: a device generator
    return reinterpret_cast<int (*)(void **, int)>(f)(&handle, 100);
  case Probe::NoArgs:
    return reinterpret_cast<int (*)()>(f)();
  }
  return -1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TOOLKIT_LIB_DIR\n", argv[0]);
    return 2;
  }
  if (cuInit(0) != CUDA_SUCCESS)
    return 1;
  CUdevice dev;
  CUcontext ctx;
  if (cuDeviceGet(&dev, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS ||
      cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
    return 1;
  int found = 0;
  for (const Probe &p : kProbes) {
    std::string path = std::string(argv[1]) + "/" + p.library;
    void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      std::printf("%s: not in the toolkit\n", p.library);
      continue;
    }
    ++found;
    void *f = dlsym(lib, p.function);
    if (!f) {
      std::printf("%s: no %s\n", p.library, p.function);
      return 1;
    }
    std::fflush(stdout);
    std::fprintf(stderr, "probe: %s %s\n", p.library, p.function);
    std::printf("%s: %s -> %d\n", p.library, p.function, call(f, p.kind));
    std::fflush(stdout);
  }
  return found ? 0 : 77;
}
