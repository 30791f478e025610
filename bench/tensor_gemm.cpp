// cucpu-tensor-gemm-bench: a bf16 GEMM (f32 accumulation) through mma.sync (cp.async, ldmatrix)
// and through wmma on cucpu, against OpenBLAS's SGEMM of the same (widened) matrices on the same
// cores, in one run: milliseconds (best of 3 after a warm-up launch) and the ratio to SGEMM.
// Usage: cucpu-tensor-gemm-bench [n] (default 512; a multiple of 64).
#include "openblas.h"

#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

void check(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "%s failed: %d\n", what, int(r));
    std::exit(1);
  }
}

uint16_t toBf16(float x) { // round to nearest even
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

float fromBf16(uint16_t h) {
  const uint32_t u = uint32_t(h) << 16;
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

} // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  if (n <= 0 || n % 64) {
    std::fprintf(stderr, "n must be a positive multiple of 64\n");
    return 2;
  }
  std::vector<uint16_t> a(size_t(n) * n), bt(size_t(n) * n);
  std::vector<float> af(a.size()), btf(bt.size());
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = toBf16(float(int((i * 2654435761u) % 2001) - 1000) / 500.0f);
    bt[i] = toBf16(float(int((i * 40503u + 7) % 2001) - 1000) / 500.0f);
    af[i] = fromBf16(a[i]);
    btf[i] = fromBf16(bt[i]);
  }

  check(cuInit(0), "cuInit");
  CUdevice dev;
  CUcontext ctx;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  std::ifstream f(CUCPU_TENSOR_GEMM_PTX);
  std::stringstream ptx;
  ptx << f.rdbuf();
  CUmodule mod;
  check(cuModuleLoadData(&mod, ptx.str().c_str()), "cuModuleLoadData");
  CUdeviceptr da, db, dc;
  const size_t bytes16 = a.size() * 2, bytes32 = a.size() * 4;
  check(cuMemAlloc(&da, bytes16), "cuMemAlloc");
  check(cuMemAlloc(&db, bytes16), "cuMemAlloc");
  check(cuMemAlloc(&dc, bytes32), "cuMemAlloc");
  check(cuMemcpyHtoD(da, a.data(), bytes16), "cuMemcpyHtoD");
  check(cuMemcpyHtoD(db, bt.data(), bytes16), "cuMemcpyHtoD");

  // The reference: OpenBLAS SGEMM of the widened inputs, C = A * Bt^T.
  std::vector<float> ref(a.size(), 0.0f);
  double sgemmMs = 0;
  using Sgemm = void (*)(int, int, int, int, int, int, float, const float *, int, const float *,
                         int, float, float *, int);
  void *blas = bench::openBlas();
  auto sgemm = blas ? reinterpret_cast<Sgemm>(dlsym(blas, "cblas_sgemm")) : nullptr;
  if (sgemm) {
    constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
    sgemmMs = bench::bestOf3([&] {
      sgemm(kRowMajor, kNoTrans, kTrans, n, n, n, 1.0f, af.data(), n, btf.data(), n, 0.0f,
            ref.data(), n);
    });
  }

  std::printf("bf16 GEMM %dx%dx%d, f32 accumulation\n", n, n, n);
  if (sgemm)
    std::printf("  %-36s %9.2f ms\n", "OpenBLAS SGEMM (same values, f32)", sgemmMs);
  struct Kernel {
    const char *name, *label;
    unsigned grid[2], block;
  } kernels[] = {
      {"mmaGemm",
       "cucpu mma.sync + ldmatrix + cp.async",
       {unsigned(n / 64), unsigned(n / 64)},
       128},
      {"wmmaGemm", "cucpu wmma", {unsigned(n / 16) * unsigned(n / 16) / 4, 1}, 128},
  };
  int status = 0;
  for (const Kernel &k : kernels) {
    CUfunction fn;
    check(cuModuleGetFunction(&fn, mod, k.name), "cuModuleGetFunction");
    int nn = n;
    void *args[] = {&da, &db, &dc, &nn};
    auto launch = [&] {
      check(cuLaunchKernel(fn, k.grid[0], k.grid[1], 1, k.block, 1, 1, 0, nullptr, args, nullptr),
            "cuLaunchKernel");
      check(cuCtxSynchronize(), "cuCtxSynchronize");
    };
    launch(); // compiles the kernel
    const double ms = bench::bestOf3(launch);
    std::vector<float> c(a.size());
    check(cuMemcpyDtoH(c.data(), dc, bytes32), "cuMemcpyDtoH");
    double worst = 0;
    if (sgemm)
      for (size_t i = 0; i < c.size(); ++i)
        worst = std::max(worst, double(std::fabs(c[i] - ref[i])) / (1.0 + std::fabs(ref[i])));
    if (worst > 1e-3) {
      std::printf("  %s: result differs from SGEMM's by %g\n", k.name, worst);
      status = 1;
    }
    if (sgemm)
      std::printf("  %-36s %9.2f ms  %6.1fx SGEMM's time\n", k.label, ms, ms / sgemmMs);
    else
      std::printf("  %-36s %9.2f ms\n", k.label, ms);
  }
  return status;
}
