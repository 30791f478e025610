// Kernels for the JIT unit tests that call non-inlined device functions.
__device__ __noinline__ int scaleAdd(int a, int b, int k) { return a * k + b; }

__device__ __noinline__ float blockSum(float v, float *s) {
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k)
      s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  float r = s[0];
  __syncthreads();
  return r;
}

__device__ __noinline__ int clampTo(int v, int lo, int hi) {
  if (v < lo)
    return lo;
  if (v > hi)
    return hi;
  return v;
}

__device__ __noinline__ unsigned long long fact(unsigned n) { return n <= 1 ? 1 : n * fact(n - 1); }

extern "C" __global__ void callChain(const int *in, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int v = scaleAdd(in[t], 7, 3);
  v = scaleAdd(v, -1, 2);
  out[t] = clampTo(v, 0, 500);
}

extern "C" __global__ void callWithBarrier(const float *in, float *out) {
  __shared__ float s[256];
  float total = blockSum(in[blockIdx.x * blockDim.x + threadIdx.x], s);
  float total2 = blockSum(1.0f, s);
  if (threadIdx.x == 0)
    out[blockIdx.x] = total * 1000.0f + total2;
}

extern "C" __global__ void recursive(unsigned long long *out, unsigned n) { out[0] = fact(n); }

// The address of a __grid_constant__ kernel parameter (mov + cvta.param) passed to a device
// function that reads the struct through it.
struct Eight {
  int a[8];
};
__device__ __noinline__ int sumFirst(const Eight *s, int n) {
  int t = 0;
  for (int i = 0; i < n; ++i)
    t += s->a[i];
  return t;
}
extern "C" __global__ void paramAddress(const __grid_constant__ Eight s, int n, int *out) {
  out[threadIdx.x] = sumFirst(&s, n) * 100 + threadIdx.x;
}

// A recursive function with a block barrier on every level (every thread at the same depth):
// one level of a tree reduction over shared memory per call.
__device__ __noinline__ int levelSum(int *s, int width, int v) {
  s[threadIdx.x] = v;
  __syncthreads();
  int r = threadIdx.x < width ? s[threadIdx.x] + s[threadIdx.x + width] : v;
  __syncthreads();
  return width == 1 ? r : levelSum(s, width / 2, r) + 1;
}

extern "C" __global__ void recursiveSync(const int *in, int *out) {
  __shared__ int s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = levelSum(s, blockDim.x / 2, in[i]);
}

// A generic address of a thread's .local array, written through in a device function, then read
// back with ld.local: .local lives in the block's scratch memory, whose accesses are otherwise
// known not to alias anything else.
__device__ __noinline__ void bumpThrough(int *p, int by) { *p += by; }

extern "C" __global__ void localThroughGeneric(const int *in, int *out, int k) {
  int a[8];
  for (int i = 0; i < 8; ++i)
    a[i] = in[threadIdx.x] * (i + 1);
  int j = (threadIdx.x * k) & 7;
  bumpThrough(&a[j], in[(threadIdx.x + 1) % blockDim.x]);
  out[threadIdx.x] = a[j] * 1000 + a[(j + 1) & 7];
}
