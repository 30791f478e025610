// Entry points: strided copies (cuMemcpy2D, cuMemcpy3D and their peer and per-thread variants),
// and linear copies to and from CUDA arrays (cuMemcpyHtoA and the like) as one-row strided ones.
#include "checks.h"
#include "device_ptr.h"
#include "entry_points.h"
#include "graph_nodes.h"
#include "stream_ref.h"

#include "cucpu/driver/image.h"

#include <cstring>

namespace cucpu::api::impl {
namespace {

// One side of a strided copy, whatever descriptor it came from.
struct Side {
  CUmemorytype type;
  const void *host;
  CUdeviceptr device;
  CUarray array;
  size_t x, y, z, pitch, height;
  CUcontext ctx; // peer copies only
};

struct Copy {
  Side src, dst;
  size_t width, height, depth;
};

template <typename D> Side srcOf(const D &d) {
  return {d.srcMemoryType, d.srcHost, d.srcDevice, d.srcArray, d.srcXInBytes,
          d.srcY,          0,         d.srcPitch,  0,          nullptr};
}
template <typename D> Side dstOf(const D &d) {
  return {d.dstMemoryType, d.dstHost, d.dstDevice, d.dstArray, d.dstXInBytes,
          d.dstY,          0,         d.dstPitch,  0,          nullptr};
}

// An array side takes its pitch and height from the array; every row and slice must lie in it.
CUresult bindArray(Side &s, const Copy &c, std::shared_ptr<driver::Array> *keep) {
  if (s.type != CU_MEMORYTYPE_ARRAY)
    return CUDA_SUCCESS;
  auto a = driver::findArray(s.array);
  if (!a) // as NVIDIA's driver answers for a null array
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "a is NULL");
  const driver::ImageLevel l = a->level();
  s.pitch = l.pitch;
  s.height = l.height;
  if (s.x > l.pitch || c.width > l.pitch - s.x || s.y > l.height || c.height > l.height - s.y ||
      s.z > a->slices() || c.depth > a->slices() - s.z)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "the copy's region lies outside the array");
  s.host = a->data();
  *keep = std::move(a);
  return CUDA_SUCCESS;
}

// The address of the side's first byte after checking that every row lies in its memory.
CUresult resolve(const Side &s, const Copy &c, char **out) {
  const size_t rows = c.height, slices = c.depth;
  if ((rows > 1 || slices > 1) && s.pitch < s.x + c.width)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "pitch {} is less than the offset {} plus the width {}", s.pitch, s.x,
                        c.width);
  if (slices > 1 && s.height < s.y + rows)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "height {} is less than the offset {} plus the rows {}", s.height, s.y,
                        rows);
  const size_t slice = s.pitch * s.height;
  const size_t first = s.z * slice + s.y * s.pitch + s.x;
  const size_t extent = (slices - 1) * slice + (rows - 1) * s.pitch + c.width;
  CUdeviceptr base;
  switch (s.type) {
  case CU_MEMORYTYPE_HOST:
    if (!s.host)
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "the host pointer is NULL");
    *out = static_cast<char *>(const_cast<void *>(s.host)) + first;
    return CUDA_SUCCESS;
  case CU_MEMORYTYPE_DEVICE:
    base = s.device;
    if (!validDevice(base + first, extent))
      return driver::fail(CUDA_ERROR_INVALID_VALUE,
                          "[{:#x}, +{} bytes) is not inside one live allocation", base + first,
                          extent);
    break;
  case CU_MEMORYTYPE_UNIFIED:
    base = s.device;
    if (!validUnified(base + first, extent))
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "[{:#x}, +{} bytes) runs past its allocation",
                          base + first, extent);
    break;
  case CU_MEMORYTYPE_ARRAY: // bound by bindArray
    *out = static_cast<char *>(const_cast<void *>(s.host)) + first;
    return CUDA_SUCCESS;
  default:
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "s.type = {} is not a value this call takes",
                        static_cast<long long>(s.type));
  }
  *out = static_cast<char *>(hostPtr(base + first));
  return CUDA_SUCCESS;
}

