// Records NVIDIA's green contexts: SM resources of the device, their split into groups, resource
// descriptors, green contexts made from them, their streams, events and the contexts they
// convert to, and the refusals of each call. SM counts differ between devices, so only their
// relations are printed. Its output on cucpu must equal the GPU's (tests/gpu/answers/green_ctx.txt,
// compared by the ctest api_green_ctx_answers). Usage: record_green_ctx graph_kernels.ptx
#include "record.h"

#include <cuda.h>

#include <cstring>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s graph_kernels.ptx\n", argv[0]);
    return 2;
  }
  CUcontext primary;
  SHOW(cuInit(0));
  SHOW(cuDevicePrimaryCtxRetain(&primary, 0));
  SHOW(cuCtxSetCurrent(primary));
  CUdevResource whole, groups[4], rest, bad;
  std::memset(&bad, 0, sizeof bad);
  SHOW(cuDeviceGetDevResource(0, nullptr, CU_DEV_RESOURCE_TYPE_SM));
  SHOW(cuDeviceGetDevResource(0, &whole, CU_DEV_RESOURCE_TYPE_INVALID));
  SHOW(cuDeviceGetDevResource(9, &whole, CU_DEV_RESOURCE_TYPE_SM));
  SHOW(cuDeviceGetDevResource(0, &whole, CU_DEV_RESOURCE_TYPE_SM));
  int sms = 0;
  SHOW(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0));
  std::printf("type %d, whole device %d, partition >= alignment %d\n", int(whole.type),
              int(whole.sm.smCount == unsigned(sms)),
              int(whole.sm.minSmPartitionSize >= whole.sm.smCoscheduledAlignment));
  CUdevResource fromCtx;
  SHOWV(cuCtxGetDevResource(primary, &fromCtx, CU_DEV_RESOURCE_TYPE_SM),
        fromCtx.sm.smCount == whole.sm.smCount);

  std::printf("-- splits\n");
  unsigned n = 0;
  const unsigned size = whole.sm.minSmPartitionSize;
  SHOW(cuDevSmResourceSplitByCount(nullptr, nullptr, &whole, nullptr, 0, size));
  SHOW(cuDevSmResourceSplitByCount(nullptr, &n, nullptr, nullptr, 0, size));
  SHOW(cuDevSmResourceSplitByCount(nullptr, &n, &bad, nullptr, 0, size));
  SHOW(cuDevSmResourceSplitByCount(nullptr, &n, &whole, nullptr, 4, size));
  SHOW(cuDevSmResourceSplitByCount(nullptr, &n, &whole, nullptr, 0, whole.sm.smCount + 1));
  SHOWV(cuDevSmResourceSplitByCount(nullptr, &n, &whole, nullptr, 0, size),
        n >= 2 && n <= whole.sm.smCount / size);
  n = 2;
  SHOWV(cuDevSmResourceSplitByCount(groups, &n, &whole, &rest, 0, size), n);
  std::printf(
      "groups of %s, remainder complete %d\n",
      groups[0].sm.smCount == size && groups[1].sm.smCount == size ? "the size" : "?",
      int(groups[0].sm.smCount + groups[1].sm.smCount + rest.sm.smCount == whole.sm.smCount));
  CUdevResource other[2], otherRest;
  n = 2;
  SHOW(cuDevSmResourceSplitByCount(other, &n, &whole, &otherRest, 0, size));

  std::printf("-- descriptors\n");
  CUdevResourceDesc one, two, mixed;
  SHOW(cuDevResourceGenerateDesc(nullptr, groups, 1));
  // (No resources at all crashes NVIDIA's driver; cucpu answers INVALID_VALUE.)
  SHOW(cuDevResourceGenerateDesc(&one, &bad, 1));
  CUdevResource pairFromTwoSplits[2] = {groups[0], other[1]};
  SHOW(cuDevResourceGenerateDesc(&mixed, pairFromTwoSplits, 2));
  SHOW(cuDevResourceGenerateDesc(&one, groups, 1));
  SHOW(cuDevResourceGenerateDesc(&two, groups, 2));

  std::printf("-- green contexts\n");
  CUgreenCtx green = nullptr, second = nullptr;
  SHOW(cuGreenCtxCreate(&green, one, 0, 0));
  SHOW(cuGreenCtxCreate(&green, one, 0, 2));
  SHOW(cuGreenCtxCreate(nullptr, one, 0, CU_GREEN_CTX_DEFAULT_STREAM));
  SHOW(cuGreenCtxCreate(&green, one, 0, CU_GREEN_CTX_DEFAULT_STREAM));
  SHOW(cuGreenCtxCreate(&second, two, 0, CU_GREEN_CTX_DEFAULT_STREAM));
  CUcontext current = nullptr;
  SHOWV(cuCtxGetCurrent(&current), current == primary);
  CUdevResource g1, g2;
  SHOWV(cuGreenCtxGetDevResource(green, &g1, CU_DEV_RESOURCE_TYPE_SM), g1.sm.smCount == size);
  SHOWV(cuGreenCtxGetDevResource(second, &g2, CU_DEV_RESOURCE_TYPE_SM), g2.sm.smCount == 2 * size);
  SHOW(cuGreenCtxGetDevResource(nullptr, &g1, CU_DEV_RESOURCE_TYPE_SM));
  CUcontext gctx = nullptr;
  SHOW(cuCtxFromGreenCtx(nullptr, green));
  SHOWV(cuCtxFromGreenCtx(&gctx, green), gctx != nullptr && gctx != primary);
  CUdevResource viaCtx;
  SHOWV(cuCtxGetDevResource(gctx, &viaCtx, CU_DEV_RESOURCE_TYPE_SM), viaCtx.sm.smCount == size);
  unsigned long long id1 = 0, id2 = 0;
  SHOW(cuGreenCtxGetId(green, &id1));
  SHOW(cuGreenCtxGetId(second, &id2));
  SHOW(id1 != id2);

  std::printf("-- work in a green context\n");
  CUstream gs, plain;
  SHOW(cuGreenCtxStreamCreate(&gs, green, 0, 0));
  SHOW(cuGreenCtxStreamCreate(&gs, green, CU_STREAM_NON_BLOCKING, 0));
  SHOW(cuStreamCreate(&plain, CU_STREAM_NON_BLOCKING));
  CUgreenCtx found = nullptr;
  SHOWV(cuStreamGetGreenCtx(gs, &found), found == green);
  SHOWV(cuStreamGetGreenCtx(plain, &found), found == nullptr);
  SHOW(cuCtxSetCurrent(gctx));
  SHOWV(cuStreamGetGreenCtx(nullptr, &found), found == green);
  CUmodule mod;
  const std::string ptx = readFile(argv[1]);
  SHOW(cuModuleLoadData(&mod, ptx.c_str()));
  CUfunction add;
  SHOW(cuModuleGetFunction(&add, mod, "add"));
  CUdeviceptr d;
  SHOW(cuMemAlloc(&d, 4096 * 4));
  SHOW(cuMemsetD32(d, 1, 4096));
  unsigned v = 6, count = 4096;
  void *args[] = {&d, &v, &count};
  SHOW(cuLaunchKernel(add, 32, 1, 1, 128, 1, 1, 0, gs, args, nullptr));
  CUevent e;
  SHOW(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
  SHOW(cuGreenCtxRecordEvent(green, e));
  SHOW(cuGreenCtxWaitEvent(second, e));
  SHOW(cuEventSynchronize(e));
  unsigned h[4096];
  SHOW(cuMemcpyDtoH(h, d, sizeof h));
  std::printf("results: %u %u\n", h[0], h[4095]);
  SHOW(cuEventDestroy(e));
  SHOW(cuMemFree(d));
  SHOW(cuModuleUnload(mod));
  SHOW(cuStreamDestroy(gs));
  SHOW(cuCtxSetCurrent(primary));
  SHOW(cuStreamDestroy(plain));
  SHOW(cuGreenCtxDestroy(second));
  SHOW(cuGreenCtxDestroy(green));
  SHOW(cuGreenCtxDestroy(green));
  SHOW(cuDevicePrimaryCtxRelease(0));
  return 0;
}
