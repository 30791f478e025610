// Entry points: streams (create, destroy, synchronise, query, wait on events, properties) and
// host functions queued on them.
#include "cucpu/driver/capture.h"
#include "entry_points.h"
#include "graph_nodes.h"
#include "stream_ref.h"

#include <algorithm>

namespace cucpu::api::impl {
namespace {

using driver::fail;

CUresult synchronize(CUstream h, bool perThread) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = namedStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::streamSyncDuringCapture(s); r != CUDA_SUCCESS)
    return r;
  if (s->legacy()) // the legacy stream also waits for the context's blocking streams
    if (CUresult r = driver::syncLegacy(c); r != CUDA_SUCCESS)
      return r;
  return s->synchronize();
}

CUresult query(CUstream h, bool perThread) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = namedStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = driver::streamSyncDuringCapture(s); r != CUDA_SUCCESS)
    return r;
  if (CUresult e = c->stickyError(); e != CUDA_SUCCESS)
    return e;
  const bool idle = s->legacy() ? driver::blockingStreamsIdle(c) : s->idle();
  return idle ? CUDA_SUCCESS
              : fail(CUDA_ERROR_NOT_READY, "the stream has work that has not finished");
}

CUresult waitEvent(CUstream h, CUevent e, unsigned flags, bool perThread) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (flags & ~unsigned(CU_EVENT_WAIT_EXTERNAL)) // before the event, as an H200 checks
    return fail(CUDA_ERROR_INVALID_VALUE, "Flags = {:#x} has unknown bits", flags);
  auto *ev = reinterpret_cast<driver::Event *>(e);
  if (!driver::isLiveEvent(ev))
    return fail(CUDA_ERROR_INVALID_HANDLE, "hEvent = {} is not a live event",
                static_cast<void *>(e));
  if (driver::anyCapture()) {
    if (s->legacy())
      if (CUresult r = driver::legacyUseDuringCapture(c); r != CUDA_SUCCESS)
        return r;
    bool handled;
    if (flags & CU_EVENT_WAIT_EXTERNAL && driver::capturing(s)) // a wait node
      return captureOr(s, &handled, [&](driver::NodeSpec *n) {
        return eventNode(CU_GRAPH_NODE_TYPE_WAIT_EVENT, e, n);
      });
    if (CUresult r = driver::captureEventWait(s, ev, &handled); handled || r != CUDA_SUCCESS)
      return r;
  }
  driver::StreamPoints points = ev->points(); // taken now: later records do not matter
  if (points.empty())
    return CUDA_SUCCESS;
  return submit(c, s, [points = std::move(points)] { driver::waitFor(points); });
}

// The function is checked before the stream, as an H200 does.
CUresult hostFunc(CUstream h, CUhostFn fn, void *userData, bool perThread) {
  if (!fn)
    return fail(CUDA_ERROR_INVALID_VALUE, "fn is NULL");
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  bool captured;
  if (CUresult r = captureOr(s, &captured,
                             [&](driver::NodeSpec *n) {
                               return hostNode(CUDA_HOST_NODE_PARAMS{fn, userData}, n);
                             });
      captured || r != CUDA_SUCCESS)
    return r;
  return submit(c, s, [fn, userData] { fn(userData); });
}

CUresult addCallback(CUstream h, CUstreamCallback cb, void *userData, unsigned flags,
                     bool perThread) {
  if (!cb) // the callback and flags are checked before the stream, as an H200 does
    return fail(CUDA_ERROR_INVALID_VALUE, "callback is NULL");
  if (flags != 0)
    return fail(CUDA_ERROR_INVALID_VALUE, "flags = {:#x} must be 0", flags);
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  // Callbacks cannot be captured (host functions can), as NVIDIA's driver answers.
  if (CUresult r = driver::uncapturable(s, "a stream callback"); r != CUDA_SUCCESS)
    return r;
  return submit(c, s, [cb, userData, c, h] { cb(h, c->stickyError(), userData); });
}

// A property of a stream into `out`, which is checked first, as an H200 does
// (tests/gpu/answers/misuse.txt, "order: cuStreamGetPriority(destroyed stream, null)").
template <typename T, typename F>
CUresult property(CUstream h, T *out, const char *name, bool perThread, F &&value) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!out)
    return fail(CUDA_ERROR_INVALID_VALUE, "output {} is NULL", name);
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  *out = value(c, s);
  return CUDA_SUCCESS;
}

