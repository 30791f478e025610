// Stream-ordered memory pools (cuMemPool*, cuMemAllocAsync, cuMemFreeAsync): a pool hands out
// arena blocks and keeps those freed in stream order for reuse, giving back what exceeds its
// release threshold at each synchronisation, as NVIDIA's driver does. Pools are of device memory,
// of page-locked host memory (a host or host NUMA location) or of managed memory.
#pragma once

#include <cuda.h>

#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace cucpu::driver {

class Context;
class Device;
struct Allocation;

// A pool's kind and location: the key of the default and current pools (cuMemGetMemPool).
struct PoolPlace {
  CUmemAllocationType type = CU_MEM_ALLOCATION_TYPE_PINNED;
  CUmemLocationType location = CU_MEM_LOCATION_TYPE_DEVICE;
  int id = 0; // a device ordinal or a host NUMA node; 0 for the host and for no location
  auto operator<=>(const PoolPlace &) const = default;
  bool onDevice() const {
    return type == CU_MEM_ALLOCATION_TYPE_PINNED && location == CU_MEM_LOCATION_TYPE_DEVICE;
  }
  bool onHost() const { return type == CU_MEM_ALLOCATION_TYPE_PINNED && !onDevice(); }
  bool managed() const { return type == CU_MEM_ALLOCATION_TYPE_MANAGED; }
};
PoolPlace placeOf(const CUmemPoolProps &props);

class MemPool {
public:
  // `device`: the device whose memory it is, or the device its host or managed memory is
  // reported with (its pointers' device ordinal).
  MemPool(Device *device, const CUmemPoolProps &props)
      : device_(device), props_(props), place_(placeOf(props)) {}
  ~MemPool();
  Device *device() const { return device_; }
  const PoolPlace &place() const { return place_; }

  // A block of `bytes` (> 0) tracked as device memory of `ctx`: a cached one of the same size,
  // else a new arena block counted against the device's memory.
  CUresult allocate(Context *ctx, size_t bytes, CUdeviceptr *out);
  // cuMemFreeAsync of `requested` bytes, when it is called: the pool's used memory goes down at
  // once (as on an H200), its block comes back when the free's turn comes in the stream.
  void unuse(size_t requested);
  // cuMemFreeAsync's block, reached in stream order: kept for reuse.
  void recycle(uintptr_t base, size_t block);
  // cuMemFree's block (or one of a destroyed context): given back to the arena at once. As on an
  // H200, the pool's used memory does not go down.
  void releaseBlock(uintptr_t base, size_t block);
  // Gives back cached blocks until at most `keep` bytes are reserved.
  void trimTo(size_t keep);
  // At a synchronisation: trims to the release threshold.
  void trimToThreshold();

  CUresult getAttribute(CUmemPool_attribute attr, void *value);
  CUresult setAttribute(CUmemPool_attribute attr, const void *value);
  // Access of device `ordinal`: a device pool's own device always has read and write, a host
  // pool's devices none until it is given (as on an H200), a managed pool answers none.
  CUmemAccess_flags access(int ordinal);
  // The host's access: read and write for a host pool's memory, none for others (an H200's).
  CUmemAccess_flags hostAccess() const;
  CUresult setAccess(int ordinal, CUmemAccess_flags flags);
  const CUmemPoolProps &props() const { return props_; }
  // Blocks handed out and not yet freed.
  unsigned long long liveBlocks();

  // Sharing between processes (pool_ipc.cpp). A pool created with the POSIX file descriptor
  // handle type keeps each block in a memory file of its own; the pool's descriptor names the
  // process and the pool, a pointer's export data names its block's file.
  bool exportable() const { return props_.handleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR; }
  bool imported() const { return imported_; }
  // cuMemPoolExportToShareableHandle: a new descriptor naming the pool.
  CUresult exportHandle(int *fd);
  // cuMemPoolExportPointer: `a` is a live block of this pool, from its base.
  CUresult exportPointer(const Allocation &a, CUmemPoolPtrExportData *out);
  // cuMemPoolImportPointer into this imported pool: the block mapped, tracked as its block.
  CUresult importPointer(Context *ctx, const CUmemPoolPtrExportData &data, CUdeviceptr *out);
  // cuMemPoolImportFromShareableHandle: a pool standing for another process's.
  static CUresult importHandle(Device *device, int fd, MemPool **out);

private:
  CUresult charge(size_t block); // device and managed memory count against the device's
  void refund(size_t block);
  void giveBack(uintptr_t base, size_t block); // to the arena, refunding the device
  void share(uintptr_t base, size_t block);    // an exportable pool's new block
  void unmapImport(uintptr_t base);            // an imported pointer freed
  std::map<uintptr_t, int> shared_;            // an exportable pool's block -> its memory file
  int identity_ = -1;                          // the memory file naming the pool
  uint64_t key_ = 0;                           // unique for the process
  bool imported_ = false;
  int32_t sourcePid_ = 0;                                     // an imported pool's exporter
  std::map<uintptr_t, std::pair<uintptr_t, size_t>> imports_; // imported pointer -> mapping
  Device *device_;
  CUmemPoolProps props_;
  PoolPlace place_;
  std::mutex mutex_;
  std::multimap<size_t, uintptr_t> cache_; // freed blocks by size
  std::map<int, CUmemAccess_flags> peers_; // other devices' access
  size_t reserved_ = 0, reservedHigh_ = 0, used_ = 0, usedHigh_ = 0;
  cuuint64_t threshold_ = 0;
  int reuse_[3] = {1, 1, 1}; // follow event dependencies, opportunistic, internal dependencies
  unsigned long long live_ = 0;
};

// Pool handles: the live pools, each place's default and current pool (made when first asked for).
MemPool *defaultPool(const PoolPlace &place);
MemPool *currentPool(const PoolPlace &place);
void setCurrentPool(const PoolPlace &place, MemPool *pool);
// A device's pool of its memory, which cuMemAllocAsync takes.
PoolPlace devicePlace(const Device *device);
MemPool *createPool(Device *device, const CUmemPoolProps &props);
// INVALID_VALUE for a default pool or an unknown handle; a pool with live blocks goes when the
// last one is freed. A device pool that was its device's current pool leaves the default one
// current; other places keep the destroyed handle as their current pool, as an H200 does.
CUresult destroyPool(MemPool *pool);
bool isLivePool(const MemPool *pool);
// Every pool trims to its release threshold (stream, event and context synchronisation).
void trimPoolsToThresholds();

} // namespace cucpu::driver
