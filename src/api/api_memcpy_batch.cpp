// Entry points: batched copies (cuMemcpyBatchAsync, cuMemcpy3DBatchAsync, both ABIs). Each copy
// is checked as its single-copy form is, with NVIDIA's additional rules (attribute ranges, source
// access orders, no legacy stream), then the batch runs as one operation of the stream. Recorded
// on an H200: tests/gpu/answers/memcpy_batch.txt.
#include "cucpu/driver/capture.h"
#include "cucpu/driver/image.h"
#include "cucpu/support/log.h"
#include "device_ptr.h"
#include "entry_points.h"
#include "graph_nodes.h"
#include "stream_ref.h"

#include <cstring>
#include <memory>
#include <vector>

namespace cucpu::api::impl {
namespace {

constexpr size_t kNoIndex = SIZE_MAX; // failIdx when no single copy is to blame

// The stream of a batch: not the legacy one. Batches cannot be captured: NVIDIA's driver answers
// STREAM_CAPTURE_UNSUPPORTED and leaves the capture as it was.
CUresult batchStream(CUstream h, bool perThread, driver::Context **c, driver::Stream **s) {
  if (CUresult r = contextAndStream(h, perThread, c, s); r != CUDA_SUCCESS)
    return r;
  if ((*s)->legacy())
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "a batch cannot be queued on the legacy stream");
  if (driver::capturing(*s))
    return driver::fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "a batch cannot be captured");
  return CUDA_SUCCESS;
}

bool validOrder(CUmemcpySrcAccessOrder order) {
  return order == CU_MEMCPY_SRC_ACCESS_ORDER_STREAM ||
         order == CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL ||
         order == CU_MEMCPY_SRC_ACCESS_ORDER_ANY;
}

// The work of copies whose sources are read during the call, and of the others in stream order.
struct Batch {
  std::vector<driver::Work> works;
  CUresult run(driver::Context *c, driver::Stream *s) {
    auto all = std::make_shared<std::vector<driver::Work>>(std::move(works));
    return submit(c, s, [all] {
      for (const auto &w : *all)
        w();
    });
  }
};

// A linear copy; a source read during the call is staged now.
driver::Work linearWork(CUdeviceptr dst, CUdeviceptr src, size_t bytes, bool duringCall) {
  if (duringCall) {
    auto staged =
        std::make_shared<std::vector<uint8_t>>(static_cast<const uint8_t *>(hostPtr(src)),
                                               static_cast<const uint8_t *>(hostPtr(src)) + bytes);
    return [dst, staged] {
      std::memcpy(hostPtr(dst), staged->data(), staged->size());
      return CUDA_SUCCESS;
    };
  }
  return [dst, src, bytes] {
    std::memmove(hostPtr(dst), hostPtr(src), bytes);
    return CUDA_SUCCESS;
  };
}

CUresult batch(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
               CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, size_t *failIdx,
               CUstream h, bool perThread) {
  if (failIdx)
    *failIdx = kNoIndex;
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = batchStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (count == 0 || !dsts || !srcs || !sizes || !attrs || !attrsIdxs || numAttrs == 0 ||
      numAttrs > count || attrsIdxs[0] != 0)
    return driver::fail(
        CUDA_ERROR_INVALID_VALUE,
        "an empty batch, a NULL array, or attribute indices that do not start at 0");
  for (size_t k = 0; k < numAttrs; ++k) {
    if ((k && attrsIdxs[k] <= attrsIdxs[k - 1]) || attrsIdxs[k] >= count ||
        !validOrder(attrs[k].srcAccessOrder) ||
        (attrs[k].flags & ~unsigned(CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE)))
      return driver::fail(CUDA_ERROR_INVALID_VALUE,
                          "attributes {}: index out of order or range, or unknown order or flags",
                          k);
  }
  Batch b;
  size_t k = 0;
  for (size_t i = 0; i < count; ++i) {
    while (k + 1 < numAttrs && attrsIdxs[k + 1] <= i)
      ++k;
    if (sizes[i] == 0 || !validUnified(dsts[i], sizes[i]) || !validUnified(srcs[i], sizes[i])) {
      if (failIdx)
        *failIdx = i;
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "copy {} ({} bytes) is invalid", i, sizes[i]);
    }
    b.works.push_back(
        linearWork(dsts[i], srcs[i], sizes[i],
                   attrs[k].srcAccessOrder == CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL));
  }
  return b.run(c, s);
}

// The bytes per element of a 3D operation: 1 between pointers, else the arrays' (which must
// agree); 0 when an array operand names no array.
unsigned elementBytes(const CUDA_MEMCPY3D_BATCH_OP &op) {
  unsigned bytes = 1;
  bool array = false;
  for (const CUmemcpy3DOperand *o : {&op.src, &op.dst}) {
    if (o->type != CU_MEMCPY_OPERAND_TYPE_ARRAY)
      continue;
    auto a = driver::findArray(o->op.array.array);
    if (!a || (array && a->elementBytes() != bytes))
      return 0;
    bytes = a->elementBytes();
    array = true;
  }
  return bytes;
}

