// Success and misuse of library, kernel, memory, occupancy, callback and context calls; the
// codes are NVIDIA's driver's (H200, driver 580.159.04, tests/gpu/record_more_errors.cpp).
#include <cuda.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

void CUDA_CB callback(CUstream, CUresult, void *) {}

class MoreErrors : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
    std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/api/errors/counter.ptx");
    std::stringstream ss;
    ss << in.rdbuf();
    ptx = ss.str();
  }
  void TearDown() override { cuCtxDestroy(ctx); }
  CUcontext ctx = nullptr;
  std::string ptx;
};

TEST_F(MoreErrors, ContextQueries) {
  unsigned flags = 0;
  EXPECT_EQ(cuCtxGetFlags(&flags), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxGetFlags(nullptr), CUDA_ERROR_INVALID_VALUE);
  // Deprecated, but still exported and used by older programs.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  CUsharedconfig sc;
  EXPECT_EQ(cuCtxGetSharedMemConfig(&sc), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxGetSharedMemConfig(nullptr), CUDA_ERROR_INVALID_VALUE);
#pragma GCC diagnostic pop
  EXPECT_EQ(cuCtxResetPersistingL2Cache(), CUDA_SUCCESS);
}

TEST_F(MoreErrors, LibrariesAndKernels) {
  CUlibrary lib;
  ASSERT_EQ(cuLibraryLoadData(&lib, ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0),
            CUDA_SUCCESS);
  CUkernel k;
  ASSERT_EQ(cuLibraryGetKernel(&k, lib, "bump"), CUDA_SUCCESS);
  CUdeviceptr d = 0;
  size_t bytes = 0;
  EXPECT_EQ(cuLibraryGetGlobal(&d, &bytes, lib, "counter"), CUDA_SUCCESS);
  EXPECT_EQ(bytes, 4u);
  int counter = 0;
  ASSERT_EQ(cuMemcpyDtoH(&counter, d, 4), CUDA_SUCCESS);
  EXPECT_EQ(counter, 5); // its initialiser
  EXPECT_EQ(cuLibraryGetGlobal(&d, &bytes, lib, "missing"), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(cuLibraryGetGlobal(&d, &bytes, nullptr, "counter"), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLibraryGetGlobal(&d, &bytes, lib, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLibraryGetManaged(&d, &bytes, lib, "counter"), CUDA_ERROR_NOT_FOUND); // not managed
  CUdeviceptr md = 0;
  EXPECT_EQ(cuLibraryGetManaged(&md, &bytes, lib, "shared"), CUDA_SUCCESS);
  EXPECT_EQ(bytes, 4u);
  EXPECT_EQ(*reinterpret_cast<int *>(md), 7); // managed memory is host-accessible
  unsigned isManaged = 9;
  EXPECT_EQ(cuPointerGetAttribute(&isManaged, CU_POINTER_ATTRIBUTE_IS_MANAGED, md), CUDA_SUCCESS);
  EXPECT_EQ(isManaged, 1u); // a .attribute(.managed) variable, as an H100 reports it
  EXPECT_EQ(cuLibraryGetGlobal(&d, &bytes, lib, "counter"), CUDA_SUCCESS);
  EXPECT_EQ(cuPointerGetAttribute(&isManaged, CU_POINTER_ATTRIBUTE_IS_MANAGED, d), CUDA_SUCCESS);
  EXPECT_EQ(isManaged, 0u);
  EXPECT_EQ(cuLibraryGetManaged(&d, &bytes, lib, "missing"), CUDA_ERROR_NOT_FOUND);
  CUmodule mod;
  EXPECT_EQ(cuLibraryGetModule(&mod, lib), CUDA_SUCCESS);
  EXPECT_EQ(cuLibraryGetModule(nullptr, lib), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLibraryGetModule(&mod, nullptr), CUDA_ERROR_INVALID_HANDLE);
  CUkernel ks[4] = {};
  EXPECT_EQ(cuLibraryEnumerateKernels(ks, 1, lib), CUDA_SUCCESS);
  EXPECT_EQ(ks[0], k);
  EXPECT_EQ(cuLibraryEnumerateKernels(ks, 4, lib), CUDA_SUCCESS);
  EXPECT_EQ(cuLibraryEnumerateKernels(nullptr, 1, lib), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLibraryEnumerateKernels(ks, 1, nullptr), CUDA_ERROR_INVALID_HANDLE);
  CUlibrary owner = nullptr;
  EXPECT_EQ(cuKernelGetLibrary(&owner, k), CUDA_SUCCESS);
  EXPECT_EQ(owner, lib);
  EXPECT_EQ(cuKernelGetLibrary(nullptr, k), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuKernelGetLibrary(&owner, nullptr), CUDA_ERROR_INVALID_HANDLE);
  int v = 0;
  EXPECT_EQ(cuKernelGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k, 0), CUDA_SUCCESS);
  EXPECT_GT(v, 0);
  EXPECT_EQ(cuKernelGetAttribute(nullptr, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k, 0),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuKernelGetAttribute(&v, static_cast<CUfunction_attribute>(99), k, 0),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuKernelGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, nullptr, 0),
            CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuKernelGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k, 99),
            CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024, k, 0),
            CUDA_SUCCESS);
  EXPECT_EQ(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 64, k, 0),
            CUDA_ERROR_INVALID_VALUE); // read-only
  EXPECT_EQ(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1 << 30, k, 0),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024, nullptr, 0),
            CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_L1, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuKernelSetCacheConfig(k, static_cast<CUfunc_cache>(9), 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuKernelSetCacheConfig(nullptr, CU_FUNC_CACHE_PREFER_L1, 0), CUDA_ERROR_INVALID_HANDLE);
  CUfunction fn;
  ASSERT_EQ(cuModuleGetFunction(&fn, mod, "bump"), CUDA_SUCCESS);
  int minGrid = 0, block = 0;
  EXPECT_EQ(cuOccupancyMaxPotentialBlockSizeWithFlags(&minGrid, &block, fn, nullptr, 0, 0, 0),
            CUDA_SUCCESS);
  EXPECT_GT(block, 0);
  EXPECT_EQ(cuOccupancyMaxPotentialBlockSizeWithFlags(&minGrid, &block, nullptr, nullptr, 0, 0, 0),
            CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuOccupancyMaxPotentialBlockSizeWithFlags(nullptr, &block, fn, nullptr, 0, 0, 0),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuOccupancyMaxPotentialBlockSizeWithFlags(&minGrid, &block, fn, nullptr, 0, 0, 99),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLibraryUnload(lib), CUDA_SUCCESS);
}

