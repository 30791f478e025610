// The kernel of the fatbin unit tests' fat binaries (regen.sh builds them with nvcc).
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
