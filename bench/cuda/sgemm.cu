// Bench kernel tiled SGEMM: C = A * B for n x n row-major matrices, 16 x 16 shared-memory tiles.
#define TILE 16

// Block (TILE, TILE) computes one TILE x TILE tile of C; n must be a multiple of TILE.
extern "C" __global__ void sgemm(const float *A, const float *B, float *C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) {
      acc += As[ty][k] * Bs[k][tx];
    }
    __syncthreads();
  }
  C[row * n + col] = acc;
}
