// OpenMP Black-Scholes built with -ffast-math, so GCC vectorises expf/logf through glibc's libmvec.
#include "openmp_black_scholes.h"

namespace bench {

void blackScholesVectorMath(float *call, float *put, const float *S, const float *X,
                            const float *T, int n, float R, float V) {
  blackScholesLoop(call, put, S, X, T, n, R, V);
}

} // namespace bench
