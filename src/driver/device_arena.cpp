// The device memory arena: size-class slabs and page spans carved from reserved address ranges.
#include "device_arena.h"

#include "cucpu/support/log.h"

#include <sys/mman.h>

#include <algorithm>
#include <array>

namespace cucpu::driver {
namespace {

// Size classes of slab blocks: powers of two below 256 bytes (device malloc), then steps of at
// most 1.5x, every one a multiple of 256 so that cuMemAlloc's alignment holds in every slot.
constexpr std::array<size_t, DeviceArena::kClassCount> kClasses = {
    16,   32,   64,   128,  256,   512,   768,   1024,  1536,  2048,
    3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, DeviceArena::kLargestClass};
static_assert(kClasses.back() == DeviceArena::kLargestClass);

constexpr size_t kZoneBytes = size_t(64) << 30;
constexpr size_t kMaxZones = 16; // then freed address space is reused
constexpr size_t kSlabAlignment = 64 * 1024;
constexpr size_t kRetainBytes = size_t(256) << 20; // pages kept for reuse after frees
constexpr int kAnonymous = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;

unsigned classOf(size_t bytes) {
  return static_cast<unsigned>(std::lower_bound(kClasses.begin(), kClasses.end(), bytes) -
                               kClasses.begin());
}

size_t slabBytes(unsigned cls) { return std::max<size_t>(256 * 1024, 8 * kClasses[cls]); }

uintptr_t alignUp(uintptr_t v, size_t a) { return (v + a - 1) & ~uintptr_t(a - 1); }

// Puts [begin, begin + bytes) back into `ranges`, merged with its neighbours.
void addRange(std::map<uintptr_t, size_t> &ranges, uintptr_t begin, size_t bytes) {
  if (bytes == 0)
    return;
  auto next = ranges.lower_bound(begin);
  if (next != ranges.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == begin) {
      begin = prev->first;
      bytes += prev->second;
      ranges.erase(prev);
    }
  }
  if (next != ranges.end() && begin + bytes == next->first) {
    bytes += next->second;
    ranges.erase(next);
  }
  ranges[begin] = bytes;
}

} // namespace

struct DeviceArena::Slab {
  uintptr_t base;
  unsigned cls;
  Owner owner;
  uint32_t slots, used = 0, hint = 0; // hint: no free slot below it
  bool partial = true;                // listed in partial_[cls]
  std::vector<uint64_t> taken;        // a bit per slot
  Slab(uintptr_t b, unsigned c, Owner o)
      : base(b), cls(c), owner(o), slots(static_cast<uint32_t>(slabBytes(c) / kClasses[c])),
        taken((slots + 63) / 64) {}
  bool isTaken(uint32_t i) const { return taken[i / 64] >> (i % 64) & 1; }
};

DeviceArena::DeviceArena() = default;

DeviceArena::~DeviceArena() {
  for (const Zone &z : zones_)
    munmap(reinterpret_cast<void *>(z.begin), z.end - z.begin);
}

uintptr_t DeviceArena::takeAddressSpace(size_t bytes, size_t alignment) {
  auto fromZones = [&]() -> uintptr_t {
    for (Zone &z : zones_) {
      uintptr_t a = alignUp(z.frontier, alignment);
      if (a + bytes > z.end || a + bytes < a)
        continue;
      addRange(freeRanges_, z.frontier, a - z.frontier);
      z.frontier = a + bytes;
      return a;
    }
    return 0;
  };
  // Fresh addresses first, so that a freed block's addresses fault for as long as possible.
  if (uintptr_t a = fromZones())
    return a;
  for (size_t size = kZoneBytes; zones_.size() < kMaxZones && size >= bytes + kHugePage;
       size /= 2) {
    void *p = mmap(nullptr, size, PROT_NONE, kAnonymous, -1, 0);
    if (p == MAP_FAILED)
      continue; // a limited address space: try a smaller zone
    auto begin = reinterpret_cast<uintptr_t>(p);
    // The zone's first page stays inaccessible too: below it lies someone else's mapping.
    zones_.push_back(Zone{begin, begin + size, alignUp(begin + kPage, kHugePage)});
    log::debug(log::Component::Mem, "reserved {} GiB of address space at {:#x} for device memory",
               size >> 30, begin);
    return fromZones();
  }
  for (auto it = freeRanges_.begin(); it != freeRanges_.end(); ++it) {
    auto [begin, length] = *it;
    uintptr_t a = alignUp(begin, alignment);
    if (a + bytes > begin + length)
      continue;
    freeRanges_.erase(it);
    addRange(freeRanges_, begin, a - begin);
    addRange(freeRanges_, a + bytes, begin + length - (a + bytes));
    return a;
  }
  return 0;
}

