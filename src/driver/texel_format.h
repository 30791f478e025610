// The host layout of CUDA array elements, shared by texture sampling (sampler.cpp) and surface
// accesses (surface.cpp): a format's channel size, signedness and normalisation, and f16 and
// bit conversions.
#pragma once

#include <cuda.h>

#include <bit>
#include <cstdint>

namespace cucpu::driver::texel {

struct Format {
  unsigned bytes = 4;
  bool isSigned = false, isFloat = false, normalized = false; // normalized: UNORM/SNORM formats
};

inline uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }
inline float fromBits(uint32_t u) { return std::bit_cast<float>(u); }

// The largest integer a channel of a normalized read holds: 255, 127, 65535 or 32767.
inline float normMax(const Format &f) {
  return float((1u << (f.bytes * 8 - (f.isSigned ? 1 : 0))) - 1);
}

// The channel layout of an array format.
Format formatOf(CUarray_format f);
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);

} // namespace cucpu::driver::texel
