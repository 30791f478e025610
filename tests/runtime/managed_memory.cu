// Runtime API: managed memory written by the host and the device, with prefetch and advice.
#include "check.h"

__global__ void square(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = p[i] * p[i];
}

int main() {
  const int n = 5000;
  int *p;
  CHECK(cudaMallocManaged(&p, n * sizeof(int)));
  for (int i = 0; i < n; ++i)
    p[i] = i - 100;
  cudaMemLocation loc{cudaMemLocationTypeDevice, 0};
  CHECK(cudaMemAdvise(p, n * sizeof(int), cudaMemAdviseSetPreferredLocation, loc));
  CHECK(cudaMemPrefetchAsync(p, n * sizeof(int), loc, 0, 0));
  square<<<(n + 127) / 128, 128>>>(p, n);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i)
    if (p[i] != (i - 100) * (i - 100)) {
      std::printf("FAIL p[%d] = %d\n", i, p[i]);
      return 1;
    }
  CHECK(cudaFree(p));
  std::printf("PASS\n");
}
