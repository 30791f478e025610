// Virtual memory management on memory file descriptors and the device arena's address space.
#include "cucpu/driver/virtual_memory.h"

#include "cucpu/driver/memory.h"
#include "cucpu/support/log.h"
#include "device_arena.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

namespace cucpu::driver {
namespace {

// A handle's memory: freed when the last handle reference and the last mapping are gone.
struct Physical {
  int fd = -1;
  size_t size = 0;
  CUmemAllocationProp prop{};
  size_t charged = 0; // bytes counted against the device's capacity
  ~Physical() {
    close(fd);
    if (charged)
      memory().refund(charged);
  }
};

struct Mapping {
  size_t size;
  std::shared_ptr<Physical> memory;
  unsigned access = CU_MEM_ACCESS_FLAGS_PROT_NONE;
};

struct Reservation {
  size_t size;
  std::map<uintptr_t, Mapping> mappings; // by address
};

struct Handle {
  std::shared_ptr<Physical> memory;
  unsigned long long refs = 1; // cuMemCreate/Import, then one per cuMemRetainAllocationHandle
};

struct State {
  std::mutex mutex;
  std::unordered_map<CUmemGenericAllocationHandle, Handle> handles;
  std::unordered_map<const Physical *, CUmemGenericAllocationHandle> ids; // a memory's handle
  std::map<uintptr_t, Reservation> reservations;
  CUmemGenericAllocationHandle next = 1;

  const Physical *physical(CUmemGenericAllocationHandle h) const {
    auto it = handles.find(h);
    return it == handles.end() ? nullptr : it->second.memory.get();
  }
  CUmemGenericAllocationHandle add(std::shared_ptr<Physical> p) {
    const CUmemGenericAllocationHandle h = next++;
    ids[p.get()] = h;
    handles[h] = Handle{std::move(p)};
    return h;
  }
  // The reservation holding [ptr, ptr + size), if any.
  Reservation *reservationOf(uintptr_t ptr, size_t size) {
    auto it = reservations.upper_bound(ptr);
    if (it == reservations.begin())
      return nullptr;
    --it;
    const uintptr_t end = it->first + it->second.size;
    return ptr >= it->first && ptr < end && size <= end - ptr ? &it->second : nullptr;
  }
  // The mapping containing `ptr`.
  std::pair<uintptr_t, Mapping *> mappingAt(uintptr_t ptr) {
    Reservation *r = reservationOf(ptr, 1);
    if (!r)
      return {0, nullptr};
    auto it = r->mappings.upper_bound(ptr);
    if (it == r->mappings.begin() || ptr - std::prev(it)->first >= std::prev(it)->second.size)
      return {0, nullptr};
    --it;
    return {it->first, &it->second};
  }
};

State &state() {
  static auto *s = new State();
  return *s;
}

bool aligned(uint64_t v) { return v % kVmmGranularity == 0; }

// Puts inaccessible anonymous pages back over [ptr, ptr + size) of a reservation.
void dropPages(uintptr_t ptr, size_t size) {
  mmap(reinterpret_cast<void *>(ptr), size, PROT_NONE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
}

CUresult fail(CUresult r, const char *why) {
  log::debug(log::Component::Mem, "virtual memory: {}", why);
  return r;
}

} // namespace

CUresult vmmCreate(CUmemGenericAllocationHandle *out, size_t size, const CUmemAllocationProp &prop,
                   size_t capacity) {
  if (size == 0 || !aligned(size))
    return fail(CUDA_ERROR_INVALID_VALUE, "size is not a multiple of the granularity");
  auto p = std::make_shared<Physical>();
  p->size = size;
  p->prop = prop;
  if (CUresult r = memory().charge(size, capacity); r != CUDA_SUCCESS)
    return r;
  p->charged = size;
  p->fd = memfd_create("cucpu-device-memory", MFD_CLOEXEC);
  if (p->fd < 0 || ftruncate(p->fd, static_cast<off_t>(size)) != 0)
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "no memory file");
  State &s = state();
  std::lock_guard lk(s.mutex);
  *out = s.add(std::move(p));
  return CUDA_SUCCESS;
}

CUresult vmmRelease(CUmemGenericAllocationHandle handle) {
  State &s = state();
  std::lock_guard lk(s.mutex);
  auto it = s.handles.find(handle);
  if (it == s.handles.end())
    return fail(CUDA_ERROR_INVALID_VALUE, "release of an unknown handle");
  if (--it->second.refs == 0) {
    s.ids.erase(it->second.memory.get());
    s.handles.erase(it); // mappings keep the memory
  }
  return CUDA_SUCCESS;
}

CUresult vmmReserve(CUdeviceptr *out, size_t size, size_t alignment) {
  if (size == 0 || !aligned(size) ||
      (alignment && (!aligned(alignment) || (alignment & (alignment - 1)))))
    return fail(CUDA_ERROR_INVALID_VALUE, "reservation size or alignment");
  const uintptr_t base = deviceArena().reserve(size, std::max(alignment, kVmmGranularity));
  if (!base)
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "no address space left");
  State &s = state();
  std::lock_guard lk(s.mutex);
  s.reservations[base] = Reservation{size, {}};
  *out = base;
  return CUDA_SUCCESS;
}

