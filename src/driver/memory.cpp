// The allocation tracker: device allocations are aligned host memory in an interval map.
#include "cucpu/driver/memory.h"

#include "cucpu/driver/context.h"
#include "cucpu/support/log.h"

#include <cstdlib>
#include <vector>

namespace cucpu::driver {

MemoryTracker &memory() {
  static auto *m = new MemoryTracker(); // outlives static destructors of the application
  return *m;
}

CUresult MemoryTracker::allocate(Context *ctx, size_t bytes, CUdeviceptr *out) {
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  const size_t rounded = (bytes + 255) & ~size_t(255);
  if (rounded < bytes)
    return CUDA_ERROR_OUT_OF_MEMORY;
  {
    std::lock_guard lk(mutex_);
    if (used_ + rounded > ctx->device()->totalMemory() || used_ + rounded < used_)
      return CUDA_ERROR_OUT_OF_MEMORY;
    used_ += rounded;
  }
  void *p = std::aligned_alloc(256, rounded);
  std::lock_guard lk(mutex_);
  if (!p) {
    used_ -= rounded;
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  auto base = reinterpret_cast<uintptr_t>(p);
  allocations_[base] = Allocation{base, bytes, rounded, ctx};
  *out = static_cast<CUdeviceptr>(base);
  log::trace(log::Component::Mem, "alloc {} bytes at {:#x}", bytes, base);
  return CUDA_SUCCESS;
}

CUresult MemoryTracker::free(CUdeviceptr ptr) {
  std::lock_guard lk(mutex_);
  auto it = allocations_.find(static_cast<uintptr_t>(ptr));
  if (it == allocations_.end())
    return CUDA_ERROR_INVALID_VALUE;
  used_ -= it->second.reserved;
  std::free(reinterpret_cast<void *>(it->first));
  allocations_.erase(it);
  return CUDA_SUCCESS;
}

bool MemoryTracker::find(uintptr_t ptr, size_t bytes, Allocation *out) const {
  std::lock_guard lk(mutex_);
  auto it = allocations_.upper_bound(ptr);
  if (it == allocations_.begin())
    return false;
  --it;
  const Allocation &a = it->second;
  if (ptr < a.base || ptr - a.base >= a.size || bytes > a.size - (ptr - a.base))
    return false;
  if (out)
    *out = a;
  return true;
}

void MemoryTracker::releaseContext(Context *ctx) {
  std::lock_guard lk(mutex_);
  for (auto it = allocations_.begin(); it != allocations_.end();) {
    if (it->second.ctx == ctx) {
      used_ -= it->second.reserved;
      std::free(reinterpret_cast<void *>(it->first));
      it = allocations_.erase(it);
    } else {
      ++it;
    }
  }
}

size_t MemoryTracker::used() const {
  std::lock_guard lk(mutex_);
  return used_;
}

} // namespace cucpu::driver
