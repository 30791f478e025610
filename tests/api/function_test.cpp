// Function and module queries (names, parameters, globals, enumeration) and the occupancy
// calculator, with their error paths.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

const char *kPtx = R"(
.version 8.0
.target sm_80
.address_size 64

.visible .global .align 4 .u32 counter = 42;
.visible .const .align 4 .b32 table[4] = {1, 2, 3, 4};

.visible .entry bump(.param .u32 add, .param .u64 unused)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  ld.param.u32 %r1, [add];
  mov.u64 %rd1, counter;
  ld.global.u32 %r2, [%rd1];
  add.s32 %r3, %r2, %r1;
  st.global.u32 [%rd1], %r3;
  ret;
}

.visible .entry small() .maxntid 64, 1, 1
{
  ret;
}
)";

class Function : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleLoadData(&mod, kPtx), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&bump, mod, "bump"), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&small, mod, "small"), CUDA_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(cuCtxDestroy(ctx), CUDA_SUCCESS); }
  CUcontext ctx = nullptr;
  CUmodule mod = nullptr;
  CUfunction bump = nullptr, small = nullptr;
};

// The pre-4.0 parameter calls with a negative offset or no value crash NVIDIA's driver; here they
// are refused (their other answers: tests/gpu/answers/old_launch.txt).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST_F(Function, OldParameterCallsRefuseNegativeOffsets) {
  EXPECT_EQ(cuParamSeti(bump, -4, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuParamSetv(bump, 0, nullptr, 8), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuParamSetf(bump, 0, 1.0f), CUDA_SUCCESS);
}
#pragma GCC diagnostic pop

