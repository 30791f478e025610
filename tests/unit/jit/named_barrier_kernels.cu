// Named barriers with thread counts for the JIT unit tests: warp 0 produces into a shared buffer,
// warp 1 consumes, synchronised by barrier 1 ("full") and barrier 2 ("empty"); warps 2 and up
// (if any) wait at a full block barrier at the end.
extern "C" __global__ void pipeline(const int *in, int *out, int rounds) {
  __shared__ int buf[32];
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (warp == 0) {
    for (int r = 0; r < rounds; ++r) {
      if (r > 0)
        asm volatile("bar.sync 2, 64;" ::: "memory");
      buf[lane] = in[(blockIdx.x * rounds + r) * 32 + lane] * 2;
      asm volatile("bar.arrive 1, 64;" ::: "memory");
    }
  } else if (warp == 1) {
    int acc = 0;
    for (int r = 0; r < rounds; ++r) {
      asm volatile("bar.sync 1, 64;" ::: "memory");
      acc += buf[(lane + r) & 31] * (r + 1);
      if (r + 1 < rounds)
        asm volatile("bar.arrive 2, 64;" ::: "memory");
    }
    out[blockIdx.x * 32 + lane] = acc;
  }
  __syncthreads();
  if (warp >= 2)
    out[gridDim.x * 32 + blockIdx.x * (blockDim.x - 64) + threadIdx.x - 64] = buf[lane];
}
