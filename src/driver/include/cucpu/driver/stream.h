// Streams and events. A stream is an ordered queue of operations run by its own executor thread
// (started on demand, gone after a while idle). Every context has a legacy default stream of the
// same kind, queued like the others; its operations wait for the work queued before them on the
// context's blocking streams, and blocking streams' operations wait for the legacy stream's work
// queued before them: CUDA's legacy synchronisation, without blocking the caller.
#pragma once

#include <cuda.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace cucpu::driver {

class Context;

// What cuStreamGetAttribute/SetAttribute read and write, with the values NVIDIA's driver reports
// for a new stream (tests/gpu/record_streams.cpp). On a CPU none of them changes how work runs.
struct StreamAttributes {
  CUaccessPolicyWindow accessPolicyWindow{};
  int syncPolicy = -1; // none chosen: the driver reports 0xffffffff
  CUlaunchMemSyncDomainMap memSyncDomainMap{0, 1};
  CUlaunchMemSyncDomain memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT;
  int priority = 0;
  // INVALID_VALUE for attributes streams do not have and for values out of range.
  CUresult get(CUstreamAttrID id, CUstreamAttrValue *out) const;
  CUresult set(CUstreamAttrID id, const CUstreamAttrValue &value);
};

// How far a stream has got: operations are numbered from 1 in enqueue order.
struct Progress {
  std::mutex mutex;
  std::condition_variable cv;
  unsigned long long completed = 0;
  void waitFor(unsigned long long seq);
  bool reached(unsigned long long seq);
};

// How far an interprocess event's records have come, in memory its processes share: records
// are numbered, and `completed` is the highest whose work has run.
struct SharedCompletion {
  std::atomic<unsigned long long> recorded{0}, completed{0};
};

// A point in a stream's order: reached when its operations up to `seq` have run; or, for an
// event opened from another process, when the shared completion reaches `seq`.
struct StreamPoint {
  std::shared_ptr<Progress> progress;
  unsigned long long seq = 0;
  std::shared_ptr<SharedCompletion> shared;
  bool reached() const;
  void wait() const;
};
using StreamPoints = std::vector<StreamPoint>;
void waitFor(const StreamPoints &points);

class Stream {
public:
  Stream(Context *ctx, unsigned flags, int priority, bool legacy = false);
  ~Stream(); // waits for the queued work
  Context *context() const { return ctx_; }
  unsigned flags() const { return flags_; }
  int priority() const;
  StreamAttributes attributes() const;
  void setAttributes(const StreamAttributes &a);
  unsigned long long id() const { return id_; }
  bool blocking() const { return !(flags_ & CU_STREAM_NON_BLOCKING); }
  bool legacy() const { return legacy_; }

  // Queues `op` behind the work it must follow (legacy ordering); returns its sequence number.
  unsigned long long enqueue(std::function<void()> op);
  // Waits for every queued operation; returns the first asynchronous error since the last call.
  CUresult synchronize();
  // Waits for every queued operation, leaving any asynchronous error to be reported later.
  void drain();
  bool idle();
  std::shared_ptr<Progress> progress() const { return progress_; }
  // An error of an operation that ran asynchronously (reported by the next synchronisation).
  void setError(CUresult e);

private:
  unsigned long long push(std::function<void()> op);
  unsigned long long pushAfter(StreamPoints after, std::function<void()> op);
  // The points of the context's cuCtxWaitEvent calls this stream has not waited for yet.
  StreamPoints contextWaits();
  unsigned long long contextWaitsSeen_ = 0; // guarded by the registry's mutex
  unsigned long long enqueued();
  void run();
  Context *ctx_;
  unsigned flags_;
  bool legacy_;
  std::atomic<Stream *> legacyOfContext_{nullptr}; // a blocking stream's legacy stream
  StreamAttributes attrs_;                         // guarded by mutex_
  unsigned long long id_;
  std::shared_ptr<Progress> progress_;
  mutable std::mutex mutex_;
  std::deque<std::function<void()>> queue_;
  unsigned long long enqueued_ = 0;
  bool running_ = false;
  bool closing_ = false; // the destructor wants the executor gone
  std::condition_variable work_;
  CUresult error_ = CUDA_SUCCESS;
  std::thread executor_;
};

class Event {
public:
  explicit Event(unsigned flags) : flags_(flags) {}
  // An interprocess event: its records also count in `shared` (a memory file's page), which an
  // event opened in another process (`opened`) waits on.
  Event(unsigned flags, std::shared_ptr<SharedCompletion> shared, int fd, bool opened)
      : flags_(flags), shared_(std::move(shared)), fd_(fd), opened_(opened) {}
  ~Event();
  int sharedFd() const { return fd_; }
  bool opened() const { return opened_; }
  unsigned flags() const { return flags_; }
  // Records the event in `s`: it completes when the work queued there so far has.
  void record(Stream *s);
  // Records it in every stream of `streams` (cuCtxRecordEvent): it completes when all have.
  void recordAll(const std::vector<Stream *> &streams);
  bool recorded();
  bool complete();
  void synchronize();
  // Milliseconds from `start` to `end`; NOT_READY until both completed.
  static CUresult elapsed(Event *start, Event *end, float *ms);
  // The points a waiter must reach (none: nothing to wait for).
  StreamPoints points();

private:
  std::chrono::steady_clock::time_point time(); // when it completed
  unsigned flags_;
  std::mutex mutex_;
  bool recorded_ = false;
  StreamPoints points_;
  // When the last of its streams reached it (nanoseconds of the steady clock).
  std::shared_ptr<std::atomic<long long>> time_;
  std::shared_ptr<SharedCompletion> shared_;
  int fd_ = -1;
  bool opened_ = false;
};

// Streams of a context (registry; handles are checked here before use).
CUresult createStream(Context *ctx, unsigned flags, int priority, Stream **out);
CUresult destroyStream(Stream *s);
bool isLiveStream(const Stream *s);
// The calling thread's per-thread default stream in `ctx`.
Stream *perThreadStream(Context *ctx);
// The legacy default stream of `ctx`.
Stream *legacyStream(Context *ctx);
// Before a synchronous call: waits until the legacy stream and every blocking stream of `ctx`
// have drained; the sticky error.
CUresult syncLegacy(Context *ctx);
// Whether every blocking stream of `ctx` (the legacy stream included) has run its work.
bool blockingStreamsIdle(Context *ctx);
// At the context's destruction: waits for its streams' work, then forgets them and deletes its
// events (their handles are invalid from then on).
void releaseStreamsAndEvents(Context *ctx);
// Waits for every stream of `ctx`; the first asynchronous error, else the sticky error.
CUresult synchronizeStreams(Context *ctx);

// cuCtxRecordEvent: records `e` in every stream of `ctx`. cuCtxWaitEvent: the work queued next on
// each stream of `ctx` (those created later too) waits for `points`.
void recordContext(Context *ctx, Event *e);
void waitContext(Context *ctx, const StreamPoints &points);

// Events (registry), each of the context current when it was created.
void registerEvent(Event *e, const Context *ctx);
void unregisterEvent(Event *e);
bool isLiveEvent(const Event *e);
const Context *eventContext(const Event *e);

} // namespace cucpu::driver
