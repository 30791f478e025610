// Runs the warp-level test kernels on a real GPU (through NVIDIA's driver) and writes each
// kernel's output as raw bytes, the expected values of tests/unit/jit/warp_test.cpp.
// Usage: record_warp <warp_kernels.ptx> <output dir>
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

static void run(const std::string &dir, const char *name, const std::vector<int> &in,
                size_t outBytes, bool hasInput, unsigned blocks, unsigned threads) {
  CUfunction f;
  CHECK(cuModuleGetFunction(&f, mod, name));
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
  if (argc != 3)
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
  std::string dir = argv[2];
  run(dir, "shflDownSum", in, kN / 32 * 4, true, kBlocks, kThreads);
  run(dir, "shflXorAll", in, kN * 4, true, kBlocks, kThreads);
  run(dir, "shflUpScan", in, kN * 4, true, kBlocks, kThreads);
  run(dir, "shflIdxWidth8", in, kN * 4, true, kBlocks, kThreads);
  run(dir, "votes", in, kN * 4, true, kBlocks, kThreads);
  run(dir, "matchAny", in, kN * 4, true, kBlocks, kThreads);
  run(dir, "reduxOps", in, 3 * kN * 4, true, kBlocks, kThreads);
  run(dir, "divergentActiveMask", in, kN * 4, false, kBlocks, kThreads);
  run(dir, "syncwarpExchange", in, kN * 4, true, kBlocks, kThreads);
  std::printf("recorded\n");
  return 0;
}
