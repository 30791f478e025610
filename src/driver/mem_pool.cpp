// Stream-ordered memory pools: arena blocks, a cache of freed ones, the pool registry.
#include "cucpu/driver/mem_pool.h"

#include "cucpu/driver/device.h"
#include "cucpu/driver/ipc.h"
#include "cucpu/driver/memory.h"
#include "cucpu/driver/reason.h"
#include "cucpu/support/log.h"
#include "device_arena.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <unordered_map>

namespace cucpu::driver {
namespace {

struct Registry {
  std::mutex mutex;
  std::unordered_map<const MemPool *, std::unique_ptr<MemPool>> pools; // live and doomed ones
  std::unordered_map<const MemPool *, bool> doomed; // destroyed, waiting for their blocks
  std::map<PoolPlace, MemPool *> defaults, current;
};

Registry &registry() {
  static auto *r = new Registry();
  return *r;
}

// The block sizes a request takes: 256 bytes at least, as cuMemAlloc's.
size_t blockFor(size_t bytes) { return DeviceArena::blockSize(std::max<size_t>(bytes, 256)); }

// Deletes a destroyed pool once its last block is back.
void collect(MemPool *pool) {
  Registry &r = registry();
  std::unique_ptr<MemPool> gone;
  {
    std::lock_guard lk(r.mutex);
    auto it = r.doomed.find(pool);
    if (it == r.doomed.end() || pool->liveBlocks() != 0)
      return;
    r.doomed.erase(it);
    auto p = r.pools.find(pool);
    gone = std::move(p->second);
    r.pools.erase(p);
  }
  gone->trimTo(0);
}

} // namespace

PoolPlace placeOf(const CUmemPoolProps &props) {
  PoolPlace p{props.allocType, props.location.type, props.location.id};
  if (p.location == CU_MEM_LOCATION_TYPE_HOST || p.location == CU_MEM_LOCATION_TYPE_NONE ||
      p.location == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT)
    p.id = 0; // the id is ignored there
  return p;
}

PoolPlace devicePlace(const Device *device) {
  return {CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_DEVICE, device->ordinal()};
}

CUresult MemPool::allocate(Context *ctx, size_t bytes, CUdeviceptr *out) {
  if (imported_) // an imported pool only maps what its exporter allocated
    return fail(CUDA_ERROR_INVALID_VALUE, "an imported pool cannot allocate");
  // An exportable pool's blocks have pages of their own (each goes into a memory file).
  const size_t block =
      blockFor(exportable() ? std::max(bytes, DeviceArena::kLargestClass + 1) : bytes);
  if (block == 0 || block > device_->totalMemory())
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "a block of {} bytes", block);
  uintptr_t base = 0;
  {
    std::lock_guard lk(mutex_);
    if (auto it = cache_.find(block); it != cache_.end()) {
      base = it->second;
      cache_.erase(it);
    }
  }
  if (!base) {
    if (CUresult r = charge(block); r != CUDA_SUCCESS)
      return r;
    size_t taken = 0;
    base = reinterpret_cast<uintptr_t>(deviceArena().allocate(block, &taken));
    if (!base) {
      refund(block);
      return fail(CUDA_ERROR_OUT_OF_MEMORY, "the device arena has no room for {} bytes", block);
    }
    if (exportable())
      share(base, block);
    std::lock_guard lk(mutex_);
    reserved_ += block;
    reservedHigh_ = std::max(reservedHigh_, reserved_);
  }
  {
    std::lock_guard lk(mutex_);
    used_ += bytes;
    usedHigh_ = std::max(usedHigh_, used_);
    ++live_;
  }
  memory().trackPoolBlock(ctx, base, bytes, block, this);
  *out = base;
  return CUDA_SUCCESS;
}

void MemPool::unuse(size_t requested) {
  std::lock_guard lk(mutex_);
  used_ -= requested;
}

