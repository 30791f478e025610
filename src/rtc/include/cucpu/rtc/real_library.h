// NVIDIA's own library behind one of cucpu's run-time compiler front ends: found on the machine
// (never the front end itself), loaded on first use, its functions looked up by name.
#pragma once

#include <mutex>
#include <string>
#include <vector>

namespace cucpu::rtc {

class RealLibrary {
public:
  // `soname` as NVIDIA names it (libnvrtc.so.13); `wheelDirs` are the folders below a Python
  // site-packages that NVIDIA's PyPI wheels install it into; `self` is any address inside the
  // front end, which the search skips.
  RealLibrary(const char *soname, std::vector<std::string> wheelDirs, const void *self);

  // NVIDIA's function `name`, or null when the library is not found or lacks it (logged once).
  void *symbol(const char *name);

private:
  void load();

  const char *soname_;
  std::vector<std::string> wheelDirs_;
  const void *self_;
  std::once_flag once_;
  void *handle_ = nullptr;
};

// The folders searched for NVIDIA's library, in order: LD_LIBRARY_PATH, the site-packages of
// every Python extension loaded in the process (with each wheel folder), CUDA_HOME and
// CUDA_PATH, the toolkit's usual places and the system's library folders.
std::vector<std::string> searchDirs(const std::vector<std::string> &wheelDirs);

} // namespace cucpu::rtc
