// Runtime API: several streams with async copies, kernels, host functions and callbacks.
#include "check.h"
#include <atomic>

__global__ void scale(float *p, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] *= f;
}

std::atomic<int> hostFuncs{0}, callbacks{0};
void CUDART_CB hostFn(void *) { ++hostFuncs; }
void CUDART_CB callback(cudaStream_t, cudaError_t status, void *) {
  if (status == cudaSuccess)
    ++callbacks;
}

int main() {
  const int n = 1 << 16, S = 4;
  float *h[S], *d[S];
  cudaStream_t s[S];
  for (int k = 0; k < S; ++k) {
    CHECK(cudaStreamCreateWithFlags(&s[k], k % 2 ? cudaStreamNonBlocking : cudaStreamDefault));
    CHECK(cudaMallocHost(&h[k], n * sizeof(float)));
    CHECK(cudaMalloc(&d[k], n * sizeof(float)));
    for (int i = 0; i < n; ++i)
      h[k][i] = float(i);
  }
  for (int k = 0; k < S; ++k) {
    CHECK(cudaMemcpyAsync(d[k], h[k], n * sizeof(float), cudaMemcpyHostToDevice, s[k]));
    scale<<<n / 256, 256, 0, s[k]>>>(d[k], float(k + 1), n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h[k], d[k], n * sizeof(float), cudaMemcpyDeviceToHost, s[k]));
    CHECK(cudaLaunchHostFunc(s[k], hostFn, nullptr));
    CHECK(cudaStreamAddCallback(s[k], callback, nullptr, 0));
  }
  for (int k = 0; k < S; ++k)
    CHECK(cudaStreamSynchronize(s[k]));
  for (int k = 0; k < S; ++k)
    for (int i = 0; i < n; ++i)
      if (h[k][i] != float(i) * (k + 1)) {
        std::printf("FAIL stream %d element %d = %f\n", k, i, h[k][i]);
        return 1;
      }
  if (hostFuncs != S || callbacks != S) {
    std::printf("FAIL %d host functions, %d callbacks\n", hostFuncs.load(), callbacks.load());
    return 1;
  }
  for (int k = 0; k < S; ++k) {
    CHECK(cudaStreamDestroy(s[k]));
    CHECK(cudaFreeHost(h[k]));
    CHECK(cudaFree(d[k]));
  }
  std::printf("PASS\n");
}