void perform(const Copy &c, char *src, char *dst) {
  for (size_t z = 0; z < c.depth; ++z)
    for (size_t y = 0; y < c.height; ++y)
      std::memmove(dst + z * c.dst.pitch * c.dst.height + y * c.dst.pitch,
                   src + z * c.src.pitch * c.src.height + y * c.src.pitch, c.width);
}

// The copy checked against the memory it touches, ready to run (null when there is nothing to
// copy).
CUresult prepare(Copy c, driver::Work *out) {
  *out = nullptr;
  if (c.width == 0 || c.height == 0 || c.depth == 0)
    return CUDA_SUCCESS;
  std::shared_ptr<driver::Array> srcArray, dstArray;
  if (CUresult r = bindArray(c.src, c, &srcArray); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = bindArray(c.dst, c, &dstArray); r != CUDA_SUCCESS)
    return r;
  char *src, *dst;
  if (CUresult r = resolve(c.src, c, &src); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = resolve(c.dst, c, &dst); r != CUDA_SUCCESS)
    return r;
  *out = [c, src, dst, srcArray, dstArray] {
    perform(c, src, dst);
    return CUDA_SUCCESS;
  };
  return CUDA_SUCCESS;
}

// The descriptor a captured copy's node reports.
CUDA_MEMCPY3D descriptorOf(const Copy &c) {
  CUDA_MEMCPY3D d;
  std::memset(&d, 0, sizeof d);
  d.srcMemoryType = c.src.type;
  d.srcHost = c.src.host;
  d.srcDevice = c.src.device;
  d.srcArray = c.src.array;
  d.srcXInBytes = c.src.x;
  d.srcY = c.src.y;
  d.srcZ = c.src.z;
  d.srcPitch = c.src.pitch;
  d.srcHeight = c.src.height;
  d.dstMemoryType = c.dst.type;
  d.dstHost = const_cast<void *>(c.dst.host);
  d.dstDevice = c.dst.device;
  d.dstArray = c.dst.array;
  d.dstXInBytes = c.dst.x;
  d.dstY = c.dst.y;
  d.dstZ = c.dst.z;
  d.dstPitch = c.dst.pitch;
  d.dstHeight = c.dst.height;
  d.WidthInBytes = c.width;
  d.Height = c.height;
  d.Depth = c.depth;
  return d;
}

// Synchronous copies wait for the legacy default stream first; asynchronous ones (`stream`
// set) are checked now and run in the stream's order, or become a node of a capture.
CUresult run(Copy c, const CUstream *stream = nullptr, bool perThread = false) {
  driver::Context *ctx;
  driver::Stream *s = nullptr;
  if (stream) {
    if (CUresult r = contextAndStream(*stream, perThread, &ctx, &s); r != CUDA_SUCCESS)
      return r;
  } else {
    if (CUresult r = currentContext(&ctx); r != CUDA_SUCCESS)
      return r;
    if (CUresult r = driver::syncLegacy(ctx); r != CUDA_SUCCESS)
      return r;
  }
  driver::Work work;
  if (CUresult r = prepare(c, &work); r != CUDA_SUCCESS || !work)
    return r;
  if (!stream) {
    work();
    return ctx->stickyError();
  }
  bool captured;
  if (CUresult r =
          captureOr(s, &captured,
                    [&](driver::NodeSpec *n) { return copyNode(descriptorOf(c), ctx, work, n); });
      captured || r != CUDA_SUCCESS)
    return r;
  return submit(ctx, s, [work] { work(); });
}

CUresult copy2D(const CUDA_MEMCPY2D *p, const CUstream *stream = nullptr, bool pt = false) {
  if (CUresult r = check::context(); r != CUDA_SUCCESS) // before the descriptor, as an H200 checks
    return r;
  if (!p)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "the copy descriptor is NULL");
  return run({srcOf(*p), dstOf(*p), p->WidthInBytes, p->Height, 1}, stream, pt);
}

