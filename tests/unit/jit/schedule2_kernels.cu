// Second batch of scheduling stress kernels (Schedules2.*): uniform values, deep nests, exits,
// slabs.

// A uniform value updated after a varying loop and another defined after it, used past barriers.
extern "C" __global__ void uniformAfterVaryingLoop(const int *in, int *out, int rounds, int seed) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  int u = blockIdx.x + seed;
  s[t] = in[g];
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    int sum = 0;
    for (int k = 0; k < (t + r) % 4; ++k)
      sum += s[(t + k + 1) % n];
    u = (u * 3 + r) & 0xffff;
    const int w = (u ^ seed) + r * 11;
    __syncthreads();
    s[t] = (sum + w) & 0xffff;
    __syncthreads();
  }
  out[g] = s[t] + u;
}

// A uniform value updated in both branches of a uniform if, each branch with a varying loop.
extern "C" __global__ void uniformBothBranches(const int *in, int *out, int rounds, int mode) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  int u = mode + blockIdx.x;
  s[t] = in[g];
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    int sum = 0;
    if ((r + mode) % 3 == 0) {
      for (int k = 0; k < t % 3; ++k)
        sum += s[(t + k) % n];
      u = u * 5 + 1;
    } else {
      u = u + r * 7;
      for (int k = 0; k < (t + r) % 5; ++k)
        sum -= s[(t * 2 + k) % n];
      u ^= 3;
    }
    u &= 0xfffff;
    __syncthreads();
    s[t] = (sum + u) & 0xffff;
    __syncthreads();
  }
  out[g] = s[t] * 3 + u;
}

// Three nested loops with varying trip counts inside an outer loop with a barrier at its top.
extern "C" __global__ void threeDeepVarying(const int *in, int *out, int rounds) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  s[t] = in[g];
  for (int r = 0; r < rounds; ++r) {
    __syncthreads();
    int sum = r;
    for (int i = 0; i < (t + r) % 3 + 1; ++i)
      for (int j = 0; j < (t + i) % 3; ++j)
        for (int k = 0; k < (t * j + i + r) % 4; ++k)
          sum += s[(t + i * 5 + j * 3 + k) % n] ^ (i + j + k);
    __syncthreads();
    s[t] = sum & 0xffff;
  }
  out[g] = s[t];
}

// Two varying loops back to back before a barrier, the second's trips from the first's result.
extern "C" __global__ void twoVaryingLoops(const int *in, int *out, int rounds) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  s[t] = in[g];
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    int a = 0;
    for (int k = 0; k < (t + r) % 5; ++k)
      a += s[(t + k) % n];
    int b = a & 7;
    for (int k = 0; k < (a & 3) + (t & 1); ++k)
      b += s[(t + 3 * k + 1) % n] ^ a;
    __syncthreads();
    s[t] = (a + b * 3) & 0xffff;
    __syncthreads();
  }
  out[g] = s[t];
}

// A varying loop inside a uniform loop without barriers, inside an outer loop with barriers.
extern "C" __global__ void varyingInUniformLoop(const int *in, int *out, int rounds, int inner) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  s[t] = in[g];
  __syncthreads();
  int acc = 0;
  for (int r = 0; r < rounds; ++r) {
    int sum = 0;
    for (int j = 0; j < inner; ++j) {
      for (int k = 0; k < (t + j + r) % 4; ++k)
        sum += s[(t + j * 3 + k) % n] * (k + 1);
      sum += j * (r + 1);
    }
    const int mid = inner * r + blockIdx.x;
    __syncthreads();
    s[t] = (sum + mid) & 0xffff;
    acc = (acc + sum) & 0xfffff;
    __syncthreads();
  }
  out[g] = s[t] + acc;
}

// A loop reached only by threads below `some`; values from before it used by all after barriers.
extern "C" __global__ void loopForSomeThreads(const int *in, int *out, int some, int extra) {
  __shared__ int s[256], s2[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  s[t] = in[g];
  const int a = in[g] * 3 + 1;
  const int u = blockIdx.x * 7 + some;
  __syncthreads();
  int sum = a;
  if (t < some) {
    for (int k = 0; k < t % 6 + extra; ++k)
      sum += s[(t + k) % n] ^ a;
  }
  const int v = u * 2 + extra;
  __syncthreads();
  s2[t] = sum & 0xfffff;
  __syncthreads();
  out[g] = s2[(t + 1) % n] + a + u + v;
}

// Threads return from inside a varying loop in some round; the others go on through barriers.
extern "C" __global__ void returnInsideVaryingLoop(const int *in, int *out, int rounds) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  int v = in[g];
  s[t] = v;
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    int sum = 0;
    for (int k = 0; k < (t + r) % 6; ++k) {
      sum += s[(t + k) % n];
      if (k == 3 && (t + r) % 7 == 0) {
        out[g] = -(sum & 0xffff) - 1;
        return;
      }
    }
    __syncthreads();
    v = (v + sum) & 0xffff;
    s[t] = v;
    __syncthreads();
  }
  out[g] = v;
}

