// The library API: loading before any context, kernels as functions, lazy per-context modules.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

std::string dataPath(const char *name) {
  return std::string(CUCPU_SOURCE_DIR) + "/tests/unit/driver/data/" + name;
}

std::vector<uint64_t> fatbinFile(const char *name) {
  std::ifstream in(dataPath(name), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<uint64_t> out(bytes.size() / 8 + 1);
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

constexpr const char *kAdd = "_Z3addPKfS0_Pfi";

TEST(Library, LoadedBeforeAContextAndLaunchedAsAFunction) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  auto data = fatbinFile("fatbin_multi_zstd.fatbin");
  struct {
    uint32_t magic, version;
    const void *container, *unused;
  } wrapper{0x466243B1, 1, data.data(), nullptr};
  CUlibraryOption opt = CU_LIBRARY_BINARY_IS_PRESERVED;
  void *optValue = reinterpret_cast<void *>(1);
  CUlibrary lib;
  ASSERT_EQ(cuLibraryLoadData(&lib, &wrapper, nullptr, nullptr, 0, &opt, &optValue, 1),
            CUDA_SUCCESS);
  unsigned count = 0;
  ASSERT_EQ(cuLibraryGetKernelCount(&count, lib), CUDA_SUCCESS);
  EXPECT_EQ(count, 1u);
  CUkernel k, all[1];
  ASSERT_EQ(cuLibraryEnumerateKernels(all, 1, lib), CUDA_SUCCESS);
  ASSERT_EQ(cuLibraryGetKernel(&k, lib, kAdd), CUDA_SUCCESS);
  EXPECT_EQ(k, all[0]);
  EXPECT_EQ(cuLibraryGetKernel(&k, lib, "missing"), CUDA_ERROR_NOT_FOUND);
  const char *name;
  ASSERT_EQ(cuKernelGetName(&name, k), CUDA_SUCCESS);
  EXPECT_STREQ(name, kAdd);
  CUlibrary back;
  ASSERT_EQ(cuKernelGetLibrary(&back, k), CUDA_SUCCESS);
  EXPECT_EQ(back, lib);
  CUfunction f;
  EXPECT_EQ(cuKernelGetFunction(&f, k), CUDA_ERROR_INVALID_CONTEXT); // no context yet

  CUcontext ctx;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  size_t offset, size;
  ASSERT_EQ(cuKernelGetParamInfo(k, 3, &offset, &size), CUDA_SUCCESS);
  EXPECT_EQ(offset, 24u);
  EXPECT_EQ(size, 4u);
  EXPECT_EQ(cuKernelGetParamInfo(k, 4, &offset, &size), CUDA_ERROR_INVALID_VALUE);
  int threads = 0;
  ASSERT_EQ(cuKernelGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k, 0),
            CUDA_SUCCESS);
  EXPECT_EQ(threads, 1024);
  EXPECT_EQ(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024, k, 0),
            CUDA_SUCCESS);
  int dyn = 0;
  ASSERT_EQ(cuKernelGetAttribute(&dyn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k, 0),
            CUDA_SUCCESS);
  EXPECT_EQ(dyn, 64 * 1024);
  EXPECT_EQ(cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_L1, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuKernelGetFunction(&f, k), CUDA_SUCCESS);
  CUmodule mod;
  ASSERT_EQ(cuLibraryGetModule(&mod, lib), CUDA_SUCCESS);
  CUfunction viaModule;
  ASSERT_EQ(cuModuleGetFunction(&viaModule, mod, kAdd), CUDA_SUCCESS);
  EXPECT_EQ(viaModule, f);

  constexpr int n = 300;
  std::vector<float> a(n, 1.5f), b(n, 2.0f), c(n);
  CUdeviceptr da, db, dc;
  ASSERT_EQ(cuMemAlloc(&da, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&db, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&dc, n * 4), CUDA_SUCCESS);
  cuMemcpyHtoD(da, a.data(), n * 4);
  cuMemcpyHtoD(db, b.data(), n * 4);
  int cnt = n;
  void *params[] = {&da, &db, &dc, &cnt};
  // The CUkernel itself is accepted where a CUfunction is, as cudart passes it.
  ASSERT_EQ(cuLaunchKernel(reinterpret_cast<CUfunction>(k), 2, 1, 1, 256, 1, 1, 0, nullptr,
                           params, nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH(c.data(), dc, n * 4), CUDA_SUCCESS);
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(c[i], 3.5f);
  cuMemFree(da);
  cuMemFree(db);
  cuMemFree(dc);

  ASSERT_EQ(cuLibraryUnload(lib), CUDA_SUCCESS);
  EXPECT_EQ(cuLibraryUnload(lib), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuKernelGetName(&name, k), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuModuleGetFunction(&viaModule, mod, kAdd), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLaunchKernel(reinterpret_cast<CUfunction>(k), 1, 1, 1, 1, 1, 1, 0, nullptr, params,
                           nullptr),
            CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
}

TEST(Library, FromFileSassOnlyAndBadArguments) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUlibrary lib;
  ASSERT_EQ(cuLibraryLoadFromFile(&lib, dataPath("fatbin_lz4.fatbin").c_str(), nullptr, nullptr,
                                  0, nullptr, nullptr, 0),
            CUDA_SUCCESS);
  EXPECT_EQ(cuLibraryUnload(lib), CUDA_SUCCESS);
  EXPECT_EQ(cuLibraryLoadFromFile(&lib, dataPath("fatbin_sass.fatbin").c_str(), nullptr, nullptr,
                                  0, nullptr, nullptr, 0),
            CUDA_ERROR_NO_BINARY_FOR_GPU);
  EXPECT_EQ(cuLibraryLoadFromFile(&lib, "/no/such/file", nullptr, nullptr, 0, nullptr, nullptr, 0),
            CUDA_ERROR_FILE_NOT_FOUND);
  EXPECT_EQ(cuLibraryLoadData(nullptr, "x", nullptr, nullptr, 0, nullptr, nullptr, 0),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLibraryLoadData(&lib, "x", nullptr, nullptr, 1, nullptr, nullptr, 0),
            CUDA_ERROR_INVALID_VALUE);
  unsigned count;
  EXPECT_EQ(cuLibraryGetKernelCount(&count, nullptr), CUDA_ERROR_INVALID_HANDLE);
}

} // namespace
