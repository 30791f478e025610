// Entry points: primary contexts and context management.
#include "entry.h"

#include "cucpu/driver/launch.h"

using namespace cucpu;
using api::entry;

namespace cucpu::api {

CUresult currentContext(driver::Context **out) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  driver::Context *c = driver::current();
  if (!c)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!driver::isLiveContext(c))
    return CUDA_ERROR_CONTEXT_IS_DESTROYED;
  *out = c;
  return CUDA_SUCCESS;
}

CUresult resolveContext(CUcontext h, driver::Context **out) {
  if (!h)
    return currentContext(out);
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!driver::isLiveContext(fromHandle(h)))
    return CUDA_ERROR_INVALID_CONTEXT;
  *out = fromHandle(h);
  return CUDA_SUCCESS;
}

} // namespace cucpu::api

namespace {

constexpr unsigned kCtxFlags = CU_CTX_FLAGS_MASK;

bool validSchedFlags(unsigned flags) {
  unsigned s = flags & CU_CTX_SCHED_MASK;
  return (flags & ~kCtxFlags) == 0 && (s == 0 || s == 1 || s == 2 || s == 4);
}

CUresult deviceOf(CUdevice dev, driver::Device **out) {
  if (CUresult r = api::requireInit(); r != CUDA_SUCCESS)
    return r;
  *out = driver::device(dev);
  return *out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult createCtx(CUcontext *pctx, unsigned flags, CUdevice dev) {
  driver::Device *d;
  if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
    return r;
  if (!pctx || !validSchedFlags(flags))
    return CUDA_ERROR_INVALID_VALUE;
  driver::Context *c;
  CUresult r = driver::createContext(d, flags, &c);
  if (r == CUDA_SUCCESS)
    *pctx = api::toHandle(c);
  return r;
}

CUresult destroyCtx(CUcontext ctx) {
  if (CUresult r = api::requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!ctx)
    return CUDA_ERROR_INVALID_VALUE;
  driver::Context *c = api::fromHandle(ctx);
  if (!driver::isLiveContext(c))
    return CUDA_ERROR_INVALID_CONTEXT;
  if (c->isPrimary())
    return CUDA_ERROR_INVALID_CONTEXT; // primary contexts are released, not destroyed
  driver::forgetOnThisThread(c); // popped from the calling thread's stack, as CUDA documents
  return driver::destroyContext(c);
}

} // namespace

CUCPU_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  return entry("cuDevicePrimaryCtxRetain", [&] {
    driver::Device *d;
    if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
      return r;
    if (!pctx)
      return CUDA_ERROR_INVALID_VALUE;
    driver::Context *c;
    CUresult r = driver::retainPrimary(d, &c);
    if (r == CUDA_SUCCESS)
      *pctx = api::toHandle(c);
    return r;
  });
}

static CUresult primaryRelease(const char *name, CUdevice dev) {
  return entry(name, [&] {
    driver::Device *d;
    if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
      return r;
    return driver::releasePrimary(d);
  });
}
CUCPU_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  return primaryRelease("cuDevicePrimaryCtxRelease", dev);
}
CUCPU_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  return primaryRelease("cuDevicePrimaryCtxRelease_v2", dev);
}

static CUresult primarySetFlags(const char *name, CUdevice dev, unsigned int flags) {
  return entry(name, [&] {
    driver::Device *d;
    if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
      return r;
    if (!validSchedFlags(flags))
      return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(d->primaryMutex);
    d->primaryFlags = flags;
    return CUDA_SUCCESS;
  });
}
CUCPU_EXPORT CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) {
  return primarySetFlags("cuDevicePrimaryCtxSetFlags", dev, flags);
}
CUCPU_EXPORT CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
  return primarySetFlags("cuDevicePrimaryCtxSetFlags_v2", dev, flags);
}

CUCPU_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active) {
  return entry("cuDevicePrimaryCtxGetState", [&] {
    driver::Device *d;
    if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
      return r;
    if (!flags || !active)
      return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lk(d->primaryMutex);
    *flags = d->primaryFlags;
    *active = d->primary != nullptr;
    return CUDA_SUCCESS;
  });
}

static CUresult primaryReset(const char *name, CUdevice dev) {
  return entry(name, [&] {
    driver::Device *d;
    if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
      return r;
    return driver::resetPrimary(d);
  });
}
CUCPU_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev) {
  return primaryReset("cuDevicePrimaryCtxReset", dev);
}
CUCPU_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  return primaryReset("cuDevicePrimaryCtxReset_v2", dev);
}

