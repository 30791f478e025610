// Kernels with block-uniform loops, which get implicit barriers at their heads (each iteration
// runs as a thread loop), for the JIT unit tests.

// Per-thread strided sums through a pointer induction variable, after an early exit, then a
// barrier: out[b * n + t] = sum of in[b * n * k + j * n + t] for j < k, plus the neighbour's sum.
extern "C" __global__ void stridedSums(const int *in, int *out, int k, int live) {
  __shared__ int s[256];
  int t = threadIdx.x, n = blockDim.x;
  if (t >= live)
    return;
  const int *p = in + (size_t)blockIdx.x * n * k + t;
  int sum = 0;
  for (int j = 0; j < k; ++j)
    sum += p[j * n] * (j + 1);
  s[t] = sum;
  __syncthreads();
  out[blockIdx.x * n + t] = sum + s[(t + 1) % live];
}

// A naive matrix product without barriers: the bounds check sends some threads away before the
// uniform loop over k. C (m x p) = A (m x q) * B (q x p).
extern "C" __global__ void naiveMatMul(const int *A, const int *B, int *C, int m, int q, int p) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= p)
    return;
  int acc = 0;
  for (int k = 0; k < q; ++k)
    acc += A[row * q + k] * B[k * p + col];
  C[row * p + col] = acc;
}

// One thread of the block runs a long serial loop (the others exit): the loop's implicit
// barrier must not make every iteration wait for the whole block.
extern "C" __global__ void serialInOneThread(const int *in, int *out, int n) {
  if (threadIdx.x != 3)
    return;
  int acc = 0;
  for (int i = 0; i < n; ++i)
    acc = acc * 3 + in[i];
  out[blockIdx.x] = acc;
}

// Loops whose trip count differs between threads also get implicit barriers: the threads that
// leave early wait at the next barrier while the others go on. Thread t adds in[b * n + j] * j
// for j < (t * 7) % 11, then reads its neighbour's sum after __syncthreads.
extern "C" __global__ void varyingTripCounts(const int *in, int *out) {
  __shared__ int partial[128];
  unsigned t = threadIdx.x, n = blockDim.x;
  int acc = 0;
  for (int j = 0; j < int(t * 7 % 11); ++j)
    acc += in[blockIdx.x * n + j] * j;
  partial[t] = acc;
  __syncthreads();
  out[blockIdx.x * n + t] = partial[t] + partial[(t + 1) % n];
}

// A grid-stride loop whose last round only some threads take, with shared-memory atomics (the
// bench's histogram, 64 bins): counts must be exact.
extern "C" __global__ void gridStrideHistogram(const unsigned *words, unsigned n, unsigned *hist) {
  __shared__ unsigned bins[64];
  for (unsigned b = threadIdx.x; b < 64; b += blockDim.x)
    bins[b] = 0;
  __syncthreads();
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    unsigned w = words[i];
    atomicAdd(&bins[w & 63u], 1u);
    atomicAdd(&bins[(w >> 8) & 63u], 1u);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < 64; b += blockDim.x)
    atomicAdd(&hist[b], bins[b]);
}

// An unrolled strided loop (four loads 256 bytes apart in one loop block) whose trip count
// varies by thread, then a barrier: each load becomes a row across the threads.
extern "C" __global__ void unrolledStrided(const int *in, int *out, int rounds) {
  __shared__ int s[256];
  const int t = threadIdx.x;
  const int *p = in + blockIdx.x * 64 * 4 * rounds + t;
  const int my = rounds - t % 3;
  int sum = 0;
  for (int k = 0; k < my; ++k) {
    sum += p[0] * (4 * k + 1);
    sum ^= p[64];
    sum += p[128] * 3;
    sum -= p[192];
    p += 256;
  }
  s[t] = sum;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = sum + s[(t + 1) % blockDim.x];
}

// A double-buffered outer loop with one barrier at its top and an inner loop whose trip count
// varies by thread: a thread done with the inner loop reaches the top barrier while others are
// still inside it, and must wait there for them (regression: it used to be let through).
extern "C" __global__ void doubleBufferedRounds(int *out, int rounds) {
  __shared__ int s[2][64];
  const int t = threadIdx.x;
  int acc = 0;
  for (int r = 0; r < rounds; ++r) {
    int *buf = s[r & 1];
    buf[t] = acc + r * 1000 + t;
    __syncthreads();
    int sum = 0;
    const int trip = (t % 4) * 3 + 1;
    for (int k = 0; k < trip; ++k)
      sum += buf[(t + 7 * k) % 64];
    acc = sum & 0xffff;
  }
  out[blockIdx.x * 64 + t] = acc;
}