// One side of a 3D operation as a CUDA_MEMCPY3D side; false if the operand is malformed.
bool side(const CUmemcpy3DOperand &o, const CUextent3D &e, unsigned elem, CUmemorytype *type,
          CUdeviceptr *ptr, CUarray *array, size_t *x, size_t *y, size_t *z, size_t *pitch,
          size_t *height) {
  if (o.type == CU_MEMCPY_OPERAND_TYPE_POINTER) {
    const size_t rowLength = o.op.ptr.rowLength, layerHeight = o.op.ptr.layerHeight;
    if ((rowLength && rowLength < e.width) || (layerHeight && layerHeight < e.height))
      return false;
    *type = CU_MEMORYTYPE_UNIFIED;
    *ptr = o.op.ptr.ptr;
    *pitch = (rowLength ? rowLength : e.width) * elem;
    *height = layerHeight ? layerHeight : e.height;
    return true;
  }
  if (o.type == CU_MEMCPY_OPERAND_TYPE_ARRAY) {
    *type = CU_MEMORYTYPE_ARRAY;
    *array = o.op.array.array;
    *x = o.op.array.offset.x * elem;
    *y = o.op.array.offset.y;
    *z = o.op.array.offset.z;
    return true;
  }
  return false;
}

// A 3D operation as the descriptor cuMemcpy3D takes.
CUresult descriptor(const CUDA_MEMCPY3D_BATCH_OP &op, CUDA_MEMCPY3D *d) {
  std::memset(d, 0, sizeof *d);
  const CUextent3D &e = op.extent;
  const unsigned elem = elementBytes(op);
  if (!e.width || !e.height || !e.depth || !elem || !validOrder(op.srcAccessOrder) ||
      (op.flags & ~unsigned(CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE)))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "an empty extent or element, or unknown order or flags");
  CUdeviceptr src = 0, dst = 0;
  if (!side(op.src, e, elem, &d->srcMemoryType, &src, &d->srcArray, &d->srcXInBytes, &d->srcY,
            &d->srcZ, &d->srcPitch, &d->srcHeight) ||
      !side(op.dst, e, elem, &d->dstMemoryType, &dst, &d->dstArray, &d->dstXInBytes, &d->dstY,
            &d->dstZ, &d->dstPitch, &d->dstHeight))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "the source or destination operand is invalid");
  d->srcDevice = src;
  d->dstDevice = dst;
  d->WidthInBytes = e.width * elem;
  d->Height = e.height;
  d->Depth = e.depth;
  return CUDA_SUCCESS;
}

// A copy whose source is read during the call: the source rows are copied to a buffer now (same
// layout), and the work copies from there.
CUresult staged(CUDA_MEMCPY3D d, driver::Work *work) {
  const size_t extent =
      (d.Depth - 1) * d.srcPitch * d.srcHeight + (d.Height - 1) * d.srcPitch + d.WidthInBytes;
  const auto *from = static_cast<const uint8_t *>(hostPtr(d.srcDevice));
  auto buffer = std::make_shared<std::vector<uint8_t>>(from, from + extent);
  d.srcMemoryType = CU_MEMORYTYPE_HOST;
  d.srcHost = buffer->data();
  d.srcDevice = 0;
  driver::Work inner;
  if (CUresult r = copyWork(d, &inner); r != CUDA_SUCCESS)
    return r;
  *work = [buffer, inner = std::move(inner)] { return inner(); };
  return CUDA_SUCCESS;
}

CUresult batch3D(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *ops, size_t *failIdx,
                 unsigned long long flags, CUstream h, bool perThread) {
  if (failIdx)
    *failIdx = kNoIndex;
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = batchStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (numOps == 0 || !ops || flags != 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "numOps is 0, ops is NULL or flags = {:#x} is not 0", flags);
  Batch b;
  for (size_t i = 0; i < numOps; ++i) {
    CUDA_MEMCPY3D d;
    driver::Work work;
    CUresult r = descriptor(ops[i], &d);
    if (r == CUDA_SUCCESS)
      r = copyWork(d, &work);
    if (r == CUDA_SUCCESS && ops[i].srcAccessOrder == CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL &&
        d.srcMemoryType != CU_MEMORYTYPE_ARRAY)
      r = staged(d, &work);
    if (r != CUDA_SUCCESS) {
      if (failIdx)
        *failIdx = i;
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "operation {} is invalid", i);
    }
    b.works.push_back(std::move(work));
  }
  return b.run(c, s);
}

} // namespace

CUresult cuMemcpyBatchAsync(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                            CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                            size_t *failIdx, CUstream h) {
  return batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, h, false);
}
CUresult cuMemcpyBatchAsync_ptsz(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                                 CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                                 size_t *failIdx, CUstream h) {
  return batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, h, true);
}
CUresult cuMemcpyBatchAsync_v2(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                               CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                               CUstream h) {
  return batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, nullptr, h, false);
}
CUresult cuMemcpyBatchAsync_v2_ptsz(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes,
                                    size_t count, CUmemcpyAttributes *attrs, size_t *attrsIdxs,
                                    size_t numAttrs, CUstream h) {
  return batch(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, nullptr, h, true);
}
CUresult cuMemcpy3DBatchAsync(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *ops, size_t *failIdx,
                              unsigned long long flags, CUstream h) {
  return batch3D(numOps, ops, failIdx, flags, h, false);
}
CUresult cuMemcpy3DBatchAsync_ptsz(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *ops, size_t *failIdx,
                                   unsigned long long flags, CUstream h) {
  return batch3D(numOps, ops, failIdx, flags, h, true);
}
CUresult cuMemcpy3DBatchAsync_v2(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *ops,
                                 unsigned long long flags, CUstream h) {
  return batch3D(numOps, ops, nullptr, flags, h, false);
}
CUresult cuMemcpy3DBatchAsync_v2_ptsz(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *ops,
                                      unsigned long long flags, CUstream h) {
  return batch3D(numOps, ops, nullptr, flags, h, true);
}

} // namespace cucpu::api::impl
