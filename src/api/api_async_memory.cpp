// Entry points: stream-ordered copies, memsets and allocations; managed allocations and their
// attachment to streams (advice and prefetches are in api_managed_memory.cpp).
#include "cucpu/driver/capture.h"
#include "cucpu/driver/context.h"
#include "cucpu/driver/mem_pool.h"
#include "device_ptr.h"
#include "entry_points.h"
#include "graph_nodes.h"
#include "stream_ref.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

namespace cucpu::api::impl {
namespace {

CUdeviceptr addr(const void *p) { return reinterpret_cast<uintptr_t>(p); }

// Host memory the driver does not know: neither page-locked, registered, managed nor device.
bool pageable(CUdeviceptr p) {
  driver::Allocation a;
  return !driver::memory().find(p, 0, &a);
}

CUmemorytype memoryType(Side side) {
  return side == Side::Device ? CU_MEMORYTYPE_DEVICE
         : side == Side::Host ? CU_MEMORYTYPE_HOST
                              : CU_MEMORYTYPE_UNIFIED;
}

// How a captured linear copy's node describes it.
CUDA_MEMCPY3D linearCopy(CUdeviceptr dst, Side dstSide, CUdeviceptr src, Side srcSide,
                         size_t bytes) {
  CUDA_MEMCPY3D d;
  std::memset(&d, 0, sizeof d);
  d.srcMemoryType = memoryType(srcSide);
  d.dstMemoryType = memoryType(dstSide);
  if (srcSide == Side::Host)
    d.srcHost = hostPtr(src);
  else
    d.srcDevice = src;
  if (dstSide == Side::Host)
    d.dstHost = hostPtr(dst);
  else
    d.dstDevice = dst;
  d.WidthInBytes = bytes;
  d.Height = d.Depth = 1;
  return d;
}

// A memset of `height` rows of `width` elements of T, in stream order or captured.
template <typename T>
CUresult memsetRows(driver::Context *c, driver::Stream *s, CUdeviceptr dst, size_t pitch, T value,
                    size_t width, size_t height) {
  CUDA_MEMSET_NODE_PARAMS p{dst, pitch, value, sizeof(T), width, height};
  driver::NodeSpec spec;
  if (CUresult r = memsetNode(p, c, &spec); r != CUDA_SUCCESS)
    return r;
  bool captured;
  if (CUresult r = captureOr(s, &captured,
                             [&](driver::NodeSpec *n) {
                               *n = spec;
                               return CUDA_SUCCESS;
                             });
      captured || r != CUDA_SUCCESS)
    return r;
  return submit(c, s, [work = std::move(spec.work)] { work(); });
}

// The documented synchronisation of asynchronous copies with pageable host memory: a copy from
// it is staged before the call returns (the caller may reuse the buffer at once), and a copy into
// it returns only once the data has arrived (numba reads such a buffer right after the call).
CUresult copy(CUdeviceptr dst, Side dstSide, CUdeviceptr src, Side srcSide, size_t bytes,
              CUstream h, bool perThread) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (bytes == 0)
    return CUDA_SUCCESS;
  if (CUresult r = checkRange(dst, bytes, dstSide, "dst"); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = checkRange(src, bytes, srcSide, "src"); r != CUDA_SUCCESS)
    return r;
  bool captured;
  if (CUresult r = captureOr(s, &captured,
                             [&](driver::NodeSpec *n) {
                               return copyNode(
                                   linearCopy(dst, dstSide, src, srcSide, bytes), c,
                                   [dst, src, bytes] {
                                     std::memmove(hostPtr(dst), hostPtr(src), bytes);
                                     return CUDA_SUCCESS;
                                   },
                                   n);
                             });
      captured || r != CUDA_SUCCESS)
    return r;
  if (srcSide != Side::Device && pageable(src)) {
    auto staged =
        std::make_shared<std::vector<uint8_t>>(static_cast<const uint8_t *>(hostPtr(src)),
                                               static_cast<const uint8_t *>(hostPtr(src)) + bytes);
    return submit(c, s,
                  [dst, staged] { std::memcpy(hostPtr(dst), staged->data(), staged->size()); });
  }
  const unsigned long long seq =
      s->enqueue([dst, src, bytes] { std::memmove(hostPtr(dst), hostPtr(src), bytes); });
  if (dstSide != Side::Device && pageable(dst))
    s->progress()->waitFor(seq);
  return c->stickyError();
}

template <typename T> CUresult memset(CUdeviceptr dst, T value, size_t n, CUstream h, bool pt) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, pt, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (n == 0)
    return CUDA_SUCCESS;
  if (CUresult r = checkElements(dst, sizeof(T), n, "dstDevice"); r != CUDA_SUCCESS)
    return r;
  return memsetRows<T>(c, s, dst, n * sizeof(T), value, n, 1);
}

