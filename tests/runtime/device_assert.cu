// Runtime API: a failing device assert makes the context report cudaErrorAssert.
#include "check.h"
#include <cassert>

__global__ void check(const int *p) { assert(p[threadIdx.x] == 0); }

int main() {
  int *p;
  CHECK(cudaMalloc(&p, 32 * sizeof(int)));
  CHECK(cudaMemset(p, 0, 32 * sizeof(int)));
  check<<<1, 32>>>(p);
  CHECK(cudaDeviceSynchronize()); // every element is 0: no assertion fails
  CHECK(cudaMemset(p + 5, 1, 1));
  check<<<1, 32>>>(p);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaErrorAssert) {
    std::printf("FAIL expected cudaErrorAssert, got %s\n", cudaGetErrorName(e));
    return 1;
  }
  std::printf("PASS\n");
}
