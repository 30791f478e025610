// Thrust on cucpu against the C++ standard library on one host thread: sort, reduce and
// inclusive scan of 2^22 random 32-bit keys (CUB's warp-mode kernels: onesweep radix sort,
// decoupled look-back scan). Run: build/bench/cucpu-thrust-bench [reps]
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

namespace {

// Milliseconds `fn` takes (it waits for the device itself where it launches kernels).
template <typename F> double timed(F &&fn) {
  auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
  const int n = 1 << 22, reps = argc > 1 ? std::max(3, std::atoi(argv[1])) : 7;
  std::mt19937 rng(7);
  std::vector<unsigned> keys(n);
  for (auto &k : keys)
    k = rng();
  std::vector<unsigned> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  thrust::device_vector<unsigned> d(n), out(n);
  std::vector<double> t[6];
  for (int r = 0; r < reps + 1; ++r) { // the first run compiles the kernels: not timed
    thrust::copy(keys.begin(), keys.end(), d.begin());
    unsigned long long sum = 0, hsum = 0;
    std::vector<unsigned> h = keys, hs(n);
    const double row[6] = {timed([&] {
                             thrust::sort(d.begin(), d.end());
                             cudaDeviceSynchronize();
                           }),
                           timed([&] { sum = thrust::reduce(d.begin(), d.end(), 0ull); }),
                           timed([&] {
                             thrust::inclusive_scan(d.begin(), d.end(), out.begin());
                             cudaDeviceSynchronize();
                           }),
                           timed([&] { std::sort(h.begin(), h.end()); }),
                           timed([&] { hsum = std::accumulate(h.begin(), h.end(), 0ull); }),
                           timed([&] { std::inclusive_scan(h.begin(), h.end(), hs.begin()); })};

    thrust::host_vector<unsigned> got = d, gotScan = out;
    if (sum != hsum || !std::equal(sorted.begin(), sorted.end(), got.begin()) ||
        !std::equal(hs.begin(), hs.end(), gotScan.begin())) {
      std::printf("cucpu FAILED: wrong result\n");
      return 1;
    }
    if (r == 0)
      continue;
    for (int i = 0; i < 6; ++i)
      t[i].push_back(row[i]);
  }
  const char *names[3] = {"sort", "reduce", "inclusive_scan"};
  std::printf("| Thrust, 2^22 u32 keys | cucpu ms | std:: on one host thread ms | ratio |\n"
              "|---|---|---|---|\n");
  for (int i = 0; i < 3; ++i)
    std::printf("| %s | %.2f | %.2f | %.2f |\n", names[i], median(t[i]), median(t[i + 3]),
                median(t[i]) / median(t[i + 3]));
  return 0;
}
