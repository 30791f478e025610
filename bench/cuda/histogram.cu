// Bench kernel 256-bin histogram of bytes: per-block shared-memory atomics, merged into global bins.
#define BINS 256

// words holds the input as 32-bit words (4 bytes each); a grid-stride loop covers nwords. hist
// must be zeroed before the launch.
extern "C" __global__ void histogram256(const unsigned int *words, unsigned int nwords,
                                        unsigned int *hist) {
  __shared__ unsigned int local[BINS];
  for (unsigned int b = threadIdx.x; b < BINS; b += blockDim.x) {
    local[b] = 0;
  }
  __syncthreads();
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords;
       i += blockDim.x * gridDim.x) {
    unsigned int w = words[i];
    atomicAdd(&local[w & 0xffu], 1u);
    atomicAdd(&local[(w >> 8) & 0xffu], 1u);
    atomicAdd(&local[(w >> 16) & 0xffu], 1u);
    atomicAdd(&local[w >> 24], 1u);
  }
  __syncthreads();
  for (unsigned int b = threadIdx.x; b < BINS; b += blockDim.x) {
    atomicAdd(&hist[b], local[b]);
  }
}
