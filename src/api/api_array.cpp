// Entry points: CUDA arrays and mipmapped arrays, and linear copies to and from arrays.
#include "device_ptr.h"
#include "entry.h"
#include "entry_points.h"
#include "stream_ref.h"

#include "cucpu/driver/image.h"
#include "cucpu/driver/stream.h"

#include <cstring>

namespace cucpu::api::impl {
namespace {

CUresult arrayOf(CUarray h, std::shared_ptr<driver::Array> *out) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  *out = driver::findArray(h);
  return *out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult create3D(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!out || !d)
    return CUDA_ERROR_INVALID_VALUE;
  std::shared_ptr<driver::Array> a;
  if (CUresult r = driver::Array::create(c, *d, &a); r != CUDA_SUCCESS)
    return r;
  return driver::registerArray(std::move(a), out);
}

// `bytes` bytes at byte `offset` of an array's first row (NVIDIA's driver refuses linear copies
// past it: they are meant for 1D arrays).
CUresult arrayBytes(CUarray h, size_t offset, size_t bytes, uint8_t **out,
                    std::shared_ptr<driver::Array> *keep = nullptr) {
  std::shared_ptr<driver::Array> a;
  if (CUresult r = arrayOf(h, &a); r != CUDA_SUCCESS)
    return r;
  const size_t row = a->level().pitch;
  if (offset > row || bytes > row - offset)
    return CUDA_ERROR_INVALID_VALUE;
  *out = a->data() + offset;
  if (keep)
    *keep = std::move(a);
  return CUDA_SUCCESS;
}

// A copy with an array on one or both ends; synchronous ones wait for the legacy stream, those
// given a stream run in its order (holding the array until then).
CUresult copyArray(uint8_t *dst, const uint8_t *src, size_t bytes, const CUstream *stream,
                   bool perThread, std::shared_ptr<driver::Array> keep = nullptr) {
  driver::Context *ctx;
  driver::Stream *s = nullptr;
  if (stream) {
    if (CUresult r = contextAndStream(*stream, perThread, &ctx, &s); r != CUDA_SUCCESS)
      return r;
    return submit(ctx, s, [=, keep = std::move(keep)] { std::memmove(dst, src, bytes); });
  }
  if (CUresult r = currentContext(&ctx); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::syncLegacy(ctx); r != CUDA_SUCCESS)
    return r;
  std::memmove(dst, src, bytes);
  return ctx->stickyError();
}

CUresult htoA(CUarray dst, size_t off, const void *src, size_t n, const CUstream *st = nullptr,
              bool pt = false) {
  uint8_t *d;
  std::shared_ptr<driver::Array> keep;
  if (CUresult r = arrayBytes(dst, off, n, &d, &keep); r != CUDA_SUCCESS)
    return r;
  if (!src && n)
    return CUDA_ERROR_INVALID_VALUE;
  return copyArray(d, static_cast<const uint8_t *>(src), n, st, pt, std::move(keep));
}

CUresult aToH(void *dst, CUarray src, size_t off, size_t n, const CUstream *st = nullptr,
              bool pt = false) {
  uint8_t *s;
  std::shared_ptr<driver::Array> keep;
  if (CUresult r = arrayBytes(src, off, n, &s, &keep); r != CUDA_SUCCESS)
    return r;
  if (!dst && n)
    return CUDA_ERROR_INVALID_VALUE;
  return copyArray(static_cast<uint8_t *>(dst), s, n, st, pt, std::move(keep));
}

CUresult dtoA(CUarray dst, size_t off, CUdeviceptr src, size_t n) {
  uint8_t *d;
  if (CUresult r = arrayBytes(dst, off, n, &d); r != CUDA_SUCCESS)
    return r;
  if (n && !validDevice(src, n))
    return CUDA_ERROR_INVALID_VALUE;
  return copyArray(d, static_cast<const uint8_t *>(hostPtr(src)), n, nullptr, false);
}

CUresult aToD(CUdeviceptr dst, CUarray src, size_t off, size_t n) {
  uint8_t *s;
  if (CUresult r = arrayBytes(src, off, n, &s); r != CUDA_SUCCESS)
    return r;
  if (n && !validDevice(dst, n))
    return CUDA_ERROR_INVALID_VALUE;
  return copyArray(static_cast<uint8_t *>(hostPtr(dst)), s, n, nullptr, false);
}

CUresult aToA(CUarray dst, size_t dstOff, CUarray src, size_t srcOff, size_t n) {
  uint8_t *d, *s;
  if (CUresult r = arrayBytes(dst, dstOff, n, &d); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = arrayBytes(src, srcOff, n, &s); r != CUDA_SUCCESS)
    return r;
  return copyArray(d, s, n, nullptr, false);
}

} // namespace

CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray) {
  if (!pAllocateArray)
    return requireInit() != CUDA_SUCCESS ? requireInit() : CUDA_ERROR_INVALID_VALUE;
  CUDA_ARRAY3D_DESCRIPTOR d{};
  d.Width = pAllocateArray->Width;
  d.Height = pAllocateArray->Height;
  d.Format = pAllocateArray->Format;
  d.NumChannels = pAllocateArray->NumChannels;
  return create3D(pHandle, &d);
}