// Unroll-4 strided loads of two bases, varying trips, in an outer loop with barriers (n <= 64).
extern "C" __global__ void unrolledTwoBases(const int *a, const int *b, int *out, int len,
                                            int rounds) {
  __shared__ int s[64];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  const int *pa = a + blockIdx.x * 64 * len + t, *pb = b + blockIdx.x * 64 * len + t;
  int acc = 0;
  for (int r = 0; r < rounds; ++r) {
    int sa = 0, sb = 0;
#pragma unroll 4
    for (int k = 0; k < len - (t + r) % 4; ++k) {
      sa += pa[k * 64] ^ r;
      sb += pb[k * 64] * (k + 1);
    }
    s[t] = sa - sb;
    __syncthreads();
    acc = (acc + s[(t + r + 1) % n] + sa) & 0xfffff;
    __syncthreads();
  }
  out[g] = acc;
}

// Unroll-16 and unroll-8 strided loops with varying trips, the first sum used past two barriers.
extern "C" __global__ void unrolled16(const int *in, int *out, int len) {
  __shared__ int s[64];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  const int *p = in + blockIdx.x * 64 * len + t;
  int sum = 0;
#pragma unroll 16
  for (int k = 0; k < len - t % 7; ++k)
    sum += p[k * 64];
  s[t] = sum;
  __syncthreads();
  int sum2 = s[(t + 3) % n];
#pragma unroll 8
  for (int k = 0; k < len - (t % 3) * 5; ++k)
    sum2 += p[k * 64] ^ k;
  __syncthreads();
  s[t] = sum2;
  __syncthreads();
  out[g] = sum * 2 + s[(t + 5) % n] - sum2;
}

// Four explicit partial sums of strided loads (varying trips), used after different barriers.
extern "C" __global__ void partialSums(const int *in, int *out, int len) {
  __shared__ int s[64];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  const int *p = in + blockIdx.x * 64 * len + t;
  const int m = len - t % 9;
  int p0 = 0, p1 = 0, p2 = 0, p3 = 0, k = 0;
  for (; k + 4 <= m; k += 4) {
    p0 += p[k * 64];
    p1 += p[k * 64 + 64];
    p2 += p[k * 64 + 128];
    p3 += p[k * 64 + 192];
  }
  for (; k < m; ++k)
    p0 += p[k * 64] * 2;
  s[t] = p0;
  __syncthreads();
  const int x = s[(t + 1) % n] + p1;
  __syncthreads();
  s[t] = p2 ^ x;
  __syncthreads();
  out[g] = s[(t + 2) % n] + p3 * 3 + x;
}

// Varying loops writing shared slots and shared atomics (add, max), all read after a barrier.
extern "C" __global__ void sharedWritesAndAtomics(const int *in, int *out, int rounds) {
  __shared__ int s[1024];
  __shared__ int bins[8];
  __shared__ int mx;
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  int v = in[g];
  for (int r = 0; r < rounds; ++r) {
    if (t < 8)
      bins[t] = 0;
    if (t == 0)
      mx = -1;
    __syncthreads();
    int k = 0;
    for (; k < (t + r) % 4 + 1; ++k)
      s[t * 4 + k] = v ^ k;
    for (; k < 4; ++k)
      s[t * 4 + k] = -k;
    for (int j = 0; j < (v + r) % 5; ++j) {
      atomicAdd(&bins[(t + j) & 7], j + 1);
      atomicMax(&mx, v * 4 + j);
    }
    __syncthreads();
    int sum = 0;
    for (int j = 0; j < 4; ++j)
      sum += s[((t + 1) % n) * 4 + j];
    v = (sum + bins[t & 7] * 3 + mx) & 0xffff;
    __syncthreads();
  }
  out[g] = v;
}