// Width elements of T in each of Height rows `pitch` bytes apart, in stream order.
template <typename T>
CUresult memset2D(CUdeviceptr dst, size_t pitch, T value, size_t width, size_t height, CUstream h,
                  bool pt) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, pt, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (width == 0 || height == 0)
    return CUDA_SUCCESS;
  if (CUresult r = checkRows(dst, pitch, sizeof(T), width, height, "dstDevice"); r != CUDA_SUCCESS)
    return r;
  return memsetRows<T>(c, s, dst, pitch, value, width, height);
}

CUresult allocAsync(CUdeviceptr *dptr, size_t bytes, CUstream h, bool perThread) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (!dptr)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "dptr is NULL");
  if (bytes == 0) { // as NVIDIA's driver: nothing allocated, no error
    *dptr = 0;
    return CUDA_SUCCESS;
  }
  bool captured;
  if (CUresult r = captureOr(
          s, &captured, [&](driver::NodeSpec *n) { return captureAllocation(c, bytes, dptr, n); });
      captured || r != CUDA_SUCCESS)
    return r;
  // The device's current pool hands out memory at once; it is usable in stream order.
  return driver::currentPool(driver::devicePlace(c->device()))->allocate(c, bytes, dptr);
}

CUresult freeAsync(CUdeviceptr dptr, CUstream h, bool perThread) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (dptr == 0) // freeing nothing is allowed, as with the driver
    return CUDA_SUCCESS;
  bool captured;
  if (CUresult r =
          captureOr(s, &captured, [&](driver::NodeSpec *n) { return memFreeNode(dptr, n); });
      captured || r != CUDA_SUCCESS)
    return r;
  driver::Allocation a;
  if (!driver::memory().find(dptr, 1, &a) || a.base != dptr || a.kind != driver::MemoryKind::Device)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "{:#x} is not the start of a live device allocation", dptr);
  if (a.pool)
    a.pool->unuse(a.size);
  return submit(c, s, [dptr] { driver::memory().freeInStreamOrder(dptr); });
}

// Managed memory is host memory that every stream and the host may touch at any time: attaching
// it to a stream changes nothing on a CPU, but the arguments are checked as the driver does.
CUresult attachMem(CUstream h, CUdeviceptr p, size_t length, unsigned flags, bool perThread) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::uncapturable(s, "a managed memory attachment"); r != CUDA_SUCCESS)
    return r;
  if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST && flags != CU_MEM_ATTACH_SINGLE)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "flags = {:#x} is not GLOBAL, HOST or SINGLE",
                        flags);
  if (flags == CU_MEM_ATTACH_SINGLE && !h) // a single stream, not the NULL stream
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "CU_MEM_ATTACH_SINGLE needs a stream other than the NULL stream");
  // The whole managed allocation starting at p (length 0 means all of it).
  driver::Allocation a;
  if (!driver::memory().find(p, 0, &a) || !a.managed || a.base != p ||
      (length != 0 && length != a.size))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "{:#x} is not the start of a managed allocation of {} bytes", p, length);
  return CUDA_SUCCESS;
}

} // namespace

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream h) {
  return copy(dst, Side::Device, addr(src), Side::Host, n, h, false);
}
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void *src, size_t n, CUstream h) {
  return copy(dst, Side::Device, addr(src), Side::Host, n, h, true);
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream h) {
  return copy(addr(dst), Side::Host, src, Side::Device, n, h, false);
}
CUresult cuMemcpyDtoHAsync_v2_ptsz(void *dst, CUdeviceptr src, size_t n, CUstream h) {
  return copy(addr(dst), Side::Host, src, Side::Device, n, h, true);
}
namespace {
// Every context's memory is one address space: a copy between contexts is a device copy.
CUresult copyPeerAsync(CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src, CUcontext srcCtx,
                       size_t bytes, CUstream h, bool perThread) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  // A null context is the current one, as an H200 answers (tests/gpu/record_stream_memops.cpp).
  if ((dstCtx && !driver::isLiveContext(fromHandle(dstCtx))) ||
      (srcCtx && !driver::isLiveContext(fromHandle(srcCtx))))
    return driver::fail(CUDA_ERROR_INVALID_CONTEXT, "dstContext or srcContext is not live");
  return copy(dst, Side::Device, src, Side::Device, bytes, h, perThread);
}
} // namespace

