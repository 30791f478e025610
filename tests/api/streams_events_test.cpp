// Streams and events through the driver API, success and misuse; the return codes are NVIDIA's
// driver's (H200, driver 580.159.04, recorded with tests/gpu/record_events.cpp).
#include <cuda.h>
#include <gtest/gtest.h>

#include <vector>

namespace {

class StreamsEvents : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  }
  void TearDown() override { cuCtxDestroy(ctx); }
  CUcontext ctx = nullptr;
};

TEST_F(StreamsEvents, StreamCreationAndQueries) {
  CUstream s = nullptr;
  EXPECT_EQ(cuStreamCreate(&s, 0xff), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamCreate(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  unsigned flags = 99;
  EXPECT_EQ(cuStreamGetFlags(s, &flags), CUDA_SUCCESS);
  EXPECT_EQ(flags, unsigned(CU_STREAM_NON_BLOCKING));
  EXPECT_EQ(cuStreamGetFlags(s, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamGetFlags(nullptr, &flags), CUDA_SUCCESS);
  EXPECT_EQ(flags, 0u);
  unsigned long long id = 0, id2 = 0;
  EXPECT_EQ(cuStreamGetId(s, &id), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamGetId(s, nullptr), CUDA_ERROR_INVALID_VALUE);
  CUstream t;
  ASSERT_EQ(cuStreamCreate(&t, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamGetId(t, &id2), CUDA_SUCCESS);
  EXPECT_NE(id, id2);
  CUdevice dev = -1;
  EXPECT_EQ(cuStreamGetDevice(s, &dev), CUDA_SUCCESS);
  EXPECT_EQ(dev, 0);
  EXPECT_EQ(cuStreamGetDevice(s, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamQuery(s), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamDestroy(nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuStreamDestroy(t), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamDestroy(s), CUDA_SUCCESS);
}

TEST_F(StreamsEvents, EventsOrderAndTimeStreamWork) {
  CUstream s;
  ASSERT_EQ(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  CUevent e1, e2, nt, never;
  EXPECT_EQ(cuEventCreate(&e1, 0xff), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuEventCreate(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuEventCreate(&e1, CU_EVENT_DEFAULT), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&e2, CU_EVENT_BLOCKING_SYNC), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&nt, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&never, CU_EVENT_DEFAULT), CUDA_SUCCESS);
  // An event never recorded is complete.
  EXPECT_EQ(cuEventQuery(never), CUDA_SUCCESS);
  EXPECT_EQ(cuEventSynchronize(never), CUDA_SUCCESS);

  CUdeviceptr p;
  ASSERT_EQ(cuMemAlloc(&p, 1 << 20), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(e1, s), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD32Async(p, 7, 1 << 18, s), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD32Async(p + 1, 7, 4, s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD16Async(p + 1, 7, 4, s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD8Async(p, 7, (1 << 20) + 1, s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD8Async(p + 100, 9, 4, s), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyAsync(p + 512, p + 96, 8, s), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyAsync(p, p + 512, 1 << 20, s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyDtoDAsync(p + 1024, p + 512, 8, s), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(e2, s), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(nt, s), CUDA_SUCCESS);
  // Another stream waits for e2, then reads what s wrote.
  CUstream other;
  ASSERT_EQ(cuStreamCreate(&other, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamWaitEvent(other, e2, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamWaitEvent(other, e2, 7), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamWaitEvent(other, nullptr, 0), CUDA_ERROR_INVALID_HANDLE);
  std::vector<unsigned char> h(16, 0);
  ASSERT_EQ(cuMemcpyDtoHAsync(h.data(), p + 1024, 8, other), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(other), CUDA_SUCCESS);
  // p + 96 .. p + 103: bytes 96..99 are the word 7, 100..103 were set to 9.
  EXPECT_EQ(h[0], 7);
  EXPECT_EQ(h[4], 9);
  EXPECT_EQ(cuEventSynchronize(e2), CUDA_SUCCESS);
  EXPECT_EQ(cuEventQuery(e2), CUDA_SUCCESS);
  float ms = -1;
  EXPECT_EQ(cuEventElapsedTime(&ms, e1, e2), CUDA_SUCCESS);
  EXPECT_GE(ms, 0.0f);
  EXPECT_EQ(cuEventElapsedTime(&ms, e1, never), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuEventElapsedTime(&ms, e1, nt), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuEventElapsedTime(nullptr, e1, e2), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuEventRecordWithFlags(e1, s, CU_EVENT_RECORD_DEFAULT), CUDA_SUCCESS);
  // External records belong to stream capture, which never happens here.
  EXPECT_EQ(cuEventRecordWithFlags(e1, s, CU_EVENT_RECORD_EXTERNAL), CUDA_ERROR_ILLEGAL_STATE);
  EXPECT_EQ(cuEventRecordWithFlags(e1, s, 7), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(s), CUDA_SUCCESS);
  EXPECT_EQ(cuEventDestroy(never), CUDA_SUCCESS);
  EXPECT_EQ(cuEventDestroy(nt), CUDA_SUCCESS);
  EXPECT_EQ(cuEventDestroy(nullptr), CUDA_ERROR_INVALID_HANDLE);
  cuEventDestroy(e1);
  cuEventDestroy(e2);
  cuStreamDestroy(other);
  cuStreamDestroy(s);
  cuMemFree(p);
}

// The per-thread-default-stream entry points (what cuGetProcAddress hands out with
// CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) put NULL-stream work on the calling thread's
// stream, not on the legacy stream.
TEST_F(StreamsEvents, PerThreadEntryPointsUseTheThreadsStream) {
  void *fn = nullptr;
  CUdriverProcAddressQueryResult q;
  ASSERT_EQ(cuGetProcAddress("cuMemsetD32Async", &fn, 13000,
                             CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &q),
            CUDA_SUCCESS);
  ASSERT_NE(fn, nullptr);
  auto memsetPt = reinterpret_cast<CUresult (*)(CUdeviceptr, unsigned, size_t, CUstream)>(fn);
  ASSERT_EQ(cuGetProcAddress("cuStreamQuery", &fn, 13000,
                             CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &q),
            CUDA_SUCCESS);
  auto queryPt = reinterpret_cast<CUresult (*)(CUstream)>(fn);
  CUdeviceptr p;
  ASSERT_EQ(cuMemAlloc(&p, 1024), CUDA_SUCCESS);
  ASSERT_EQ(memsetPt(p, 0x05050505u, 256, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(memsetPt(p + 2, 1u, 4, nullptr), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuStreamSynchronize(CU_STREAM_PER_THREAD), CUDA_SUCCESS);
  EXPECT_EQ(queryPt(nullptr), CUDA_SUCCESS);
  unsigned h[256];
  ASSERT_EQ(cuMemcpyDtoH(h, p, sizeof h), CUDA_SUCCESS);
  for (unsigned v : h)
    ASSERT_EQ(v, 0x05050505u);
  cuMemFree(p);
}

} // namespace
