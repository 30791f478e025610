// Kernels for the fault and device-services tests: printf, assert, trap, bad addresses.
#include <cassert>
#include <cstdio>

extern "C" __global__ void printer(int base) {
  int t = threadIdx.x;
  if (t < 2)
    printf("t=%d i=%i u=%u x=%x X=%#X c=%c f=%.3f e=%e g=%g s=%s ll=%lld w=[%5d] p=%%\n", t,
           base + t, 4000000000u, 255 + t, 0xabcdu, 'A' + t, 1.5 + t, 12345.678, 0.0001,
           t ? "one" : "zero", -9000000000ll, t);
}

extern "C" __global__ void asserter(const int *in) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  assert(in[t] >= 0);
}

extern "C" __global__ void trapper(int when) {
  if (blockIdx.x == when)
    asm volatile("trap;");
}

extern "C" __global__ void wildWrite(int *p, unsigned long long offset) {
  if (threadIdx.x == 0)
    p[offset] = 1;
}

extern "C" __global__ void deviceHeap(int *out) {
  int *p = (int *)malloc(64 * sizeof(int));
  if (!p) {
    out[threadIdx.x] = -1;
    return;
  }
  for (int i = 0; i < 64; ++i)
    p[i] = i * threadIdx.x;
  int s = 0;
  for (int i = 0; i < 64; ++i)
    s += p[i];
  free(p);
  out[threadIdx.x] = s;
}

extern "C" __global__ void fill(int *out, int v) { out[threadIdx.x] = v; }

// Every thread holds a 256-byte allocation across a barrier: out[t] = 1 if it got one.
extern "C" __global__ void heapHeldAcrossBarrier(int *out) {
  char *p = (char *)malloc(256);
  if (p)
    p[255] = 1;
  __syncthreads();
  out[threadIdx.x] = p ? p[255] : 0;
  free(p);
}

// Threads 100 and up call through `bad`, a pointer to no function (an H100 reports
// cudaErrorInvalidPc for 0x1234); the others through a table of two functions.
__device__ __noinline__ int plusOne(int x) { return x + 1; }
__device__ __noinline__ int timesTwo(int x) { return x * 2; }
typedef int (*IntOp)(int);
__device__ IntOp intOps[2] = {plusOne, timesTwo};
extern "C" __global__ void badFunctionPointer(int *out, unsigned long long bad) {
  IntOp f = threadIdx.x < 100 ? intOps[threadIdx.x % 2] : (IntOp)bad;
  out[threadIdx.x] = f(threadIdx.x);
}

// %globaltimer, read by every thread: nanoseconds of the real-time clock, as on a GPU.
extern "C" __global__ void globalTimer(unsigned long long *out) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  out[threadIdx.x] = t;
}