CUresult cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                           CUcontext srcContext, size_t ByteCount, CUstream hStream) {
  return copyPeerAsync(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream, false);
}
CUresult cuMemcpyPeerAsync_ptsz(CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                                CUcontext srcContext, size_t ByteCount, CUstream hStream) {
  return copyPeerAsync(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream, true);
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h) {
  return copy(dst, Side::Device, src, Side::Device, n, h, false);
}
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h) {
  return copy(dst, Side::Device, src, Side::Device, n, h, true);
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h) {
  return copy(dst, Side::Unified, src, Side::Unified, n, h, false);
}
CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h) {
  return copy(dst, Side::Unified, src, Side::Unified, n, h, true);
}

CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream h) {
  return memset(d, v, n, h, false);
}
CUresult cuMemsetD8Async_ptsz(CUdeviceptr d, unsigned char v, size_t n, CUstream h) {
  return memset(d, v, n, h, true);
}
CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream h) {
  return memset(d, v, n, h, false);
}
CUresult cuMemsetD16Async_ptsz(CUdeviceptr d, unsigned short v, size_t n, CUstream h) {
  return memset(d, v, n, h, true);
}
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream h) {
  return memset(d, v, n, h, false);
}
CUresult cuMemsetD32Async_ptsz(CUdeviceptr d, unsigned int v, size_t n, CUstream h) {
  return memset(d, v, n, h, true);
}

CUresult cuMemsetD2D8Async(CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t hgt,
                           CUstream h) {
  return memset2D<uint8_t>(d, pitch, v, w, hgt, h, false);
}
CUresult cuMemsetD2D8Async_ptsz(CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t hgt,
                                CUstream h) {
  return memset2D<uint8_t>(d, pitch, v, w, hgt, h, true);
}
CUresult cuMemsetD2D16Async(CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t hgt,
                            CUstream h) {
  return memset2D<uint16_t>(d, pitch, v, w, hgt, h, false);
}
CUresult cuMemsetD2D16Async_ptsz(CUdeviceptr d, size_t pitch, unsigned short v, size_t w,
                                 size_t hgt, CUstream h) {
  return memset2D<uint16_t>(d, pitch, v, w, hgt, h, true);
}
CUresult cuMemsetD2D32Async(CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t hgt,
                            CUstream h) {
  return memset2D<uint32_t>(d, pitch, v, w, hgt, h, false);
}
CUresult cuMemsetD2D32Async_ptsz(CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t hgt,
                                 CUstream h) {
  return memset2D<uint32_t>(d, pitch, v, w, hgt, h, true);
}

CUresult cuStreamAttachMemAsync(CUstream h, CUdeviceptr p, size_t length, unsigned int flags) {
  return attachMem(h, p, length, flags, false);
}
CUresult cuStreamAttachMemAsync_ptsz(CUstream h, CUdeviceptr p, size_t length, unsigned int flags) {
  return attachMem(h, p, length, flags, true);
}

CUresult cuMemAllocAsync(CUdeviceptr *p, size_t n, CUstream h) {
  return allocAsync(p, n, h, false);
}
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *p, size_t n, CUstream h) {
  return allocAsync(p, n, h, true);
}
CUresult cuMemFreeAsync(CUdeviceptr p, CUstream h) { return freeAsync(p, h, false); }
CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream h) { return freeAsync(p, h, true); }

CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags) {
  if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST) // both bits: neither
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "flags = {:#x} is not GLOBAL or HOST", flags);
  return driver::memory().allocate(driver::current(), bytesize, dptr, /*managed=*/true);
}

} // namespace cucpu::api::impl
