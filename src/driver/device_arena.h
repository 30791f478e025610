// The device memory arena: address ranges reserved for device and page-locked memory alone, so
// that a stray access faults or lands in other device memory, never in the host's heap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace cucpu::driver {

// Blocks of up to kLargestClass bytes share slabs (as a GPU packs small allocations into its
// 2 MiB pages); larger ones are page spans of their own. Every slab and span is followed by
// unmapped pages, and freed spans are unmapped, so accesses beyond a block's pages fault.
class DeviceArena {
public:
  static constexpr size_t kLargestClass = 64 * 1024;
  static constexpr size_t kPage = 4096;
  static constexpr size_t kHugePage = 2 * 1024 * 1024;
  static constexpr size_t kClassCount = 20;

  // Who may free a block: the driver's calls, or kernels through device-side free.
  enum class Owner : uint8_t { Driver, DeviceHeap };

  DeviceArena();
  DeviceArena(const DeviceArena &) = delete;
  DeviceArena &operator=(const DeviceArena &) = delete;
  ~DeviceArena();

  // The size of the block `allocate` gives for `bytes` (0 if too large).
  static size_t blockSize(size_t bytes);
  // A block of at least `bytes` (> 0), aligned to 256 bytes or to its size class below that;
  // `*taken` is the block's size. Null when the address space or the host's memory runs out.
  void *allocate(size_t bytes, size_t *taken, Owner owner = Owner::Driver);
  // Frees a block `allocate` returned to `owner`; false (and nothing freed) for any other
  // address. `*size` (if given) receives the block's size.
  bool release(void *p, Owner owner = Owner::Driver, size_t *size = nullptr);
  // Address space alone, inaccessible, for virtual memory management: `bytes` (whole pages)
  // aligned to `alignment` and followed by an unmapped page; 0 when none is left.
  uintptr_t reserve(size_t bytes, size_t alignment);
  // Makes a reserved range inaccessible again (dropping what was mapped there) and returns it.
  void unreserve(uintptr_t base, size_t bytes);
  // The live block containing `address`: its base and size.
  bool blockOf(uintptr_t address, uintptr_t *base, size_t *size) const;
  // Whether `address` is in a slab or span of `owner`'s blocks (memcheck: "in the device heap").
  bool inMemoryOf(uintptr_t address, Owner owner) const;
  // Bytes of address space reserved and bytes in live blocks (for tests and logs).
  size_t reservedBytes() const;
  size_t liveBytes() const;

private:
  struct Slab;
  uintptr_t mapSpan(size_t bytes, size_t alignment); // pages, readable and writable
  void unmapSpan(uintptr_t base);
  void retireSpan(uintptr_t base, size_t bytes);
  uintptr_t reviveSpan(size_t bytes);
  uintptr_t takeAddressSpace(size_t bytes, size_t alignment);
  void *allocateInSlab(unsigned cls, Owner owner);
  bool releaseInSlab(Slab &slab, uintptr_t p);
  struct Large {
    size_t bytes;
    Owner owner;
  };

  struct Zone {
    uintptr_t begin, end, frontier; // never-used addresses start at frontier
  };
  mutable std::mutex mutex_;
  std::vector<Zone> zones_;
  std::map<uintptr_t, size_t> freeRanges_; // address space returned by freed spans, coalesced
  std::map<uintptr_t, size_t> spans_;      // live spans: base -> bytes mapped (guard excluded)
  std::map<uintptr_t, std::unique_ptr<Slab>> slabs_;
  std::vector<Slab *> partial_[2][kClassCount]; // per owner and class: slabs with a free slot
  // Per owner and class, one emptied slab kept with its pages, inaccessible (as a GPU unmaps
  // the page of its last freed small allocation), made accessible again when the class needs it.
  Slab *empty_[2][kClassCount] = {};
  std::map<uintptr_t, Large> largeBlocks_; // spans handed out whole
  // Freed large spans keep their pages, inaccessible, for a later block of the same size: a
  // program that frees and allocates again pays no page faults, and stale accesses still fault.
  struct Retired {
    uintptr_t base;
    size_t bytes;
  };
  std::list<Retired> retired_; // oldest first
  std::multimap<size_t, std::list<Retired>::iterator> retiredBySize_;
  size_t retiredBytes_ = 0;
  size_t live_ = 0;
};

// The process's arena (never destroyed: memory may be freed during static destruction).
DeviceArena &deviceArena();

} // namespace cucpu::driver
