// Stream memory operations beyond tests/gpu/answers/stream_memops.txt: a null batch array (which
// crashes NVIDIA's driver) is INVALID_VALUE, and a wait in one stream is satisfied by a write
// queued later in another stream, the way producer and consumer streams hand over work.
#include <cuda.h>
#include <gtest/gtest.h>

namespace {

TEST(StreamMemOps, NullBatchAndCrossStreamHandOver) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext ctx;
  ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  CUstream consumer, producer;
  ASSERT_EQ(cuStreamCreate(&consumer, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamCreate(&producer, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamBatchMemOp(consumer, 1, nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc(&d, 16), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD8(d, 0, 16), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitValue64(consumer, d, 42, CU_STREAM_WAIT_VALUE_EQ), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWriteValue32(consumer, d + 8, 1, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(consumer), CUDA_ERROR_NOT_READY);
  ASSERT_EQ(cuStreamWriteValue64(producer, d, 42, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamSynchronize(consumer), CUDA_SUCCESS);
  unsigned done = 0;
  ASSERT_EQ(cuMemcpyDtoH(&done, d + 8, 4), CUDA_SUCCESS);
  EXPECT_EQ(done, 1u);
  EXPECT_EQ(cuCtxDestroy(ctx), CUDA_SUCCESS);
}

} // namespace
