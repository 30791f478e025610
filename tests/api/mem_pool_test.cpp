// Memory pools beyond what tests/gpu/answers/pools.txt pins down: where cucpu answers otherwise
// than an H200 on purpose (a null attribute value, which crashes NVIDIA's driver; pools are not
// exportable, and say so), a destroyed pool's handle, and blocks that go back to the pool's
// cache in stream order and come out again for the next allocation of their size.
#include <cuda.h>
#include <gtest/gtest.h>

#include <unistd.h>

namespace {

class MemPools : public testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
    ASSERT_EQ(cuMemPoolCreate(&pool, &props), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  }
  void TearDown() override { cuCtxDestroy(ctx); }
  CUcontext ctx = nullptr;
  CUmemPoolProps props{};
  CUmemoryPool pool = nullptr;
  CUstream stream = nullptr;
};

TEST_F(MemPools, DeliberateDifferences) {
  EXPECT_EQ(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, nullptr),
            CUDA_ERROR_INVALID_VALUE); // NVIDIA: a crash
  EXPECT_EQ(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  int types = -1;
  EXPECT_EQ(cuDeviceGetAttribute(&types, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, 0),
            CUDA_SUCCESS);
  EXPECT_EQ(types, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR); // H200: 9 (and fabric handles)
  CUmemPoolProps fabric = props;
  fabric.handleTypes = CU_MEM_HANDLE_TYPE_FABRIC;
  CUmemoryPool other;
  EXPECT_EQ(cuMemPoolCreate(&other, &fabric), CUDA_ERROR_NOT_SUPPORTED);
}

// An exportable pool's blocks live in memory files while the pool holds them; trimmed, they are
// the arena's again, and new blocks work as before (two processes: tests/gpu/record_pool_ipc.cpp).
TEST_F(MemPools, ExportableBlocksSurviveReuseAndTrim) {
  CUmemPoolProps exportable = props;
  exportable.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  CUmemoryPool shared;
  ASSERT_EQ(cuMemPoolCreate(&shared, &exportable), CUDA_SUCCESS);
  for (int round = 0; round < 3; ++round) {
    CUdeviceptr p;
    ASSERT_EQ(cuMemAllocFromPoolAsync(&p, 1000, shared, stream), CUDA_SUCCESS);
    ASSERT_EQ(cuMemsetD32Async(p, 7 + round, 250, stream), CUDA_SUCCESS);
    CUmemPoolPtrExportData data;
    EXPECT_EQ(cuMemPoolExportPointer(&data, p), CUDA_SUCCESS);
    unsigned last = 0;
    ASSERT_EQ(cuMemcpyDtoHAsync(&last, p + 996, 4, stream), CUDA_SUCCESS);
    ASSERT_EQ(cuMemFreeAsync(p, stream), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamSynchronize(stream), CUDA_SUCCESS);
    EXPECT_EQ(last, unsigned(7 + round));
    if (round == 1) {
      ASSERT_EQ(cuMemPoolTrimTo(shared, 0), CUDA_SUCCESS);
    }
  }
  int fd = -1;
  ASSERT_EQ(
      cuMemPoolExportToShareableHandle(&fd, shared, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
      CUDA_SUCCESS);
  EXPECT_GE(fd, 0);
  close(fd);
  EXPECT_EQ(cuMemPoolDestroy(shared), CUDA_SUCCESS);
}

TEST_F(MemPools, DestroyedPoolsAreInvalidHandles) {
  ASSERT_EQ(cuMemPoolDestroy(pool), CUDA_SUCCESS);
  CUdeviceptr p;
  cuuint64_t v;
  EXPECT_EQ(cuMemAllocFromPoolAsync(&p, 64, pool, stream), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &v),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemPoolDestroy(pool), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(MemPools, BlocksComeBackInStreamOrderAndAreReused) {
  cuuint64_t threshold = 1ull << 30;
  ASSERT_EQ(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold),
            CUDA_SUCCESS);
  CUdeviceptr first = 0, again = 0;
  for (size_t bytes : {size_t(100), size_t(5000), size_t(1) << 20, size_t(5) << 20}) {
    ASSERT_EQ(cuMemAllocFromPoolAsync(&first, bytes, pool, stream), CUDA_SUCCESS);
    ASSERT_EQ(cuMemsetD8Async(first, 1, bytes, stream), CUDA_SUCCESS);
    ASSERT_EQ(cuMemFreeAsync(first, stream), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamSynchronize(stream), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAllocFromPoolAsync(&again, bytes, pool, stream), CUDA_SUCCESS);
    EXPECT_EQ(again, first) << bytes; // the cached block of that size
    unsigned char byte = 0;
    ASSERT_EQ(cuMemcpyDtoH(&byte, again + bytes - 1, 1), CUDA_SUCCESS);
    EXPECT_EQ(byte, 1);
    ASSERT_EQ(cuMemFreeAsync(again, stream), CUDA_SUCCESS);
  }
  ASSERT_EQ(cuStreamSynchronize(stream), CUDA_SUCCESS);
  cuuint64_t reserved = 0;
  ASSERT_EQ(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved),
            CUDA_SUCCESS);
  EXPECT_GT(reserved, 6u << 20);
  ASSERT_EQ(cuMemPoolTrimTo(pool, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved),
            CUDA_SUCCESS);
  EXPECT_EQ(reserved, 0u);
}

} // namespace
