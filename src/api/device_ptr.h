// Checks of caller-supplied device pointers against the driver's allocation tracker.
#pragma once

#include "cucpu/driver/memory.h"
#include "cucpu/driver/reason.h"

#include <cuda.h>

#include <algorithm>
#include <cstdint>

namespace cucpu::api {

// [p, p + bytes) lies inside one live allocation the device may use (device memory, page-locked
// host memory, managed memory).
inline bool validDevice(CUdeviceptr p, size_t bytes) {
  driver::Allocation a;
  return p && driver::memory().find(static_cast<uintptr_t>(p), bytes, &a) &&
         driver::deviceMayAccess(a);
}

// A unified address: inside an allocation it must fit (a host pool's block the device may not
// use is host memory, and must fit too); elsewhere it is pageable host memory.
inline bool validUnified(CUdeviceptr p, size_t bytes) {
  const auto u = static_cast<uintptr_t>(p);
  return p && (driver::memory().find(u, bytes, nullptr) || !driver::memory().find(u, 0, nullptr));
}

// What one end of a copy must be: device memory, any host pointer, or a unified address.
enum class Side { Device, Host, Unified };

inline bool valid(CUdeviceptr p, size_t bytes, Side side) {
  switch (side) {
  case Side::Device:
    return validDevice(p, bytes);
  case Side::Host:
    return p != 0;
  case Side::Unified:
    return validUnified(p, bytes);
  }
  return false;
}

// n elements of `size` bytes at p: aligned to the element and inside one allocation.
inline bool validElements(CUdeviceptr p, size_t size, size_t n) {
  return n <= SIZE_MAX / size && p % size == 0 && validDevice(p, n * size);
}

// `height` rows of `width` elements of `size` bytes, `pitch` bytes apart (width and height not 0),
// aligned to the element and inside one allocation.
inline bool validRows(CUdeviceptr p, size_t pitch, size_t size, size_t width, size_t height) {
  return width <= SIZE_MAX / size && (height == 1 || pitch >= width * size) && p % size == 0 &&
         pitch % size == 0 &&
         (height - 1) <= (SIZE_MAX - width * size) / std::max<size_t>(pitch, 1) &&
         validDevice(p, (height - 1) * pitch + width * size);
}

// Why [p, p + bytes) is not usable: it runs past the allocation it starts in (which one, and by
// how much), or it starts in none.
inline CUresult outsideAllocations(CUdeviceptr p, size_t bytes, const char *what) {
  driver::Allocation a;
  if (driver::memory().find(static_cast<uintptr_t>(p), 0, &a))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "{} [{:#x}, +{} bytes) runs {} bytes past the end of the allocation "
                        "[{:#x}, +{} bytes)",
                        what, p, bytes, p + bytes - (a.base + a.size), a.base, a.size);
  return driver::fail(CUDA_ERROR_INVALID_VALUE, "{} {:#x} is not in any live allocation", what, p);
}

// The checks above as results with their reasons; `what` names the pointer.
inline CUresult checkRange(CUdeviceptr p, size_t bytes, Side side, const char *what) {
  if (valid(p, bytes, side))
    return CUDA_SUCCESS;
  if (!p)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "{} is NULL", what);
  return outsideAllocations(p, bytes, what);
}
inline CUresult checkElements(CUdeviceptr p, size_t size, size_t n, const char *what) {
  if (validElements(p, size, n))
    return CUDA_SUCCESS;
  if (p % size)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "{} = {:#x} is not aligned to {} bytes", what, p,
                        size);
  if (n > SIZE_MAX / size)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "{} elements of {} bytes overflow", n, size);
  return outsideAllocations(p, n * size, what);
}
inline CUresult checkRows(CUdeviceptr p, size_t pitch, size_t size, size_t width, size_t height,
                          const char *what) {
  if (validRows(p, pitch, size, width, height))
    return CUDA_SUCCESS;
  return driver::fail(CUDA_ERROR_INVALID_VALUE,
                      "{} rows of {} elements of {} bytes, {} bytes apart, at {} = {:#x}: "
                      "misaligned or not inside one live allocation",
                      height, width, size, pitch, what, p);
}

inline void *hostPtr(CUdeviceptr p) { return reinterpret_cast<void *>(static_cast<uintptr_t>(p)); }

} // namespace cucpu::api
