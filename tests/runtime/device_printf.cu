// Runtime API: printf in device code reaches stdout by the time the device synchronises.
#include "check.h"

__global__ void hello(int base) { printf("device says %d\n", base + int(threadIdx.x)); }

int main() {
  hello<<<1, 3>>>(40);
  CHECK(cudaDeviceSynchronize());
  std::printf("PASS\n");
}
