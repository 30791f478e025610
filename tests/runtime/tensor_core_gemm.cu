// Tensor-core GEMM patterns as CUDA programs write them: wmma GEMMs (f16 and bf16 into f32,
// tf32, int8 into s32, f64) with a loop over K, and the bench's CUTLASS-style bf16 GEMM staging
// tiles in shared memory with cp.async, loading fragments with ldmatrix, multiplying with
// mma.sync (bench/cuda/tensor_gemm.cu).
// Prints one FNV-1a hash of each result matrix (and a few values); the expected lines are an
// H200's (tests/runtime/CMakeLists.txt).
#include "../../bench/cuda/tensor_gemm.cu" // mmaGemm, the bench's CUTLASS-style kernel
#include "check.h"

#include <cuda_fp16.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

constexpr int M = 128, N = 128, K = 128;

// A value in [-2, 2) with every fraction bit of the 16-bit formats used.
float input(int matrix, int i) {
  uint32_t h = uint32_t(matrix) * 0x9e3779b9u ^ uint32_t(i) * 0x85ebca6bu;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  return float(int(h % 65536) - 32768) / 16384.0f;
}

uint64_t fnv(const void *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ static_cast<const uint8_t *>(p)[i]) * 1099511628211ull;
  return h;
}

// One warp per 16x16 tile of C (row-major A, column-major B, row-major C), K in steps.
template <class TIn, class TAcc, int WM, int WN, int WK>
__global__ void wmmaTiles(const TIn *a, const TIn *b, TAcc *c) {
  const int warp = int(blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int tm = warp / (N / WN), tn = warp % (N / WN);
  if (tm >= M / WM)
    return;
  wmma::fragment<wmma::accumulator, WM, WN, WK, TAcc> acc;
  wmma::fill_fragment(acc, TAcc(0));
  for (int k = 0; k < K; k += WK) {
    wmma::fragment<wmma::matrix_a, WM, WN, WK, TIn, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, WM, WN, WK, TIn, wmma::col_major> fb;
    wmma::load_matrix_sync(fa, a + tm * WM * K + k, K);
    wmma::load_matrix_sync(fb, b + tn * WN * K + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + tm * WM * N + tn * WN, acc, N, wmma::mem_row_major);
}

// tf32: the fragments take f32 inputs converted with __float_to_tf32.
__global__ void wmmaGemmTf32(const float *a, const float *b, float *c) {
  const int warp = int(blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int tm = warp / (N / 16), tn = warp % (N / 16);
  if (tm >= M / 16)
    return;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 8) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::load_matrix_sync(fa, a + tm * 16 * K + k, K);
    wmma::load_matrix_sync(fb, b + tn * 16 * K + k, K);
    for (int e = 0; e < fa.num_elements; ++e)
      fa.x[e] = wmma::__float_to_tf32(fa.x[e]);
    for (int e = 0; e < fb.num_elements; ++e)
      fb.x[e] = wmma::__float_to_tf32(fb.x[e]);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}

template <class T> struct Buffer {
  T *d = nullptr;
  explicit Buffer(size_t n) { cudaMalloc(&d, n * sizeof(T)); }
  ~Buffer() { cudaFree(d); }
};

template <class TIn, class TAcc, int WM, int WN, int WK, class Conv>
void runWmma(const char *name, Conv conv) {
  std::vector<TIn> a(M * K), b(N * K);
  for (int i = 0; i < M * K; ++i)
    a[i] = conv(input(1, i));
  for (int i = 0; i < N * K; ++i)
    b[i] = conv(input(2, i));
  Buffer<TIn> da(a.size()), db(b.size());
  Buffer<TAcc> dc(M * N);
  CHECK(cudaMemcpy(da.d, a.data(), a.size() * sizeof(TIn), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db.d, b.data(), b.size() * sizeof(TIn), cudaMemcpyHostToDevice));
  wmmaTiles<TIn, TAcc, WM, WN, WK><<<(M / WM) * (N / WN) / 4, 128>>>(da.d, db.d, dc.d);
  CHECK(cudaGetLastError());
  std::vector<TAcc> c(M * N);
  CHECK(cudaMemcpy(c.data(), dc.d, c.size() * sizeof(TAcc), cudaMemcpyDeviceToHost));
  printf("%s hash %016llx c[0] %.17g c[last] %.17g\n", name,
         (unsigned long long)fnv(c.data(), c.size() * sizeof(TAcc)), double(c[0]),
         double(c[M * N - 1]));
}

int main() {
  runWmma<half, float, 16, 16, 16>("wmma_f16_f32", [](float x) { return __float2half(x); });
  runWmma<__nv_bfloat16, float, 16, 16, 16>("wmma_bf16_f32",
                                            [](float x) { return __float2bfloat16(x); });
  runWmma<signed char, int, 16, 16, 16>("wmma_s8_s32",
                                        [](float x) { return (signed char)(int(x * 63.0f)); });
  runWmma<double, double, 8, 8, 4>("wmma_f64", [](float x) { return double(x) / 3.0; });
  {
    std::vector<float> a(M * K), b(N * K);
    for (int i = 0; i < M * K; ++i)
      a[i] = input(1, i) * 1.00001f;
    for (int i = 0; i < N * K; ++i)
      b[i] = input(2, i) * 0.99999f;
    Buffer<float> da(a.size()), db(b.size()), dc(M * N);
    CHECK(cudaMemcpy(da.d, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db.d, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
    wmmaGemmTf32<<<(M / 16) * (N / 16) / 4, 128>>>(da.d, db.d, dc.d);
    CHECK(cudaGetLastError());
    std::vector<float> c(M * N);
    CHECK(cudaMemcpy(c.data(), dc.d, c.size() * 4, cudaMemcpyDeviceToHost));
    printf("wmma_tf32 hash %016llx c[0] %.9g\n", (unsigned long long)fnv(c.data(), c.size() * 4),
           c[0]);
  }
  {
    std::vector<__nv_bfloat16> a(M * K), b(N * K);
    for (int i = 0; i < M * K; ++i)
      a[i] = __float2bfloat16(input(3, i));
    for (int i = 0; i < N * K; ++i)
      b[i] = __float2bfloat16(input(4, i));
    Buffer<__nv_bfloat16> da(a.size()), db(b.size());
    Buffer<float> dc(M * N);
    CHECK(cudaMemcpy(da.d, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db.d, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
    mmaGemm<<<dim3(N / BT, M / BT), 128>>>(da.d, db.d, dc.d, N);
    CHECK(cudaGetLastError());
    std::vector<float> c(M * N);
    CHECK(cudaMemcpy(c.data(), dc.d, c.size() * 4, cudaMemcpyDeviceToHost));
    printf("mma_bf16 hash %016llx c[0] %.9g\n", (unsigned long long)fnv(c.data(), c.size() * 4),
           c[0]);
  }
  printf("PASS\n");
  return 0;
}
