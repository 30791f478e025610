// CUDA IPC of device memory: exported allocations backed by memory files, imported mappings.
#include "cucpu/driver/ipc.h"

#include "cucpu/driver/memory.h"
#include "cucpu/driver/reason.h"
#include "cucpu/driver/stream.h"
#include "cucpu/support/log.h"
#include "device_arena.h"

#include <atomic>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace cucpu::driver {
namespace {

constexpr char kMagic[8] = {'c', 'u', 'c', 'p', 'u', 'I', 'P', 'C'};
constexpr uintptr_t kPage = DeviceArena::kPage;

// What a CUipcMemHandle carries (64 bytes).
struct Handle {
  char magic[8];
  int32_t pid;
  int32_t fd;        // the exporter's descriptor of the memory file
  uint64_t id;       // the allocation's buffer id in the exporter
  uint64_t offset;   // of the allocation in the file
  uint64_t mapBytes; // the file's size (whole pages)
  uint64_t size;     // the allocation's
  uint64_t reserved[2];
};
static_assert(sizeof(Handle) <= sizeof(CUipcMemHandle));

struct Exported {
  int fd;
  uintptr_t start;
  size_t bytes;
};

struct Opened {
  uintptr_t start;
  size_t bytes;
  int refs;
};

struct Ipc {
  std::mutex mutex;
  std::map<uintptr_t, Exported> exported;                     // by allocation base
  std::map<std::pair<int32_t, uint64_t>, uintptr_t> byHandle; // (pid, id) -> opened base
  std::map<uintptr_t, Opened> opened;                         // by opened base
};
Ipc &ipc() {
  static auto *i = new Ipc;
  return *i;
}
// Allocations exported: frees look no further while there are none.
std::atomic<size_t> exportedCount{0};

} // namespace

