// Virtual memory management beyond what tests/gpu/answers/vmm.txt pins down: the deliberate
// difference from NVIDIA's driver (a mapping running past its reservation's end, which an H200
// accepts, is refused: those addresses may belong to other device memory here), and handles
// counted against the device's memory until their last mapping goes.
#include <cuda.h>
#include <gtest/gtest.h>

namespace {

constexpr size_t kMiB = size_t(1) << 20;

class VirtualMemory : public testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
  }
  void TearDown() override { cuCtxDestroy(ctx); }
  size_t freeBytes() {
    size_t free = 0, total = 0;
    EXPECT_EQ(cuMemGetInfo(&free, &total), CUDA_SUCCESS);
    return free;
  }
  CUcontext ctx = nullptr;
  CUmemAllocationProp prop{};
};

TEST_F(VirtualMemory, MappingPastTheReservationIsRefused) {
  CUmemGenericAllocationHandle h;
  CUdeviceptr va;
  ASSERT_EQ(cuMemCreate(&h, 4 * kMiB, &prop, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAddressReserve(&va, 4 * kMiB, 0, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemMap(va + 2 * kMiB, 4 * kMiB, 0, h, 0), CUDA_ERROR_NOT_SUPPORTED); // H200: 0
  EXPECT_EQ(cuMemMap(va, 4 * kMiB, 0, h, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemUnmap(va, 4 * kMiB), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAddressFree(va, 4 * kMiB), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(h), CUDA_SUCCESS);
}

TEST_F(VirtualMemory, HandlesCountAgainstDeviceMemoryUntilTheLastMappingGoes) {
  const size_t before = freeBytes();
  CUmemGenericAllocationHandle h;
  CUdeviceptr va;
  ASSERT_EQ(cuMemCreate(&h, 8 * kMiB, &prop, 0), CUDA_SUCCESS);
  EXPECT_EQ(freeBytes(), before - 8 * kMiB);
  ASSERT_EQ(cuMemAddressReserve(&va, 8 * kMiB, 0, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemMap(va, 8 * kMiB, 0, h, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemRelease(h), CUDA_SUCCESS);
  EXPECT_EQ(freeBytes(), before - 8 * kMiB); // still mapped
  EXPECT_EQ(cuMemUnmap(va, 8 * kMiB), CUDA_SUCCESS);
  EXPECT_EQ(freeBytes(), before);
  EXPECT_EQ(cuMemAddressFree(va, 8 * kMiB), CUDA_SUCCESS);
}

} // namespace
