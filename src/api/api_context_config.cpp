// Entry points: context configuration (limits, cache and shared-memory preferences, flags, ids,
// stream priorities, execution affinity).
#include "entry.h"
#include "entry_points.h"

namespace cucpu::api::impl {
namespace {

constexpr int kLeastStreamPriority = 0;
constexpr int kGreatestStreamPriority = -5;

} // namespace

CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  return c->setLimit(limit, value);
}

CUresult cuCtxGetLimit(size_t *pvalue, CUlimit limit) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!pvalue)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pvalue is NULL");
  return c->limit(limit, pvalue);
}

CUresult cuCtxGetCacheConfig(CUfunc_cache *pconfig) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!pconfig)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pconfig is NULL");
  *pconfig = c->cacheConfig.load();
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCacheConfig(CUfunc_cache config) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (static_cast<unsigned>(config) > CU_FUNC_CACHE_PREFER_EQUAL)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "rejected: static_cast<unsigned>(config) > CU_FUNC_CACHE_PREFER_EQUAL");
  c->cacheConfig = config;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetSharedMemConfig(CUsharedconfig *pConfig) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!pConfig)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pConfig is NULL");
  *pConfig = c->sharedConfig.load();
  return CUDA_SUCCESS;
}

CUresult cuCtxSetSharedMemConfig(CUsharedconfig config) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (static_cast<unsigned>(config) > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE)
    return driver::fail(
        CUDA_ERROR_INVALID_VALUE,
        "rejected: static_cast<unsigned>(config) > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE");
  c->sharedConfig = config;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version) {
  driver::Context *c;
  if (CUresult r = resolveContext(ctx, &c); r != CUDA_SUCCESS)
    return r;
  if (!version)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "version is NULL");
  *version = 3020; // every context is created through the ABI of CUDA 3.2 or later
  return CUDA_SUCCESS;
}

CUresult cuCtxGetId(CUcontext ctx, unsigned long long *ctxId) {
  driver::Context *c;
  if (CUresult r = resolveContext(ctx, &c); r != CUDA_SUCCESS)
    return r;
  if (!ctxId)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "ctxId is NULL");
  *ctxId = c->id();
  return CUDA_SUCCESS;
}

CUresult cuCtxSetFlags(unsigned int flags) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!validContextFlags(flags))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "rejected: !validContextFlags(flags)");
  c->setFlags(flags);
  return CUDA_SUCCESS;
}

CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (leastPriority)
    *leastPriority = kLeastStreamPriority;
  if (greatestPriority)
    *greatestPriority = kGreatestStreamPriority;
  return CUDA_SUCCESS;
}

CUresult cuCtxResetPersistingL2Cache() {
  driver::Context *c;
  return currentContext(&c); // no persisting lines exist on a CPU
}

CUresult cuCtxGetExecAffinity(CUexecAffinityParam *pExecAffinity, CUexecAffinityType type) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!pExecAffinity || type != CU_EXEC_AFFINITY_TYPE_SM_COUNT)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "rejected: !pExecAffinity || type != CU_EXEC_AFFINITY_TYPE_SM_COUNT");
  pExecAffinity->type = type;
  pExecAffinity->param.smCount.val = c->device()->multiprocessors();
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