void MemPool::recycle(uintptr_t base, size_t block) {
  if (imported_) {
    unmapImport(base);
    return;
  }
  {
    std::lock_guard lk(mutex_);
    --live_;
    cache_.emplace(block, base);
  }
  collect(this);
}

void MemPool::releaseBlock(uintptr_t base, size_t block) {
  if (imported_) {
    unmapImport(base);
    return;
  }
  {
    std::lock_guard lk(mutex_);
    --live_;
  }
  giveBack(base, block);
  collect(this);
}

void MemPool::giveBack(uintptr_t base, size_t block) {
  int fd = -1;
  {
    std::lock_guard lk(mutex_);
    if (auto it = shared_.find(base); it != shared_.end()) {
      fd = it->second;
      shared_.erase(it);
    }
  }
  if (fd >= 0) // private pages again before the arena takes the block back
    unshareInPlace(base, block, fd);
  deviceArena().release(reinterpret_cast<void *>(base));
  refund(block);
  std::lock_guard lk(mutex_);
  reserved_ -= block;
}

void MemPool::trimTo(size_t keep) {
  for (;;) {
    std::pair<size_t, uintptr_t> victim;
    {
      std::lock_guard lk(mutex_);
      if (reserved_ <= keep || cache_.empty())
        return;
      auto it = std::prev(cache_.end()); // the largest first
      victim = *it;
      cache_.erase(it);
    }
    giveBack(victim.second, victim.first);
  }
}

void MemPool::trimToThreshold() {
  cuuint64_t keep;
  {
    std::lock_guard lk(mutex_);
    keep = threshold_;
  }
  trimTo(static_cast<size_t>(std::min<cuuint64_t>(keep, SIZE_MAX)));
}

unsigned long long MemPool::liveBlocks() {
  std::lock_guard lk(mutex_);
  return live_;
}

CUresult MemPool::getAttribute(CUmemPool_attribute attr, void *value) {
  std::lock_guard lk(mutex_);
  auto put = [&](cuuint64_t v) { std::memcpy(value, &v, sizeof v); };
  switch (attr) {
  case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
    std::memcpy(value, &reuse_[attr - 1], sizeof(int));
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
    put(threshold_);
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
    put(reserved_);
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
    put(reservedHigh_);
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
    put(used_);
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
    put(usedHigh_);
    return CUDA_SUCCESS;
  default:
    return fail(CUDA_ERROR_INVALID_VALUE, "attr = {} is not a value this call takes",
                static_cast<long long>(attr));
  }
}

CUresult MemPool::setAttribute(CUmemPool_attribute attr, const void *value) {
  std::lock_guard lk(mutex_);
  cuuint64_t v = 0;
  switch (attr) {
  case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: {
    int flag;
    std::memcpy(&flag, value, sizeof flag);
    reuse_[attr - 1] = flag != 0; // every block is free of pending work when reused here
    return CUDA_SUCCESS;
  }
  case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
    std::memcpy(&threshold_, value, sizeof threshold_);
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: // may only be reset, to the current value
  case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
    std::memcpy(&v, value, sizeof v);
    if (v != 0)
      return fail(CUDA_ERROR_INVALID_VALUE, "v = {:#x} must be 0", v);
    (attr == CU_MEMPOOL_ATTR_USED_MEM_HIGH ? usedHigh_ : reservedHigh_) =
        attr == CU_MEMPOOL_ATTR_USED_MEM_HIGH ? used_ : reserved_;
    return CUDA_SUCCESS;
  default: // the current values are read-only
    return fail(CUDA_ERROR_INVALID_VALUE, "attr = {} is not a value this call takes",
                static_cast<long long>(attr));
  }
}

CUresult MemPool::charge(size_t block) {
  return place_.onHost() ? CUDA_SUCCESS : memory().charge(block, device_->totalMemory());
}

void MemPool::refund(size_t block) {
  if (!place_.onHost())
    memory().refund(block);
}

