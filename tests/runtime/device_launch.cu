// Dynamic parallelism (a kernel launching a kernel, -rdc=true) is not something cucpu does: the
// program must get cudaErrorNotSupported at its launch, with a warning naming the feature, and
// its other kernels keep working.
#include "check.h"

__global__ void child(int *p) { p[threadIdx.x] = threadIdx.x; }
__global__ void parent(int *p) {
  if (threadIdx.x == 0)
    child<<<1, 32>>>(p);
}

int main() {
  int *p;
  CHECK(cudaMalloc(&p, 32 * sizeof(int)));
  parent<<<1, 32>>>(p);
  cudaError_t e = cudaGetLastError();
  std::printf("device-side launch: %s\n", cudaGetErrorName(e));
  std::printf("%s\n", e == cudaErrorNotSupported ? "PASS" : "FAIL");
  return e == cudaErrorNotSupported ? 0 : 1;
}
