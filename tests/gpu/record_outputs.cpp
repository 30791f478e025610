// Runs test kernels on a real GPU (through NVIDIA's driver) and writes each kernel's output as
// raw bytes: the expected values of the JIT tests that compare with a GPU (warp_test.cpp,
// lockstep_test.cpp). Every kernel takes (const int *in, T *out) or (T *out) and runs as 2 blocks
// of 128 threads over in[t] = (t * 37 + 11) % 101.
// Usage: record_outputs <kernels.ptx> <output dir> <kernel>:<output bytes>[:noinput] ...
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    CUresult r_ = (x);                                                                             \
    if (r_ != CUDA_SUCCESS) {                                                                      \
      std::fprintf(stderr, "%s failed: %d\n", #x, r_);                                             \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

static CUmodule mod;

static void run(const std::string &dir, const std::string &name, const std::vector<int> &in,
                size_t outBytes, bool hasInput, unsigned blocks, unsigned threads) {
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, mod, name.c_str()));
  CUdeviceptr din = 0, dout;
  CHECK(cuMemAlloc(&din, in.size() * 4));
  CHECK(cuMemcpyHtoD(din, in.data(), in.size() * 4));
  CHECK(cuMemAlloc(&dout, outBytes));
  CHECK(cuMemsetD8(dout, 0, outBytes));
  void *withIn[] = {&din, &dout};
  void *outOnly[] = {&dout};
  CHECK(cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, nullptr, hasInput ? withIn : outOnly,
                       nullptr));
  CHECK(cuCtxSynchronize());
  std::vector<char> h(outBytes);
  CHECK(cuMemcpyDtoH(h.data(), dout, outBytes));
  std::ofstream(dir + "/" + name + ".bin", std::ios::binary).write(h.data(), h.size());
  cuMemFree(din);
  cuMemFree(dout);
}

int main(int argc, char **argv) {
  if (argc < 4)
    return 2;
  std::ifstream f(argv[1]);
  std::stringstream ss;
  ss << f.rdbuf();
  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuCtxCreate(&ctx, nullptr, 0, dev));
  CHECK(cuModuleLoadData(&mod, ss.str().c_str()));
  const int kThreads = 128, kBlocks = 2, kN = kThreads * kBlocks;
  std::vector<int> in(kN);
  for (int t = 0; t < kN; ++t)
    in[t] = (t * 37 + 11) % 101;
  for (int i = 3; i < argc; ++i) {
    std::string spec = argv[i];
    size_t colon = spec.find(':');
    if (colon == std::string::npos)
      return 2;
    size_t bytes = std::stoul(spec.substr(colon + 1));
    bool noInput = spec.find(":noinput") != std::string::npos;
    run(argv[2], spec.substr(0, colon), in, bytes, !noInput, kBlocks, kThreads);
  }
  std::printf("recorded\n");
  return 0;
}
