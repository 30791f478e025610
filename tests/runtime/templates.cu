// Runtime API: one kernel template instantiated for several types and a functor.
#include "check.h"
#include <vector>

struct Triple {
  __device__ __host__ double operator()(double x) const { return 3 * x; }
};
struct Negate {
  __device__ __host__ int operator()(int x) const { return -x; }
};

template <typename T, typename F> __global__ void apply(T *p, int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = f(p[i]);
}

template <typename T, typename F> bool run(F f) {
  const int n = 1000;
  std::vector<T> h(n), out(n);
  for (int i = 0; i < n; ++i)
    h[i] = T(i) / T(2);
  T *d;
  CHECK(cudaMalloc(&d, n * sizeof(T)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  apply<<<(n + 63) / 64, 64>>>(d, n, f);
  CHECK(cudaMemcpy(out.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d));
  for (int i = 0; i < n; ++i)
    if (out[i] != T(f(h[i])))
      return false;
  return true;
}

int main() {
  if (!run<double>(Triple()) || !run<int>(Negate()) || !run<float>(Triple())) {
    std::printf("FAIL\n");
    return 1;
  }
  std::printf("PASS\n");
}
