// Loads NVIDIA's libraries from a CUDA toolkit on cucpu and creates each one's handle (cuBLAS,
// cuBLASLt, cuFFT, cuSPARSE, cuSOLVER, cuRAND, NPP), compiles a kernel with NVRTC and links PTX
// with nvJitLink, printing the status each returns. Run with
// CUCPU_LOG=api=debug, cucpu's log lists every private export table each library asks for
// (cuGetExportTable: table {...} served / unknown): the test fails on an unknown one, so a new
// table is noticed the day a library asks for it. Usage: export_table_probe TOOLKIT_LIB_DIR.
// Exits 77 (skipped) when the folder holds none of the libraries.
#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <string>

namespace {

// One library and the call that makes it set itself up: a handle (or plan) creation taking a
// pointer to the handle, plus an optional integer argument list for cuFFT and cuRAND.
struct Probe {
  const char *library;
  const char *function;
  enum Kind { Handle, FftPlan, RandGenerator, NoArgs, NvrtcCompile, JitLink } kind;
};

constexpr Probe kProbes[] = {
    {"libcublas.so.13", "cublasCreate_v2", Probe::Handle},
    {"libcublasLt.so.13", "cublasLtCreate", Probe::Handle},
    {"libcufft.so.12", "cufftPlan1d", Probe::FftPlan},
    {"libcusparse.so.12", "cusparseCreate", Probe::Handle},
    {"libcusolver.so.12", "cusolverDnCreate", Probe::Handle},
    {"libcurand.so.10", "curandCreateGenerator", Probe::RandGenerator},
    {"libnppc.so.13", "nppGetGpuNumSMs", Probe::NoArgs},
    {"libnvrtc.so.13", "nvrtcCreateProgram", Probe::NvrtcCompile},
    {"libnvJitLink.so.13", "nvJitLinkCreate", Probe::JitLink},
};

constexpr const char *kKernel = "extern \"C\" __global__ void k(int *p) { *p = 1; }";
constexpr const char *kPtx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                             ".visible .entry k()\n{\n  ret;\n}\n";

// nvrtcCreateProgram and nvrtcCompileProgram of a small kernel, for the device's architecture.
int compile(void *lib, void *create) {
  using Create =
      int (*)(void **, const char *, const char *, int, const char *const *, const char *const *);
  using Compile = int (*)(void *, int, const char *const *);
  void *program = nullptr;
  if (int r = reinterpret_cast<Create>(create)(&program, kKernel, "k.cu", 0, nullptr, nullptr))
    return r;
  auto compileProgram = reinterpret_cast<Compile>(dlsym(lib, "nvrtcCompileProgram"));
  const char *options[] = {"-arch=sm_80"};
  return compileProgram ? compileProgram(program, 1, options) : -1;
}

// nvJitLinkCreate, nvJitLinkAddData of a PTX kernel and nvJitLinkComplete.
int link(void *lib, void *create) {
  using Create = int (*)(void **, unsigned, const char **);
  using AddData = int (*)(void *, int, const void *, size_t, const char *);
  using Complete = int (*)(void *);
  void *linker = nullptr;
  const char *options[] = {"-arch=sm_80"};
  if (int r = reinterpret_cast<Create>(create)(&linker, 1, options))
    return r;
  auto addData = reinterpret_cast<AddData>(dlsym(lib, "nvJitLinkAddData"));
  auto complete = reinterpret_cast<Complete>(dlsym(lib, "nvJitLinkComplete"));
  if (!addData || !complete)
    return -1;
  const int kInputPtx = 2; // NVJITLINK_INPUT_PTX
  if (int r = addData(linker, kInputPtx, kPtx, std::strlen(kPtx), "k.ptx"))
    return r;
  return complete(linker);
}

int call(void *lib, void *f, Probe::Kind kind) {
  void *handle = nullptr;
  int plan = 0;
  switch (kind) {
  case Probe::NvrtcCompile:
    return compile(lib, f);
  case Probe::JitLink:
    return link(lib, f);
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
    std::printf("%s: %s -> %d\n", p.library, p.function, call(lib, f, p.kind));
    std::fflush(stdout);
  }
  return found ? 0 : 77;
}
