// Entry points: context configuration (limits, cache and shared-memory preferences, flags, ids,
// stream priorities, execution affinity). Each runs after the registry's checks of a current
// context and of its outputs and values.
#include "entry.h"
#include "entry_points.h"

namespace cucpu::api::impl {
namespace {

constexpr int kLeastStreamPriority = 0;
constexpr int kGreatestStreamPriority = -5;

} // namespace

CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
  return driver::current()->setLimit(limit, value);
}

CUresult cuCtxGetLimit(size_t *pvalue, CUlimit limit) {
  return driver::current()->limit(limit, pvalue);
}

CUresult cuCtxGetCacheConfig(CUfunc_cache *pconfig) {
  *pconfig = driver::current()->cacheConfig.load();
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCacheConfig(CUfunc_cache config) {
  driver::current()->cacheConfig = config;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetSharedMemConfig(CUsharedconfig *pConfig) {
  *pConfig = driver::current()->sharedConfig.load();
  return CUDA_SUCCESS;
}

CUresult cuCtxSetSharedMemConfig(CUsharedconfig config) {
  driver::current()->sharedConfig = config;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!version) // before the context, as an H200 checks
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "version is NULL");
  driver::Context *c;
  if (CUresult r = resolveContext(ctx, &c); r != CUDA_SUCCESS)
    return r;
  *version = 3020; // every context is created through the ABI of CUDA 3.2 or later
  return CUDA_SUCCESS;
}

CUresult cuCtxGetId(CUcontext ctx, unsigned long long *ctxId) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!ctxId) // before the context, as an H200 checks
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "ctxId is NULL");
  driver::Context *c;
  if (CUresult r = resolveContext(ctx, &c); r != CUDA_SUCCESS)
    return r;
  *ctxId = c->id();
  return CUDA_SUCCESS;
}

CUresult cuCtxSetFlags(unsigned int flags) {
  if (!validContextFlags(flags))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "flags = {:#x}: unknown bits or more than one scheduling policy", flags);
  driver::current()->setFlags(flags);
  return CUDA_SUCCESS;
}

CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority) {
  if (leastPriority)
    *leastPriority = kLeastStreamPriority;
  if (greatestPriority)
    *greatestPriority = kGreatestStreamPriority;
  return CUDA_SUCCESS;
}

CUresult cuCtxResetPersistingL2Cache() {
  return CUDA_SUCCESS; // no persisting lines exist on a CPU
}

CUresult cuCtxGetExecAffinity(CUexecAffinityParam *pExecAffinity, CUexecAffinityType type) {
  if (type != CU_EXEC_AFFINITY_TYPE_SM_COUNT)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "type = {} is not CU_EXEC_AFFINITY_TYPE_SM_COUNT",
                        static_cast<int>(type));
  pExecAffinity->type = type;
  pExecAffinity->param.smCount.val = driver::current()->device()->multiprocessors();
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
