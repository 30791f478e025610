// Barrier reductions for the JIT unit tests: __syncthreads_count / _and / _or, with early exits.
extern "C" __global__ void barrierReductions(const int *in, int *out) {
  int t = threadIdx.x;
  int v = in[blockIdx.x * blockDim.x + t];
  int count = __syncthreads_count(v > 50);
  int all = __syncthreads_and(v >= 0);
  int any = __syncthreads_or(v == 77);
  if (t == 0) {
    out[3 * blockIdx.x] = count;
    out[3 * blockIdx.x + 1] = all;
    out[3 * blockIdx.x + 2] = any;
  }
}
