// Entry points: virtual memory management (driver/virtual_memory.cpp does the work). The
// refusals are an H200's with driver 580 (tests/gpu/record_vmm.cpp, tests/gpu/answers/vmm.txt);
// the registry checks initialisation, outputs and flags first.
#include "cucpu/driver/device.h"
#include "cucpu/driver/virtual_memory.h"
#include "entry.h"
#include "entry_points.h"

namespace cucpu::api::impl {
namespace {

// The device a location names: INVALID_DEVICE for a device that does not exist.
CUresult deviceAt(const CUmemLocation &loc, driver::Device **out) {
  if (loc.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "location type {} is not a device",
                        static_cast<int>(loc.type));
  return deviceOf(loc.id, out);
}

} // namespace

CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *,
                                       CUmemAllocationGranularity_flags option) {
  if (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "option = {} is not MINIMUM or RECOMMENDED",
                        static_cast<int>(option));
  *granularity = driver::kVmmGranularity; // for any properties, as an H200 answers
  return CUDA_SUCCESS;
}

CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                     const CUmemAllocationProp *prop, unsigned long long) {
  if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "allocation type {} is not PINNED",
                        static_cast<int>(prop->type));
  if (prop->requestedHandleTypes & ~unsigned(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "requested handle types {:#x}: only POSIX file descriptors are offered",
                        static_cast<unsigned>(prop->requestedHandleTypes));
  // Compressible memory is granted (an H200 grants it): compression is invisible to programs, so
  // the memory behaves as any other (tests/gpu/answers/compression.txt).
  if (prop->allocFlags.compressionType != CU_MEM_ALLOCATION_COMP_NONE &&
      prop->allocFlags.compressionType != CU_MEM_ALLOCATION_COMP_GENERIC)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "compression type {} is unknown",
                        static_cast<int>(prop->allocFlags.compressionType));
  driver::Device *d;
  if (CUresult r = deviceAt(prop->location, &d); r != CUDA_SUCCESS)
    return r;
  return driver::vmmCreate(handle, size, *prop, d->totalMemory());
}

CUresult cuMemRelease(CUmemGenericAllocationHandle handle) { return driver::vmmRelease(handle); }

CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                             unsigned long long) {
  (void)addr; // a hint only: the arena chooses
  return driver::vmmReserve(ptr, size, alignment);
}

CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) { return driver::vmmFree(ptr, size); }

CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                  unsigned long long) {
  return driver::vmmMap(ptr, size, offset, handle);
}

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) { return driver::vmmUnmap(ptr, size); }

CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count) {
  if (count == 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "count is 0");
  // Every device is the same CPU: the widest access any descriptor grants applies.
  unsigned access = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  for (size_t i = 0; i < count; ++i) {
    driver::Device *d;
    if (CUresult r = deviceAt(desc[i].location, &d); r != CUDA_SUCCESS)
      return r;
    const unsigned f = desc[i].flags;
    if (f != CU_MEM_ACCESS_FLAGS_PROT_NONE && f != CU_MEM_ACCESS_FLAGS_PROT_READ &&
        f != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "desc[{}].flags = {} is no access", i, f);
    access |= f;
  }
  return driver::vmmSetAccess(driver::current(), ptr, size, access);
}

CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr) {
  driver::Device *d;
  if (CUresult r = deviceAt(*location, &d); r != CUDA_SUCCESS)
    return r;
  return driver::vmmGetAccess(ptr, flags);
}

CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr) {
  return driver::vmmRetain(handle, reinterpret_cast<CUdeviceptr>(addr));
}

CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                CUmemGenericAllocationHandle handle) {
  return driver::vmmProperties(handle, prop);
}

CUresult cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle,
                                      CUmemAllocationHandleType handleType, unsigned long long) {
  if (handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "handle type {}: only POSIX file descriptors",
                        static_cast<int>(handleType));
  return driver::vmmExport(handle, static_cast<int *>(shareableHandle));
}

CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle,
                                        CUmemAllocationHandleType shHandleType) {
  if (shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "handle type {}: only POSIX file descriptors",
                        static_cast<int>(shHandleType));
  // The POSIX descriptor travels in the pointer's bits, as CUDA's samples pass it.
  return driver::vmmImport(static_cast<int>(reinterpret_cast<intptr_t>(osHandle)), handle);
}

} // namespace cucpu::api::impl