uintptr_t DeviceArena::mapSpan(size_t bytes, size_t alignment) {
  uintptr_t a = takeAddressSpace(bytes + kPage, alignment); // a guard page follows every span
  if (!a)
    return 0;
  void *p = mmap(reinterpret_cast<void *>(a), bytes, PROT_READ | PROT_WRITE, kAnonymous | MAP_FIXED,
                 -1, 0);
  if (p == MAP_FAILED) {
    addRange(freeRanges_, a, bytes + kPage);
    return 0;
  }
  if (bytes >= kHugePage)
    madvise(p, bytes, MADV_HUGEPAGE); // large buffers stream: fewer TLB misses
  spans_[a] = bytes;
  return a;
}

void DeviceArena::unmapSpan(uintptr_t base) {
  auto it = spans_.find(base);
  const size_t bytes = it->second;
  spans_.erase(it);
  // Replacing the pages by inaccessible ones returns them to the system and makes later
  // accesses fault.
  mmap(reinterpret_cast<void *>(base), bytes, PROT_NONE, kAnonymous | MAP_FIXED, -1, 0);
  addRange(freeRanges_, base, bytes + kPage);
}

void DeviceArena::retireSpan(uintptr_t base, size_t bytes) {
  mprotect(reinterpret_cast<void *>(base), bytes, PROT_NONE);
  retired_.push_back(Retired{base, bytes});
  retiredBySize_.emplace(bytes, std::prev(retired_.end()));
  retiredBytes_ += bytes;
  while (retiredBytes_ > kRetainBytes) {
    const Retired oldest = retired_.front();
    auto range = retiredBySize_.equal_range(oldest.bytes);
    for (auto it = range.first; it != range.second; ++it)
      if (it->second == retired_.begin()) {
        retiredBySize_.erase(it);
        break;
      }
    retired_.pop_front();
    retiredBytes_ -= oldest.bytes;
    unmapSpan(oldest.base);
  }
}

uintptr_t DeviceArena::reviveSpan(size_t bytes) {
  auto it = retiredBySize_.upper_bound(bytes);
  if (it == retiredBySize_.begin() || (--it)->first != bytes)
    return 0; // else the latest of that size: its pages are the likeliest to be present
  const uintptr_t base = it->second->base;
  if (mprotect(reinterpret_cast<void *>(base), bytes, PROT_READ | PROT_WRITE) != 0)
    return 0;
  retired_.erase(it->second);
  retiredBySize_.erase(it);
  retiredBytes_ -= bytes;
  return base;
}

void *DeviceArena::allocateInSlab(unsigned cls, Owner owner) {
  std::vector<Slab *> &list = partial_[static_cast<int>(owner)][cls];
  Slab *&empty = empty_[static_cast<int>(owner)][cls];
  if (list.empty() && empty &&
      mprotect(reinterpret_cast<void *>(empty->base), slabBytes(cls), PROT_READ | PROT_WRITE) ==
          0) {
    empty->partial = true;
    list.push_back(empty);
    empty = nullptr;
  }
  if (list.empty()) {
    uintptr_t base = mapSpan(slabBytes(cls), kSlabAlignment);
    if (!base)
      return nullptr;
    auto slab = std::make_unique<Slab>(base, cls, owner);
    list.push_back(slab.get());
    slabs_[base] = std::move(slab);
  }
  Slab &s = *list.back();
  uint32_t i = s.hint;
  while (s.isTaken(i))
    ++i;
  s.taken[i / 64] |= uint64_t(1) << (i % 64);
  s.hint = i + 1;
  if (++s.used == s.slots) {
    list.pop_back();
    s.partial = false;
  }
  return reinterpret_cast<void *>(s.base + i * kClasses[cls]);
}

size_t DeviceArena::blockSize(size_t bytes) {
  if (bytes <= kLargestClass)
    return kClasses[classOf(bytes)];
  const size_t rounded = alignUp(bytes, bytes >= kHugePage ? kHugePage : kPage);
  return rounded < bytes ? 0 : rounded;
}

void *DeviceArena::allocate(size_t bytes, size_t *taken, Owner owner) {
  if (bytes == 0)
    return nullptr;
  std::lock_guard lk(mutex_);
  void *p;
  if (bytes <= kLargestClass) {
    const unsigned cls = classOf(bytes);
    p = allocateInSlab(cls, owner);
    *taken = kClasses[cls];
  } else {
    const size_t alignment = bytes >= kHugePage ? kHugePage : kPage;
    *taken = alignUp(bytes, alignment);
    if (*taken < bytes)
      return nullptr;
    uintptr_t base = reviveSpan(*taken);
    if (!base)
      base = mapSpan(*taken, alignment);
    p = reinterpret_cast<void *>(base);
    if (base)
      largeBlocks_[base] = Large{*taken, owner};
  }
  if (p)
    live_ += *taken;
  return p;
}

