// The CPU side of the SpMV bench: a CSR matrix of random structure and the OpenMP loop a
// programmer would write for y = A x (compiled with -O3 -march=native, see CMakeLists.txt).
#ifndef CUCPU_BENCH_OPENMP_SPMV_H
#define CUCPU_BENCH_OPENMP_SPMV_H

#include <vector>

namespace bench {

struct Csr {
  int rows = 0;
  std::vector<int> offsets, columns;
  std::vector<float> values;
};

// `rows` x `rows`, `perRow` distinct sorted columns in each row, values in [-1, 1].
Csr randomCsr(int rows, int perRow);
// y = A x, rows split statically over the OpenMP threads.
void openmpSpmv(const Csr &a, const float *x, float *y);
int openmpThreads();

} // namespace bench

#endif
