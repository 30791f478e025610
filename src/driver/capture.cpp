// Stream capture sequences: which streams take part, each one's dependencies in the graph being
// built, events recorded in a capture, and the rules that forbid calls during one. One mutex
// guards it all: capturing is rare and short next to the work it records.
#include "cucpu/driver/capture.h"

#include "cucpu/driver/reason.h"
#include "cucpu/driver/stream.h"
#include "cucpu/support/log.h"

#include <atomic>
#include <map>
#include <thread>

namespace cucpu::driver {
namespace {

struct Capture {
  unsigned long long id = 0;
  Graph *graph = nullptr;
  bool ownsGraph = true;
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
  std::thread::id thread;
  Stream *origin = nullptr;
  bool invalid = false;
  std::map<Stream *, std::vector<Node *>> streams; // taking part, with their dependencies
};

struct CapturedEvent {
  std::shared_ptr<Capture> capture;
  std::vector<Node *> deps;
};

struct Captures {
  std::mutex mutex;
  std::map<Stream *, std::shared_ptr<Capture>> byStream;
  std::map<Event *, CapturedEvent> events;
  unsigned long long nextId = 1;
};
Captures &captures() {
  static auto *c = new Captures;
  return *c;
}
std::atomic<int> active{0}; // streams taking part in a capture
thread_local CUstreamCaptureMode threadMode = CU_STREAM_CAPTURE_MODE_GLOBAL;

void invalidate(Capture &c, const char *why) {
  if (!c.invalid)
    log::debug(log::Component::Api, "stream capture {} invalidated: {}", c.id, why);
  c.invalid = true;
}

// Detaches every stream and event of `c` (its capture has ended); mutex held.
void detach(const std::shared_ptr<Capture> &c) {
  Captures &all = captures();
  for (auto &[s, deps] : c->streams) {
    all.byStream.erase(s);
    --active;
  }
  for (auto it = all.events.begin(); it != all.events.end();)
    it = it->second.capture == c ? all.events.erase(it) : std::next(it);
}

std::shared_ptr<Capture> captureOf(Stream *s) {
  auto it = captures().byStream.find(s);
  return it == captures().byStream.end() ? nullptr : it->second;
}

} // namespace

bool anyCapture() { return active.load(std::memory_order_relaxed) != 0; }

bool capturing(Stream *s) {
  if (!anyCapture())
    return false;
  std::lock_guard lk(captures().mutex);
  return captureOf(s) != nullptr;
}

CUresult beginCapture(Stream *s, Graph *into, Node *const *deps, size_t count,
                      CUstreamCaptureMode mode) {
  std::lock_guard lk(captures().mutex);
  if (captureOf(s))
    return fail(CUDA_ERROR_ILLEGAL_STATE, "the stream is already being captured");
  auto c = std::make_shared<Capture>();
  c->id = captures().nextId++;
  c->graph = into ? into : createGraph();
  c->ownsGraph = !into;
  c->mode = mode;
  c->thread = std::this_thread::get_id();
  c->origin = s;
  c->streams[s].assign(deps, deps + count);
  captures().byStream[s] = c;
  ++active;
  return CUDA_SUCCESS;
}

CUresult endCapture(Stream *s, Graph **out) {
  std::lock_guard lk(captures().mutex);
  *out = nullptr;
  auto c = captureOf(s);
  if (!c)
    return fail(CUDA_ERROR_ILLEGAL_STATE, "the stream is not being captured");
  CUresult r = CUDA_SUCCESS;
  if (c->origin != s) {
    invalidate(*c, "cuStreamEndCapture on a stream that joined it");
    return fail(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
                "cuStreamEndCapture on a stream that joined it");
  }
  if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED && c->thread != std::this_thread::get_id()) {
    r = CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
  } else if (c->invalid) {
    r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  } else {
    // Every stream that joined must have been joined back: its last operations precede the
    // origin's.
    const auto &end = c->streams[s];
    for (auto &[other, deps] : c->streams)
      for (Node *d : deps)
        if (other != s &&
            std::none_of(end.begin(), end.end(), [&](Node *e) { return c->graph->reaches(d, e); }))
          r = CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
  }
  detach(c);
  if (r == CUDA_SUCCESS)
    *out = c->graph;
  else if (c->ownsGraph)
    destroyGraph(c->graph);
  return r;
}

