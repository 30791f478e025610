// Prints NVIDIA's driver's answers for the last error paths tests/api/sticky_errors_test.cpp
// checks: calls without a current context, out-of-range stream-ordered operations, a stream of
// another context, and stream/event calls after a kernel trapped (the sticky error).
// Usage: record_sticky tests/e2e/faults_kernels.ptx
#include "record.h"

#include <cuda.h>

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  std::string ptx = readFile(argv[1]);
  CUcontext c, other, popped;
  CUstream s, so;
  CUevent e;
  CUdeviceptr p = 0;
  size_t fr = 0, tot = 0;
  int local = 0;
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&c, nullptr, 0, 0));
  SHOW(cuCtxPopCurrent(&popped));
  SHOW(cuMemGetInfo(&fr, &tot));
  SHOW(cuCtxResetPersistingL2Cache());
  SHOW(cuCtxCreate(&other, nullptr, 0, 0));
  SHOW(cuStreamCreate(&so, 0));
  SHOW(cuCtxSetCurrent(c));
  SHOW(cuStreamCreate(&s, 0));
  SHOW(cuStreamCopyAttributes(s, so));
  SHOW(cuStreamQuery(so));
  SHOW(cuMemAlloc(&p, 4096));
  SHOW(cuMemsetD16Async(p, 0x0101, 2048, s));
  SHOW(cuMemcpyDtoDAsync(p, p + 2048, 4096, s));
  SHOW(cuMemFreeAsync(reinterpret_cast<CUdeviceptr>(&local), s));
  CUDA_MEMCPY3D c3 = {};
  c3.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c3.srcDevice = p;
  c3.srcPitch = 16;
  c3.srcHeight = 2;
  c3.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c3.dstDevice = p + 2048;
  c3.dstPitch = 64;
  c3.dstHeight = 2;
  c3.WidthInBytes = 32;
  c3.Height = 2;
  c3.Depth = 2;
  SHOW(cuMemcpy3DAsync(&c3, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuEventCreate(&e, 0));
  // A kernel traps: the context's sticky error.
  CUmodule m;
  CUfunction trapper;
  SHOW(cuModuleLoadData(&m, ptx.c_str()));
  SHOW(cuModuleGetFunction(&trapper, m, "trapper"));
  int when = 0;
  void *args[] = {&when};
  SHOW(cuLaunchKernel(trapper, 1, 1, 1, 32, 1, 1, 0, s, args, nullptr));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuStreamQuery(s));
  SHOW(cuEventRecord(e, s));
  SHOW(cuEventQuery(e));
  SHOW(cuEventSynchronize(e));
  SHOW(cuCtxSynchronize());
  return 0;
}
