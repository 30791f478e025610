// Dynamic parallelism (CDP2): the grids a grid launches from device code, their parameter
// buffers, device-side streams and last errors. Children run after the grid that launched them,
// depth first (launch.cpp), which CDP2 allows: a parent cannot wait for its children, and a
// grid is complete only when its descendants are.
#pragma once

#include "cucpu/driver/launch.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace cucpu::driver {

class Context;
class Function;

// A parameter buffer goes back to the C heap; memcheck stops accepting kernels' stores to it.
struct FreeDeleter {
  void operator()(void *p) const;
};

// One device-side launch: its function, shape and parameter buffer.
struct ChildLaunch {
  Function *function = nullptr;
  LaunchConfig config;
  std::unique_ptr<uint8_t, FreeDeleter> buffer;
  bool tail = false; // into cudaStreamTailLaunch: after the grid's other children
};

// The launches of one tree of grids (a host launch and its descendants): launched children not
// yet complete, against the context's CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT.
struct LaunchTree {
  std::atomic<uint64_t> pending{0};
};

// The device runtime of one grid (cucpu_services.device_runtime).
class DeviceLaunches {
public:
  DeviceLaunches(Context *ctx, Function *parent, LaunchTree &tree)
      : ctx_(ctx), parent_(parent), tree_(tree) {}
  // A CUCPU_CDP_* operation from thread `where` ({ctaid, tid}).
  int64_t call(uint32_t op, const uint64_t *args, const uint32_t *where);
  // The children the grid launched, in launch order, tail launches last.
  std::vector<ChildLaunch> takeLaunched();

private:
  using Thread = std::array<uint32_t, 6>;
  uint64_t parameterBuffer(Function *f, const uint64_t *dims, size_t align, size_t bytes,
                           const Thread &who);
  int32_t launch(uint64_t buffer, uint64_t stream, const Thread &who);
  int32_t fail(int32_t error, const Thread &who); // records the thread's last error

  Context *ctx_;
  Function *parent_;
  LaunchTree &tree_;
  std::mutex mutex_;
  std::unordered_map<uint64_t, ChildLaunch> buffers_; // by buffer address, until launched
  std::vector<ChildLaunch> launched_;
  std::map<Thread, int32_t> lastError_;
  uint64_t streams_ = 0;
};

} // namespace cucpu::driver
