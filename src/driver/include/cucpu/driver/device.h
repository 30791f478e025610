// Virtual devices: one CPU device by default, with attributes consistent with the host.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <mutex>
#include <string>

namespace cucpu::driver {

class Context;

// A multiprocessor's limits, as a compute capability 8.0 GPU's: the device attributes report
// them and the occupancy calculator (Function::activeBlocksPerMultiprocessor) applies them.
constexpr int kThreadsPerMultiprocessor = 2048;
constexpr int kBlocksPerMultiprocessor = 32;
constexpr int kSharedPerMultiprocessor = 164 * 1024;
constexpr int kReservedSharedPerBlock = 1024; // the system's share of each block's
constexpr int kSharedAllocationUnit = 128;

class Device {
public:
  // `ordinal` is the device's number in this process; `physical` its number among all virtual
  // devices (CUDA_VISIBLE_DEVICES may hide or reorder them).
  Device(int ordinal, int physical);

  int ordinal() const { return ordinal_; }
  int physical() const { return physical_; }
  std::string uuidHex() const; // 32 lower-case hex digits
  const std::string &name() const { return name_; }
  size_t totalMemory() const { return totalMemory_; }
  const CUuuid &uuid() const { return uuid_; }
  int ccMajor() const { return ccMajor_; }
  int ccMinor() const { return ccMinor_; }
  unsigned multiprocessors() const { return multiprocessors_; }

  // CUDA_ERROR_INVALID_VALUE for an attribute this driver does not know.
  CUresult attribute(CUdevice_attribute attr, int *value) const;

  // The primary context (created on first retain, destroyed when the last reference goes).
  std::mutex primaryMutex;
  Context *primary = nullptr;
  unsigned primaryRefs = 0;
  unsigned primaryFlags = 0;

private:
  int ordinal_;
  int physical_;
  std::string name_;
  size_t totalMemory_;
  CUuuid uuid_;
  int ccMajor_, ccMinor_;
  unsigned multiprocessors_;
};

// The devices visible to this process: CUCPU_DEVICES virtual devices (default 1), filtered and
// ordered by CUDA_VISIBLE_DEVICES. Empty before cuInit; cuInit fails with NO_DEVICE when none is
// visible.
int deviceCount();
Device *device(int ordinal);
// cuInit: creates the devices once.
CUresult initialize(unsigned flags);
bool initialized();

} // namespace cucpu::driver