template <typename D> Copy copyOf3D(const D &d) {
  Copy c{srcOf(d), dstOf(d), d.WidthInBytes, d.Height, d.Depth};
  c.src.z = d.srcZ;
  c.src.height = d.srcHeight;
  c.dst.z = d.dstZ;
  c.dst.height = d.dstHeight;
  return c;
}

CUresult copy3D(const CUDA_MEMCPY3D *p, const CUstream *stream = nullptr, bool pt = false) {
  if (!p || p->srcLOD || p->dstLOD || p->reserved0 || p->reserved1)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "the descriptor is NULL, or its LOD or reserved fields are not 0");
  return run(copyOf3D(*p), stream, pt);
}

CUresult copy3DPeer(const CUDA_MEMCPY3D_PEER *p, const CUstream *stream = nullptr,
                    bool pt = false) {
  if (!p || p->srcLOD || p->dstLOD)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "the descriptor is NULL, or its LOD fields are not 0");
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!driver::isLiveContext(fromHandle(p->srcContext)) ||
      !driver::isLiveContext(fromHandle(p->dstContext)))
    return driver::fail(CUDA_ERROR_INVALID_CONTEXT, "srcContext or dstContext is not live");
  return run(copyOf3D(*p), stream, pt);
}

// A linear copy with an array on one or both ends: one row of a strided copy, so it must lie in
// the arrays' first rows (NVIDIA's driver refuses linear copies past them: they are for 1D
// arrays).
Side arraySide(CUarray a, size_t offset) {
  return {CU_MEMORYTYPE_ARRAY, nullptr, 0, a, offset, 0, 0, 0, 0, nullptr};
}
Side hostSide(const void *p) { return {CU_MEMORYTYPE_HOST, p, 0, nullptr, 0, 0, 0, 0, 0, nullptr}; }
Side deviceSide(CUdeviceptr p) {
  return {CU_MEMORYTYPE_DEVICE, nullptr, p, nullptr, 0, 0, 0, 0, 0, nullptr};
}
CUresult linear(const Side &dst, const Side &src, size_t bytes, const CUstream *stream = nullptr,
                bool perThread = false) {
  return run({src, dst, bytes, 1, 1}, stream, perThread);
}

} // namespace

CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy) { return copy2D(pCopy); }
CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *pCopy) { return copy2D(pCopy); }
CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *pCopy) { return copy2D(pCopy); }
CUresult cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *pCopy) { return copy2D(pCopy); }
CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *pCopy) { return copy3D(pCopy); }
CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *pCopy) { return copy3D(pCopy); }
CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *pCopy) { return copy3DPeer(pCopy); }
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy, CUstream h) { return copy2D(pCopy, &h); }
CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *pCopy, CUstream h) {
  return copy2D(pCopy, &h, true);
}
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *pCopy, CUstream h) { return copy3D(pCopy, &h); }
CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *pCopy, CUstream h) {
  return copy3D(pCopy, &h, true);
}
CUresult cuMemcpy3DPeer_ptds(const CUDA_MEMCPY3D_PEER *pCopy) { return copy3DPeer(pCopy); }
CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *pCopy, CUstream h) {
  return copy3DPeer(pCopy, &h);
}
CUresult cuMemcpy3DPeerAsync_ptsz(const CUDA_MEMCPY3D_PEER *pCopy, CUstream h) {
  return copy3DPeer(pCopy, &h, true);
}

