// Prints NVIDIA's driver's codes for the first ABI versions of entry points that cuda.h now maps
// to newer ones (called through dlsym), and for the last misuse cases tests/api checks:
// tests/api/old_abi_test.cpp asserts the same codes in cucpu.
#include "record.h"

#include <cuda.h>
#include <dlfcn.h>

#include <cstdio>

template <typename F> F sym(const char *name) {
  static void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  return reinterpret_cast<F>(dlsym(lib, name));
}

int main() {
  using CtxCreate = CUresult (*)(CUcontext *, unsigned, CUdevice);
  using CtxOne = CUresult (*)(CUcontext);
  using CtxOut = CUresult (*)(CUcontext *);
  using DevUuid = CUresult (*)(CUuuid *, CUdevice);
  using DevOnly = CUresult (*)(CUdevice);
  using DevFlags = CUresult (*)(CUdevice, unsigned);
  using LinkCreate = CUresult (*)(unsigned, CUjit_option *, void **, CUlinkState *);
  using LinkAddData = CUresult (*)(CUlinkState, CUjitInputType, void *, size_t, const char *,
                                   unsigned, CUjit_option *, void **);
  using LinkAddFile =
      CUresult (*)(CUlinkState, CUjitInputType, const char *, unsigned, CUjit_option *, void **);
  using CaptureInfo = CUresult (*)(CUstream, CUstreamCaptureStatus *, cuuint64_t *);
  using StreamCtx = CUresult (*)(CUstream, CUcontext *);
  using Advise = CUresult (*)(CUdeviceptr, size_t, CUmem_advise, CUdevice);
  using Prefetch = CUresult (*)(CUdeviceptr, size_t, CUdevice, CUstream);
  CUcontext c = nullptr, c1 = nullptr, popped = nullptr;
  CUuuid uuid;
  CUstream s = nullptr, sp = nullptr;
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  cuuint64_t id = 0;
  CUdeviceptr p = 0, m = 0, a = 0;
  char host[64];
  int prio = 7;
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&c, nullptr, 0, 0));
  SHOW(sym<CtxCreate>("cuCtxCreate")(&c1, 0, 0));
  SHOW(sym<CtxCreate>("cuCtxCreate")(nullptr, 0, 0));
  SHOW(sym<CtxCreate>("cuCtxCreate")(&c1, 0, 99));
  SHOW(sym<CtxOut>("cuCtxPopCurrent")(&popped));
  std::printf("popped the new context: %d\n", popped == c1);
  SHOW(sym<CtxOne>("cuCtxPushCurrent")(c1));
  SHOW(sym<CtxOne>("cuCtxPushCurrent")(nullptr));
  SHOW(sym<CtxOut>("cuCtxPopCurrent")(nullptr));
  SHOW(sym<CtxOne>("cuCtxDestroy")(c1));
  SHOW(sym<CtxOne>("cuCtxDestroy")(nullptr));
  SHOW(cuCtxSetCurrent(c));
  SHOW(sym<DevUuid>("cuDeviceGetUuid")(&uuid, 0));
  SHOW(sym<DevUuid>("cuDeviceGetUuid")(nullptr, 0));
  SHOW(sym<DevUuid>("cuDeviceGetUuid")(&uuid, 99));
  SHOW(sym<DevOnly>("cuDevicePrimaryCtxRelease")(99));
  SHOW(sym<DevOnly>("cuDevicePrimaryCtxReset")(99));
  SHOW(sym<DevFlags>("cuDevicePrimaryCtxSetFlags")(99, 0));
  SHOW(sym<DevFlags>("cuDevicePrimaryCtxSetFlags")(0, 0xff));
  SHOW(sym<LinkCreate>("cuLinkCreate")(0, nullptr, nullptr, nullptr));
  SHOW(sym<LinkAddData>("cuLinkAddData")(nullptr, CU_JIT_INPUT_PTX, host, 4, "x", 0, nullptr,
                                         nullptr));
  SHOW(sym<LinkAddFile>("cuLinkAddFile")(nullptr, CU_JIT_INPUT_PTX, "x.ptx", 0, nullptr, nullptr));
  SHOW(cuStreamCreate(&s, 0));
  SHOW(sym<CaptureInfo>("cuStreamGetCaptureInfo")(s, &st, &id));
  std::printf("status %d\n", st);
  SHOW(sym<StreamCtx>("cuStreamGetCtx")(s, &popped));
  std::printf("stream context is c: %d\n", popped == c);
  SHOW(sym<StreamCtx>("cuStreamGetCtx")(s, nullptr));
  SHOW(cuMemAlloc(&p, 4096));
  SHOW(cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL));
  SHOW(sym<Advise>("cuMemAdvise")(p, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, 0));
  SHOW(sym<Advise>("cuMemAdvise")(m, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, CU_DEVICE_CPU));
  SHOW(sym<Advise>("cuMemAdvise")(m, 4096, CU_MEM_ADVISE_SET_ACCESSED_BY, 99));
  SHOW(sym<Prefetch>("cuMemPrefetchAsync")(m, 0, 0, s));
  SHOW(sym<Prefetch>("cuMemPrefetchAsync")(m, 4096, 0, s));
  SHOW(sym<Prefetch>("cuMemPrefetchAsync")(m, 4096, 99, s));
  SHOW(cuMemcpyHtoDAsync(p, host, 64, s));
  SHOW(cuMemcpyHtoDAsync(p + 4090, host, 16, s));
  SHOW(cuMemcpyDtoHAsync(host, p + 4090, 16, s));
  SHOW(cuMemcpyDtoHAsync(host, p, 64, s));
  SHOW(cuStreamCreateWithPriority(&sp, 0xff, 0));
  SHOW(cuStreamCreateWithPriority(&sp, 0, -100));
  SHOW(cuStreamGetPriority(sp, &prio));
  std::printf("priority -100 became %d\n", prio);
  SHOW(cuStreamGetPriority(sp, nullptr));
  SHOW(cuMemsetD2D8Async(p, 10, 1, 32, 4, s));
  SHOW(cuMemsetD2D16Async(p + 1, 64, 1, 8, 4, s));
  SHOW(cuMemsetD2D8Async(p, 64, 1, 32, 4, s));
  SHOW(cuMemAllocAsync(&a, 0, s));
  SHOW(cuMemAllocAsync(nullptr, 64, s));
  SHOW(cuMemAllocAsync(&a, 1024, s));
  SHOW(cuMemFreeAsync(a, s));
  SHOW(cuMemFreeAsync(0, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuStreamDestroy(sp));
  SHOW(cuStreamDestroy(s));
  SHOW(cuCtxDestroy(c));
  return 0;
}