bool DeviceArena::releaseInSlab(Slab &s, uintptr_t p) {
  const size_t size = kClasses[s.cls];
  const size_t offset = p - s.base;
  const auto i = static_cast<uint32_t>(offset / size);
  if (offset % size != 0 || i >= s.slots || !s.isTaken(i))
    return false;
  s.taken[i / 64] &= ~(uint64_t(1) << (i % 64));
  s.hint = std::min(s.hint, i);
  live_ -= size;
  std::vector<Slab *> &list = partial_[static_cast<int>(s.owner)][s.cls];
  if (!s.partial) {
    list.push_back(&s);
    s.partial = true;
  }
  if (--s.used > 0)
    return true;
  list.erase(std::find(list.begin(), list.end(), &s));
  s.partial = false;
  Slab *&empty = empty_[static_cast<int>(s.owner)][s.cls];
  if (!empty && mprotect(reinterpret_cast<void *>(s.base), slabBytes(s.cls), PROT_NONE) == 0) {
    empty = &s;
    return true;
  }
  const uintptr_t base = s.base;
  unmapSpan(base);
  slabs_.erase(base);
  return true;
}

bool DeviceArena::release(void *ptr, Owner owner, size_t *size) {
  const auto p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard lk(mutex_);
  if (auto it = largeBlocks_.find(p); it != largeBlocks_.end()) {
    if (it->second.owner != owner)
      return false;
    live_ -= it->second.bytes;
    if (size)
      *size = it->second.bytes;
    retireSpan(p, it->second.bytes);
    largeBlocks_.erase(it);
    return true;
  }
  auto it = slabs_.upper_bound(p);
  if (it == slabs_.begin())
    return false;
  Slab &s = *std::prev(it)->second;
  const unsigned cls = s.cls; // releasing the last block may unmap the slab
  if (s.owner != owner || p >= s.base + slabBytes(cls) || !releaseInSlab(s, p))
    return false;
  if (size)
    *size = kClasses[cls];
  return true;
}

uintptr_t DeviceArena::reserve(size_t bytes, size_t alignment) {
  std::lock_guard lk(mutex_);
  return takeAddressSpace(bytes + kPage, alignment);
}

void DeviceArena::unreserve(uintptr_t base, size_t bytes) {
  std::lock_guard lk(mutex_);
  mmap(reinterpret_cast<void *>(base), bytes, PROT_NONE, kAnonymous | MAP_FIXED, -1, 0);
  addRange(freeRanges_, base, bytes + kPage);
}

bool DeviceArena::blockOf(uintptr_t address, uintptr_t *base, size_t *size) const {
  std::lock_guard lk(mutex_);
  if (auto it = largeBlocks_.upper_bound(address); it != largeBlocks_.begin()) {
    --it;
    if (address - it->first < it->second.bytes) {
      *base = it->first;
      *size = it->second.bytes;
      return true;
    }
  }
  auto it = slabs_.upper_bound(address);
  if (it == slabs_.begin())
    return false;
  const Slab &s = *std::prev(it)->second;
  const size_t cls = kClasses[s.cls];
  const uint64_t i = (address - s.base) / cls;
  if (address < s.base || i >= s.slots || !s.isTaken(static_cast<uint32_t>(i)))
    return false;
  *base = s.base + i * cls;
  *size = cls;
  return true;
}

bool DeviceArena::inMemoryOf(uintptr_t address, Owner owner) const {
  std::lock_guard lk(mutex_);
  if (auto it = largeBlocks_.upper_bound(address); it != largeBlocks_.begin()) {
    --it;
    if (address - it->first < it->second.bytes)
      return it->second.owner == owner;
  }
  auto it = slabs_.upper_bound(address);
  if (it == slabs_.begin())
    return false;
  const Slab &s = *std::prev(it)->second;
  return address - s.base < slabBytes(s.cls) && s.owner == owner;
}

size_t DeviceArena::reservedBytes() const {
  std::lock_guard lk(mutex_);
  size_t n = 0;
  for (const Zone &z : zones_)
    n += z.end - z.begin;
  return n;
}

size_t DeviceArena::liveBytes() const {
  std::lock_guard lk(mutex_);
  return live_;
}

DeviceArena &deviceArena() {
  static auto *a = new DeviceArena();
  return *a;
}

} // namespace cucpu::driver
