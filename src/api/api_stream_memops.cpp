// Entry points: stream memory operations (cuStreamWaitValue32/64, cuStreamWriteValue32/64,
// cuStreamBatchMemOp). A wait is an operation of its stream that polls the word, backing off from
// spinning to yielding to short sleeps, so its stream's later work waits and other streams run; a
// write is an atomic store with release order (the memory barrier a GPU's write gives). There are
// no remote (peer) writes to flush.
#include "device_ptr.h"
#include "entry_points.h"
#include "graph_nodes.h"
#include "stream_ref.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace cucpu::api::impl {
namespace {

template <typename T> bool satisfied(T current, T value, unsigned condition) {
  using S = std::make_signed_t<T>;
  switch (condition) {
  case CU_STREAM_WAIT_VALUE_GEQ: // cyclic: (current - value) as a signed number
    return static_cast<S>(current - value) >= 0;
  case CU_STREAM_WAIT_VALUE_EQ:
    return current == value;
  case CU_STREAM_WAIT_VALUE_AND:
    return (current & value) != 0;
  default:
    return ~(current | value) != 0; // NOR
  }
}

template <typename T> void waitFor(CUdeviceptr addr, T value, unsigned condition) {
  std::atomic_ref<T> word(*reinterpret_cast<T *>(static_cast<uintptr_t>(addr)));
  for (unsigned i = 0; !satisfied(word.load(std::memory_order_acquire), value, condition); ++i) {
    if (i < 64)
      continue;
    if (i < 1024)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

template <typename T> void writeValue(CUdeviceptr addr, T value) {
  std::atomic_ref<T>(*reinterpret_cast<T *>(static_cast<uintptr_t>(addr)))
      .store(value, std::memory_order_release);
}

// One operation of a batch, checked: the work to queue, or an error.
CUresult operation(const CUstreamBatchMemOpParams &p, std::function<void()> *out) {
  switch (p.operation) {
  case CU_STREAM_MEM_OP_WAIT_VALUE_32:
  case CU_STREAM_MEM_OP_WAIT_VALUE_64: {
    const bool wide = p.operation == CU_STREAM_MEM_OP_WAIT_VALUE_64;
    const CUdeviceptr addr = p.waitValue.address;
    const unsigned condition = p.waitValue.flags & ~unsigned(CU_STREAM_WAIT_VALUE_FLUSH);
    if (condition > CU_STREAM_WAIT_VALUE_NOR || addr % (wide ? 8 : 4) ||
        !validDevice(addr, wide ? 8 : 4))
      return driver::fail(CUDA_ERROR_INVALID_VALUE,
                          "unknown condition, or {:#x} is misaligned or not in device memory",
                          addr);
    if (p.waitValue.flags & CU_STREAM_WAIT_VALUE_FLUSH) // no remote writes to flush, as an H200
      return driver::fail(CUDA_ERROR_NOT_SUPPORTED, "CU_STREAM_WAIT_VALUE_FLUSH is not offered");
    if (wide)
      *out = [addr, v = p.waitValue.value64, condition] { waitFor(addr, v, condition); };
    else
      *out = [addr, v = p.waitValue.value, condition] { waitFor(addr, v, condition); };
    return CUDA_SUCCESS;
  }
  case CU_STREAM_MEM_OP_WRITE_VALUE_32:
  case CU_STREAM_MEM_OP_WRITE_VALUE_64: {
    const bool wide = p.operation == CU_STREAM_MEM_OP_WRITE_VALUE_64;
    const CUdeviceptr addr = p.writeValue.address;
    // An H200 refuses CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER too: every write is ordered.
    if (p.writeValue.flags != 0 || addr % (wide ? 8 : 4) || !validDevice(addr, wide ? 8 : 4))
      return driver::fail(CUDA_ERROR_INVALID_VALUE,
                          "flags are set, or {:#x} is misaligned or not in device memory", addr);
    if (wide)
      *out = [addr, v = p.writeValue.value64] { writeValue(addr, v); };
    else
      *out = [addr, v = p.writeValue.value] { writeValue(addr, v); };
    return CUDA_SUCCESS;
  }
  case CU_STREAM_MEM_OP_BARRIER:
    if (p.memoryBarrier.flags > CU_STREAM_MEMORY_BARRIER_TYPE_GPU)
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "barrier type {} is unknown",
                          static_cast<unsigned>(p.memoryBarrier.flags));
    *out = [] { // a full barrier (a sequentially consistent read-modify-write; TSan knows it)
      static std::atomic<unsigned> barrier;
      barrier.fetch_add(1, std::memory_order_seq_cst);
    };
    return CUDA_SUCCESS;
  case CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES:
    return CUDA_ERROR_NOT_SUPPORTED; // CAN_FLUSH_REMOTE_WRITES is 0, as on an H200
  default:
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "p.operation = {} is not a value this call takes",
                        static_cast<long long>(p.operation));
  }
}

CUresult batch(CUstream h, unsigned count, const CUstreamBatchMemOpParams *params, unsigned flags,
               bool perThread) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (flags != 0 || (count && !params))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "flags = {:#x} is not 0, or {} operations have no array", flags, count);
  std::vector<std::function<void()>> ops(count);
  for (unsigned i = 0; i < count; ++i)
    if (CUresult r = operation(params[i], &ops[i]); r != CUDA_SUCCESS)
      return r;
  const CUDA_BATCH_MEM_OP_NODE_PARAMS node{toHandle(c), count,
                                           const_cast<CUstreamBatchMemOpParams *>(params), flags};
  bool captured;
  if (CUresult r =
          captureOr(s, &captured, [&](driver::NodeSpec *n) { return batchMemOpNode(node, n); });
      captured || r != CUDA_SUCCESS)
    return r;
  return submit(c, s, [ops = std::move(ops)] {
    for (const auto &op : ops)
      op();
  });
}

