// Asynchronous copies with pageable host memory synchronise as the CUDA documentation's "API
// synchronization behavior" says: from it, the data is staged before the call returns; into it,
// the call returns once the data has arrived. A host function that sleeps holds the stream
// back, so a copy that merely queued would be seen.
#include <cuda.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace {

void sleepBriefly(void *) { std::this_thread::sleep_for(std::chrono::milliseconds(50)); }

class PageableCopy : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc(&d, n * 4), CUDA_SUCCESS);
  }
  void TearDown() override {
    cuMemFree(d);
    cuStreamDestroy(stream);
    cuCtxDestroy(ctx);
  }
  static constexpr size_t n = 1024;
  CUcontext ctx = nullptr;
  CUstream stream = nullptr;
  CUdeviceptr d = 0;
};

TEST_F(PageableCopy, IntoPageableMemoryReturnsWithTheData) {
  std::vector<unsigned> host(n, 0);
  ASSERT_EQ(cuLaunchHostFunc(stream, sleepBriefly, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32Async(d, 7, n, stream), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoHAsync(host.data(), d, n * 4, stream), CUDA_SUCCESS);
  EXPECT_EQ(host.front(), 7u); // no synchronisation: the call itself waited
  EXPECT_EQ(host.back(), 7u);
}

TEST_F(PageableCopy, FromPageableMemoryIsStagedAtTheCall) {
  std::vector<unsigned> host(n, 5);
  ASSERT_EQ(cuLaunchHostFunc(stream, sleepBriefly, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoDAsync(d, host.data(), n * 4, stream), CUDA_SUCCESS);
  std::fill(host.begin(), host.end(), 9u); // the caller reuses its buffer at once
  ASSERT_EQ(cuStreamSynchronize(stream), CUDA_SUCCESS);
  std::vector<unsigned> back(n, 0);
  ASSERT_EQ(cuMemcpyDtoH(back.data(), d, n * 4), CUDA_SUCCESS);
  EXPECT_EQ(back.front(), 5u);
  EXPECT_EQ(back.back(), 5u);
}

TEST_F(PageableCopy, PinnedMemoryStaysAsynchronous) {
  unsigned *pinned = nullptr;
  ASSERT_EQ(cuMemAllocHost(reinterpret_cast<void **>(&pinned), n * 4), CUDA_SUCCESS);
  std::fill(pinned, pinned + n, 0u);
  ASSERT_EQ(cuLaunchHostFunc(stream, sleepBriefly, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32Async(d, 3, n, stream), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoHAsync(pinned, d, n * 4, stream), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(stream), CUDA_ERROR_NOT_READY); // still behind the sleeping function
  ASSERT_EQ(cuStreamSynchronize(stream), CUDA_SUCCESS);
  EXPECT_EQ(pinned[n - 1], 3u);
  cuMemFreeHost(pinned);
}

} // namespace
