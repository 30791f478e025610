// The first ABI versions of entry points that cuda.h now maps to newer ones (reached through
// dlsym, as programs built against older headers reach them), and the remaining misuse cases of
// stream-ordered copies, memsets and allocations. Codes as NVIDIA's driver gives them (H200,
// driver 580.159.04, tests/gpu/record_old_abi.cpp).
#include <cuda.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

namespace {

template <typename F> F sym(const char *name) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr;
}

class OldAbi : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);
  }
  void TearDown() override {
    cuStreamDestroy(s);
    cuCtxDestroy(ctx);
  }
  CUcontext ctx = nullptr;
  CUstream s = nullptr;
};

TEST_F(OldAbi, DeviceAndPrimaryContextV1) {
  auto uuid = sym<CUresult (*)(CUuuid *, CUdevice)>("cuDeviceGetUuid");
  auto release = sym<CUresult (*)(CUdevice)>("cuDevicePrimaryCtxRelease");
  auto reset = sym<CUresult (*)(CUdevice)>("cuDevicePrimaryCtxReset");
  auto setFlags = sym<CUresult (*)(CUdevice, unsigned)>("cuDevicePrimaryCtxSetFlags");
  ASSERT_TRUE(uuid && release && reset && setFlags);
  CUuuid u;
  EXPECT_EQ(uuid(&u, 0), CUDA_SUCCESS);
  EXPECT_EQ(uuid(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(uuid(&u, 99), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(release(99), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(reset(99), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(setFlags(99, 0), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(setFlags(0, 0xff), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(OldAbi, LinkerStreamAndManagedMemoryV1) {
  auto linkCreate =
      sym<CUresult (*)(unsigned, CUjit_option *, void **, CUlinkState *)>("cuLinkCreate");
  auto linkAddData = sym<CUresult (*)(CUlinkState, CUjitInputType, void *, size_t, const char *,
                                      unsigned, CUjit_option *, void **)>("cuLinkAddData");
  auto linkAddFile = sym<CUresult (*)(CUlinkState, CUjitInputType, const char *, unsigned,
                                      CUjit_option *, void **)>("cuLinkAddFile");
  auto captureInfo =
      sym<CUresult (*)(CUstream, CUstreamCaptureStatus *, cuuint64_t *)>("cuStreamGetCaptureInfo");
  auto streamCtx = sym<CUresult (*)(CUstream, CUcontext *)>("cuStreamGetCtx");
  auto advise = sym<CUresult (*)(CUdeviceptr, size_t, CUmem_advise, CUdevice)>("cuMemAdvise");
  auto prefetch = sym<CUresult (*)(CUdeviceptr, size_t, CUdevice, CUstream)>("cuMemPrefetchAsync");
  ASSERT_TRUE(linkCreate && linkAddData && linkAddFile && captureInfo && streamCtx && advise &&
              prefetch);
  char text[8] = "x";
  EXPECT_EQ(linkCreate(0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(linkAddData(nullptr, CU_JIT_INPUT_PTX, text, 4, "x", 0, nullptr, nullptr),
            CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(linkAddFile(nullptr, CU_JIT_INPUT_PTX, "x.ptx", 0, nullptr, nullptr),
            CUDA_ERROR_INVALID_HANDLE);
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  cuuint64_t id = 0;
  EXPECT_EQ(captureInfo(s, &st, &id), CUDA_SUCCESS);
  EXPECT_EQ(st, CU_STREAM_CAPTURE_STATUS_NONE);
  CUcontext c = nullptr;
  EXPECT_EQ(streamCtx(s, &c), CUDA_SUCCESS);
  EXPECT_EQ(c, ctx);
  EXPECT_EQ(streamCtx(s, nullptr), CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr p = 0, m = 0;
  ASSERT_EQ(cuMemAlloc(&p, 4096), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
  EXPECT_EQ(advise(p, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(advise(m, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, CU_DEVICE_CPU), CUDA_SUCCESS);
  EXPECT_EQ(advise(m, 4096, CU_MEM_ADVISE_SET_ACCESSED_BY, 99), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(prefetch(m, 0, 0, s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(prefetch(m, 4096, 0, s), CUDA_SUCCESS);
  EXPECT_EQ(prefetch(m, 4096, 99, s), CUDA_ERROR_INVALID_DEVICE);
  int preferred = 0;
  EXPECT_EQ(
      cuMemRangeGetAttribute(&preferred, 4, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 4096),
      CUDA_SUCCESS);
  EXPECT_EQ(preferred, CU_DEVICE_CPU);
  EXPECT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  cuMemFree(m);
  cuMemFree(p);
}

TEST_F(OldAbi, StreamOrderedMisuse) {
  CUdeviceptr p = 0, a = 1;
  char host[64] = {};
  ASSERT_EQ(cuMemAlloc(&p, 4096), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyHtoDAsync(p, host, 64, s), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyHtoDAsync(p + 4090, host, 16, s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyDtoHAsync(host, p + 4090, 16, s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyDtoHAsync(host, p, 64, s), CUDA_SUCCESS);
  CUstream sp;
  EXPECT_EQ(cuStreamCreateWithPriority(&sp, 0xff, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuStreamCreateWithPriority(&sp, 0, -100), CUDA_SUCCESS);
  int prio = 7;
  EXPECT_EQ(cuStreamGetPriority(sp, &prio), CUDA_SUCCESS);
  EXPECT_EQ(prio, -5); // clamped into the range cuCtxGetStreamPriorityRange reports
  EXPECT_EQ(cuStreamGetPriority(sp, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD2D8Async(p, 10, 1, 32, 4, s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD2D16Async(p + 1, 64, 1, 8, 4, s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD2D8Async(p, 64, 1, 32, 4, s), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAllocAsync(&a, 0, s), CUDA_SUCCESS); // nothing allocated, no error
  EXPECT_EQ(cuMemAllocAsync(nullptr, 64, s), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemAllocAsync(&a, 1024, s), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD8Async(a, 3, 1024, s), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeAsync(a, s), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeAsync(0, s), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  cuStreamDestroy(sp);
  cuMemFree(p);
}

// The first context-management ABI (before the _v2 symbols): the documented behaviour. (NVIDIA's
// current driver answers CUDA_ERROR_OUT_OF_MEMORY to the v1 cuCtxCreate; its argument checks
// are the ones asserted here.)
TEST_F(OldAbi, LegacyContextCallsV1) {
  auto create = sym<CUresult (*)(CUcontext *, unsigned, CUdevice)>("cuCtxCreate");
  auto destroy = sym<CUresult (*)(CUcontext)>("cuCtxDestroy");
  auto push = sym<CUresult (*)(CUcontext)>("cuCtxPushCurrent");
  auto pop = sym<CUresult (*)(CUcontext *)>("cuCtxPopCurrent");
  ASSERT_TRUE(create && destroy && push && pop);
  EXPECT_EQ(create(nullptr, 0, 0), CUDA_ERROR_INVALID_VALUE);
  CUcontext c1 = nullptr, popped = nullptr;
  EXPECT_EQ(create(&c1, 0, 99), CUDA_ERROR_INVALID_DEVICE);
  ASSERT_EQ(create(&c1, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(pop(&popped), CUDA_SUCCESS);
  EXPECT_EQ(popped, c1);
  EXPECT_EQ(push(nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(push(c1), CUDA_SUCCESS);
  EXPECT_EQ(destroy(nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(destroy(c1), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
}

// Capture queries and unified functions: their documented errors.
TEST_F(OldAbi, CaptureQueriesWithoutAContextAndUnifiedFunctions) {
  CUcontext popped;
  ASSERT_EQ(cuCtxPopCurrent(&popped), CUDA_SUCCESS);
  CUstreamCaptureStatus st;
  EXPECT_EQ(cuStreamIsCapturing(nullptr, &st), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuStreamGetCaptureInfo(nullptr, &st, nullptr, nullptr, nullptr, nullptr, nullptr),
            CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_EQ(cuCtxPushCurrent(popped), CUDA_SUCCESS);
  const char ptx[] = ".version 7.0\n.target sm_75\n.address_size 64\n"
                     ".visible .entry k() { ret; }\n";
  CUlibrary lib;
  ASSERT_EQ(cuLibraryLoadData(&lib, ptx, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
  void *fp = nullptr;
  // PTX has no functions callable from both host and device.
  EXPECT_EQ(cuLibraryGetUnifiedFunction(&fp, lib, "k"), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(cuLibraryGetUnifiedFunction(nullptr, lib, "k"), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLibraryGetUnifiedFunction(&fp, nullptr, "k"), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLibraryUnload(lib), CUDA_SUCCESS);
}

// cuEventElapsedTime v1 and cuStreamGetCaptureInfo v2, which cuda.h no longer names.
TEST_F(OldAbi, ElapsedTimeV1AndCaptureInfoV2) {
  auto elapsed = sym<CUresult (*)(float *, CUevent, CUevent)>("cuEventElapsedTime");
  auto info2 = sym<CUresult (*)(CUstream, CUstreamCaptureStatus *, cuuint64_t *, CUgraph *,
                                const CUgraphNode **, size_t *)>("cuStreamGetCaptureInfo_v2");
  ASSERT_TRUE(elapsed && info2);
  CUevent a, b;
  ASSERT_EQ(cuEventCreate(&a, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&b, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(a, s), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(b, s), CUDA_SUCCESS);
  ASSERT_EQ(cuEventSynchronize(b), CUDA_SUCCESS);
  float ms = -1;
  EXPECT_EQ(elapsed(&ms, a, b), CUDA_SUCCESS);
  EXPECT_GE(ms, 0.0f);
  EXPECT_EQ(elapsed(nullptr, a, b), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(elapsed(&ms, nullptr, b), CUDA_ERROR_INVALID_HANDLE);
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  EXPECT_EQ(info2(s, &st, nullptr, nullptr, nullptr, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(st, CU_STREAM_CAPTURE_STATUS_NONE);
  cuEventDestroy(a);
  cuEventDestroy(b);
}

} // namespace