CUmemAccess_flags MemPool::hostAccess() const {
  return place_.onHost() ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : CU_MEM_ACCESS_FLAGS_PROT_NONE;
}

CUmemAccess_flags MemPool::access(int ordinal) {
  if (place_.onDevice() && ordinal == device_->ordinal())
    return CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  std::lock_guard lk(mutex_);
  auto it = peers_.find(ordinal);
  return it == peers_.end() ? CU_MEM_ACCESS_FLAGS_PROT_NONE : it->second;
}

CUresult MemPool::setAccess(int ordinal, CUmemAccess_flags flags) {
  // What an H200 answers for its own device: read-only cannot be, none names no peer.
  if (flags == CU_MEM_ACCESS_FLAGS_PROT_READ)
    return fail(CUDA_ERROR_NOT_SUPPORTED, "read-only access to a pool is not offered");
  if (place_.onDevice() && ordinal == device_->ordinal())
    return flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE
               ? CUDA_SUCCESS
               : fail(CUDA_ERROR_INVALID_DEVICE, "the owning device's access is read-write");
  if (flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
    return fail(CUDA_ERROR_INVALID_VALUE, "access flags {} are unknown", static_cast<int>(flags));
  std::lock_guard lk(mutex_);
  peers_[ordinal] = flags; // every device is the same CPU: recorded, nothing to map
  return CUDA_SUCCESS;
}

MemPool *defaultPool(const PoolPlace &place) {
  Registry &r = registry();
  std::lock_guard lk(r.mutex);
  MemPool *&p = r.defaults[place];
  if (!p) {
    CUmemPoolProps props{};
    props.allocType = place.type;
    props.location = {place.location, place.id};
    // Host pools' pointers report device 0, as an H200's; managed pools report their device.
    const bool ofDevice = place.location == CU_MEM_LOCATION_TYPE_DEVICE;
    auto pool = std::make_unique<MemPool>(device(ofDevice ? place.id : 0), props);
    p = pool.get();
    r.pools[p] = std::move(pool);
  }
  return p;
}

MemPool *currentPool(const PoolPlace &place) {
  {
    Registry &r = registry();
    std::lock_guard lk(r.mutex);
    if (auto it = r.current.find(place); it != r.current.end())
      return it->second;
  }
  return defaultPool(place);
}

void setCurrentPool(const PoolPlace &place, MemPool *pool) {
  Registry &r = registry();
  std::lock_guard lk(r.mutex);
  r.current[place] = pool;
}

MemPool *createPool(Device *device, const CUmemPoolProps &props) {
  auto pool = std::make_unique<MemPool>(device, props);
  MemPool *p = pool.get();
  Registry &r = registry();
  std::lock_guard lk(r.mutex);
  r.pools[p] = std::move(pool);
  return p;
}

CUresult destroyPool(MemPool *pool) {
  {
    Registry &r = registry();
    std::lock_guard lk(r.mutex);
    if (!r.pools.count(pool) || r.doomed.count(pool))
      return fail(CUDA_ERROR_INVALID_VALUE, "the pool is not live");
    for (auto &[place, p] : r.defaults)
      if (p == pool) // a default pool stays
        return fail(CUDA_ERROR_INVALID_VALUE, "a default pool cannot be destroyed");
    for (auto it = r.current.begin(); it != r.current.end();)
      it = it->second == pool && it->first.onDevice() ? r.current.erase(it) : std::next(it);
    r.doomed[pool] = true;
  }
  collect(pool);
  return CUDA_SUCCESS;
}

bool isLivePool(const MemPool *pool) {
  Registry &r = registry();
  std::lock_guard lk(r.mutex);
  return pool && r.pools.count(pool) && !r.doomed.count(pool);
}

void trimPoolsToThresholds() {
  Registry &r = registry();
  std::lock_guard lk(r.mutex); // (pools lock only the tracker and the arena under it)
  for (auto &[p, pool] : r.pools)
    pool->trimToThreshold();
}

} // namespace cucpu::driver
