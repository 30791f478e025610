// Runtime API, several translation units: this one holds a kernel and its launcher.
#include "check.h"

__global__ void fill(int *p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = v + i;
}

void launchFill(int *p, int v, int n) { fill<<<(n + 127) / 128, 128>>>(p, v, n); }
