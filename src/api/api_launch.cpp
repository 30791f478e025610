// Entry points: kernel launch and function attributes.
#include "entry.h"
#include "entry_points.h"

#include "cucpu/driver/launch.h"
#include "cucpu/driver/module.h"

namespace cucpu::api::impl {

namespace {
bool defaultStream(CUstream s) { return !s || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD; }
} // namespace

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                        unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                        void **kernelParams, void **extra) {
  driver::Context *c;
  if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
    return r;
  auto *fn = reinterpret_cast<driver::Function *>(f);
  if (!driver::isLiveFunction(fn))
    return CUDA_ERROR_INVALID_HANDLE;
  if (fn->module()->context() != c)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!defaultStream(hStream))
    return CUDA_ERROR_INVALID_HANDLE; // streams other than the default arrive with issue #6
  driver::LaunchConfig cfg;
  cfg.grid[0] = gridDimX;
  cfg.grid[1] = gridDimY;
  cfg.grid[2] = gridDimZ;
  cfg.block[0] = blockDimX;
  cfg.block[1] = blockDimY;
  cfg.block[2] = blockDimZ;
  cfg.sharedBytes = sharedMemBytes;
  return driver::launchKernel(c, fn, cfg, kernelParams, extra);
}

CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc) {
  if (CUresult r = api::requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!pi)
    return CUDA_ERROR_INVALID_VALUE;
  auto *fn = reinterpret_cast<driver::Function *>(hfunc);
  if (!driver::isLiveFunction(fn))
    return CUDA_ERROR_INVALID_HANDLE;
  return fn->attribute(attrib, pi);
}

CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  if (CUresult r = api::requireInit(); r != CUDA_SUCCESS)
    return r;
  auto *fn = reinterpret_cast<driver::Function *>(hfunc);
  if (!driver::isLiveFunction(fn))
    return CUDA_ERROR_INVALID_HANDLE;
  return fn->setAttribute(attrib, value);
}

} // namespace cucpu::api::impl
