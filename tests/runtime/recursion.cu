// Runtime API: recursive device functions, with local arrays and several calls per frame.
#include "check.h"
#include <vector>

// Quicksort of a small array in local memory, recursing on both halves.
__device__ void quicksort(int *a, int lo, int hi) {
  if (lo >= hi)
    return;
  int pivot = a[(lo + hi) / 2], i = lo, j = hi;
  while (i <= j) {
    while (a[i] < pivot)
      ++i;
    while (a[j] > pivot)
      --j;
    if (i <= j) {
      int t = a[i];
      a[i++] = a[j];
      a[j--] = t;
    }
  }
  quicksort(a, lo, j);
  quicksort(a, i, hi);
}

__device__ unsigned long long binomial(int n, int k) {
  return k == 0 || k == n ? 1ull : binomial(n - 1, k - 1) + binomial(n - 1, k);
}

__global__ void kernel(int *sorted, unsigned long long *binom, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  int a[16];
  for (int i = 0; i < 16; ++i)
    a[i] = (t * 7 + i * 13) % 23 - 11;
  quicksort(a, 0, 15);
  for (int i = 0; i < 16; ++i)
    sorted[t * 16 + i] = a[i];
  binom[t] = binomial(t % 18, t % 7 < t % 18 ? t % 7 : t % 18);
}

int main() {
  const int n = 200;
  int *ds;
  unsigned long long *db;
  CHECK(cudaMalloc(&ds, n * 16 * sizeof(int)));
  CHECK(cudaMalloc(&db, n * sizeof(unsigned long long)));
  kernel<<<(n + 63) / 64, 64>>>(ds, db, n);
  std::vector<int> s(n * 16);
  std::vector<unsigned long long> b(n);
  CHECK(cudaMemcpy(s.data(), ds, s.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b.data(), db, b.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  for (int t = 0; t < n; ++t) {
    std::vector<int> want(16);
    for (int i = 0; i < 16; ++i)
      want[i] = (t * 7 + i * 13) % 23 - 11;
    for (int i = 0; i < 16; ++i)
      for (int j = i + 1; j < 16; ++j)
        if (want[j] < want[i])
          std::swap(want[i], want[j]);
    int nn = t % 18, k = t % 7 < t % 18 ? t % 7 : t % 18;
    unsigned long long c = 1;
    for (int i = 1; i <= k; ++i)
      c = c * (nn - k + i) / i;
    for (int i = 0; i < 16; ++i)
      if (s[t * 16 + i] != want[i]) {
        std::printf("FAIL sort thread %d at %d: %d (want %d)\n", t, i, s[t * 16 + i], want[i]);
        return 1;
      }
    if (b[t] != c) {
      std::printf("FAIL binomial thread %d: %llu (want %llu)\n", t, b[t], c);
      return 1;
    }
  }
  std::printf("PASS\n");
  return 0;
}
