// Stream-ordered memory pools (cuMemPool*, cuMemAllocAsync, cuMemFreeAsync): a pool hands out
// arena blocks and keeps those freed in stream order for reuse, giving back what exceeds its
// release threshold at each synchronisation, as NVIDIA's driver does.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace cucpu::driver {

class Context;
class Device;
struct Allocation;

class MemPool {
public:
  MemPool(Device *device, const CUmemPoolProps &props) : device_(device), props_(props) {}
  ~MemPool();
  Device *device() const { return device_; }

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
  // Access of device `ordinal` (the pool's own device always has read and write).
  CUmemAccess_flags access(int ordinal);
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
  std::mutex mutex_;
  std::multimap<size_t, uintptr_t> cache_; // freed blocks by size
  std::map<int, CUmemAccess_flags> peers_; // other devices' access
  size_t reserved_ = 0, reservedHigh_ = 0, used_ = 0, usedHigh_ = 0;
  cuuint64_t threshold_ = 0;
  int reuse_[3] = {1, 1, 1}; // follow event dependencies, opportunistic, internal dependencies
  unsigned long long live_ = 0;
};

// Pool handles: the live pools, each device's default and current pool.
MemPool *defaultPool(Device *device);
MemPool *currentPool(Device *device);
void setCurrentPool(Device *device, MemPool *pool);
MemPool *createPool(Device *device, const CUmemPoolProps &props);
// INVALID_VALUE for a default pool or an unknown handle; a pool with live blocks goes when the
// last one is freed.
CUresult destroyPool(MemPool *pool);
bool isLivePool(const MemPool *pool);
// Every pool trims to its release threshold (stream, event and context synchronisation).
void trimPoolsToThresholds();

} // namespace cucpu::driver
