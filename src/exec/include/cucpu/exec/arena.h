// A per-worker memory arena for a block's shared memory and scratch (context arrays, local memory).
#pragma once

#include <cstddef>
#include <cstdint>

namespace cucpu::exec {

class Arena {
public:
  Arena() = default;
  Arena(const Arena &) = delete;
  Arena &operator=(const Arena &) = delete;
  ~Arena();

  // Returns at least `bytes` of memory aligned to `align` (a power of two, at least 64), reusing
  // the previous buffer when it is large and aligned enough (no allocation in steady state).
  // Contents are unspecified. Null on failure.
  uint8_t *reserve(size_t bytes, size_t align = 64);

private:
  uint8_t *data_ = nullptr;
  size_t capacity_ = 0;
  size_t align_ = 64;
};

} // namespace cucpu::exec
