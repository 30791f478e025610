// Kernels of the warp-level matrix recordings: each warp runs tests (one matrix product each).
// The host lays out every test's A (M x K), B (K x N) and C (M x N) elements (mma_inputs.h), one
// element per byte at least: row-major, but B column-major for wmma. For mma.sync every lane
// builds its fragments in the ISA's fragment layout; wmma loads the tiles from memory. D goes
// row-major to D + test * M * N elements. Regenerate the PTX with
//   nvcc -arch=sm_90 -ptx -o mma_kernels.ptx mma_kernels.cu
#include "mma_configs.h"

#include <mma.h>

typedef unsigned long long u64;
typedef unsigned u32;

namespace {

struct Frag {
  u64 a[8], b[4], c[4], d[4]; // registers (32-bit values in the low half, or f64 bits)
};

__device__ u32 lo(u64 v) { return u32(v); }
__device__ float fl(u64 v) { return __uint_as_float(u32(v)); }
__device__ double db(u64 v) { return __longlong_as_double((long long)v); }
__device__ u64 ufl(float v) { return __float_as_uint(v); }
__device__ u64 udb(double v) { return (u64)__double_as_longlong(v); }

#define OP(name) __device__ void op_##name(Frag &f)
#define RA(i) "r"(lo(f.a[i]))
#define RB(i) "r"(lo(f.b[i]))
#define FC(i) "f"(fl(f.c[i]))
#define RC(i) "r"(lo(f.c[i]))
#define DA(i) "d"(db(f.a[i]))
#define DB(i) "d"(db(f.b[i]))
#define DC(i) "d"(db(f.c[i]))

#define F32_4(insn, ...)                                                                           \
  float d0, d1, d2, d3;                                                                            \
  asm volatile(insn : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3) : __VA_ARGS__);                      \
  f.d[0] = ufl(d0), f.d[1] = ufl(d1), f.d[2] = ufl(d2), f.d[3] = ufl(d3);
#define S32_4(insn, ...)                                                                           \
  u32 d0, d1, d2, d3;                                                                              \
  asm volatile(insn : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3) : __VA_ARGS__);                      \
  f.d[0] = d0, f.d[1] = d1, f.d[2] = d2, f.d[3] = d3;

