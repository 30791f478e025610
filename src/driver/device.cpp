// Virtual device creation and identity (name, memory size, UUID, compute capability).
#include "cucpu/driver/device.h"

#include "cucpu/exec/thread_pool.h"
#include "cucpu/support/env.h"
#include "cucpu/support/log.h"

#include <atomic>
#include <memory>
#include <unistd.h>
#include <vector>

namespace cucpu::driver {
namespace {

std::vector<std::unique_ptr<Device>> &devices() {
  static auto *d = new std::vector<std::unique_ptr<Device>>();
  return *d;
}
std::once_flag initOnce;
std::atomic<bool> initDone{false};

} // namespace

Device::Device(int ordinal) : ordinal_(ordinal) {
  name_ = "cucpu CPU device";
  if (ordinal > 0)
    name_ += " " + std::to_string(ordinal);
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  uint64_t physical = pages > 0 && pageSize > 0 ? uint64_t(pages) * uint64_t(pageSize) : (8ull << 30);
  totalMemory_ = env::getSize("CUCPU_DEVICE_MEMORY", physical / 2);
  // A stable, recognisable UUID: "cucpu" + the ordinal, version-4 style bits.
  const uint8_t base[16] = {'c', 'u', 'c', 'p', 'u', 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0,
                            static_cast<uint8_t>(ordinal)};
  for (int i = 0; i < 16; ++i)
    uuid_.bytes[i] = static_cast<char>(base[i]);
  int64_t cc = env::getInt("CUCPU_COMPUTE_CAPABILITY", 80); // e.g. 80 for 8.0, 90 for 9.0
  if (cc < 50 || cc > 129)
    cc = 80;
  ccMajor_ = static_cast<int>(cc / 10);
  ccMinor_ = static_cast<int>(cc % 10);
  multiprocessors_ = exec::defaultThreadCount();
}

CUresult initialize(unsigned flags) {
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::call_once(initOnce, [] {
    int64_t n = env::getInt("CUCPU_DEVICES", 1);
    if (n < 1 || n > 64)
      n = 1;
    for (int i = 0; i < n; ++i)
      devices().push_back(std::make_unique<Device>(i));
    initDone = true;
    log::debug(log::Component::Driver, "initialised with {} device(s)", n);
  });
  return CUDA_SUCCESS;
}

bool initialized() { return initDone.load(std::memory_order_acquire); }

int deviceCount() { return initialized() ? static_cast<int>(devices().size()) : 0; }

Device *device(int ordinal) {
  if (!initialized() || ordinal < 0 || ordinal >= static_cast<int>(devices().size()))
    return nullptr;
  return devices()[ordinal].get();
}

} // namespace cucpu::driver
