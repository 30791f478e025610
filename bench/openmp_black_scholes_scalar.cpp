// OpenMP Black-Scholes with IEEE-conforming math: expf/logf stay scalar libm calls.
#include "openmp_black_scholes.h"

namespace bench {

void blackScholesScalar(float *call, float *put, const float *S, const float *X, const float *T,
                        int n, float R, float V) {
  blackScholesLoop(call, put, S, X, T, n, R, V);
}

} // namespace bench
