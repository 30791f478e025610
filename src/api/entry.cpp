// The exception barrier, the not-implemented path and the handle checks shared by entry points.
#include "entry.h"

#include "cucpu/driver/library.h"
#include "cucpu/driver/module.h"
#include "cucpu/support/env.h"
#include "cucpu/support/log.h"

#include <cstdio>
#include <cstdlib>
#include <new>

namespace cucpu::api {

CUresult internalError(const char *fn) noexcept {
  try {
    throw;
  } catch (const std::bad_alloc &) {
    return CUDA_ERROR_OUT_OF_MEMORY;
  } catch (...) {
    try {
      log::error(log::Component::Api, "{}: internal error", fn);
    } catch (...) {
    }
    return CUDA_ERROR_UNKNOWN;
  }
}

CUresult notImplemented(const char *fn, std::atomic<bool> &warned) noexcept {
  static const bool strict = env::getBool("CUCPU_STRICT", false);
  if (strict) {
    std::fprintf(stderr, "cucpu: %s is not implemented (CUCPU_STRICT=1)\n", fn);
    std::abort();
  }
  if (!warned.exchange(true)) {
    try {
      log::warn(log::Component::Api, "{} is not implemented: returning CUDA_ERROR_NOT_SUPPORTED",
                fn);
    } catch (...) {
    }
  }
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult currentContext(driver::Context **out) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  driver::Context *c = driver::current();
  if (!c)
    return driver::fail(CUDA_ERROR_INVALID_CONTEXT, "no context is current on this thread");
  if (!driver::isLiveContext(c))
    return driver::fail(CUDA_ERROR_CONTEXT_IS_DESTROYED,
                        "the current context {} has been destroyed", static_cast<void *>(c));
  // After a kernel fault every call that works in the context reports it, as on a GPU.
  if (CUresult sticky = c->stickyError(); sticky != CUDA_SUCCESS)
    return sticky; // the wrapper's log says so
  *out = c;
  return CUDA_SUCCESS;
}

CUresult resolveContext(CUcontext h, driver::Context **out) {
  if (!h)
    return currentContext(out);
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!driver::isLiveContext(fromHandle(h)))
    return driver::fail(CUDA_ERROR_INVALID_CONTEXT, "context {} is not live",
                        static_cast<void *>(h));
  *out = fromHandle(h);
  return CUDA_SUCCESS;
}

CUresult deviceOf(CUdevice dev, driver::Device **out) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  *out = driver::device(dev);
  return *out ? CUDA_SUCCESS
              : driver::fail(CUDA_ERROR_INVALID_DEVICE, "device {} does not exist", dev);
}

CUresult functionOf(CUfunction h, driver::Function **out) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  *out = reinterpret_cast<driver::Function *>(h);
  if (driver::isLiveFunction(*out))
    return CUDA_SUCCESS;
  // A CUkernel stands for its function in the current context (cudart launches those).
  auto *k = reinterpret_cast<driver::Kernel *>(h);
  if (!driver::isLiveKernel(k))
    return driver::fail(CUDA_ERROR_INVALID_HANDLE, "{} is not a live function or kernel",
                        static_cast<void *>(h));
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  return k->function(c, out);
}

CUresult paramInfo(const driver::Function *f, size_t index, size_t *offset, size_t *size) {
  size_t o, s;
  if (!f->param(index, &o, &s))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "the kernel has no parameter {}", index);
  if (offset)
    *offset = o;
  if (size)
    *size = s;
  return CUDA_SUCCESS;
}

} // namespace cucpu::api
