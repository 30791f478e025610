// Tensor-core GEMM kernels of cucpu-tensor-gemm-bench: C (f32, row-major) = A (bf16, row-major
// n x n) * B (bf16, stored as B^T, row-major), as CUTLASS-style code writes it with cp.async,
// ldmatrix and mma.sync.m16n8k16, and as wmma code writes it. Regenerate the PTX with
//   nvcc -arch=compute_80 -ptx -o tensor_gemm.ptx tensor_gemm.cu
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

constexpr int BT = 64, KT = 32, PAD = 8;

// 64x64 tiles per block of 4 warps (32x32 each), K in steps of 32 through shared memory.
extern "C" __global__ void mmaGemm(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int n) {
  __shared__ __align__(16) __nv_bfloat16 as[BT][KT + PAD], bs[BT][KT + PAD];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int bm = blockIdx.y * BT, bn = blockIdx.x * BT;
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;
  float acc[2][4][4] = {};
  for (int k0 = 0; k0 < n; k0 += KT) {
    for (int chunk = tid; chunk < BT * KT / 8; chunk += blockDim.x) {
      const int row = chunk / (KT / 8), col = (chunk % (KT / 8)) * 8;
      const unsigned sa = unsigned(__cvta_generic_to_shared(&as[row][col]));
      const unsigned sb = unsigned(__cvta_generic_to_shared(&bs[row][col]));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa),
                   "l"(a + size_t(bm + row) * n + k0 + col));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sb),
                   "l"(b + size_t(bn + row) * n + k0 + col));
    }
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    for (int kk = 0; kk < KT; kk += 16) {
      unsigned fa[2][4], fb[4][2];
      for (int i = 0; i < 2; ++i) {
        const int m = lane / 8, r = lane % 8;
        const unsigned p = unsigned(
            __cvta_generic_to_shared(&as[wm + i * 16 + (m % 2) * 8 + r][kk + (m / 2) * 8]));
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(fa[i][0]), "=r"(fa[i][1]), "=r"(fa[i][2]), "=r"(fa[i][3])
                     : "r"(p));
      }
      for (int j = 0; j < 4; ++j) {
        const int m = (lane / 8) % 2, r = lane % 8;
        const unsigned p = unsigned(__cvta_generic_to_shared(&bs[wn + j * 8 + r][kk + m * 8]));
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                     : "=r"(fb[j][0]), "=r"(fb[j][1])
                     : "r"(p));
      }
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j)
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                       "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                       : "+f"(acc[i][j][0]), "+f"(acc[i][j][1]), "+f"(acc[i][j][2]),
                         "+f"(acc[i][j][3])
                       : "r"(fa[i][0]), "r"(fa[i][1]), "r"(fa[i][2]), "r"(fa[i][3]),
                         "r"(fb[j][0]), "r"(fb[j][1]));
    }
    __syncthreads();
  }
  const int g = lane / 4, t = lane % 4;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int e = 0; e < 4; ++e) {
        const int row = bm + wm + i * 16 + g + 8 * (e / 2), col = bn + wn + j * 8 + 2 * t + e % 2;
        c[size_t(row) * n + col] = acc[i][j][e];
      }
}

// One warp per 16x16 tile of C, fragments straight from global memory.
extern "C" __global__ void wmmaGemm(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int n) {
  const int warp = int(blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int tm = warp / (n / 16), tn = warp % (n / 16);
  if (tm >= n / 16)
    return;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < n; k += 16) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
    wmma::load_matrix_sync(fa, a + size_t(tm) * 16 * n + k, n);
    wmma::load_matrix_sync(fb, b + size_t(tn) * 16 * n + k, n);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(c + size_t(tm) * 16 * n + tn * 16, acc, n, wmma::mem_row_major);
}
