// Runtime API: a shared-memory tree reduction, timed with events.
#include "check.h"
#include <vector>

__global__ void reduce(const int *in, int *out, int n) {
  __shared__ int s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int step = blockDim.x / 2; step > 0; step /= 2) {
    if (threadIdx.x < step)
      s[threadIdx.x] += s[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(out, s[0]);
}

int main() {
  const int n = 1 << 20;
  std::vector<int> h(n);
  long long expect = 0;
  for (int i = 0; i < n; ++i)
    expect += h[i] = i % 7 - 3;
  int *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(out, 0, sizeof(int)));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  reduce<<<n / 256, 256>>>(in, out, n);
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  int sum = 0;
  CHECK(cudaMemcpy(&sum, out, sizeof(int), cudaMemcpyDeviceToHost));
  if (sum != expect || ms < 0) {
    std::printf("FAIL sum %d expected %lld, %f ms\n", sum, expect, ms);
    return 1;
  }
  std::printf("PASS (%.3f ms)\n", ms);
}
