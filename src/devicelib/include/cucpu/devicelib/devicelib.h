// The device library: arithmetic that generated kernels call by symbol (warp-level matrix
// products with the tensor cores' rounding). The JIT resolves these names to these functions.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace cucpu::devicelib {

struct Symbol {
  std::string_view name;
  void *address;
};

// Every function of the device library, by the name generated code calls it.
const std::vector<Symbol> &symbols();

// Bits of one element of a CUCPU_MF_* format (64, 32, 16, 8, 4 or 1).
int elementBits(uint16_t format);

} // namespace cucpu::devicelib
