// Finding and loading NVIDIA's NVRTC or nvJitLink beside cucpu's front end for it.
#include "cucpu/rtc/real_library.h"

#include "cucpu/support/log.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/stat.h>

#include <cstdlib>
#include <set>
#include <string_view>

namespace cucpu::rtc {
namespace {

void split(const char *list, std::vector<std::string> *out) {
  if (!list)
    return;
  std::string_view rest(list);
  while (!rest.empty()) {
    size_t colon = rest.find(':');
    std::string_view dir = rest.substr(0, colon);
    if (!dir.empty())
      out->emplace_back(dir);
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
  }
}

// site-packages (or Debian's dist-packages) folders that loaded objects live in.
std::set<std::string> pythonPackageDirs() {
  std::set<std::string> dirs;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        std::string_view path(info->dlpi_name ? info->dlpi_name : "");
        for (std::string_view mark : {"/site-packages/", "/dist-packages/"})
          if (size_t at = path.find(mark); at != std::string_view::npos)
            static_cast<std::set<std::string> *>(data)->emplace(path.substr(0, at + mark.size()));
        return 0;
      },
      &dirs);
  return dirs;
}

bool sameFile(const std::string &a, const struct stat &b) {
  struct stat s;
  return stat(a.c_str(), &s) == 0 && s.st_dev == b.st_dev && s.st_ino == b.st_ino;
}

} // namespace

std::vector<std::string> searchDirs(const std::vector<std::string> &wheelDirs) {
  std::vector<std::string> dirs;
  split(std::getenv("LD_LIBRARY_PATH"), &dirs);
  for (const std::string &site : pythonPackageDirs())
    for (const std::string &wheel : wheelDirs)
      dirs.push_back(site + wheel);
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var); root && *root)
      dirs.push_back(std::string(root) + "/lib64");
  for (const char *d : {"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                        "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"})
    dirs.emplace_back(d);
  return dirs;
}

RealLibrary::RealLibrary(const char *soname, std::vector<std::string> wheelDirs, const void *self)
    : soname_(soname), wheelDirs_(std::move(wheelDirs)), self_(self) {}

void RealLibrary::load() {
  Dl_info info{};
  struct stat self {};
  const bool known = dladdr(self_, &info) && info.dli_fname && stat(info.dli_fname, &self) == 0;
  for (const std::string &dir : searchDirs(wheelDirs_)) {
    std::string path = dir + "/" + soname_;
    struct stat s;
    if (stat(path.c_str(), &s) != 0 || (known && sameFile(path, self)))
      continue;
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_) {
      log::debug(log::Component::Rtc, "{}: NVIDIA's library is {}", soname_, path);
      return;
    }
    log::debug(log::Component::Rtc, "{}: {} does not load: {}", soname_, path, dlerror());
  }
  log::error(log::Component::Rtc,
             "{}: NVIDIA's library was not found (searched LD_LIBRARY_PATH, Python wheels, "
             "CUDA_HOME, /usr/local/cuda); cucpu's front end needs it to compile",
             soname_);
}

void *RealLibrary::symbol(const char *name) {
  std::call_once(once_, [this] { load(); });
  if (!handle_)
    return nullptr;
  void *f = dlsym(handle_, name);
  if (!f)
    log::error(log::Component::Rtc, "{}: NVIDIA's library has no function {}", soname_, name);
  return f;
}

} // namespace cucpu::rtc
