// Thrust (CUB underneath) unmodified: reduce, scan, radix sort, unique and a stable sort by key,
// each checked against the C++ standard library. CUB's decoupled look-back publishes tile status
// with st.relaxed.gpu.v2.u32 and picks its tuning by the kernels' PTX-version attribute.
#include "check.h"

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/unique.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

int main() {
  const int n = 1 << 20;
  std::mt19937 rng(42);
  thrust::host_vector<unsigned> h(n);
  for (auto &x : h)
    x = rng() % 100000;
  thrust::device_vector<unsigned> d = h;
  bool ok = true;

  unsigned long long sum = thrust::reduce(d.begin(), d.end(), 0ull);
  unsigned long long want = std::accumulate(h.begin(), h.end(), 0ull);
  std::printf("reduce %llu (want %llu)\n", sum, want);
  ok = ok && sum == want;

  thrust::device_vector<unsigned> scanned(n);
  thrust::inclusive_scan(d.begin(), d.end(), scanned.begin());
  std::vector<unsigned> hostScan(n);
  std::inclusive_scan(h.begin(), h.end(), hostScan.begin());
  thrust::host_vector<unsigned> gotScan = scanned;
  bool scanOk = std::equal(hostScan.begin(), hostScan.end(), gotScan.begin());
  std::printf("inclusive_scan %s\n", scanOk ? "ok" : "WRONG");
  ok = ok && scanOk;

  thrust::sort(d.begin(), d.end());
  std::vector<unsigned> sorted(h.begin(), h.end());
  std::sort(sorted.begin(), sorted.end());
  thrust::host_vector<unsigned> gotSorted = d;
  bool sortOk = std::equal(sorted.begin(), sorted.end(), gotSorted.begin());
  std::printf("sort %s\n", sortOk ? "ok" : "WRONG");
  ok = ok && sortOk;

  long distinct = thrust::unique(d.begin(), d.end()) - d.begin();
  long wantDistinct = std::unique(sorted.begin(), sorted.end()) - sorted.begin();
  std::printf("unique %ld (want %ld)\n", distinct, wantDistinct);
  ok = ok && distinct == wantDistinct;

  thrust::host_vector<float> hk(n);
  for (auto &x : hk)
    x = float(rng() % 1000) * 0.5f;
  thrust::device_vector<float> keys = hk;
  thrust::device_vector<int> vals(n);
  thrust::sequence(vals.begin(), vals.end());
  thrust::stable_sort_by_key(keys.begin(), keys.end(), vals.begin());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return hk[a] < hk[b]; });
  thrust::host_vector<int> gotVals = vals;
  thrust::host_vector<float> gotKeys = keys;
  bool byKeyOk = true;
  for (int i = 0; i < n && byKeyOk; ++i)
    byKeyOk = gotVals[i] == order[i] && gotKeys[i] == hk[order[i]];
  std::printf("stable_sort_by_key %s\n", byKeyOk ? "ok" : "WRONG");
  ok = ok && byKeyOk;

  CHECK(cudaDeviceSynchronize());
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
