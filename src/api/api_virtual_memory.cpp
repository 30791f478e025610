// Entry points: virtual memory management (driver/virtual_memory.cpp does the work). The
// refusals are an H200's with driver 580 (tests/gpu/record_vmm.cpp, tests/gpu/answers/vmm.txt).
#include "cucpu/driver/device.h"
#include "cucpu/driver/virtual_memory.h"
#include "entry.h"
#include "entry_points.h"

namespace cucpu::api::impl {
namespace {

// The device a location names: INVALID_DEVICE for a device that does not exist.
CUresult deviceAt(const CUmemLocation &loc, driver::Device **out) {
  if (loc.type != CU_MEM_LOCATION_TYPE_DEVICE)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "rejected: loc.type != CU_MEM_LOCATION_TYPE_DEVICE");
  return deviceOf(loc.id, out);
}

} // namespace

CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                       CUmemAllocationGranularity_flags option) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!granularity || !prop ||
      (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
       option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
    return driver::fail(
        CUDA_ERROR_INVALID_VALUE,
        "rejected: !granularity || !prop || (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option "
        "!= CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)");
  *granularity = driver::kVmmGranularity; // for any properties, as an H200 answers
  return CUDA_SUCCESS;
}

CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                     const CUmemAllocationProp *prop, unsigned long long flags) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!handle || !prop || flags != 0 || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
      (prop->requestedHandleTypes & ~unsigned(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)))
    return driver::fail(
        CUDA_ERROR_INVALID_VALUE,
        "rejected: !handle || !prop || flags != 0 || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED "
        "|| (prop->requestedHandleTypes & ~unsigned(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))");
  driver::Device *d;
  if (CUresult r = deviceAt(prop->location, &d); r != CUDA_SUCCESS)
    return r;
  return driver::vmmCreate(handle, size, *prop, d->totalMemory());
}

CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  return driver::vmmRelease(handle);
}

CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                             unsigned long long flags) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!ptr || flags != 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "rejected: !ptr || flags != 0");
  (void)addr; // a hint only: the arena chooses
  return driver::vmmReserve(ptr, size, alignment);
}

CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  return driver::vmmFree(ptr, size);
}

CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                  unsigned long long flags) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (flags != 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "flags = {:#x} must be 0", flags);
  return driver::vmmMap(ptr, size, offset, handle);
}

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  return driver::vmmUnmap(ptr, size);
}

CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!desc || count == 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "desc is NULL or count is 0");
  // Every device is the same CPU: the widest access any descriptor grants applies.
  unsigned access = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  for (size_t i = 0; i < count; ++i) {
    driver::Device *d;
    if (CUresult r = deviceAt(desc[i].location, &d); r != CUDA_SUCCESS)
      return r;
    const unsigned f = desc[i].flags;
    if (f != CU_MEM_ACCESS_FLAGS_PROT_NONE && f != CU_MEM_ACCESS_FLAGS_PROT_READ &&
        f != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return driver::fail(
          CUDA_ERROR_INVALID_VALUE,
          "rejected: f != CU_MEM_ACCESS_FLAGS_PROT_NONE && f != CU_MEM_ACCESS_FLAGS_PROT_READ && f "
          "!= CU_MEM_ACCESS_FLAGS_PROT_READWRITE");
    access |= f;
  }
  return driver::vmmSetAccess(c, ptr, size, access);
}

CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!flags || !location)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "flags or location is NULL");
  driver::Device *d;
  if (CUresult r = deviceAt(*location, &d); r != CUDA_SUCCESS)
    return r;
  return driver::vmmGetAccess(ptr, flags);
}

CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!handle)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "handle is NULL");
  return driver::vmmRetain(handle, reinterpret_cast<CUdeviceptr>(addr));
}

CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                CUmemGenericAllocationHandle handle) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!prop)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "prop is NULL");
  return driver::vmmProperties(handle, prop);
}

CUresult cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle,
                                      CUmemAllocationHandleType handleType,
                                      unsigned long long flags) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!shareableHandle || flags != 0 || handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "rejected: !shareableHandle || flags != 0 || handleType != "
                        "CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR");
  return driver::vmmExport(handle, static_cast<int *>(shareableHandle));
}

CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle,
                                        CUmemAllocationHandleType shHandleType) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!handle || shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
    return driver::fail(
        CUDA_ERROR_INVALID_VALUE,
        "rejected: !handle || shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR");
  // The POSIX descriptor travels in the pointer's bits, as CUDA's samples pass it.
  return driver::vmmImport(static_cast<int>(reinterpret_cast<intptr_t>(osHandle)), handle);
}

} // namespace cucpu::api::impl
