// Freeing calls wait for the context's queued work, as on an H100 with driver 580
// (tests/gpu/record_free_sync.cpp): cuMemFree (even of memory the work does not use),
// cuMemFreeHost, cuArrayDestroy, cuModuleUnload and cuLibraryUnload return once a kernel still
// running on another stream has finished; cuMemFreeAsync is stream-ordered and returns at once.
// Before, a free while a queued copy or kernel still used the memory corrupted the heap
// (numba-cuda's DeviceNDArray.setitem on a stream).
#include <cuda.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

class FreeSync : public testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
    std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/api/free/spin.ptx");
    std::stringstream ss;
    ss << in.rdbuf();
    ptx = ss.str();
    ASSERT_EQ(cuModuleLoadData(&mod, ptx.c_str()), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&spin, mod, "spin"), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  }
  void TearDown() override { cuCtxDestroy(ctx); }

  // A 200 ms kernel on `stream` that then writes *flag.
  void start(CUdeviceptr flag) {
    unsigned long long ns = 200000000ull;
    void *args[] = {&ns, &flag};
    ASSERT_EQ(cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, stream, args, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamQuery(stream), CUDA_ERROR_NOT_READY);
  }

  CUcontext ctx = nullptr;
  CUmodule mod = nullptr;
  CUfunction spin = nullptr;
  CUstream stream = nullptr;
  std::string ptx;
};

TEST_F(FreeSync, MemFreeWaitsForQueuedWork) {
  CUdeviceptr used, other;
  ASSERT_EQ(cuMemAlloc(&used, 64), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&other, 64), CUDA_SUCCESS);
  start(used);
  EXPECT_EQ(cuMemFree(used), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(stream), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&used, 64), CUDA_SUCCESS);
  start(used);
  EXPECT_EQ(cuMemFree(other), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(stream), CUDA_SUCCESS);
}

TEST_F(FreeSync, MemFreeHostWaitsForQueuedWork) {
  void *host = nullptr;
  ASSERT_EQ(cuMemAllocHost(&host, 64), CUDA_SUCCESS);
  start(reinterpret_cast<CUdeviceptr>(host));
  EXPECT_EQ(cuMemFreeHost(host), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(stream), CUDA_SUCCESS);
}

TEST_F(FreeSync, MemFreeAsyncIsStreamOrdered) {
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc(&d, 64), CUDA_SUCCESS);
  start(d);
  EXPECT_EQ(cuMemFreeAsync(d, stream), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(stream), CUDA_ERROR_NOT_READY);
  EXPECT_EQ(cuStreamSynchronize(stream), CUDA_SUCCESS);
}

TEST_F(FreeSync, ArrayDestroyAndUnloadsWaitForQueuedWork) {
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc(&d, 64), CUDA_SUCCESS);
  CUDA_ARRAY_DESCRIPTOR desc{};
  desc.Width = desc.Height = 64;
  desc.Format = CU_AD_FORMAT_FLOAT;
  desc.NumChannels = 1;
  CUarray array;
  ASSERT_EQ(cuArrayCreate(&array, &desc), CUDA_SUCCESS);
  start(d);
  EXPECT_EQ(cuArrayDestroy(array), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(stream), CUDA_SUCCESS);
  start(d);
  EXPECT_EQ(cuModuleUnload(mod), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(stream), CUDA_SUCCESS);
  CUlibrary lib;
  CUkernel kernel;
  ASSERT_EQ(cuLibraryLoadData(&lib, ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0),
            CUDA_SUCCESS);
  ASSERT_EQ(cuLibraryGetKernel(&kernel, lib, "spin"), CUDA_SUCCESS);
  ASSERT_EQ(cuKernelGetFunction(&spin, kernel), CUDA_SUCCESS);
  start(d);
  EXPECT_EQ(cuLibraryUnload(lib), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(stream), CUDA_SUCCESS);
}

} // namespace
