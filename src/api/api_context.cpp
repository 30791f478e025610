// Entry points: primary contexts and context management.
#include "cucpu/driver/capture.h"
#include "entry.h"
#include "entry_points.h"

#include "cucpu/driver/launch.h"
#include "cucpu/driver/stream.h"

namespace cucpu::api::impl {
namespace {

CUresult createCtx(CUcontext *pctx, unsigned flags, CUdevice dev) {
  driver::Device *d;
  if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
    return r;
  if (!pctx || !validContextFlags(flags))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "pctx is NULL or flags = {:#x} are not context flags", flags);
  driver::Context *c;
  CUresult r = driver::createContext(d, flags, &c);
  if (r == CUDA_SUCCESS)
    *pctx = toHandle(c);
  return r;
}

// A context that may be made current: a live one, or a destroyed one (as on an H200, whose calls
// in it then answer CONTEXT_IS_DESTROYED: the current-context lookup never dereferences it).
bool usableAsCurrent(driver::Context *c) {
  return driver::isLiveContext(c) || driver::isDestroyedContext(c);
}

CUresult destroyCtx(CUcontext ctx) {
  driver::Context *c = fromHandle(ctx);
  if (!driver::isLiveContext(c)) // a second destruction (an H200, tests/gpu/answers/misuse.txt)
    return driver::isDestroyedContext(c)
               ? driver::fail(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context {} was destroyed",
                              static_cast<void *>(ctx))
               : driver::fail(CUDA_ERROR_INVALID_CONTEXT, "context {} is not live",
                              static_cast<void *>(ctx));
  if (c->isPrimary()) // primary contexts are released, not destroyed
    return driver::fail(CUDA_ERROR_INVALID_CONTEXT, "a primary context is released, not destroyed");
  driver::forgetOnThisThread(c); // popped from the calling thread's stack, as CUDA documents
  CUresult r = driver::destroyContext(c);
  driver::rememberDestroyed(c);
  return r;
}

CUresult primarySetFlags(CUdevice dev, unsigned int flags) {
  driver::Device *d = driver::device(dev);
  if (!validContextFlags(flags))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "flags = {:#x}: unknown bits or more than one scheduling policy", flags);
  std::lock_guard lk(d->primaryMutex);
  d->primaryFlags = flags;
  return CUDA_SUCCESS;
}

CUresult pushCtx(CUcontext ctx) {
  if (!usableAsCurrent(fromHandle(ctx)))
    return driver::fail(CUDA_ERROR_INVALID_CONTEXT, "context {} is not live",
                        static_cast<void *>(ctx));
  driver::push(fromHandle(ctx));
  return CUDA_SUCCESS;
}

CUresult popCtx(CUcontext *pctx) {
  if (!driver::current())
    return driver::fail(CUDA_ERROR_INVALID_CONTEXT, "no context is current on this thread");
  driver::Context *c = driver::pop();
  if (pctx)
    *pctx = toHandle(c);
  return CUDA_SUCCESS;
}

// The output is checked before the context, as an H200 does.
CUresult contextDevice(CUdevice *device, CUcontext ctx) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!device)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "device is NULL");
  driver::Context *c;
  if (CUresult r = resolveContext(ctx, &c); r != CUDA_SUCCESS)
    return r;
  *device = c->device()->ordinal();
  return CUDA_SUCCESS;
}

CUresult synchronizeCtx(CUcontext ctx) {
  driver::Context *c;
  if (CUresult r = resolveContext(ctx, &c); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::unsafeDuringCapture(); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::synchronizeStreams(c); r != CUDA_SUCCESS)
    return r;
  return driver::synchronize(c);
}

} // namespace

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  driver::Context *c;
  CUresult r = driver::retainPrimary(driver::device(dev), &c);
  if (r == CUDA_SUCCESS)
    *pctx = toHandle(c);
  return r;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  return driver::releasePrimary(driver::device(dev));
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  return driver::releasePrimary(driver::device(dev));
}
CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) {
  return primarySetFlags(dev, flags);
}
CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
  return primarySetFlags(dev, flags);
}

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active) {
  driver::Device *d = driver::device(dev);
  std::lock_guard lk(d->primaryMutex);
  *flags = d->primaryFlags;
  *active = d->primary != nullptr;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return driver::resetPrimary(driver::device(dev)); }
CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  return driver::resetPrimary(driver::device(dev));
}

CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  return createCtx(pctx, flags, dev);
}
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  return createCtx(pctx, flags, dev);
}
CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
                        unsigned int flags, CUdevice dev) {
  if (numParams < 0 || (numParams > 0 && !paramsArray))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "numParams = {} without its array", numParams);
  if (numParams > 0) // execution affinity (SM partitioning) has no meaning on a CPU device
    return driver::fail(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY,
                        "execution affinity has no meaning on a CPU device");
  return createCtx(pctx, flags, dev);
}
CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags,
                        CUdevice dev) {
  if (params) {
    if (params->numExecAffinityParams < 0 ||
        (params->numExecAffinityParams > 0 && !params->execAffinityParams))
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "numExecAffinityParams = {} without its array",
                          params->numExecAffinityParams);
    if (params->numExecAffinityParams > 0)
      return driver::fail(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY,
                          "execution affinity has no meaning on a CPU device");
    if (params->cigParams) // CUDA-in-graphics sharing needs a graphics API
      return driver::fail(CUDA_ERROR_NOT_SUPPORTED,
                          "CUDA-in-graphics sharing needs a graphics API");
  }
  return createCtx(pctx, flags, dev);
}

CUresult cuCtxDestroy(CUcontext ctx) { return destroyCtx(ctx); }
CUresult cuCtxDestroy_v2(CUcontext ctx) { return destroyCtx(ctx); }
CUresult cuCtxPushCurrent(CUcontext ctx) { return pushCtx(ctx); }
CUresult cuCtxPushCurrent_v2(CUcontext ctx) { return pushCtx(ctx); }
CUresult cuCtxPopCurrent(CUcontext *pctx) { return popCtx(pctx); }
CUresult cuCtxPopCurrent_v2(CUcontext *pctx) { return popCtx(pctx); }

CUresult cuCtxSetCurrent(CUcontext ctx) {
  if (ctx && !usableAsCurrent(fromHandle(ctx)))
    return driver::fail(CUDA_ERROR_INVALID_CONTEXT, "context {} is not live",
                        static_cast<void *>(ctx));
  driver::setCurrent(fromHandle(ctx));
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *pctx) {
  *pctx = toHandle(driver::current());
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *device) { return contextDevice(device, nullptr); }
CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx) { return contextDevice(device, ctx); }

CUresult cuCtxGetFlags(unsigned int *flags) {
  *flags = driver::current()->flags();
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize() { return synchronizeCtx(nullptr); }
CUresult cuCtxSynchronize_v2(CUcontext ctx) { return synchronizeCtx(ctx); }

} // namespace cucpu::api::impl
