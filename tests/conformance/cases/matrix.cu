// Warp-level matrix instructions beyond tests/gpu/record_mma.cpp's products: ldmatrix (x1, x2,
// x4, .trans, shared and generic addresses), stmatrix, movmatrix, the m8n8 integer shapes, f16
// accumulation at k8, and wmma tiles loaded and stored with strides, column-major layouts,
// shared memory and element-wise work on the fragments. Each thread writes `per` words.
// arch: compute_90
#include "conf.cuh"

#include <mma.h>

#define LANE (threadIdx.x & 31)
#define MK(name) extern "C" __global__ void name(const void *, const void *, const void *, u32 *D, int n)

// A 16-bit value per element of a shared tile of `rows` rows of 8 b16 (16 bytes each).
__device__ u16 tileValue(int j) { return u16(j * 40503u >> 3); }
#define TILE(rows)                                                                              \
  __shared__ __align__(16) u16 tile[(rows) * 8];                                               \
  for (int j = threadIdx.x; j < (rows) * 8; j += blockDim.x)                                   \
    tile[j] = tileValue(j);                                                                     \
  __syncthreads();

// Lane l gives the address of row l % 8 of matrix l / 8; rows are permuted so every matrix
// reads rows from all over the tile.
#define ROW_ADDR u32(__cvta_generic_to_shared(tile + ((LANE * 5 + 3) % 32) * 8))

MK(ldmatrix_x1) {
  TILE(32);
  u32 r;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(ROW_ADDR));
  D[threadIdx.x] = r;
} //@ ldmatrix_x1 u32 threads=64 block=64
MK(ldmatrix_x2) {
  TILE(32);
  u32 r0, r1;
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
               : "=r"(r0), "=r"(r1)
               : "r"(ROW_ADDR));
  D[2 * threadIdx.x] = r0, D[2 * threadIdx.x + 1] = r1;
} //@ ldmatrix_x2 u32 threads=64 block=64 per=2
MK(ldmatrix_x4) {
  TILE(32);
  u32 r0, r1, r2, r3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(ROW_ADDR));
  u32 *d = D + 4 * threadIdx.x;
  d[0] = r0, d[1] = r1, d[2] = r2, d[3] = r3;
} //@ ldmatrix_x4 u32 threads=64 block=64 per=4
MK(ldmatrix_x4_trans) {
  TILE(32);
  u32 r0, r1, r2, r3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(ROW_ADDR));
  u32 *d = D + 4 * threadIdx.x;
  d[0] = r0, d[1] = r1, d[2] = r2, d[3] = r3;
} //@ ldmatrix_x4_trans u32 threads=64 block=64 per=4
MK(ldmatrix_x2_trans_generic) {
  TILE(32);
  u32 r0, r1;
  const u16 *row = tile + ((LANE * 5 + 3) % 32) * 8;
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.b16 {%0, %1}, [%2];"
               : "=r"(r0), "=r"(r1)
               : "l"(row));
  D[2 * threadIdx.x] = r0, D[2 * threadIdx.x + 1] = r1;
} //@ ldmatrix_x2_trans_generic u32 threads=32 per=2
MK(stmatrix_x4) {
  __shared__ __align__(16) u16 tile[32 * 8];
  for (int j = threadIdx.x; j < 256; j += blockDim.x)
    tile[j] = 0;
  __syncthreads();
  const u32 v = LANE * 0x00030007u + 0x01000100u;
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(ROW_ADDR),
               "r"(v), "r"(v ^ 0x5a5a5a5au), "r"(v + 0x11111111u), "r"(~v)
               : "memory");
  __syncthreads();
  const u32 *w = reinterpret_cast<const u32 *>(tile);
  for (int j = threadIdx.x; j < 128; j += blockDim.x)
    D[j] = w[j];
} //@ stmatrix_x4 u32 threads=32 nout=128
MK(stmatrix_x2_trans) {
  __shared__ __align__(16) u16 tile[32 * 8];
  for (int j = threadIdx.x; j < 256; j += blockDim.x)
    tile[j] = 0xffff;
  __syncthreads();
  const u32 v = LANE * 0x00050009u + 0x02000200u;
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" ::"r"(ROW_ADDR),
               "r"(v), "r"(v * 3u)
               : "memory");
  __syncthreads();
  const u32 *w = reinterpret_cast<const u32 *>(tile);
  for (int j = threadIdx.x; j < 128; j += blockDim.x)
    D[j] = w[j];
} //@ stmatrix_x2_trans u32 threads=32 nout=128
WK(movmatrix, asm("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(d) : "r"(v * 0x10001u + LANE))) //@ u32 threads=64

// Integer products of the m8n8 shapes and f16 accumulation: fragments from the lane index.
MK(mma_m8n8k16_s8) {
  const u32 a = LANE * 0x01030507u ^ 0x80ff7f01u, b = LANE * 0x02040608u + 0x7f80u;
  u32 d0, d1;
  asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0, %1}, {%2}, {%3}, {%4, %5};"
               : "=r"(d0), "=r"(d1)
               : "r"(a), "r"(b), "r"(LANE * 1000u), "r"(0u - LANE));
  D[2 * threadIdx.x] = d0, D[2 * threadIdx.x + 1] = d1;
} //@ mma_m8n8k16_s8 u32 threads=32 per=2
MK(mma_m8n8k16_u8s8_sat) {
  const u32 a = LANE * 0x11223344u | 0x80808080u, b = 0x7f7f7f7fu - LANE;
  u32 d0, d1;
  asm volatile(
      "mma.sync.aligned.m8n8k16.row.col.satfinite.s32.u8.s8.s32 {%0, %1}, {%2}, {%3}, {%4, %5};"
      : "=r"(d0), "=r"(d1)
      : "r"(a), "r"(b), "r"(0x7fffff00u), "r"(0x80000100u));
  D[2 * threadIdx.x] = d0, D[2 * threadIdx.x + 1] = d1;
} //@ mma_m8n8k16_u8s8_sat u32 threads=32 per=2
MK(mma_m8n8k32_s4) {
  const u32 a = LANE * 0x12345679u, b = ~LANE * 0x9e3779b9u;
  u32 d0, d1;
  asm volatile("mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32 {%0, %1}, {%2}, {%3}, {%4, %5};"
               : "=r"(d0), "=r"(d1)
               : "r"(a), "r"(b), "r"(LANE), "r"(7u));
  D[2 * threadIdx.x] = d0, D[2 * threadIdx.x + 1] = d1;
} //@ mma_m8n8k32_s4 u32 threads=32 per=2
MK(mma_m8n8k128_b1_xor) {
  const u32 a = LANE * 0x9e3779b9u, b = (LANE + 5) * 0x85ebca6bu;
  u32 d0, d1;
  asm volatile(
      "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%0, %1}, {%2}, {%3}, {%4, %5};"
      : "=r"(d0), "=r"(d1)
      : "r"(a), "r"(b), "r"(LANE), "r"(100u));
  D[2 * threadIdx.x] = d0, D[2 * threadIdx.x + 1] = d1;
} //@ mma_m8n8k128_b1_xor u32 threads=32 per=2
MK(mma_m16n8k8_f16_f16) {
  const u32 a0 = 0x3c003800u + LANE * 0x00010003u, a1 = 0xbc00b400u ^ LANE * 0x00210011u;
  const u32 b = 0x40003555u + LANE * 0x00070005u, c0 = 0x5640c100u, c1 = LANE * 0x01000100u;
  u32 d0, d1;
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, "
               "{%5, %6};"
               : "=r"(d0), "=r"(d1)
               : "r"(a0), "r"(a1), "r"(b), "r"(c0), "r"(c1));
  D[2 * threadIdx.x] = d0, D[2 * threadIdx.x + 1] = d1;
} //@ mma_m16n8k8_f16_f16 u32 threads=32 per=2
// Two warps, the second with its own fragments: each warp's product is its own.
MK(mma_two_warps) {
  const u32 w = threadIdx.x >> 5;
  const u32 a = (LANE + 7 * w) * 0x00010001u + 0x3c003c00u, b = 0x3800b800u + w;
  float d0, d1, d2, d3;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
               : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)
               : "r"(a), "r"(a ^ 0x80000000u), "r"(a + 1), "r"(a * 3u), "r"(b), "r"(b + LANE),
                 "f"(1.5f), "f"(float(LANE)), "f"(-2.f), "f"(float(w)));
  float *d = reinterpret_cast<float *>(D) + 4 * threadIdx.x;
  d[0] = d0, d[1] = d1, d[2] = d2, d[3] = d3;
} //@ mma_two_warps f32 threads=64 per=4

