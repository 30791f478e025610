// Entry points: device memory allocation, copies and memsets.
#include "entry.h"
#include "entry_points.h"

#include "cucpu/driver/memory.h"

#include <algorithm>
#include <cstring>

namespace cucpu::api::impl {

namespace {

// Device ranges must lie inside one live allocation.
bool validDevice(CUdeviceptr p, size_t bytes) {
  return p && driver::memory().find(static_cast<uintptr_t>(p), bytes, nullptr);
}

void *ptr(CUdeviceptr p) { return reinterpret_cast<void *>(static_cast<uintptr_t>(p)); }

template <typename T> CUresult memsetN(CUdeviceptr dst, T value, size_t n) {
  driver::Context *c;
  if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (n == 0)
    return CUDA_SUCCESS;
  if (n > SIZE_MAX / sizeof(T) || dst % sizeof(T) != 0 || !validDevice(dst, n * sizeof(T)))
    return CUDA_ERROR_INVALID_VALUE;
  T *p = static_cast<T *>(ptr(dst));
  if constexpr (sizeof(T) == 1)
    std::memset(p, value, n);
  else
    std::fill_n(p, n, value);
  return c->stickyError();
}

} // namespace

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize) {
  driver::Context *c;
  if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!dptr || bytesize == 0)
    return CUDA_ERROR_INVALID_VALUE;
  return driver::memory().allocate(c, bytesize, dptr);
}

CUresult cuMemFree_v2(CUdeviceptr dptr) {
  driver::Context *c;
  if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (dptr == 0)
    return CUDA_SUCCESS;
  return driver::memory().free(dptr);
}

CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
  driver::Context *c;
  if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!free || !total)
    return CUDA_ERROR_INVALID_VALUE;
  *total = c->device()->totalMemory();
  *free = *total - std::min(*total, driver::memory().used());
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) {
  driver::Context *c;
  if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (ByteCount == 0)
    return CUDA_SUCCESS;
  if (!srcHost || !validDevice(dstDevice, ByteCount))
    return CUDA_ERROR_INVALID_VALUE;
  std::memmove(ptr(dstDevice), srcHost, ByteCount);
  return c->stickyError();
}

CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  driver::Context *c;
  if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (ByteCount == 0)
    return CUDA_SUCCESS;
  if (!dstHost || !validDevice(srcDevice, ByteCount))
    return CUDA_ERROR_INVALID_VALUE;
  std::memmove(dstHost, ptr(srcDevice), ByteCount);
  return c->stickyError();
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  driver::Context *c;
  if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (ByteCount == 0)
    return CUDA_SUCCESS;
  if (!validDevice(dstDevice, ByteCount) || !validDevice(srcDevice, ByteCount))
    return CUDA_ERROR_INVALID_VALUE;
  std::memmove(ptr(dstDevice), ptr(srcDevice), ByteCount);
  return c->stickyError();
}

CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  return memsetN<uint8_t>(dstDevice, uc, N);
}
CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N) {
  return memsetN<uint16_t>(dstDevice, us, N);
}
CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  return memsetN<uint32_t>(dstDevice, ui, N);
}

} // namespace cucpu::api::impl
