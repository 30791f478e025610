// Kernels with tricky barrier and loop structure, for the scheduling stress tests (Schedules.*).

// Barrier at the top of an outer loop; the inner trip count comes from global memory (some 0).
extern "C" __global__ void topBarrierDataTrips(const int *trips, int *out, int rounds) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  const int trip = trips[g];
  s[t] = t * 3 + blockIdx.x;
  for (int r = 0; r < rounds; ++r) {
    __syncthreads();
    int sum = r;
    for (int k = 0; k < trip; ++k)
      sum += s[(t + 3 * k) % n] ^ k;
    __syncthreads();
    s[t] = sum & 0xfffff;
  }
  out[g] = s[t];
}

// Double buffering with one barrier at the bottom of each round; varying inner trips (some 0).
extern "C" __global__ void bottomBarrierDoubleBuffer(const int *in, int *out, int rounds) {
  __shared__ int buf[2][256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  buf[0][t] = in[g];
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    const int *src = buf[r & 1];
    int sum = src[t];
    for (int k = 0; k < (t + r) % 5; ++k)
      sum += src[(t + k + 1) % n] * (k + 1);
    buf[(r + 1) & 1][t] = sum & 0xffff;
    __syncthreads();
  }
  out[g] = buf[rounds & 1][t];
}

// Triple buffering: each round reads the current and the previous buffer, writes the next.
extern "C" __global__ void tripleBuffered(const int *in, int *out, int rounds) {
  __shared__ int buf[3][256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  buf[0][t] = in[g];
  buf[2][t] = t;
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    const int *cur = buf[r % 3], *prev = buf[(r + 2) % 3];
    int sum = cur[t];
    for (int k = 0; k < (t * 7 + r) % 6; ++k)
      sum += cur[(t + k) % n] - prev[(t + 2 * k) % n];
    buf[(r + 1) % 3][t] = sum & 0xffff;
    __syncthreads();
  }
  out[g] = buf[rounds % 3][t];
}

// An endless loop left by a uniform break once a shared atomic counter reaches a limit.
extern "C" __global__ void breakOnSharedCounter(const int *in, int *out, int limit) {
  __shared__ int s[256];
  __shared__ int total;
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  if (t == 0)
    total = 0;
  s[t] = in[g];
  __syncthreads();
  int iter = 0, seen = 0, acc = 0;
  for (;;) {
    int sum = 0;
    for (int k = 0; k < (t + iter) % 4; ++k)
      sum += s[(t + k * 5) % n];
    atomicAdd(&total, t % 3 + 1);
    acc = (acc ^ sum) + iter;
    __syncthreads();
    seen = total;
    ++iter;
    if (seen >= limit)
      break;
    __syncthreads();
  }
  out[g] = acc + seen * 7 + iter * 100000;
}

// A uniform continue past a barrier, and thread-varying continue/break in the inner loop.
extern "C" __global__ void continueAroundBarriers(const int *in, int *out, int rounds, int skip) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  int v = in[g];
  for (int r = 0; r < rounds; ++r) {
    if (r % skip == 1) {
      __syncthreads();
      continue;
    }
    s[t] = v;
    __syncthreads();
    int sum = 0;
    for (int k = 0; k < 8; ++k) {
      if ((t + k + r) % 3 == 0)
        continue;
      if (sum > 2000)
        break;
      sum += s[(t + k) % n];
    }
    __syncthreads();
    v = (v + sum) % 10007;
  }
  out[g] = v;
}

// Threads at or past `live` return before a loop of barriers; the rest exchange among themselves.
extern "C" __global__ void returnBeforeLoop(const int *in, int *out, int live, int rounds) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  if (t >= live)
    return;
  int v = in[g];
  for (int r = 0; r < rounds; ++r) {
    s[t] = v;
    __syncthreads();
    int sum = 0;
    for (int k = 0; k < t % 4; ++k)
      sum += s[(t + k + 1) % live];
    __syncthreads();
    v = (v * 3 + sum) & 0x3fff;
  }
  out[g] = v;
}

