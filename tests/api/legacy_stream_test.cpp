// The legacy default stream as an H100 with driver 580 runs it
// (tests/gpu/record_legacy_stream.cpp): launches on stream 0 return at once, so a kernel can wait
// for the host; blocking streams follow earlier stream-0 work and stream 0 follows earlier
// blocking-stream work, non-blocking streams run beside it; events recorded on stream 0 complete
// with its work. Streams and events of a destroyed context are invalid handles (NVIDIA's driver
// crashes on some of those event calls).
#include <cuda.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;

std::string readSource(const char *relative) {
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/" + relative);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

class LegacyStream : public testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
    spinPtx = readSource("tests/api/free/spin.ptx");
    waitPtx = readSource("tests/api/stream0/waiters.ptx");
    ASSERT_EQ(cuModuleLoadData(&spinModule, spinPtx.c_str()), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleLoadData(&waitModule, waitPtx.c_str()), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&spin, spinModule, "spin"), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&waitFlag, waitModule, "waitFlag"), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&copyWord, waitModule, "copyWord"), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&blocking, CU_STREAM_DEFAULT), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&nonBlocking, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc(&flag, 8), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc(&out, 8), CUDA_SUCCESS);
    // Each kernel once, so that compiling it is not what the timings below see.
    unsigned long long none = 0;
    void *spinArgs[] = {&none, &flag}, *copyArgs[] = {&flag, &out};
    ASSERT_EQ(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, nullptr, spinArgs, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(cuLaunchKernel(copyWord, 1, 1, 1, 1, 1, 1, 0, nullptr, copyArgs, nullptr),
              CUDA_SUCCESS);
    ASSERT_EQ(cuMemsetD8(flag, 0, 8), CUDA_SUCCESS);
    ASSERT_EQ(cuMemsetD8(out, 0, 8), CUDA_SUCCESS);
  }
  void TearDown() override { cuCtxDestroy(ctx); }

  // A 300 ms kernel on `s` that then writes 1 to `flag`.
  void startSpin(CUstream s) {
    unsigned long long ns = 300000000ull;
    void *args[] = {&ns, &flag};
    ASSERT_EQ(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, s, args, nullptr), CUDA_SUCCESS);
  }
  void copyFlag(CUstream s) {
    void *args[] = {&flag, &out};
    ASSERT_EQ(cuLaunchKernel(copyWord, 1, 1, 1, 1, 1, 1, 0, s, args, nullptr), CUDA_SUCCESS);
  }
  unsigned long long copied() {
    unsigned long long v = 0;
    EXPECT_EQ(cuMemcpyDtoH(&v, out, sizeof v), CUDA_SUCCESS);
    return v;
  }

  CUcontext ctx = nullptr;
  std::string spinPtx, waitPtx;
  CUmodule spinModule, waitModule;
  CUfunction spin, waitFlag, copyWord;
  CUstream blocking, nonBlocking;
  CUdeviceptr flag, out;
};

TEST_F(LegacyStream, LaunchReturnsBeforeTheKernelEnds) {
  const auto t0 = Clock::now();
  startSpin(nullptr);
  EXPECT_LT(msSince(t0), 100);
  EXPECT_EQ(cuStreamQuery(nullptr), CUDA_ERROR_NOT_READY);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_GE(msSince(t0), 290);
  EXPECT_EQ(cuStreamQuery(nullptr), CUDA_SUCCESS);
}

TEST_F(LegacyStream, KernelWaitsForTheHost) {
  void *host;
  ASSERT_EQ(cuMemHostAlloc(&host, 64, CU_MEMHOSTALLOC_DEVICEMAP), CUDA_SUCCESS);
  auto *word = static_cast<volatile unsigned *>(host);
  *word = 0;
  CUdeviceptr mapped;
  ASSERT_EQ(cuMemHostGetDevicePointer(&mapped, host, 0), CUDA_SUCCESS);
  std::atomic<bool> launched{false};
  std::thread watchdog([&] { // a launch that blocks would never return: free the kernel
    for (int i = 0; i < 200 && !launched; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!launched)
      *word = 9;
  });
  void *args[] = {&mapped, &out};
  EXPECT_EQ(cuLaunchKernel(waitFlag, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  launched = true;
  watchdog.join();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(cuStreamQuery(nullptr), CUDA_ERROR_NOT_READY);
  *word = 5;
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(copied() & 0xffffffffu, 5u); // 9: the launch blocked until the watchdog
  EXPECT_EQ(cuMemFreeHost(host), CUDA_SUCCESS);
}

TEST_F(LegacyStream, BlockingStreamsFollowStreamZero) {
  startSpin(nullptr);
  copyFlag(blocking);
  const auto t0 = Clock::now();
  EXPECT_EQ(cuStreamSynchronize(blocking), CUDA_SUCCESS);
  EXPECT_GE(msSince(t0), 100);
  EXPECT_EQ(copied(), 1u);
}

TEST_F(LegacyStream, NonBlockingStreamsRunBesideStreamZero) {
  startSpin(nullptr);
  copyFlag(nonBlocking);
  const auto t0 = Clock::now();
  EXPECT_EQ(cuStreamSynchronize(nonBlocking), CUDA_SUCCESS);
  EXPECT_LT(msSince(t0), 100);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(copied(), 0u);
}

TEST_F(LegacyStream, StreamZeroFollowsBlockingStreams) {
  startSpin(blocking);
  EXPECT_EQ(cuStreamQuery(nullptr), CUDA_ERROR_NOT_READY);
  auto t0 = Clock::now();
  EXPECT_EQ(cuStreamSynchronize(nullptr), CUDA_SUCCESS);
  EXPECT_GE(msSince(t0), 100);
  ASSERT_EQ(cuMemsetD8(flag, 0, 8), CUDA_SUCCESS);
  startSpin(blocking);
  copyFlag(nullptr);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(copied(), 1u);
  startSpin(nonBlocking);
  t0 = Clock::now();
  EXPECT_EQ(cuStreamSynchronize(nullptr), CUDA_SUCCESS);
  EXPECT_LT(msSince(t0), 100);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST_F(LegacyStream, EventsRecordedOnStreamZeroCompleteWithItsWork) {
  CUevent e;
  ASSERT_EQ(cuEventCreate(&e, 0), CUDA_SUCCESS);
  startSpin(nullptr);
  EXPECT_EQ(cuEventRecord(e, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuEventQuery(e), CUDA_ERROR_NOT_READY);
  EXPECT_EQ(cuEventSynchronize(e), CUDA_SUCCESS);
  EXPECT_EQ(cuEventQuery(e), CUDA_SUCCESS);
  EXPECT_EQ(cuEventDestroy(e), CUDA_SUCCESS);
}

TEST(DestroyedContext, ItsStreamsAndEventsAreInvalidHandles) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext a, b;
  CUstream s;
  CUevent e;
  ASSERT_EQ(cuCtxCreate(&a, nullptr, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&e, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(e, s), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy(a), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxCreate(&b, nullptr, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE); // as the H100
  EXPECT_EQ(cuStreamSynchronize(s), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuStreamDestroy(s), CUDA_ERROR_INVALID_HANDLE);
  // NVIDIA's driver crashes in cuEventQuery here; cucpu answers as for the stream.
  EXPECT_EQ(cuEventQuery(e), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuEventRecord(e, nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuStreamWaitEvent(nullptr, e, 0), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuEventDestroy(e), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuCtxDestroy(b), CUDA_SUCCESS);
}

} // namespace