CUresult vmmFree(CUdeviceptr ptr, size_t size) {
  State &s = state();
  std::lock_guard lk(s.mutex);
  auto it = s.reservations.find(ptr);
  if (it == s.reservations.end() || it->second.size != size)
    return fail(CUDA_ERROR_INVALID_VALUE, "not a whole reservation");
  if (!it->second.mappings.empty())
    return fail(CUDA_ERROR_INVALID_VALUE, "the reservation still has mappings");
  deviceArena().unreserve(ptr, size);
  s.reservations.erase(it);
  return CUDA_SUCCESS;
}

CUresult vmmMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle) {
  State &s = state();
  std::lock_guard lk(s.mutex);
  auto h = s.handles.find(handle);
  if (h == s.handles.end())
    return fail(CUDA_ERROR_INVALID_VALUE, "map of an unknown handle");
  const std::shared_ptr<Physical> &p = h->second.memory;
  // An H200 answers NOT_SUPPORTED for these (tests/gpu/answers/vmm.txt).
  if (size == 0 || !aligned(ptr) || !aligned(size) || !aligned(offset) || offset > p->size ||
      size > p->size - offset)
    return fail(CUDA_ERROR_NOT_SUPPORTED, "mapping out of the handle or unaligned");
  Reservation *r = s.reservationOf(ptr, size);
  if (!r)
    return fail(CUDA_ERROR_NOT_SUPPORTED, "mapping outside a reservation");
  auto next = r->mappings.lower_bound(ptr);
  if ((next != r->mappings.end() && next->first < ptr + size) ||
      (next != r->mappings.begin() && std::prev(next)->first + std::prev(next)->second.size > ptr))
    return fail(CUDA_ERROR_INVALID_VALUE, "the range is already mapped");
  if (mmap(reinterpret_cast<void *>(ptr), size, PROT_NONE, MAP_SHARED | MAP_FIXED, p->fd,
           static_cast<off_t>(offset)) == MAP_FAILED)
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "mmap failed");
  r->mappings[ptr] = Mapping{size, p};
  return CUDA_SUCCESS;
}

CUresult vmmUnmap(CUdeviceptr ptr, size_t size) {
  State &s = state();
  std::lock_guard lk(s.mutex);
  Reservation *r = s.reservationOf(ptr, size);
  if (!r || size == 0)
    return fail(CUDA_ERROR_INVALID_VALUE, "unmap outside a reservation");
  auto first = r->mappings.upper_bound(ptr);
  if (first != r->mappings.begin() && std::prev(first)->first + std::prev(first)->second.size > ptr)
    --first;
  auto last = first;
  for (; last != r->mappings.end() && last->first < ptr + size; ++last)
    if (last->first < ptr || last->first + last->second.size > ptr + size)
      return fail(CUDA_ERROR_INVALID_VALUE, "unmap of part of a mapping");
  for (auto it = first; it != last; ++it) {
    memory().untrackMapping(it->first);
    dropPages(it->first, it->second.size);
  }
  r->mappings.erase(first, last);
  return CUDA_SUCCESS;
}

