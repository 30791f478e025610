// The allocation tracker: device and page-locked host allocations (blocks of the device arena) in
// an interval map.
#include "cucpu/driver/memory.h"

#include "cucpu/driver/graph.h"
#include "cucpu/driver/ipc.h"

#include "cucpu/driver/context.h"
#include "cucpu/driver/mem_pool.h"
#include "cucpu/driver/reason.h"
#include "cucpu/driver/sanitizer.h"
#include "cucpu/support/log.h"
#include "device_arena.h"

#include <algorithm>
#include <vector>

namespace cucpu::driver {
namespace {

// cuMemAlloc's alignment and smallest block, as on a GPU: a kernel that overruns a 4-byte
// allocation by a few words stays in its own block (numba-cuda's test_struct_model_type_arr
// writes 40 bytes into one).
constexpr size_t kMinimumBlock = 256;

// Frees an allocation's memory (called without the tracker's lock: a pool takes its own locks and
// the tracker's).
void release(const Allocation &a) {
  if (a.kind == MemoryKind::Device)
    ipcReleased(a);
  if (a.pool)
    a.pool->releaseBlock(a.base, a.block);
  else if (a.kind == MemoryKind::Device || a.kind == MemoryKind::Host)
    deviceArena().release(reinterpret_cast<void *>(a.base));
}

} // namespace

MemoryTracker &memory() {
  static auto *m = new MemoryTracker(); // outlives static destructors of the application
  return *m;
}

CUresult MemoryTracker::insert(Allocation a) {
  std::lock_guard lk(mutex_);
  auto next = allocations_.lower_bound(a.base);
  if (next != allocations_.end() && next->first < a.base + a.size)
    return fail(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                "[{:#x}, +{}) overlaps memory already tracked at {:#x}", a.base, a.size,
                next->first);
  if (next != allocations_.begin()) {
    const Allocation &prev = std::prev(next)->second;
    if (prev.base + prev.size > a.base)
      return fail(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                  "[{:#x}, +{}) overlaps memory already tracked at {:#x}", a.base, a.size,
                  prev.base);
  }
  a.id = nextId_++;
  allocations_[a.base] = a;
  log::trace(log::Component::Mem, "tracking {} bytes at {:#x} (kind {})", a.size, a.base,
             static_cast<int>(a.kind));
  return CUDA_SUCCESS;
}

CUresult MemoryTracker::allocate(Context *ctx, size_t bytes, CUdeviceptr *out, bool managed) {
  if (bytes == 0)
    return fail(CUDA_ERROR_INVALID_VALUE, "bytes is 0");
  const size_t capacity = ctx->device()->totalMemory();
  if (bytes > capacity - std::min(capacity, used()))
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "{} bytes do not fit: {} of the device's {} are in use",
                bytes, used(), capacity);
  size_t taken = 0;
  void *p = deviceArena().allocate(std::max(bytes, kMinimumBlock), &taken);
  if (!p)
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "the device arena has no room for {} bytes", bytes);
  {
    std::lock_guard lk(mutex_);
    if (used_ + taken > capacity) {
      deviceArena().release(p);
      return fail(CUDA_ERROR_OUT_OF_MEMORY, "{} bytes do not fit in the device's {}", bytes,
                  capacity);
    }
    used_ += taken;
  }
  auto base = reinterpret_cast<uintptr_t>(p);
  insert(Allocation{base, bytes, taken, ctx, MemoryKind::Device, 0, 0, false, managed});
  sanitizer::allocated(base);
  *out = static_cast<CUdeviceptr>(base);
  return CUDA_SUCCESS;
}

CUresult MemoryTracker::allocateHost(Context *ctx, size_t bytes, unsigned flags, void **out) {
  if (bytes == 0)
    return fail(CUDA_ERROR_INVALID_VALUE, "bytes is 0");
  size_t taken = 0;
  void *p = deviceArena().allocate(std::max(bytes, kMinimumBlock), &taken);
  if (!p)
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "the device arena has no room for {} bytes", bytes);
  auto base = reinterpret_cast<uintptr_t>(p);
  insert(Allocation{base, bytes, 0, ctx, MemoryKind::Host, flags, 0, false});
  *out = p;
  return CUDA_SUCCESS;
}

CUresult MemoryTracker::registerHost(Context *ctx, void *ptr, size_t bytes, unsigned flags) {
  auto base = reinterpret_cast<uintptr_t>(ptr);
  if (!ptr || bytes == 0 || base + bytes < base)
    return fail(CUDA_ERROR_INVALID_VALUE, "cannot register {} bytes at {}", bytes, ptr);
  return insert(Allocation{base, bytes, 0, ctx, MemoryKind::Registered, flags, 0, false});
}

bool MemoryTracker::remove(uintptr_t base, MemoryKind kind, Allocation *out) {
  std::lock_guard lk(mutex_);
  auto it = allocations_.find(base);
  if (it == allocations_.end() || it->second.kind != kind)
    return false;
  used_ -= it->second.reserved;
  *out = it->second;
  allocations_.erase(it);
  return true;
}

CUresult MemoryTracker::removeAndRelease(uintptr_t base, MemoryKind kind, CUresult missing) {
  Allocation a;
  if (!remove(base, kind, &a))
    return fail(missing, "{:#x} is not the start of a live {} allocation", base,
                kind == MemoryKind::Device ? "device"
                : kind == MemoryKind::Host ? "page-locked host"
                                           : "registered host");
  release(a);
  return CUDA_SUCCESS;
}

CUresult MemoryTracker::free(CUdeviceptr ptr) {
  if (releaseGraphMemory(ptr)) // the address stays the graph's
    return CUDA_SUCCESS;
  CUresult r = removeAndRelease(ptr, MemoryKind::Device, CUDA_ERROR_INVALID_VALUE);
  if (r == CUDA_SUCCESS)
    sanitizer::freed(ptr);
  return r;
}

