// Entry points: device memory allocation, linear copies and memsets (1D and 2D).
#include "cucpu/driver/capture.h"
#include "device_ptr.h"
#include "entry.h"
#include "entry_points.h"

#include "cucpu/driver/stream.h"

#include <algorithm>
#include <cstring>

namespace cucpu::api::impl {

namespace {

void *ptr(CUdeviceptr p) { return hostPtr(p); }

template <typename T> CUresult memsetN(CUdeviceptr dst, T value, size_t n) {
  driver::Context *c;
  if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::syncLegacy(c); r != CUDA_SUCCESS) // legacy default stream order
    return r;
  if (n == 0)
    return CUDA_SUCCESS;
  if (CUresult r = checkElements(dst, sizeof(T), n, "dstDevice"); r != CUDA_SUCCESS)
    return r;
  T *p = static_cast<T *>(ptr(dst));
  if constexpr (sizeof(T) == 1)
    std::memset(p, value, n);
  else
    std::fill_n(p, n, value);
  return c->stickyError();
}

// Width elements of T in each of Height rows `pitch` bytes apart.
template <typename T>
CUresult memset2D(CUdeviceptr dst, size_t pitch, T value, size_t width, size_t height) {
  driver::Context *c;
  if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::syncLegacy(c); r != CUDA_SUCCESS)
    return r;
  if (width == 0 || height == 0)
    return CUDA_SUCCESS;
  if (CUresult r = checkRows(dst, pitch, sizeof(T), width, height, "dstDevice"); r != CUDA_SUCCESS)
    return r;
  for (size_t y = 0; y < height; ++y)
    std::fill_n(static_cast<T *>(ptr(dst + y * pitch)), width, value);
  return c->stickyError();
}

CUresult copy(CUdeviceptr dst, Side dstSide, CUdeviceptr src, Side srcSide, size_t bytes) {
  driver::Context *c;
  if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::syncLegacy(c); r != CUDA_SUCCESS)
    return r;
  if (bytes == 0)
    return CUDA_SUCCESS;
  if (CUresult r = checkRange(dst, bytes, dstSide, "dst"); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = checkRange(src, bytes, srcSide, "src"); r != CUDA_SUCCESS)
    return r;
  std::memmove(ptr(dst), ptr(src), bytes);
  return c->stickyError();
}

CUdeviceptr addr(const void *p) { return reinterpret_cast<uintptr_t>(p); }

CUresult copyPeer(CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src, CUcontext srcCtx,
                  size_t bytes) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!dstCtx || !srcCtx || !driver::isLiveContext(fromHandle(dstCtx)) ||
      !driver::isLiveContext(fromHandle(srcCtx)))
    return driver::fail(CUDA_ERROR_INVALID_CONTEXT, "dstContext or srcContext is not live");
  return copy(dst, Side::Device, src, Side::Device, bytes);
}

} // namespace

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize) {
  return driver::memory().allocate(driver::current(), bytesize, dptr); // 0 bytes: INVALID_VALUE
}

CUresult cuMemFree_v2(CUdeviceptr dptr) {
  // Freeing null succeeds even with no current context (an H200, tests/gpu/answers/misuse.txt).
  if (dptr == 0)
    return requireInit();
  driver::Context *c;
  if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::unsafeDuringCapture(); r != CUDA_SUCCESS)
    return r;
  // As NVIDIA's driver does, the free waits for the context's queued work (a stream's kernel
  // or copy may still use the memory; tests/gpu/record_free_sync.cpp).
  driver::synchronizeStreams(c);
  return driver::memory().free(dptr);
}

CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
  driver::Context *c;
  if (CUresult r = api::currentContext(&c); r != CUDA_SUCCESS)
    return r;
  // Either pointer may be null (the driver fills in the other one).
  const size_t capacity = c->device()->totalMemory();
  if (total)
    *total = capacity;
  if (free)
    *free = capacity - std::min(capacity, driver::memory().used());
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) {
  return copy(dstDevice, Side::Device, addr(srcHost), Side::Host, ByteCount);
}

CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  return copy(addr(dstHost), Side::Host, srcDevice, Side::Device, ByteCount);
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  return copy(dstDevice, Side::Device, srcDevice, Side::Device, ByteCount);
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

CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height,
                            unsigned int ElementSizeBytes) {
  if (WidthInBytes == 0 || Height == 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "an empty allocation ({} x {})", WidthInBytes,
                        Height);
  if (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "ElementSizeBytes = {} is not 4, 8 or 16",
                        ElementSizeBytes);
  constexpr size_t kPitchAlign = 512; // rows start on texture-pitch boundaries, as on GPUs
  size_t pitch = (WidthInBytes + kPitchAlign - 1) / kPitchAlign * kPitchAlign;
  if (pitch < WidthInBytes || Height > SIZE_MAX / pitch)
    return driver::fail(CUDA_ERROR_OUT_OF_MEMORY, "{} rows of {} bytes do not fit in memory",
                        Height, pitch);
  CUresult r = driver::memory().allocate(driver::current(), pitch * Height, dptr);
  if (r == CUDA_SUCCESS)
    *pPitch = pitch;
  return r;
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  return copy(dst, Side::Unified, src, Side::Unified, ByteCount);
}
CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  return cuMemcpy(dst, src, ByteCount);
}
CUresult cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                      CUcontext srcContext, size_t ByteCount) {
  return copyPeer(dstDevice, dstContext, srcDevice, srcContext, ByteCount);
}
CUresult cuMemcpyPeer_ptds(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                           CUcontext srcContext, size_t ByteCount) {
  return copyPeer(dstDevice, dstContext, srcDevice, srcContext, ByteCount);
}

// Launches and copies are synchronous, so the per-thread default stream behaves as the legacy
// one: the _ptds variants share the implementation.
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) {
  return cuMemcpyHtoD_v2(dstDevice, srcHost, ByteCount);
}
CUresult cuMemcpyDtoH_v2_ptds(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  return cuMemcpyDtoH_v2(dstHost, srcDevice, ByteCount);
}
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  return cuMemcpyDtoD_v2(dstDevice, srcDevice, ByteCount);
}
CUresult cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  return memsetN<uint8_t>(dstDevice, uc, N);
}
CUresult cuMemsetD16_v2_ptds(CUdeviceptr dstDevice, unsigned short us, size_t N) {
  return memsetN<uint16_t>(dstDevice, us, N);
}
CUresult cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  return memsetN<uint32_t>(dstDevice, ui, N);
}

CUresult cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width,
                         size_t Height) {
  return memset2D<uint8_t>(dstDevice, dstPitch, uc, Width, Height);
}
CUresult cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width,
                          size_t Height) {
  return memset2D<uint16_t>(dstDevice, dstPitch, us, Width, Height);
}
CUresult cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width,
                          size_t Height) {
  return memset2D<uint32_t>(dstDevice, dstPitch, ui, Width, Height);
}
CUresult cuMemsetD2D8_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
                              size_t Width, size_t Height) {
  return memset2D<uint8_t>(dstDevice, dstPitch, uc, Width, Height);
}
CUresult cuMemsetD2D16_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
                               size_t Width, size_t Height) {
  return memset2D<uint16_t>(dstDevice, dstPitch, us, Width, Height);
}
CUresult cuMemsetD2D32_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
                               size_t Width, size_t Height) {
  return memset2D<uint32_t>(dstDevice, dstPitch, ui, Width, Height);
}

} // namespace cucpu::api::impl
