// Device printf formatting, assert messages, trap, and the device heap behind malloc/free.
#include "device_services.h"
#include "device_arena.h"
#include "device_launches.h"
#include "sampler.h"

#include "cucpu/driver/sanitizer.h"
#include "cucpu/exec/block_fibers.h"
#include "cucpu/exec/fault.h"
#include "cucpu/support/log.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace cucpu::driver {
namespace {

template <typename T> T take(const unsigned char *args, size_t &pos) {
  pos = (pos + sizeof(T) - 1) / sizeof(T) * sizeof(T);
  T v;
  std::memcpy(&v, args + pos, sizeof v);
  pos += sizeof v;
  return v;
}

} // namespace

int formatDevicePrintf(const char *format, const unsigned char *args, std::string &out) {
  if (!format)
    return -1;
  size_t pos = 0;
  int count = 0;
  char buf[512];
  for (const char *p = format; *p;) {
    if (*p != '%') {
      out += *p++;
      continue;
    }
    if (p[1] == '%') {
      out += '%';
      p += 2;
      continue;
    }
    // %[flags][width][.precision][length]conversion
    const char *start = p++;
    while (*p && std::strchr("-+ #0", *p))
      ++p;
    while (*p >= '0' && *p <= '9')
      ++p;
    if (*p == '.') {
      ++p;
      while (*p >= '0' && *p <= '9')
        ++p;
    }
    int longs = 0;
    bool shortLen = false;
    while (*p && std::strchr("hlLqjzt", *p)) {
      if (*p == 'l' || *p == 'q' || *p == 'j' || *p == 'z' || *p == 't' || *p == 'L')
        ++longs;
      else
        shortLen = true;
      ++p;
    }
    char conv = *p;
    if (!conv)
      return -1;
    ++p;
    // The spec without length modifiers, then the right C type for snprintf.
    std::string spec(start, p - start);
    std::string base;
    for (char c : spec)
      if (!std::strchr("hlLqjzt", c))
        base += c;
    int n = 0;
    switch (conv) {
    case 'd':
    case 'i':
    case 'u':
    case 'x':
    case 'X':
    case 'o':
    case 'c': {
      long long v = longs ? take<long long>(args, pos) : take<int32_t>(args, pos);
      if (shortLen && !longs)
        v = static_cast<int16_t>(v);
      std::string s = base;
      s.insert(s.size() - 1, "ll");
      if (conv == 'c')
        n = std::snprintf(buf, sizeof buf, base.c_str(), static_cast<int>(v));
      else if (conv == 'd' || conv == 'i')
        n = std::snprintf(buf, sizeof buf, s.c_str(), v);
      else
        n = std::snprintf(buf, sizeof buf, s.c_str(),
                          longs ? static_cast<unsigned long long>(v)
                                : static_cast<unsigned long long>(static_cast<uint32_t>(v)));
      break;
    }
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A':
      n = std::snprintf(buf, sizeof buf, base.c_str(), take<double>(args, pos));
      break;
    case 's': {
      const char *str = reinterpret_cast<const char *>(take<uint64_t>(args, pos));
      n = std::snprintf(buf, sizeof buf, base.c_str(), str ? str : "(null)");
      break;
    }
    case 'p':
      n = std::snprintf(buf, sizeof buf, base.c_str(),
                        reinterpret_cast<void *>(take<uint64_t>(args, pos)));
      break;
    default:
      out += spec; // unknown conversion: printed as written, as CUDA does
      continue;
    }
    if (n > 0)
      out.append(buf, std::min<size_t>(n, sizeof buf - 1));
    ++count;
  }
  return count;
}

