// Runtime API: host threads share the device's primary context, each with its own stream.
#include "check.h"
#include <thread>
#include <vector>

__global__ void iota(int *p, int base, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = base + i;
}

int main() {
  const int T = 4, n = 20000;
  std::vector<int> ok(T, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < T; ++t)
    threads.emplace_back([t, &ok] {
      cudaStream_t s;
      int *d;
      std::vector<int> h(n);
      CHECK(cudaStreamCreate(&s));
      CHECK(cudaMalloc(&d, n * sizeof(int)));
      for (int round = 0; round < 5; ++round) {
        iota<<<(n + 255) / 256, 256, 0, s>>>(d, t * 1000 + round, n);
        CHECK(cudaMemcpyAsync(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
        for (int i = 0; i < n; ++i)
          if (h[i] != t * 1000 + round + i)
            return;
      }
      CHECK(cudaFree(d));
      CHECK(cudaStreamDestroy(s));
      ok[t] = 1;
    });
  for (auto &th : threads)
    th.join();
  for (int t = 0; t < T; ++t)
    if (!ok[t]) {
      std::printf("FAIL thread %d\n", t);
      return 1;
    }
  std::printf("PASS\n");
}
