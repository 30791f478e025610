// Triad bandwidth and FMA-peak probes (OpenMP, -O3 -march=native), the bench's machine limits.
#include "probes.h"

#include <omp.h>

#include <chrono>
#include <cstddef>
#include <memory>

namespace bench {
namespace {

constexpr size_t kTriadN = size_t(1) << 25;

#ifdef __AVX512F__
constexpr int kLanes = 16;
#else
constexpr int kLanes = 8;
#endif
typedef float vfloat __attribute__((vector_size(kLanes * sizeof(float))));

struct TriadArrays {
  std::unique_ptr<float[]> a{new float[kTriadN]};
  std::unique_ptr<float[]> b{new float[kTriadN]};
  std::unique_ptr<float[]> c{new float[kTriadN]};
  TriadArrays() {
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < kTriadN; ++i) {
      a[i] = 0.0f;
      b[i] = 1.0f;
      c[i] = 2.0f;
    }
  }
};

} // namespace

double triadGBps() {
  static TriadArrays t;
  float *a = t.a.get();
  const float *b = t.b.get();
  const float *c = t.c.get();
  const float s = 3.0f;
  auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < kTriadN; ++i) {
    a[i] = b[i] + s * c[i];
  }
  double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return 12.0 * kTriadN / sec / 1e9;
}

double fmaPeakGflops() {
  // Twelve independent chains cover FMA latency x issue width (4 x 2 on current x86 cores).
  constexpr int kChains = 12;
  constexpr long kIters = 1 << 23;
  double flops = 0.0;
  auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel reduction(+ : flops)
  {
    vfloat m, add;
    for (int l = 0; l < kLanes; ++l) {
      m[l] = 0.999999f;
      add[l] = 1e-7f * static_cast<float>(omp_get_thread_num() + 1);
    }
    vfloat a0 = add, a1 = a0 + add, a2 = a1 + add, a3 = a2 + add, a4 = a3 + add, a5 = a4 + add;
    vfloat a6 = a5 + add, a7 = a6 + add, a8 = a7 + add, a9 = a8 + add, a10 = a9 + add;
    vfloat a11 = a10 + add;
    for (long it = 0; it < kIters; ++it) {
      a0 = a0 * m + add;
      a1 = a1 * m + add;
      a2 = a2 * m + add;
      a3 = a3 * m + add;
      a4 = a4 * m + add;
      a5 = a5 * m + add;
      a6 = a6 * m + add;
      a7 = a7 * m + add;
      a8 = a8 * m + add;
      a9 = a9 * m + add;
      a10 = a10 * m + add;
      a11 = a11 * m + add;
      // Keeps every chain in a register and forbids folding the loop.
      asm volatile(""
                   : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5), "+v"(a6),
                     "+v"(a7), "+v"(a8), "+v"(a9), "+v"(a10), "+v"(a11));
    }
    vfloat sum = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
    volatile float sink = sum[0];
    (void)sink;
    flops += 2.0 * kLanes * kChains * kIters;
  }
  double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return flops / sec / 1e9;
}

} // namespace bench
