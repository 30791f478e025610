// The bench kernels in OpenCL C for PoCL: the same algorithms and work-group shapes as bench/cuda/.

__kernel void vectorAdd(__global const float *a, __global const float *b, __global float *c, int n) {
  int i = get_global_id(0);
  if (i < n) {
    c[i] = a[i] + b[i];
  }
}

__kernel void saxpy(float alpha, __global const float *x, __global float *y, int n) {
  int i = get_global_id(0);
  if (i < n) {
    y[i] = alpha * x[i] + y[i];
  }
}

#define REDUCE_THREADS 256
#define REDUCE_PER_THREAD 512

__kernel void reduceBlocks(__global const float *in, __global float *partial) {
  __local float sdata[REDUCE_THREADS];
  unsigned int tid = get_local_id(0);
  __global const float *p = in + (size_t)get_group_id(0) * REDUCE_THREADS * REDUCE_PER_THREAD + tid;
  float sum = 0.0f;
  for (int k = 0; k < REDUCE_PER_THREAD; ++k) {
    sum += p[k * REDUCE_THREADS];
  }
  sdata[tid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (unsigned int s = REDUCE_THREADS / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] += sdata[tid + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0) {
    partial[get_group_id(0)] = sdata[0];
  }
}

#define TILE 16

__kernel void sgemm(__global const float *A, __global const float *B, __global float *C, int n) {
  __local float As[TILE][TILE];
  __local float Bs[TILE][TILE];
  int tx = get_local_id(0);
  int ty = get_local_id(1);
  int row = get_group_id(1) * TILE + ty;
  int col = get_group_id(0) * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; ++k) {
      acc += As[ty][k] * Bs[k][tx];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[row * n + col] = acc;
}

#define BINS 256

__kernel void histogram256(__global const unsigned int *words, unsigned int nwords,
                           __global unsigned int *hist) {
  __local unsigned int local_bins[BINS];
  for (unsigned int b = get_local_id(0); b < BINS; b += get_local_size(0)) {
    local_bins[b] = 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (unsigned int i = get_global_id(0); i < nwords; i += get_global_size(0)) {
    unsigned int w = words[i];
    atomic_inc(&local_bins[w & 0xffu]);
    atomic_inc(&local_bins[(w >> 8) & 0xffu]);
    atomic_inc(&local_bins[(w >> 16) & 0xffu]);
    atomic_inc(&local_bins[w >> 24]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (unsigned int b = get_local_id(0); b < BINS; b += get_local_size(0)) {
    atomic_add(&hist[b], local_bins[b]);
  }
}

float cnd(float d) {
  const float A1 = 0.31938153f;
  const float A2 = -0.356563782f;
  const float A3 = 1.781477937f;
  const float A4 = -1.821255978f;
  const float A5 = 1.330274429f;
  const float RSQRT2PI = 0.39894228040143267794f;
  float K = 1.0f / (1.0f + 0.2316419f * fabs(d));
  float c = RSQRT2PI * exp(-0.5f * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  return d > 0.0f ? 1.0f - c : c;
}

__kernel void blackScholes(__global float *call, __global float *put, __global const float *price,
                           __global const float *strike, __global const float *years,
                           float riskfree, float volatility, int n) {
  int i = get_global_id(0);
  if (i < n) {
    float S = price[i];
    float X = strike[i];
    float T = years[i];
    float sqrtT = sqrt(T);
    float d1 = (log(S / X) + (riskfree + 0.5f * volatility * volatility) * T) / (volatility * sqrtT);
    float d2 = d1 - volatility * sqrtT;
    float cndD1 = cnd(d1);
    float cndD2 = cnd(d2);
    float expRT = exp(-riskfree * T);
    call[i] = S * cndD1 - X * expRT * cndD2;
    put[i] = X * expRT * (1.0f - cndD2) - S * (1.0f - cndD1);
  }
}

__kernel void stencil5(__global const float *in, __global float *out, int w, int h, float center,
                       float neighbour) {
  int x = get_global_id(0);
  int y = get_global_id(1);
  if (x >= w || y >= h) {
    return;
  }
  int i = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    out[i] = in[i];
  } else {
    out[i] = center * in[i] + neighbour * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
  }
}

__kernel void empty(void) {}
