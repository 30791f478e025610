// Fat binaries through cuModuleLoadFatBinary and cuModuleLoadData: the chosen PTX runs.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

std::vector<uint64_t> fatbinFile(const char *name) {
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/unit/driver/data/" + name,
                   std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<uint64_t> out(bytes.size() / 8 + 1);
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

class FatbinModule : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(cuCtxDestroy(ctx), CUDA_SUCCESS); }

  // Runs add(a, b, c, n) from `m` and checks c = a + b.
  void runAdd(CUmodule m) {
    CUfunction f;
    ASSERT_EQ(cuModuleGetFunction(&f, m, "_Z3addPKfS0_Pfi"), CUDA_SUCCESS);
    constexpr int n = 1000;
    std::vector<float> a(n), b(n), c(n);
    for (int i = 0; i < n; ++i) {
      a[i] = float(i);
      b[i] = float(2 * i);
    }
    CUdeviceptr da, db, dc;
    ASSERT_EQ(cuMemAlloc(&da, n * 4), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc(&db, n * 4), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc(&dc, n * 4), CUDA_SUCCESS);
    ASSERT_EQ(cuMemcpyHtoD(da, a.data(), n * 4), CUDA_SUCCESS);
    ASSERT_EQ(cuMemcpyHtoD(db, b.data(), n * 4), CUDA_SUCCESS);
    int count = n;
    void *params[] = {&da, &db, &dc, &count};
    ASSERT_EQ(cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    ASSERT_EQ(cuMemcpyDtoH(c.data(), dc, n * 4), CUDA_SUCCESS);
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(c[i], float(3 * i)) << i;
    cuMemFree(da);
    cuMemFree(db);
    cuMemFree(dc);
  }
  CUcontext ctx = nullptr;
};

TEST_F(FatbinModule, LoadFatBinaryContainerRuns) {
  for (const char *file : {"fatbin_multi_zstd.fatbin", "fatbin_lz4.fatbin", "fatbin_sm80.fatbin"}) {
    auto data = fatbinFile(file);
    CUmodule m;
    ASSERT_EQ(cuModuleLoadFatBinary(&m, data.data()), CUDA_SUCCESS) << file;
    runAdd(m);
    EXPECT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
  }
}

TEST_F(FatbinModule, LoadDataAcceptsAWrapper) {
  auto data = fatbinFile("fatbin_multi_zstd.fatbin");
  struct {
    uint32_t magic, version;
    const void *container, *unused;
  } wrapper{0x466243B1, 1, data.data(), nullptr};
  CUmodule m;
  ASSERT_EQ(cuModuleLoadData(&m, &wrapper), CUDA_SUCCESS);
  runAdd(m);
  EXPECT_EQ(cuModuleUnload(m), CUDA_SUCCESS);
}

TEST_F(FatbinModule, SassOnlyAndBadArguments) {
  auto data = fatbinFile("fatbin_sass.fatbin");
  CUmodule m;
  EXPECT_EQ(cuModuleLoadFatBinary(&m, data.data()), CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_EQ(cuModuleLoadFatBinary(nullptr, data.data()), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuModuleLoadFatBinary(&m, nullptr), CUDA_ERROR_INVALID_VALUE);
}

} // namespace
