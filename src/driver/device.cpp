// Virtual device creation and identity (name, memory size, UUID, compute capability).
#include "cucpu/driver/device.h"

#include "cucpu/driver/reason.h"
#include "cucpu/exec/thread_pool.h"
#include "cucpu/support/env.h"
#include "cucpu/support/log.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <optional>
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

Device::Device(int ordinal, int physical) : ordinal_(ordinal), physical_(physical) {
  name_ = "cucpu CPU device";
  if (physical > 0)
    name_ += " " + std::to_string(physical);
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  uint64_t hostMemory =
      pages > 0 && pageSize > 0 ? uint64_t(pages) * uint64_t(pageSize) : (8ull << 30);
  totalMemory_ = env::getSize("CUCPU_DEVICE_MEMORY", hostMemory / 2);
  // A stable, recognisable UUID: "cucpu" + the physical index, version-4 style bits.
  const uint8_t base[16] = {'c',  'u', 'c', 'p', 'u', 0, 0x40, 0,
                            0x80, 0,   0,   0,   0,   0, 0,    static_cast<uint8_t>(physical)};
  for (int i = 0; i < 16; ++i)
    uuid_.bytes[i] = static_cast<char>(base[i]);
  int64_t cc = env::getInt("CUCPU_COMPUTE_CAPABILITY", 80); // e.g. 80 for 8.0, 90 for 9.0
  if (cc < 50 || cc > 129)
    cc = 80;
  ccMajor_ = static_cast<int>(cc / 10);
  ccMinor_ = static_cast<int>(cc % 10);
  multiprocessors_ = exec::defaultThreadCount();
}

static std::vector<int> visibleDevices(int count, const std::optional<std::string> &spec) {
  std::vector<int> out;
  if (!spec) {
    for (int i = 0; i < count; ++i)
      out.push_back(i);
    return out;
  }
  // As CUDA does: a comma-separated list of indices or UUIDs ("GPU-" + hex digits, a prefix is
  // enough); the list ends at the first entry that names no device.
  std::string s = *spec;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    std::string tok = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? s.size() + 1 : comma + 1;
    tok.erase(0, tok.find_first_not_of(" \t"));
    tok.erase(tok.find_last_not_of(" \t") + 1);
    int found = -1;
    if (!tok.empty() && std::all_of(tok.begin(), tok.end(), ::isdigit)) {
      long v = std::strtol(tok.c_str(), nullptr, 10);
      found = v < count ? static_cast<int>(v) : -1;
    } else if (tok.rfind("GPU-", 0) == 0 && tok.size() > 4) {
      std::string want;
      for (char ch : tok.substr(4))
        if (ch != '-')
          want += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      for (int i = 0; i < count && found < 0; ++i)
        if (Device(0, i).uuidHex().rfind(want, 0) == 0)
          found = i;
    }
    if (found < 0)
      break;
    if (std::find(out.begin(), out.end(), found) == out.end())
      out.push_back(found);
  }
  return out;
}

CUresult initialize(unsigned flags) {
  if (flags != 0)
    return fail(CUDA_ERROR_INVALID_VALUE, "flags = {:#x} must be 0", flags);
  std::call_once(initOnce, [] {
    int64_t n = env::getInt("CUCPU_DEVICES", 1);
    if (n < 1 || n > 64)
      n = 1;
    auto visible = visibleDevices(static_cast<int>(n), env::get("CUDA_VISIBLE_DEVICES"));
    for (size_t i = 0; i < visible.size(); ++i)
      devices().push_back(std::make_unique<Device>(static_cast<int>(i), visible[i]));
    initDone = true;
    log::debug(log::Component::Driver, "initialised with {} of {} device(s) visible",
               visible.size(), n);
  });
  return devices().empty() ? fail(CUDA_ERROR_NO_DEVICE, "no device is configured") : CUDA_SUCCESS;
}

std::string Device::uuidHex() const {
  std::string hex;
  for (char ch : uuid_.bytes)
    hex += fmt::format("{:02x}", static_cast<unsigned char>(ch));
  return hex;
}

bool initialized() { return initDone.load(std::memory_order_acquire); }

int deviceCount() { return initialized() ? static_cast<int>(devices().size()) : 0; }

Device *device(int ordinal) {
  if (!initialized() || ordinal < 0 || ordinal >= static_cast<int>(devices().size()))
    return nullptr;
  return devices()[ordinal].get();
}

} // namespace cucpu::driver
