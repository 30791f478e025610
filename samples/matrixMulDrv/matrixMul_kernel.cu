// Device code for matrixMulDrv: C = A * B with 16x16 shared-memory tiles and __syncthreads().

#define BLOCK_SIZE 16

// A is hA x wA, B is wA x wB, C is hA x wB, all row-major; every dimension is a multiple of
// BLOCK_SIZE. The int between the pointers is deliberate: it forces 4 bytes of padding in the
// packed parameter buffer, which the host passes through CU_LAUNCH_PARAM_BUFFER_POINTER.
extern "C" __global__ void matrixMul(float *C, const float *A, int wA, const float *B, int wB) {
  __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];

  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int row = blockIdx.y * BLOCK_SIZE + ty;
  int col = blockIdx.x * BLOCK_SIZE + tx;

  float sum = 0.0f;
  for (int t = 0; t < wA; t += BLOCK_SIZE) {
    As[ty][tx] = A[row * wA + t + tx];
    Bs[ty][tx] = B[(t + ty) * wB + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) {
      sum += As[ty][k] * Bs[k][tx];
    }
    __syncthreads();
  }
  C[row * wB + col] = sum;
}
