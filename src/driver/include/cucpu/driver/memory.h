// Device and page-locked host memory, and the allocation tracker: an interval map of every live
// allocation and registered host range, which answers pointer queries and validates copies.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace cucpu::driver {

class Context;
class MemPool;

enum class MemoryKind {
  Device,     // cuMemAlloc*: counted against the device's capacity
  Host,       // cuMemAllocHost / cuMemHostAlloc: page-locked host memory owned by the driver
  Registered, // cuMemHostRegister: the caller's memory, only tracked
  Global,     // a module's .global/.const variable: owned by the module, only tracked
  Mapped,     // a virtual memory mapping made accessible (cuMemSetAccess): only tracked
};

struct Allocation {
  uintptr_t base = 0;
  size_t size = 0;     // bytes requested: accesses beyond are out of bounds
  size_t reserved = 0; // bytes taken from the device's capacity (device memory: its arena block)
  Context *ctx = nullptr;
  MemoryKind kind = MemoryKind::Device;
  unsigned flags = 0; // CU_MEMHOSTALLOC_* / CU_MEMHOSTREGISTER_* of host memory, or a mapping's
                      // CU_MEM_ACCESS_FLAGS_*
  unsigned long long id = 0; // unique for the process (CU_POINTER_ATTRIBUTE_BUFFER_ID)
  bool syncMemops = false;   // CU_POINTER_ATTRIBUTE_SYNC_MEMOPS
  bool managed = false;      // cuMemAllocManaged (device memory the host may use too)
  // Managed memory: advice and prefetches, kept per allocation (cuMemRangeGetAttribute).
  bool readMostly = false;
  int preferredLocation = CU_DEVICE_INVALID; // a device ordinal or CU_DEVICE_CPU
  uint64_t accessedBy = 0;                   // bit d: device d; bit 63: the CPU
  int lastPrefetch = CU_DEVICE_INVALID;
  // A pool's block (cuMemAllocAsync): its pool and the block's size.
  MemPool *pool = nullptr;
  size_t block = 0;
  bool hostPool = false; // a host pool's block: page-locked host memory in CUDA's model
};

class MemoryTracker {
public:
  // Device memory: a block of the device arena, counted against the device's capacity.
  CUresult allocate(Context *ctx, size_t bytes, CUdeviceptr *out, bool managed = false);
  // `ptr` must be the base of a live device allocation.
  CUresult free(CUdeviceptr ptr);
  // cuMemFreeAsync reaching its turn: a pool's block goes back to its pool, other memory is freed.
  CUresult freeInStreamOrder(CUdeviceptr ptr);
  // A block a pool hands out: device memory, a host pool's host memory or managed memory.
  void trackPoolBlock(Context *ctx, uintptr_t base, size_t bytes, size_t block, MemPool *pool);
  // Page-locked host memory (every host allocation is mapped: its device pointer is itself).
  CUresult allocateHost(Context *ctx, size_t bytes, unsigned flags, void **out);
  // `ptr` must be the base of a live host allocation.
  CUresult freeHost(void *ptr);
  // HOST_MEMORY_ALREADY_REGISTERED when the range overlaps a tracked one.
  CUresult registerHost(Context *ctx, void *ptr, size_t bytes, unsigned flags);
  // HOST_MEMORY_NOT_REGISTERED unless `ptr` is the base of a registered range (INVALID_VALUE inside
  // one).
  CUresult unregisterHost(void *ptr);
  // Physical memory of virtual memory management, counted against the device's capacity.
  CUresult charge(size_t bytes, size_t capacity);
  void refund(size_t bytes);
  // A mapping, tracked while it is accessible with `access` (CU_MEM_ACCESS_FLAGS_*).
  void trackMapping(Context *ctx, uintptr_t base, size_t bytes, unsigned access);
  void untrackMapping(uintptr_t base);
  // A module variable, tracked from its first lookup until the module is unloaded.
  void trackGlobal(Context *ctx, void *ptr, size_t bytes);
  void untrackGlobal(void *ptr);
  // The allocation containing [ptr, ptr + bytes), if any (bytes may be 0: contains ptr).
  bool find(uintptr_t ptr, size_t bytes, Allocation *out) const;
  bool setSyncMemops(uintptr_t ptr, bool value);
  // Applies `fn` to the allocation containing ptr, under the tracker's lock; false if none.
  bool update(uintptr_t ptr, const std::function<void(Allocation &)> &fn);
  // Frees every allocation of a context that is being destroyed (registered ranges are only
  // forgotten: their memory belongs to the application).
  void releaseContext(Context *ctx);
  // Calls fn for every tracked allocation, under the tracker's lock (fn must not call back).
  void forEach(const std::function<void(const Allocation &)> &fn) const;
  size_t used() const;

private:
  CUresult insert(Allocation a);
  // Takes the allocation based at `base` of `kind` out of the map.
  bool remove(uintptr_t base, MemoryKind kind, Allocation *out);
  CUresult removeAndRelease(uintptr_t base, MemoryKind kind, CUresult missing);
  mutable std::mutex mutex_;
  std::map<uintptr_t, Allocation> allocations_; // keyed by base
  size_t used_ = 0;
  unsigned long long nextId_ = 1;
};

MemoryTracker &memory();

// Whether the copy engine and kernels of the allocation's device may use it: all memory but a
// host pool's blocks before the pool gives the device access (an H200 refuses copies and sets of
// those with INVALID_VALUE).
bool deviceMayAccess(const Allocation &a);

} // namespace cucpu::driver
