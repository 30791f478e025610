// Helpers shared by the exported entry points: exception barrier, tracing, handle checks.
#pragma once

#include "cucpu/driver/context.h"
#include "cucpu/support/log.h"

#include <cuda.h>
#include <new>

#define CUCPU_EXPORT extern "C" __attribute__((visibility("default")))

namespace cucpu::api {

// Runs an entry point's body: no exception crosses the C ABI; results are traced.
template <typename F> CUresult entry(const char *name, F &&body) noexcept {
  CUresult r;
  try {
    r = body();
  } catch (const std::bad_alloc &) {
    r = CUDA_ERROR_OUT_OF_MEMORY;
  } catch (...) {
    log::error(log::Component::Api, "{}: internal error", name);
    r = CUDA_ERROR_UNKNOWN;
  }
  if (log::enabled(log::Component::Api, log::Level::Trace))
    log::trace(log::Component::Api, "{} -> {}", name, static_cast<int>(r));
  else if (r != CUDA_SUCCESS)
    log::debug(log::Component::Api, "{} -> {}", name, static_cast<int>(r));
  return r;
}

inline CUresult requireInit() {
  return driver::initialized() ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

// The calling thread's current context: NOT_INITIALIZED before cuInit, INVALID_CONTEXT when
// there is none, CONTEXT_IS_DESTROYED when it was destroyed.
CUresult currentContext(driver::Context **out);

// A context handle passed by the caller (null means the current context).
CUresult resolveContext(CUcontext h, driver::Context **out);

inline driver::Context *fromHandle(CUcontext h) { return reinterpret_cast<driver::Context *>(h); }
inline CUcontext toHandle(driver::Context *c) { return reinterpret_cast<CUcontext>(c); }

} // namespace cucpu::api
