// Bench kernel Black-Scholes: European call and put prices with expf, logf and sqrtf.

// Cumulative normal distribution, polynomial approximation (Abramowitz and Stegun 26.2.17).
__device__ inline float cnd(float d) {
  const float A1 = 0.31938153f;
  const float A2 = -0.356563782f;
  const float A3 = 1.781477937f;
  const float A4 = -1.821255978f;
  const float A5 = 1.330274429f;
  const float RSQRT2PI = 0.39894228040143267794f;
  float K = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  float c = RSQRT2PI * expf(-0.5f * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  return d > 0.0f ? 1.0f - c : c;
}

extern "C" __global__ void blackScholes(float *call, float *put, const float *price,
                                        const float *strike, const float *years, float riskfree,
                                        float volatility, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float S = price[i];
    float X = strike[i];
    float T = years[i];
    float sqrtT = sqrtf(T);
    float d1 = (logf(S / X) + (riskfree + 0.5f * volatility * volatility) * T) / (volatility * sqrtT);
    float d2 = d1 - volatility * sqrtT;
    float cndD1 = cnd(d1);
    float cndD2 = cnd(d2);
    float expRT = expf(-riskfree * T);
    call[i] = S * cndD1 - X * expRT * cndD2;
    put[i] = X * expRT * (1.0f - cndD2) - S * (1.0f - cndD1);
  }
}