CUresult vmmSetAccess(Context *ctx, CUdeviceptr ptr, size_t size, unsigned access) {
  State &s = state();
  std::lock_guard lk(s.mutex);
  Reservation *r = s.reservationOf(ptr, size);
  if (!r || size == 0)
    return fail(CUDA_ERROR_INVALID_VALUE, "access outside a reservation");
  auto it = r->mappings.find(ptr);
  for (uintptr_t at = ptr; at < ptr + size; at += (it++)->second.size)
    if (it == r->mappings.end() || it->first != at || it->second.size > ptr + size - at)
      return fail(CUDA_ERROR_INVALID_VALUE, "access to a range that is not whole mappings");
  const int prot = access == CU_MEM_ACCESS_FLAGS_PROT_READWRITE ? PROT_READ | PROT_WRITE
                   : access == CU_MEM_ACCESS_FLAGS_PROT_READ    ? PROT_READ
                                                                : PROT_NONE;
  if (mprotect(reinterpret_cast<void *>(ptr), size, prot) != 0)
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "mprotect failed");
  for (it = r->mappings.find(ptr); it != r->mappings.end() && it->first < ptr + size; ++it) {
    it->second.access = access;
    if (access == CU_MEM_ACCESS_FLAGS_PROT_NONE)
      memory().untrackMapping(it->first);
    else
      memory().trackMapping(ctx, it->first, it->second.size, access);
  }
  return CUDA_SUCCESS;
}

CUresult vmmGetAccess(CUdeviceptr ptr, unsigned long long *access) {
  State &s = state();
  std::lock_guard lk(s.mutex);
  auto [base, m] = s.mappingAt(ptr);
  *access = m ? m->access : 0; // an H200 writes 0 for an unmapped address
  return m ? CUDA_SUCCESS : fail(CUDA_ERROR_INVALID_VALUE, "no mapping there");
}

CUresult vmmRetain(CUmemGenericAllocationHandle *out, CUdeviceptr addr) {
  State &s = state();
  std::lock_guard lk(s.mutex);
  auto [base, m] = s.mappingAt(addr);
  if (!m)
    return fail(CUDA_ERROR_INVALID_VALUE, "no mapping there");
  if (auto id = s.ids.find(m->memory.get()); id != s.ids.end()) {
    ++s.handles[id->second].refs;
    *out = id->second;
  } else {
    *out = s.add(m->memory); // released while mapped: a handle again
  }
  return CUDA_SUCCESS;
}

CUresult vmmProperties(CUmemGenericAllocationHandle handle, CUmemAllocationProp *out) {
  State &s = state();
  std::lock_guard lk(s.mutex);
  const Physical *p = s.physical(handle);
  if (!p)
    return fail(CUDA_ERROR_INVALID_VALUE, "properties of an unknown handle");
  *out = p->prop;
  return CUDA_SUCCESS;
}

CUresult vmmExport(CUmemGenericAllocationHandle handle, int *fd) {
  State &s = state();
  std::lock_guard lk(s.mutex);
  const Physical *p = s.physical(handle);
  if (!p)
    return fail(CUDA_ERROR_INVALID_VALUE, "export of an unknown handle");
  if (!(p->prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
    return fail(CUDA_ERROR_INVALID_VALUE, "the handle was not created exportable");
  *fd = dup(p->fd);
  return *fd >= 0 ? CUDA_SUCCESS : fail(CUDA_ERROR_OUT_OF_MEMORY, "dup failed");
}

CUresult vmmImport(int fd, CUmemGenericAllocationHandle *out) {
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0 || !aligned(uint64_t(st.st_size)))
    return fail(CUDA_ERROR_UNKNOWN, "not a descriptor of exported memory"); // as an H200
  auto p = std::make_shared<Physical>();
  p->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (p->fd < 0)
    return fail(CUDA_ERROR_UNKNOWN, "dup failed");
  p->size = static_cast<size_t>(st.st_size);
  p->prop.type = CU_MEM_ALLOCATION_TYPE_PINNED; // an imported handle reports no handle types
  p->prop.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
  State &s = state();
  std::lock_guard lk(s.mutex);
  *out = s.add(std::move(p));
  return CUDA_SUCCESS;
}

} // namespace cucpu::driver
