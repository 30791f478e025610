// Stream capture: operations queued on a capturing stream become nodes of a graph instead of
// running; events carry dependencies from stream to stream; the calls a capture forbids
// invalidate it with NVIDIA's errors (tests/gpu/answers/graphs.txt).
#pragma once

#include "cucpu/driver/graph.h"

#include <cuda.h>

#include <vector>

namespace cucpu::driver {

class Context;
class Event;
class Stream;

// Starts a capture on `s`, into `into` (behind `deps`) or a new graph.
CUresult beginCapture(Stream *s, Graph *into, Node *const *deps, size_t count,
                      CUstreamCaptureMode mode);
// Ends the capture `s` began; the graph, or null with the capture's error.
CUresult endCapture(Stream *s, Graph **out);

struct CaptureState {
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  unsigned long long id = 0;
  Graph *graph = nullptr;
  const std::vector<Node *> *deps = nullptr; // valid until the stream's next captured operation
};
CaptureState captureState(Stream *s);

// Whether any stream is capturing (cheap: the common case of no capture costs one load).
bool anyCapture();
// Whether `s` takes part in a capture (active or invalidated).
bool capturing(Stream *s);
// Adds `spec` to the capture of `s` behind its dependencies, which become the new node
// (STREAM_CAPTURE_INVALIDATED if the capture was invalidated).
CUresult captureNode(Stream *s, NodeSpec spec, Node **out = nullptr);
CUresult updateCaptureDependencies(Stream *s, Node *const *deps, size_t count, unsigned flags);

// cuEventRecord on a capturing stream: the event stands for the stream's dependencies.
CUresult captureEventRecord(Event *e, Stream *s);
// cuStreamWaitEvent of an event recorded in a capture: `s` joins it (or merges the dependencies);
// *handled false when `e` was not recorded in a capture.
CUresult captureEventWait(Stream *s, Event *e, bool *handled);
// Querying or synchronising with an event recorded in a capture (STREAM_CAPTURE_UNSUPPORTED...).
CUresult capturedEventUse(Event *e);
void forgetCapturedEvent(Event *e);
void forgetCapturingStream(Stream *s);

// The calling thread's capture interaction mode (cuThreadExchangeStreamCaptureMode).
CUstreamCaptureMode exchangeCaptureMode(CUstreamCaptureMode mode);
// A potentially unsafe call (allocation, synchronisation): STREAM_CAPTURE_UNSUPPORTED and the
// captures it would break invalidated, if the calling thread's mode forbids it.
CUresult unsafeDuringCapture();
// cuCtxRecordEvent / cuCtxWaitEvent while a stream of `ctx` captures (STREAM_CAPTURE_UNSUPPORTED)
// or with an event `e` recorded in a capture (CAPTURED_EVENT), those captures invalidated.
CUresult contextWideDuringCapture(Context *ctx, Event *e);
// Stream work that cannot be captured (callbacks, prefetches, attachments) on a capturing
// stream: STREAM_CAPTURE_UNSUPPORTED, and the capture invalidated.
CUresult uncapturable(Stream *s, const char *what);
// Synchronising with or querying `s` itself while it captures.
CUresult streamSyncDuringCapture(Stream *s);
// Work on the legacy stream of `ctx` (or a synchronous call) while one of its blocking streams
// captures: STREAM_CAPTURE_IMPLICIT, and those captures invalidated (not by a capture `query`).
CUresult legacyUseDuringCapture(Context *ctx, bool query = false);

} // namespace cucpu::driver
