// Device code for vectorAddDrv: element-wise C = A + B over n floats, one thread per element.

extern "C" __global__ void VecAdd_kernel(const float *A, const float *B, float *C, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) {
    C[i] = A[i] + B[i];
  }
}
