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

// One compare-exchange of a bitonic sort's step (k, j): the pair (i, i + j), ascending where bit k
// of i is clear. No synchronisation: the sorts below rely on lockstep between steps.
__device__ __forceinline__ void compareExchange(int *a, int i, int j, int k) {
  int x = a[i], y = a[i + j];
  if ((x > y) == ((i & k) == 0)) {
    a[i] = y;
    a[i + j] = x;
  }
}

// A bitonic sort of 64 values per warp in plain global memory, each lane doing one
// compare-exchange per step with no __syncwarp between the steps (CuPy's partition kernel sorts
// its heads this way). The warp vote puts the kernel in warp mode, as such kernels' votes do.
// out holds 64 values per warp (512 for the grid).
extern "C" __global__ void warpBitonicSort(const int *in, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int *a = out + (t - lane) * 2;
  a[lane] = in[t];
  a[lane + 32] = (in[t] * 7 + 3) % 101;
#pragma unroll 1
  for (int k = 2; k <= 64; k *= 2) {
#pragma unroll 1
    for (int j = k / 2; j > 0; j /= 2) {
      compareExchange(a, 2 * j * (lane / j) + lane % j, j, k);
    }
  }
  if (__any_sync(0xffffffffu, a[lane] > a[lane + 32])) // never once sorted
    a[lane] = -1;
}

// Neighbours' plain shared-memory values in a warp-mode kernel: every lane reads its right
// neighbour's slot, then all overwrite their own, repeated in a loop.
extern "C" __global__ void sharedRotateLoop(const int *in, int *out) {
  __shared__ int s[128];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, base = threadIdx.x & ~31;
  s[threadIdx.x] = in[t];
#pragma unroll 1
  for (int r = 0; r < 5; ++r) {
    int right = s[base + ((lane + 1) & 31)];
    s[threadIdx.x] = right + lane;
  }
  out[t] = s[threadIdx.x] + __popc(__ballot_sync(0xffffffffu, s[threadIdx.x] & 1));
}

// The same with 32 values per warp: 16 compare-exchanges per step in a loop over the pairs that
// only lanes 0-15 enter, so the other lanes wait where the loop ends (out: 32 values per warp).
extern "C" __global__ void halfWarpBitonicSort(const int *in, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int *a = out + (t - lane);
  a[lane] = (in[t] * 13 + 5) % 97;
#pragma unroll 1
  for (int k = 2; k <= 32; k *= 2)
#pragma unroll 1
    for (int j = k / 2; j > 0; j /= 2)
      for (int p = lane; p < 16; p += 32)
        compareExchange(a, 2 * j * (p / j) + p % j, j, k);
  out[t] = a[lane] + __popc(__activemask()) * 1000;
}

// The global rotation through non-cached accesses (st.global.wt, ld.global.cv) instead of
// volatile ones: a converged warp's lanes see each other's stores the same way.
extern "C" __global__ void rotateGlobalNonCached(const int *in, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int *g = out + (t - lane);
  __stwt(g + lane, in[t]);
  int right = __ldcv(g + ((lane + 1) & 31));
  __stwt(g + lane, right * 2 + lane);
}

// The warp sort without the vote: a kernel with neither warp-level instructions nor barriers
// whose lanes still exchange data through memory (CuPy's partition_merge_kernel is one).
extern "C" __global__ void blockBitonicSort(const int *in, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int *a = out + (t - lane) * 2;
  a[lane] = (in[t] * 11 + 7) % 103;
  a[lane + 32] = in[t];
#pragma unroll 1
  for (int k = 2; k <= 64; k *= 2) {
#pragma unroll 1
    for (int j = k / 2; j > 0; j /= 2) {
      compareExchange(a, 2 * j * (lane / j) + lane % j, j, k);
    }
  }
}

// Kernels whose threads touch only their own elements, or read from memory none of them write:
// no lockstep step, they keep block mode.
extern "C" __global__ void ownElementsInPlace(const int *in, int *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < 256; i += blockDim.x * gridDim.x)
    out[i] = out[i] * 3 + in[i];
}

extern "C" __global__ void ownElementsOfAView(const int *in, int *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < 200; i += blockDim.x * gridDim.x)
    out[i / 10 * 12 + i % 10] += in[i];
}

extern "C" __global__ void gatherFromInput(const int *in, int *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < 256; i += blockDim.x * gridDim.x)
    out[i] = in[in[i] % 256] + out[i];
}

// The same sort fully unrolled: every step's indices are fixed functions of the lane, each step
// with other ones, so the lanes meet at each other's elements.
extern "C" __global__ void unrolledBitonicSort(const int *in, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  int *a = out + (t - lane) * 2;
  a[lane] = (in[t] * 5 + 1) % 89;
  a[lane + 32] = (in[t] * 3 + 2) % 79;
#pragma unroll
  for (int k = 2; k <= 64; k *= 2) {
#pragma unroll
    for (int j = k / 2; j > 0; j /= 2) {
      compareExchange(a, 2 * j * (lane / j) + lane % j, j, k);
    }
  }
}

// Each lane reads its neighbour's slot of plain shared memory right after every lane wrote its own.
extern "C" __global__ void plainNeighbourShared(const int *in, int *out) {
  __shared__ int s[128];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[t];
  out[t] = s[(threadIdx.x & ~31) + ((threadIdx.x + 1) & 31)] * 2 + 1;
}

// The neighbour's slot named by a device function's result, passed back through .param memory.
__device__ __noinline__ int partnerOf(int lane) { return lane ^ 1; }

extern "C" __global__ void neighbourThroughCall(const int *in, int *out) {
  __shared__ int s[128];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = in[t];
  out[t] = s[(threadIdx.x & ~31) + partnerOf(threadIdx.x & 31)] * 3;
}
