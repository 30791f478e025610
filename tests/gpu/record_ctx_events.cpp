// Records NVIDIA's context-wide events: cuCtxRecordEvent captures the work of every stream of the
// context (it completes when all of it has), cuCtxWaitEvent makes the context's streams wait for
// an event, their refusals (an event of another context, a stream capturing, an event recorded in
// a capture), and timing between such events. Kernels wait for a flag the host sets in mapped
// memory, so nothing depends on timing. Its output on cucpu must equal the GPU's
// (tests/gpu/answers/ctx_events.txt, compared by the ctest api_ctx_event_answers).
// Usage: record_ctx_events tests/api/stream0/waiters.ptx
#include "record.h"

#include <cuda.h>

namespace {

CUfunction waitFlag;

// Queues waitFlag(flag, out) on `s`: it ends once the host sets *flag.
CUresult waitOn(CUstream s, unsigned *flag, CUdeviceptr out) {
  CUdeviceptr f = reinterpret_cast<CUdeviceptr>(flag);
  void *args[] = {&f, &out};
  return cuLaunchKernel(waitFlag, 1, 1, 1, 1, 1, 1, 0, s, args, nullptr);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s waiters.ptx\n", argv[0]);
    return 2;
  }
  CUcontext ctx, other;
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&other, nullptr, 0, 0));
  SHOW(cuCtxCreate(&ctx, nullptr, 0, 0));
  CUmodule mod;
  const std::string ptx = readFile(argv[1]);
  SHOW(cuModuleLoadData(&mod, ptx.c_str()));
  SHOW(cuModuleGetFunction(&waitFlag, mod, "waitFlag"));
  unsigned *flags;
  SHOW(cuMemHostAlloc(reinterpret_cast<void **>(&flags), 4096, CU_MEMHOSTALLOC_DEVICEMAP));
  flags[0] = flags[1] = 0;
  CUdeviceptr out;
  SHOW(cuMemAlloc(&out, 64));
  CUstream a, b, c;
  SHOW(cuStreamCreate(&a, CU_STREAM_NON_BLOCKING));
  SHOW(cuStreamCreate(&b, CU_STREAM_NON_BLOCKING));
  SHOW(cuStreamCreate(&c, CU_STREAM_NON_BLOCKING));
  CUevent e, start, stop, foreign;
  SHOW(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
  SHOW(cuEventCreate(&start, 0));
  SHOW(cuEventCreate(&stop, 0));
  SHOW(cuCtxSetCurrent(other));
  SHOW(cuEventCreate(&foreign, 0));
  SHOW(cuCtxSetCurrent(ctx));

  std::printf("-- cuCtxRecordEvent\n");
  SHOW(cuCtxRecordEvent(ctx, nullptr));
  SHOW(cuCtxRecordEvent(ctx, foreign));
  SHOW(cuCtxRecordEvent(nullptr, e));
  SHOW(cuEventQuery(e));
  SHOW(waitOn(a, &flags[0], out));
  SHOW(waitOn(b, &flags[1], out + 8));
  SHOW(cuCtxRecordEvent(ctx, e));
  SHOW(cuEventQuery(e));
  flags[0] = 1; // stream a finishes, b still waits
  SHOW(cuStreamSynchronize(a));
  SHOW(cuEventQuery(e));
  flags[1] = 1;
  SHOW(cuEventSynchronize(e));
  SHOW(cuEventQuery(e));

  std::printf("-- cuCtxWaitEvent\n");
  flags[0] = flags[1] = 0;
  SHOW(waitOn(a, &flags[0], out));
  SHOW(cuEventRecord(e, a));
  SHOW(cuCtxWaitEvent(ctx, e));
  SHOW(cuStreamWriteValue32(c, out + 16, 7, 0));
  SHOW(cuStreamQuery(c));
  SHOW(cuStreamQuery(b));
  flags[0] = 1;
  SHOW(cuStreamSynchronize(c));
  unsigned v = 0;
  SHOWV(cuMemcpyDtoH(&v, out + 16, 4), v);
  SHOW(cuCtxWaitEvent(ctx, foreign));
  SHOW(cuCtxWaitEvent(ctx, nullptr));

  std::printf("-- timing\n");
  SHOW(cuCtxRecordEvent(ctx, start));
  SHOW(cuMemsetD32Async(out, 1, 16, b));
  SHOW(cuCtxRecordEvent(ctx, stop));
  SHOW(cuEventSynchronize(stop));
  float ms = -1;
  CUresult r = cuEventElapsedTime(&ms, start, stop);
  std::printf("cuEventElapsedTime(&ms, start, stop) %d, ms >= 0 %d\n", int(r), int(ms >= 0));

  std::printf("-- during capture\n");
  SHOW(cuStreamBeginCapture(b, CU_STREAM_CAPTURE_MODE_RELAXED));
  SHOW(cuCtxRecordEvent(ctx, e));
  CUstreamCaptureStatus st;
  SHOWV(cuStreamIsCapturing(b, &st), st);
  CUgraph g = nullptr;
  SHOW(cuStreamEndCapture(b, &g));
  SHOW(cuStreamBeginCapture(b, CU_STREAM_CAPTURE_MODE_RELAXED));
  SHOW(cuEventRecord(e, b));
  SHOW(cuCtxWaitEvent(other, e));
  SHOWV(cuStreamIsCapturing(b, &st), st);
  SHOW(cuStreamEndCapture(b, &g));

  SHOW(cuCtxSynchronize());
  SHOW(cuCtxDestroy(ctx));
  SHOW(cuCtxDestroy(other));
  return 0;
}
