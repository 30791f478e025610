// Prints NVIDIA's driver's answers for stream and event calls (success and misuse), to compare
// with cucpu's: tests/api/streams_events_test.cpp asserts the same codes.
#include "record.h"

#include <cuda.h>

#include <cstdio>

int main() {
  CUcontext c;
  CUstream s = nullptr;
  CUevent e1 = nullptr, e2 = nullptr, nt = nullptr, never = nullptr;
  unsigned flags = 0;
  unsigned long long id = 0;
  float ms = -1;
  CUdevice dev = -1;
  CUdeviceptr p = 0;
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&c, nullptr, 0, 0));
  SHOW(cuStreamCreate(&s, 0xff));
  SHOW(cuStreamCreate(nullptr, 0));
  SHOW(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  SHOW(cuStreamGetFlags(s, &flags));
  std::printf("flags %u\n", flags);
  SHOW(cuStreamGetFlags(s, nullptr));
  SHOW(cuStreamGetFlags(nullptr, &flags));
  std::printf("NULL stream flags %u\n", flags);
  SHOW(cuStreamGetId(s, &id));
  SHOW(cuStreamGetId(s, nullptr));
  SHOW(cuStreamGetDevice(s, &dev));
  std::printf("device %d\n", dev);
  SHOW(cuStreamGetDevice(s, nullptr));
  SHOW(cuStreamQuery(s));
  SHOW(cuStreamQuery(nullptr));
  SHOW(cuEventCreate(&e1, 0xff));
  SHOW(cuEventCreate(nullptr, 0));
  SHOW(cuEventCreate(&e1, CU_EVENT_DEFAULT));
  SHOW(cuEventCreate(&e2, CU_EVENT_BLOCKING_SYNC));
  SHOW(cuEventCreate(&nt, CU_EVENT_DISABLE_TIMING));
  SHOW(cuEventCreate(&never, CU_EVENT_DEFAULT));
  SHOW(cuEventQuery(never));
  SHOW(cuEventSynchronize(never));
  SHOW(cuEventRecord(e1, s));
  SHOW(cuMemAlloc(&p, 1 << 20));
  SHOW(cuMemsetD32Async(p, 7, 1 << 18, s));
  SHOW(cuMemsetD32Async(p + 1, 7, 4, s));
  SHOW(cuMemsetD16Async(p + 1, 7, 4, s));
  SHOW(cuMemsetD8Async(p, 7, (1 << 20) + 1, s));
  SHOW(cuMemcpyAsync(p, p + 512, 256, s));
  SHOW(cuMemcpyAsync(p, p + 512, 1 << 20, s));
  SHOW(cuMemcpyDtoDAsync(p, p + 512, 256, s));
  SHOW(cuEventRecord(e2, s));
  SHOW(cuEventRecord(nt, s));
  SHOW(cuStreamWaitEvent(s, e2, 0));
  SHOW(cuStreamWaitEvent(s, e2, 7));
  SHOW(cuStreamWaitEvent(s, nullptr, 0));
  SHOW(cuEventSynchronize(e2));
  SHOW(cuEventQuery(e2));
  SHOW(cuEventElapsedTime(&ms, e1, e2));
  std::printf("elapsed >= 0: %d\n", ms >= 0);
  SHOW(cuEventElapsedTime(&ms, e1, never));
  SHOW(cuEventElapsedTime(&ms, e1, nt));
  SHOW(cuEventElapsedTime(nullptr, e1, e2));
  SHOW(cuEventRecordWithFlags(e1, s, CU_EVENT_RECORD_DEFAULT));
  SHOW(cuEventRecordWithFlags(e1, s, CU_EVENT_RECORD_EXTERNAL));
  SHOW(cuEventRecordWithFlags(e1, s, 7));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuStreamQuery(s));
  SHOW(cuEventDestroy(never));
  SHOW(cuEventDestroy(nt));
  SHOW(cuEventDestroy(nullptr));
  SHOW(cuStreamDestroy(nullptr));
  SHOW(cuStreamDestroy(s));
  SHOW(cuCtxDestroy(c));
  return 0;
}
