// reductionDrv: sums 1<<20 floats with a shared-memory tree reduction at several block sizes.
#include "drv_sample.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

namespace {

// Each launch writes one partial sum per block; the host adds the partials in double precision.
// The inputs are multiples of 1/16 in [-15/16, 15/16], so every partial sum of up to 2^20 of them
// is exactly representable in float: the result must match the host's sum whatever the order of
// additions, and the tolerance (a quarter of the smallest magnitude) catches any element that is
// dropped or added twice.
const double kTolerance = 1.0 / 64.0;
const unsigned int kCappedGrid = 40; // fewer blocks than needed: exercises the grid-stride loop

struct Config {
  unsigned int n;
  unsigned int blockSize;
  unsigned int gridSize;
};

} // namespace

int main() {
  std::printf("reductionDrv: shared-memory tree reduction through the CUDA driver API\n");

  const unsigned int maxN = 1u << 20;
  const unsigned int sizes[] = {maxN, maxN - 37}; // a ragged tail tests the bounds checks
  const unsigned int blockSizes[] = {64, 128, 256, 512};

  CUdevice device = 0;
  CUcontext context = sample::initDevice(&device);
  bool ok = sample::checkDriverLibrary();

  CUmodule module = sample::loadModuleNextToExe("reduction_kernel.ptx");
  CUfunction reduceSum = nullptr;
  CHECK_CU(cuModuleGetFunction(&reduceSum, module, "reduceSum"));

  std::vector<float> input(maxN);
  sample::Lcg rng(12345);
  for (float &x : input) {
    x = (static_cast<float>(rng.next() & 15u) - 7.5f) / 8.0f;
  }

  std::vector<Config> configs;
  unsigned int maxGrid = 0;
  for (unsigned int n : sizes) {
    for (unsigned int bs : blockSizes) {
      unsigned int fullGrid = (n + 2 * bs - 1) / (2 * bs);
      configs.push_back({n, bs, fullGrid});
      configs.push_back({n, bs, std::min(fullGrid, kCappedGrid)});
      maxGrid = std::max(maxGrid, fullGrid);
    }
  }

  CUdeviceptr dIn = 0;
  CUdeviceptr dOut = 0;
  CHECK_CU(cuMemAlloc(&dIn, maxN * sizeof(float)));
  CHECK_CU(cuMemAlloc(&dOut, maxGrid * sizeof(float)));
  CHECK_CU(cuMemcpyHtoD(dIn, input.data(), maxN * sizeof(float)));

  // Partials start as NaN before every launch, so a block that writes nothing poisons the sum.
  const std::vector<float> poison(maxGrid, std::numeric_limits<float>::quiet_NaN());
  std::vector<float> partials(maxGrid);

  for (const Config &c : configs) {
    double expected = 0.0;
    for (unsigned int i = 0; i < c.n; ++i) {
      expected += input[i];
    }

    CHECK_CU(cuMemcpyHtoD(dOut, poison.data(), maxGrid * sizeof(float)));
    unsigned int n = c.n;
    void *args[] = {&dIn, &dOut, &n};
    const unsigned int sharedBytes = c.blockSize * sizeof(float);
    CHECK_CU(cuLaunchKernel(reduceSum, c.gridSize, 1, 1, c.blockSize, 1, 1, sharedBytes, nullptr,
                            args, nullptr));
    CHECK_CU(cuCtxSynchronize());
    CHECK_CU(cuMemcpyDtoH(partials.data(), dOut, c.gridSize * sizeof(float)));

    double got = 0.0;
    for (unsigned int b = 0; b < c.gridSize; ++b) {
      got += partials[b];
    }
    double err = std::fabs(got - expected);
    bool pass = err <= kTolerance; // false for NaN
    std::printf("n = %7u, block = %3u, grid = %4u, shared = %4u B: sum = %.4f, expected %.4f %s\n",
                c.n, c.blockSize, c.gridSize, sharedBytes, got, expected, pass ? "ok" : "WRONG");
    ok = ok && pass;
  }

  CHECK_CU(cuMemFree(dIn));
  CHECK_CU(cuMemFree(dOut));
  CHECK_CU(cuModuleUnload(module));
  CHECK_CU(cuCtxDestroy(context));

  std::printf("Result = %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