CUresult MemoryTracker::freeInStreamOrder(CUdeviceptr ptr) {
  if (releaseGraphMemory(ptr))
    return CUDA_SUCCESS;
  Allocation a;
  if (!remove(ptr, MemoryKind::Device, &a))
    return fail(CUDA_ERROR_INVALID_VALUE, "{:#x} is not the start of a live device allocation",
                ptr);
  if (a.pool) {
    a.pool->recycle(a.base, a.block);
  } else {
    release(a);
    sanitizer::freed(a.base);
  }
  return CUDA_SUCCESS;
}

CUresult MemoryTracker::freeHost(void *ptr) {
  return removeAndRelease(reinterpret_cast<uintptr_t>(ptr), MemoryKind::Host,
                          CUDA_ERROR_INVALID_VALUE);
}

CUresult MemoryTracker::unregisterHost(void *ptr) {
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  Allocation inside;
  if (find(p, 0, &inside) && inside.kind == MemoryKind::Registered && inside.base != p)
    return fail(CUDA_ERROR_INVALID_VALUE,
                "{:#x} is inside the registered range [{:#x}, +{}), not "
                "its start",
                p, inside.base, inside.size);
  return removeAndRelease(p, MemoryKind::Registered, CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
}

void MemoryTracker::trackPoolBlock(Context *ctx, uintptr_t base, size_t bytes, size_t block,
                                   MemPool *pool) {
  Allocation a{base, bytes, 0, ctx, MemoryKind::Device, 0, 0, false};
  a.pool = pool;
  a.block = block;
  a.hostPool = pool->place().onHost();
  a.managed = pool->place().managed();
  insert(a);
}

CUresult MemoryTracker::charge(size_t bytes, size_t capacity) {
  std::lock_guard lk(mutex_);
  if (used_ + bytes > capacity || used_ + bytes < used_)
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "{} bytes do not fit: {} of {} are in use", bytes, used_,
                capacity);
  used_ += bytes;
  return CUDA_SUCCESS;
}

void MemoryTracker::refund(size_t bytes) {
  std::lock_guard lk(mutex_);
  used_ -= bytes;
}

void MemoryTracker::trackMapping(Context *ctx, uintptr_t base, size_t bytes, unsigned access) {
  {
    std::lock_guard lk(mutex_);
    if (auto it = allocations_.find(base);
        it != allocations_.end() && it->second.kind == MemoryKind::Mapped) {
      it->second.flags = access; // the same mapping, another access
      return;
    }
  }
  insert(Allocation{base, bytes, 0, ctx, MemoryKind::Mapped, access, 0, false});
}

void MemoryTracker::untrackMapping(uintptr_t base) {
  removeAndRelease(base, MemoryKind::Mapped, CUDA_SUCCESS);
}

void MemoryTracker::trackGlobal(Context *ctx, void *ptr, size_t bytes) {
  insert(Allocation{reinterpret_cast<uintptr_t>(ptr), bytes, 0, ctx, MemoryKind::Global, 0, 0,
                    false}); // already tracked: nothing to do
}

void MemoryTracker::untrackGlobal(void *ptr) {
  removeAndRelease(reinterpret_cast<uintptr_t>(ptr), MemoryKind::Global, CUDA_SUCCESS);
}

bool MemoryTracker::find(uintptr_t ptr, size_t bytes, Allocation *out) const {
  std::lock_guard lk(mutex_);
  auto it = allocations_.upper_bound(ptr);
  if (it == allocations_.begin())
    return false;
  --it;
  const Allocation &a = it->second;
  if (ptr < a.base || ptr - a.base >= a.size)
    return false;
  // Adjacent mappings of a reservation are one range to copies, as on a GPU.
  for (auto last = it; bytes > last->second.base + last->second.size - ptr; ++last) {
    auto next = std::next(last);
    if (last->second.kind != MemoryKind::Mapped || next == allocations_.end() ||
        next->second.kind != MemoryKind::Mapped ||
        next->first != last->second.base + last->second.size)
      return false;
  }
  if (out)
    *out = a;
  return true;
}

bool MemoryTracker::setSyncMemops(uintptr_t ptr, bool value) {
  return update(ptr, [value](Allocation &a) { a.syncMemops = value; });
}

bool MemoryTracker::update(uintptr_t ptr, const std::function<void(Allocation &)> &fn) {
  std::lock_guard lk(mutex_);
  auto it = allocations_.upper_bound(ptr);
  if (it == allocations_.begin())
    return false;
  --it;
  if (ptr - it->second.base >= it->second.size)
    return false;
  fn(it->second);
  return true;
}

void MemoryTracker::releaseContext(Context *ctx) {
  std::vector<Allocation> gone;
  {
    std::lock_guard lk(mutex_);
    for (auto it = allocations_.begin(); it != allocations_.end();) {
      if (it->second.ctx == ctx) {
        used_ -= it->second.reserved;
        gone.push_back(it->second);
        it = allocations_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const Allocation &a : gone)
    release(a);
}

void MemoryTracker::forEach(const std::function<void(const Allocation &)> &fn) const {
  std::lock_guard lk(mutex_);
  for (const auto &[base, a] : allocations_)
    fn(a);
}

size_t MemoryTracker::used() const {
  std::lock_guard lk(mutex_);
  return used_;
}

bool deviceMayAccess(const Allocation &a) {
  return !a.hostPool || a.pool->access(a.ctx->device()->ordinal()) != CU_MEM_ACCESS_FLAGS_PROT_NONE;
}

} // namespace cucpu::driver
