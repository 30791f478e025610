// The argument checks the registry names (entry_points.tsv, column `checks`): the generated
// wrappers run them in the listed order before an implementation, and each failure gives its
// reason. An implementation reached through them may take what they checked for granted.
#pragma once

#include "entry.h"

#include "cucpu/driver/capture.h"
#include "cucpu/driver/graph.h"
#include "cucpu/driver/library.h"
#include "cucpu/driver/mem_pool.h"
#include "cucpu/driver/module.h"
#include "cucpu/driver/reason.h"
#include "cucpu/driver/stream.h"

namespace cucpu::api::check {

using driver::fail;

inline CUresult init() { return requireInit(); }

// A current context that is live and has no sticky error (see currentContext).
inline CUresult context() {
  driver::Context *c;
  return currentContext(&c);
}

// No stream capture that a potentially unsafe call (allocation, synchronisation) would break.
inline CUresult noCapture() { return driver::unsafeDuringCapture(); }

inline CUresult out(const void *p, const char *name) {
  return p ? CUDA_SUCCESS : fail(CUDA_ERROR_INVALID_VALUE, "output {} is NULL", name);
}

inline CUresult in(const void *p, const char *name) {
  return p ? CUDA_SUCCESS : fail(CUDA_ERROR_INVALID_VALUE, "{} is NULL", name);
}

// A context handle that must name a live context (null does not mean the current one here).
inline CUresult context(CUcontext h, const char *name) {
  if (CUresult r = init(); r != CUDA_SUCCESS)
    return r;
  return h && driver::isLiveContext(fromHandle(h))
             ? CUDA_SUCCESS
             : fail(CUDA_ERROR_INVALID_CONTEXT, "{} = {} is not a live context", name,
                    static_cast<const void *>(h));
}

inline CUresult device(CUdevice d, const char *) {
  driver::Device *unused;
  return deviceOf(d, &unused);
}

// Flags with no bits outside `known`.
inline CUresult flags(unsigned long long v, unsigned long long known, const char *name) {
  return (v & ~known) == 0 ? CUDA_SUCCESS
                           : fail(CUDA_ERROR_INVALID_VALUE, "{} = {:#x} has unknown bits {:#x}",
                                  name, v, v & ~known);
}

// An enumerator (or count) no greater than `max`; negative values are out of range too.
template <typename T> CUresult atMost(T v, unsigned long long max, const char *name) {
  const auto u = static_cast<unsigned long long>(static_cast<long long>(v));
  return u <= max ? CUDA_SUCCESS
                  : fail(CUDA_ERROR_INVALID_VALUE, "{} = {} is out of range (at most {})", name,
                         static_cast<long long>(v), max);
}

// A live handle of one kind: NOT_INITIALIZED before cuInit, else `dead` unless live (NVIDIA's
// driver answers INVALID_HANDLE for most kinds, INVALID_VALUE for graphs, their nodes and
// executable graphs, memory pools and user objects).
template <typename Object, typename Handle>
CUresult live(Handle h, bool (*isLive)(const Object *), const char *kind, const char *name,
              CUresult dead = CUDA_ERROR_INVALID_HANDLE) {
  if (CUresult r = init(); r != CUDA_SUCCESS)
    return r;
  return h && isLive(reinterpret_cast<const Object *>(h))
             ? CUDA_SUCCESS
             : fail(dead, "{} = {} is not a live {}", name, static_cast<const void *>(h), kind);
}

// A function, or a kernel standing for its function in the current context (resolved later).
inline CUresult function(CUfunction h, const char *name) {
  if (CUresult r = init(); r != CUDA_SUCCESS)
    return r;
  return driver::isLiveFunction(reinterpret_cast<const driver::Function *>(h)) ||
                 driver::isLiveKernel(reinterpret_cast<const driver::Kernel *>(h))
             ? CUDA_SUCCESS
             : fail(CUDA_ERROR_INVALID_HANDLE, "{} = {} is not a live function or kernel", name,
                    static_cast<const void *>(h));
}
inline CUresult event(CUevent h, const char *name) {
  return live(h, driver::isLiveEvent, "event", name);
}
inline CUresult module(CUmodule h, const char *name) {
  return live(h, driver::isLiveModule, "module", name);
}
inline CUresult library(CUlibrary h, const char *name) {
  return live(h, driver::isLiveLibrary, "library", name);
}
inline CUresult kernel(CUkernel h, const char *name) {
  return live(h, driver::isLiveKernel, "kernel", name);
}
inline CUresult graph(CUgraph h, const char *name) {
  return live(h, driver::isLiveGraph, "graph", name, CUDA_ERROR_INVALID_VALUE);
}
inline CUresult graphExec(CUgraphExec h, const char *name) {
  return live(h, driver::isLiveGraphExec, "executable graph", name, CUDA_ERROR_INVALID_VALUE);
}
inline CUresult node(CUgraphNode h, const char *name) {
  return live(h, driver::isLiveGraphNode, "graph node", name, CUDA_ERROR_INVALID_VALUE);
}
inline CUresult pool(CUmemoryPool h, const char *name) {
  return live(h, driver::isLivePool, "memory pool", name, CUDA_ERROR_INVALID_VALUE);
}
inline CUresult userObject(CUuserObject h, const char *name) {
  return live(h, driver::isLiveUserObject, "user object", name, CUDA_ERROR_INVALID_VALUE);
}

} // namespace cucpu::api::check
