// Contexts: primary and created ones, the per-thread current-context stack, sticky errors, and
// the registry that tells live handles from stale ones.
#pragma once

#include "cucpu/driver/device.h"

#include <atomic>
#include <cuda.h>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

namespace cucpu::driver {

class Module;

class Context {
public:
  Context(Device *dev, unsigned flags, bool primary);
  ~Context();

  Device *device() const { return device_; }
  unsigned flags() const { return flags_; }
  void setFlags(unsigned flags) { flags_ = flags; }
  bool isPrimary() const { return primary_; }
  unsigned long long id() const { return id_; }

  // A kernel fault makes every later call on this context fail with the same error.
  CUresult stickyError() const { return sticky_.load(std::memory_order_acquire); }
  void setStickyError(CUresult e);

  // Modules loaded in this context (owned: destroyed with it).
  Module *addModule(std::unique_ptr<Module> m);
  bool removeModule(Module *m);

  // cuCtxSetLimit / cuCtxGetLimit: UNSUPPORTED_LIMIT for limits this driver does not have.
  CUresult limit(CUlimit which, size_t *value) const;
  CUresult setLimit(CUlimit which, size_t value);
  // A launch needs this much local memory per thread: CU_LIMIT_STACK_SIZE grows to it, as
  // NVIDIA's driver grows the stack for such a launch.
  void reserveStack(size_t bytesPerThread);
  // Bytes of the device heap (device malloc) in use, against CU_LIMIT_MALLOC_HEAP_SIZE.
  std::atomic<uint64_t> &deviceHeapUsed() { return heapUsed_; }

  // Preferences a GPU uses to split on-chip memory; recorded and reported back.
  std::atomic<CUfunc_cache> cacheConfig{CU_FUNC_CACHE_PREFER_NONE};
  std::atomic<CUsharedconfig> sharedConfig{CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE};

  // A green context's share of the worker pool (its SM resource): the most threads a grid of it
  // runs on at once; 0 for other contexts (all of the pool).
  unsigned workerLimit = 0;

  // cuCtxAttach/cuCtxDetach's usage count: 1 at creation, the last detach destroys.
  std::atomic<int> usage{1};

  // Contexts whose memory this one has enabled peer access to (guarded by `mutex`).
  std::set<const Context *> peers;

  mutable std::mutex mutex;

private:
  Device *device_;
  std::atomic<unsigned> flags_;
  bool primary_;
  unsigned long long id_;
  std::atomic<CUresult> sticky_{CUDA_SUCCESS};
  size_t limits_[CU_LIMIT_MAX];
  std::atomic<uint64_t> heapUsed_{0};
  std::vector<std::unique_ptr<Module>> modules_;
};

// Live-handle registry: contexts, modules and functions are looked up here before use.
bool isLiveContext(const Context *c);
// A handle of a context cuCtxDestroy destroyed (no live context has its address since).
bool isDestroyedContext(const Context *c);
void rememberDestroyed(const Context *c);
void registerContext(Context *c);
void unregisterContext(Context *c);

// The calling thread's context stack. `current()` is null when the stack is empty.
Context *current();
void setCurrent(Context *c); // replaces the top (pushes when empty); null pops
void push(Context *c);
Context *pop();
// Removes a destroyed context from this thread's stack.
void forgetOnThisThread(Context *c);

// Creates a context and makes it current on the calling thread. destroyContext frees it; a
// thread that still has it current gets CUDA_ERROR_CONTEXT_IS_DESTROYED from then on.
CUresult createContext(Device *dev, unsigned flags, Context **out);
// A green context's: limited to `workers` threads of the pool, and not made current.
CUresult createGreenContext(Device *dev, unsigned workers, Context **out);
CUresult destroyContext(Context *c);

// Primary contexts.
CUresult retainPrimary(Device *dev, Context **out);
CUresult releasePrimary(Device *dev);
CUresult resetPrimary(Device *dev);

} // namespace cucpu::driver
