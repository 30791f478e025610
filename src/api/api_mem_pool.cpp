// Entry points: stream-ordered memory pools (driver/mem_pool.cpp does the work), shared between
// processes through POSIX file descriptors (driver/pool_ipc.cpp). The answers are an H200's with
// driver 580 (tests/gpu/answers/pools.txt, tests/gpu/answers/pool_ipc.txt).
#include "checks.h"
#include "cucpu/driver/context.h"
#include "cucpu/driver/device.h"
#include "cucpu/driver/mem_pool.h"
#include "cucpu/driver/memory.h"
#include "entry_points.h"
#include "graph_nodes.h"
#include "stream_ref.h"

namespace cucpu::api::impl {
namespace {

CUresult poolOf(CUmemoryPool h, driver::MemPool **out) {
  *out = reinterpret_cast<driver::MemPool *>(h);
  return check::pool(h, "pool");
}

CUmemoryPool handleOf(driver::MemPool *p) { return reinterpret_cast<CUmemoryPool>(p); }

// The place (kind and location) a default or current pool query names, with an H200's answers:
// pinned memory of a device, the host or host NUMA node 0; managed memory of those or of no
// location. The current thread's NUMA node is not offered.
CUresult placeAt(const CUmemLocation *loc, CUmemAllocationType type, driver::PoolPlace *out) {
  if (!loc)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "location is NULL");
  if (type != CU_MEM_ALLOCATION_TYPE_PINNED && type != CU_MEM_ALLOCATION_TYPE_MANAGED)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "allocation type {} is not PINNED or MANAGED",
                        static_cast<int>(type));
  CUmemPoolProps props{};
  props.allocType = type;
  props.location = *loc;
  *out = driver::placeOf(props);
  switch (loc->type) {
  case CU_MEM_LOCATION_TYPE_DEVICE:
    if (driver::Device * d; deviceOf(loc->id, &d) != CUDA_SUCCESS)
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "device {} does not exist", loc->id);
    return CUDA_SUCCESS;
  case CU_MEM_LOCATION_TYPE_HOST:
    return CUDA_SUCCESS;
  case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    return loc->id == 0
               ? CUDA_SUCCESS
               : driver::fail(CUDA_ERROR_INVALID_VALUE,
                              "host NUMA node {} does not exist (the host has node 0)", loc->id);
  case CU_MEM_LOCATION_TYPE_NONE:
    return type == CU_MEM_ALLOCATION_TYPE_MANAGED
               ? CUDA_SUCCESS
               : driver::fail(CUDA_ERROR_INVALID_VALUE, "pinned memory needs a location");
  case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
    return driver::fail(CUDA_ERROR_NOT_SUPPORTED,
                        "the current thread's host NUMA node has no pools of its own");
  default:
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "location type {} is unknown",
                        static_cast<int>(loc->type));
  }
}

// What cuMemPoolCreate takes, as an H200 answers: the places above, and for managed memory also
// the current thread's NUMA node; pools of the host (not of a host NUMA node) and managed pools
// cannot be shared between processes.
CUresult checkPoolProps(const CUmemPoolProps &props) {
  driver::PoolPlace place = driver::placeOf(props);
  const bool managedOnCurrentNode =
      place.managed() && place.location == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT;
  if (!managedOnCurrentNode && placeAt(&props.location, props.allocType, &place) != CUDA_SUCCESS)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "the pool's kind and location are not offered");
  if (props.handleTypes == CU_MEM_HANDLE_TYPE_NONE)
    return CUDA_SUCCESS;
  if (place.managed() || place.location == CU_MEM_LOCATION_TYPE_HOST)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "pools of the host and managed pools cannot be shared between processes");
  if (props.handleTypes != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) // only file descriptors here
    return driver::fail(CUDA_ERROR_NOT_SUPPORTED,
                        "handle types {:#x}: only POSIX file descriptors are offered",
                        static_cast<unsigned>(props.handleTypes));
  return CUDA_SUCCESS;
}

