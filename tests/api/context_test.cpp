// Contexts: creation in every ABI version, the per-thread stack, primary contexts, stale handles.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

// Older ABI versions that binaries built against earlier toolkits still link against.
extern "C" CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
extern "C" CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
                                   unsigned int flags, CUdevice dev);
extern "C" CUresult cuDevicePrimaryCtxRelease(CUdevice dev);

namespace {

class Context : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    CUcontext c;
    while (cuCtxPopCurrent(&c) == CUDA_SUCCESS) {
    }
  }
};

TEST_F(Context, CreateMakesCurrentAndDestroyRemoves) {
  CUcontext ctx = nullptr, cur = nullptr;
  ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  ASSERT_NE(ctx, nullptr);
  ASSERT_EQ(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
  EXPECT_EQ(cur, ctx);
  CUdevice d = -1;
  ASSERT_EQ(cuCtxGetDevice(&d), CUDA_SUCCESS);
  EXPECT_EQ(d, 0);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy(ctx), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
  EXPECT_EQ(cur, nullptr);
  EXPECT_EQ(cuCtxGetDevice(&d), CUDA_ERROR_INVALID_CONTEXT);
  // A destroyed handle is recognised, not dereferenced. As on an H200 (misuse.txt) it may be
  // made current, and calls in it answer CONTEXT_IS_DESTROYED.
  EXPECT_EQ(cuCtxDestroy(ctx), CUDA_ERROR_CONTEXT_IS_DESTROYED);
  EXPECT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxGetDevice(&d), CUDA_ERROR_CONTEXT_IS_DESTROYED);
  CUdeviceptr p;
  EXPECT_EQ(cuMemAlloc(&p, 16), CUDA_ERROR_CONTEXT_IS_DESTROYED);
  EXPECT_EQ(cuCtxPushCurrent(ctx), CUDA_SUCCESS);
  CUcontext popped = nullptr;
  EXPECT_EQ(cuCtxPopCurrent(&popped), CUDA_SUCCESS);
  EXPECT_EQ(popped, ctx);
  EXPECT_EQ(cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
  // A handle that never was a context stays invalid.
  EXPECT_EQ(cuCtxSetCurrent(reinterpret_cast<CUcontext>(&p)), CUDA_ERROR_INVALID_CONTEXT);
}

TEST_F(Context, EveryCreateVersion) {
  CUcontext a, b, c, d;
  ASSERT_EQ(cuCtxCreate_v2(&a, CU_CTX_SCHED_BLOCKING_SYNC, 0), CUDA_SUCCESS);
  unsigned flags = 0;
  ASSERT_EQ(cuCtxGetFlags(&flags), CUDA_SUCCESS);
  EXPECT_EQ(flags & CU_CTX_SCHED_MASK, unsigned(CU_CTX_SCHED_BLOCKING_SYNC));
  ASSERT_EQ(cuCtxCreate_v3(&b, nullptr, 0, 0, 0), CUDA_SUCCESS);
  CUctxCreateParams params{};
  ASSERT_EQ(cuCtxCreate_v4(&c, &params, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxCreate_v4(&d, nullptr, 0, 0), CUDA_SUCCESS);
  for (CUcontext x : {d, c, b, a})
    EXPECT_EQ(cuCtxDestroy_v2(x), CUDA_SUCCESS);
}

TEST_F(Context, CreateErrors) {
  CUcontext c;
  EXPECT_EQ(cuCtxCreate(nullptr, nullptr, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxCreate(&c, nullptr, 0, 7), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuCtxCreate(&c, nullptr, 0x3, 0), CUDA_ERROR_INVALID_VALUE); // two sched modes
  EXPECT_EQ(cuCtxCreate(&c, nullptr, 0x100, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxCreate_v3(&c, nullptr, 1, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxDestroy(nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxGetCurrent(nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Context, PushPopStack) {
  CUcontext a, b, popped = nullptr, cur = nullptr;
  ASSERT_EQ(cuCtxCreate(&a, nullptr, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxCreate(&b, nullptr, 0, 0), CUDA_SUCCESS); // stack: a b
  ASSERT_EQ(cuCtxPopCurrent(&popped), CUDA_SUCCESS);
  EXPECT_EQ(popped, b);
  ASSERT_EQ(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
  EXPECT_EQ(cur, a);
  ASSERT_EQ(cuCtxPushCurrent(b), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetCurrent(&cur), CUDA_SUCCESS);
  EXPECT_EQ(cur, b);
  ASSERT_EQ(cuCtxSetCurrent(a), CUDA_SUCCESS); // replaces the top
  ASSERT_EQ(cuCtxPopCurrent(&popped), CUDA_SUCCESS);
  EXPECT_EQ(popped, a);
  ASSERT_EQ(cuCtxPopCurrent(&popped), CUDA_SUCCESS);
  EXPECT_EQ(popped, a);
  EXPECT_EQ(cuCtxPopCurrent(&popped), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuCtxPushCurrent(nullptr), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuCtxDestroy(a), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy(b), CUDA_SUCCESS);
}

TEST_F(Context, StackIsPerThread) {
  CUcontext a;
  ASSERT_EQ(cuCtxCreate(&a, nullptr, 0, 0), CUDA_SUCCESS);
  CUcontext seen = reinterpret_cast<CUcontext>(0x1);
  std::thread([&] { cuCtxGetCurrent(&seen); }).join();
  EXPECT_EQ(seen, nullptr);
  ASSERT_EQ(cuCtxDestroy(a), CUDA_SUCCESS);
}

TEST_F(Context, ContextDestroyedOnAnotherThreadIsReported) {
  CUcontext a;
  ASSERT_EQ(cuCtxCreate(&a, nullptr, 0, 0), CUDA_SUCCESS);
  std::thread([&] { EXPECT_EQ(cuCtxDestroy(a), CUDA_SUCCESS); }).join();
  CUdevice d;
  EXPECT_EQ(cuCtxGetDevice(&d), CUDA_ERROR_CONTEXT_IS_DESTROYED);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_CONTEXT_IS_DESTROYED);
  CUcontext c;
  EXPECT_EQ(cuCtxPopCurrent(&c), CUDA_SUCCESS);
}

TEST_F(Context, PrimaryContextLifecycle) {
  unsigned flags = 99;
  int active = -1;
  ASSERT_EQ(cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
  EXPECT_EQ(active, 0);
  ASSERT_EQ(cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_YIELD), CUDA_SUCCESS);
  CUcontext p1, p2;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&p1, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&p2, 0), CUDA_SUCCESS);
  EXPECT_EQ(p1, p2);
  ASSERT_EQ(cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
  EXPECT_EQ(active, 1);
  EXPECT_EQ(flags, unsigned(CU_CTX_SCHED_YIELD));
  ASSERT_EQ(cuCtxSetCurrent(p1), CUDA_SUCCESS);
  CUdevice d = -1;
  ASSERT_EQ(cuCtxGetDevice_v2(&d, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(d, 0);
  EXPECT_EQ(cuCtxSynchronize_v2(p1), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxDestroy(p1), CUDA_ERROR_INVALID_CONTEXT); // primary: release, not destroy
  ASSERT_EQ(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
  EXPECT_EQ(active, 1);
  ASSERT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
  EXPECT_EQ(active, 0);
  EXPECT_EQ(cuDevicePrimaryCtxRelease_v2(0), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_CONTEXT_IS_DESTROYED); // p1 still on the stack
  ASSERT_EQ(cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&p1, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
  EXPECT_EQ(active, 0);
  EXPECT_EQ(cuDevicePrimaryCtxSetFlags_v2(0, 0x3), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDevicePrimaryCtxRetain(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDevicePrimaryCtxRetain(&p1, 3), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuDevicePrimaryCtxGetState(0, nullptr, &active), CUDA_ERROR_INVALID_VALUE);
}

// Exit handlers run after the main thread's thread-local destructors; NVIDIA's libraries free
// their device memory from them (cuFFT), so the context must still be current there. (The stack
// was a thread-local vector, and this read freed memory: AddressSanitizer under
// api_libraries_answers.) The expected line is an H200's (tests/gpu/record_exit_handler.cpp,
// tests/gpu/answers/exit_handler.txt).
CUdeviceptr exitBuffer;
void freeAtExit() {
  CUcontext cur = nullptr;
  const CUresult current = cuCtxGetCurrent(&cur);
  const CUresult freed = cuMemFree(exitBuffer);
  std::fprintf(stderr, "at exit: current %d %s, free %d\n", int(current), cur ? "set" : "null",
               int(freed));
  // A failing call keeps its reason, a succeeding one drops it: neither may touch thread-local
  // objects already destroyed (the reason was a thread_local std::string: ThreadSanitizer and
  // AddressSanitizer report the use after free).
  CUdevice d;
  std::fprintf(stderr, "at exit: cuDeviceGet(999) %d\n", int(cuDeviceGet(&d, 999)));
}

TEST(ContextAtExit, ExitHandlersStillHaveTheMainThreadsContext) {
  EXPECT_EXIT(
      {
        CUcontext c;
        if (cuInit(0) != CUDA_SUCCESS || cuCtxCreate(&c, nullptr, 0, 0) != CUDA_SUCCESS ||
            cuMemAlloc(&exitBuffer, 64) != CUDA_SUCCESS)
          std::exit(1);
        std::atexit(freeAtExit);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0),
      "at exit: current 0 set, free 0\nat exit: cuDeviceGet\\(999\\) 101");
}

} // namespace
