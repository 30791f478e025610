// Bench kernel block tree reduction: each 256-thread block sums 256 * 512 floats into one partial.
#define REDUCE_THREADS 256
#define REDUCE_PER_THREAD 512

// Thread t of block b adds in[b * 256 * 512 + k * 256 + t] for k < 512 (coalesced), then the block
// folds its 256 sums in shared memory, halving the active threads between barriers.
extern "C" __global__ void reduceBlocks(const float *in, float *partial) {
  __shared__ float sdata[REDUCE_THREADS];
  unsigned int tid = threadIdx.x;
  const float *p = in + (size_t)blockIdx.x * REDUCE_THREADS * REDUCE_PER_THREAD + tid;
  float sum = 0.0f;
  for (int k = 0; k < REDUCE_PER_THREAD; ++k) {
    sum += p[k * REDUCE_THREADS];
  }
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned int s = REDUCE_THREADS / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) {
    partial[blockIdx.x] = sdata[0];
  }
}
