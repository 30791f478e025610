// Bench kernel SAXPY: y[i] = alpha * x[i] + y[i], one element per thread.
extern "C" __global__ void saxpy(float alpha, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = alpha * x[i] + y[i];
  }
}