CUresult getPriority(CUstream h, int *priority, bool perThread) {
  return property(h, priority, "priority", perThread,
                  [](driver::Context *, driver::Stream *s) { return s->priority(); });
}

CUresult getFlags(CUstream h, unsigned *flags, bool perThread) {
  return property(h, flags, "flags", perThread,
                  [](driver::Context *, driver::Stream *s) { return s->flags(); });
}

CUresult getId(CUstream h, unsigned long long *id, bool perThread) {
  return property(h, id, "streamId", perThread, // the legacy stream is stream 0
                  [](driver::Context *, driver::Stream *s) { return s->id(); });
}

CUresult getCtx(CUstream h, CUcontext *pctx, bool perThread) {
  return property(h, pctx, "pctx", perThread,
                  [](driver::Context *c, driver::Stream *) { return toHandle(c); });
}

CUresult getDevice(CUstream h, CUdevice *device, bool perThread) {
  return property(h, device, "device", perThread, [](driver::Context *c, driver::Stream *) {
    return static_cast<CUdevice>(c->device()->ordinal());
  });
}

} // namespace

CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority) {
  driver::Context *c = driver::current();
  // cuCtxGetStreamPriorityRange reports 0 (least) to -5 (greatest); CUDA clamps into it. The
  // priority is recorded; every stream's executor is an ordinary thread.
  priority = std::clamp(priority, -5, 0);
  driver::Stream *s;
  if (CUresult r = driver::createStream(c, flags, priority, &s); r != CUDA_SUCCESS)
    return r;
  *phStream = reinterpret_cast<CUstream>(s);
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags) {
  return impl::cuStreamCreateWithPriority(phStream, Flags, 0);
}

CUresult cuStreamDestroy_v2(CUstream hStream) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  auto *s = reinterpret_cast<driver::Stream *>(hStream);
  if (!hStream || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD)
    return fail(CUDA_ERROR_INVALID_HANDLE, "a default stream cannot be destroyed");
  return driver::destroyStream(s);
}

CUresult cuStreamSynchronize(CUstream h) { return synchronize(h, false); }
CUresult cuStreamSynchronize_ptsz(CUstream h) { return synchronize(h, true); }
CUresult cuStreamQuery(CUstream h) { return query(h, false); }
CUresult cuStreamQuery_ptsz(CUstream h) { return query(h, true); }
CUresult cuStreamWaitEvent(CUstream h, CUevent e, unsigned int f) {
  return waitEvent(h, e, f, false);
}
CUresult cuStreamWaitEvent_ptsz(CUstream h, CUevent e, unsigned int f) {
  return waitEvent(h, e, f, true);
}
CUresult cuLaunchHostFunc(CUstream h, CUhostFn fn, void *u) { return hostFunc(h, fn, u, false); }
CUresult cuLaunchHostFunc_ptsz(CUstream h, CUhostFn fn, void *u) {
  return hostFunc(h, fn, u, true);
}
CUresult cuStreamAddCallback(CUstream h, CUstreamCallback cb, void *u, unsigned int f) {
  return addCallback(h, cb, u, f, false);
}
CUresult cuStreamAddCallback_ptsz(CUstream h, CUstreamCallback cb, void *u, unsigned int f) {
  return addCallback(h, cb, u, f, true);
}
CUresult cuStreamGetPriority(CUstream h, int *p) { return getPriority(h, p, false); }
CUresult cuStreamGetPriority_ptsz(CUstream h, int *p) { return getPriority(h, p, true); }
CUresult cuStreamGetFlags(CUstream h, unsigned int *f) { return getFlags(h, f, false); }
CUresult cuStreamGetFlags_ptsz(CUstream h, unsigned int *f) { return getFlags(h, f, true); }
CUresult cuStreamGetId(CUstream h, unsigned long long *id) { return getId(h, id, false); }
CUresult cuStreamGetId_ptsz(CUstream h, unsigned long long *id) { return getId(h, id, true); }
CUresult cuStreamGetCtx(CUstream h, CUcontext *c) { return getCtx(h, c, false); }
CUresult cuStreamGetCtx_ptsz(CUstream h, CUcontext *c) { return getCtx(h, c, true); }
// A stream belongs to an ordinary context here (no green contexts): pGreenCtx reads null.
static CUresult getCtxV2(CUstream h, CUcontext *pCtx, CUgreenCtx *pGreenCtx, bool ptsz) {
  if (!pCtx && !pGreenCtx)
    return fail(CUDA_ERROR_INVALID_VALUE, "outputs pCtx and pGreenCtx are both NULL");
  CUcontext c = nullptr;
  if (CUresult r = getCtx(h, &c, ptsz); r != CUDA_SUCCESS)
    return r;
  if (pCtx)
    *pCtx = c;
  if (pGreenCtx)
    *pGreenCtx = nullptr;
  return CUDA_SUCCESS;
}
CUresult cuStreamGetCtx_v2(CUstream h, CUcontext *c, CUgreenCtx *g) {
  return getCtxV2(h, c, g, false);
}
CUresult cuStreamGetCtx_v2_ptsz(CUstream h, CUcontext *c, CUgreenCtx *g) {
  return getCtxV2(h, c, g, true);
}
CUresult cuStreamGetDevice(CUstream h, CUdevice *d) { return getDevice(h, d, false); }
CUresult cuStreamGetDevice_ptsz(CUstream h, CUdevice *d) { return getDevice(h, d, true); }

} // namespace cucpu::api::impl

