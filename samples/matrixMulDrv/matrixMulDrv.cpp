// matrixMulDrv: tiled matrix product through the driver API, parameters passed via `extra`.
#include "drv_sample.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

const int kBlockSize = 16; // must match BLOCK_SIZE in matrixMul_kernel.cu

// A kernel-parameter buffer for CU_LAUNCH_PARAM_BUFFER_POINTER: each value is placed at the next
// offset that is a multiple of its own alignment, as the kernel's parameter layout expects.
class ParamBuffer {
public:
  template <typename T> size_t add(const T &value) {
    size_t offset = (size_ + alignof(T) - 1) & ~(alignof(T) - 1);
    if (offset + sizeof(T) > sizeof(bytes_)) {
      std::fprintf(stderr, "parameter buffer overflow\n");
      std::printf("Result = FAIL\n");
      std::exit(EXIT_FAILURE);
    }
    std::memcpy(bytes_ + offset, &value, sizeof(T));
    size_ = offset + sizeof(T);
    return offset;
  }
  void *data() { return bytes_; }
  size_t *sizePtr() { return &size_; }
  size_t size() const { return size_; }

private:
  alignas(16) unsigned char bytes_[256] = {};
  size_t size_ = 0;
};

void fillRandom(std::vector<float> &m, sample::Lcg &rng) {
  for (float &x : m) {
    x = rng.nextFloat();
  }
}

} // namespace

int main() {
  std::printf("matrixMulDrv: C = A * B through the CUDA driver API\n");

  // A is hA x wA, B is hB x wB (hB == wA), C is hA x wB; all multiples of the tile size.
  const int wA = 20 * kBlockSize; // 320
  const int hA = 20 * kBlockSize; // 320
  const int wB = 40 * kBlockSize; // 640
  const int hB = wA;
  const int wC = wB;
  const int hC = hA;
  const size_t bytesA = static_cast<size_t>(wA) * hA * sizeof(float);
  const size_t bytesB = static_cast<size_t>(wB) * hB * sizeof(float);
  const size_t bytesC = static_cast<size_t>(wC) * hC * sizeof(float);

  CUdevice device = 0;
  CUcontext context = sample::initDevice(&device);
  bool ok = sample::checkDriverLibrary();

  CUmodule module = sample::loadModuleNextToExe("matrixMul_kernel.ptx");
  CUfunction matrixMul = nullptr;
  CHECK_CU(cuModuleGetFunction(&matrixMul, module, "matrixMul"));

  std::vector<float> hostA(static_cast<size_t>(wA) * hA);
  std::vector<float> hostB(static_cast<size_t>(wB) * hB);
  std::vector<float> hostC(static_cast<size_t>(wC) * hC, -1.0f);
  sample::Lcg rng(7);
  fillRandom(hostA, rng);
  fillRandom(hostB, rng);

  CUdeviceptr dA = 0;
  CUdeviceptr dB = 0;
  CUdeviceptr dC = 0;
  CHECK_CU(cuMemAlloc(&dA, bytesA));
  CHECK_CU(cuMemAlloc(&dB, bytesB));
  CHECK_CU(cuMemAlloc(&dC, bytesC));
  CHECK_CU(cuMemcpyHtoD(dA, hostA.data(), bytesA));
  CHECK_CU(cuMemcpyHtoD(dB, hostB.data(), bytesB));
  CHECK_CU(cuMemcpyHtoD(dC, hostC.data(), bytesC));

  // matrixMul(float *C, const float *A, int wA, const float *B, int wB): the int after A leaves
  // 4 bytes of padding before B, so the expected layout is 0, 8, 16, 24, 32 and 36 bytes in all.
  ParamBuffer params;
  size_t offC = params.add(dC);
  size_t offA = params.add(dA);
  size_t offWA = params.add(wA);
  size_t offB = params.add(dB);
  size_t offWB = params.add(wB);
  std::printf("Parameter buffer: C@%zu A@%zu wA@%zu B@%zu wB@%zu, %zu bytes\n", offC, offA, offWA,
              offB, offWB, params.size());
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, params.data(), CU_LAUNCH_PARAM_BUFFER_SIZE,
                   params.sizePtr(), CU_LAUNCH_PARAM_END};

  const unsigned int gridX = wB / kBlockSize;
  const unsigned int gridY = hA / kBlockSize;
  std::printf("Launching matrixMul: grid (%u, %u), block (%d, %d); A %dx%d, B %dx%d\n", gridX,
              gridY, kBlockSize, kBlockSize, hA, wA, hB, wB);
  CHECK_CU(cuLaunchKernel(matrixMul, gridX, gridY, 1, kBlockSize, kBlockSize, 1, 0, nullptr,
                          nullptr, extra));
  CHECK_CU(cuCtxSynchronize());

  CHECK_CU(cuMemcpyDtoH(hostC.data(), dC, bytesC));

  // Reference in double precision. Every term is non-negative, so the reference itself bounds the
  // float accumulation error: a relative tolerance of 1e-4 is far above it (about 320 * 2^-24).
  const double relTol = 1e-4;
  int mismatches = 0;
  double maxRelErr = 0.0;
  std::vector<double> row(wC);
  for (int i = 0; i < hC; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int k = 0; k < wA; ++k) {
      double a = hostA[static_cast<size_t>(i) * wA + k];
      const float *bRow = &hostB[static_cast<size_t>(k) * wB];
      for (int j = 0; j < wC; ++j) {
        row[j] += a * bRow[j];
      }
    }
    for (int j = 0; j < wC; ++j) {
      double got = hostC[static_cast<size_t>(i) * wC + j];
      double err = std::fabs(got - row[j]);
      double rel = row[j] != 0.0 ? err / std::fabs(row[j]) : err;
      if (rel > maxRelErr || std::isnan(rel)) {
        maxRelErr = rel;
      }
      if (!(rel <= relTol)) {
        if (mismatches < 10) {
          std::fprintf(stderr, "mismatch at C[%d][%d]: got %f, expected %f\n", i, j, got, row[j]);
        }
        ++mismatches;
      }
    }
  }
  std::printf("Max relative error: %g (tolerance %g)\n", maxRelErr, relTol);
  if (mismatches != 0) {
    std::fprintf(stderr, "%d of %d elements wrong\n", mismatches, wC * hC);
    ok = false;
  }

  CHECK_CU(cuMemFree(dA));
  CHECK_CU(cuMemFree(dB));
  CHECK_CU(cuMemFree(dC));
  CHECK_CU(cuModuleUnload(module));
  CHECK_CU(cuCtxDestroy(context));

  std::printf("Result = %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
