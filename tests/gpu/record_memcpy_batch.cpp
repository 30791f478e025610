// Records NVIDIA's batched copies: cuMemcpyBatchAsync (pointer to pointer, attributes applying to
// ranges of copies, source access orders, the failing index of the first ABI) and
// cuMemcpy3DBatchAsync (pointers with row lengths and layer heights, CUDA arrays), their
// refusals, and what a capture makes of them. Its output on cucpu must equal the GPU's
// (tests/gpu/answers/memcpy_batch.txt, compared by the ctest api_memcpy_batch_answers).
// Usage: record_memcpy_batch
#include "record.h"

#include <cuda.h>

#include <cstring>
#include <vector>

// The CUDA 12.8 ABI of both entry points, with the failing copy's index; cuda.h names the newer
// one.
extern "C" CUresult cuMemcpyBatchAsync_v1(CUdeviceptr *, CUdeviceptr *, size_t *, size_t,
                                          CUmemcpyAttributes *, size_t *, size_t, size_t *,
                                          CUstream) __asm__("cuMemcpyBatchAsync");
extern "C" CUresult cuMemcpy3DBatchAsync_v1(size_t, CUDA_MEMCPY3D_BATCH_OP *, size_t *,
                                            unsigned long long,
                                            CUstream) __asm__("cuMemcpy3DBatchAsync");

namespace {

CUmemcpyAttributes attr(CUmemcpySrcAccessOrder order, unsigned flags = 0) {
  CUmemcpyAttributes a;
  std::memset(&a, 0, sizeof a);
  a.srcAccessOrder = order;
  a.flags = flags;
  return a;
}

CUmemcpy3DOperand pointer(CUdeviceptr p, size_t rowLength, size_t layerHeight) {
  CUmemcpy3DOperand o;
  std::memset(&o, 0, sizeof o);
  o.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
  o.op.ptr.ptr = p;
  o.op.ptr.rowLength = rowLength;
  o.op.ptr.layerHeight = layerHeight;
  return o;
}

CUmemcpy3DOperand array(CUarray a, size_t x, size_t y) {
  CUmemcpy3DOperand o;
  std::memset(&o, 0, sizeof o);
  o.type = CU_MEMCPY_OPERAND_TYPE_ARRAY;
  o.op.array.array = a;
  o.op.array.offset = {x, y, 0};
  return o;
}

CUDA_MEMCPY3D_BATCH_OP op3(CUmemcpy3DOperand src, CUmemcpy3DOperand dst, size_t w, size_t h,
                           size_t d,
                           CUmemcpySrcAccessOrder order = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM) {
  CUDA_MEMCPY3D_BATCH_OP o;
  std::memset(&o, 0, sizeof o);
  o.src = src;
  o.dst = dst;
  o.extent = {w, h, d};
  o.srcAccessOrder = order;
  return o;
}

void words(const char *what, const unsigned *p, std::initializer_list<int> at) {
  std::printf("%s:", what);
  for (int i : at)
    std::printf(" [%d]=%u", i, p[i]);
  std::printf("\n");
  std::fflush(stdout);
}

} // namespace

