// Device memory and its allocation tracker: an interval map of every live allocation.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace cucpu::driver {

class Context;

struct Allocation {
  uintptr_t base = 0;
  size_t size = 0;     // bytes requested: accesses beyond are out of bounds
  size_t reserved = 0; // bytes taken from the device's capacity (size rounded up to 256)
  Context *ctx = nullptr;
};

class MemoryTracker {
public:
  // Device memory: host memory aligned to 256 bytes, counted against the device's capacity.
  CUresult allocate(Context *ctx, size_t bytes, CUdeviceptr *out);
  // `ptr` must be the base of a live allocation.
  CUresult free(CUdeviceptr ptr);
  // The allocation containing [ptr, ptr + bytes), if any (bytes may be 0: contains ptr).
  bool find(uintptr_t ptr, size_t bytes, Allocation *out) const;
  // Frees every allocation of a context that is being destroyed.
  void releaseContext(Context *ctx);
  size_t used() const;

private:
  mutable std::mutex mutex_;
  std::map<uintptr_t, Allocation> allocations_; // keyed by base
  size_t used_ = 0;
};

MemoryTracker &memory();

} // namespace cucpu::driver
