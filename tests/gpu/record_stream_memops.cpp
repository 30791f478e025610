// Records NVIDIA's stream memory operations: writes and waits of 32 and 64 bits, each wait
// condition, a wait on mapped host memory that the host satisfies later, batches, the refusals,
// and cuMemcpyPeerAsync. Its output on cucpu must equal the GPU's
// (tests/gpu/answers/stream_memops.txt, compared by api_stream_memops_answers).
// Usage: record_stream_memops
#include "record.h"

#include <chrono>
#include <cuda.h>
#include <thread>

int main() {
  CUcontext ctx;
  CUstream s;
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&ctx, nullptr, 0, 0));
  SHOW(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  int v = -1;
  SHOWV(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, 0), v);
  SHOWV(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, 0), v);
  SHOWV(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES, 0), v);
  CUdeviceptr d;
  SHOW(cuMemAlloc(&d, 64));
  SHOW(cuMemsetD8(d, 0, 64));
  unsigned w32 = 0;
  unsigned long long w64 = 0;

  // Writes.
  SHOW(cuStreamWriteValue32(s, d, 0x12345678u, 0));
  SHOW(cuStreamWriteValue64(s, d + 8, 0x1122334455667788ull, 0));
  SHOW(cuStreamSynchronize(s));
  SHOWV(cuMemcpyDtoH(&w32, d, 4), w32);
  SHOWV(cuMemcpyDtoH(&w64, d + 8, 8), w64);
  SHOW(cuStreamWriteValue32(nullptr, d + 4, 99, 0)); // the legacy stream too
  SHOWV(cuMemcpyDtoH(&w32, d + 4, 4), w32);

  // Waits already satisfied, each condition (word at d is 0x12345678).
  SHOW(cuStreamWaitValue32(s, d, 0x12345678u, CU_STREAM_WAIT_VALUE_EQ));
  SHOW(cuStreamWaitValue32(s, d, 0x12345000u, CU_STREAM_WAIT_VALUE_GEQ));
  SHOW(cuStreamWaitValue32(s, d, 0x00000008u, CU_STREAM_WAIT_VALUE_AND));
  SHOW(cuStreamWaitValue32(s, d, 0x80000000u, CU_STREAM_WAIT_VALUE_NOR));
  SHOW(cuStreamWaitValue64(s, d + 8, 0x1122334455667788ull, CU_STREAM_WAIT_VALUE_EQ));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuMemsetD32(d + 16, 1, 1)); // cyclic GEQ: 1 - 0xfffffff0 is 17
  SHOW(cuStreamWaitValue32(s, d + 16, 0xfffffff0u, CU_STREAM_WAIT_VALUE_GEQ));
  SHOW(cuStreamSynchronize(s));

  // A wait the host satisfies through mapped memory.
  void *host;
  SHOW(cuMemHostAlloc(&host, 64, CU_MEMHOSTALLOC_DEVICEMAP));
  auto *flag = static_cast<volatile unsigned *>(host);
  *flag = 0;
  CUdeviceptr mapped;
  SHOW(cuMemHostGetDevicePointer(&mapped, host, 0));
  SHOW(cuStreamWaitValue32(s, mapped, 3, CU_STREAM_WAIT_VALUE_GEQ));
  SHOW(cuStreamWriteValue32(s, d + 20, 7, 0));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  SHOW(cuStreamQuery(s));
  *flag = 2;
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  SHOW(cuStreamQuery(s));
  *flag = 3;
  SHOW(cuStreamSynchronize(s));
  SHOWV(cuMemcpyDtoH(&w32, d + 20, 4), w32);

  // A batch.
  CUstreamBatchMemOpParams ops[3] = {};
  ops[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
  ops[0].writeValue.address = d + 24;
  ops[0].writeValue.value = 5;
  ops[1].memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
  ops[2].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
  ops[2].writeValue.address = d + 32;
  ops[2].writeValue.value64 = 6;
  SHOW(cuStreamBatchMemOp(s, 3, ops, 0));
  SHOW(cuStreamSynchronize(s));
  SHOWV(cuMemcpyDtoH(&w32, d + 24, 4), w32);
  SHOWV(cuMemcpyDtoH(&w64, d + 32, 8), w64);

  // Refusals.
  int local = 0;
  SHOW(cuStreamWaitValue32(s, d, 1, 7));
  SHOW(cuStreamWaitValue32(s, d + 2, 1, 0));
  SHOW(cuStreamWaitValue32(s, 0, 1, 0));
  SHOW(cuStreamWaitValue64(s, d + 4, 1, 0));
  SHOW(cuStreamWriteValue32(s, d, 1, 2));
  SHOW(cuStreamWriteValue32(s, d, 1, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER));
  SHOW(
      cuStreamWaitValue32(s, d, 0x12345678u, CU_STREAM_WAIT_VALUE_EQ | CU_STREAM_WAIT_VALUE_FLUSH));
  ops[1].flushRemoteWrites.operation = CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES;
  SHOW(cuStreamBatchMemOp(s, 2, ops, 0));
  ops[1].memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
  ops[1].memoryBarrier.flags = 7;
  SHOW(cuStreamBatchMemOp(s, 2, ops, 0));
  ops[1].memoryBarrier.flags = CU_STREAM_MEMORY_BARRIER_TYPE_GPU;
  SHOW(cuStreamBatchMemOp(s, 2, ops, 0));
  SHOW(cuStreamWriteValue32(s, d + 1, 1, 0));
  SHOW(cuStreamWriteValue64(s, d + 60, 1, 0));
  SHOW(cuStreamWriteValue32(s, reinterpret_cast<CUdeviceptr>(&local), 1, 0));
  SHOW(cuStreamBatchMemOp(s, 3, ops, 1));
  // (A null array crashes NVIDIA's driver; cucpu answers INVALID_VALUE.)
  SHOW(cuStreamBatchMemOp(s, 0, ops, 0));
  ops[0].operation = CUstreamBatchMemOpType(99);
  SHOW(cuStreamBatchMemOp(s, 1, ops, 0));
  SHOW(cuStreamSynchronize(s));

  // Peer copies within one context.
  SHOW(cuMemcpyPeerAsync(d + 40, ctx, d, ctx, 8, s));
  SHOW(cuStreamSynchronize(s));
  SHOWV(cuMemcpyDtoH(&w64, d + 40, 8), w64);
  SHOW(cuMemcpyPeerAsync(d + 40, nullptr, d, ctx, 8, s));
  return 0;
}
