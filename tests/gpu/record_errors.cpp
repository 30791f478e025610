// Prints the CUresult NVIDIA's driver returns for API misuse, to compare cucpu's error paths
// with the real driver. Usage: record_errors <kernels.ptx>
#include "record.h"

#include <cuda.h>

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  std::string ptx = readFile(argv[1]);
  int n = 0, v = 0;
  CUdevice d = 0;
  CUcontext c = nullptr, c2 = nullptr;
  CUdeviceptr p = 0;
  CUmodule m = nullptr;
  CUfunction fn = nullptr;
  char name[64];
  const char *s = nullptr;
  SHOW(cuDeviceGetCount(&n));
  SHOW(cuInit(1));
  SHOW(cuInit(0));
  SHOW(cuDeviceGetCount(nullptr));
  SHOW(cuDeviceGet(&d, 99));
  SHOW(cuDeviceGet(&d, -1));
  SHOW(cuDeviceGet(nullptr, 0));
  SHOW(cuDeviceGetName(nullptr, 10, 0));
  SHOW(cuDeviceGetName(name, 0, 0));
  SHOW(cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(0), 0));
  SHOW(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX, 0));
  SHOW(cuDeviceGetAttribute(nullptr, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0));
  SHOW(cuCtxGetDevice(&d));
  SHOW(cuCtxPopCurrent(&c));
  SHOW(cuMemAlloc(&p, 16));
  SHOW(cuCtxCreate(nullptr, nullptr, 0, 0));
  SHOW(cuCtxCreate(&c, nullptr, 0x3, 0));
  SHOW(cuCtxCreate(&c, nullptr, 0x100, 0));
  SHOW(cuCtxCreate(&c, nullptr, 0, 99));
  SHOW(cuCtxDestroy(nullptr));
  SHOW(cuDevicePrimaryCtxRelease(0));
  SHOW(cuDevicePrimaryCtxSetFlags(0, 0x3));
  SHOW(cuCtxCreate(&c, nullptr, 0, 0));
  SHOW(cuCtxCreate(&c2, nullptr, 0, 0));
  SHOW(cuCtxDestroy(c2));
  SHOW(cuCtxGetDevice(&d));
  SHOW(cuCtxSetCurrent(c));
  SHOW(cuMemAlloc(&p, 0));
  SHOW(cuMemAlloc(nullptr, 16));
  SHOW(cuMemFree(0));
  SHOW(cuMemFree(0x1234));
  SHOW(cuMemAlloc(&p, 64));
  SHOW(cuMemFree(p + 4));
  SHOW(cuMemsetD32(p + 2, 0, 1));
  SHOW(cuMemsetD32(p, 0, 17));
  SHOW(cuMemcpyHtoD(p, nullptr, 4));
  SHOW(cuMemcpyHtoD(p, name, 0));
  SHOW(cuMemGetInfo(nullptr, nullptr));
  SHOW(cuModuleLoadData(&m, ""));
  SHOW(cuModuleLoadData(&m, "\x01\x02garbage{{{"));
  SHOW(cuModuleLoadData(&m, "\x7f"
                            "ELF\x02\x01\x01"));
  SHOW(cuModuleLoad(&m, "/nonexistent/k.ptx"));
  SHOW(cuModuleLoadData(nullptr, ptx.c_str()));
  SHOW(cuModuleLoadData(&m, ptx.c_str()));
  SHOW(cuModuleGetFunction(&fn, m, "NoSuchKernel"));
  SHOW(cuModuleGetFunction(nullptr, m, "VecAdd_kernel"));
  SHOW(cuModuleGetFunction(&fn, m, nullptr));
  SHOW(cuModuleGetFunction(&fn, m, "VecAdd_kernel"));
  void *args[] = {&p, &p, &p, &n};
  SHOW(cuLaunchKernel(fn, 1, 1, 1, 1025, 1, 1, 0, nullptr, args, nullptr));
  SHOW(cuLaunchKernel(fn, 1, 1, 1, 32, 32, 2, 0, nullptr, args, nullptr));
  SHOW(cuLaunchKernel(fn, 0, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  SHOW(cuLaunchKernel(fn, 1, 70000, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  SHOW(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 1 << 20, nullptr, args, nullptr));
  SHOW(cuLaunchKernel(nullptr, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
  SHOW(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1 << 30));
  SHOW(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, fn));
  std::printf("ptx version attribute = %d\n", v);
  SHOW(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn));
  std::printf("max threads attribute = %d\n", v);
  SHOW(cuModuleUnload(nullptr));
  SHOW(cuModuleUnload(m));
  SHOW(cuGetErrorName(static_cast<CUresult>(123456), &s));
  SHOW(cuGetErrorString(static_cast<CUresult>(123456), &s));
  SHOW(cuCtxDestroy(c));
  SHOW(cuCtxSynchronize());
  return 0;
}
