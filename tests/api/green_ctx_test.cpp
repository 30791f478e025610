// Green contexts as partitions of the worker pool: a green context of one SM runs its grids one
// block at a time (the blocks never overlap), one of the whole device runs them correctly, and
// each takes cooperative grids of the size its own SMs hold.
// Their API answers are an H200's (tests/gpu/answers/green_ctx.txt).
#include <cuda.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

TEST(GreenContexts, OneSmRunsOneBlockAtATime) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext primary;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&primary, 0), CUDA_SUCCESS);
  CUdevResource whole, one;
  ASSERT_EQ(cuDeviceGetDevResource(0, &whole, CU_DEV_RESOURCE_TYPE_SM), CUDA_SUCCESS);
  unsigned groups = 1;
  ASSERT_EQ(cuDevSmResourceSplitByCount(&one, &groups, &whole, nullptr, 0, 1), CUDA_SUCCESS);
  ASSERT_EQ(one.sm.smCount, 1u);
  CUdevResourceDesc small, all;
  ASSERT_EQ(cuDevResourceGenerateDesc(&small, &one, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuDevResourceGenerateDesc(&all, &whole, 1), CUDA_SUCCESS);
  CUgreenCtx narrow, wide;
  ASSERT_EQ(cuGreenCtxCreate(&narrow, small, 0, CU_GREEN_CTX_DEFAULT_STREAM), CUDA_SUCCESS);
  ASSERT_EQ(cuGreenCtxCreate(&wide, all, 0, CU_GREEN_CTX_DEFAULT_STREAM), CUDA_SUCCESS);

  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/api/green/occupy.ptx");
  std::stringstream ptx;
  ptx << in.rdbuf();
  for (CUgreenCtx g : {narrow, wide}) {
    CUcontext c;
    ASSERT_EQ(cuCtxFromGreenCtx(&c, g), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSetCurrent(c), CUDA_SUCCESS);
    CUmodule mod;
    ASSERT_EQ(cuModuleLoadData(&mod, ptx.str().c_str()), CUDA_SUCCESS);
    CUfunction occupy;
    ASSERT_EQ(cuModuleGetFunction(&occupy, mod, "occupy"), CUDA_SUCCESS);
    CUdeviceptr counters;
    ASSERT_EQ(cuMemAlloc(&counters, 8), CUDA_SUCCESS);
    ASSERT_EQ(cuMemsetD32(counters, 0, 2), CUDA_SUCCESS);
    CUstream s;
    ASSERT_EQ(cuGreenCtxStreamCreate(&s, g, CU_STREAM_NON_BLOCKING, 0), CUDA_SUCCESS);
    unsigned long long ns = 200000;
    void *args[] = {&counters, &ns};
    ASSERT_EQ(cuLaunchKernel(occupy, 16, 1, 1, 32, 1, 1, 0, s, args, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
    unsigned seen[2];
    ASSERT_EQ(cuMemcpyDtoH(seen, counters, sizeof seen), CUDA_SUCCESS);
    EXPECT_EQ(seen[0], 0u); // every block left
    if (g == narrow)
      EXPECT_EQ(seen[1], 1u);
    else
      EXPECT_LE(seen[1], whole.sm.smCount);
    // A cooperative grid may have as many blocks as the context's SMs hold at once.
    int perSm = 0;
    ASSERT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, occupy, 32, 0), CUDA_SUCCESS);
    CUdevResource mine;
    ASSERT_EQ(cuGreenCtxGetDevResource(g, &mine, CU_DEV_RESOURCE_TYPE_SM), CUDA_SUCCESS);
    const unsigned most = unsigned(perSm) * mine.sm.smCount;
    ns = 0;
    EXPECT_EQ(cuLaunchCooperativeKernel(occupy, most + 1, 1, 1, 32, 1, 1, 0, s, args),
              CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
    EXPECT_EQ(cuLaunchCooperativeKernel(occupy, most, 1, 1, 32, 1, 1, 0, s, args), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamDestroy(s), CUDA_SUCCESS);
    ASSERT_EQ(cuMemFree(counters), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleUnload(mod), CUDA_SUCCESS);
  }
  ASSERT_EQ(cuCtxSetCurrent(primary), CUDA_SUCCESS);
  EXPECT_EQ(cuGreenCtxDestroy(narrow), CUDA_SUCCESS);
  EXPECT_EQ(cuGreenCtxDestroy(wide), CUDA_SUCCESS);
  EXPECT_EQ(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
}

} // namespace
