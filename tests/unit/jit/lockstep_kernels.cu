// Warp-synchronous kernels that rely on the lanes of a converged warp running in lockstep
// (no __syncwarp between dependent volatile accesses), as CUDA code was written before Volta.
// Each block has 128 threads (four warps); in[] holds one value per thread.

// The reduction samples' last-warp unrolling over volatile shared memory.
__device__ void warpReduce(volatile int *s, int tid) {
  s[tid] += s[tid + 32];
  s[tid] += s[tid + 16];
  s[tid] += s[tid + 8];
  s[tid] += s[tid + 4];
  s[tid] += s[tid + 2];
  s[tid] += s[tid + 1];
}

extern "C" __global__ void lastWarpReduce(const int *in, int *out) {
  __shared__ int s[128];
  int tid = threadIdx.x;
  s[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  if (tid < 64)
    s[tid] += s[tid + 64];
  __syncthreads();
  if (tid < 32)
    warpReduce(s, tid);
  if (tid == 0)
    out[blockIdx.x] = s[0];
}

// An inclusive scan per warp over a volatile, zero-padded buffer (every lane adds in every step).
extern "C" __global__ void paddedWarpScan(const int *in, int *out) {
  __shared__ int buf[4 * 64];
  volatile int *s = buf;
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int idx = warp * 64 + 32 + lane;
  s[idx - 32] = 0;
  s[idx] = in[t];
  s[idx] += s[idx - 1];
  s[idx] += s[idx - 2];
  s[idx] += s[idx - 4];
  s[idx] += s[idx - 8];
  s[idx] += s[idx - 16];
  out[t] = s[idx];
}

// Halving steps guarded by the lane, written as a loop.
extern "C" __global__ void guardedLoopReduce(const int *in, int *out) {
  __shared__ int buf[128];
  volatile int *s = buf;
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, base = threadIdx.x & ~31;
  s[threadIdx.x] = in[t];
  for (int o = 16; o > 0; o >>= 1)
    if (lane < o)
      s[base + lane] += s[base + lane + o];
  out[t] = s[threadIdx.x];
}

// Every lane reads its right neighbour's value and then overwrites its own, in global memory.
extern "C" __global__ void rotateGlobal(const int *in, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  volatile int *g = out + (t - lane);
  g[lane] = in[t];
  int right = g[(lane + 1) & 31];
  g[lane] = right * 2 + lane;
}

// A reduction with plain shared memory and block barriers only: no lockstep needed, block mode
// must stay for kernels without volatile accesses.
extern "C" __global__ void plainReduce(const int *in, int *out) {
  __shared__ int s[128];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[t];
  __syncthreads();
  if (threadIdx.x < 64)
    s[threadIdx.x] += s[threadIdx.x + 64];
  __syncthreads();
  if (threadIdx.x == 0) {
    int sum = 0;
    for (int i = 0; i < 64; ++i)
      sum += s[i];
    out[blockIdx.x] = sum;
  }
}
