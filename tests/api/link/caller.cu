// Linker test input 1: a kernel calling a device function and reading a variable that
// scaler.cu defines (compiled with -rdc=true, so both stay external here).
// nvcc-flags: -rdc=true
extern __device__ int scale(int v);
extern __device__ int offset;

extern "C" __global__ void linked(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = scale(in[i]) + offset;
}
