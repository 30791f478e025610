// Cooperative launch: every block resident at once, so cooperative groups' grid.sync() works;
// grids larger than the device can hold resident are refused.
#include <cuda.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <vector>

namespace {

class Cooperative : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
    std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/e2e/cooperative_kernels.ptx");
    std::stringstream ss;
    ss << in.rdbuf();
    ASSERT_EQ(cuModuleLoadData(&mod, ss.str().c_str()), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&fn, mod, "gridSum"), CUDA_SUCCESS);
  }
  void TearDown() override { cuCtxDestroy(ctx); }
  CUcontext ctx = nullptr;
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
};

TEST_F(Cooperative, DeviceReportsCooperativeLaunch) {
  int v = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0), CUDA_SUCCESS);
  EXPECT_EQ(v, 1);
}

TEST_F(Cooperative, GridSyncSeesEveryBlocksPartialSum) {
  int sms = 0, perSm = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, fn, 128, 0), CUDA_SUCCESS);
  const unsigned blocks = unsigned(sms * perSm);
  ASSERT_GE(blocks, 1u);
  const int n = 100000;
  std::vector<int> h(n);
  long long expect = 0;
  for (int i = 0; i < n; ++i) {
    h[i] = i % 17 - 5;
    expect += h[i];
  }
  CUdeviceptr in, partial, out;
  ASSERT_EQ(cuMemAlloc(&in, n * sizeof(int)), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&partial, blocks * sizeof(int)), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&out, sizeof(int)), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD(in, h.data(), n * sizeof(int)), CUDA_SUCCESS);
  for (int rep = 0; rep < 3; ++rep) {
    ASSERT_EQ(cuMemsetD32(partial, 0, blocks), CUDA_SUCCESS);
    ASSERT_EQ(cuMemsetD32(out, 0xdead, 1), CUDA_SUCCESS);
    int nn = n;
    void *args[] = {&in, &partial, &out, &nn};
    ASSERT_EQ(cuLaunchCooperativeKernel(fn, blocks, 1, 1, 128, 1, 1, 0, nullptr, args),
              CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    int got = 0;
    ASSERT_EQ(cuMemcpyDtoH(&got, out, sizeof got), CUDA_SUCCESS);
    EXPECT_EQ(got, expect);
  }
  // The same through cuLaunchKernelEx's cooperative attribute.
  CUlaunchAttribute attr{};
  attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  attr.value.cooperative = 1;
  CUlaunchConfig cfg{};
  cfg.gridDimX = blocks;
  cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = 128;
  cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  ASSERT_EQ(cuMemsetD32(partial, 0, blocks), CUDA_SUCCESS);
  int nn = n;
  void *args[] = {&in, &partial, &out, &nn};
  ASSERT_EQ(cuLaunchKernelEx(&cfg, fn, args, nullptr), CUDA_SUCCESS);
  int got = 0;
  ASSERT_EQ(cuMemcpyDtoH(&got, out, sizeof got), CUDA_SUCCESS);
  EXPECT_EQ(got, expect);
}

TEST_F(Cooperative, TooManyBlocksAreRefused) {
  int sms = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), CUDA_SUCCESS);
  CUdeviceptr p = 0;
  int n = 0;
  void *args[] = {&p, &p, &p, &n};
  EXPECT_EQ(cuLaunchCooperativeKernel(fn, unsigned(sms) * 64 + 1, 1, 1, 128, 1, 1, 0, nullptr, args),
            CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
}

TEST_F(Cooperative, ClusterDimensionsAreRefused) {
  CUlaunchAttribute attr{};
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = 2;
  attr.value.clusterDim.y = attr.value.clusterDim.z = 1;
  CUlaunchConfig cfg{};
  cfg.gridDimX = 2;
  cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = 32;
  cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  CUdeviceptr p = 0;
  int n = 0;
  void *args[] = {&p, &p, &p, &n};
  EXPECT_EQ(cuLaunchKernelEx(&cfg, fn, args, nullptr), CUDA_ERROR_INVALID_CLUSTER_SIZE);
  EXPECT_EQ(cuLaunchKernelEx(nullptr, fn, args, nullptr), CUDA_ERROR_INVALID_VALUE);
}

} // namespace
