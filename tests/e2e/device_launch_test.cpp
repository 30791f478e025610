// Dynamic parallelism from hand-written PTX (tests/e2e/device_launch.ptx): the programming
// guide's cudaGetParameterBuffer and cudaLaunchDevice launch a child grid whose result is exact.
#include <cuda.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <vector>

namespace {

TEST(DeviceLaunch, ThePtxInterfaceLaunchesAChildGrid) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext ctx;
  ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/e2e/device_launch.ptx");
  std::stringstream ptx;
  ptx << in.rdbuf();
  CUmodule mod;
  ASSERT_EQ(cuModuleLoadData(&mod, ptx.str().c_str()), CUDA_SUCCESS);
  CUfunction parent;
  ASSERT_EQ(cuModuleGetFunction(&parent, mod, "parent"), CUDA_SUCCESS);
  CUdeviceptr out, status;
  ASSERT_EQ(cuMemAlloc(&out, 32 * sizeof(int)), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&status, sizeof(int)), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32(out, 0, 32), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32(status, 0xffffffff, 1), CUDA_SUCCESS);
  void *args[] = {&out, &status};
  ASSERT_EQ(cuLaunchKernel(parent, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  std::vector<int> got(32);
  int launched = -1;
  ASSERT_EQ(cuMemcpyDtoH(got.data(), out, got.size() * sizeof(int)), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH(&launched, status, sizeof launched), CUDA_SUCCESS);
  EXPECT_EQ(launched, 0);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(got[i], 100 + i) << "thread " << i;
  cuCtxDestroy(ctx);
}

} // namespace
