// Entry points: events (record in stream order, query, synchronise, elapsed time).
#include "cucpu/driver/capture.h"
#include "cucpu/driver/ipc.h"
#include "cucpu/support/log.h"
#include "entry_points.h"
#include "graph_nodes.h"
#include "stream_ref.h"

namespace cucpu::api::impl {
namespace {

CUresult eventOf(CUevent h, driver::Event **out) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  *out = reinterpret_cast<driver::Event *>(h);
  return driver::isLiveEvent(*out) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

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
    return CUDA_ERROR_INVALID_HANDLE;
  if (flags & ~unsigned(CU_EVENT_RECORD_EXTERNAL))
    return CUDA_ERROR_INVALID_VALUE;
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(stream, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (owner != c) { // an event of another context (an H200: 400)
    log::debug(log::Component::Api, "cuEventRecord: the event belongs to another context");
    return CUDA_ERROR_INVALID_HANDLE;
  }
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
    return CUDA_ERROR_ILLEGAL_STATE;
  driver::forgetCapturedEvent(e);
  e->record(s);
  return CUDA_SUCCESS;
}

CUresult elapsed(float *ms, CUevent start, CUevent end) {
  driver::Event *a, *b;
  if (CUresult r = eventOf(start, &a); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = eventOf(end, &b); r != CUDA_SUCCESS)
    return r;
  if (!ms)
    return CUDA_ERROR_INVALID_HANDLE; // what NVIDIA's driver returns (tests/gpu/record_events.cpp)
  return driver::Event::elapsed(a, b, ms);
}

} // namespace

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  constexpr unsigned kKnown =
      CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
  if (!phEvent || (Flags & ~kKnown) ||
      ((Flags & CU_EVENT_INTERPROCESS) && !(Flags & CU_EVENT_DISABLE_TIMING)))
    return CUDA_ERROR_INVALID_VALUE;
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
  driver::Event *e;
  if (CUresult r = eventOf(hEvent, &e); r != CUDA_SUCCESS)
    return r;
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

CUresult cuEventQuery(CUevent hEvent) {
  driver::Event *e;
  if (CUresult r = eventOf(hEvent, &e); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::capturedEventUse(e); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::unsafeDuringCapture(); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = currentSticky(); r != CUDA_SUCCESS)
    return r;
  return e->complete() ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult cuEventSynchronize(CUevent hEvent) {
  driver::Event *e;
  if (CUresult r = eventOf(hEvent, &e); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::capturedEventUse(e); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::unsafeDuringCapture(); r != CUDA_SUCCESS)
    return r;
  e->synchronize();
  return currentSticky();
}

CUresult cuCtxRecordEvent(CUcontext hCtx, CUevent hEvent) {
  driver::Event *e;
  if (CUresult r = eventOf(hEvent, &e); r != CUDA_SUCCESS)
    return r;
  driver::Context *c;
  if (!hCtx) // no current context stands in for it
    return CUDA_ERROR_INVALID_CONTEXT;
  if (CUresult r = resolveContext(hCtx, &c); r != CUDA_SUCCESS)
    return r;
  if (driver::eventContext(e) != c)
    return CUDA_ERROR_INVALID_HANDLE; // the event must be of the context
  if (CUresult r = driver::contextWideDuringCapture(c, nullptr); r != CUDA_SUCCESS)
    return r;
  driver::forgetCapturedEvent(e);
  driver::recordContext(c, e);
  return CUDA_SUCCESS;
}

CUresult cuCtxWaitEvent(CUcontext hCtx, CUevent hEvent) {
  driver::Event *e;
  if (CUresult r = eventOf(hEvent, &e); r != CUDA_SUCCESS)
    return r;
  driver::Context *c;
  if (!hCtx)
    return CUDA_ERROR_INVALID_CONTEXT;
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
