// The last error paths of stream, event and context calls: no current context, operations out
// of range, a stream of another context, and every stream/event call after a kernel trapped
// (the context's sticky error). Codes as NVIDIA's driver gives them (H200, driver 580.159.04,
// tests/gpu/record_sticky.cpp).
#include <cuda.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

TEST(StickyErrors, CallsWithoutAContextAndAcrossContexts) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext c, other, popped;
  ASSERT_EQ(cuCtxCreate(&c, nullptr, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxPopCurrent(&popped), CUDA_SUCCESS);
  size_t fr = 0, tot = 0;
  EXPECT_EQ(cuMemGetInfo(&fr, &tot), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuCtxResetPersistingL2Cache(), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_EQ(cuCtxCreate(&other, nullptr, 0, 0), CUDA_SUCCESS);
  CUstream s, so;
  ASSERT_EQ(cuStreamCreate(&so, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(c), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamCopyAttributes(s, so), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamQuery(so), CUDA_SUCCESS); // a stream names its own context

  CUdeviceptr p;
  int local = 0;
  ASSERT_EQ(cuMemAlloc(&p, 4096), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD16Async(p, 0x0101, 2048, s), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyDtoDAsync(p, p + 2048, 4096, s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemFreeAsync(reinterpret_cast<CUdeviceptr>(&local), s), CUDA_ERROR_INVALID_VALUE);
  CUDA_MEMCPY3D c3 = {};
  c3.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c3.srcDevice = p;
  c3.srcPitch = 16;
  c3.srcHeight = 2;
  c3.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c3.dstDevice = p + 2048;
  c3.dstPitch = 64;
  c3.dstHeight = 2;
  c3.WidthInBytes = 32;
  c3.Height = 2;
  c3.Depth = 2;
  EXPECT_EQ(cuMemcpy3DAsync(&c3, s), CUDA_ERROR_INVALID_VALUE); // rows wider than their pitch
  EXPECT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  unsigned short h = 0;
  ASSERT_EQ(cuMemcpyDtoH(&h, p + 4094, 2), CUDA_SUCCESS);
  EXPECT_EQ(h, 0x0101);
  cuStreamDestroy(s);
  cuCtxDestroy(other);
  cuCtxDestroy(c);
}

TEST(StickyErrors, StreamAndEventCallsReportATrapInTheContext) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext c;
  ASSERT_EQ(cuCtxCreate(&c, nullptr, 0, 0), CUDA_SUCCESS);
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/e2e/faults_kernels.ptx");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string ptx = ss.str();
  CUmodule m;
  CUfunction trapper;
  ASSERT_EQ(cuModuleLoadData(&m, ptx.c_str()), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&trapper, m, "trapper"), CUDA_SUCCESS);
  CUstream s;
  CUevent e;
  ASSERT_EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&e, 0), CUDA_SUCCESS);
  int when = 0;
  void *args[] = {&when};
  ASSERT_EQ(cuLaunchKernel(trapper, 1, 1, 1, 32, 1, 1, 0, s, args, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamSynchronize(s), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(cuStreamSynchronize(s), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(cuStreamQuery(s), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(cuEventRecord(e, s), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(cuEventQuery(e), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(cuEventSynchronize(e), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
  cuCtxDestroy(c);
}

} // namespace
