// Black-Scholes loop of the OpenMP form, compiled twice: plain, and with -ffast-math (libmvec).
#ifndef CUCPU_BENCH_OPENMP_BLACK_SCHOLES_H
#define CUCPU_BENCH_OPENMP_BLACK_SCHOLES_H

#include <cmath>

namespace bench {

#pragma omp declare simd notinbranch
static inline float cndOmp(float d) {
  const float A1 = 0.31938153f;
  const float A2 = -0.356563782f;
  const float A3 = 1.781477937f;
  const float A4 = -1.821255978f;
  const float A5 = 1.330274429f;
  const float RSQRT2PI = 0.39894228040143267794f;
  float K = 1.0f / (1.0f + 0.2316419f * std::fabs(d));
  float c = RSQRT2PI * expf(-0.5f * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  return d > 0.0f ? 1.0f - c : c;
}

static inline void blackScholesLoop(float *call, float *put, const float *price,
                                    const float *strike, const float *years, int n, float R,
                                    float V) {
#pragma omp parallel for simd schedule(static)
  for (int i = 0; i < n; ++i) {
    float S = price[i];
    float X = strike[i];
    float T = years[i];
    float sqrtT = sqrtf(T);
    float d1 = (logf(S / X) + (R + 0.5f * V * V) * T) / (V * sqrtT);
    float d2 = d1 - V * sqrtT;
    float cndD1 = cndOmp(d1);
    float cndD2 = cndOmp(d2);
    float expRT = expf(-R * T);
    call[i] = S * cndD1 - X * expRT * cndD2;
    put[i] = X * expRT * (1.0f - cndD2) - S * (1.0f - cndD1);
  }
}

} // namespace bench

#endif
