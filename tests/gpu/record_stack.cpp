// Prints how NVIDIA's driver treats CU_LIMIT_STACK_SIZE: its default, the values it accepts,
// and what a launch of a kernel with 4 KiB of local memory per thread does to it.
// Usage: record_stack tests/api/stack/big_local.ptx
#include "record.h"

#include <cuda.h>

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  std::string ptx = readFile(argv[1]);
  CUcontext c;
  CUmodule m;
  CUfunction fn;
  CUdeviceptr out;
  size_t v = 0;
  int local = 0;
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&c, nullptr, 0, 0));
  SHOW(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
  std::printf("default stack size %zu\n", v);
  SHOW(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 0));
  SHOW(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
  std::printf("after setting 0: %zu\n", v);
  SHOW(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 256));
  SHOW(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
  std::printf("after setting 256: %zu\n", v);
  SHOW(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 1000));
  SHOW(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
  std::printf("after setting 1000: %zu\n", v);
  SHOW(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, size_t(1) << 40));
  SHOW(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
  std::printf("after setting 2^40: %zu\n", v);
  SHOW(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 256));
  SHOW(cuModuleLoadData(&m, ptx.c_str()));
  SHOW(cuModuleGetFunction(&fn, m, "bigLocal"));
  SHOW(cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn));
  std::printf("local bytes %d\n", local);
  SHOW(cuMemAlloc(&out, 1024 * 4));
  int k = 3;
  void *args[] = {&out, &k};
  SHOW(cuLaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  SHOW(cuCtxSynchronize());
  SHOW(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE));
  std::printf("stack size after the launch: %zu\n", v);
  int h[4];
  SHOW(cuMemcpyDtoH(h, out, sizeof h));
  std::printf("out %d %d %d %d\n", h[0], h[1], h[2], h[3]);
  SHOW(cuCtxDestroy(c));
  return 0;
}
