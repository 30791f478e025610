// Dynamic parallelism: device-side launches recorded while a grid runs, with the device
// runtime's errors as an H200 reports them (tests/gpu/answers/dynamic_parallelism.txt).
#include "device_launches.h"

#include "cucpu/driver/context.h"
#include "cucpu/driver/device.h"
#include "cucpu/driver/module.h"
#include "cucpu/driver/sanitizer.h"
#include "cucpu/jit/program.h"
#include "cucpu/support/log.h"
#include "kernel_abi.h"

#include <algorithm>
#include <cstring>

namespace cucpu::driver {
namespace {

// cudaError_t values the device runtime returns.
constexpr int32_t kInvalidValue = 1;
constexpr int32_t kInvalidConfiguration = 9;
constexpr int32_t kLaunchPendingCountExceeded = 69;
constexpr int32_t kInvalidDeviceFunction = 98;

constexpr uint64_t kTailLaunchStream = 0x3; // cudaStreamTailLaunch
constexpr size_t kBufferAlign = 64;

} // namespace

int64_t DeviceLaunches::call(uint32_t op, const uint64_t *args, const uint32_t *where) {
  Thread who{};
  std::copy(where, where + 6, who.begin());
  switch (op) {
  case CUCPU_CDP_PARAM_BUFFER: {
    const jit::KernelInfo *k = parent_->module()->program().kernelAt(args[0]);
    Function *f = k ? parent_->module()->function(k->name) : nullptr;
    if (!f) {
      fail(kInvalidDeviceFunction, who);
      return 0;
    }
    return static_cast<int64_t>(parameterBuffer(f, args + 1, kBufferAlign, k->paramBytes, who));
  }
  case CUCPU_CDP_BUFFER:
    return static_cast<int64_t>(
        parameterBuffer(nullptr, nullptr, std::max<size_t>(args[0], kBufferAlign), args[1], who));
  case CUCPU_CDP_LAUNCH:
    return launch(args[0], args[1], who);
  case CUCPU_CDP_LAUNCH_FUNC: {
    const jit::KernelInfo *k = parent_->module()->program().kernelAt(args[0]);
    Function *f = k ? parent_->module()->function(k->name) : nullptr;
    if (!f)
      return fail(kInvalidDeviceFunction, who);
    int32_t error = 0;
    {
      std::lock_guard lk(mutex_);
      auto it = buffers_.find(args[1]);
      if (it == buffers_.end()) {
        error = kInvalidValue;
      } else {
        it->second.function = f;
        LaunchConfig &cfg = it->second.config;
        std::copy(args + 2, args + 5, cfg.grid);
        std::copy(args + 5, args + 8, cfg.block);
        cfg.sharedBytes = static_cast<unsigned>(args[8]);
        if (validateLaunch(f, cfg) != CUDA_SUCCESS) {
          buffers_.erase(it);
          error = kInvalidConfiguration;
        }
      }
    }
    return error ? fail(error, who) : launch(args[1], args[9], who);
  }
  case CUCPU_CDP_STREAM_CREATE: {
    // A handle of its own, never null nor one of the special streams (0x1-0x4): children run
    // depth first in launch order, which every stream's order allows.
    std::lock_guard lk(mutex_);
    return static_cast<int64_t>((++streams_ << 8) | 0x10);
  }
  case CUCPU_CDP_LAST_ERROR: {
    std::lock_guard lk(mutex_);
    auto it = lastError_.find(who);
    if (it == lastError_.end())
      return 0;
    const int32_t e = it->second;
    if (args[0])
      lastError_.erase(it);
    return e;
  }
  case CUCPU_CDP_GET_DEVICE:
    return ctx_->device()->ordinal();
  default:
    return fail(kInvalidValue, who);
  }
}

void FreeDeleter::operator()(void *p) const {
  sanitizer::removeRange(reinterpret_cast<uintptr_t>(p));
  std::free(p);
}

// A zeroed buffer for the parameters of a launch of `f` (null: cudaGetParameterBuffer, the
// function comes with the launch) with grid, block and shared bytes in `dims`; 0 when the
// shape is one `f` cannot be launched with.
uint64_t DeviceLaunches::parameterBuffer(Function *f, const uint64_t *dims, size_t align,
                                         size_t bytes, const Thread &who) {
  ChildLaunch c;
  c.function = f;
  if (f) {
    std::copy(dims, dims + 3, c.config.grid);
    std::copy(dims + 3, dims + 6, c.config.block);
    c.config.sharedBytes = static_cast<unsigned>(dims[6]);
    if (validateLaunch(f, c.config) != CUDA_SUCCESS) {
      fail(kInvalidConfiguration, who);
      return 0;
    }
  }
  if (align & (align - 1) || bytes > (size_t(1) << 20)) {
    fail(kInvalidValue, who);
    return 0;
  }
  const size_t size = (std::max<size_t>(bytes, 8) + align - 1) & ~(align - 1);
  c.buffer.reset(static_cast<uint8_t *>(std::aligned_alloc(align, size)));
  if (!c.buffer) {
    fail(kInvalidValue, who);
    return 0;
  }
  std::memset(c.buffer.get(), 0, size);
  const auto address = reinterpret_cast<uint64_t>(c.buffer.get());
  sanitizer::addRange(address, size); // the kernel writes the parameters there
  std::lock_guard lk(mutex_);
  buffers_.emplace(address, std::move(c));
  return address;
}

int32_t DeviceLaunches::launch(uint64_t buffer, uint64_t stream, const Thread &who) {
  std::lock_guard lk(mutex_);
  auto it = buffers_.find(buffer);
  if (it == buffers_.end() || !it->second.function) {
    lastError_[who] = kInvalidValue;
    return kInvalidValue;
  }
  // Every launch not yet complete counts, its ancestors' included (an H200 stops a chain of
  // launches at depth 2049 with the default limit of 2048). Read here, not at every host launch.
  size_t limit = 0;
  ctx_->limit(CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, &limit);
  if (tree_.pending.fetch_add(1) >= limit) {
    tree_.pending.fetch_sub(1);
    buffers_.erase(it);
    lastError_[who] = kLaunchPendingCountExceeded;
    return kLaunchPendingCountExceeded;
  }
  ChildLaunch c = std::move(it->second);
  buffers_.erase(it);
  c.tail = stream == kTailLaunchStream;
  launched_.push_back(std::move(c));
  return 0;
}

int32_t DeviceLaunches::fail(int32_t error, const Thread &who) {
  std::lock_guard lk(mutex_);
  lastError_[who] = error;
  log::debug(log::Component::Driver,
             "device runtime: error {} in block ({},{},{}) thread ({},{},{})", error, who[0],
             who[1], who[2], who[3], who[4], who[5]);
  return error;
}

std::vector<ChildLaunch> DeviceLaunches::takeLaunched() {
  std::lock_guard lk(mutex_);
  std::stable_partition(launched_.begin(), launched_.end(),
                        [](const ChildLaunch &c) { return !c.tail; });
  buffers_.clear();
  return std::move(launched_);
}

} // namespace cucpu::driver
