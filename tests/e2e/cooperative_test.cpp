// Cooperative launch: every block resident at once, so cooperative groups' grid.sync() works,
// inline (nvcc) or through the device runtime's syscalls (libcudadevrt, numba-cuda); grids larger
// than the device can hold resident are refused.
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
    std::ifstream cg(std::string(CUCPU_SOURCE_DIR) + "/tests/e2e/cg_syscalls.ptx");
    std::stringstream cs;
    cs << cg.rdbuf();
    ASSERT_EQ(cuModuleLoadData(&cgMod, cs.str().c_str()), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&rotate, cgMod, "rotate"), CUDA_SUCCESS);
  }
  // Runs cg_syscalls.ptx's `rotate` over `blocks` blocks of 64 threads; returns the launch's and
  // the synchronisation's results, and out[] and info[] (five words per thread).
  CUresult runRotate(unsigned blocks, bool cooperative, std::vector<unsigned> &out,
                     std::vector<unsigned> &info) {
    const unsigned n = blocks * 64;
    CUdeviceptr vals, o, in;
    EXPECT_EQ(cuMemAlloc(&vals, n * 4), CUDA_SUCCESS);
    EXPECT_EQ(cuMemAlloc(&o, n * 4), CUDA_SUCCESS);
    EXPECT_EQ(cuMemAlloc(&in, n * 20), CUDA_SUCCESS);
    EXPECT_EQ(cuMemsetD32(o, 0, n), CUDA_SUCCESS);
    EXPECT_EQ(cuMemsetD32(in, 0, n * 5), CUDA_SUCCESS);
    void *args[] = {&vals, &o, &in};
    CUresult r = cooperative
                     ? cuLaunchCooperativeKernel(rotate, blocks, 1, 1, 64, 1, 1, 0, nullptr, args)
                     : cuLaunchKernel(rotate, blocks, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr);
    if (r == CUDA_SUCCESS)
      r = cuCtxSynchronize();
    out.assign(n, 0);
    info.assign(n * 5, 0);
    if (r == CUDA_SUCCESS) {
      EXPECT_EQ(cuMemcpyDtoH(out.data(), o, n * 4), CUDA_SUCCESS);
      EXPECT_EQ(cuMemcpyDtoH(info.data(), in, n * 20), CUDA_SUCCESS);
    }
    return r;
  }
  void TearDown() override { cuCtxDestroy(ctx); }
  CUcontext ctx = nullptr;
  CUmodule mod = nullptr, cgMod = nullptr;
  CUfunction fn = nullptr, rotate = nullptr;
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

// What an H200 gives for cg_syscalls.ptx (tests/gpu/record_launch_ex.cpp): every thread sees the
// value its neighbour wrote before the grid barrier; the handle is set, the grid has
// blocks * 64 threads in one grid, and both barriers succeed.
TEST_F(Cooperative, DeviceRuntimeSyscallsSynchroniseTheGrid) {
  int sms = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), CUDA_SUCCESS);
  for (unsigned blocks : {1u, unsigned(sms)}) {
    std::vector<unsigned> out, info;
    ASSERT_EQ(runRotate(blocks, true, out, info), CUDA_SUCCESS);
    const unsigned n = blocks * 64;
    for (unsigned r = 0; r < n; ++r) {
      ASSERT_EQ(out[r], 3 * ((r + 1) % n) + 1) << "rank " << r << " of " << n;
      const std::vector<unsigned> want = {1, n, 1, 0, 0};
      ASSERT_EQ(std::vector<unsigned>(info.begin() + 5 * r, info.begin() + 5 * r + 5), want)
          << "rank " << r;
    }
  }
}

// Outside a cooperative launch the grid handle is zero and the syscalls fault, as on the H200:
// the launch ends with CUDA_ERROR_ILLEGAL_ADDRESS (sticky: the context is lost).
TEST_F(Cooperative, DeviceRuntimeSyscallsFaultOutsideACooperativeLaunch) {
  std::vector<unsigned> out, info;
  EXPECT_EQ(runRotate(1, false, out, info), CUDA_ERROR_ILLEGAL_ADDRESS);
}

TEST_F(Cooperative, TooManyBlocksAreRefused) {
  int sms = 0, perSm = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, fn, 128, 0), CUDA_SUCCESS);
  EXPECT_EQ(perSm, 16); // 2048 threads / 128
  CUdeviceptr p = 0;
  int n = 0;
  void *args[] = {&p, &p, &p, &n};
  EXPECT_EQ(
      cuLaunchCooperativeKernel(fn, unsigned(sms * perSm) + 1, 1, 1, 128, 1, 1, 0, nullptr, args),
      CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
}

// What a GPU runs, a cucpu host of any size runs: 16 blocks of 256 threads (issue 20's case,
// refused before on a 2-worker host), each adding its partial sum after a grid-wide barrier.
TEST_F(Cooperative, GridOfSixteenBlocksOf256Runs) {
  const unsigned blocks = 16;
  const int n = 1 << 16;
  std::vector<int> h(n, 3);
  CUdeviceptr in, partial, out;
  ASSERT_EQ(cuMemAlloc(&in, n * sizeof(int)), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&partial, blocks * sizeof(int)), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&out, sizeof(int)), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD(in, h.data(), n * sizeof(int)), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32(partial, 0, blocks), CUDA_SUCCESS);
  int nn = n;
  void *args[] = {&in, &partial, &out, &nn};
  ASSERT_EQ(cuLaunchCooperativeKernel(fn, blocks, 1, 1, 256, 1, 1, 0, nullptr, args), CUDA_SUCCESS);
  int got = 0;
  ASSERT_EQ(cuMemcpyDtoH(&got, out, sizeof got), CUDA_SUCCESS);
  EXPECT_EQ(got, 3 * n);
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
