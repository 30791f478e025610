// Bench: loading a 1 MiB PTX module (copies of the SGEMM, reduction and stencil kernels under new
// names) and compiling its first kernel at first launch, with an empty code cache (the first
// launch compiles). Prints the times; never a test.
#include <cuda.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The kernel definitions of a bench .ptx (everything after its .address_size line).
std::string body(const std::string &ptx) {
  size_t at = ptx.find(".address_size");
  return ptx.substr(ptx.find('\n', at) + 1);
}

std::string renamed(std::string text, const std::string &from, const std::string &to) {
  for (size_t p = text.find(from); p != std::string::npos; p = text.find(from, p + to.size()))
    text.replace(p, from.size(), to);
  return text;
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    if (CUresult r_ = (x); r_ != CUDA_SUCCESS) {                                                   \
      std::fprintf(stderr, "%s failed: %d\n", #x, r_);                                             \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

} // namespace

int main(int argc, char **argv) {
  std::string dir = argc > 1 ? argv[1] : "bench/cuda";
  const char *kernels[] = {"sgemm", "reduceBlocks", "stencil5"};
  const char *files[] = {"sgemm.ptx", "reduce.ptx", "stencil.ptx"};
  std::string module = ".version 9.0\n.target sm_75\n.address_size 64\n";
  std::vector<std::string> names;
  for (int copy = 0; module.size() < (1u << 20); ++copy)
    for (int k = 0; k < 3; ++k) {
      std::string name = std::string(kernels[k]) + "_" + std::to_string(copy);
      module += renamed(body(read(dir + "/" + files[k])), kernels[k], name);
      names.push_back(name);
    }
  // A code cache of its own, empty: a warm cache would turn the compile into a lookup.
  char cache[] = "/tmp/cucpu-load-bench-XXXXXX";
  if (mkdtemp(cache) == nullptr)
    return 1;
  setenv("CUDA_CACHE_PATH", cache, 1);
  CHECK(cuInit(0));
  CUdevice dev;
  CUcontext ctx;
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuCtxCreate(&ctx, nullptr, 0, dev));
  auto t0 = std::chrono::steady_clock::now();
  CUmodule mod;
  CHECK(cuModuleLoadData(&mod, module.c_str()));
  double loadMs = msSince(t0);
  // First launch of the first SGEMM copy: compiles that kernel only.
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, mod, names[0].c_str()));
  const int n = 16;
  CUdeviceptr a, b, c;
  CHECK(cuMemAlloc(&a, n * n * 4));
  CHECK(cuMemAlloc(&b, n * n * 4));
  CHECK(cuMemAlloc(&c, n * n * 4));
  int nn = n;
  void *args[] = {&a, &b, &c, &nn};
  t0 = std::chrono::steady_clock::now();
  CHECK(cuLaunchKernel(f, 1, 1, 1, 16, 16, 1, 0, nullptr, args, nullptr));
  CHECK(cuCtxSynchronize());
  double firstMs = msSince(t0);
  t0 = std::chrono::steady_clock::now();
  CHECK(cuLaunchKernel(f, 1, 1, 1, 16, 16, 1, 0, nullptr, args, nullptr));
  CHECK(cuCtxSynchronize());
  double againMs = msSince(t0);
  std::printf("| PTX module | kernels | load (parse + lower all) | first kernel's first launch "
              "(compile + run) | its second launch |\n|---|---|---|---|---|\n");
  std::printf("| %.2f MiB | %zu | %.1f ms | %.1f ms | %.3f ms |\n", module.size() / 1048576.0,
              names.size(), loadMs, firstMs, againMs);
  std::filesystem::remove_all(cache);
  return cuCtxDestroy(ctx) == CUDA_SUCCESS ? 0 : 1;
}
