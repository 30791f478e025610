// Warp-level kernels for the JIT unit tests: shuffles, votes, match, redux, activemask, syncwarp.
// nvcc-arch: compute_80
#define FULL 0xffffffffu

extern "C" __global__ void shflDownSum(const int *in, int *out) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(FULL, v, o);
  if ((threadIdx.x & 31) == 0)
    out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}

extern "C" __global__ void shflXorAll(const int *in, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[t];
  for (int o = 1; o < 32; o <<= 1)
    v += __shfl_xor_sync(FULL, v, o);
  out[t] = v;
}

extern "C" __global__ void shflUpScan(const int *in, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int v = in[t];
  for (int o = 1; o < 32; o <<= 1) {
    int n = __shfl_up_sync(FULL, v, o);
    if (lane >= o)
      v += n;
  }
  out[t] = v;
}

extern "C" __global__ void shflIdxWidth8(const int *in, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = __shfl_sync(FULL, in[t], 3, 8) * 1000 + __shfl_down_sync(FULL, in[t], 5, 8);
}

extern "C" __global__ void votes(const int *in, unsigned *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int odd = in[t] & 1;
  unsigned ballot = __ballot_sync(FULL, odd);
  int any = __any_sync(FULL, in[t] > 90);
  int all = __all_sync(FULL, in[t] >= 0);
  out[t] = ballot ^ (unsigned(any) << 1) ^ (unsigned(all) << 2);
}

extern "C" __global__ void matchAny(const int *in, unsigned *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = __match_any_sync(FULL, in[t] % 4);
}

extern "C" __global__ void reduxOps(const int *in, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[t];
  out[3 * t] = __reduce_add_sync(FULL, v);
  out[3 * t + 1] = __reduce_min_sync(FULL, v);
  out[3 * t + 2] = (int)__reduce_or_sync(FULL, (unsigned)v);
}

extern "C" __global__ void divergentActiveMask(unsigned *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned m = 0;
  if (threadIdx.x % 3 == 0)
    m = __activemask();
  out[t] = m;
}

extern "C" __global__ void syncwarpExchange(const int *in, int *out) {
  __shared__ int s[256];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[t] * 2;
  __syncwarp();
  out[t] = s[threadIdx.x ^ 1];
}

// A block reduction: warp shuffles, then a block barrier, then the first warp finishes.
extern "C" __global__ void blockReduce(const int *in, int *out, int n) {
  __shared__ int partial[32];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = t < n ? in[t] : 0;
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(FULL, v, o);
  int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  if (lane == 0)
    partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x + 31) / 32 ? partial[lane] : 0;
    for (int o = 16; o > 0; o >>= 1)
      v += __shfl_down_sync(FULL, v, o);
    if (lane == 0)
      out[blockIdx.x] = v;
  }
}
