// Records warp-level matrix products (mma.sync and wmma) of tests/gpu/mma/mma_kernels.ptx: for
// each configuration of mma/mma_configs.h, D of `ntests` tests (inputs from mma/mma_inputs.h,
// laid out as the kernels read them) as raw little-endian elements, row-major, test after test,
// in <out>/<name>.bin. The same
// program run on cucpu writes what cucpu computes; tests/gpu/answers/mma/ holds the H200's
// first tests of each configuration. Usage: record_mma <ptx> <out dir> <ntests> [name...]
#include "mma/mma_configs.h"
#include "record.h"

#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

bool check(CUresult r, const char *what, const char *name) {
  if (r == CUDA_SUCCESS)
    return true;
  std::fprintf(stderr, "%s: %s failed with %d\n", name, what, int(r));
  return false;
}

int storageBytes(MmaFmt f) { return mmaElementBits(f) < 8 ? 1 : mmaElementBits(f) / 8; }

// Every test's elements of matrix `mat` (rows x cols), row-major or column-major.
std::vector<unsigned char> inputs(const MmaConfig &cfg, int ci, int ntests, int mat, int rows,
                                  int cols, bool colMajor) {
  const MmaFmt f = mat == 0 ? cfg.a : mat == 1 ? cfg.b : cfg.c;
  const int bytes = storageBytes(f);
  std::vector<unsigned char> v(size_t(ntests) * rows * cols * bytes);
  for (int t = 0; t < ntests; ++t)
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        const uint64_t x = mmaInput(cfg, ci, t, mat, r, c);
        const size_t at = size_t(t) * rows * cols + (colMajor ? c * rows + r : r * cols + c);
        for (int byte = 0; byte < bytes; ++byte)
          v[at * bytes + byte] = (unsigned char)(x >> (8 * byte));
      }
  return v;
}

bool upload(CUdeviceptr &d, const std::vector<unsigned char> &v, const char *name) {
  return check(cuMemAlloc(&d, v.size()), "cuMemAlloc", name) &&
         check(cuMemcpyHtoD(d, v.data(), v.size()), "cuMemcpyHtoD", name);
}

bool record(CUmodule mod, int ci, int ntests, const std::string &out) {
  const MmaConfig &cfg = kMmaConfigs[ci];
  CUfunction f;
  const std::string kernel = std::string("mma_") + cfg.name;
  if (!check(cuModuleGetFunction(&f, mod, kernel.c_str()), "cuModuleGetFunction", cfg.name))
    return false;
  const bool wmma = std::strncmp(cfg.name, "wmma_", 5) == 0;
  const size_t bytes = size_t(ntests) * cfg.m * cfg.n * storageBytes(cfg.c);
  const int warpsPerBlock = 4;
  const int blocks = (ntests + warpsPerBlock - 1) / warpsPerBlock;
  CUdeviceptr a = 0, b = 0, c = 0, d = 0;
  bool ok = upload(a, inputs(cfg, ci, ntests, 0, cfg.m, cfg.k, false), cfg.name) &&
            upload(b, inputs(cfg, ci, ntests, 1, cfg.k, cfg.n, wmma), cfg.name) &&
            upload(c, inputs(cfg, ci, ntests, 2, cfg.m, cfg.n, false), cfg.name) &&
            check(cuMemAlloc(&d, bytes), "cuMemAlloc", cfg.name);
  int n = ntests;
  void *args[] = {&a, &b, &c, &d, &n};
  std::vector<unsigned char> host(bytes);
  ok = ok &&
       check(cuLaunchKernel(f, unsigned(blocks), 1, 1, 32 * warpsPerBlock, 1, 1, 0, nullptr, args,
                            nullptr),
             "cuLaunchKernel", cfg.name) &&
       check(cuMemcpyDtoH(host.data(), d, bytes), "cuMemcpyDtoH", cfg.name);
  for (CUdeviceptr p : {a, b, c, d})
    if (p)
      cuMemFree(p);
  if (!ok)
    return false;
  const std::string path = out + "/" + cfg.name + ".bin";
  FILE *fp = std::fopen(path.c_str(), "wb");
  if (!fp || std::fwrite(host.data(), 1, bytes, fp) != bytes) {
    std::fprintf(stderr, "%s: cannot write %s\n", cfg.name, path.c_str());
    if (fp)
      std::fclose(fp);
    return false;
  }
  std::fclose(fp);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: record_mma <ptx> <out dir> <ntests> [name...]\n");
    return 2;
  }
  const std::string ptx = readFile(argv[1]);
  const int ntests = std::atoi(argv[3]);
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  if (!check(cuInit(0), "cuInit", "-") || !check(cuDeviceGet(&dev, 0), "cuDeviceGet", "-") ||
      !check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain", "-") ||
      !check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent", "-") ||
      !check(cuModuleLoadData(&mod, ptx.c_str()), "cuModuleLoadData", "-"))
    return 1;
  int failed = 0;
  for (int i = 0; i < kMmaConfigCount; ++i) {
    bool wanted = argc == 4;
    for (int a = 4; a < argc; ++a)
      wanted = wanted || std::strcmp(argv[a], kMmaConfigs[i].name) == 0;
    if (wanted && !record(mod, i, ntests, argv[2]))
      ++failed;
  }
  return failed == 0 ? 0 : 1;
}