struct ServiceCalls {
  static LaunchServices &self(const cucpu_launch *l) {
    return *static_cast<LaunchServices *>(l->services->context);
  }
  static int32_t vprintf(const cucpu_launch *l, const char *format, const void *args) {
    std::string line;
    int n = formatDevicePrintf(format, static_cast<const unsigned char *>(args), line);
    LaunchServices &s = self(l);
    std::lock_guard lk(s.mutex_);
    if (s.printf_.size() + line.size() > s.printfBytes_) {
      s.truncated_ = true;
      return -1;
    }
    s.printf_ += line;
    return n;
  }
  static void assertFail(const cucpu_launch *l, const char *message, const char *file,
                         uint32_t line, const char *function, const uint32_t *w) {
    LaunchServices &s = self(l);
    std::fprintf(stderr,
                 "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n",
                 file ? file : "?", line, function ? function : "?", w[0], w[1], w[2], w[3], w[4],
                 w[5], message ? message : "?");
    log::error(log::Component::Exec, "kernel {}: device assertion failed", s.kernel_);
    exec::raiseFault(exec::FaultKind::Assert);
  }
  static uint32_t texture(const cucpu_launch *l, uint64_t handle, const cucpu_tex_request *r,
                          uint32_t *out) {
    const TextureObject *t = findTexture(handle);
    if (!t)
      badImage(l, "texture", handle, r->where);
    sampleTexture(*t, *r, out);
    return 1;
  }
  static void surface(const cucpu_launch *l, uint64_t handle, const cucpu_surf_request *r,
                      void *data) {
    const SurfaceObject *s = findSurface(handle);
    if (!s)
      badImage(l, "surface", handle, r->where);
    if (!accessSurface(*s, *r, data)) {
      const uint32_t *w = r->where;
      log::error(
          log::Component::Exec,
          "kernel {}: surface access out of range (x {}, y {}, z {}, layer {}) with .trap in "
          "block ({},{},{}) thread ({},{},{})",
          self(l).kernel_, r->coord[0], r->coord[1], r->coord[2], r->layer, w[0], w[1], w[2], w[3],
          w[4], w[5]);
      exec::raiseFault(exec::FaultKind::IllegalAddress);
    }
  }
  static int32_t imageQuery(const cucpu_launch *l, uint64_t handle, uint32_t query, int32_t level,
                            const uint32_t *where) {
    if (query & CUCPU_Q_SURFACE) {
      const SurfaceObject *s = findSurface(handle);
      if (!s)
        badImage(l, "surface", handle, where);
      return querySurface(*s, query & ~uint32_t(CUCPU_Q_SURFACE));
    }
    const TextureObject *t = findTexture(handle);
    if (!t)
      badImage(l, "texture", handle, where);
    return queryTexture(*t, query, level);
  }
  [[noreturn]] static void badImage(const cucpu_launch *l, const char *what, uint64_t handle,
                                    const uint32_t *w) {
    log::error(log::Component::Exec,
               "kernel {}: {} object {} is not a live {} object, in block ({},{},{}) thread "
               "({},{},{})",
               self(l).kernel_, what, handle, what, w[0], w[1], w[2], w[3], w[4], w[5]);
    exec::raiseFault(exec::FaultKind::IllegalAddress);
  }
  static void trap(const cucpu_launch *l, const uint32_t *w) {
    log::error(log::Component::Exec, "kernel {}: trap in block ({},{},{}) thread ({},{},{})",
               self(l).kernel_, w[0], w[1], w[2], w[3], w[4], w[5]);
    exec::raiseFault(exec::FaultKind::Trap);
  }
  static uint64_t globaltimer() {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
  }
  static void badCall(const cucpu_launch *l, const uint32_t *w, uint64_t target) {
    log::error(log::Component::Exec,
               "kernel {}: call through a pointer to no function ({:#x}) in block ({},{},{}) "
               "thread ({},{},{})",
               self(l).kernel_, target, w[0], w[1], w[2], w[3], w[4], w[5]);
    exec::raiseFault(exec::FaultKind::InvalidPc, target);
  }
  // A sense-reversing barrier over words 8 (arrivals) and 9 (generation) of the cooperative
  // grid's workspace (launch.cpp); words 0-7 belong to nvcc's inline grid barrier. Each block is
  // a thread of its own in a cooperative launch, so the others wait in the kernel (futex).
  static int32_t gridSync(const cucpu_launch *l, uint64_t handle, uint32_t op, const uint32_t *w) {
    const uint64_t workspace = (uint64_t(l->envreg[1]) << 32) | l->envreg[2];
    if (!workspace || handle != workspace) {
      log::error(log::Component::Exec,
                 "kernel {}: cooperative groups: grid handle {:#x} in block ({},{},{}) thread "
                 "({},{},{}) is not this launch's grid ({}); grid-wide groups need "
                 "cuLaunchCooperativeKernel or CU_LAUNCH_ATTRIBUTE_COOPERATIVE",
                 self(l).kernel_, handle, w[0], w[1], w[2], w[3], w[4], w[5],
                 workspace ? "another handle" : "not a cooperative launch");
      exec::raiseFault(exec::FaultKind::IllegalAddress, handle);
    }
    if (op != CUCPU_GRID_ARRIVE)
      return 0;
    auto *words = reinterpret_cast<uint32_t *>(handle);
    std::atomic_ref<uint32_t> arrived(words[8]), generation(words[9]);
    const uint32_t blocks = l->grid[0] * l->grid[1] * l->grid[2];
    const uint32_t g = generation.load(std::memory_order_acquire);
    if (arrived.fetch_add(1, std::memory_order_acq_rel) + 1 == blocks) {
      arrived.store(0, std::memory_order_relaxed);
      generation.fetch_add(1, std::memory_order_release);
      generation.notify_all();
      return 0;
    }
    while (generation.load(std::memory_order_acquire) == g)
      generation.wait(g, std::memory_order_acquire);
    return 0;
  }
  // The context's heap: blocks of the device arena, each counting its size against
  // CU_LIMIT_MALLOC_HEAP_SIZE; malloc returns null beyond it, as on a GPU.
  static void *malloc(const cucpu_launch *l, uint64_t bytes) {
    LaunchServices &s = self(l);
    if (bytes == 0 || bytes > s.heapBytes_)
      return nullptr;
    size_t taken = 0;
    void *p = deviceArena().allocate(bytes, &taken, kHeap);
    if (p && s.heapUsed_.fetch_add(taken) + taken > s.heapBytes_) {
      s.heapUsed_.fetch_sub(taken);
      deviceArena().release(p, kHeap);
      return nullptr;
    }
    if (p)
      sanitizer::addRange(reinterpret_cast<uintptr_t>(p), bytes);
    return p;
  }
  // Like a GPU's, free of an address malloc did not return is undefined; here it is ignored.
  static void free(const cucpu_launch *l, void *ptr) {
    size_t size = 0;
    if (ptr && deviceArena().release(ptr, kHeap, &size)) {
      self(l).heapUsed_.fetch_sub(size);
      sanitizer::removeRange(reinterpret_cast<uintptr_t>(ptr));
    }
  }
  static void raceAccess(const cucpu_launch *l, const cucpu_access_site *site, uint64_t offset,
                         const uint32_t *where, uint64_t value, void *shared) {
    self(l).races_->access(site, offset, where, l->block, value, shared);
  }
  static void raceBarrier(const cucpu_launch *l, void *shared, uint32_t warp) {
    self(l).races_->barrier(shared, warp);
  }
  static void checkAccess(const cucpu_launch *l, const cucpu_access_site *site, uint64_t address,
                          const uint32_t *where, uint64_t *range) {
    sanitizer::checkAccess(site, address, where, range, self(l).hostTrace_);
  }
  // Dynamic parallelism's device runtime; its cudaMalloc/cudaFree are the device heap's.
  static int64_t deviceRuntime(const cucpu_launch *l, uint32_t op, const uint64_t *args,
                               const uint32_t *where) {
    if (op == CUCPU_CDP_MALLOC)
      return static_cast<int64_t>(reinterpret_cast<uintptr_t>(malloc(l, args[0])));
    if (op == CUCPU_CDP_FREE) {
      free(l, reinterpret_cast<void *>(args[0]));
      return 0;
    }
    return self(l).launches_.call(op, args, where);
  }
  static constexpr auto kHeap = DeviceArena::Owner::DeviceHeap;
};

