// cucpu-library-gemm-bench: cuBLAS's SGEMM and DGEMM (NVIDIA's kernels, from the PTX cuBLAS
// ships, run by cucpu) against OpenBLAS's on the same cores, in one run: milliseconds (best of 3
// after a warm-up call that compiles the kernels) and the ratio to OpenBLAS. Results are checked
// against OpenBLAS's. Usage: cucpu-library-gemm-bench [n...] (default 256 512 1024).
#include "openblas.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <vector>

namespace {

constexpr int kColMajor = 102, kNoTrans = 111;

template <typename T> struct Blas;
template <> struct Blas<float> {
  static constexpr const char *cblas = "cblas_sgemm", *name = "SGEMM";
  using Cblas = void (*)(int, int, int, int, int, int, float, const float *, int, const float *,
                         int, float, float *, int);
  static cublasStatus_t gemm(cublasHandle_t h, int n, const float *a, const float *b, float *c) {
    const float one = 1, zero = 0;
    return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
  }
};
template <> struct Blas<double> {
  static constexpr const char *cblas = "cblas_dgemm", *name = "DGEMM";
  using Cblas = void (*)(int, int, int, int, int, int, double, const double *, int,
                         const double *, int, double, double *, int);
  static cublasStatus_t gemm(cublasHandle_t h, int n, const double *a, const double *b,
                             double *c) {
    const double one = 1, zero = 0;
    return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);
  }
};

// One size: OpenBLAS, then cuBLAS on cucpu; false when cuBLAS fails or disagrees.
template <typename T> bool run(cublasHandle_t h, void *openblas, int n) {
  const size_t count = size_t(n) * n;
  std::vector<T> a(count), b(count), ref(count), got(count);
  for (size_t i = 0; i < count; ++i) {
    a[i] = T(int((i * 2654435761u) % 2001) - 1000) / T(500);
    b[i] = T(int((i * 40503u + 7) % 2001) - 1000) / T(500);
  }
  auto cblas = reinterpret_cast<typename Blas<T>::Cblas>(dlsym(openblas, Blas<T>::cblas));
  const double blasMs = bench::bestOf3([&] {
    cblas(kColMajor, kNoTrans, kNoTrans, n, n, n, T(1), a.data(), n, b.data(), n, T(0),
          ref.data(), n);
  });
  T *da, *db, *dc;
  cudaMalloc(&da, count * sizeof(T));
  cudaMalloc(&db, count * sizeof(T));
  cudaMalloc(&dc, count * sizeof(T));
  cudaMemcpy(da, a.data(), count * sizeof(T), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), count * sizeof(T), cudaMemcpyHostToDevice);
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  auto call = [&] {
    st = Blas<T>::gemm(h, n, da, db, dc);
    cudaDeviceSynchronize();
  };
  call(); // compiles the kernels cuBLAS picks
  const double ms = bench::bestOf3(call);
  cudaMemcpy(got.data(), dc, count * sizeof(T), cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  double worst = 0;
  for (size_t i = 0; i < count; ++i)
    worst = std::max(worst, double(std::fabs(got[i] - ref[i]) / (1 + std::fabs(ref[i]))));
  if (st != CUBLAS_STATUS_SUCCESS || worst > 1e-3) {
    std::printf("  %s n=%d: cuBLAS status %d, largest difference from OpenBLAS %g\n",
                Blas<T>::name, n, int(st), worst);
    return false;
  }
  std::printf("  %s %5d  OpenBLAS %9.2f ms  cuBLAS on cucpu %9.2f ms  ratio %6.1fx\n",
              Blas<T>::name, n, blasMs, ms, ms / blasMs);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i)
    sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty())
    sizes = {256, 512, 1024};
  void *openblas = bench::openBlas();
  if (!openblas)
    return 0;
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    std::printf("cublasCreate failed\n");
    return 1;
  }
  bool ok = true;
  for (int n : sizes)
    ok = run<float>(h, openblas, n) && ok;
  for (int n : sizes)
    ok = run<double>(h, openblas, n) && ok;
  cublasDestroy(h);
  return ok ? 0 : 1;
}
