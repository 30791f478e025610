// A kernel with 4 KiB of local memory per thread (a dynamically indexed array), for the
// CU_LIMIT_STACK_SIZE tests and tests/gpu/record_stack.cpp.
extern "C" __global__ void bigLocal(int *out, int k) {
  volatile int a[1024];
  for (int i = 0; i < 1024; ++i)
    a[i] = i * k;
  out[threadIdx.x] = a[(threadIdx.x * 7 + k) & 1023];
}