CUresult cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray) {
  return create3D(pHandle, pAllocateArray);
}

CUresult cuArrayDestroy(CUarray hArray) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  return driver::destroyArray(hArray);
}

CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor, CUarray hArray) {
  std::shared_ptr<driver::Array> a;
  if (CUresult r = arrayOf(hArray, &a); r != CUDA_SUCCESS)
    return r;
  if (!pArrayDescriptor)
    return CUDA_ERROR_INVALID_VALUE;
  const auto &d = a->descriptor();
  pArrayDescriptor->Width = d.Width;
  pArrayDescriptor->Height = d.Height;
  pArrayDescriptor->Format = d.Format;
  pArrayDescriptor->NumChannels = d.NumChannels;
  return CUDA_SUCCESS;
}

CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor, CUarray hArray) {
  std::shared_ptr<driver::Array> a;
  if (CUresult r = arrayOf(hArray, &a); r != CUDA_SUCCESS)
    return r;
  if (!pArrayDescriptor)
    return CUDA_ERROR_INVALID_VALUE;
  *pArrayDescriptor = a->descriptor();
  return CUDA_SUCCESS;
}

CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle,
                                const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
                                unsigned int numMipmapLevels) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (!pHandle || !pMipmappedArrayDesc)
    return CUDA_ERROR_INVALID_VALUE;
  std::shared_ptr<driver::MipmappedArray> m;
  if (CUresult r = driver::MipmappedArray::create(c, *pMipmappedArrayDesc, numMipmapLevels, &m);
      r != CUDA_SUCCESS)
    return r;
  return driver::registerMipmappedArray(std::move(m), pHandle);
}

CUresult cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  return driver::destroyMipmappedArray(hMipmappedArray);
}

CUresult cuMipmappedArrayGetLevel(CUarray *pLevelArray, CUmipmappedArray hMipmappedArray,
                                  unsigned int level) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  auto m = driver::findMipmappedArray(hMipmappedArray);
  if (!m)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!pLevelArray || level >= m->levels().size())
    return CUDA_ERROR_INVALID_VALUE;
  *pLevelArray = reinterpret_cast<CUarray>(m->levels()[level].get());
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoA_v2(CUarray dstArray, size_t dstOffset, const void *srcHost,
                         size_t ByteCount) {
  return htoA(dstArray, dstOffset, srcHost, ByteCount);
}
CUresult cuMemcpyHtoA_v2_ptds(CUarray dstArray, size_t dstOffset, const void *srcHost,
                              size_t ByteCount) {
  return htoA(dstArray, dstOffset, srcHost, ByteCount);
}
CUresult cuMemcpyAtoH_v2(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount) {
  return aToH(dstHost, srcArray, srcOffset, ByteCount);
}
CUresult cuMemcpyAtoH_v2_ptds(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount) {
  return aToH(dstHost, srcArray, srcOffset, ByteCount);
}
CUresult cuMemcpyHtoAAsync_v2(CUarray dstArray, size_t dstOffset, const void *srcHost,
                              size_t ByteCount, CUstream hStream) {
  return htoA(dstArray, dstOffset, srcHost, ByteCount, &hStream);
}
CUresult cuMemcpyHtoAAsync_v2_ptsz(CUarray dstArray, size_t dstOffset, const void *srcHost,
                                   size_t ByteCount, CUstream hStream) {
  return htoA(dstArray, dstOffset, srcHost, ByteCount, &hStream, true);
}
CUresult cuMemcpyAtoHAsync_v2(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount,
                              CUstream hStream) {
  return aToH(dstHost, srcArray, srcOffset, ByteCount, &hStream);
}
CUresult cuMemcpyAtoHAsync_v2_ptsz(void *dstHost, CUarray srcArray, size_t srcOffset,
                                   size_t ByteCount, CUstream hStream) {
  return aToH(dstHost, srcArray, srcOffset, ByteCount, &hStream, true);
}
CUresult cuMemcpyDtoA_v2(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice,
                         size_t ByteCount) {
  return dtoA(dstArray, dstOffset, srcDevice, ByteCount);
}
CUresult cuMemcpyDtoA_v2_ptds(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice,
                              size_t ByteCount) {
  return dtoA(dstArray, dstOffset, srcDevice, ByteCount);
}
CUresult cuMemcpyAtoD_v2(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset,
                         size_t ByteCount) {
  return aToD(dstDevice, srcArray, srcOffset, ByteCount);
}
CUresult cuMemcpyAtoD_v2_ptds(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset,
                              size_t ByteCount) {
  return aToD(dstDevice, srcArray, srcOffset, ByteCount);
}
CUresult cuMemcpyAtoA_v2(CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset,
                         size_t ByteCount) {
  return aToA(dstArray, dstOffset, srcArray, srcOffset, ByteCount);
}
CUresult cuMemcpyAtoA_v2_ptds(CUarray dstArray, size_t dstOffset, CUarray srcArray,
                              size_t srcOffset, size_t ByteCount) {
  return aToA(dstArray, dstOffset, srcArray, srcOffset, ByteCount);
}

} // namespace cucpu::api::impl
