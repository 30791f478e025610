// Shared by the GEMM benches: the best of three timed runs, and OpenBLAS loaded at run time with
// the name of the kernels it picked for this CPU.
#ifndef CUCPU_BENCH_OPENBLAS_H
#define CUCPU_BENCH_OPENBLAS_H

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>

namespace bench {

// Milliseconds of the fastest of three calls of `run`.
template <class F> double bestOf3(F &&run) {
  double best = 1e30;
  for (int i = 0; i < 3; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    best = std::min(
        best,
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// dlopens OpenBLAS (null when it is not installed) and prints which kernels it uses. On virtual
// machines that hide the CPU's model it may fall back to its SSE3 ("Prescott") kernels, several
// times slower than the AVX-512 ones: an honest comparison then needs OPENBLAS_CORETYPE
// (docs/performance.md).
inline void *openBlas() {
  void *blas = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!blas) {
    std::printf("OpenBLAS (libopenblas.so.0) not found: nothing to compare with\n");
    return nullptr;
  }
  using CoreName = char *(*)();
  auto core = reinterpret_cast<CoreName>(dlsym(blas, "openblas_get_corename"));
  const char *name = core ? core() : "unknown";
  std::printf("OpenBLAS kernels: %s%s\n", name,
              std::strcmp(name, "Prescott") == 0 ? " (SSE3: set OPENBLAS_CORETYPE to this CPU's)"
                                                 : "");
  return blas;
}

} // namespace bench

#endif
