// The texture unit's sRGB-to-linear table (srgb_table.cpp).
#pragma once

#include <cstdint>

namespace cucpu::driver {

// f32 bits of the linear value the GPU returns for each sRGB-encoded byte.
extern const uint32_t kSrgbToLinear[256];

} // namespace cucpu::driver