CUresult cuMemcpyHtoA_v2(CUarray dstArray, size_t dstOffset, const void *srcHost,
                         size_t ByteCount) {
  return linear(arraySide(dstArray, dstOffset), hostSide(srcHost), ByteCount);
}
CUresult cuMemcpyHtoA_v2_ptds(CUarray dstArray, size_t dstOffset, const void *srcHost,
                              size_t ByteCount) {
  return linear(arraySide(dstArray, dstOffset), hostSide(srcHost), ByteCount);
}
CUresult cuMemcpyAtoH_v2(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount) {
  return linear(hostSide(dstHost), arraySide(srcArray, srcOffset), ByteCount);
}
CUresult cuMemcpyAtoH_v2_ptds(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount) {
  return linear(hostSide(dstHost), arraySide(srcArray, srcOffset), ByteCount);
}
CUresult cuMemcpyHtoAAsync_v2(CUarray dstArray, size_t dstOffset, const void *srcHost,
                              size_t ByteCount, CUstream hStream) {
  return linear(arraySide(dstArray, dstOffset), hostSide(srcHost), ByteCount, &hStream);
}
CUresult cuMemcpyHtoAAsync_v2_ptsz(CUarray dstArray, size_t dstOffset, const void *srcHost,
                                   size_t ByteCount, CUstream hStream) {
  return linear(arraySide(dstArray, dstOffset), hostSide(srcHost), ByteCount, &hStream, true);
}
CUresult cuMemcpyAtoHAsync_v2(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount,
                              CUstream hStream) {
  return linear(hostSide(dstHost), arraySide(srcArray, srcOffset), ByteCount, &hStream);
}
CUresult cuMemcpyAtoHAsync_v2_ptsz(void *dstHost, CUarray srcArray, size_t srcOffset,
                                   size_t ByteCount, CUstream hStream) {
  return linear(hostSide(dstHost), arraySide(srcArray, srcOffset), ByteCount, &hStream, true);
}
CUresult cuMemcpyDtoA_v2(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice,
                         size_t ByteCount) {
  return linear(arraySide(dstArray, dstOffset), deviceSide(srcDevice), ByteCount);
}
CUresult cuMemcpyDtoA_v2_ptds(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice,
                              size_t ByteCount) {
  return linear(arraySide(dstArray, dstOffset), deviceSide(srcDevice), ByteCount);
}
CUresult cuMemcpyAtoD_v2(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset,
                         size_t ByteCount) {
  return linear(deviceSide(dstDevice), arraySide(srcArray, srcOffset), ByteCount);
}
CUresult cuMemcpyAtoD_v2_ptds(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset,
                              size_t ByteCount) {
  return linear(deviceSide(dstDevice), arraySide(srcArray, srcOffset), ByteCount);
}
CUresult cuMemcpyAtoA_v2(CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset,
                         size_t ByteCount) {
  return linear(arraySide(dstArray, dstOffset), arraySide(srcArray, srcOffset), ByteCount);
}
CUresult cuMemcpyAtoA_v2_ptds(CUarray dstArray, size_t dstOffset, CUarray srcArray,
                              size_t srcOffset, size_t ByteCount) {
  return linear(arraySide(dstArray, dstOffset), arraySide(srcArray, srcOffset), ByteCount);
}

} // namespace cucpu::api::impl

namespace cucpu::api {

CUresult copyWork(const CUDA_MEMCPY3D &p, driver::Work *out) {
  if (p.srcLOD || p.dstLOD || p.reserved0 || p.reserved1)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "the descriptor's LOD or reserved fields are not 0");
  if (CUresult r = impl::prepare(impl::copyOf3D(p), out); r != CUDA_SUCCESS)
    return r;
  return *out ? CUDA_SUCCESS : driver::fail(CUDA_ERROR_INVALID_VALUE, "an empty copy");
}

CUresult copyNode(const CUDA_MEMCPY3D &p, driver::Context *ctx, driver::NodeSpec *out) {
  driver::Work work;
  if (CUresult r = copyWork(p, &work); r != CUDA_SUCCESS)
    return r;
  return copyNode(p, ctx, std::move(work), out);
}

} // namespace cucpu::api
