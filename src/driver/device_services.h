// Runtime services for generated code (device printf, assert, trap, malloc), one per launch.
#pragma once

#include "cucpu/driver/sanitizer.h"
#include "kernel_abi.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace cucpu::driver {

class DeviceLaunches;

class LaunchServices {
public:
  // `printfBytes`: the context's CU_LIMIT_PRINTF_FIFO_SIZE; `heapUsed`/`heapBytes`: the context's
  // device heap (bytes in use, shared by its launches) and CU_LIMIT_MALLOC_HEAP_SIZE;
  // `launches`: the grid's device-side launches (dynamic parallelism).
  // `hostTrace`: the launching call's host stack (memcheck), or null.
  LaunchServices(const std::string &kernelName, size_t printfBytes, std::atomic<uint64_t> &heapUsed,
                 uint64_t heapBytes, DeviceLaunches &launches, const std::string *hostTrace);
  const cucpu_services *table() const { return &table_; }
  // Writes the device printf output of the launch to stdout, as CUDA does at a sync point.
  void flush();

private:
  friend struct ServiceCalls;
  cucpu_services table_;
  const std::string &kernel_;
  size_t printfBytes_;
  std::atomic<uint64_t> &heapUsed_;
  uint64_t heapBytes_;
  DeviceLaunches &launches_;
  const std::string *hostTrace_;
  std::unique_ptr<sanitizer::RaceLog> races_; // racecheck only
  std::mutex mutex_;
  std::string printf_;
  bool truncated_ = false;
};

// Formats one device printf call: `args` holds the arguments packed as PTX lays them out (each
// aligned to its size). Appends to `out`; returns the number of arguments, or -1 on a bad format.
int formatDevicePrintf(const char *format, const unsigned char *args, std::string &out);

} // namespace cucpu::driver
