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

  // Returns at least `bytes` of 64-byte aligned memory, reusing the previous buffer when it is
  // large enough (no allocation in steady state). Contents are unspecified. Null on failure.
  uint8_t *reserve(size_t bytes);

private:
  uint8_t *data_ = nullptr;
  size_t capacity_ = 0;
};

} // namespace cucpu::exec
