// Entry points: page-locked host memory (allocated or registered) and its device addresses.
#include "cucpu/driver/capture.h"
#include "device_ptr.h"
#include "entry.h"
#include "entry_points.h"

#include "cucpu/driver/stream.h"

namespace cucpu::api::impl {
namespace {

constexpr unsigned kHostAllocFlags =
    CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED;
constexpr unsigned kHostRegisterFlags = CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                                        CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY;

CUresult hostAlloc(void **pp, size_t bytes, unsigned flags) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::unsafeDuringCapture(); r != CUDA_SUCCESS)
    return r;
  if (!pp || (flags & ~kHostAllocFlags))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "rejected: !pp || (flags & ~kHostAllocFlags)");
  if (bytes == 0) { // an H200 succeeds (tests/gpu/answers/misuse.txt); there is nothing to hand out
    *pp = nullptr;
    return CUDA_SUCCESS;
  }
  return driver::memory().allocateHost(c, bytes, flags, pp);
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
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::unsafeDuringCapture(); r != CUDA_SUCCESS)
    return r;
  if (!p)
    return CUDA_SUCCESS;         // as free(NULL), and as an H200 answers
  driver::synchronizeStreams(c); // as cuMemFree: queued work may still use the memory
  return driver::memory().freeHost(p);
}

CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!p || bytesize == 0 || (Flags & ~kHostRegisterFlags))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "rejected: !p || bytesize == 0 || (Flags & ~kHostRegisterFlags)");
  if (Flags & CU_MEMHOSTREGISTER_IOMEMORY) // device I/O memory needs a peer device
    return driver::fail(CUDA_ERROR_NOT_SUPPORTED, "rejected: Flags & CU_MEMHOSTREGISTER_IOMEMORY");
  return driver::memory().registerHost(c, p, bytesize, Flags);
}

CUresult cuMemHostUnregister(void *p) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!p)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "p is NULL");
  return driver::memory().unregisterHost(p);
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  driver::Allocation a;
  if (!pdptr || Flags != 0 || !hostRange(p, &a))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "rejected: !pdptr || Flags != 0 || !hostRange(p, &a)");
  *pdptr = reinterpret_cast<uintptr_t>(p); // host memory is mapped at the same address
  return CUDA_SUCCESS;
}

CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  driver::Allocation a;
  if (!pFlags || !hostRange(p, &a))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "rejected: !pFlags || !hostRange(p, &a)");
  *pFlags = a.flags;
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
