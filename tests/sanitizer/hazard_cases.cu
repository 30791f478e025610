// Planted bugs and legal controls for racecheck, initcheck and synccheck: `hazard_cases NAME`
// runs one case. compute-sanitizer's verdicts on an H200 are in tests/gpu/answers/sanitizer/
// (tests/gpu/record_sanitizer.sh); the kernels' source lines are part of those answers.
#include <cstdio>
#include <cstring>

__global__ void sharedReadAfterWrite(int *out) { // no barrier between the write and the read
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  out[threadIdx.x] = s[(threadIdx.x + 32) % 64];
}

__global__ void sharedWriteAfterRead(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  int v = s[(threadIdx.x + 32) % 64];
  s[threadIdx.x] = v + 1;
  out[threadIdx.x] = v;
}

__global__ void sharedWriteAfterWrite(int *out) {
  __shared__ int s[1];
  s[0] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[0];
}

__global__ void sharedOrdered(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 32) % 64];
}

__global__ void sharedSameValue(int *out) { // benign: every thread writes the same value
  __shared__ int s[1];
  s[0] = 42;
  __syncthreads();
  out[threadIdx.x] = s[0];
}

__global__ void sharedAtomics(int *out) {
  __shared__ int s[1];
  if (threadIdx.x == 0)
    s[0] = 0;
  __syncthreads();
  atomicAdd(&s[0], 1);
  __syncthreads();
  out[threadIdx.x] = s[0];
}

__global__ void globalReadAfterWrite(int *data, int *out) { // across blocks, no ordering
  data[blockIdx.x] = blockIdx.x;
  out[blockIdx.x] = data[(blockIdx.x + 1) % gridDim.x];
}

__global__ void readUninitialized(const int *a, int *out) { out[threadIdx.x] = a[threadIdx.x]; }

__global__ void sharedUninitialized(int *out) {
  __shared__ int s[64];
  if (threadIdx.x < 32)
    s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}

__global__ void divergentBarrier(int *out) {
  if (threadIdx.x < 16) {
    out[threadIdx.x] = 1;
    __syncthreads();
  }
}

__global__ void badShuffleMask(int *out) {
  if (threadIdx.x < 16)
    out[threadIdx.x] = __shfl_sync(0xffffffffu, threadIdx.x, 0);
}

__global__ void goodShuffleMask(int *out) {
  if (threadIdx.x < 16)
    out[threadIdx.x] = __shfl_sync(0x0000ffffu, threadIdx.x, 0);
}

__global__ void warpExchangeSynced(int *out) { // __syncwarp orders the warp's accesses
  __shared__ int s[32];
  s[threadIdx.x] = threadIdx.x;
  __syncwarp();
  out[threadIdx.x] = s[threadIdx.x ^ 1];
}

__global__ void warpExchangeUnsynced(int *out) { // the same without it: a race since Volta
  __shared__ int s[32];
  s[threadIdx.x] = threadIdx.x;
  out[threadIdx.x] = s[threadIdx.x ^ 1];
}

static int finish(const char *name) {
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  std::printf("%s: launch %s, synchronize %s\n", name, cudaGetErrorName(launch),
              cudaGetErrorName(sync));
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::printf("usage: hazard_cases NAME\n");
    return 2;
  }
  const char *c = argv[1];
  auto is = [&](const char *n) { return std::strcmp(c, n) == 0; };
  int *a = nullptr, *out = nullptr, *fresh = nullptr;
  if (cudaMalloc(&a, 256 * sizeof(int)) || cudaMalloc(&out, 256 * sizeof(int)) ||
      cudaMalloc(&fresh, 256 * sizeof(int)) || cudaMemset(a, 0, 256 * sizeof(int)) ||
      cudaMemset(out, 0, 256 * sizeof(int))) {
    std::printf("setup failed\n");
    return 2;
  }
  if (is("shared_read_after_write"))
    sharedReadAfterWrite<<<1, 64>>>(out);
  else if (is("shared_write_after_read"))
    sharedWriteAfterRead<<<1, 64>>>(out);
  else if (is("shared_write_after_write"))
    sharedWriteAfterWrite<<<1, 64>>>(out);
  else if (is("ok_shared_ordered"))
    sharedOrdered<<<1, 64>>>(out);
  else if (is("ok_shared_same_value"))
    sharedSameValue<<<1, 64>>>(out);
  else if (is("ok_shared_atomics"))
    sharedAtomics<<<1, 64>>>(out);
  else if (is("global_read_after_write"))
    globalReadAfterWrite<<<64, 1>>>(a, out);
  else if (is("ok_warp_synced_exchange"))
    warpExchangeSynced<<<1, 32>>>(out);
  else if (is("warp_unsynced_exchange"))
    warpExchangeUnsynced<<<1, 32>>>(out);
  else if (is("uninitialized_global_read"))
    readUninitialized<<<1, 32>>>(fresh, out);
  else if (is("ok_initialized_global_read"))
    readUninitialized<<<1, 32>>>(a, out);
  else if (is("uninitialized_shared_read"))
    sharedUninitialized<<<1, 64>>>(out);
  else if (is("divergent_barrier"))
    divergentBarrier<<<1, 32>>>(out);
  else if (is("bad_shuffle_mask"))
    badShuffleMask<<<1, 32>>>(out);
  else if (is("ok_shuffle_mask"))
    goodShuffleMask<<<1, 32>>>(out);
  else {
    std::printf("unknown case %s\n", c);
    return 2;
  }
  finish(c);
  cudaFree(a);
  cudaFree(out);
  cudaFree(fresh);
  return 0;
}
