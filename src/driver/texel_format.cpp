// Array formats' channel layouts and f16 conversions (texel_format.h).
#include "texel_format.h"
#include "cucpu/driver/image.h"

#include <cstring>

namespace cucpu::driver::texel {

Format formatOf(CUarray_format f) {
  Format r;
  r.bytes = channelBytes(f);
  switch (f) {
  case CU_AD_FORMAT_SIGNED_INT8:
  case CU_AD_FORMAT_SIGNED_INT16:
  case CU_AD_FORMAT_SIGNED_INT32:
    r.isSigned = true;
    break;
  case CU_AD_FORMAT_HALF:
  case CU_AD_FORMAT_FLOAT:
    r.isSigned = r.isFloat = true;
    break;
  case CU_AD_FORMAT_SNORM_INT8X1:
  case CU_AD_FORMAT_SNORM_INT8X2:
  case CU_AD_FORMAT_SNORM_INT8X4:
  case CU_AD_FORMAT_SNORM_INT16X1:
  case CU_AD_FORMAT_SNORM_INT16X2:
  case CU_AD_FORMAT_SNORM_INT16X4:
    r.isSigned = r.normalized = true;
    break;
  case CU_AD_FORMAT_UNSIGNED_INT8:
  case CU_AD_FORMAT_UNSIGNED_INT16:
  case CU_AD_FORMAT_UNSIGNED_INT32:
    break;
  default:
    r.normalized = true;
  }
  return r;
}

float halfToFloat(uint16_t h) {
  _Float16 v;
  std::memcpy(&v, &h, 2);
  return float(v);
}

uint16_t floatToHalf(float f) {
  _Float16 v = static_cast<_Float16>(f);
  uint16_t h;
  std::memcpy(&h, &v, 2);
  return h;
}

} // namespace cucpu::driver::texel
