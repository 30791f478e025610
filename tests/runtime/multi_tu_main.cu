// Runtime API, several translation units: kernels registered from two fat binaries.
#include "check.h"

void launchFill(int *p, int v, int n);

__global__ void twice(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] *= 2;
}

int main() {
  const int n = 1000;
  int *d, h[n];
  CHECK(cudaMalloc(&d, sizeof h));
  launchFill(d, 10, n);
  twice<<<(n + 127) / 128, 128>>>(d, n);
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (h[i] != 2 * (10 + i)) {
      std::printf("FAIL h[%d] = %d\n", i, h[i]);
      return 1;
    }
  std::printf("PASS\n");
}
