// Context configuration: limits, cache and shared-memory preferences, ids, flags, priorities.
#define CUDA_ENABLE_DEPRECATED 1 // the shared-memory bank configuration is tested too
#include <cuda.h>
#include <gtest/gtest.h>

namespace {

class ContextConfig : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(cuCtxDestroy(ctx), CUDA_SUCCESS); }
  CUcontext ctx = nullptr;
};

TEST_F(ContextConfig, LimitsHaveDefaultsAndKeepWhatIsSet) {
  size_t v = 0;
  ASSERT_EQ(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
  EXPECT_EQ(v, 1024u);
  ASSERT_EQ(cuCtxGetLimit(&v, CU_LIMIT_PRINTF_FIFO_SIZE), CUDA_SUCCESS);
  EXPECT_EQ(v, 1u << 20);
  ASSERT_EQ(cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE), CUDA_SUCCESS);
  EXPECT_EQ(v, 8u << 20);
  ASSERT_EQ(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 64 << 20), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
  EXPECT_EQ(v, 4096u);
  ASSERT_EQ(cuCtxGetLimit(&v, CU_LIMIT_MALLOC_HEAP_SIZE), CUDA_SUCCESS);
  EXPECT_EQ(v, 64u << 20);
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 48), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 32), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_SHMEM_SIZE, 1), CUDA_ERROR_UNSUPPORTED_LIMIT);
  // No such limit: INVALID_VALUE, as an H200 answers (tests/gpu/answers/misuse.txt).
  EXPECT_EQ(cuCtxSetLimit(static_cast<CUlimit>(77), 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxGetLimit(&v, static_cast<CUlimit>(77)), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxGetLimit(nullptr, CU_LIMIT_STACK_SIZE), CUDA_ERROR_INVALID_VALUE);
  // Limits belong to the context.
  CUcontext other;
  ASSERT_EQ(cuCtxCreate(&other, nullptr, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_SUCCESS);
  EXPECT_EQ(v, 1024u);
  ASSERT_EQ(cuCtxDestroy(other), CUDA_SUCCESS);
}

TEST_F(ContextConfig, CacheAndSharedMemoryPreferences) {
  CUfunc_cache cache;
  ASSERT_EQ(cuCtxGetCacheConfig(&cache), CUDA_SUCCESS);
  EXPECT_EQ(cache, CU_FUNC_CACHE_PREFER_NONE);
  ASSERT_EQ(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_SHARED), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetCacheConfig(&cache), CUDA_SUCCESS);
  EXPECT_EQ(cache, CU_FUNC_CACHE_PREFER_SHARED);
  EXPECT_EQ(cuCtxSetCacheConfig(static_cast<CUfunc_cache>(4)), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxGetCacheConfig(nullptr), CUDA_ERROR_INVALID_VALUE);
  CUsharedconfig shared;
  ASSERT_EQ(cuCtxGetSharedMemConfig(&shared), CUDA_SUCCESS);
  EXPECT_EQ(shared, CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE);
  ASSERT_EQ(cuCtxSetSharedMemConfig(CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetSharedMemConfig(&shared), CUDA_SUCCESS);
  EXPECT_EQ(shared, CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE);
  EXPECT_EQ(cuCtxSetSharedMemConfig(static_cast<CUsharedconfig>(3)), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(ContextConfig, IdsVersionsAndFlags) {
  unsigned long long id = 0, id2 = 0, current = 0;
  ASSERT_EQ(cuCtxGetId(ctx, &id), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetId(nullptr, &current), CUDA_SUCCESS);
  EXPECT_EQ(id, current);
  CUcontext other;
  ASSERT_EQ(cuCtxCreate(&other, nullptr, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetId(other, &id2), CUDA_SUCCESS);
  EXPECT_NE(id, id2);
  ASSERT_EQ(cuCtxDestroy(other), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxGetId(other, &id2), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuCtxGetId(ctx, nullptr), CUDA_ERROR_INVALID_VALUE);
  unsigned version = 0;
  ASSERT_EQ(cuCtxGetApiVersion(ctx, &version), CUDA_SUCCESS);
  EXPECT_EQ(version, 3020u);
  EXPECT_EQ(cuCtxGetApiVersion(ctx, nullptr), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuCtxSetFlags(CU_CTX_SCHED_BLOCKING_SYNC), CUDA_SUCCESS);
  unsigned flags = 0;
  ASSERT_EQ(cuCtxGetFlags(&flags), CUDA_SUCCESS);
  EXPECT_EQ(flags, unsigned(CU_CTX_SCHED_BLOCKING_SYNC));
  EXPECT_EQ(cuCtxSetFlags(CU_CTX_SCHED_SPIN | CU_CTX_SCHED_YIELD), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxResetPersistingL2Cache(), CUDA_SUCCESS);
}

TEST_F(ContextConfig, StreamPriorityRangeAndExecAffinity) {
  int least = 99, greatest = 99;
  ASSERT_EQ(cuCtxGetStreamPriorityRange(&least, &greatest), CUDA_SUCCESS);
  EXPECT_EQ(least, 0);
  EXPECT_LT(greatest, least); // lower numbers are higher priorities
  EXPECT_EQ(cuCtxGetStreamPriorityRange(nullptr, nullptr), CUDA_SUCCESS);
  CUexecAffinityParam p{};
  ASSERT_EQ(cuCtxGetExecAffinity(&p, CU_EXEC_AFFINITY_TYPE_SM_COUNT), CUDA_SUCCESS);
  int sms = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), CUDA_SUCCESS);
  EXPECT_EQ(p.param.smCount.val, unsigned(sms));
  EXPECT_EQ(cuCtxGetExecAffinity(&p, CU_EXEC_AFFINITY_TYPE_MAX), CUDA_ERROR_INVALID_VALUE);
}

TEST(ContextConfigNoContext, NeedsACurrentContext) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  size_t v;
  EXPECT_EQ(cuCtxGetLimit(&v, CU_LIMIT_STACK_SIZE), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuCtxSetCacheConfig(CU_FUNC_CACHE_PREFER_L1), CUDA_ERROR_INVALID_CONTEXT);
  int a, b;
  EXPECT_EQ(cuCtxGetStreamPriorityRange(&a, &b), CUDA_ERROR_INVALID_CONTEXT);
  unsigned long long id;
  EXPECT_EQ(cuCtxGetId(nullptr, &id), CUDA_ERROR_INVALID_CONTEXT);
}

} // namespace