// Eight values, each defined before a different barrier and used two or three barriers later.
extern "C" __global__ void eightValuesAcrossBarriers(const int *in, int *out) {
  __shared__ int buf[2][256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  buf[0][t] = in[g];
  __syncthreads();
  const int v0 = buf[0][(t + 1) % n] + t;
  buf[1][t] = v0 ^ 5;
  __syncthreads();
  int v1 = buf[1][(t + 2) % n] * 3;
  for (int k = 0; k < t % 3; ++k)
    v1 += buf[1][(t + k) % n];
  buf[0][t] = v1 & 0xffff;
  __syncthreads();
  const int v2 = buf[0][(t + 3) % n] ^ v0;
  buf[1][t] = v2;
  __syncthreads();
  int v3 = buf[1][(t + 5) % n] + v1;
  for (int k = 0; k < (t + 1) % 4; ++k)
    v3 ^= buf[1][(t + k * 2) % n] + k;
  buf[0][t] = (v3 - v0) & 0xffff;
  __syncthreads();
  const int v4 = buf[0][(t + 7) % n] + v2 * 2;
  buf[1][t] = v4 & 0xffff;
  __syncthreads();
  int v5 = buf[1][n - 1 - t] ^ v3;
  for (int k = 0; k < t % 5; ++k)
    v5 += buf[1][(t + k) % n] & 15;
  buf[0][t] = v5 & 0xffff;
  __syncthreads();
  const int v6 = buf[0][(t + 11) % n] + v4 * 3;
  buf[1][t] = (v6 ^ v3) & 0xffff;
  __syncthreads();
  const int v7 = buf[1][(t + 13) % n] - v5;
  buf[0][t] = (v7 + v4) & 0xffff;
  __syncthreads();
  out[g] = buf[0][(t + 17) % n] + v6 + v7 * 2 + v5;
}

// A while loop whose condition reads a shared counter written before the last barrier.
extern "C" __global__ void whileSharedCondition(const int *in, int *out, int limit) {
  __shared__ int s[256];
  __shared__ int ctl;
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  if (t == 0)
    ctl = limit + blockIdx.x;
  s[t] = in[g];
  __syncthreads();
  int it = 0, acc = 0;
  while (ctl > 0) {
    for (int k = 0; k < (t + it) % 3; ++k)
      acc += s[(t + k) % n] ^ it;
    __syncthreads();
    if (t == 0)
      ctl -= it + 1;
    s[t] = (acc + it) & 0xffff;
    ++it;
    __syncthreads();
  }
  out[g] = acc + it * 1000;
}

// A loop of barriers whose trip count is read from shared memory (uniform only in practice).
extern "C" __global__ void sharedTripCount(const int *in, int *out, int base) {
  __shared__ int s[256];
  __shared__ int trip;
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  if (t == 0)
    trip = base + blockIdx.x % 3;
  s[t] = in[g];
  __syncthreads();
  const int m = trip;
  int v = 0;
  for (int j = 0; j < m; ++j) {
    int sum = 0;
    for (int k = 0; k < (t + j) % 4; ++k)
      sum += s[(t + k * 3) % n];
    v = (v * 2 + sum + j) & 0xffff;
    __syncthreads();
    s[t] = v;
    __syncthreads();
  }
  out[g] = v + m;
}

// Values written only inside a varying loop from uniform operands, used after later barriers.
extern "C" __global__ void definedInsideVaryingLoop(const int *in, int *out, int p, int rounds) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  s[t] = in[g];
  __syncthreads();
  int w = p, lastR = -1;
  for (int r = 0; r < rounds; ++r) {
    int sum = 0;
    for (int k = 0; k < (t + r) % 3; ++k) {
      w = p * 2 + blockIdx.x + r;
      lastR = r;
      sum += s[(t + k) % n];
    }
    __syncthreads();
    s[t] = (sum + w) & 0xffff;
    __syncthreads();
  }
  out[g] = s[t] + w * 3 + lastR;
}

// Barriers only in odd rounds (a uniform if), after a varying loop in every round.
extern "C" __global__ void barriersInOddRounds(const int *in, int *out, int rounds) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  s[t] = in[g];
  __syncthreads();
  int v = 0;
  for (int r = 0; r < rounds; ++r) {
    int sum = 0;
    for (int k = 0; k < (t + r) % 5; ++k)
      sum += s[(t + 2 * k + 1) % n];
    if (r & 1) {
      __syncthreads();
      s[t] = (sum + v) & 0xffff;
      __syncthreads();
    } else {
      v = (v + sum) & 0xffff;
    }
  }
  out[g] = s[t] + v;
}