// Stream attributes.
namespace cucpu::api::impl {
namespace {

CUresult getAttribute(CUstream h, CUstreamAttrID id, CUstreamAttrValue *out, bool pt) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, pt, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (!out) // (NVIDIA's driver crashes here)
    return fail(CUDA_ERROR_INVALID_VALUE, "output value_out is NULL");
  return s->attributes().get(id, out);
}

CUresult setAttribute(CUstream h, CUstreamAttrID id, const CUstreamAttrValue *value, bool pt) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = contextAndStream(h, pt, &c, &s); r != CUDA_SUCCESS)
    return r;
  if (!value)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "value is NULL");
  driver::StreamAttributes a = s->attributes();
  if (CUresult r = a.set(id, *value); r != CUDA_SUCCESS)
    return r;
  s->setAttributes(a);
  return CUDA_SUCCESS;
}

CUresult copyAttributes(CUstream dst, CUstream src, bool pt) {
  driver::Context *c;
  driver::Stream *d, *s;
  if (CUresult r = contextAndStream(dst, pt, &c, &d); r != CUDA_SUCCESS)
    return r;
  // A stream of another context is a bad value here (an H200, tests/gpu/record_sticky.cpp).
  if (auto *own = reinterpret_cast<driver::Stream *>(src);
      driver::isLiveStream(own) && own->context() != c)
    return fail(CUDA_ERROR_INVALID_VALUE, "the source stream belongs to another context");
  if (CUresult r = streamOf(src, c, pt, &s); r != CUDA_SUCCESS)
    return r;
  d->setAttributes(s->attributes());
  return CUDA_SUCCESS;
}

} // namespace

CUresult cuStreamGetAttribute(CUstream h, CUstreamAttrID a, CUstreamAttrValue *v) {
  return getAttribute(h, a, v, false);
}
CUresult cuStreamGetAttribute_ptsz(CUstream h, CUstreamAttrID a, CUstreamAttrValue *v) {
  return getAttribute(h, a, v, true);
}
CUresult cuStreamSetAttribute(CUstream h, CUstreamAttrID a, const CUstreamAttrValue *v) {
  return setAttribute(h, a, v, false);
}
CUresult cuStreamSetAttribute_ptsz(CUstream h, CUstreamAttrID a, const CUstreamAttrValue *v) {
  return setAttribute(h, a, v, true);
}
CUresult cuStreamCopyAttributes(CUstream dst, CUstream src) {
  return copyAttributes(dst, src, false);
}
CUresult cuStreamCopyAttributes_ptsz(CUstream dst, CUstream src) {
  return copyAttributes(dst, src, true);
}
} // namespace cucpu::api::impl