LaunchServices::LaunchServices(const std::string &kernelName, size_t printfBytes,
                               std::atomic<uint64_t> &heapUsed, uint64_t heapBytes,
                               DeviceLaunches &launches, const std::string *hostTrace)
    : kernel_(kernelName), printfBytes_(printfBytes), heapUsed_(heapUsed), heapBytes_(heapBytes),
      launches_(launches), hostTrace_(hostTrace) {
  table_.vprintf = &ServiceCalls::vprintf;
  table_.assert_fail = &ServiceCalls::assertFail;
  table_.trap = &ServiceCalls::trap;
  table_.malloc = &ServiceCalls::malloc;
  table_.free = &ServiceCalls::free;
  table_.bad_call = &ServiceCalls::badCall;
  table_.globaltimer = &ServiceCalls::globaltimer;
  table_.texture = &ServiceCalls::texture;
  table_.surface = &ServiceCalls::surface;
  table_.image_query = &ServiceCalls::imageQuery;
  table_.grid_sync = &ServiceCalls::gridSync;
  table_.block_waits = [](const cucpu_launch *, uint32_t rounds) { exec::blockWaits(rounds); };
  table_.device_runtime = &ServiceCalls::deviceRuntime;
  table_.check_access = &ServiceCalls::checkAccess;
  table_.race_access = &ServiceCalls::raceAccess;
  table_.race_barrier = &ServiceCalls::raceBarrier;
  if (sanitizer::racecheck())
    races_ = std::make_unique<sanitizer::RaceLog>();
  table_.context = this;
}

void LaunchServices::flush() {
  if (races_)
    races_->report();
  std::lock_guard lk(mutex_);
  if (!printf_.empty()) {
    std::fwrite(printf_.data(), 1, printf_.size(), stdout);
    std::fflush(stdout);
    printf_.clear();
  }
  if (truncated_)
    log::warn(log::Component::Exec, "kernel {}: device printf output beyond {} bytes was dropped",
              kernel_, printfBytes_);
  truncated_ = false;
}

} // namespace cucpu::driver