// wmma through shared memory with a padded stride, column-major A and C, and every fragment
// element scaled between the load and the product.
MK(wmma_strided_shared) {
  using namespace nvcuda;
  __shared__ __align__(32) half a[16 * 24], b[16 * 24];
  __shared__ __align__(32) float c[16 * 20];
  for (int j = threadIdx.x; j < 16 * 24; j += blockDim.x) {
    a[j] = __float2half(float((j * 7) % 13) - 6.f);
    b[j] = __float2half(float((j * 5) % 11) * 0.25f);
  }
  for (int j = threadIdx.x; j < 16 * 20; j += blockDim.x)
    c[j] = float(j % 9) - 4.f;
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fa, a, 24);
  wmma::load_matrix_sync(fb, b, 24);
  wmma::load_matrix_sync(fc, c, 20, wmma::mem_col_major);
  for (int e = 0; e < fa.num_elements; ++e)
    fa.x[e] = __hmul(fa.x[e], __float2half(2.f));
  wmma::mma_sync(fc, fa, fb, fc);
  for (int e = 0; e < fc.num_elements; ++e)
    fc.x[e] = fc.x[e] * 0.5f + 1.f;
  __shared__ __align__(32) float out[16 * 16];
  wmma::store_matrix_sync(out, fc, 16, wmma::mem_col_major);
  __syncthreads();
  for (int j = threadIdx.x; j < 256; j += blockDim.x)
    D[j] = __float_as_uint(out[j]);
} //@ wmma_strided_shared u32 threads=32 nout=256
MK(wmma_u8_global) {
  using namespace nvcuda;
  __shared__ __align__(32) unsigned char a[16 * 16], b[16 * 16];
  for (int j = threadIdx.x; j < 256; j += blockDim.x)
    a[j] = u8(j * 37), b[j] = u8(j * 91 + 3);
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::fill_fragment(fc, -5);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(reinterpret_cast<int *>(D), fc, 16, wmma::mem_row_major);
} //@ wmma_u8_global u32 threads=32 nout=256
