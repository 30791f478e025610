// cucpu's NVRTC and nvJitLink front ends (libnvrtc.so.13, libnvJitLink.so.13 beside this
// library) are loaded with it. A program or Python package that loads NVRTC or nvJitLink by name
// afterwards gets them, and cuda-pathfinder (cuda-bindings, cuda-core, numba-cuda), which first
// looks for a copy already loaded, takes them over the absolute path of NVIDIA's wheel; so run-time
// compiled code comes to the driver with its PTX. The front ends load NVIDIA's libraries only when
// they are first used.
#include "cucpu/support/log.h"

#include <dlfcn.h>

#include <string>

namespace {

__attribute__((constructor)) void loadCompilerFrontEnds() {
  Dl_info self{};
  if (!dladdr(reinterpret_cast<const void *>(&loadCompilerFrontEnds), &self) || !self.dli_fname)
    return;
  std::string dir(self.dli_fname);
  if (dir.find('/') == std::string::npos) // loaded by a bare name: the folder is unknown
    return;
  dir.erase(dir.find_last_of('/') + 1);
  for (const char *name : {"libnvrtc.so.13", "libnvJitLink.so.13"}) {
    const std::string path = dir + name;
    if (!dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD) &&
        !dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL))
      cucpu::log::debug(cucpu::log::Component::Api, "{} not loaded: {}", path, dlerror());
  }
}

} // namespace
