// The texture unit's arithmetic, as the recorded tex.* cases pin it down: channel kinds,
// addressing, fixed-point filter weights and their splits, normalized and sRGB filtering, border
// colours. sampler.cpp builds sampling on it.
#pragma once

#include "texel_format.h"

#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace cucpu::driver::texel {

// How a format's channels read: floats, integers promoted to [0,1] / [-1,1], or integers.
enum class Kind { Float, Norm, Int };

Kind kindOf(const Format &f, unsigned texFlags);

// A texel index along one axis after addressing, or -1 for a border texel. Wrap and mirror
// apply to normalized coordinates only; otherwise they clamp.
int32_t addressAxis(int64_t i, uint32_t n, CUaddress_mode m, bool normalized);

// floor() without a libm call (x86-64's baseline has no rounding instruction): exact for every
// float, since those of magnitude 2^23 and above are integers already.
inline float floorOf(float x) {
  if (!(std::fabs(x) < 8388608.0f)) // also NaN
    return x;
  const float t = float(int32_t(x));
  return t > x ? t - 1.0f : t;
}

inline double floorOf(double x) {
  if (!(std::fabs(x) < 4503599627370496.0))
    return x;
  const double t = double(int64_t(x));
  return t > x ? t - 1.0 : t;
}

// floor() of a texel-space coordinate as an integer, NaN reading as 0.
inline int64_t floorIndex(float u) {
  if (std::isnan(u))
    return 0;
  return int64_t(std::clamp(floorOf(u), -1e12f, 1e12f));
}

// The hardware's filter weights have 8 fractional bits: a fraction in [0, 1) becomes k / 256, k
// in 0..256, rounded half up.
inline int32_t weight256(float frac) { return int32_t(floorOf(frac * 256.0f + 0.5f)); }

// The part of `total` (in 1/256 units) that a weight k / 256 takes, rounded to nearest; an exact
// half goes up when `tieUp`, else down.
inline int32_t share(int32_t total, int32_t k, bool tieUp) {
  return (total * k + (tieUp ? 128 : 127)) >> 8;
}

// The weights, in 1/256 units, of the taps x0y0, x0y1, x1y0 and x1y1 of a bilinear footprint
// carrying `total` of the filter's 256, for axis weights kx / 256 and ky / 256. The texture unit
// does not multiply the axis weights: it splits `total` along x, then each part along y, every
// part rounded to nearest. A tie goes up in the x split; in the y split it goes to the tap whose
// x and y sides agree (x0y0 or x1y1). Established from the recorded tex.cube_fine_linear (face
// coordinates with arbitrary fractions), tex.t3d_* and tex.mip_*_trilinear (each z slice or mip
// level one footprint carrying its share of the weight): exact products, products rounded at
// the end, the other split order and the other tie rules each miss lanes there.
void bilinearShares(int32_t total, int32_t kx, int32_t ky, int32_t w[4]);

// One axis of a linear footprint: the indices of its two texels (after addressing, -1 for a
// border texel) and the weight k / 256 of the second. Clamp addressing first clamps the
// coordinate to the edge texel centres, [0.5, n - 0.5], so that a footprint reaching past an
// edge puts all its weight on the edge texel (k = 0) rather than splitting it between two copies
// of that texel: the rounding of the shares tells the two apart at the edges of tex.t3d_* and
// tex.mip_grad_trilinear. (tld4 takes its texels without this clamp: tex.gather_f.)
struct LinearAxis {
  int32_t i0, i1, k;
};

LinearAxis linearAxis(float u, uint32_t n, CUaddress_mode m, bool normalized, int32_t offset);

// The integer k of a normalized texel k / 255 (k / 65535, k / 127, ...; a border colour is
// stored so too).
int64_t normUnits(float x, const Format &f);

// A filtered normalized channel from `sum`, the taps' weights (1/256 units) times their texels'
// integers: the texture unit widens 8-bit texels to 16-bit fixed point (unsigned k to 257 k,
// signed k to 258 k + k / 128) and rounds the weighted sum half up to a multiple of 1/65535
// (1/32767 for signed formats). Bit for bit on every recorded filtered 8- and 16-bit lane; the
// signed 8-bit factor shows in one lane of tex.t2d_s8x1_wrap_linear, a tie that 32767 / 127
// would round up.
float normFromSum(int64_t sum, const Format &f);

// The exponent of the linear value the texture unit filters for an sRGB byte. The GPU keeps the
// decoded values of each run of 8 bytes at the exponent of the run's largest (that of byte | 7)
// with 8 significant bits below it: every entry of kSrgbToLinear is a multiple of that unit, and
// in tex.t2d_srgb_linear byte 184 (0.48) filters as a value of [0.5, 1) and bytes 248..251
// (0.9375 and up) as ones of [1, 2), while bytes 183 and 245 keep their own exponents.
int srgbExponent(uint8_t byte);

// x >= 0 rounded to half precision, halves up.
float roundToHalfUp(double x);

// A border colour channel as the texture returns it: stored in the texel format first, so
// normalized formats quantize it and half floats round it.
float storedBorder(float b, const Format &f, Kind kind);

} // namespace cucpu::driver::texel