OP(f16_f32_m16n8k16) {
  F32_4("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13};",
        RA(0), RA(1), RA(2), RA(3), RB(0), RB(1), FC(0), FC(1), FC(2), FC(3))
}
OP(bf16_f32_m16n8k16) {
  F32_4("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13};",
        RA(0), RA(1), RA(2), RA(3), RB(0), RB(1), FC(0), FC(1), FC(2), FC(3))
}
OP(f16_f16_m16n8k16) {
  u32 d0, d1;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, "
               "{%6,%7}, {%8,%9};"
               : "=r"(d0), "=r"(d1)
               : RA(0), RA(1), RA(2), RA(3), RB(0), RB(1), RC(0), RC(1));
  f.d[0] = d0, f.d[1] = d1;
}
OP(f16_f32_m16n8k8) {
  F32_4("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%7,%8,%9,%10};",
        RA(0), RA(1), RB(0), FC(0), FC(1), FC(2), FC(3))
}
OP(bf16_f32_m16n8k8) {
  F32_4("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%7,%8,%9,%10};",
        RA(0), RA(1), RB(0), FC(0), FC(1), FC(2), FC(3))
}
OP(tf32_f32_m16n8k8) {
  F32_4("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13};",
        RA(0), RA(1), RA(2), RA(3), RB(0), RB(1), FC(0), FC(1), FC(2), FC(3))
}
OP(tf32_f32_m16n8k4) {
  F32_4("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%7,%8,%9,%10};",
        RA(0), RA(1), RB(0), FC(0), FC(1), FC(2), FC(3))
}
OP(s8_s32_m16n8k32) {
  S32_4("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13};",
        RA(0), RA(1), RA(2), RA(3), RB(0), RB(1), RC(0), RC(1), RC(2), RC(3))
}
OP(s8_s32_m16n8k32_sat) {
  S32_4("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, "
        "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};",
        RA(0), RA(1), RA(2), RA(3), RB(0), RB(1), RC(0), RC(1), RC(2), RC(3))
}
OP(u8s8_s32_m16n8k16) {
  S32_4("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%7,%8,%9,%10};",
        RA(0), RA(1), RB(0), RC(0), RC(1), RC(2), RC(3))
}
OP(e4m3_f32_m16n8k32) {
  F32_4("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13};",
        RA(0), RA(1), RA(2), RA(3), RB(0), RB(1), FC(0), FC(1), FC(2), FC(3))
}
OP(e5m2e4m3_f32_m16n8k32) {
  F32_4("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13};",
        RA(0), RA(1), RA(2), RA(3), RB(0), RB(1), FC(0), FC(1), FC(2), FC(3))
}
OP(e4m3_f32_m16n8k16) {
  F32_4("mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%7,%8,%9,%10};",
        RA(0), RA(1), RB(0), FC(0), FC(1), FC(2), FC(3))
}
OP(e4m3_f16_m16n8k32) {
  u32 d0, d1;
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%0,%1}, {%2,%3,%4,%5}, "
               "{%6,%7}, {%8,%9};"
               : "=r"(d0), "=r"(d1)
               : RA(0), RA(1), RA(2), RA(3), RB(0), RB(1), RC(0), RC(1));
  f.d[0] = d0, f.d[1] = d1;
}
OP(e5m2_f16_m16n8k16) {
  u32 d0, d1;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.e5m2.e5m2.f16 {%0,%1}, {%2,%3}, {%4}, "
               "{%5,%6};"
               : "=r"(d0), "=r"(d1)
               : RA(0), RA(1), RB(0), RC(0), RC(1));
  f.d[0] = d0, f.d[1] = d1;
}
OP(f64_m8n8k4) {
  double d0, d1;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
               : "=d"(d0), "=d"(d1)
               : DA(0), DB(0), DC(0), DC(1));
  f.d[0] = udb(d0), f.d[1] = udb(d1);
}
OP(f64_m16n8k16) {
  double d0, d1, d2, d3;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
               "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%16,%17,%18,%19};"
               : "=d"(d0), "=d"(d1), "=d"(d2), "=d"(d3)
               : DA(0), DA(1), DA(2), DA(3), DA(4), DA(5), DA(6), DA(7), DB(0), DB(1), DB(2),
                 DB(3), DC(0), DC(1), DC(2), DC(3));
  f.d[0] = udb(d0), f.d[1] = udb(d1), f.d[2] = udb(d2), f.d[3] = udb(d3);
}
OP(s4_s32_m16n8k64) {
  S32_4("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%11,%12,%13};",
        RA(0), RA(1), RA(2), RA(3), RB(0), RB(1), RC(0), RC(1), RC(2), RC(3))
}
OP(b1_and_m16n8k256) {
  S32_4("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, "
        "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};",
        RA(0), RA(1), RA(2), RA(3), RB(0), RB(1), RC(0), RC(1), RC(2), RC(3))
}

// Element (row, col) of a matrix of `cols` columns whose elements take `bytes` bytes each.
__device__ u64 element(const unsigned char *p, int row, int col, int cols, int bytes) {
  u64 v = 0;
  for (int byte = 0; byte < bytes; ++byte)
    v |= u64(p[(row * cols + col) * bytes + byte]) << (8 * byte);
  return v;
}

__device__ int storageBytes(MmaFmt f) { return mmaElementBits(f) < 8 ? 1 : mmaElementBits(f) / 8; }