TEST_F(MoreErrors, MemoryCalls) {
  size_t freeB = 0, totalB = 0;
  EXPECT_EQ(cuMemGetInfo(&freeB, &totalB), CUDA_SUCCESS);
  EXPECT_EQ(cuMemGetInfo(nullptr, &totalB), CUDA_SUCCESS);
  EXPECT_EQ(cuMemGetInfo(&freeB, nullptr), CUDA_SUCCESS);
  CUdeviceptr m = 0, p = 0;
  EXPECT_EQ(cuMemAllocManaged(&m, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAllocManaged(&m, 64, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAllocManaged(&m, 64, CU_MEM_ATTACH_SINGLE), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAllocManaged(nullptr, 64, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemAlloc(&p, 4096), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD8(p, 1, 4096), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD8(p, 1, 4097), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD16(p + 2048, 0x0302, 1024), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD16(p + 1, 1, 4), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyDtoD(p, p + 2048, 2048), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyDtoD(p, p + 2048, 4096), CUDA_ERROR_INVALID_VALUE);
  unsigned char h[4];
  ASSERT_EQ(cuMemcpyDtoH(h, p, 4), CUDA_SUCCESS);
  EXPECT_EQ(h[0], 2);
  EXPECT_EQ(h[1], 3);
  EXPECT_EQ(cuMemsetD2D16(p, 64, 1, 32, 64), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD2D16(p + 1, 64, 1, 8, 4), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD2D16(p, 62, 1, 8, 4), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD2D16(p, 16, 1, 32, 4), CUDA_ERROR_INVALID_VALUE);
  CUDA_MEMCPY2D cp = {};
  cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  cp.srcDevice = p;
  cp.srcPitch = 64;
  cp.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  cp.dstDevice = p + 2048;
  cp.dstPitch = 64;
  cp.WidthInBytes = 64;
  cp.Height = 8;
  EXPECT_EQ(cuMemcpy2DUnaligned(&cp), CUDA_SUCCESS);
  cp.dstPitch = 32;
  EXPECT_EQ(cuMemcpy2DUnaligned(&cp), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpy2DUnaligned(nullptr), CUDA_ERROR_INVALID_VALUE);
  cuMemFree(p);
}

TEST_F(MoreErrors, StreamCallbacks) {
  CUstream s;
  ASSERT_EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamAddCallback(s, callback, nullptr, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamAddCallback(s, nullptr, nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamAddCallback(s, callback, nullptr, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLaunchHostFunc(s, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  cuStreamDestroy(s);
}

} // namespace