// Each round 5 more threads return from inside the loop of barriers; the rest go on.
extern "C" __global__ void returnInsideBarrierLoop(const int *in, int *out, int rounds) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  int v = in[g];
  for (int r = 0; r < rounds; ++r) {
    const int live = n - r * 5;
    if (t >= live) {
      out[g] = v + 1000000;
      return;
    }
    s[t] = v;
    __syncthreads();
    int sum = 0;
    for (int k = 0; k < (t + r) % 3; ++k)
      sum += s[(t * 3 + k) % live];
    __syncthreads();
    v = (v + sum * (r + 1)) & 0xffff;
  }
  out[g] = v;
}

// Every fifth thread stores to shared memory and returns before the barriers the others pass.
extern "C" __global__ void returnBeforeBarrier(const int *in, int *out) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  s[t] = in[g] * 2 + 1;
  if (t % 5 == 2) {
    out[g] = -s[t];
    return;
  }
  __syncthreads();
  int sum = 0;
  for (int k = 0; k < t % 6; ++k)
    sum += s[(t + k) % n];
  __syncthreads();
  s[t] = sum;
  __syncthreads();
  out[g] = sum - s[(t + 1) % n];
}

// A pointer-chasing while loop over linked lists in global memory, between two barriers.
extern "C" __global__ void pointerChase(const int *next, const int *val, const int *head, int *out,
                                        int rounds) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t, total = gridDim.x * n;
  int acc = 0;
  for (int r = 0; r < rounds; ++r) {
    int sum = 0;
    for (int i = head[(g + r) % total]; i >= 0; i = next[i])
      sum += val[i] ^ r;
    s[t] = sum;
    __syncthreads();
    acc += s[(t + r) % n];
    __syncthreads();
  }
  out[g] = acc;
}

// Two nested loops with thread-varying trip counts inside an outer loop of barriers.
extern "C" __global__ void nestedVarying(const int *in, int *out, int rounds) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  s[t] = in[g];
  for (int r = 0; r < rounds; ++r) {
    __syncthreads();
    int sum = 0;
    for (int i = 0; i < (t + r) % 4; ++i)
      for (int j = 0; j < (t * i + r) % 5; ++j)
        sum += s[(t + i * 7 + j) % n] * (i + 1);
    __syncthreads();
    s[t] = (s[t] + sum) & 0xffff;
  }
  out[g] = s[t];
}

// A varying-trip loop with global loads in both branches of an if, then a barrier.
extern "C" __global__ void loadsInBothBranches(const int *a, const int *b, int *out, int len) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  const int *pa = a + blockIdx.x * len * n, *pb = b + blockIdx.x * len * n;
  int sum = 0;
  for (int k = 0; k < len - t % 4; ++k) {
    if ((k + t) & 1)
      sum += pa[k * n + t];
    else
      sum -= pb[k * n + (t * 3) % n] * 2;
  }
  s[t] = sum;
  __syncthreads();
  out[g] = sum + s[(t + 5) % n];
}

// Two unrolled loops of constant-stride loads with varying trips, around a barrier (n <= 64).
extern "C" __global__ void unrolledStrided8(const int *in, int *out, int rounds) {
  __shared__ int s[64];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  const int *p = in + blockIdx.x * 128 * rounds + t;
  int sum = 0;
#pragma unroll 8
  for (int k = 0; k < rounds - t % 5; ++k)
    sum += (p[k * 128] ^ k) - p[k * 128 + 64];
  s[t] = sum;
  __syncthreads();
  int sum2 = s[(t + 1) % n];
#pragma unroll 8
  for (int k = 0; k < rounds - t % 3; ++k)
    sum2 += p[k * 128 + 64] * (k + 1);
  out[g] = sum2 - sum;
}

// A shared histogram and total through shared atomics, rebuilt in every round of barriers.
extern "C" __global__ void sharedHistogramRounds(const int *in, int *out, int len, int rounds) {
  __shared__ int bins[16];
  __shared__ int total;
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  int acc = 0;
  for (int r = 0; r < rounds; ++r) {
    if (t < 16)
      bins[t] = 0;
    if (t == 0)
      total = 0;
    __syncthreads();
    for (int k = 0; k < len - (t + r) % 3; ++k) {
      const int v = in[(blockIdx.x * len + k) * n + (t + r) % n];
      atomicAdd(&bins[v & 15], 1);
      atomicAdd(&total, v);
    }
    __syncthreads();
    acc += bins[t % 16] * (r + 1) + (total & 0xff);
    __syncthreads();
  }
  out[g] = acc;
}

