// Runtime API: virtual functions (vtables are module-scope tables of function addresses) and a
// table of __device__ function pointers, called through pointers chosen per thread.
#include "check.h"
#include <vector>

struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual ~Shape() {}
};
struct Square : Shape {
  float s;
  __device__ explicit Square(float side) : s(side) {}
  __device__ float area() const override { return s * s; }
};
struct Triangle : Shape {
  float b, h;
  __device__ Triangle(float base, float height) : b(base), h(height) {}
  __device__ float area() const override { return b * h / 2; }
};

__global__ void areas(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  Square sq{float(i)};
  Triangle tr{float(i), 4.0f};
  const Shape *s = &tr;
  if (i % 3 == 0)
    s = &sq;
  out[i] = s->area();
}

__device__ __noinline__ int plusOne(int x) { return x + 1; }
__device__ __noinline__ int timesTwo(int x) { return 2 * x; }
__device__ __noinline__ int minus(int x) { return -x; }
typedef int (*IntOp)(int);
__device__ IntOp ops[3] = {plusOne, timesTwo, minus};

__global__ void throughTable(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = ops[i % 3](ops[(i + 1) % 3](i));
}

int main() {
  const int n = 1000;
  float *da;
  int *di;
  CHECK(cudaMalloc(&da, n * sizeof(float)));
  CHECK(cudaMalloc(&di, n * sizeof(int)));
  areas<<<(n + 127) / 128, 128>>>(da, n);
  throughTable<<<(n + 127) / 128, 128>>>(di, n);
  std::vector<float> a(n);
  std::vector<int> v(n);
  CHECK(cudaMemcpy(a.data(), da, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(v.data(), di, n * sizeof(int), cudaMemcpyDeviceToHost));
  auto op = [](int k, int x) { return k == 0 ? x + 1 : k == 1 ? 2 * x : -x; };
  for (int i = 0; i < n; ++i) {
    float want = i % 3 == 0 ? float(i) * float(i) : float(i) * 4.0f / 2;
    if (a[i] != want || v[i] != op(i % 3, op((i + 1) % 3, i))) {
      std::printf("FAIL at %d: area %g (want %g), %d (want %d)\n", i, a[i], want, v[i],
                  op(i % 3, op((i + 1) % 3, i)));
      return 1;
    }
  }
  std::printf("PASS\n");
  return 0;
}
