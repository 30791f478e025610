// The OpenMP CSR SpMV the cuSPARSE bench compares with, and its random matrices.
#include "openmp_spmv.h"

#include <algorithm>
#include <cstdint>
#include <omp.h>

namespace bench {

Csr randomCsr(int rows, int perRow) {
  Csr a;
  a.rows = rows;
  a.offsets.reserve(size_t(rows) + 1);
  a.offsets.push_back(0);
  uint64_t state = 88172645463325252ull;
  auto next = [&] { // xorshift64
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  std::vector<int> row;
  for (int r = 0; r < rows; ++r) {
    row.clear();
    while (int(row.size()) < perRow) {
      int c = int(next() % uint64_t(rows));
      if (std::find(row.begin(), row.end(), c) == row.end())
        row.push_back(c);
    }
    std::sort(row.begin(), row.end());
    for (int c : row) {
      a.columns.push_back(c);
      a.values.push_back(float(int(next() % 2001) - 1000) / 1000.0f);
    }
    a.offsets.push_back(int(a.columns.size()));
  }
  return a;
}

void openmpSpmv(const Csr &a, const float *x, float *y) {
  const int *off = a.offsets.data(), *col = a.columns.data();
  const float *val = a.values.data();
#pragma omp parallel for schedule(static)
  for (int r = 0; r < a.rows; ++r) {
    float s = 0;
    for (int i = off[r]; i < off[r + 1]; ++i)
      s += val[i] * x[col[i]];
    y[r] = s;
  }
}

int openmpThreads() { return omp_get_max_threads(); }

} // namespace bench
