// Records warp-level matrix products (mma.sync and wmma) of tests/gpu/mma/mma_kernels.ptx: for
// each configuration of mma/mma_configs.h, D of `ntests` tests (inputs from mma/mma_inputs.h)
// as raw little-endian elements, row-major, test after test, in <out>/<name>.bin. The same
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

bool record(CUmodule mod, const MmaConfig &cfg, int ntests, const std::string &out) {
  CUfunction f;
  const std::string kernel = std::string("mma_") + cfg.name;
  if (!check(cuModuleGetFunction(&f, mod, kernel.c_str()), "cuModuleGetFunction", cfg.name))
    return false;
  const size_t bytes = size_t(ntests) * cfg.m * cfg.n * mmaElementBits(cfg.c) / 8;
  const int warpsPerBlock = 4;
  const int blocks = (ntests + warpsPerBlock - 1) / warpsPerBlock;
  CUdeviceptr d = 0, scratch = 0;
  bool ok = check(cuMemAlloc(&d, bytes), "cuMemAlloc", cfg.name) &&
            check(cuMemAlloc(&scratch, size_t(blocks) * warpsPerBlock * 4096), "cuMemAlloc",
                  cfg.name);
  int n = ntests;
  void *args[] = {&d, &n, &scratch};
  std::vector<unsigned char> host(bytes);
  ok = ok &&
       check(cuLaunchKernel(f, unsigned(blocks), 1, 1, 32 * warpsPerBlock, 1, 1, 0, nullptr, args,
                            nullptr),
             "cuLaunchKernel", cfg.name) &&
       check(cuMemcpyDtoH(host.data(), d, bytes), "cuMemcpyDtoH", cfg.name);
  cuMemFree(d);
  cuMemFree(scratch);
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
    if (wanted && !record(mod, kMmaConfigs[i], ntests, argv[2]))
      ++failed;
  }
  return failed == 0 ? 0 : 1;
}
