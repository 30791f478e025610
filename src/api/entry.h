// Helpers of the entry points: the exception barrier, the not-implemented path, handle checks.
#pragma once

#include "cucpu/driver/context.h"
#include "cucpu/driver/reason.h"

#include <atomic>
#include <cuda.h>

namespace cucpu::driver {
class Function;
class Module;
} // namespace cucpu::driver

namespace cucpu::api {

// Called from a catch block of a generated wrapper: bad_alloc is CUDA_ERROR_OUT_OF_MEMORY, any
// other exception is logged and reported as CUDA_ERROR_UNKNOWN.
CUresult internalError(const char *fn) noexcept;

// An entry point cucpu does not implement: CUDA_ERROR_NOT_SUPPORTED and one warning per
// function; with CUCPU_STRICT=1 the function's name goes to stderr and the process aborts.
CUresult notImplemented(const char *fn, std::atomic<bool> &warned) noexcept;

inline CUresult requireInit() {
  return driver::initialized()
             ? CUDA_SUCCESS
             : driver::fail(CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called");
}

// The calling thread's current context: NOT_INITIALIZED before cuInit, INVALID_CONTEXT when
// there is none, CONTEXT_IS_DESTROYED when it was destroyed.
CUresult currentContext(driver::Context **out);

// A context handle passed by the caller (null means the current context).
CUresult resolveContext(CUcontext h, driver::Context **out);

// A device ordinal passed by the caller: NOT_INITIALIZED before cuInit, INVALID_DEVICE if bad.
CUresult deviceOf(CUdevice dev, driver::Device **out);

// A function handle: NOT_INITIALIZED before cuInit, INVALID_HANDLE unless live. A CUkernel is
// accepted as a CUfunction: its function in the current context.
CUresult functionOf(CUfunction h, driver::Function **out);
// A kernel parameter's offset and size (either output may be null); INVALID_VALUE past the end.
CUresult paramInfo(const driver::Function *f, size_t index, size_t *offset, size_t *size);

// Context creation flags: known bits and at most one scheduling policy.
inline bool validContextFlags(unsigned flags) {
  unsigned s = flags & CU_CTX_SCHED_MASK;
  return (flags & ~unsigned(CU_CTX_FLAGS_MASK)) == 0 && (s == 0 || s == 1 || s == 2 || s == 4);
}

inline driver::Context *fromHandle(CUcontext h) { return reinterpret_cast<driver::Context *>(h); }
inline CUcontext toHandle(driver::Context *c) { return reinterpret_cast<CUcontext>(c); }

} // namespace cucpu::api