CUCPU_EXPORT CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  return entry("cuCtxCreate", [&] { return createCtx(pctx, flags, dev); });
}
CUCPU_EXPORT CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  return entry("cuCtxCreate_v2", [&] { return createCtx(pctx, flags, dev); });
}
CUCPU_EXPORT CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray,
                                     int numParams, unsigned int flags, CUdevice dev) {
  return entry("cuCtxCreate_v3", [&] {
    if (numParams < 0 || (numParams > 0 && !paramsArray))
      return CUDA_ERROR_INVALID_VALUE;
    if (numParams > 0) // execution affinity (SM partitioning) has no meaning on a CPU device
      return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
    return createCtx(pctx, flags, dev);
  });
}
CUCPU_EXPORT CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params,
                                     unsigned int flags, CUdevice dev) {
  return entry("cuCtxCreate_v4", [&] {
    if (params) {
      if (params->numExecAffinityParams < 0 ||
          (params->numExecAffinityParams > 0 && !params->execAffinityParams))
        return CUDA_ERROR_INVALID_VALUE;
      if (params->numExecAffinityParams > 0)
        return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
      if (params->cigParams) // CUDA-in-graphics sharing needs a graphics API
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    return createCtx(pctx, flags, dev);
  });
}

CUCPU_EXPORT CUresult cuCtxDestroy(CUcontext ctx) {
  return entry("cuCtxDestroy", [&] { return destroyCtx(ctx); });
}
CUCPU_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx) {
  return entry("cuCtxDestroy_v2", [&] { return destroyCtx(ctx); });
}

static CUresult pushCtx(const char *name, CUcontext ctx) {
  return entry(name, [&] {
    if (CUresult r = api::requireInit(); r != CUDA_SUCCESS)
      return r;
    if (!ctx)
      return CUDA_ERROR_INVALID_VALUE;
    if (!driver::isLiveContext(api::fromHandle(ctx)))
      return CUDA_ERROR_INVALID_CONTEXT;
    driver::push(api::fromHandle(ctx));
    return CUDA_SUCCESS;
  });
}
CUCPU_EXPORT CUresult cuCtxPushCurrent(CUcontext ctx) { return pushCtx("cuCtxPushCurrent", ctx); }
CUCPU_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  return pushCtx("cuCtxPushCurrent_v2", ctx);
}

static CUresult popCtx(const char *name, CUcontext *pctx) {
  return entry(name, [&] {
    if (CUresult r = api::requireInit(); r != CUDA_SUCCESS)
      return r;
    if (!driver::current())
      return CUDA_ERROR_INVALID_CONTEXT;
    driver::Context *c = driver::pop();
    if (pctx)
      *pctx = api::toHandle(c);
    return CUDA_SUCCESS;
  });
}
CUCPU_EXPORT CUresult cuCtxPopCurrent(CUcontext *pctx) { return popCtx("cuCtxPopCurrent", pctx); }
CUCPU_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *pctx) {
  return popCtx("cuCtxPopCurrent_v2", pctx);
}

CUCPU_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
  return entry("cuCtxSetCurrent", [&] {
    if (CUresult r = api::requireInit(); r != CUDA_SUCCESS)
      return r;
    if (ctx && !driver::isLiveContext(api::fromHandle(ctx)))
      return CUDA_ERROR_INVALID_CONTEXT;
    driver::setCurrent(api::fromHandle(ctx));
    return CUDA_SUCCESS;
  });
}

CUCPU_EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx) {
  return entry("cuCtxGetCurrent", [&] {
    if (CUresult r = api::requireInit(); r != CUDA_SUCCESS)
      return r;
    if (!pctx)
      return CUDA_ERROR_INVALID_VALUE;
    *pctx = api::toHandle(driver::current());
    return CUDA_SUCCESS;
  });
}

CUCPU_EXPORT CUresult cuCtxGetDevice(CUdevice *device) {
  return entry("cuCtxGetDevice", [&] {
    driver::Context *c;
    if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
      return r;
    if (!device)
      return CUDA_ERROR_INVALID_VALUE;
    *device = c->device()->ordinal();
    return CUDA_SUCCESS;
  });
}

CUCPU_EXPORT CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx) {
  return entry("cuCtxGetDevice_v2", [&] {
    driver::Context *c;
    if (CUresult r = api::resolveContext(ctx, &c); r != CUDA_SUCCESS)
      return r;
    if (!device)
      return CUDA_ERROR_INVALID_VALUE;
    *device = c->device()->ordinal();
    return CUDA_SUCCESS;
  });
}

CUCPU_EXPORT CUresult cuCtxGetFlags(unsigned int *flags) {
  return entry("cuCtxGetFlags", [&] {
    driver::Context *c;
    if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
      return r;
    if (!flags)
      return CUDA_ERROR_INVALID_VALUE;
    *flags = c->flags();
    return CUDA_SUCCESS;
  });
}

CUCPU_EXPORT CUresult cuCtxSynchronize(void) {
  return entry("cuCtxSynchronize", [&] {
    driver::Context *c;
    if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
      return r;
    return driver::synchronize(c);
  });
}

CUCPU_EXPORT CUresult cuCtxSynchronize_v2(CUcontext ctx) {
  return entry("cuCtxSynchronize_v2", [&] {
    driver::Context *c;
    if (CUresult r = api::resolveContext(ctx, &c); r != CUDA_SUCCESS)
      return r;
    return driver::synchronize(c);
  });
}