template <typename T>
CUresult one(CUstream h, CUdeviceptr addr, T value, unsigned flags, bool wait, bool perThread) {
  CUstreamBatchMemOpParams p{};
  constexpr bool wide = sizeof(T) == 8;
  if (wait) {
    p.waitValue.operation = wide ? CU_STREAM_MEM_OP_WAIT_VALUE_64 : CU_STREAM_MEM_OP_WAIT_VALUE_32;
    p.waitValue.address = addr;
    if constexpr (wide)
      p.waitValue.value64 = value;
    else
      p.waitValue.value = value;
    p.waitValue.flags = flags;
  } else {
    p.writeValue.operation =
        wide ? CU_STREAM_MEM_OP_WRITE_VALUE_64 : CU_STREAM_MEM_OP_WRITE_VALUE_32;
    p.writeValue.address = addr;
    if constexpr (wide)
      p.writeValue.value64 = value;
    else
      p.writeValue.value = value;
    p.writeValue.flags = flags;
  }
  return batch(h, 1, &p, 0, perThread);
}

} // namespace

#define CUCPU_MEMOP(name, T, wait, pt)                                                             \
  CUresult name(CUstream stream, CUdeviceptr addr, T value, unsigned int flags) {                  \
    return one<T>(stream, addr, value, flags, wait, pt);                                           \
  }
CUCPU_MEMOP(cuStreamWaitValue32, cuuint32_t, true, false)
CUCPU_MEMOP(cuStreamWaitValue32_ptsz, cuuint32_t, true, true)
CUCPU_MEMOP(cuStreamWaitValue32_v2, cuuint32_t, true, false)
CUCPU_MEMOP(cuStreamWaitValue32_v2_ptsz, cuuint32_t, true, true)
CUCPU_MEMOP(cuStreamWaitValue64, cuuint64_t, true, false)
CUCPU_MEMOP(cuStreamWaitValue64_ptsz, cuuint64_t, true, true)
CUCPU_MEMOP(cuStreamWaitValue64_v2, cuuint64_t, true, false)
CUCPU_MEMOP(cuStreamWaitValue64_v2_ptsz, cuuint64_t, true, true)
CUCPU_MEMOP(cuStreamWriteValue32, cuuint32_t, false, false)
CUCPU_MEMOP(cuStreamWriteValue32_ptsz, cuuint32_t, false, true)
CUCPU_MEMOP(cuStreamWriteValue32_v2, cuuint32_t, false, false)
CUCPU_MEMOP(cuStreamWriteValue32_v2_ptsz, cuuint32_t, false, true)
CUCPU_MEMOP(cuStreamWriteValue64, cuuint64_t, false, false)
CUCPU_MEMOP(cuStreamWriteValue64_ptsz, cuuint64_t, false, true)
CUCPU_MEMOP(cuStreamWriteValue64_v2, cuuint64_t, false, false)
CUCPU_MEMOP(cuStreamWriteValue64_v2_ptsz, cuuint64_t, false, true)
#undef CUCPU_MEMOP

#define CUCPU_BATCH(name, pt)                                                                      \
  CUresult name(CUstream stream, unsigned int count, CUstreamBatchMemOpParams *paramArray,         \
                unsigned int flags) {                                                              \
    return batch(stream, count, paramArray, flags, pt);                                            \
  }
CUCPU_BATCH(cuStreamBatchMemOp, false)
CUCPU_BATCH(cuStreamBatchMemOp_ptsz, true)
CUCPU_BATCH(cuStreamBatchMemOp_v2, false)
CUCPU_BATCH(cuStreamBatchMemOp_v2_ptsz, true)
#undef CUCPU_BATCH

} // namespace cucpu::api::impl

namespace cucpu::api {

CUresult batchMemOpNode(const CUDA_BATCH_MEM_OP_NODE_PARAMS &p, driver::NodeSpec *out) {
  if (p.flags != 0 || (p.count && !p.paramArray) || !driver::isLiveContext(fromHandle(p.ctx)))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "flags are set, the operations have no array, or the context is not live");
  std::vector<std::function<void()>> ops(p.count);
  for (unsigned i = 0; i < p.count; ++i)
    if (CUresult r = impl::operation(p.paramArray[i], &ops[i]); r != CUDA_SUCCESS)
      return r;
  driver::BatchMemOpNodeParams b;
  b.ctx = fromHandle(p.ctx);
  b.ops.assign(p.paramArray, p.paramArray + p.count);
  b.flags = p.flags;
  out->type = CU_GRAPH_NODE_TYPE_BATCH_MEM_OP;
  out->params = std::move(b);
  out->work = [ops = std::move(ops)] {
    for (const auto &op : ops)
      op();
    return CUDA_SUCCESS;
  };
  return CUDA_SUCCESS;
}

} // namespace cucpu::api
