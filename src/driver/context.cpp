// Context lifetime, the per-thread context stack, and primary contexts.
#include "cucpu/driver/context.h"
#include "cucpu/driver/image.h"

#include "cucpu/driver/memory.h"
#include "cucpu/driver/module.h"
#include "cucpu/driver/reason.h"
#include "cucpu/driver/sanitizer.h"
#include "cucpu/driver/stream.h"
#include "cucpu/exec/thread_pool.h"
#include "cucpu/support/env.h"
#include "cucpu/support/log.h"

#include <algorithm>
#include <unistd.h>
#include <unordered_set>

namespace cucpu::driver {
namespace {

std::mutex registryMutex;
std::unordered_set<const Context *> &liveContexts() {
  static auto *s = new std::unordered_set<const Context *>();
  return *s;
}
// Handles of contexts cuCtxDestroy destroyed, until a new context takes the same address: an
// H200 lets a program make them current (every call in them then answers CONTEXT_IS_DESTROYED)
// and answers their second destruction with CONTEXT_IS_DESTROYED. (A context its last
// cuCtxDetach destroyed is forgotten: INVALID_CONTEXT, tests/gpu/answers/old_launch.txt.)
std::unordered_set<const Context *> &destroyedContexts() {
  static auto *s = new std::unordered_set<const Context *>();
  return *s;
}
std::atomic<unsigned long long> nextContextId{1};

// The calling thread's context stack, reached through a trivially destructible thread-local
// pointer: exit handlers call the driver after the main thread's thread-local destructors have
// run (cuFFT frees its device memory at exit, with its context current), so the main thread's
// stack lives until the process ends. Another thread's stack is freed when the thread exits.
thread_local std::vector<Context *> *stackOfThread = nullptr;
struct StackRelease {
  bool armed = false;
  ~StackRelease() {
    if (gettid() != getpid()) {
      delete stackOfThread;
      stackOfThread = nullptr;
    }
  }
};
thread_local StackRelease stackRelease;

std::vector<Context *> &stack() {
  if (!stackOfThread) {
    stackOfThread = new std::vector<Context *>();
    stackRelease.armed = true; // constructed with the stack: its destructor frees it
  }
  return *stackOfThread;
}

} // namespace

Context::Context(Device *dev, unsigned flags, bool primary)
    : device_(dev), flags_(flags), primary_(primary),
      id_(nextContextId++), limits_{/* STACK_SIZE */ 1024,
                                    /* PRINTF_FIFO_SIZE */ 1 << 20,
                                    /* MALLOC_HEAP_SIZE */
                                    env::getSize("CUCPU_MALLOC_HEAP_SIZE", 8ull << 20),
                                    /* DEV_RUNTIME_SYNC_DEPTH */ 2,
                                    /* DEV_RUNTIME_PENDING_LAUNCH_COUNT */ 2048,
                                    /* MAX_L2_FETCH_GRANULARITY */ 64,
                                    /* PERSISTING_L2_CACHE_SIZE */ 0,
                                    /* SHMEM_SIZE */ 48 << 10,
                                    /* CIG_ENABLED */ 0,
                                    /* CIG_SHMEM_FALLBACK_ENABLED */ 0} {}

CUresult Context::limit(CUlimit which, size_t *value) const {
  if (static_cast<unsigned>(which) >= CU_LIMIT_MAX) // an H200's answer; read-only ones below
    return fail(CUDA_ERROR_INVALID_VALUE, "limit {} is unknown", static_cast<int>(which));
  std::lock_guard lk(mutex);
  *value = limits_[which];
  return CUDA_SUCCESS;
}

CUresult Context::setLimit(CUlimit which, size_t value) {
  switch (which) {
  case CU_LIMIT_STACK_SIZE: {
    // Rounded up to 16 bytes, as NVIDIA's driver does; refused when the stacks of a full
    // device's worth of threads (2048 per multiprocessor, one multiprocessor per worker) could
    // not fit in its memory.
    if (value > SIZE_MAX - 15)
      return fail(CUDA_ERROR_INVALID_VALUE, "a stack of {} bytes per thread", value);
    value = (value + 15) & ~size_t(15);
    const size_t threads = size_t(2048) * exec::defaultThreadCount();
    if (value > device_->totalMemory() / threads)
      return fail(CUDA_ERROR_INVALID_VALUE,
                  "stacks of {} bytes for {} resident threads exceed the device's memory", value,
                  threads);
    break;
  }
  case CU_LIMIT_PRINTF_FIFO_SIZE:
  case CU_LIMIT_MALLOC_HEAP_SIZE:
  case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH:
  case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT:
  case CU_LIMIT_PERSISTING_L2_CACHE_SIZE:
    break;
  case CU_LIMIT_MAX_L2_FETCH_GRANULARITY: // a power of two up to 128 bytes
    if (value > 128 || (value & (value - 1)) != 0)
      return fail(CUDA_ERROR_INVALID_VALUE, "{} is not a power of two up to 128 bytes", value);
    break;
  default: // the shared-memory size and CUDA-in-graphics limits are read-only here
    return static_cast<unsigned>(which) >= CU_LIMIT_MAX
               ? fail(CUDA_ERROR_INVALID_VALUE, "limit {} is unknown", static_cast<int>(which))
               : fail(CUDA_ERROR_UNSUPPORTED_LIMIT, "limit {} cannot be set",
                      static_cast<int>(which));
  }
  std::lock_guard lk(mutex);
  limits_[which] = value;
  return CUDA_SUCCESS;
}

void Context::reserveStack(size_t bytesPerThread) {
  std::lock_guard lk(mutex);
  size_t &limit = limits_[CU_LIMIT_STACK_SIZE];
  limit = std::max(limit, (bytesPerThread + 15) & ~size_t(15));
}

Context::~Context() {
  std::lock_guard lk(mutex);
  modules_.clear();
}

void Context::setStickyError(CUresult e) {
  CUresult expected = CUDA_SUCCESS;
  sticky_.compare_exchange_strong(expected, e);
}

Module *Context::addModule(std::unique_ptr<Module> m) {
  std::lock_guard lk(mutex);
  modules_.push_back(std::move(m));
  return modules_.back().get();
}

bool Context::removeModule(Module *m) {
  std::lock_guard lk(mutex);
  auto it = std::find_if(modules_.begin(), modules_.end(),
                         [&](const std::unique_ptr<Module> &p) { return p.get() == m; });
  if (it == modules_.end())
    return false;
  modules_.erase(it);
  return true;
}

bool isLiveContext(const Context *c) {
  std::lock_guard lk(registryMutex);
  return c && liveContexts().count(c);
}
bool isDestroyedContext(const Context *c) {
  std::lock_guard lk(registryMutex);
  return c && destroyedContexts().count(c);
}
void registerContext(Context *c) {
  std::lock_guard lk(registryMutex);
  liveContexts().insert(c);
  destroyedContexts().erase(c);
}
void unregisterContext(Context *c) {
  std::lock_guard lk(registryMutex);
  liveContexts().erase(c);
}
void rememberDestroyed(const Context *c) {
  std::lock_guard lk(registryMutex);
  destroyedContexts().insert(c);
}

Context *current() {
  return stackOfThread && !stackOfThread->empty() ? stackOfThread->back() : nullptr;
}

void setCurrent(Context *c) {
  std::vector<Context *> &s = stack();
  if (!c) {
    if (!s.empty())
      s.pop_back();
    return;
  }
  if (s.empty())
    s.push_back(c);
  else
    s.back() = c;
}

void push(Context *c) { stack().push_back(c); }

Context *pop() {
  std::vector<Context *> &s = stack();
  if (s.empty())
    return nullptr;
  Context *c = s.back();
  s.pop_back();
  return c;
}

void forgetOnThisThread(Context *c) { std::erase(stack(), c); }

CUresult createContext(Device *dev, unsigned flags, Context **out) {
  auto *c = new Context(dev, flags, false);
  registerContext(c);
  push(c);
  *out = c;
  log::debug(log::Component::Driver, "context {} created on device {}", c->id(), dev->ordinal());
  return CUDA_SUCCESS;
}

CUresult createGreenContext(Device *dev, unsigned workers, Context **out) {
  auto *c = new Context(dev, 0, false);
  c->workerLimit = workers;
  registerContext(c);
  *out = c;
  log::debug(log::Component::Driver, "green context {} of {} workers on device {}", c->id(),
             workers, dev->ordinal());
  return CUDA_SUCCESS;
}

CUresult destroyContext(Context *c) {
  unregisterContext(c);
  releaseStreamsAndEvents(c);
  {
    std::lock_guard lk(registryMutex);
    for (const Context *other : liveContexts()) {
      std::lock_guard peerLock(other->mutex);
      const_cast<Context *>(other)->peers.erase(c);
    }
  }
  sanitizer::contextDestroyed(c);
  memory().releaseContext(c);
  releaseImages(c);
  log::debug(log::Component::Driver, "context {} destroyed", c->id());
  delete c;
  return CUDA_SUCCESS;
}

CUresult retainPrimary(Device *dev, Context **out) {
  std::lock_guard lk(dev->primaryMutex);
  if (!dev->primary) {
    dev->primary = new Context(dev, dev->primaryFlags, true);
    registerContext(dev->primary);
  }
  ++dev->primaryRefs;
  *out = dev->primary;
  return CUDA_SUCCESS;
}

CUresult releasePrimary(Device *dev) {
  Context *dead = nullptr;
  {
    std::lock_guard lk(dev->primaryMutex);
    if (!dev->primary || dev->primaryRefs == 0)
      return fail(CUDA_ERROR_INVALID_CONTEXT, "the device's primary context is not retained");
    if (--dev->primaryRefs == 0) {
      dead = dev->primary;
      dev->primary = nullptr;
    }
  }
  if (dead)
    destroyContext(dead);
  return CUDA_SUCCESS;
}

CUresult resetPrimary(Device *dev) {
  Context *dead = nullptr;
  {
    std::lock_guard lk(dev->primaryMutex);
    dead = dev->primary;
    dev->primary = nullptr;
    dev->primaryRefs = 0;
  }
  if (dead)
    destroyContext(dead);
  return CUDA_SUCCESS;
}

} // namespace cucpu::driver
