// CU_LIMIT_STACK_SIZE as NVIDIA's driver treats it (H200, driver 580.159.04, recorded with
// tests/gpu/record_stack.cpp): 1024 bytes by default, rounded up to 16, absurd sizes refused,
// and raised by a launch whose kernel needs more local memory per thread.
#include <cuda.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

TEST(StackLimit, DefaultRoundingRefusalAndGrowthAtLaunch) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext c;
  ASSERT_EQ(cuCtxCreate(&c, nullptr, 0, 0), CUDA_SUCCESS);
  size_t v = 0;
  ASSERT_EQ(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
  EXPECT_EQ(v, 1024u);
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
  EXPECT_EQ(v, 0u);
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 1000), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
  EXPECT_EQ(v, 1008u);
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, size_t(1) << 40), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
  EXPECT_EQ(v, 1008u);

  ASSERT_EQ(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 256), CUDA_SUCCESS);
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/api/stack/big_local.ptx");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string ptx = ss.str();
  CUmodule m;
  CUfunction f;
  ASSERT_EQ(cuModuleLoadData(&m, ptx.c_str()), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&f, m, "bigLocal"), CUDA_SUCCESS);
  int local = 0;
  ASSERT_EQ(cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f), CUDA_SUCCESS);
  EXPECT_EQ(local, 4096);
  CUdeviceptr out;
  ASSERT_EQ(cuMemAlloc(&out, 256 * sizeof(int)), CUDA_SUCCESS);
  int k = 3;
  void *args[] = {&out, &k};
  ASSERT_EQ(cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
  EXPECT_EQ(v, 4096u);
  int h[4];
  ASSERT_EQ(cuMemcpyDtoH(h, out, sizeof h), CUDA_SUCCESS);
  EXPECT_EQ(h[0], 9); // a[(0 * 7 + 3) & 1023] = 3 * 3, as on the GPU
  EXPECT_EQ(h[3], 72);
  ASSERT_EQ(cuCtxDestroy(c), CUDA_SUCCESS);
}

} // namespace
