// Per-worker arenas: grow-only 64-byte aligned buffers.
#include "cucpu/exec/arena.h"

#include <cstdlib>

namespace cucpu::exec {

Arena::~Arena() { std::free(data_); }

uint8_t *Arena::reserve(size_t bytes) {
  if (bytes <= capacity_ && data_)
    return data_;
  size_t cap = capacity_ ? capacity_ : 4096;
  while (cap < bytes)
    cap *= 2;
  void *p = std::aligned_alloc(64, cap);
  if (!p)
    return nullptr;
  std::free(data_);
  data_ = static_cast<uint8_t *>(p);
  capacity_ = cap;
  return data_;
}

} // namespace cucpu::exec
