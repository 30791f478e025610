// Per-worker arenas: grow-only buffers, 64-byte aligned or more.
#include "cucpu/exec/arena.h"

#include <algorithm>
#include <cstdlib>

namespace cucpu::exec {

Arena::~Arena() { std::free(data_); }

uint8_t *Arena::reserve(size_t bytes, size_t align) {
  align = std::max<size_t>(align, 64);
  if (bytes <= capacity_ && data_ && align <= align_)
    return data_;
  size_t cap = std::max<size_t>(capacity_ ? capacity_ : 4096, align);
  while (cap < bytes)
    cap *= 2;
  void *p = std::aligned_alloc(std::max(align, align_), cap);
  if (!p)
    return nullptr;
  std::free(data_);
  data_ = static_cast<uint8_t *>(p);
  capacity_ = cap;
  align_ = std::max(align, align_);
  return data_;
}

} // namespace cucpu::exec
