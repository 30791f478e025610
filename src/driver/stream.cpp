// Streams (ordered queues with an on-demand executor thread), events, and the stream registry.
#include "cucpu/driver/stream.h"

#include "cucpu/driver/capture.h"

#include "cucpu/driver/context.h"
#include "cucpu/driver/mem_pool.h"
#include "cucpu/driver/reason.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <unistd.h>

namespace cucpu::driver {
namespace {

struct Registry {
  std::mutex mutex;
  // Held while a blocking or legacy stream reads what it must follow and queues: one order
  // among those enqueues, so that two streams never wait for each other.
  std::mutex order;
  std::map<const Context *, std::vector<std::shared_ptr<Stream>>> byContext;
  std::map<const Context *, Stream *> legacy;
  std::unordered_map<Event *, const Context *> events; // live events and their contexts
  // Per-thread default streams, by (context id, thread).
  std::map<std::pair<unsigned long long, std::thread::id>, Stream *> perThread;
  std::unordered_set<const void *> live;
  // cuCtxWaitEvent: the points each context's future work waits for, numbered by generation.
  struct ContextWaits {
    unsigned long long generation = 0;
    std::vector<std::pair<unsigned long long, StreamPoints>> pending;
  };
  std::map<const Context *, ContextWaits> contextWaits;
};
std::atomic<bool> anyContextWaits{false};
Registry &registry() {
  static auto *r = new Registry();
  return *r;
}

std::vector<std::shared_ptr<Stream>> streamsOf(const Context *ctx) {
  Registry &r = registry();
  std::lock_guard lk(r.mutex);
  auto it = r.byContext.find(ctx);
  return it == r.byContext.end() ? std::vector<std::shared_ptr<Stream>>() : it->second;
}

std::atomic<unsigned long long> nextStreamId{1};

// How long an idle executor waits for more work before its thread ends: a stream used in a loop
// keeps one thread instead of starting one per operation.
constexpr auto kLinger = std::chrono::milliseconds(20);

} // namespace

void Progress::waitFor(unsigned long long seq) {
  std::unique_lock lk(mutex);
  cv.wait(lk, [&] { return completed >= seq; });
}

bool Progress::reached(unsigned long long seq) {
  std::lock_guard lk(mutex);
  return completed >= seq;
}

Stream::Stream(Context *ctx, unsigned flags, int priority, bool legacy)
    : ctx_(ctx), flags_(flags), legacy_(legacy), id_(legacy ? 0 : nextStreamId++),
      progress_(std::make_shared<Progress>()) {
  attrs_.priority = priority;
}

int Stream::priority() const {
  std::lock_guard lk(mutex_);
  return attrs_.priority;
}

StreamAttributes Stream::attributes() const {
  std::lock_guard lk(mutex_);
  return attrs_;
}

void Stream::setAttributes(const StreamAttributes &a) {
  std::lock_guard lk(mutex_);
  attrs_ = a;
}

CUresult StreamAttributes::get(CUstreamAttrID id, CUstreamAttrValue *out) const {
  switch (id) { // only the member of the union that the attribute names is written
  case CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    out->accessPolicyWindow = accessPolicyWindow;
    return CUDA_SUCCESS;
  case CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY:
    out->syncPolicy = static_cast<CUsynchronizationPolicy>(syncPolicy);
    return CUDA_SUCCESS;
  case CU_STREAM_ATTRIBUTE_PRIORITY:
    out->priority = priority;
    return CUDA_SUCCESS;
  case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    out->memSyncDomainMap = memSyncDomainMap;
    return CUDA_SUCCESS;
  case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN:
    out->memSyncDomain = memSyncDomain;
    return CUDA_SUCCESS;
  default:
    return fail(CUDA_ERROR_INVALID_VALUE, "id = {} is not a value this call takes",
                static_cast<long long>(id));
  }
}

CUresult StreamAttributes::set(CUstreamAttrID id, const CUstreamAttrValue &v) {
  switch (id) {
  case CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    if (v.accessPolicyWindow.hitRatio < 0.0f || v.accessPolicyWindow.hitRatio > 1.0f)
      return fail(CUDA_ERROR_INVALID_VALUE, "hitRatio {} is not in [0, 1]",
                  v.accessPolicyWindow.hitRatio);
    accessPolicyWindow = v.accessPolicyWindow;
    return CUDA_SUCCESS;
  case CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY:
    if (v.syncPolicy < CU_SYNC_POLICY_AUTO || v.syncPolicy > CU_SYNC_POLICY_BLOCKING_SYNC)
      return fail(CUDA_ERROR_INVALID_VALUE, "sync policy {} is unknown",
                  static_cast<int>(v.syncPolicy));
    syncPolicy = v.syncPolicy;
    return CUDA_SUCCESS;
  case CU_STREAM_ATTRIBUTE_PRIORITY: // clamped into cuCtxGetStreamPriorityRange's 0 .. -5
    priority = std::clamp(v.priority, -5, 0);
    return CUDA_SUCCESS;
  case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    memSyncDomainMap = v.memSyncDomainMap;
    return CUDA_SUCCESS;
  case CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN:
    if (v.memSyncDomain != CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT &&
        v.memSyncDomain != CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE)
      return fail(CUDA_ERROR_INVALID_VALUE, "memory sync domain {} is unknown",
                  static_cast<int>(v.memSyncDomain));
    memSyncDomain = v.memSyncDomain;
    return CUDA_SUCCESS;
  default:
    return fail(CUDA_ERROR_INVALID_VALUE, "id = {} is not a value this call takes",
                static_cast<long long>(id));
  }
}

Stream::~Stream() {
  drain();
  std::thread t;
  {
    std::lock_guard lk(mutex_);
    closing_ = true;
    t = std::move(executor_);
  }
  work_.notify_all();
  if (t.joinable())
    t.join();
}

unsigned long long Stream::enqueued() {
  std::lock_guard lk(mutex_);
  return enqueued_;
}

StreamPoints Stream::contextWaits() {
  if (!anyContextWaits.load(std::memory_order_acquire))
    return {};
  Registry &r = registry();
  std::lock_guard lk(r.mutex);
  StreamPoints points;
  auto it = r.contextWaits.find(ctx_);
  if (it == r.contextWaits.end())
    return points;
  for (auto &[generation, waits] : it->second.pending)
    if (generation > contextWaitsSeen_)
      points.insert(points.end(), waits.begin(), waits.end());
  contextWaitsSeen_ = it->second.generation;
  return points;
}

unsigned long long Stream::pushAfter(StreamPoints after, std::function<void()> op) {
  if (after.empty())
    return push(std::move(op));
  return push([after = std::move(after), op = std::move(op)] {
    waitFor(after);
    op();
  });
}

unsigned long long Stream::enqueue(std::function<void()> op) {
  StreamPoints after = contextWaits(); // cuCtxWaitEvent: the context's future work waits
  if (!blocking())
    return pushAfter(std::move(after), std::move(op));
  Registry &r = registry();
  std::lock_guard order(r.order);
  auto follow = [&](Stream *other) {
    if (unsigned long long seq = other->enqueued(); !other->progress_->reached(seq))
      after.push_back({other->progress_, seq, nullptr});
  };
  if (legacy_) {
    for (auto &other : streamsOf(ctx_))
      if (other.get() != this && other->blocking())
        follow(other.get());
  } else {
    // The context's legacy stream lives as long as this one: looked up once, not per launch.
    Stream *legacy = legacyOfContext_.load(std::memory_order_acquire);
    if (!legacy) {
      legacy = legacyStream(ctx_);
      legacyOfContext_.store(legacy, std::memory_order_release);
    }
    follow(legacy);
  }
  return pushAfter(std::move(after), std::move(op));
}

unsigned long long Stream::push(std::function<void()> op) {
  std::lock_guard lk(mutex_);
  queue_.push_back(std::move(op));
  unsigned long long seq = ++enqueued_;
  if (running_) {
    work_.notify_one();
  } else {
    if (executor_.joinable())
      executor_.join(); // the previous executor found the queue empty and is leaving
    running_ = true;
    executor_ = std::thread([this] { run(); });
  }
  return seq;
}

void Stream::run() {
  std::unique_lock lk(mutex_);
  for (;;) {
    if (!work_.wait_for(lk, kLinger, [&] { return !queue_.empty() || closing_; }) ||
        queue_.empty()) {
      running_ = false;
      return;
    }
    std::function<void()> op = std::move(queue_.front());
    queue_.pop_front();
    lk.unlock();
    op();
    op = nullptr; // what it holds (a graph's schedule, user objects) goes before it completes
    {
      std::lock_guard plk(progress_->mutex);
      ++progress_->completed;
    }
    progress_->cv.notify_all();
    lk.lock();
  }
}

void Stream::drain() {
  unsigned long long last;
  {
    std::lock_guard lk(mutex_);
    last = enqueued_;
  }
  progress_->waitFor(last);
}

CUresult Stream::synchronize() {
  drain();
  trimPoolsToThresholds(); // a synchronisation point of the stream-ordered allocator
  std::lock_guard lk(mutex_);
  CUresult e = error_;
  error_ = CUDA_SUCCESS;
  return e != CUDA_SUCCESS ? e : ctx_->stickyError();
}

bool Stream::idle() {
  std::lock_guard lk(mutex_);
  return progress_->reached(enqueued_);
}

void Stream::setError(CUresult e) {
  std::lock_guard lk(mutex_);
  if (error_ == CUDA_SUCCESS)
    error_ = e;
}

bool StreamPoint::reached() const {
  return shared ? shared->completed.load(std::memory_order_acquire) >= seq : progress->reached(seq);
}

void StreamPoint::wait() const {
  if (!shared) {
    progress->waitFor(seq);
    return;
  }
  // Another process completes it: poll, spinning briefly, then yielding, then sleeping.
  for (unsigned i = 0; !reached(); ++i) {
    if (i < 64)
      continue;
    if (i < 256)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
}

void waitFor(const StreamPoints &points) {
  for (const StreamPoint &p : points)
    p.wait();
}

Event::~Event() {
  if (fd_ >= 0)
    close(fd_);
}

void Event::record(Stream *s) { recordAll({s}); }

void Event::recordAll(const std::vector<Stream *> &streams) {
  std::lock_guard lk(mutex_);
  recorded_ = true;
  auto time = std::make_shared<std::atomic<long long>>(0);
  time_ = time;
  points_.clear();
  // An interprocess record is numbered; its work raises the shared completion to that number.
  const unsigned long long number = shared_ ? ++shared_->recorded : 0;
  for (Stream *s : streams) {
    const unsigned long long seq = s->enqueue([time, shared = shared_, number] {
      const long long now = std::chrono::steady_clock::now().time_since_epoch().count();
      long long seen = time->load();
      while (seen < now && !time->compare_exchange_weak(seen, now)) {
      }
      if (shared) {
        unsigned long long done = shared->completed.load();
        while (done < number && !shared->completed.compare_exchange_weak(done, number)) {
        }
      }
    });
    points_.push_back({s->progress(), seq, nullptr});
  }
}

std::chrono::steady_clock::time_point Event::time() {
  std::lock_guard lk(mutex_);
  return std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(time_->load()));
}

bool Event::recorded() {
  std::lock_guard lk(mutex_);
  return recorded_;
}

bool Event::complete() {
  for (const StreamPoint &p : points())
    if (!p.reached())
      return false;
  return true;
}

void Event::synchronize() {
  waitFor(points());
  trimPoolsToThresholds();
}

StreamPoints Event::points() {
  std::lock_guard lk(mutex_);
  if (opened_) // the records of every process: the latest one so far
    return {StreamPoint{nullptr, shared_->recorded.load(std::memory_order_acquire), shared_}};
  return points_;
}

CUresult Event::elapsed(Event *start, Event *end, float *ms) {
  if ((start->flags() | end->flags()) & CU_EVENT_DISABLE_TIMING)
    return fail(CUDA_ERROR_INVALID_HANDLE, "an event was created with CU_EVENT_DISABLE_TIMING");
  if (!start->recorded() || !end->recorded())
    return fail(CUDA_ERROR_INVALID_HANDLE, "an event has not been recorded");
  if (!start->complete() || !end->complete())
    return fail(CUDA_ERROR_NOT_READY, "an event's work has not finished");
  *ms = std::chrono::duration<float, std::milli>(end->time() - start->time()).count();
  return CUDA_SUCCESS;
}

CUresult createStream(Context *ctx, unsigned flags, int priority, Stream **out) {
  auto s = std::make_shared<Stream>(ctx, flags, priority);
  Registry &r = registry();
  std::lock_guard lk(r.mutex);
  r.byContext[ctx].push_back(s);
  r.live.insert(s.get());
  *out = s.get();
  return CUDA_SUCCESS;
}

CUresult destroyStream(Stream *s) {
  std::shared_ptr<Stream> keep;
  {
    Registry &r = registry();
    std::lock_guard lk(r.mutex);
    if (!r.live.erase(s))
      return fail(CUDA_ERROR_INVALID_HANDLE, "the stream is not live");
    auto &v = r.byContext[s->context()];
    auto it = std::find_if(v.begin(), v.end(), [&](auto &p) { return p.get() == s; });
    keep = std::move(*it);
    v.erase(it);
  }
  forgetCapturingStream(s);
  return CUDA_SUCCESS; // `keep` waits for the stream's work as it goes
}

bool isLiveStream(const Stream *s) {
  Registry &r = registry();
  std::lock_guard lk(r.mutex);
  return s && r.live.count(s);
}

Stream *perThreadStream(Context *ctx) {
  Registry &r = registry();
  std::lock_guard lk(r.mutex);
  Stream *&s = r.perThread[{ctx->id(), std::this_thread::get_id()}];
  if (!s) {
    auto p = std::make_shared<Stream>(ctx, CU_STREAM_DEFAULT, 0);
    r.byContext[ctx].push_back(p);
    s = p.get();
  }
  return s;
}

Stream *legacyStream(Context *ctx) {
  Registry &r = registry();
  std::lock_guard lk(r.mutex);
  Stream *&s = r.legacy[ctx];
  if (!s) {
    auto p = std::make_shared<Stream>(ctx, CU_STREAM_DEFAULT, 0, /*legacy=*/true);
    r.byContext[ctx].push_back(p);
    s = p.get();
  }
  return s;
}

CUresult syncLegacy(Context *ctx) {
  if (CUresult r = legacyUseDuringCapture(ctx); r != CUDA_SUCCESS)
    return r;
  for (auto &s : streamsOf(ctx))
    if (s->blocking())
      s->drain();
  return ctx->stickyError();
}

bool blockingStreamsIdle(Context *ctx) {
  for (auto &s : streamsOf(ctx))
    if (s->blocking() && !s->idle())
      return false;
  return true;
}

void releaseStreamsAndEvents(Context *ctx) {
  std::vector<std::shared_ptr<Stream>> streams;
  std::vector<std::unique_ptr<Event>> events;
  {
    Registry &r = registry();
    std::lock_guard lk(r.mutex);
    for (auto it = r.events.begin(); it != r.events.end();) {
      if (it->second != ctx) {
        ++it;
        continue;
      }
      r.live.erase(it->first);
      events.emplace_back(it->first);
      it = r.events.erase(it);
    }
    if (auto it = r.byContext.find(ctx); it != r.byContext.end()) {
      streams = std::move(it->second);
      r.byContext.erase(it);
    }
    r.legacy.erase(ctx);
    r.contextWaits.erase(ctx);
    std::erase_if(r.perThread, [&](auto &entry) { return entry.first.first == ctx->id(); });
    for (auto &s : streams)
      r.live.erase(s.get());
  }
  streams.clear(); // each waits for its work as it goes
}

CUresult synchronizeStreams(Context *ctx) {
  CUresult first = CUDA_SUCCESS;
  for (auto &s : streamsOf(ctx)) {
    CUresult e = s->synchronize();
    if (first == CUDA_SUCCESS)
      first = e;
  }
  return first != CUDA_SUCCESS ? first : ctx->stickyError();
}

void registerEvent(Event *e, const Context *ctx) {
  Registry &r = registry();
  std::lock_guard lk(r.mutex);
  r.live.insert(e);
  r.events[e] = ctx;
}
void unregisterEvent(Event *e) {
  Registry &r = registry();
  std::lock_guard lk(r.mutex);
  r.live.erase(e);
  r.events.erase(e);
}
const Context *eventContext(const Event *e) {
  Registry &r = registry();
  std::lock_guard lk(r.mutex);
  auto it = r.events.find(const_cast<Event *>(e));
  return it == r.events.end() ? nullptr : it->second;
}

void recordContext(Context *ctx, Event *e) {
  std::vector<Stream *> all;
  auto streams = streamsOf(ctx);
  for (auto &s : streams)
    all.push_back(s.get());
  e->recordAll(all);
}

void waitContext(Context *ctx, const StreamPoints &points) {
  if (points.empty())
    return;
  Registry &r = registry();
  std::lock_guard lk(r.mutex);
  auto &waits = r.contextWaits[ctx];
  std::erase_if(waits.pending, [](const auto &entry) { // those already over
    return std::all_of(entry.second.begin(), entry.second.end(),
                       [](const StreamPoint &p) { return p.reached(); });
  });
  waits.pending.emplace_back(++waits.generation, points);
  anyContextWaits.store(true, std::memory_order_release);
}

bool isLiveEvent(const Event *e) {
  Registry &r = registry();
  std::lock_guard lk(r.mutex);
  return e && r.live.count(e);
}

} // namespace cucpu::driver
