// cucpu-alloc-bench: cuMemAlloc/cuMemFree and cuMemAllocAsync/cuMemFreeAsync against the host's
// aligned_alloc/free (the allocator device memory used before the arena), in one run.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// The host allocator's calls, kept from being elided as a pair.
void *hostAlloc(size_t bytes) {
  void *p = std::aligned_alloc(256, bytes);
  asm volatile("" : : "r"(p) : "memory");
  return p;
}

// Median over 7 runs of `rounds` calls of `op`, in nanoseconds per call.
template <class F> double nsPerCall(int rounds, F op) {
  std::vector<double> runs;
  for (int r = 0; r < 7; ++r) {
    auto t0 = Clock::now();
    for (int i = 0; i < rounds; ++i)
      op();
    runs.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / rounds);
  }
  std::sort(runs.begin(), runs.end());
  return runs[3];
}

void check(CUresult r) {
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "CUDA call failed: %d\n", int(r));
    std::exit(1);
  }
}

} // namespace

int main() {
  check(cuInit(0));
  CUcontext ctx;
  check(cuCtxCreate(&ctx, nullptr, 0, 0));
  CUstream s;
  check(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  std::printf("%-10s %-28s %12s %12s %8s\n", "bytes", "pattern", "cucpu ns", "malloc ns", "ratio");
  const size_t sizes[] = {256, 4096, 65536, 1 << 20, 64 << 20};
  for (size_t bytes : sizes) {
    const int rounds = bytes >= (1 << 20) ? 200 : 20000;
    const int batch = 64;
    auto row = [&](const char *pattern, double cucpu, double host) {
      std::printf("%-10zu %-28s %12.0f %12.0f %8.2f\n", bytes, pattern, cucpu, host, cucpu / host);
    };
    CUdeviceptr d;
    row("alloc+free",
        nsPerCall(rounds,
                  [&] {
                    check(cuMemAlloc(&d, bytes));
                    check(cuMemFree(d));
                  }),
        nsPerCall(rounds, [&] { std::free(hostAlloc(bytes)); }));
    std::vector<CUdeviceptr> ds(batch);
    std::vector<void *> hs(batch);
    row("64 allocs then 64 frees",
        nsPerCall(rounds / batch + 1,
                  [&] {
                    for (auto &p : ds)
                      check(cuMemAlloc(&p, bytes));
                    for (auto p : ds)
                      check(cuMemFree(p));
                  }) /
            batch,
        nsPerCall(rounds / batch + 1, [&] {
          for (auto &p : hs)
            p = hostAlloc(bytes);
          for (auto p : hs)
            std::free(p);
        }) / batch);
    row("alloc+write all+free",
        nsPerCall(rounds / 10 + 1,
                  [&] {
                    check(cuMemAlloc(&d, bytes));
                    std::memset(reinterpret_cast<void *>(d), 1, bytes);
                    check(cuMemFree(d));
                  }),
        nsPerCall(rounds / 10 + 1, [&] {
          void *p = hostAlloc(bytes);
          std::memset(p, 1, bytes);
          asm volatile("" : : "r"(p) : "memory");
          std::free(p);
        }));
    row("async alloc+free, sync",
        nsPerCall(rounds,
                  [&] {
                    check(cuMemAllocAsync(&d, bytes, s));
                    check(cuMemFreeAsync(d, s));
                    check(cuStreamSynchronize(s));
                  }),
        nsPerCall(rounds, [&] { std::free(hostAlloc(bytes)); }));
  }
  cuCtxDestroy(ctx);
  return 0;
}
