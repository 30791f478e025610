// Bench kernel vectorAdd: c[i] = a[i] + b[i], one element per thread.
extern "C" __global__ void vectorAdd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = a[i] + b[i];
  }
}
