// Device code for reductionDrv: per-block shared-memory tree sum of n floats.

// Each block writes one partial sum to out[blockIdx.x]. blockDim.x must be a power of two and
// the launch must provide blockDim.x * sizeof(float) bytes of dynamic shared memory. A grid-stride
// loop lets any number of blocks cover any n; each step adds two elements a block apart.
extern "C" __global__ void reduceSum(const float *in, float *out, unsigned int n) {
  extern __shared__ float sdata[];

  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + tid;
  unsigned int gridStride = blockDim.x * 2 * gridDim.x;

  float sum = 0.0f;
  while (i < n) {
    sum += in[i];
    if (i + blockDim.x < n) {
      sum += in[i + blockDim.x];
    }
    i += gridStride;
  }
  sdata[tid] = sum;
  __syncthreads();

  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }

  if (tid == 0) {
    out[blockIdx.x] = sdata[0];
  }
}