CUresult allocFromPool(CUdeviceptr *dptr, size_t bytes, CUmemoryPool h, CUstream stream,
                       bool perThread) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(stream, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  driver::MemPool *pool;
  if (!dptr)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "dptr is NULL");
  if (CUresult r = poolOf(h, &pool); r != CUDA_SUCCESS)
    return r;
  if (bytes == 0) { // as NVIDIA's driver: nothing allocated, no error
    *dptr = 0;
    return CUDA_SUCCESS;
  }
  bool captured; // in a capture: an allocation node (of the device's memory, as NVIDIA's)
  if (CUresult r = captureOr(
          s, &captured, [&](driver::NodeSpec *n) { return captureAllocation(c, bytes, dptr, n); });
      captured || r != CUDA_SUCCESS)
    return r;
  return pool->allocate(c, bytes, dptr);
}

} // namespace

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev) {
  driver::Device *d;
  if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
    return r;
  if (!pool_out)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pool_out is NULL");
  *pool_out = handleOf(driver::defaultPool(driver::devicePlace(d)));
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev) {
  *pool = handleOf(driver::currentPool(driver::devicePlace(driver::device(dev))));
  return CUDA_SUCCESS;
}

CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool) {
  driver::Device *d;
  driver::MemPool *p;
  if (CUresult r = poolOf(pool, &p); r != CUDA_SUCCESS) // before the device, as an H200 checks
    return r;
  if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
    return r;
  if (!p->place().onDevice())
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "the pool is not of device memory");
  if (p->device() != d)
    return driver::fail(CUDA_ERROR_INVALID_DEVICE, "the pool is of device {}, not {}",
                        p->device()->ordinal(), d->ordinal());
  driver::setCurrentPool(driver::devicePlace(d), p);
  return CUDA_SUCCESS;
}

CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool_out, CUmemLocation *location,
                                CUmemAllocationType type) {
  driver::PoolPlace place;
  if (CUresult r = placeAt(location, type, &place); r != CUDA_SUCCESS)
    return r;
  *pool_out = handleOf(driver::defaultPool(place));
  return CUDA_SUCCESS;
}

CUresult cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *location, CUmemAllocationType type) {
  driver::PoolPlace place;
  if (CUresult r = placeAt(location, type, &place); r != CUDA_SUCCESS)
    return r;
  *pool = handleOf(driver::currentPool(place));
  return CUDA_SUCCESS;
}

CUresult cuMemSetMemPool(CUmemLocation *location, CUmemAllocationType type, CUmemoryPool pool) {
  driver::PoolPlace place;
  if (CUresult r = placeAt(location, type, &place); r != CUDA_SUCCESS)
    return r;
  if (place.onDevice())
    return impl::cuDeviceSetMemPool(place.id, pool);
  driver::MemPool *p;
  if (CUresult r = poolOf(pool, &p); r != CUDA_SUCCESS)
    return r;
  if (p->place() != place)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "the pool is of another kind or location");
  driver::setCurrentPool(place, p);
  return CUDA_SUCCESS;
}

CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!pool || !props)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pool or props is NULL");
  if (CUresult r = checkPoolProps(*props); r != CUDA_SUCCESS)
    return r;
  const bool onDevice = props->location.type == CU_MEM_LOCATION_TYPE_DEVICE;
  *pool = handleOf(driver::createPool(driver::device(onDevice ? props->location.id : 0), *props));
  return CUDA_SUCCESS;
}

CUresult cuMemPoolDestroy(CUmemoryPool pool) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  return driver::destroyPool(reinterpret_cast<driver::MemPool *>(pool));
}

CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value) {
  return reinterpret_cast<driver::MemPool *>(pool)->getAttribute(attr, value);
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value) {
  // A null value, which crashes NVIDIA's driver, is refused by the registry's checks.
  return reinterpret_cast<driver::MemPool *>(pool)->setAttribute(attr, value);
}

CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep) {
  reinterpret_cast<driver::MemPool *>(pool)->trimTo(minBytesToKeep);
  return CUDA_SUCCESS;
}

CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count) {
  driver::MemPool *p;
  if (CUresult r = poolOf(pool, &p); r != CUDA_SUCCESS)
    return r;
  if (!map)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "map is NULL");
  for (size_t i = 0; i < count; ++i) {
    driver::Device *d;
    if (map[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE)
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "map[{}] is not a device location", i);
    if (CUresult r = deviceOf(map[i].location.id, &d); r != CUDA_SUCCESS)
      return r;
    if (CUresult r = p->setAccess(d->ordinal(), map[i].flags); r != CUDA_SUCCESS)
      return r;
  }
  return CUDA_SUCCESS;
}

CUresult cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool,
                            CUmemLocation *location) {
  driver::MemPool *p;
  if (CUresult r = poolOf(memPool, &p); r != CUDA_SUCCESS)
    return r;
  if (!flags || !location)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "flags or location is NULL");
  if (location->type == CU_MEM_LOCATION_TYPE_HOST ||
      location->type == CU_MEM_LOCATION_TYPE_HOST_NUMA) {
    *flags = p->hostAccess();
    return CUDA_SUCCESS;
  }
  if (location->type != CU_MEM_LOCATION_TYPE_DEVICE)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "location type {} is not a device or the host",
                        static_cast<int>(location->type));
  driver::Device *d;
  if (CUresult r = deviceOf(location->id, &d); r != CUDA_SUCCESS)
    return r;
  *flags = p->access(d->ordinal());
  return CUDA_SUCCESS;
}

CUresult cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool,
                                          CUmemAllocationHandleType handleType,
                                          unsigned long long flags) {
  driver::MemPool *p;
  if (CUresult r = poolOf(pool, &p); r != CUDA_SUCCESS)
    return r;
  if (!handle_out || handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || flags != 0 ||
      !p->exportable() || p->imported())
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "handle_out is NULL, the type is not a POSIX file descriptor, flags are "
                        "set, or the pool is not exportable");
  return p->exportHandle(static_cast<int *>(handle_out));
}

CUresult cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle,
                                            CUmemAllocationHandleType handleType,
                                            unsigned long long flags) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (handleType !=
      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) // as an H200 answers for other handle types
    return driver::fail(CUDA_ERROR_NOT_SUPPORTED, "handle type {}: only POSIX file descriptors",
                        static_cast<int>(handleType));
  if (!pool_out || flags != 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pool_out is NULL or flags = {:#x} is not 0",
                        flags);
  driver::MemPool *p;
  const int fd = static_cast<int>(reinterpret_cast<uintptr_t>(handle));
  if (CUresult r = driver::MemPool::importHandle(c->device(), fd, &p); r != CUDA_SUCCESS)
    return r;
  *pool_out = handleOf(p);
  return CUDA_SUCCESS;
}

CUresult cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out, CUdeviceptr ptr) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  driver::Allocation a;
  if (!shareData_out || !driver::memory().find(ptr, 0, &a) || a.base != ptr || !a.pool ||
      a.pool->imported()) // a pool block, from its base, of the exporting process
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "{:#x} is not the start of a block of an exporting pool", ptr);
  return a.pool->exportPointer(a, shareData_out);
}

CUresult cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool,
                                CUmemPoolPtrExportData *shareData) {
  driver::MemPool *p;
  if (CUresult r = poolOf(pool, &p); r != CUDA_SUCCESS)
    return r;
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!ptr_out || !shareData)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "ptr_out or shareData is NULL");
  return p->importPointer(c, *shareData, ptr_out);
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                 CUstream hStream) {
  return allocFromPool(dptr, bytesize, pool, hStream, false);
}
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                      CUstream hStream) {
  return allocFromPool(dptr, bytesize, pool, hStream, true);
}

} // namespace cucpu::api::impl