// A grid-stride loop (uniform per block) with a shared exchange and a varying inner loop.
extern "C" __global__ void gridStrideExchange(const int *in, int *out, int total) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x;
  for (int base = blockIdx.x * n; base < total; base += gridDim.x * n) {
    const int i = base + t;
    s[t] = i < total ? in[i] : 0;
    __syncthreads();
    if (i < total) {
      int sum = 0;
      for (int k = 0; k < i % 4; ++k)
        sum += s[(t + k + 1) % n];
      out[i] = sum - s[t];
    }
    __syncthreads();
  }
}

// A 2D block (at most 16x16) exchanging through a shared tile with varying inner loops.
extern "C" __global__ void tile2D(const int *in, int *out, int rounds) {
  __shared__ int tile[16][17];
  const int x = threadIdx.x, y = threadIdx.y, bx = blockDim.x, by = blockDim.y;
  const int g = (blockIdx.x * by + y) * bx + x;
  int v = in[g];
  for (int r = 0; r < rounds; ++r) {
    tile[y][x] = v;
    __syncthreads();
    int sum = 0;
    for (int k = 0; k < (x + y + r) % 4; ++k)
      sum += tile[(y + k) % by][(x * 3 + k) % bx];
    __syncthreads();
    v = (v + sum) & 0xffff;
  }
  out[g] = v;
}

// A tree reduction over any block size, after a varying per-thread loop.
extern "C" __global__ void oddTreeReduction(const int *in, int *out) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  int v = 0;
  for (int k = 0; k < t % 5; ++k)
    v += in[blockIdx.x * n + (t + k) % n];
  s[t] = v;
  __syncthreads();
  for (int stride = 1; stride < n; stride *= 2) {
    if (t % (2 * stride) == 0 && t + stride < n)
      s[t] += s[t + stride];
    __syncthreads();
  }
  out[g] = s[0] * (t + 1) - s[t];
}

// Several values live across different barriers of a loop, with a varying loop between them.
extern "C" __global__ void manyLiveAcrossBarriers(const int *in, int *out, int rounds) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  int a = in[g], b = a * 3 + 1, c = t, d = 0;
  for (int r = 0; r < rounds; ++r) {
    s[t] = a;
    __syncthreads();
    b = (b + s[(t + 1) % n]) & 0xfffff;
    for (int k = 0; k < (t + r) % 3; ++k)
      c = (c + (s[(t + k * 2) % n] ^ b)) & 0xfffff;
    __syncthreads();
    s[t] = b ^ c;
    __syncthreads();
    d = (d + s[(t + 2) % n]) & 0xfffff;
    a = (s[n - 1 - t] + c) & 0xffff;
    __syncthreads();
  }
  out[g] = a + b + c + d;
}

// A varying loop, then a uniform inner loop with barriers inside, in an outer loop.
extern "C" __global__ void uniformBarrierLoopInside(const int *in, int *out, int rounds) {
  __shared__ int s[256];
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  s[t] = in[g];
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    int sum = 0;
    for (int k = 0; k < (t * 5 + r) % 7; ++k)
      sum += s[(t + k) % n];
    __syncthreads();
    s[t] = sum & 0xffff;
    __syncthreads();
    for (int j = 1; j < 4; ++j) {
      const int v = s[(t + j) % n];
      __syncthreads();
      s[t] = (s[t] + v) & 0xffff;
      __syncthreads();
    }
  }
  out[g] = s[t];
}

// A do-while loop of barriers that runs until a shared count of busy threads is 0 (at most 20).
extern "C" __global__ void untilSettled(const int *in, int *out) {
  __shared__ int s[256];
  __shared__ int busy;
  const int n = blockDim.x, t = threadIdx.x, g = blockIdx.x * n + t;
  int v = in[g], rounds = 0;
  bool again;
  do {
    if (t == 0)
      busy = 0;
    s[t] = v;
    __syncthreads();
    int sum = 0;
    for (int k = 0; k < v % 4; ++k)
      sum += s[(t + k + 1) % n] & 7;
    v = v / 2 + sum;
    if (v > 30)
      atomicAdd(&busy, 1);
    ++rounds;
    __syncthreads();
    again = busy != 0 && rounds < 20;
    __syncthreads();
  } while (again);
  out[g] = v * 100 + rounds;
}