// One mma.sync test per warp iteration: fragments from the inputs, the operation, D out.
template <void (*Op)(Frag &)>
__device__ void runMma(const MmaConfig cfg, const unsigned char *A, const unsigned char *B,
                       const unsigned char *C, unsigned char *D, int ntests) {
  const int lane = threadIdx.x & 31;
  const int warp = int((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
  const int nwarps = int(gridDim.x * blockDim.x >> 5);
  const int ab = mmaElementBits(cfg.a), bb = mmaElementBits(cfg.b), cb = mmaElementBits(cfg.c);
  const int sa = storageBytes(cfg.a), sb = storageBytes(cfg.b), sc = storageBytes(cfg.c);
  const int ea = ab == 64 ? 1 : 32 / ab, eb = bb == 64 ? 1 : 32 / bb;
  const int ec = cb == 64 ? 1 : 32 / cb;
  const int na = cfg.m * cfg.k / 32, nb = cfg.k * cfg.n / 32, nc = cfg.m * cfg.n / 32;
  for (int test = warp; test < ntests; test += nwarps) {
    const unsigned char *a = A + size_t(test) * cfg.m * cfg.k * sa;
    const unsigned char *b = B + size_t(test) * cfg.k * cfg.n * sb;
    const unsigned char *c = C + size_t(test) * cfg.m * cfg.n * sc;
    Frag f = {};
    int row, col;
    for (int i = 0; i < na; ++i) {
      mmaPosA(i, ea, lane, row, col);
      f.a[i / ea] |= element(a, row, col, cfg.k, sa) << (i % ea * ab);
    }
    for (int i = 0; i < nb; ++i) {
      mmaPosB(i, eb, lane, row, col);
      f.b[i / eb] |= element(b, row, col, cfg.n, sb) << (i % eb * bb);
    }
    for (int i = 0; i < nc; ++i) {
      mmaPosC(i, lane, row, col);
      f.c[i / ec] |= element(c, row, col, cfg.n, sc) << (i % ec * cb);
    }
    Op(f);
    for (int i = 0; i < nc; ++i) {
      mmaPosC(i, lane, row, col);
      const u64 v = f.d[i / ec] >> (i % ec * cb);
      unsigned char *p = D + (size_t(test) * cfg.m * cfg.n + row * cfg.n + col) * sc;
      for (int byte = 0; byte < sc; ++byte)
        p[byte] = (unsigned char)(v >> (8 * byte));
    }
  }
}

// wmma: the tiles straight from the inputs (A row-major, B column-major, C row-major), D stored
// row-major to the output.
template <class TA, class TAcc, int M, int N, int K>
__device__ void runWmma(const MmaConfig cfg, const unsigned char *A, const unsigned char *B,
                        const unsigned char *C, unsigned char *D, int ntests) {
  using namespace nvcuda;
  const int warp = int((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
  const int nwarps = int(gridDim.x * blockDim.x >> 5);
  const int sa = storageBytes(cfg.a), sc = storageBytes(cfg.c);
  for (int test = warp; test < ntests; test += nwarps) {
    wmma::fragment<wmma::matrix_a, M, N, K, TA, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, TA, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, TAcc> fc;
    using EA = typename decltype(fa)::storage_element_type;
    using EB = typename decltype(fb)::storage_element_type;
    wmma::load_matrix_sync(fa, reinterpret_cast<const EA *>(A + size_t(test) * M * K * sa), K);
    wmma::load_matrix_sync(fb, reinterpret_cast<const EB *>(B + size_t(test) * K * N * sa), K);
    wmma::load_matrix_sync(fc, reinterpret_cast<const TAcc *>(C + size_t(test) * M * N * sc), N,
                           wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(reinterpret_cast<TAcc *>(D + size_t(test) * M * N * sc), fc, N,
                            wmma::mem_row_major);
  }
}

} // namespace

#define KERNEL_ARGS                                                                                \
  const unsigned char *A, const unsigned char *B, const unsigned char *C, unsigned char *D,       \
      int ntests
#define MMA_KERNEL(name, m, n, k, a, b, c)                                                         \
  extern "C" __global__ void mma_##name(KERNEL_ARGS) {                                            \
    runMma<op_##name>(MmaConfig{#name, m, n, k, a, b, c}, A, B, C, D, ntests);                     \
  }
#define WMMA_KERNEL(name, m, n, k, a, b, c, TA, TAcc)                                              \
  extern "C" __global__ void mma_##name(KERNEL_ARGS) {                                            \
    runWmma<TA, TAcc, m, n, k>(MmaConfig{#name, m, n, k, a, b, c}, A, B, C, D, ntests);           \
  }

MMA_KERNEL(f16_f32_m16n8k16, 16, 8, 16, kF16, kF16, kF32)
MMA_KERNEL(bf16_f32_m16n8k16, 16, 8, 16, kBF16, kBF16, kF32)
MMA_KERNEL(f16_f16_m16n8k16, 16, 8, 16, kF16, kF16, kF16)
MMA_KERNEL(f16_f32_m16n8k8, 16, 8, 8, kF16, kF16, kF32)
MMA_KERNEL(bf16_f32_m16n8k8, 16, 8, 8, kBF16, kBF16, kF32)
MMA_KERNEL(tf32_f32_m16n8k8, 16, 8, 8, kTF32, kTF32, kF32)
MMA_KERNEL(tf32_f32_m16n8k4, 16, 8, 4, kTF32, kTF32, kF32)
MMA_KERNEL(s8_s32_m16n8k32, 16, 8, 32, kS8, kS8, kS32)
MMA_KERNEL(s8_s32_m16n8k32_sat, 16, 8, 32, kS8, kS8, kS32)
MMA_KERNEL(u8s8_s32_m16n8k16, 16, 8, 16, kU8, kS8, kS32)
MMA_KERNEL(e4m3_f32_m16n8k32, 16, 8, 32, kE4M3, kE4M3, kF32)
MMA_KERNEL(e5m2e4m3_f32_m16n8k32, 16, 8, 32, kE5M2, kE4M3, kF32)
MMA_KERNEL(f64_m8n8k4, 8, 8, 4, kF64, kF64, kF64)
MMA_KERNEL(f64_m16n8k16, 16, 8, 16, kF64, kF64, kF64)
MMA_KERNEL(s4_s32_m16n8k64, 16, 8, 64, kS4, kS4, kS32)
MMA_KERNEL(b1_and_m16n8k256, 16, 8, 256, kB1, kB1, kS32)
WMMA_KERNEL(wmma_f16_f32_m16n16k16, 16, 16, 16, kF16, kF16, kF32, half, float)
WMMA_KERNEL(wmma_f16_f16_m16n16k16, 16, 16, 16, kF16, kF16, kF16, half, half)
WMMA_KERNEL(wmma_bf16_f32_m16n16k16, 16, 16, 16, kBF16, kBF16, kF32, __nv_bfloat16, float)
WMMA_KERNEL(wmma_tf32_f32_m16n16k8, 16, 16, 8, kTF32, kTF32, kF32, nvcuda::wmma::precision::tf32,
            float)
WMMA_KERNEL(wmma_s8_s32_m16n16k16, 16, 16, 16, kS8, kS8, kS32, signed char, int)
WMMA_KERNEL(wmma_f64_m8n8k4, 8, 8, 4, kF64, kF64, kF64, double, double)
WMMA_KERNEL(wmma_f16_f32_m32n8k16, 32, 8, 16, kF16, kF16, kF32, half, float)
WMMA_KERNEL(wmma_f16_f32_m8n32k16, 8, 32, 16, kF16, kF16, kF32, half, float)
MMA_KERNEL(e4m3_f32_m16n8k16, 16, 8, 16, kE4M3, kE4M3, kF32)
MMA_KERNEL(e4m3_f16_m16n8k32, 16, 8, 32, kE4M3, kE4M3, kF16)
MMA_KERNEL(e5m2_f16_m16n8k16, 16, 8, 16, kE5M2, kE5M2, kF16)
