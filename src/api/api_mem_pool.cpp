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

// The device a pool location names (device locations only: host pools are not offered).
CUresult deviceAt(const CUmemLocation *loc, CUmemAllocationType type, driver::Device **out) {
  if (!loc || type != CU_MEM_ALLOCATION_TYPE_PINNED)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "location is NULL or the allocation type {} is not PINNED",
                        static_cast<int>(type));
  if (loc->type != CU_MEM_LOCATION_TYPE_DEVICE)
    return driver::fail(CUDA_ERROR_NOT_SUPPORTED, "location type {} is not a device",
                        static_cast<int>(loc->type));
  return deviceOf(loc->id, out);
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
  *pool_out = handleOf(driver::defaultPool(d));
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev) {
  *pool = handleOf(driver::currentPool(driver::device(dev)));
  return CUDA_SUCCESS;
}

CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool) {
  driver::Device *d;
  driver::MemPool *p;
  if (CUresult r = poolOf(pool, &p); r != CUDA_SUCCESS) // before the device, as an H200 checks
    return r;
  if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
    return r;
  if (p->device() != d)
    return driver::fail(CUDA_ERROR_INVALID_DEVICE, "the pool is of device {}, not {}",
                        p->device()->ordinal(), d->ordinal());
  driver::setCurrentPool(d, p);
  return CUDA_SUCCESS;
}

CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool_out, CUmemLocation *location,
                                CUmemAllocationType type) {
  driver::Device *d;
  if (CUresult r = deviceAt(location, type, &d); r != CUDA_SUCCESS)
    return r;
  return impl::cuDeviceGetDefaultMemPool(pool_out, d->ordinal());
}

CUresult cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *location, CUmemAllocationType type) {
  driver::Device *d;
  if (CUresult r = deviceAt(location, type, &d); r != CUDA_SUCCESS)
    return r;
  return impl::cuDeviceGetMemPool(pool, d->ordinal());
}

CUresult cuMemSetMemPool(CUmemLocation *location, CUmemAllocationType type, CUmemoryPool pool) {
  driver::Device *d;
  if (CUresult r = deviceAt(location, type, &d); r != CUDA_SUCCESS)
    return r;
  return impl::cuDeviceSetMemPool(d->ordinal(), pool);
}

CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!pool || !props || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
      props->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "pool or props is NULL, or the pool is not pinned device memory");
  driver::Device *d;
  if (deviceOf(props->location.id, &d) !=
      CUDA_SUCCESS) // an H200 answers so for a device that does not exist
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "device {} does not exist", props->location.id);
  if (props->handleTypes != CU_MEM_HANDLE_TYPE_NONE &&
      props->handleTypes !=
          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) // only file descriptors are handles here
    return driver::fail(CUDA_ERROR_NOT_SUPPORTED,
                        "handle types {:#x}: only POSIX file descriptors are offered",
                        static_cast<unsigned>(props->handleTypes));
  *pool = handleOf(driver::createPool(d, *props));
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
  if (!flags || !location || location->type != CU_MEM_LOCATION_TYPE_DEVICE)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "flags or location is NULL, or the location is not a device");
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
