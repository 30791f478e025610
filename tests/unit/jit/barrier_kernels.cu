// Barrier reductions for the JIT unit tests: __syncthreads_count / _and / _or, with early exits.
extern "C" __global__ void barrierReductions(const int *in, int *out) {
  int t = threadIdx.x;
  int v = in[blockIdx.x * blockDim.x + t];
  int count = __syncthreads_count(v > 50);
  int all = __syncthreads_and(v >= 0);
  int any = __syncthreads_or(v == 77);
  if (t == 0) {
    out[3 * blockIdx.x] = count;
    out[3 * blockIdx.x + 1] = all;
    out[3 * blockIdx.x + 2] = any;
  }
}

// Threads at or past `live` leave before any barrier; the others exchange values through shared
// memory across three barriers. `keep` (per thread) and `factor` (block-uniform, computed by a
// loop so it is not recomputable) are live across every barrier but written only before the
// first, so the middle regions must leave their saved values alone.
extern "C" __global__ void earlyExitExchange(const int *in, int *out, int live, int scale) {
  __shared__ int s[256];
  int t = threadIdx.x;
  int g = blockIdx.x * blockDim.x + t;
  if (t >= live) {
    out[g] = -1;
    return;
  }
  int keep = in[g] * 3;
  int factor = scale;
  for (int k = 0; k < live; k += 7)
    factor += k;
  s[t] = keep;
  __syncthreads();
  int a = s[(t + 1) % live];
  __syncthreads();
  s[t] = a + 1;
  __syncthreads();
  out[g] = s[(t + live - 1) % live] * factor + keep;
}

// Barriers in nested uniform loops and in a uniform branch: `rounds` butterfly-like exchanges,
// each step choosing add or xor by a uniform test of `mode`, and an extra reversal (with its own
// two barriers) only when mode == 5.
extern "C" __global__ void nestedLoopBarriers(const int *in, int *out, int rounds, int mode) {
  __shared__ int s[128];
  int t = threadIdx.x, n = blockDim.x;
  int v = in[blockIdx.x * n + t];
  for (int r = 0; r < rounds; ++r) {
    for (int step = 1; step < n; step *= 2) {
      s[t] = v;
      __syncthreads();
      if (mode & (1 << (r % 4)))
        v += s[(t + step) % n];
      else
        v ^= s[(t + n - step) % n];
      __syncthreads();
    }
    if (mode == 5) {
      s[t] = v;
      __syncthreads();
      v = s[n - 1 - t] * 2 + r;
      __syncthreads();
    }
  }
  out[blockIdx.x * n + t] = v;
}

// Pointers carried across barriers (strength-reduced p += blockDim.x): lane addresses that are
// consecutive (mode 0), permuted (1), swapped in pairs (2); the loads skip every fifth thread and
// the stores every third, so the vector accesses are masked.
extern "C" __global__ void carriedPointers(const int *in, int *out, int mode) {
  __shared__ int s[256];
  unsigned t = threadIdx.x, n = blockDim.x;
  unsigned src = mode == 0 ? t : mode == 1 ? (t * 37 + 11) % n : t ^ 1;
  const int *p = in + blockIdx.x * n * 4 + src;
  int *q = out + blockIdx.x * n * 4 + src;
  for (int k = 0; k < 4; ++k) {
    s[t] = t % 5 ? *p : -k;
    __syncthreads();
    if (t % 3)
      *q = s[(t + 1) % n] * 8 + k;
    __syncthreads();
    p += n;
    q += n;
  }
}

// A streaming output published to other blocks with a release store after a barrier.
extern "C" __global__ void publishAfterStreaming(const float *a, const float *b, float *c,
                                                 unsigned *flags, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
  __syncthreads();
  if (threadIdx.x == 0)
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(flags + blockIdx.x), "r"(1u)
                 : "memory");
}
