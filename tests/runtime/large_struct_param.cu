// Runtime API: a kernel parameter that is a 2 KiB struct, passed by value.
#include "check.h"

struct Table {
  int values[500];
  double scale;
  char tag;
};

__global__ void lookup(Table t, double *out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < 500)
    out[i] = t.values[499 - i] * t.scale + t.tag;
}

int main() {
  Table t;
  for (int i = 0; i < 500; ++i)
    t.values[i] = i * 3;
  t.scale = 0.25;
  t.tag = 7;
  double *d, h[500];
  CHECK(cudaMalloc(&d, sizeof h));
  lookup<<<4, 128>>>(t, d);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 500; ++i)
    if (h[i] != (499 - i) * 3 * 0.25 + 7) {
      std::printf("FAIL h[%d] = %f\n", i, h[i]);
      return 1;
    }
  std::printf("PASS\n");
}
