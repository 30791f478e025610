// Entry points: page-locked host memory (allocated or registered) and its device addresses.
#include "cucpu/driver/capture.h"
#include "device_ptr.h"
#include "entry.h"
#include "entry_points.h"

#include "cucpu/driver/stream.h"

namespace cucpu::api::impl {
namespace {

constexpr unsigned kHostRegisterFlags = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                                        CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY;

// After the registry's checks (a context, no capture, the output, known flags).
CUresult hostAlloc(void **pp, size_t bytes, unsigned flags) {
  if (bytes == 0) { // an H200 succeeds (tests/gpu/answers/misuse.txt); there is nothing to hand out
    *pp = nullptr;
    return CUDA_SUCCESS;
  }
  return driver::memory().allocateHost(driver::current(), bytes, flags, pp);
}

// The host allocation or registered range containing `p`.
bool hostRange(const void *p, driver::Allocation *a) {
  return p && driver::memory().find(reinterpret_cast<uintptr_t>(p), 0, a) &&
         (a->kind == driver::MemoryKind::Host || a->kind == driver::MemoryKind::Registered);
}

} // namespace

CUresult cuMemAllocHost_v2(void **pp, size_t bytesize) { return hostAlloc(pp, bytesize, 0); }

CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags) {
  return hostAlloc(pp, bytesize, Flags);
}

CUresult cuMemFreeHost(void *p) {
  if (!p)
    return CUDA_SUCCESS;                         // as free(NULL), and as an H200 answers
  driver::synchronizeStreams(driver::current()); // as cuMemFree: queued work may use the memory
  return driver::memory().freeHost(p);
}

CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags) {
  if (bytesize == 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "bytesize is 0");
  if (Flags & ~kHostRegisterFlags)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "Flags = {:#x} has unknown bits", Flags);
  if (Flags & CU_MEMHOSTREGISTER_IOMEMORY) // device I/O memory needs a peer device
    return driver::fail(CUDA_ERROR_NOT_SUPPORTED,
                        "CU_MEMHOSTREGISTER_IOMEMORY needs a peer device");
  return driver::memory().registerHost(driver::current(), p, bytesize, Flags);
}

CUresult cuMemHostUnregister(void *p) { return driver::memory().unregisterHost(p); }

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int) {
  driver::Allocation a;
  if (!hostRange(p, &a))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "{} is not in page-locked host memory", p);
  *pdptr = reinterpret_cast<uintptr_t>(p); // host memory is mapped at the same address
  return CUDA_SUCCESS;
}

CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p) {
  driver::Allocation a;
  if (!hostRange(p, &a))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "{} is not in page-locked host memory", p);
  *pFlags = a.flags;
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