int main() {
  CUcontext ctx;
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&ctx, nullptr, 0, 0));
  CUstream s;
  SHOW(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUdeviceptr a, b;
  SHOW(cuMemAlloc(&a, 4096));
  SHOW(cuMemAlloc(&b, 4096));
  unsigned *host;
  SHOW(cuMemAllocHost(reinterpret_cast<void **>(&host), 4096));
  for (unsigned i = 0; i < 1024; ++i)
    host[i] = i;
  SHOW(cuMemsetD32(a, 0, 1024));
  SHOW(cuMemsetD32(b, 0, 1024));

  std::printf("-- cuMemcpyBatchAsync\n");
  CUdeviceptr h = reinterpret_cast<CUdeviceptr>(host);
  CUdeviceptr dsts[3] = {a, a + 1024, b}, srcs[3] = {h, h + 1024, a};
  size_t sizes[3] = {512, 512, 256};
  CUmemcpyAttributes attrs[2] = {attr(CU_MEMCPY_SRC_ACCESS_ORDER_STREAM),
                                 attr(CU_MEMCPY_SRC_ACCESS_ORDER_ANY)};
  size_t idx[2] = {0, 2};
  SHOW(cuMemcpyBatchAsync(dsts, srcs, sizes, 2, attrs, idx, 1, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuMemcpyBatchAsync(dsts + 2, srcs + 2, sizes + 2, 1, attrs + 1, idx, 1, s));
  SHOW(cuStreamSynchronize(s));
  std::vector<unsigned> out(1024);
  SHOW(cuMemcpyDtoH(out.data(), b, 4096));
  words("b after a batch of one", out.data(), {0, 63, 64});
  SHOW(cuMemcpyDtoH(out.data(), a, 4096));
  words("a after a batch of two", out.data(), {0, 127, 128, 255, 256, 383, 384});
  SHOW(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, attrs, idx, 2, s));
  SHOW(cuStreamSynchronize(s));

  // Refusals.
  SHOW(cuMemcpyBatchAsync(dsts, srcs, sizes, 0, attrs, idx, 1, s));
  SHOW(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, attrs, idx, 0, s));
  SHOW(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, attrs, idx, 2, s));
  size_t late[2] = {1, 2};
  SHOW(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, attrs, late, 2, s));
  size_t backwards[2] = {0, 0};
  SHOW(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, attrs, backwards, 2, s));
  size_t past[2] = {0, 3};
  SHOW(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, attrs, past, 2, s));
  CUmemcpyAttributes bad = attr(CU_MEMCPY_SRC_ACCESS_ORDER_INVALID);
  SHOW(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, &bad, idx, 1, s));
  bad = attr(CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, 2);
  SHOW(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, &bad, idx, 1, s));
  bad = attr(CU_MEMCPY_SRC_ACCESS_ORDER_STREAM, CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE);
  SHOW(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, &bad, idx, 1, s));
  SHOW(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, attrs, idx, 1, nullptr));
  SHOW(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, attrs, idx, 1, CU_STREAM_PER_THREAD));
  SHOW(cuMemcpyBatchAsync(nullptr, srcs, sizes, 1, attrs, idx, 1, s));
  SHOW(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, nullptr, idx, 1, s));
  SHOW(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, attrs, nullptr, 1, s));
  size_t zero[3] = {512, 0, 256};
  SHOW(cuMemcpyBatchAsync(dsts, srcs, zero, 3, attrs, idx, 1, s));
  size_t tooBig[3] = {512, 512, 8192};
  SHOW(cuMemcpyBatchAsync(dsts, srcs, tooBig, 3, attrs, idx, 1, s));
  CUdeviceptr nulls[3] = {a, 0, b};
  SHOW(cuMemcpyBatchAsync(nulls, srcs, sizes, 3, attrs, idx, 1, s));
  SHOW(cuStreamSynchronize(s));

  // A source read during the call: a stack buffer changed right after it.
  unsigned stack[4] = {11, 12, 13, 14};
  CUdeviceptr sp = reinterpret_cast<CUdeviceptr>(stack);
  CUmemcpyAttributes during = attr(CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL);
  size_t sixteen = 16;
  SHOW(cuMemcpyBatchAsync(&b, &sp, &sixteen, 1, &during, idx, 1, s));
  stack[0] = 99;
  SHOW(cuStreamSynchronize(s));
  SHOW(cuMemcpyDtoH(out.data(), b, 16));
  words("read during the call", out.data(), {0, 1, 3});

  std::printf("-- cuMemcpy3DBatchAsync\n");
  // 16 rows of 64 bytes from host (rows 256 bytes apart) into a (rows 64 bytes apart).
  CUDA_MEMCPY3D_BATCH_OP ops[2];
  ops[0] = op3(pointer(h, 256, 0), pointer(a, 0, 0), 64, 16, 1);
  SHOW(cuMemcpy3DBatchAsync(1, ops, 0, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuMemcpyDtoH(out.data(), a, 4096));
  words("rows packed", out.data(), {0, 15, 16, 31, 255});
  // Into and out of a 2D array of 32 x 8 32-bit words.
  CUDA_ARRAY_DESCRIPTOR desc{32, 8, CU_AD_FORMAT_UNSIGNED_INT32, 1};
  CUarray arr;
  SHOW(cuArrayCreate(&arr, &desc));
  ops[0] = op3(pointer(h, 32, 0), array(arr, 0, 0), 32, 8, 1);
  ops[1] = op3(array(arr, 4, 2), pointer(b, 8, 0), 8, 4, 1);
  SHOW(cuMemcpy3DBatchAsync(1, ops, 0, s));
  SHOW(cuMemcpy3DBatchAsync(1, ops + 1, 0, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuMemcpyDtoH(out.data(), b, 128));
  words("array window", out.data(), {0, 7, 8, 31});
  // Refusals.
  SHOW(cuMemcpy3DBatchAsync(0, ops, 0, s));
  SHOW(cuMemcpy3DBatchAsync(1, ops, 1, s));
  SHOW(cuMemcpy3DBatchAsync(1, nullptr, 0, s));
  SHOW(cuMemcpy3DBatchAsync(1, ops, 0, nullptr));
  ops[0] = op3(pointer(h, 256, 0), pointer(a, 0, 0), 64, 0, 1);
  SHOW(cuMemcpy3DBatchAsync(1, ops, 0, s));
  ops[0] = op3(pointer(h, 32, 0), pointer(a, 0, 0), 64, 2, 1);
  SHOW(cuMemcpy3DBatchAsync(1, ops, 0, s));
  ops[0] = op3(pointer(h, 256, 0), pointer(a, 0, 0), 64, 16, 1, CU_MEMCPY_SRC_ACCESS_ORDER_INVALID);
  SHOW(cuMemcpy3DBatchAsync(1, ops, 0, s));
  ops[0] = op3(pointer(h, 0, 0), array(arr, 30, 0), 4, 1, 1);
  SHOW(cuMemcpy3DBatchAsync(1, ops, 0, s));
  ops[0] = op3(pointer(h, 0, 0), array(arr, 0, 7), 4, 2, 1);
  SHOW(cuMemcpy3DBatchAsync(1, ops, 0, s));
  // (A null array operand crashes NVIDIA's driver; cucpu answers INVALID_VALUE.)
  ops[0] = op3(pointer(h, 0, 0), pointer(a, 0, 0), 4, 1, 1);
  ops[0].dst.type = CUmemcpy3DOperandType(7);
  SHOW(cuMemcpy3DBatchAsync(1, ops, 0, s));
  SHOW(cuStreamSynchronize(s));

  std::printf("-- the first ABI: the failing copy's index\n");
  size_t failIdx = 77;
  SHOWV(cuMemcpyBatchAsync_v1(dsts, srcs, tooBig, 3, attrs, idx, 1, &failIdx, s), failIdx);
  failIdx = 77;
  SHOWV(cuMemcpyBatchAsync_v1(dsts, srcs, sizes, 0, attrs, idx, 1, &failIdx, s), failIdx);
  failIdx = 77;
  SHOWV(cuMemcpyBatchAsync_v1(dsts, srcs, sizes, 3, attrs, idx, 1, &failIdx, s), failIdx);
  failIdx = 77;
  ops[0] = op3(pointer(h, 0, 0), pointer(a, 0, 0), 4, 1, 1);
  ops[1] = op3(pointer(h, 0, 0), pointer(a, 0, 0), 4, 0, 1);
  SHOWV(cuMemcpy3DBatchAsync_v1(2, ops, &failIdx, 0, s), failIdx);
  SHOW(cuStreamSynchronize(s));

  std::printf("-- in a capture\n");
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  SHOW(cuMemcpyBatchAsync(dsts, srcs, sizes, 3, attrs, idx, 2, s));
  CUstreamCaptureStatus st;
  SHOWV(cuStreamIsCapturing(s, &st), st);
  CUgraph g = nullptr;
  SHOW(cuStreamEndCapture(s, &g));
  size_t nodes = 0;
  if (g) {
    SHOWV(cuGraphGetNodes(g, nullptr, &nodes), nodes);
    SHOW(cuGraphDestroy(g));
  }
  SHOW(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
  ops[0] = op3(pointer(h, 256, 0), pointer(a, 0, 0), 64, 16, 1);
  SHOW(cuMemcpy3DBatchAsync(1, ops, 0, s));
  SHOWV(cuStreamIsCapturing(s, &st), st);
  g = nullptr;
  SHOW(cuStreamEndCapture(s, &g));
  if (g) {
    SHOWV(cuGraphGetNodes(g, nullptr, &nodes), nodes);
    SHOW(cuGraphDestroy(g));
  }
  SHOW(cuArrayDestroy(arr));
  SHOW(cuCtxDestroy(ctx));
  return 0;
}
