// Kernels for the JIT unit tests: vector add, tiled matrix multiply, shared-memory tree reduction.
extern "C" __global__ void VecAdd_kernel(const float *A, const float *B, float *C, int N) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}
#define BS 16
extern "C" __global__ void matrixMul(float *C, const float *A, const float *B, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BS * by, aEnd = aBegin + wA - 1, aStep = BS;
  int bBegin = BS * bx, bStep = BS * wB;
  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    __shared__ float As[BS][BS];
    __shared__ float Bs[BS][BS];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BS; ++k) Csub += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  int c = wB * BS * by + BS * bx;
  C[c + wB * ty + tx] = Csub;
}
extern "C" __global__ void reduce(const float *in, float *out, unsigned n) {
  extern __shared__ float sdata[];
  unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
  float s = 0;
  if (i < n) s = in[i];
  if (i + blockDim.x < n) s += in[i + blockDim.x];
  sdata[tid] = s;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (tid < k) sdata[tid] += sdata[tid + k];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// Records every thread's block index: out[linear block][thread] = ctaid.x | ctaid.y << 10 |
// ctaid.z << 20.
extern "C" __global__ void blockIds(unsigned *out) {
  unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned t = threadIdx.x + blockDim.x * threadIdx.y;
  out[b * blockDim.x * blockDim.y + t] = blockIdx.x | blockIdx.y << 10 | blockIdx.z << 20;
}
