// Device memory: allocation, accounting, copies and memsets, and their error paths.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

class Memory : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(cuCtxDestroy(ctx), CUDA_SUCCESS); }
  CUcontext ctx = nullptr;
};

TEST_F(Memory, AllocIsAlignedAndAccounted) {
  size_t free0, total;
  ASSERT_EQ(cuMemGetInfo(&free0, &total), CUDA_SUCCESS);
  CUdeviceptr p = 0;
  ASSERT_EQ(cuMemAlloc(&p, 1000), CUDA_SUCCESS);
  EXPECT_EQ(p % 256, 0u);
  size_t free1;
  ASSERT_EQ(cuMemGetInfo(&free1, &total), CUDA_SUCCESS);
  EXPECT_EQ(free0 - free1, 1024u);
  ASSERT_EQ(cuMemFree(p), CUDA_SUCCESS);
  ASSERT_EQ(cuMemGetInfo(&free1, &total), CUDA_SUCCESS);
  EXPECT_EQ(free1, free0);
}

TEST_F(Memory, AllocErrors) {
  CUdeviceptr p;
  EXPECT_EQ(cuMemAlloc(nullptr, 16), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAlloc(&p, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAlloc(&p, size_t(1) << 62), CUDA_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(cuMemFree(0x1234), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemAlloc(&p, 64), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree(p + 4), CUDA_ERROR_INVALID_VALUE); // not the base of an allocation
  ASSERT_EQ(cuMemFree(p), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree(p), CUDA_ERROR_INVALID_VALUE); // double free is detected
}

TEST_F(Memory, CopiesRoundTrip) {
  const size_t n = 4096;
  std::vector<uint32_t> h(n), back(n, 0);
  for (size_t i = 0; i < n; ++i)
    h[i] = uint32_t(i * 2654435761u);
  CUdeviceptr a, b;
  ASSERT_EQ(cuMemAlloc(&a, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&b, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD(a, h.data(), n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoD(b, a, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH(back.data(), b, n * 4), CUDA_SUCCESS);
  EXPECT_EQ(back, h);
  // Copies that run past the end of an allocation are refused, not performed.
  EXPECT_EQ(cuMemcpyHtoD(a + 8, h.data(), n * 4), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyDtoH(back.data(), 0xdead0000, 4), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyHtoD(a, nullptr, 4), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyHtoD(a, nullptr, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFree(a), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFree(b), CUDA_SUCCESS);
}

TEST_F(Memory, Memsets) {
  CUdeviceptr p;
  ASSERT_EQ(cuMemAlloc(&p, 64), CUDA_SUCCESS);
  std::vector<uint8_t> bytes(64);
  ASSERT_EQ(cuMemsetD8(p, 0xab, 64), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD16(p + 2, 0x1234, 3), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32(p + 16, 0xdeadbeef, 2), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH(bytes.data(), p, 64), CUDA_SUCCESS);
  EXPECT_EQ(bytes[0], 0xab);
  EXPECT_EQ(bytes[2], 0x34);
  EXPECT_EQ(bytes[3], 0x12);
  EXPECT_EQ(bytes[7], 0x12);
  EXPECT_EQ(bytes[8], 0xab);
  EXPECT_EQ(bytes[16], 0xef);
  EXPECT_EQ(bytes[23], 0xde);
  EXPECT_EQ(bytes[24], 0xab);
  EXPECT_EQ(cuMemsetD32(p + 2, 0, 1), CUDA_ERROR_INVALID_VALUE); // misaligned
  EXPECT_EQ(cuMemsetD32(p, 0, 17), CUDA_ERROR_INVALID_VALUE);    // past the end
  ASSERT_EQ(cuMemFree(p), CUDA_SUCCESS);
}

TEST_F(Memory, DestroyingTheContextFreesItsMemory) {
  size_t free0, total, free1;
  CUcontext other;
  ASSERT_EQ(cuMemGetInfo(&free0, &total), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxCreate(&other, nullptr, 0, 0), CUDA_SUCCESS);
  CUdeviceptr p;
  ASSERT_EQ(cuMemAlloc(&p, 1 << 20), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy(other), CUDA_SUCCESS);
  ASSERT_EQ(cuMemGetInfo(&free1, &total), CUDA_SUCCESS);
  EXPECT_EQ(free1, free0);
}

TEST(MemoryNoContext, NeedsACurrentContext) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext c;
  while (cuCtxPopCurrent(&c) == CUDA_SUCCESS) {
  }
  CUdeviceptr p;
  EXPECT_EQ(cuMemAlloc(&p, 16), CUDA_ERROR_INVALID_CONTEXT);
}

} // namespace
