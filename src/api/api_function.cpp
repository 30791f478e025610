// Entry points: function queries (name, parameters, module, loading state, cache preference).
#include "entry.h"
#include "entry_points.h"

#include "cucpu/driver/module.h"

namespace cucpu::api::impl {
CUresult cuFuncGetName(const char **name, CUfunction hfunc) {
  driver::Function *f;
  if (CUresult r = functionOf(hfunc, &f); r != CUDA_SUCCESS)
    return r;
  *name = f->name().c_str();
  return CUDA_SUCCESS;
}

CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
                            size_t *paramSize) {
  if (!paramOffset && !paramSize) // before the function, as an H200 checks
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "outputs paramOffset and paramSize are both NULL");
  driver::Function *f;
  if (CUresult r = functionOf(func, &f); r != CUDA_SUCCESS)
    return r;
  return paramInfo(f, paramIndex, paramOffset, paramSize);
}

CUresult cuFuncGetModule(CUmodule *hmod, CUfunction hfunc) {
  driver::Function *f;
  if (CUresult r = functionOf(hfunc, &f); r != CUDA_SUCCESS)
    return r;
  *hmod = reinterpret_cast<CUmodule>(f->module());
  return CUDA_SUCCESS;
}

CUresult cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction function) {
  driver::Function *f;
  if (CUresult r = functionOf(function, &f); r != CUDA_SUCCESS)
    return r;
  *state = CU_FUNCTION_LOADING_STATE_LOADED; // kernels are lowered when their module loads
  return CUDA_SUCCESS;
}

CUresult cuFuncLoad(CUfunction function) {
  driver::Function *f;
  return functionOf(function, &f);
}

CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config) {
  driver::Function *f;
  if (CUresult r = functionOf(hfunc, &f); r != CUDA_SUCCESS)
    return r;
  f->cacheConfig = config;
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