CaptureState captureState(Stream *s) {
  CaptureState st;
  if (!anyCapture())
    return st;
  std::lock_guard lk(captures().mutex);
  auto c = captureOf(s);
  if (!c)
    return st;
  st.status = c->invalid ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
  if (!c->invalid) {
    st.id = c->id;
    st.graph = c->graph;
    st.deps = &c->streams[s];
  }
  return st;
}

CUresult captureNode(Stream *s, NodeSpec spec, Node **out) {
  std::lock_guard lk(captures().mutex);
  auto c = captureOf(s);
  if (!c)
    return fail(CUDA_ERROR_ILLEGAL_STATE, "the stream is not being captured");
  if (c->invalid)
    return fail(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the capture has been invalidated");
  auto &deps = c->streams[s];
  Node *n;
  if (CUresult r = c->graph->add(std::move(spec), deps.data(), deps.size(), &n); r != CUDA_SUCCESS)
    return r;
  deps.assign(1, n);
  if (out)
    *out = n;
  return CUDA_SUCCESS;
}

CUresult updateCaptureDependencies(Stream *s, Node *const *deps, size_t count, unsigned flags) {
  std::lock_guard lk(captures().mutex);
  auto c = captureOf(s);
  if (!c || c->invalid)
    return fail(CUDA_ERROR_ILLEGAL_STATE,
                "the stream is not being captured, or its capture was invalidated");
  if (flags != CU_STREAM_ADD_CAPTURE_DEPENDENCIES && flags != CU_STREAM_SET_CAPTURE_DEPENDENCIES)
    return fail(CUDA_ERROR_INVALID_VALUE, "flags = {:#x} is neither ADD nor SET", flags);
  for (size_t i = 0; i < count; ++i)
    if (!c->graph->contains(deps[i]))
      return fail(CUDA_ERROR_INVALID_VALUE, "dependency {} is not a node of the capture's graph",
                  i);
  auto &mine = c->streams[s];
  if (flags == CU_STREAM_SET_CAPTURE_DEPENDENCIES)
    mine.clear();
  for (size_t i = 0; i < count; ++i)
    if (std::find(mine.begin(), mine.end(), deps[i]) == mine.end())
      mine.push_back(deps[i]);
  return CUDA_SUCCESS;
}

CUresult captureEventRecord(Event *e, Stream *s) {
  std::lock_guard lk(captures().mutex);
  auto c = captureOf(s);
  if (!c)
    return fail(CUDA_ERROR_ILLEGAL_STATE, "the stream is not being captured");
  if (c->invalid)
    return fail(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the capture has been invalidated");
  captures().events[e] = {c, c->streams[s]};
  return CUDA_SUCCESS;
}

CUresult captureEventWait(Stream *s, Event *e, bool *handled) {
  std::lock_guard lk(captures().mutex);
  auto theirs = captureOf(s);
  auto it = captures().events.find(e);
  *handled = it != captures().events.end() || theirs;
  if (!*handled)
    return CUDA_SUCCESS;
  if (it == captures().events.end()) {
    // An event recorded outside any capture: the capture would depend on work outside it.
    invalidate(*theirs, "waiting for an event recorded outside the capture");
    return fail(CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
                "waiting for an event recorded outside the capture");
  }
  const CapturedEvent &ev = it->second;
  if (ev.capture->invalid)
    return fail(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the event's capture has been invalidated");
  if (theirs && theirs != ev.capture) {
    invalidate(*theirs, "waiting for an event of another capture");
    invalidate(*ev.capture, "an event waited for by another capture");
    return fail(CUDA_ERROR_STREAM_CAPTURE_MERGE, "waiting for an event of another capture");
  }
  auto &deps = ev.capture->streams[s]; // joins the capture if it was not taking part
  if (!theirs) {
    captures().byStream[s] = ev.capture;
    ++active;
  }
  for (Node *n : ev.deps)
    if (std::find(deps.begin(), deps.end(), n) == deps.end())
      deps.push_back(n);
  return CUDA_SUCCESS;
}

CUresult capturedEventUse(Event *e) {
  if (!anyCapture())
    return CUDA_SUCCESS;
  std::lock_guard lk(captures().mutex);
  auto it = captures().events.find(e);
  if (it == captures().events.end())
    return CUDA_SUCCESS;
  if (it->second.capture->invalid) // as NVIDIA's driver answers once the capture broke
    return fail(CUDA_ERROR_INVALID_VALUE, "the event's capture has been invalidated");
  invalidate(*it->second.capture, "a captured event was queried or waited for");
  return fail(CUDA_ERROR_CAPTURED_EVENT, "a captured event was queried or waited for");
}

void forgetCapturedEvent(Event *e) {
  std::lock_guard lk(captures().mutex);
  captures().events.erase(e);
}

void forgetCapturingStream(Stream *s) {
  std::lock_guard lk(captures().mutex);
  if (auto c = captureOf(s)) {
    invalidate(*c, "a stream taking part was destroyed");
    if (c->origin == s) {
      detach(c);
      if (c->ownsGraph)
        destroyGraph(c->graph);
    } else {
      c->streams.erase(s);
      captures().byStream.erase(s);
      --active;
    }
  }
}

CUstreamCaptureMode exchangeCaptureMode(CUstreamCaptureMode mode) {
  std::swap(mode, threadMode);
  return mode;
}

CUresult unsafeDuringCapture() {
  if (!anyCapture() || threadMode == CU_STREAM_CAPTURE_MODE_RELAXED)
    return CUDA_SUCCESS;
  std::lock_guard lk(captures().mutex);
  bool forbidden = false;
  for (auto &[s, c] : captures().byStream) {
    const bool mine =
        c->thread == std::this_thread::get_id() && c->mode != CU_STREAM_CAPTURE_MODE_RELAXED;
    const bool global =
        threadMode == CU_STREAM_CAPTURE_MODE_GLOBAL && c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL;
    if (mine || global) { // invalidated captures still forbid them until they end
      invalidate(*c, "a potentially unsafe call (allocation or synchronisation)");
      forbidden = true;
    }
  }
  return forbidden ? fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                          "a potentially unsafe call (allocation or synchronisation) while a "
                          "stream is being captured")
                   : CUDA_SUCCESS;
}

CUresult contextWideDuringCapture(Context *ctx, Event *e) {
  if (!anyCapture())
    return CUDA_SUCCESS;
  std::lock_guard lk(captures().mutex);
  if (auto it = captures().events.find(e); it != captures().events.end()) {
    invalidate(*it->second.capture, "a context waits for an event recorded in the capture");
    return fail(CUDA_ERROR_CAPTURED_EVENT, "a context waits for an event recorded in the capture");
  }
  bool refused = false;
  for (auto &[s, c] : captures().byStream)
    if (s->context() == ctx) {
      invalidate(*c, "a context-wide event call while a stream of the context captures");
      refused = true;
    }
  return refused ? fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                        "a context-wide event call while a stream of the context captures")
                 : CUDA_SUCCESS;
}

CUresult uncapturable(Stream *s, const char *what) {
  if (!anyCapture())
    return CUDA_SUCCESS;
  std::lock_guard lk(captures().mutex);
  auto c = captureOf(s);
  if (!c)
    return CUDA_SUCCESS;
  invalidate(*c, what);
  return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "{} cannot be captured", what);
}

CUresult streamSyncDuringCapture(Stream *s) {
  if (!anyCapture())
    return CUDA_SUCCESS;
  if (s->legacy())
    if (CUresult r = legacyUseDuringCapture(s->context()); r != CUDA_SUCCESS)
      return r;
  {
    std::lock_guard lk(captures().mutex);
    if (auto c = captureOf(s)) {
      invalidate(*c, "the capturing stream was synchronised or queried");
      return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                  "the capturing stream was synchronised or queried");
    }
  }
  return unsafeDuringCapture();
}

CUresult legacyUseDuringCapture(Context *ctx, bool query) {
  if (!anyCapture())
    return CUDA_SUCCESS;
  std::lock_guard lk(captures().mutex);
  bool implicit = false;
  for (auto &[s, c] : captures().byStream)
    if (s->context() == ctx && s->blocking() && !s->legacy()) {
      if (!query)
        invalidate(*c, "the legacy stream was used while a blocking stream captures");
      implicit = true;
    }
  return implicit ? fail(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
                         "the legacy stream was used while a blocking stream captures")
                  : CUDA_SUCCESS;
}

} // namespace cucpu::driver
