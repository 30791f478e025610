// The texture unit's arithmetic (texel_filter.h): addressing, filter weights, normalized and
// sRGB filtering, border colours.
#include "texel_filter.h"

#include "srgb_table.h"

namespace cucpu::driver::texel {

Kind kindOf(const Format &f, unsigned texFlags) {
  if (f.isFloat)
    return Kind::Float;
  if (f.normalized)
    return Kind::Norm;
  if (f.bytes == 4 || (texFlags & CU_TRSF_READ_AS_INTEGER))
    return Kind::Int;
  return Kind::Norm;
}

int32_t addressAxis(int64_t i, uint32_t n, CUaddress_mode m, bool normalized) {
  if (!normalized && (m == CU_TR_ADDRESS_MODE_WRAP || m == CU_TR_ADDRESS_MODE_MIRROR))
    m = CU_TR_ADDRESS_MODE_CLAMP;
  const int64_t N = n;
  switch (m) {
  case CU_TR_ADDRESS_MODE_WRAP:
    return int32_t(((i % N) + N) % N);
  case CU_TR_ADDRESS_MODE_MIRROR: {
    int64_t k = ((i % (2 * N)) + 2 * N) % (2 * N);
    return int32_t(k < N ? k : 2 * N - 1 - k);
  }
  case CU_TR_ADDRESS_MODE_BORDER:
    return i < 0 || i >= N ? -1 : int32_t(i);
  default:
    return int32_t(std::clamp<int64_t>(i, 0, N - 1));
  }
}

void bilinearShares(int32_t total, int32_t kx, int32_t ky, int32_t w[4]) {
  const int32_t x1 = share(total, kx, true);
  const int32_t y1OfX0 = share(total - x1, ky, false), y1OfX1 = share(x1, ky, true);
  w[0] = total - x1 - y1OfX0;
  w[1] = y1OfX0;
  w[2] = x1 - y1OfX1;
  w[3] = y1OfX1;
}

LinearAxis linearAxis(float u, uint32_t n, CUaddress_mode m, bool normalized, int32_t offset) {
  const bool clamp =
      m == CU_TR_ADDRESS_MODE_CLAMP ||
      (!normalized && (m == CU_TR_ADDRESS_MODE_WRAP || m == CU_TR_ADDRESS_MODE_MIRROR));
  if (clamp && !std::isnan(u))
    u = std::clamp(u, 0.5f, float(n) - 0.5f);
  const float ub = u - 0.5f;
  const int64_t i0 = floorIndex(ub);
  return {addressAxis(i0 + offset, n, m, normalized),
          addressAxis(i0 + 1 + offset, n, m, normalized),
          std::isfinite(ub) ? weight256(ub - floorOf(ub)) : 0};
}

int64_t normUnits(float x, const Format &f) { return int64_t(floorOf(x * normMax(f) + 0.5f)); }

float normFromSum(int64_t sum, const Format &f) {
  const int64_t q = f.bytes == 2 ? (sum + 128) >> 8
                    : f.isSigned ? (sum * 33025 + 16384) >> 15
                                 : (sum * 257 + 128) >> 8;
  return float(double(q) / (f.isSigned ? 32767.0 : 65535.0));
}

int srgbExponent(uint8_t byte) { return std::ilogb(fromBits(kSrgbToLinear[byte | 7])); }

float roundToHalfUp(double x) {
  if (!(x > 0))
    return 0.0f;
  const int e = std::max(std::ilogb(x), -14) - 10;
  return float(std::ldexp(floorOf(std::ldexp(x, -e) + 0.5), e));
}

float storedBorder(float b, const Format &f, Kind kind) {
  if (kind == Kind::Norm)
    return std::nearbyint(std::clamp(b, f.isSigned ? -1.0f : 0.0f, 1.0f) * normMax(f)) / normMax(f);
  return f.isFloat && f.bytes == 2 ? halfToFloat(floatToHalf(b)) : b;
}

} // namespace cucpu::driver::texel
