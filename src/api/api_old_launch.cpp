// Entry points: the pre-4.0 launch API (a function's block shape, shared size and parameter
// buffer set call by call, then cuLaunch / cuLaunchGrid) and context usage counts
// (cuCtxAttach/cuCtxDetach). Their answers are an H200's (tests/gpu/answers/old_launch.txt).
#include "cucpu/driver/context.h"
#include "cucpu/driver/module.h"
#include "entry.h"
#include "entry_points.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace cucpu::api::impl {
namespace {

// Writes `bytes` at `offset` of the function's parameter buffer, which grows as needed.
CUresult setParam(CUfunction f, int offset, const void *value, size_t bytes) {
  driver::Function *fn;
  if (CUresult r = functionOf(f, &fn); r != CUDA_SUCCESS)
    return r;
  if (offset < 0 || !value)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "offset {} is negative or value is NULL", offset);
  std::lock_guard lk(fn->oldLaunchMutex);
  auto &params = fn->oldLaunch.params;
  if (params.size() < size_t(offset) + bytes)
    params.resize(size_t(offset) + bytes);
  std::memcpy(params.data() + offset, value, bytes);
  return CUDA_SUCCESS;
}

// A grid of width x height blocks with the function's state, on `stream`: the first paramSize
// bytes of its buffer are the parameters, zeros after them.
CUresult launchGrid(CUfunction f, int width, int height, CUstream stream) {
  driver::Function *fn;
  if (CUresult r = functionOf(f, &fn); r != CUDA_SUCCESS)
    return r;
  if (width <= 0 || height <= 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "a grid of {} x {} blocks", width, height);
  driver::Function::OldLaunch state;
  {
    std::lock_guard lk(fn->oldLaunchMutex);
    state = fn->oldLaunch;
  }
  size_t paramBytes = 0, offset, bytes; // where the kernel's last parameter ends
  for (size_t i = 0; fn->param(i, &offset, &bytes); ++i)
    paramBytes = std::max(paramBytes, offset + bytes);
  std::vector<unsigned char> buffer(std::max(state.paramSize, paramBytes), 0);
  std::copy_n(state.params.begin(), std::min(state.paramSize, state.params.size()), buffer.begin());
  size_t size = buffer.size();
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer.data(), CU_LAUNCH_PARAM_BUFFER_SIZE,
                   &size, CU_LAUNCH_PARAM_END};
  return impl::cuLaunchKernel(f, unsigned(width), unsigned(height), 1, state.block[0],
                              state.block[1], state.block[2], state.shared, stream, nullptr, extra);
}

} // namespace

CUresult cuFuncSetBlockShape(CUfunction hfunc, int x, int y, int z) {
  driver::Function *fn;
  if (CUresult r = functionOf(hfunc, &fn); r != CUDA_SUCCESS)
    return r;
  if (x <= 0 || y <= 0 || z <= 0 || long(x) * y * z > fn->maxThreadsPerBlock())
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "block {}x{}x{}: '{}' allows at most {} threads",
                        x, y, z, fn->name(), fn->maxThreadsPerBlock());
  std::lock_guard lk(fn->oldLaunchMutex);
  fn->oldLaunch.block[0] = unsigned(x);
  fn->oldLaunch.block[1] = unsigned(y);
  fn->oldLaunch.block[2] = unsigned(z);
  return CUDA_SUCCESS;
}

CUresult cuFuncSetSharedSize(CUfunction hfunc, unsigned int bytes) {
  driver::Function *fn;
  if (CUresult r = functionOf(hfunc, &fn); r != CUDA_SUCCESS)
    return r;
  if (bytes > unsigned(fn->maxDynamicShared()))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "{} bytes of dynamic shared memory: '{}' allows {}", bytes, fn->name(),
                        fn->maxDynamicShared());
  std::lock_guard lk(fn->oldLaunchMutex);
  fn->oldLaunch.shared = bytes;
  return CUDA_SUCCESS;
}

// Bank sizes mean nothing to a CPU; the registry checks the value as the driver does.
CUresult cuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig) {
  driver::Function *fn;
  return functionOf(hfunc, &fn);
}

CUresult cuParamSetSize(CUfunction hfunc, unsigned int numbytes) {
  driver::Function *fn;
  if (CUresult r = functionOf(hfunc, &fn); r != CUDA_SUCCESS)
    return r;
  std::lock_guard lk(fn->oldLaunchMutex);
  fn->oldLaunch.paramSize = numbytes;
  return CUDA_SUCCESS;
}

CUresult cuParamSeti(CUfunction hfunc, int offset, unsigned int value) {
  return setParam(hfunc, offset, &value, sizeof value);
}
CUresult cuParamSetf(CUfunction hfunc, int offset, float value) {
  return setParam(hfunc, offset, &value, sizeof value);
}
CUresult cuParamSetv(CUfunction hfunc, int offset, void *ptr, unsigned int numbytes) {
  return setParam(hfunc, offset, ptr, numbytes);
}

CUresult cuLaunch(CUfunction f) { return launchGrid(f, 1, 1, nullptr); }
CUresult cuLaunchGrid(CUfunction f, int grid_width, int grid_height) {
  return launchGrid(f, grid_width, grid_height, nullptr);
}
CUresult cuLaunchGridAsync(CUfunction f, int grid_width, int grid_height, CUstream hStream) {
  return launchGrid(f, grid_width, grid_height, hStream);
}

CUresult cuCtxAttach(CUcontext *pctx, unsigned int flags) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!pctx || flags != 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pctx is NULL or flags = {:#x} is not 0", flags);
  ++c->usage;
  *pctx = toHandle(c);
  return CUDA_SUCCESS;
}

CUresult cuCtxDetach(CUcontext ctx) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  driver::Context *c = fromHandle(ctx);
  if (!ctx || !driver::isLiveContext(c) || c->isPrimary())
    return driver::fail(CUDA_ERROR_INVALID_CONTEXT,
                        "ctx is not a live, attached, non-primary context");
  if (--c->usage > 0)
    return CUDA_SUCCESS;
  driver::forgetOnThisThread(c); // the last detach destroys it, as cuCtxDestroy would
  return driver::destroyContext(c);
}

} // namespace cucpu::api::impl
