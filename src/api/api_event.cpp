// Entry points: events (record in stream order, query, synchronise, elapsed time).
#include "cucpu/driver/capture.h"
#include "cucpu/driver/ipc.h"
#include "cucpu/support/log.h"
#include "entry_points.h"
#include "graph_nodes.h"
#include "stream_ref.h"

namespace cucpu::api::impl {
namespace {

using driver::fail;

// An event the registry's checks found live.
driver::Event *eventOf(CUevent h) { return reinterpret_cast<driver::Event *>(h); }

// A kernel fault in the current context is reported by event calls too, as on a GPU.
CUresult currentSticky() {
  driver::Context *c = driver::current();
  return c ? c->stickyError() : CUDA_SUCCESS;
}

CUresult record(CUevent h, CUstream stream, unsigned flags, bool perThread) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  auto *e = reinterpret_cast<driver::Event *>(h);
  const driver::Context *owner = driver::eventContext(e); // one lookup: liveness and context
  if (!owner)
    return fail(CUDA_ERROR_INVALID_HANDLE, "hEvent = {} is not a live event",
                static_cast<void *>(h));
  if (flags & ~unsigned(CU_EVENT_RECORD_EXTERNAL))
    return fail(CUDA_ERROR_INVALID_VALUE, "flags = {:#x} has unknown bits", flags);
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(stream, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (owner != c) // an H200: 400
    return fail(CUDA_ERROR_INVALID_HANDLE, "the event belongs to another context than the stream");
  if (driver::anyCapture()) {
    if (s->legacy())
      if (CUresult r = driver::legacyUseDuringCapture(c); r != CUDA_SUCCESS)
        return r;
    if (driver::capturing(s)) {
      // In a capture the event stands for the stream's position; an external record is a node.
      if (flags & CU_EVENT_RECORD_EXTERNAL) {
        bool captured;
        return captureOr(s, &captured, [&](driver::NodeSpec *n) {
          return eventNode(CU_GRAPH_NODE_TYPE_EVENT_RECORD, h, n);
        });
      }
      return driver::captureEventRecord(e, s);
    }
  }
  // An external record only means something in a stream being captured into a graph.
  if (flags & CU_EVENT_RECORD_EXTERNAL)
    return fail(CUDA_ERROR_ILLEGAL_STATE,
                "CU_EVENT_RECORD_EXTERNAL outside a stream being captured");
  driver::forgetCapturedEvent(e);
  e->record(s);
  return CUDA_SUCCESS;
}

CUresult elapsed(float *ms, CUevent start, CUevent end) {
  if (!ms) // what NVIDIA's driver returns (tests/gpu/record_events.cpp)
    return fail(CUDA_ERROR_INVALID_HANDLE, "pMilliseconds is NULL");
  return driver::Event::elapsed(eventOf(start), eventOf(end), ms);
}

} // namespace

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags) {
  driver::Context *c = driver::current();
  if ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING))
    return fail(CUDA_ERROR_INVALID_VALUE,
                "CU_EVENT_INTERPROCESS needs CU_EVENT_DISABLE_TIMING as well");
  driver::Event *e = nullptr;
  if (Flags & CU_EVENT_INTERPROCESS) {
    if (CUresult r = driver::createInterprocessEvent(Flags, &e); r != CUDA_SUCCESS)
      return r;
  } else {
    e = new driver::Event(Flags);
  }
  driver::registerEvent(e, c);
  *phEvent = reinterpret_cast<CUevent>(e);
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent hEvent) {
  driver::Event *e = eventOf(hEvent);
  driver::unregisterEvent(e);
  driver::forgetCapturedEvent(e);
  delete e; // a queued record holds its own completion state, not the event
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent e, CUstream s) { return record(e, s, 0, false); }
CUresult cuEventRecord_ptsz(CUevent e, CUstream s) { return record(e, s, 0, true); }
CUresult cuEventRecordWithFlags(CUevent e, CUstream s, unsigned int f) {
  return record(e, s, f, false);
}
CUresult cuEventRecordWithFlags_ptsz(CUevent e, CUstream s, unsigned int f) {
  return record(e, s, f, true);
}

// A handle that is no event is 400 even before cuInit, as an H200 answers.
CUresult cuEventQuery(CUevent hEvent) {
  driver::Event *e = eventOf(hEvent);
  if (!driver::isLiveEvent(e))
    return fail(CUDA_ERROR_INVALID_HANDLE, "hEvent = {} is not a live event",
                static_cast<void *>(hEvent));
  if (CUresult r = driver::capturedEventUse(e); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::unsafeDuringCapture(); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = currentSticky(); r != CUDA_SUCCESS)
    return r;
  return e->complete() ? CUDA_SUCCESS
                       : fail(CUDA_ERROR_NOT_READY, "the work before the event has not finished");
}

CUresult cuEventSynchronize(CUevent hEvent) {
  driver::Event *e = eventOf(hEvent);
  if (CUresult r = driver::capturedEventUse(e); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::unsafeDuringCapture(); r != CUDA_SUCCESS)
    return r;
  e->synchronize();
  return currentSticky();
}

CUresult cuCtxRecordEvent(CUcontext hCtx, CUevent hEvent) {
  driver::Event *e = eventOf(hEvent);
  driver::Context *c;
  if (!hCtx) // no current context stands in for it
    return fail(CUDA_ERROR_INVALID_CONTEXT, "hCtx is NULL");
  if (CUresult r = resolveContext(hCtx, &c); r != CUDA_SUCCESS)
    return r;
  if (driver::eventContext(e) != c)
    return fail(CUDA_ERROR_INVALID_HANDLE, "the event belongs to another context");
  if (CUresult r = driver::contextWideDuringCapture(c, nullptr); r != CUDA_SUCCESS)
    return r;
  driver::forgetCapturedEvent(e);
  driver::recordContext(c, e);
  return CUDA_SUCCESS;
}

CUresult cuCtxWaitEvent(CUcontext hCtx, CUevent hEvent) {
  driver::Event *e = eventOf(hEvent);
  driver::Context *c;
  if (!hCtx)
    return fail(CUDA_ERROR_INVALID_CONTEXT, "hCtx is NULL");
  if (CUresult r = resolveContext(hCtx, &c); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::contextWideDuringCapture(c, e); r != CUDA_SUCCESS)
    return r;
  driver::waitContext(c, e->points());
  return c->stickyError();
}

CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  return elapsed(ms, start, end);
}
CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end) {
  return elapsed(ms, start, end);
}

} // namespace cucpu::api::impl