// A 2D block (at most 16x16) with a varying loop and per-row shared atomics in rounds.
extern "C" __global__ void block2DRows(const int *in, int *out, int rounds) {
  __shared__ int tile[16][17];
  __shared__ int rowSum[16];
  const int x = threadIdx.x, y = threadIdx.y, bx = blockDim.x, by = blockDim.y;
  const int g = (blockIdx.x * by + y) * bx + x;
  int v = in[g];
  for (int r = 0; r < rounds; ++r) {
    if (x == 0)
      rowSum[y] = 0;
    tile[y][x] = v;
    __syncthreads();
    int sum = 0;
    for (int k = 0; k < (x * 2 + y + r) % 5; ++k)
      sum += tile[(y + k) % by][(x + k * 2) % bx];
    atomicAdd(&rowSum[(y + r) % by], sum & 0xff);
    __syncthreads();
    v = (v + sum + rowSum[y]) & 0xffff;
    __syncthreads();
  }
  out[g] = v;
}

// A 2D block where threads of odd rows return from inside a varying loop before the barriers.
extern "C" __global__ void block2DReturns(const int *in, int *out, int rounds) {
  __shared__ int tile[16][17];
  const int x = threadIdx.x, y = threadIdx.y, bx = blockDim.x, by = blockDim.y;
  const int g = (blockIdx.x * by + y) * bx + x;
  int v = in[g];
  tile[y][x] = v;
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    int sum = 0;
    for (int k = 0; k < (x + r) % 4; ++k) {
      sum += tile[(y + k) % by][(x + 1) % bx];
      if ((y & 1) && k == r % 3) {
        out[g] = sum + 100000;
        return;
      }
    }
    __syncthreads();
    v = (v + sum) & 0xffff;
    tile[y][x] = v;
    __syncthreads();
  }
  out[g] = v;
}

// Values written under a varying if (no loop) from uniform operands, used after later barriers.
extern "C" __global__ void definedUnderVaryingIf(const int *in, int *out, int p, int rounds) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  s[t] = in[g];
  __syncthreads();
  int w = p, lastR = -1;
  for (int r = 0; r < rounds; ++r) {
    int sum = 0;
    if ((t + r) % 3 != 0) {
      w = p * 2 + blockIdx.x + r;
      lastR = r;
      sum += s[(t + 1) % n];
    }
    __syncthreads();
    s[t] = (sum + w) & 0xffff;
    __syncthreads();
  }
  out[g] = s[t] + w * 3 + lastR;
}

// As definedUnderVaryingIf, but the varying if joins before a shared atomic, not at the barrier.
extern "C" __global__ void definedUnderVaryingIfJoin(const int *in, int *out, int p, int rounds) {
  __shared__ int s[256];
  __shared__ int count;
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  s[t] = in[g];
  if (t == 0)
    count = 0;
  __syncthreads();
  int w = p, lastR = -1;
  for (int r = 0; r < rounds; ++r) {
    int sum = 0;
    if ((t + r) % 3 != 0) {
      w = p * 2 + blockIdx.x + r;
      lastR = r;
      sum += s[(t + 1) % n];
    }
    atomicAdd(&count, 1);
    __syncthreads();
    s[t] = (sum + w) & 0xffff;
    __syncthreads();
  }
  out[g] = s[t] + w * 3 + lastR + count;
}

// The shape of NVIDIA's eigenvalues sample (bisectKernelLarge_MultIntervals): a `while (true)`
// loop left only when a value thread 0 publishes in shared memory says so, and inside it a value
// set under a thread-dependent branch and used after later barriers. Its loop exit is a varying
// branch to the kernel's tail; `flag` was once taken for block-uniform there.
extern "C" __global__ void untilSharedFlag(const int *in, int *out, int rounds) {
  __shared__ int s[256], hits[256];
  __shared__ int stop;
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  int v = in[g], flag = 0, r = 0;
  hits[t] = 0;
  if (t == 0)
    stop = 0;
  __syncthreads();
  while (true) {
    if ((v + r) % 3 == 0) {
      flag = r + 1;
      hits[t] += v;
    } else {
      flag = 0;
      out[g] = r;
    }
    s[t] = v;
    __syncthreads();
    if (t == 0)
      stop = ++r >= rounds + blockIdx.x % 2;
    else
      ++r;
    __syncthreads();
    if (stop)
      break;
    v = flag ? s[(t + 1) % n] + v : v - s[n - 1 - t];
    v &= 0xffff;
    __syncthreads();
  }
  out[g] = v * 4 + flag * 100000 + hits[t] * 1000;
}
