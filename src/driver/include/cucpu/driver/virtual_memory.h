// Virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap, ...): physical memory is
// a memory file descriptor (memfd), address ranges are reserved in the device arena, mappings are
// shared mappings of the file, so one handle mapped twice is one memory seen twice, and a handle
// exported as a file descriptor is the same memory in another process.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>

namespace cucpu::driver {

class Context;

// The granularity of handles, reservations and mappings (an H100's and H200's: 2 MiB).
constexpr size_t kVmmGranularity = size_t(2) << 20;

// `capacity`: the device's memory, which the handle's size counts against.
CUresult vmmCreate(CUmemGenericAllocationHandle *out, size_t size, const CUmemAllocationProp &prop,
                   size_t capacity);
CUresult vmmRelease(CUmemGenericAllocationHandle handle);
CUresult vmmReserve(CUdeviceptr *out, size_t size, size_t alignment);
CUresult vmmFree(CUdeviceptr ptr, size_t size);
CUresult vmmMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle);
CUresult vmmUnmap(CUdeviceptr ptr, size_t size);
// `access`: CU_MEM_ACCESS_FLAGS_PROT_NONE, _READ or _READWRITE, for whole mappings covering the
// range without a gap.
CUresult vmmSetAccess(Context *ctx, CUdeviceptr ptr, size_t size, unsigned access);
CUresult vmmGetAccess(CUdeviceptr ptr, unsigned long long *access);
CUresult vmmRetain(CUmemGenericAllocationHandle *out, CUdeviceptr addr);
CUresult vmmProperties(CUmemGenericAllocationHandle handle, CUmemAllocationProp *out);
CUresult vmmExport(CUmemGenericAllocationHandle handle, int *fd);
CUresult vmmImport(int fd, CUmemGenericAllocationHandle *out);

} // namespace cucpu::driver
