// cucpu-sanitizer's runtime: memcheck's reports, in compute-sanitizer's words and layout, written
// to standard output (or CUCPU_SANITIZER_LOG) as they happen; the error and leak counts go to
// the launcher (CUCPU_SANITIZER_SUMMARY) at exit.
#include "cucpu/driver/sanitizer.h"

#include "cucpu/driver/context.h"
#include "cucpu/driver/memory.h"
#include "cucpu/exec/fault.h"
#include "cucpu/support/env.h"
#include "cucpu/support/log.h"
#include "device_arena.h"
#include "host_symbols.h"
#include "kernel_abi.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <optional>
#include <unistd.h>

namespace cucpu::driver::sanitizer {
namespace {

constexpr const char *kPrefix = "========= ";

struct State {
  bool memcheck = false;
  bool racecheck = false;
  bool leakCheck = false;
  int fd = 1;
  std::mutex mutex;
  std::atomic<uint64_t> errors{0};
  uint64_t leakedBytes = 0, leakedAllocations = 0, warnings = 0;
  std::map<uintptr_t, std::shared_ptr<const std::string>> allocationTraces;
  std::map<uintptr_t, size_t> ranges; // addRange's: base -> bytes
};

void atExit();
void reportLeaks(const Context *ctx);

State &state() {
  static State *s = [] {
    auto *st = new State(); // used by the exit handler: never destroyed
    const std::string tool = env::get("CUCPU_SANITIZER").value_or("");
    st->memcheck = tool == "memcheck";
    st->racecheck = tool == "racecheck";
    st->leakCheck = env::get("CUCPU_SANITIZER_LEAK_CHECK").value_or("") == "full";
    if (auto log = env::get("CUCPU_SANITIZER_LOG"); log && !log->empty()) {
      int fd = ::open(log->c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (fd >= 0)
        st->fd = fd;
    }
    if (st->memcheck || st->racecheck) {
      memory(); // made before the exit handler is registered, so it is still there at exit
      std::atexit(atExit);
    }
    return st;
  }();
  return *s;
}

void emit(const std::string &text) {
  State &s = state();
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(s.fd, text.data() + done, text.size() - done);
    if (n <= 0)
      return;
    done += static_cast<size_t>(n);
  }
}

// 46067758004048 -> "46,067,758,004,048", as compute-sanitizer writes distances and sizes.
std::string grouped(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return out;
}

std::string demangled(const char *name) {
  int status = 0;
  char *d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

std::string baseName(const char *path) {
  std::string p = path ? path : "";
  size_t slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

void atExit() {
  State &s = state();
  if (s.leakCheck)
    reportLeaks(nullptr);
  if (auto path = env::get("CUCPU_SANITIZER_SUMMARY"); path && !path->empty()) {
    if (FILE *f = std::fopen(path->c_str(), "w")) {
      std::fprintf(f, "errors %llu\nwarnings %llu\nleaked_bytes %llu\nleaked_allocations %llu\n",
                   static_cast<unsigned long long>(s.errors.load()),
                   static_cast<unsigned long long>(s.warnings),
                   static_cast<unsigned long long>(s.leakedBytes),
                   static_cast<unsigned long long>(s.leakedAllocations));
      std::fclose(f);
    }
  }
}

// The allocation nearest to [address, +bytes) and how it lies: "inside", "N bytes after" (the
// access starts N-1 bytes past its end) or "N bytes before".
std::string nearestAllocation(uint64_t address) {
  std::optional<Allocation> best;
  uint64_t bestDistance = UINT64_MAX;
  memory().forEach([&](const Allocation &a) {
    if (a.kind != MemoryKind::Device && a.kind != MemoryKind::Host)
      return;
    uint64_t d = address < a.base             ? a.base - address
                 : address >= a.base + a.size ? address - (a.base + a.size) + 1
                                              : 0;
    if (d < bestDistance) {
      bestDistance = d;
      best = a;
    }
  });
  if (!best)
    return {};
  std::string where = bestDistance == 0      ? "is inside"
                      : address < best->base ? "is " + grouped(bestDistance) + " bytes before"
                                             : "is " + grouped(bestDistance) + " bytes after";
  std::string r = fmt::format("{}    and {} the nearest allocation at {:#x} of size {} bytes\n",
                              kPrefix, where, best->base, grouped(best->size));
  State &s = state();
  std::lock_guard lk(s.mutex);
  if (auto t = s.allocationTraces.find(best->base);
      t != s.allocationTraces.end() && t->second && !t->second->empty())
    r += fmt::format("{}    Saved host backtrace up to driver entry point at its allocation\n{}",
                     kPrefix, *t->second);
  return r;
}

// A valid access found outside the inline checks: sets the caller's cached range.
bool validAccess(uint64_t address, uint32_t bytes, uint64_t *range) {
  Allocation a;
  if (memory().find(address, bytes, &a) && deviceMayAccess(a)) { // (mappings: while accessible)
    range[0] = a.base;
    range[1] = a.base + a.size;
    return true;
  }
  State &s = state();
  std::lock_guard lk(s.mutex);
  auto it = s.ranges.upper_bound(address);
  if (it == s.ranges.begin())
    return false;
  --it;
  if (address - it->first + bytes > it->second)
    return false;
  range[0] = it->first;
  range[1] = it->first + it->second;
  return true;
}

} // namespace

bool memcheck() { return state().memcheck; }
bool racecheck() { return state().racecheck; }

std::string sitePlace(const cucpu_access_site *site) {
  std::string r = demangled(site->kernel);
  if (site->file)
    r += fmt::format(" in {}:{}", baseName(site->file), site->line);
  return r + fmt::format(" (PTX line {})", site->ptx_line);
}

void reportError(const std::string &text) {
  State &s = state();
  std::lock_guard lk(s.mutex);
  s.errors.fetch_add(1);
  emit(text);
}

void reportWarning(const std::string &text) {
  State &s = state();
  std::lock_guard lk(s.mutex);
  ++s.warnings;
  emit(text);
}

std::shared_ptr<const std::string> hostTrace() {
  if (!memcheck())
    return nullptr;
  void *frames[64];
  int n = ::backtrace(frames, 64);
  Dl_info self{};
  dladdr(reinterpret_cast<void *>(&hostTrace), &self);
  std::string out;
  bool outside = false;
  for (int i = 0; i < n; ++i) {
    Dl_info info{};
    if (!dladdr(frames[i], &info))
      continue;
    if (!outside && info.dli_fbase == self.dli_fbase)
      continue; // the driver's own frames, up to its entry point
    outside = true;
    const auto pc = reinterpret_cast<uintptr_t>(frames[i]);
    const auto offset = pc - reinterpret_cast<uintptr_t>(info.dli_fbase);
    std::string fn = info.dli_sname ? info.dli_sname : "";
    if (fn.empty()) // a return address: the call is the byte before
      fn = hostSymbol(info.dli_fname ? info.dli_fname : "",
                      reinterpret_cast<uintptr_t>(info.dli_fbase), pc - 1);
    fn = fn.empty() ? fn : demangled(fn.c_str());
    out += fmt::format("{}        Host Frame: {}[{:#x}] in {}\n", kPrefix,
                       fn.empty() ? std::string() : fn + " ", offset, baseName(info.dli_fname));
    if (fn == "main")
      break;
  }
  return std::make_shared<const std::string>(std::move(out));
}

void allocated(uintptr_t base) {
  if (!memcheck())
    return;
  auto trace = hostTrace();
  State &s = state();
  std::lock_guard lk(s.mutex);
  s.allocationTraces[base] = std::move(trace);
}

void freed(uintptr_t base) {
  if (!memcheck())
    return;
  State &s = state();
  std::lock_guard lk(s.mutex);
  s.allocationTraces.erase(base);
}

void addRange(uintptr_t base, size_t bytes) {
  if (!memcheck())
    return;
  State &s = state();
  std::lock_guard lk(s.mutex);
  s.ranges[base] = bytes;
}

void removeRange(uintptr_t base) {
  if (!memcheck())
    return;
  State &s = state();
  std::lock_guard lk(s.mutex);
  s.ranges.erase(base);
}

void checkAccess(const cucpu_access_site *site, uint64_t address, const uint32_t *where,
                 uint64_t *range, const std::string *launchTrace) {
  const bool misaligned = site->bytes > 1 && address % site->bytes != 0;
  const bool outsideWindow = site->space == CUCPU_SPACE_SHARED || site->space == CUCPU_SPACE_LOCAL;
  if (!misaligned && !outsideWindow && validAccess(address, site->bytes, range))
    return;
  static const char *const spaces[] = {"__global__", "__shared__", "__local__", "__global__"};
  static const char *const accesses[] = {"read", "write", "atomic"};
  std::string r = fmt::format("{}Invalid {} {} of size {} bytes\n", kPrefix,
                              spaces[site->space & 3], accesses[site->access % 3], site->bytes);
  r += fmt::format("{}    at {}\n", kPrefix, sitePlace(site));
  r += fmt::format("{}    by thread ({},{},{}) in block ({},{},{})\n", kPrefix, where[3], where[4],
                   where[5], where[0], where[1], where[2]);
  r += fmt::format("{}    Access to {:#x} is {}\n", kPrefix, address,
                   misaligned ? "misaligned" : "out of bounds");
  if (!outsideWindow) {
    if (!misaligned && deviceArena().inMemoryOf(address, DeviceArena::Owner::DeviceHeap))
      r += fmt::format("{}    and is located in the device heap\n", kPrefix);
    else
      r += nearestAllocation(address);
  }
  if (site->kernel_file)
    r += fmt::format("{}        Device Frame: {} in {}:{}\n", kPrefix, demangled(site->kernel),
                     baseName(site->kernel_file), site->kernel_line);
  if (launchTrace && !launchTrace->empty())
    r +=
        fmt::format("{}    Saved host backtrace up to driver entry point at kernel launch time\n{}",
                    kPrefix, *launchTrace);
  r += fmt::format("{}\n", kPrefix);
  {
    State &s = state();
    std::lock_guard lk(s.mutex);
    s.errors.fetch_add(1);
    emit(r);
  }
  exec::raiseFault(exec::FaultKind::Trap); // compute-sanitizer ends the grid: LAUNCH_FAILED
}

void apiError(const char *function, int code, const char *name, const char *text) {
  // Not the program's errors, and not reported by compute-sanitizer (tests/gpu/answers/sanitizer):
  // runtimes look entry points and private tables up by trying them, and libraries ask whether
  // a context is current (CuPy: cuCtxGetDevice answering INVALID_CONTEXT).
  const std::string_view fn(function);
  if (!memcheck() || fn.starts_with("cuGetProcAddress") || fn == "cuGetExportTable" ||
      (fn.starts_with("cuCtxGet") && code == CUDA_ERROR_INVALID_CONTEXT))
    return;
  auto trace = hostTrace();
  std::string r = fmt::format("{}Program hit {} (error {}) due to \"{}\" on CUDA API call to {}.\n",
                              kPrefix, name, code, text, function);
  if (!trace->empty())
    r += fmt::format("{}    Saved host backtrace up to driver entry point at error\n{}", kPrefix,
                     *trace);
  r += fmt::format("{}\n", kPrefix);
  State &s = state();
  std::lock_guard lk(s.mutex);
  s.errors.fetch_add(1);
  emit(r);
}

void contextDestroyed(const Context *ctx) {
  if (state().memcheck && state().leakCheck)
    reportLeaks(ctx);
}

namespace {

// Device allocations of `ctx` (null: of every context) still live, each reported once.
void reportLeaks(const Context *ctx) {
  State &s = state();
  std::vector<Allocation> live;
  memory().forEach([&](const Allocation &a) {
    if ((!ctx || a.ctx == ctx) && a.kind == MemoryKind::Device && !a.pool)
      live.push_back(a);
  });
  std::lock_guard lk(s.mutex);
  for (const Allocation &a : live) {
    auto trace = s.allocationTraces.find(a.base);
    if (trace == s.allocationTraces.end())
      continue; // reported already
    std::string r = fmt::format("{}Leaked {} bytes at {:#x}\n", kPrefix, grouped(a.size), a.base);
    if (trace->second && !trace->second->empty())
      r += fmt::format("{}    Saved host backtrace up to driver entry point at allocation time\n{}",
                       kPrefix, *trace->second);
    r += fmt::format("{}\n", kPrefix);
    emit(r);
    s.errors.fetch_add(1);
    s.leakedBytes += a.size;
    ++s.leakedAllocations;
    s.allocationTraces.erase(trace);
  }
}

} // namespace

} // namespace cucpu::driver::sanitizer