// Moves [start, start + bytes) into a new memory file mapped in its place; -1 on failure.
int shareInPlace(uintptr_t start, size_t bytes) {
  const int fd = memfd_create("cucpu-ipc", MFD_CLOEXEC);
  if (fd < 0)
    return -1;
  auto *mem = reinterpret_cast<char *>(start);
  bool ok = ftruncate(fd, off_t(bytes)) == 0;
  for (size_t done = 0; ok && done < bytes;) {
    const ssize_t n = pwrite(fd, mem + done, bytes - done, off_t(done));
    ok = n > 0;
    done += ok ? size_t(n) : 0;
  }
  if (!ok ||
      mmap(mem, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
    close(fd);
    return -1;
  }
  return fd;
}

void unshareInPlace(uintptr_t start, size_t bytes, int fd) {
  close(fd);
  mmap(reinterpret_cast<void *>(start), bytes, PROT_READ | PROT_WRITE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
}

CUresult mapFromProcess(int32_t pid, int32_t fd, size_t bytes, uintptr_t *out) {
  const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  const int own = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (own < 0) {
    return fail(CUDA_ERROR_INVALID_VALUE, "IPC: {}: {}", path, std::strerror(errno));
  }
  const uintptr_t start = deviceArena().reserve(bytes, kPage);
  const bool mapped = start && mmap(reinterpret_cast<void *>(start), bytes, PROT_READ | PROT_WRITE,
                                    MAP_SHARED | MAP_FIXED, own, 0) != MAP_FAILED;
  close(own);
  if (!mapped) {
    if (start)
      deviceArena().unreserve(start, bytes);
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "cannot map {} bytes of the exported memory", bytes);
  }
  *out = start;
  return CUDA_SUCCESS;
}

void unmapFromProcess(uintptr_t start, size_t bytes) { deviceArena().unreserve(start, bytes); }

CUresult ipcExport(uintptr_t ptr, CUipcMemHandle *out) {
  Allocation a;
  if (!memory().find(ptr, 0, &a) || a.kind != MemoryKind::Device || a.pool || a.managed) {
    return fail(CUDA_ERROR_INVALID_VALUE,
                "cuIpcGetMemHandle: {:#x} is not in a cuMemAlloc allocation", ptr);
  }
  std::lock_guard lk(ipc().mutex);
  auto it = ipc().exported.find(a.base);
  if (it == ipc().exported.end()) {
    const uintptr_t start = a.base & ~(kPage - 1);
    const size_t bytes = ((a.base + a.size + kPage - 1) & ~(kPage - 1)) - start;
    const int fd = shareInPlace(start, bytes);
    if (fd < 0) {
      return fail(CUDA_ERROR_OUT_OF_MEMORY, "cuIpcGetMemHandle: no memory file: {}",
                  std::strerror(errno));
    }
    it = ipc().exported.emplace(a.base, Exported{fd, start, bytes}).first;
    ++exportedCount;
  }
  Handle h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.pid = getpid();
  h.fd = it->second.fd;
  h.id = a.id;
  h.offset = a.base - it->second.start;
  h.mapBytes = it->second.bytes;
  h.size = a.size;
  std::memset(out, 0, sizeof *out);
  std::memcpy(out, &h, sizeof h);
  return CUDA_SUCCESS;
}

void ipcReleased(const Allocation &a) {
  if (exportedCount.load(std::memory_order_relaxed) == 0)
    return;
  std::lock_guard lk(ipc().mutex);
  auto it = ipc().exported.find(a.base);
  if (it == ipc().exported.end())
    return;
  const Exported e = it->second;
  ipc().exported.erase(it);
  --exportedCount;
  // A block of its own pages gets private pages back; a slab's pages stay shared, since other
  // blocks live there (the file goes when the slab's pages are unmapped).
  if (a.reserved > DeviceArena::kLargestClass)
    unshareInPlace(e.start, e.bytes, e.fd);
  else
    close(e.fd);
}

CUresult ipcOpen(Context *ctx, const CUipcMemHandle &handle, CUdeviceptr *out) {
  Handle h;
  std::memcpy(&h, &handle, sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || h.offset + h.size > h.mapBytes)
    return fail(CUDA_ERROR_INVALID_VALUE, "the handle is not a cucpu IPC memory handle");
  if (h.pid == getpid()) // NVIDIA's driver: not in the exporting process
    return fail(CUDA_ERROR_INVALID_CONTEXT, "the memory was exported by this process");
  std::lock_guard lk(ipc().mutex);
  if (auto it = ipc().byHandle.find({h.pid, h.id}); it != ipc().byHandle.end()) {
    ++ipc().opened[it->second].refs;
    *out = it->second;
    return CUDA_SUCCESS;
  }
  uintptr_t start;
  if (CUresult r = mapFromProcess(h.pid, h.fd, h.mapBytes, &start); r != CUDA_SUCCESS)
    return r;
  const uintptr_t base = start + h.offset;
  memory().trackMapping(ctx, base, h.size, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
  ipc().byHandle[{h.pid, h.id}] = base;
  ipc().opened[base] = Opened{start, h.mapBytes, 1};
  *out = base;
  return CUDA_SUCCESS;
}

CUresult ipcClose(CUdeviceptr ptr) {
  std::lock_guard lk(ipc().mutex);
  auto it = ipc().opened.find(ptr);
  if (it == ipc().opened.end())
    return fail(CUDA_ERROR_INVALID_VALUE, "the address was not opened with cuIpcOpenMemHandle");
  if (--it->second.refs > 0)
    return CUDA_SUCCESS;
  memory().untrackMapping(ptr);
  unmapFromProcess(it->second.start, it->second.bytes);
  std::erase_if(ipc().byHandle, [ptr](const auto &entry) { return entry.second == ptr; });
  ipc().opened.erase(it);
  return CUDA_SUCCESS;
}

namespace {

struct EventHandle {
  char magic[8];
  int32_t pid;
  int32_t fd;
};
static_assert(sizeof(EventHandle) <= sizeof(CUipcEventHandle));

// The shared completion in the memory file `fd` (one page).
std::shared_ptr<SharedCompletion> mapCompletion(int fd) {
  void *p = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    return nullptr;
  return std::shared_ptr<SharedCompletion>(static_cast<SharedCompletion *>(p),
                                           [](SharedCompletion *c) { munmap(c, kPage); });
}

} // namespace

CUresult createInterprocessEvent(unsigned flags, Event **out) {
  const int fd = memfd_create("cucpu-ipc-event", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, kPage) != 0) {
    if (fd >= 0)
      close(fd);
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "no memory file for an interprocess event");
  }
  auto shared = mapCompletion(fd); // zero-filled: nothing recorded, nothing completed
  if (!shared) {
    close(fd);
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "cannot map an interprocess event's state");
  }
  *out = new Event(flags, std::move(shared), fd, /*opened=*/false);
  return CUDA_SUCCESS;
}

CUresult ipcExportEvent(const Event *e, CUipcEventHandle *out) {
  if (e->sharedFd() < 0 || e->opened()) // not created with CU_EVENT_INTERPROCESS
    return fail(CUDA_ERROR_INVALID_HANDLE,
                "the event is not an interprocess event of this process");
  EventHandle h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.pid = getpid();
  h.fd = e->sharedFd();
  std::memset(out, 0, sizeof *out);
  std::memcpy(out, &h, sizeof h);
  return CUDA_SUCCESS;
}

CUresult ipcOpenEvent(const CUipcEventHandle &handle, Event **out) {
  EventHandle h;
  std::memcpy(&h, &handle, sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0)
    return fail(CUDA_ERROR_INVALID_VALUE, "the handle is not a cucpu IPC event handle");
  if (h.pid == getpid())
    return fail(CUDA_ERROR_INVALID_CONTEXT, "the memory was exported by this process");
  const std::string path = "/proc/" + std::to_string(h.pid) + "/fd/" + std::to_string(h.fd);
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    return fail(CUDA_ERROR_INVALID_VALUE, "cuIpcOpenEventHandle: {}: {}", path,
                std::strerror(errno));
  }
  auto shared = mapCompletion(fd);
  close(fd);
  if (!shared)
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "cannot map the event's shared completion state");
  *out = new Event(CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING, std::move(shared), -1,
                   /*opened=*/true);
  return CUDA_SUCCESS;
}

} // namespace cucpu::driver
