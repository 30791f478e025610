// Relocatable device code (-rdc=true): kernels here call a device function and update a device
// variable defined in rdc_lib.cu; both units also use sinf (each carries its own copy of
// libdevice's internal tables).
#include "check.h"
#include <cmath>

extern __device__ int scale(int x);
extern __device__ float wave(float x);
extern __device__ unsigned long long calls;

__global__ void apply(int *out, float *f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  out[i] = scale(i);
  f[i] = wave(float(i)) + sinf(float(i) * 0.5f);
  atomicAdd(&calls, 1ull);
}

int main() {
  const int n = 1000;
  int *out;
  float *f;
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMalloc(&f, n * sizeof(float)));
  apply<<<(n + 127) / 128, 128>>>(out, f, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int h[n];
  float hf[n];
  unsigned long long c = 0;
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpyFromSymbol(&c, calls, sizeof c));
  bool ok = c == n;
  for (int i = 0; i < n && ok; ++i) {
    float want = std::sin(float(i) * 0.25f) + std::sin(float(i) * 0.5f);
    ok = h[i] == 3 * i + 1 && std::fabs(hf[i] - want) < 1e-5f;
    if (!ok)
      std::printf("at %d: %d %.7f (want %d %.7f)\n", i, h[i], hf[i], 3 * i + 1, want);
  }
  std::printf("calls %llu\n%s\n", c, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