TEST_F(Function, NameModuleAndParameters) {
  const char *name = nullptr;
  ASSERT_EQ(cuFuncGetName(&name, bump), CUDA_SUCCESS);
  EXPECT_STREQ(name, "bump");
  CUmodule m = nullptr;
  ASSERT_EQ(cuFuncGetModule(&m, bump), CUDA_SUCCESS);
  EXPECT_EQ(m, mod);
  size_t offset = 99, size = 99;
  ASSERT_EQ(cuFuncGetParamInfo(bump, 0, &offset, &size), CUDA_SUCCESS);
  EXPECT_EQ(offset, 0u);
  EXPECT_EQ(size, 4u);
  ASSERT_EQ(cuFuncGetParamInfo(bump, 1, &offset, &size), CUDA_SUCCESS);
  EXPECT_EQ(offset, 8u);
  EXPECT_EQ(size, 8u);
  EXPECT_EQ(cuFuncGetParamInfo(bump, 2, &offset, &size), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuFuncGetParamInfo(small, 0, &offset, &size), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuFuncGetName(nullptr, bump), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuFuncGetModule(nullptr, bump), CUDA_ERROR_INVALID_VALUE);
  CUfunctionLoadingState state = CU_FUNCTION_LOADING_STATE_UNLOADED;
  ASSERT_EQ(cuFuncLoad(bump), CUDA_SUCCESS);
  ASSERT_EQ(cuFuncIsLoaded(&state, bump), CUDA_SUCCESS);
  EXPECT_EQ(state, CU_FUNCTION_LOADING_STATE_LOADED);
  EXPECT_EQ(cuFuncSetCacheConfig(bump, CU_FUNC_CACHE_PREFER_L1), CUDA_SUCCESS);
  EXPECT_EQ(cuFuncSetCacheConfig(bump, static_cast<CUfunc_cache>(9)), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuModuleUnload(mod), CUDA_SUCCESS);
  EXPECT_EQ(cuFuncGetName(&name, bump), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuFuncIsLoaded(&state, bump), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuFuncLoad(bump), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuFuncGetParamInfo(bump, 0, &offset, &size), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(Function, GlobalsHaveTheirInitialisersAndAreSeenByKernels) {
  CUdeviceptr counter = 0, table = 0;
  size_t bytes = 0;
  ASSERT_EQ(cuModuleGetGlobal(&counter, &bytes, mod, "counter"), CUDA_SUCCESS);
  EXPECT_EQ(bytes, 4u);
  uint32_t v = 0;
  ASSERT_EQ(cuMemcpyDtoH(&v, counter, 4), CUDA_SUCCESS);
  EXPECT_EQ(v, 42u);
  ASSERT_EQ(cuModuleGetGlobal(&table, &bytes, mod, "table"), CUDA_SUCCESS);
  EXPECT_EQ(bytes, 16u);
  uint32_t t[4] = {};
  ASSERT_EQ(cuMemcpyDtoH(t, table, 16), CUDA_SUCCESS);
  EXPECT_EQ(t[3], 4u);
  uint32_t add = 8;
  uint64_t unused = 0;
  void *args[] = {&add, &unused};
  ASSERT_EQ(cuLaunchKernel(bump, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH(&v, counter, 4), CUDA_SUCCESS);
  EXPECT_EQ(v, 50u);
  v = 100; // the host writes the variable the kernel reads
  ASSERT_EQ(cuMemcpyHtoD(counter, &v, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuLaunchKernel(bump, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH(&v, counter, 4), CUDA_SUCCESS);
  EXPECT_EQ(v, 108u);
  EXPECT_EQ(cuModuleGetGlobal(nullptr, &bytes, mod, "counter"), CUDA_SUCCESS); // optional out
  EXPECT_EQ(cuModuleGetGlobal(&counter, &bytes, mod, "missing"), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(cuModuleGetGlobal(&counter, &bytes, mod, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuModuleGetGlobal(&counter, &bytes, nullptr, "counter"), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(Function, ModuleEnumeratesItsFunctions) {
  unsigned count = 0;
  ASSERT_EQ(cuModuleGetFunctionCount(&count, mod), CUDA_SUCCESS);
  EXPECT_EQ(count, 2u);
  CUfunction fns[2] = {};
  ASSERT_EQ(cuModuleEnumerateFunctions(fns, 2, mod), CUDA_SUCCESS);
  EXPECT_TRUE((fns[0] == bump && fns[1] == small) || (fns[0] == small && fns[1] == bump));
  CUfunction one[1] = {};
  ASSERT_EQ(cuModuleEnumerateFunctions(one, 1, mod), CUDA_SUCCESS);
  EXPECT_NE(one[0], nullptr);
  EXPECT_EQ(cuModuleGetFunctionCount(nullptr, mod), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuModuleEnumerateFunctions(nullptr, 2, mod), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuModuleGetFunctionCount(&count, reinterpret_cast<CUmodule>(&count)),
            CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(Function, LoadingModeFollowsTheEnvironment) {
  CUmoduleLoadingMode mode;
  unsetenv("CUDA_MODULE_LOADING");
  ASSERT_EQ(cuModuleGetLoadingMode(&mode), CUDA_SUCCESS);
  EXPECT_EQ(mode, CU_MODULE_LAZY_LOADING);
  setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  ASSERT_EQ(cuModuleGetLoadingMode(&mode), CUDA_SUCCESS);
  EXPECT_EQ(mode, CU_MODULE_EAGER_LOADING);
  unsetenv("CUDA_MODULE_LOADING");
  EXPECT_EQ(cuModuleGetLoadingMode(nullptr), CUDA_ERROR_INVALID_VALUE);
}

// The occupancy calculator's rules for a compute capability 8.0 multiprocessor (2048 threads in
// whole warps, 32 blocks, 164 KiB of shared memory less 1 KiB per block), no register limit.
TEST_F(Function, OccupancyFollowsTheCalculatorsRules) {
  int blocks = -1;
  ASSERT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bump, 256, 0), CUDA_SUCCESS);
  EXPECT_EQ(blocks, 8); // 2048 / 256
  ASSERT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bump, 33, 0), CUDA_SUCCESS);
  EXPECT_EQ(blocks, 32); // two warps each, but 32 blocks at most
  ASSERT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bump, 256, 40 * 1024),
            CUDA_SUCCESS);
  EXPECT_EQ(blocks, 4); // 164 KiB / (40 KiB + 1 KiB)
  ASSERT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, small, 128, 0), CUDA_SUCCESS);
  EXPECT_EQ(blocks, 0); // beyond .maxntid
  ASSERT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bump, 32, 1 << 30), CUDA_SUCCESS);
  EXPECT_EQ(blocks, 0); // more dynamic shared memory than a block may have
  EXPECT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, bump, 32, 0, 4),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessor(nullptr, bump, 32, 0),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bump, 0, 0),
            CUDA_ERROR_INVALID_VALUE);
  int minGrid = 0, block = 0, sms = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuOccupancyMaxPotentialBlockSize(&minGrid, &block, bump, nullptr, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(block, 1024); // the largest of the sizes that fill a multiprocessor
  EXPECT_EQ(minGrid, 2 * sms);
  ASSERT_EQ(cuOccupancyMaxPotentialBlockSize(&minGrid, &block, small, nullptr, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(block, 64);
  ASSERT_EQ(cuOccupancyMaxPotentialBlockSize(&minGrid, &block, bump, nullptr, 0, 100),
            CUDA_SUCCESS);
  EXPECT_EQ(block, 64); // 32 blocks of 64 fill it; 100 (16 blocks) and 96 (21) do not
  // The callback's shared-memory need shrinks the block until it fits.
  auto need = [](int size) -> size_t { return size > 256 ? size_t(1) << 30 : 1024; };
  ASSERT_EQ(cuOccupancyMaxPotentialBlockSizeWithFlags(&minGrid, &block, bump, need, 0, 0,
                                                      CU_OCCUPANCY_DEFAULT),
            CUDA_SUCCESS);
  EXPECT_EQ(block, 256);
  EXPECT_EQ(cuOccupancyMaxPotentialBlockSize(nullptr, &block, bump, nullptr, 0, 0),
            CUDA_ERROR_INVALID_VALUE);
  size_t avail = 0;
  ASSERT_EQ(cuOccupancyAvailableDynamicSMemPerBlock(&avail, bump, 1, 128), CUDA_SUCCESS);
  int maxDyn = 0, staticShared = 0;
  ASSERT_EQ(cuFuncGetAttribute(&maxDyn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bump),
            CUDA_SUCCESS);
  ASSERT_EQ(cuFuncGetAttribute(&staticShared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, bump),
            CUDA_SUCCESS);
  EXPECT_EQ(avail, size_t(maxDyn)); // one block: all it may have
  ASSERT_EQ(cuOccupancyAvailableDynamicSMemPerBlock(&avail, bump, 4, 128), CUDA_SUCCESS);
  EXPECT_EQ(avail, size_t(41 * 1024 - 1024 - staticShared));
  ASSERT_EQ(cuOccupancyAvailableDynamicSMemPerBlock(&avail, bump, 9, 256), CUDA_SUCCESS);
  EXPECT_EQ(avail, 0u); // nine blocks of 256 threads never fit
  EXPECT_EQ(cuOccupancyAvailableDynamicSMemPerBlock(&avail, bump, 0, 128),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &blocks, reinterpret_cast<CUfunction>(&blocks), 32, 0),
            CUDA_ERROR_INVALID_HANDLE);
}

} // namespace
