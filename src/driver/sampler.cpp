// Texture sampling (addressing, point/linear/mipmap filtering, cubemaps, gathers) on the host
// layout of CUDA arrays and linear memory; surfaces and queries are in surface.cpp.
#include "sampler.h"
#include "srgb_table.h"
#include "texel_filter.h"
#include "texel_format.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace cucpu::driver {
namespace {

using namespace texel; // texel formats and the texture unit's arithmetic (texel_filter.h)

// A non-negative normal float cut to half precision's 10 fraction bits (toward zero).
float truncateToHalf(float f) { return fromBits(bits(f) & ~0x1fffu); }

// The raw channel c of the element at p: sign-extended integer bits, or f32 bits of a float.
uint32_t rawChannel(const Format &f, const uint8_t *p, unsigned c) {
  const uint8_t *q = p + c * f.bytes;
  switch (f.bytes) {
  case 1:
    return f.isSigned ? uint32_t(int32_t(int8_t(*q))) : *q;
  case 2: {
    uint16_t v;
    std::memcpy(&v, q, 2);
    if (f.isFloat)
      return bits(halfToFloat(v));
    return f.isSigned ? uint32_t(int32_t(int16_t(v))) : v;
  }
  default: {
    uint32_t v;
    std::memcpy(&v, q, 4);
    return v;
  }
  }
}

float srgbToLinear(float c) {
  return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f);
}

// Reads one element as four words of its kind; absent channels read 0 (alpha too, as on the
// GPU).
void readElement(const ImageView &v, const Format &f, Kind kind, bool srgb, const uint8_t *p,
                 uint32_t out[4]) {
  for (unsigned c = 0; c < 4; ++c) {
    if (c >= v.channels) {
      out[c] = 0;
      continue;
    }
    uint32_t raw = rawChannel(f, p, c);
    if (kind == Kind::Norm && srgb && c < 3 && f.bytes == 1 && !f.isSigned) {
      out[c] = kSrgbToLinear[raw & 0xff];
      continue;
    }
    if (kind == Kind::Norm) {
      const float scale = normMax(f);
      float x = f.isSigned ? std::max(float(int32_t(raw)) / scale, -1.0f) : float(raw) / scale;
      if (srgb && c < 3) // the GPU's sRGB decode gives half-precision values
        x = truncateToHalf(srgbToLinear(x));
      raw = bits(x);
    }
    out[c] = raw;
  }
}

// One tap of a filter footprint: its texel (x, y, z; -1 for a border texel) in a level and its
// weight in 1/256 units.
struct Tap {
  const ImageLevel *level;
  int32_t at[3];
  int32_t weight;
};

struct Sampler {
  const TextureObject &t;
  const ImageView &v;
  Format f;
  Kind kind;
  bool srgb, normalized;
  CUaddress_mode modes[3];

  // The border colour as the texture returns it (storedBorder): absent channels 0, and 0 for
  // integer reads.
  void border(uint32_t out[4]) const {
    for (unsigned c = 0; c < 4; ++c)
      out[c] = kind == Kind::Int || c >= v.channels
                   ? 0
                   : bits(storedBorder(t.tex.borderColor[c], f, kind));
  }

  // The element at (x, y, z) of slice `slice` of a level, or null for a border texel (an index
  // -1).
  const uint8_t *element(const ImageLevel &L, int32_t x, int32_t y, int32_t z,
                         uint32_t slice) const {
    if (x < 0 || y < 0 || z < 0)
      return nullptr;
    return L.data + (size_t(slice) + size_t(z)) * L.slicePitch + size_t(y) * L.pitch +
           size_t(x) * v.elementBytes;
  }

  // The texel at (x, y, z) of slice `slice` of a level; a -1 index reads the border colour.
  void texel(const ImageLevel &L, int32_t x, int32_t y, int32_t z, uint32_t slice,
             uint32_t out[4]) const {
    const uint8_t *p = element(L, x, y, z, slice);
    if (!p) {
      border(out);
      return;
    }
    if (f.isFloat && f.bytes == 4) { // f32 channels are the result bits as they are
      std::memcpy(out, p, v.elementBytes);
      for (unsigned c = v.channels; c < 4; ++c)
        out[c] = 0;
      return;
    }
    readElement(v, f, kind, srgb, p, out);
  }

  // The texel a point sample at texel-space coordinates u (`dims` axes) reads.
  void pointAt(const ImageLevel &L, unsigned dims, const float u[3], const int32_t *offset,
               int32_t at[3]) const {
    const uint32_t size[3] = {L.width, L.height, L.depth};
    at[0] = at[1] = at[2] = 0;
    for (unsigned d = 0; d < dims; ++d)
      at[d] =
          addressAxis(floorIndex(u[d]) + (offset ? offset[d] : 0), size[d], modes[d], normalized);
  }

  // Writes the taps of a linear footprint at texel-space coordinates u (`dims` axes, 2 or 3)
  // carrying `total` of the filter's weight and returns their count. A 3D footprint splits
  // `total` between its two z slices first, rounding as bilinearShares does along x (tex.t3d_*).
  unsigned linearTaps(const ImageLevel &L, unsigned dims, const float u[3], const int32_t *offset,
                      int32_t total, Tap *out) const {
    const uint32_t size[3] = {L.width, L.height, L.depth};
    LinearAxis ax[3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    for (unsigned d = 0; d < dims; ++d)
      ax[d] = linearAxis(u[d], size[d], modes[d], normalized, offset ? offset[d] : 0);
    const int32_t z1 = dims == 3 ? share(total, ax[2].k, true) : 0;
    unsigned n = 0;
    for (int32_t z = 0; z < (dims == 3 ? 2 : 1); ++z) {
      int32_t w[4];
      bilinearShares(z ? z1 : total - z1, ax[0].k, ax[1].k, w);
      for (int32_t i = 0; i < 4; ++i)
        out[n++] = {
            &L,
            {(i & 2) ? ax[0].i1 : ax[0].i0, (i & 1) ? ax[1].i1 : ax[1].i0, z ? ax[2].i1 : ax[2].i0},
            w[i]};
    }
    return n;
  }

  // Filters taps (at most 16, weights summing to 256) into the four result words: float
  // channels as the weighted sum rounded to f32, normalized ones in fixed point (normFromSum).
  // sRGB channels of 8-bit texels filter as block floating point: each tap's linear value is cut
  // (toward zero) to 8 significant bits below the largest exponent among the taps
  // (srgbExponent), the weighted sum of those is exact and rounds to half precision, halves up.
  // That reproduces all 768 colour lanes of tex.t2d_srgb_linear bit for bit; the exact sum cut
  // to half precision missed 439 of them. Taps of weight 0 take no part.
  void filter(const Tap *taps, unsigned n, uint32_t slice, uint32_t out[4]) const {
    uint32_t e[16][4];
    const uint8_t *p[16];
    int32_t w[16];
    unsigned m = 0;
    for (unsigned i = 0; i < n; ++i) {
      if (taps[i].weight == 0)
        continue;
      const int32_t *at = taps[i].at;
      w[m] = taps[i].weight;
      p[m] = element(*taps[i].level, at[0], at[1], at[2], slice);
      texel(*taps[i].level, at[0], at[1], at[2], slice, e[m]);
      ++m;
    }
    for (unsigned c = 0; c < 4; ++c) {
      const bool srgbChannel = kind == Kind::Norm && srgb && c < 3;
      if (c >= v.channels) { // absent channels stay 0
        out[c] = 0;
      } else if (srgbChannel && f.bytes == 1 && !f.isSigned) {
        int emax = std::numeric_limits<float>::min_exponent - 1; // below every f32 exponent
        for (unsigned i = 0; i < m; ++i) {
          const float x = fromBits(e[i][c]);
          if (p[i])
            emax = std::max(emax, srgbExponent(p[i][c]));
          else if (x > 0) // a border colour
            emax = std::max(emax, std::ilogb(x));
        }
        double sum = 0;
        for (unsigned i = 0; i < m; ++i)
          sum +=
              w[i] * std::ldexp(floorOf(std::ldexp(double(fromBits(e[i][c])), 7 - emax)), emax - 7);
        out[c] = bits(roundToHalfUp(sum / 256.0));
      } else if (kind == Kind::Norm && !srgbChannel) {
        int64_t sum = 0;
        for (unsigned i = 0; i < m; ++i)
          sum += w[i] * normUnits(fromBits(e[i][c]), f);
        out[c] = bits(normFromSum(sum, f));
      } else {
        double sum = 0;
        for (unsigned i = 0; i < m; ++i)
          sum += w[i] * double(fromBits(e[i][c]));
        const float x = float(sum / 256.0);
        out[c] = bits(srgbChannel ? truncateToHalf(x) : x);
      }
    }
  }
};

// A cubemap direction: the face and its (s, t) coordinates in [0, 1].
unsigned cubeFace(float x, float y, float z, float *s, float *t) {
  const float ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  unsigned face;
  float m, sc, tc;
  if (az >= ax && az >= ay) { // ties go to z, then y (as the GPU chooses)
    face = z >= 0 ? 4 : 5;
    m = az;
    sc = z >= 0 ? x : -x;
    tc = -y;
  } else if (ay >= ax) {
    face = y >= 0 ? 2 : 3;
    m = ay;
    sc = x;
    tc = y >= 0 ? z : -z;
  } else {
    face = x >= 0 ? 0 : 1;
    m = ax;
    sc = x >= 0 ? -z : z;
    tc = -y;
  }
  *s = (sc / m + 1.0f) * 0.5f;
  *t = (tc / m + 1.0f) * 0.5f;
  return face;
}

// For point sampling the texture unit turns a normalized coordinate into fixed point (rounding
// down; 16 fraction bits fit every recorded GPU result) before it scales it to texels:
// 1.3333334 on 6 texels wraps to texel 1, not 2.
float fixedNormalized(float x) {
  if (!std::isfinite(x) || std::fabs(x) > 1e6f)
    return x;
  return floorOf(x * 65536.0f) / 65536.0f;
}

// The common cases in one pass, with the same arithmetic as the general path: one level of f32
// channels or of u8 channels read as normalized floats (not sRGB), 2D, f32 coordinates, no
// gather or offsets. False when the request is not that.
bool sampleSimple2D(const TextureObject &t, const cucpu_tex_request &r, uint32_t out[4]) {
  const ImageView &v = t.image;
  const bool unorm8 = v.format == CU_AD_FORMAT_UNSIGNED_INT8 &&
                      !(t.tex.flags & (CU_TRSF_READ_AS_INTEGER | CU_TRSF_SRGB));
  if (v.levels.size() != 1 || (v.format != CU_AD_FORMAT_FLOAT && !unorm8) || v.linear ||
      v.arrayFlags || r.geometry != CUCPU_GEOM_2D || (r.flags & ~uint32_t(CUCPU_TEX_LEVEL)) != 0)
    return false;
  const ImageLevel &L = v.levels[0];
  const bool normalized = t.tex.flags & CU_TRSF_NORMALIZED_COORDINATES;
  const bool linear = t.tex.filterMode == CU_TR_FILTER_MODE_LINEAR;
  const CUaddress_mode mx = t.tex.addressMode[0], my = t.tex.addressMode[1];
  const float x = fromBits(r.coord[0]), y = fromBits(r.coord[1]);
  const unsigned channels = v.channels;
  const Format format = formatOf(v.format);
  const Kind kind = unorm8 ? Kind::Norm : Kind::Float;
  // Channel c of the texel at (ix, iy), a -1 index reading the border colour.
  auto channel = [&](int32_t ix, int32_t iy, unsigned c) -> float {
    if (ix < 0 || iy < 0)
      return storedBorder(t.tex.borderColor[c], format, kind);
    const uint8_t *p = L.data + size_t(iy) * L.pitch + size_t(ix) * v.elementBytes;
    if (unorm8)
      return float(p[c]) / 255.0f;
    float f;
    std::memcpy(&f, p + 4 * c, 4);
    return f;
  };
  if (!linear) {
    const float u = normalized ? fixedNormalized(x) * float(L.width) : x;
    const float w = normalized ? fixedNormalized(y) * float(L.height) : y;
    const int32_t ix = addressAxis(floorIndex(u), L.width, mx, normalized);
    const int32_t iy = addressAxis(floorIndex(w), L.height, my, normalized);
    for (unsigned c = 0; c < 4; ++c)
      out[c] = c < channels ? bits(channel(ix, iy, c)) : 0;
    return true;
  }
  const LinearAxis ax = linearAxis(normalized ? x * float(L.width) : x, L.width, mx, normalized, 0);
  const LinearAxis ay =
      linearAxis(normalized ? y * float(L.height) : y, L.height, my, normalized, 0);
  int32_t w[4];
  bilinearShares(256, ax.k, ay.k, w);
  for (unsigned c = 0; c < 4; ++c) {
    if (c >= channels) { // absent channels stay 0
      out[c] = 0;
      continue;
    }
    int64_t fixed = 0;
    double sum = 0;
    for (int32_t i = 0; i < 4; ++i) {
      if (w[i] == 0)
        continue;
      const float e = channel((i & 2) ? ax.i1 : ax.i0, (i & 1) ? ay.i1 : ay.i0, c);
      if (unorm8)
        fixed += w[i] * normUnits(e, format);
      else
        sum += w[i] * double(e);
    }
    out[c] = bits(unorm8 ? normFromSum(fixed, format) : float(sum / 256.0));
  }
  return true;
}

} // namespace

void sampleTexture(const TextureObject &t, const cucpu_tex_request &r, uint32_t out[4]) {
  if (sampleSimple2D(t, r, out))
    return;
  const ImageView &v = t.image;
  Sampler s{t,
            v,
            formatOf(v.format),
            Kind::Float,
            (t.tex.flags & CU_TRSF_SRGB) != 0,
            (t.tex.flags & CU_TRSF_NORMALIZED_COORDINATES) != 0,
            {t.tex.addressMode[0], t.tex.addressMode[1], t.tex.addressMode[2]}};
  s.kind = kindOf(s.f, t.tex.flags);
  const bool intCoords = r.flags & CUCPU_TEX_INT_COORDS;
  const int32_t *offset = (r.flags & CUCPU_TEX_OFFSET) ? r.offset : nullptr;

  if (v.linear) { // tex1Dfetch: an element index, zeros outside the buffer
    const ImageLevel &L = v.levels[0];
    const int64_t i = intCoords ? int32_t(r.coord[0]) : floorIndex(fromBits(r.coord[0]));
    if (i < 0 || i >= L.width)
      std::fill_n(out, 4, 0u);
    else
      readElement(v, s.f, s.kind, s.srgb, L.data + size_t(i) * v.elementBytes, out);
  } else {
    unsigned dims = 1;
    uint32_t slice = 0;
    float coord[3];
    for (int d = 0; d < 3; ++d)
      coord[d] = intCoords ? float(int32_t(r.coord[d])) + 0.5f : fromBits(r.coord[d]);
    const bool scale = s.normalized && !intCoords;
    switch (r.geometry) {
    case CUCPU_GEOM_2D:
    case CUCPU_GEOM_A2D:
      dims = 2;
      break;
    case CUCPU_GEOM_3D:
      dims = 3;
      break;
    case CUCPU_GEOM_CUBE:
    case CUCPU_GEOM_ACUBE:
      dims = 2;
      break;
    default:
      break;
    }
    const bool layered = r.geometry == CUCPU_GEOM_A1D || r.geometry == CUCPU_GEOM_A2D ||
                         r.geometry == CUCPU_GEOM_ACUBE;
    if (r.geometry == CUCPU_GEOM_1D || r.geometry == CUCPU_GEOM_A1D) {
      // A 1D texture filters as a 2D one of height 1 sampled at y = 0: with a border address
      // mode, linear filtering blends half of the border row in.
      dims = 2;
      coord[1] = intCoords ? 0.5f : 0.0f;
    }
    const bool cube = r.geometry == CUCPU_GEOM_CUBE || r.geometry == CUCPU_GEOM_ACUBE;
    if (cube) {
      float st[2];
      const unsigned face = cubeFace(coord[0], coord[1], coord[2], &st[0], &st[1]);
      const uint32_t cubes = std::max<uint32_t>(1, v.layers / 6);
      const uint32_t layer = layered ? std::min(uint32_t(r.layer), cubes - 1) : 0;
      slice = layer * 6 + face;
      coord[0] = st[0];
      coord[1] = st[1];
      s.modes[0] = s.modes[1] = CU_TR_ADDRESS_MODE_CLAMP;
    } else if (layered) {
      slice = std::min(uint32_t(r.layer), v.layers - 1); // an unsigned index, clamped
    }
    const bool normalizedCoords = scale || cube;

    // Level of detail: explicit, from gradients, or 0; then bias and clamps.
    const size_t nLevels = v.levels.size();
    float lod = 0.0f;
    if (r.flags & CUCPU_TEX_LEVEL) {
      lod = r.lod;
    } else if (r.flags & CUCPU_TEX_GRAD) {
      // The GPU measures the footprint in texels along four directions, the two gradients and
      // their sum and difference, each by an approximate length: its largest component plus 11/32
      // of the others, 11/16 of that for the sum and difference (about 1/sqrt(2)). The longest
      // of the four, truncated to 8 bits below its leading one, goes through a log2 table whose
      // entry j is log2(1 + (j + 1/2) / 256) rounded to 1/256 (0 for j = 0, a power of two).
      // Established from tex.mip_grad_trilinear, tex.mip_grad_diag, and the 256 gradient pairs
      // of tex.mip_grad_shapes(_trilinear), whose LOD per lane comes from the point-filtered
      // levels and their blend weight: lengths of (3.5, 2.25) and (3.5, 1.125) texels give 536/256
      // and 501/256 (truncation and table; log2 rounded up gives 537 and 502); gradients
      // (1, 0) and (0.75, 0.5) give 103/256 (the sum (1.75, 0.5); the longer gradient gives 0).
      // (The Euclidean major axis of the footprint misses most lanes.) 7 lanes of each shapes
      // case, all decided by the sum, still miss the GPU's LOD by 1/256 (known_failures.txt).
      const ImageLevel &L0 = v.levels[0];
      const float size[3] = {float(L0.width), float(L0.height), float(L0.depth)};
      float gx[3], gy[3], sum[3], diff[3];
      for (unsigned d = 0; d < dims; ++d) {
        gx[d] = r.dpdx[d] * size[d];
        gy[d] = r.dpdy[d] * size[d];
        sum[d] = gx[d] + gy[d];
        diff[d] = gx[d] - gy[d];
      }
      auto length = [&](const float *g) {
        float longest = 0, others = 0;
        for (unsigned d = 0; d < dims; ++d) {
          const float c = std::fabs(g[d]);
          others += std::min(longest, c);
          longest = std::max(longest, c);
        }
        return longest + 0.34375f * others;
      };
      const float rho =
          std::max({length(gx), length(gy), 0.6875f * length(sum), 0.6875f * length(diff)});
      if (rho > 0.0f && std::isfinite(rho)) {
        int e;
        const float m = std::frexp(rho, &e); // rho = m * 2^e, m in [0.5, 1)
        const int j = int(m * 512.0f) - 256;
        const float frac =
            j == 0 ? 0.0f : std::round(256.0f * std::log2(1.0f + (float(j) + 0.5f) / 256.0f));
        lod = float(e - 1) + frac / 256.0f;
      } else {
        lod = std::log2(rho); // no footprint: -infinity; infinite or NaN gradients pass through
      }
    }
    lod += t.tex.mipmapLevelBias;
    lod = std::clamp(lod, t.tex.minMipmapLevelClamp,
                     std::max(t.tex.minMipmapLevelClamp, t.tex.maxMipmapLevelClamp));
    lod = std::clamp(std::isnan(lod) ? 0.0f : lod, 0.0f, float(nLevels - 1));

    const bool gather = r.flags & CUCPU_TEX_GATHER;
    const bool linear =
        t.tex.filterMode == CU_TR_FILTER_MODE_LINEAR && !intCoords && s.kind != Kind::Int;
    // Texel-space coordinates in a level. Point sampling sees the coordinate in fixed point;
    // filtering and gathers do not.
    auto levelCoords = [&](const ImageLevel &L, float u[3]) {
      const uint32_t size[3] = {L.width, L.height, L.depth};
      const bool point = !gather && t.tex.filterMode != CU_TR_FILTER_MODE_LINEAR;
      for (unsigned d = 0; d < dims; ++d)
        u[d] = !normalizedCoords ? coord[d]
               : point           ? fixedNormalized(coord[d]) * float(size[d])
                                 : coord[d] * float(size[d]);
    };
    // Writes the taps of a level carrying `total` of the filter's weight; returns their count.
    auto levelTaps = [&](size_t level, int32_t total, Tap *taps) -> unsigned {
      const ImageLevel &L = v.levels[level];
      float u[3];
      levelCoords(L, u);
      if (linear)
        return s.linearTaps(L, dims, u, offset, total, taps);
      taps[0] = {&L, {0, 0, 0}, total};
      s.pointAt(L, dims, u, offset, taps[0].at);
      return 1;
    };
    auto sampleAt = [&](size_t level, uint32_t res[4]) {
      const ImageLevel &L = v.levels[level];
      float u[3];
      levelCoords(L, u);
      if (gather) { // tld4: one channel of the four bilinear texels
        const int64_t fx = floorIndex(u[0] - 0.5f), fy = floorIndex(u[1] - 0.5f);
        const int32_t x0 = addressAxis(fx, L.width, s.modes[0], s.normalized);
        const int32_t x1 = addressAxis(fx + 1, L.width, s.modes[0], s.normalized);
        const int32_t y0 = addressAxis(fy, L.height, s.modes[1], s.normalized);
        const int32_t y1 = addressAxis(fy + 1, L.height, s.modes[1], s.normalized);
        const int32_t xs[4] = {x0, x1, x1, x0}, ys[4] = {y1, y1, y0, y0};
        for (int k = 0; k < 4; ++k) {
          uint32_t e[4];
          s.texel(L, xs[k], ys[k], 0, slice, e);
          res[k] = e[r.component & 3];
        }
        return;
      }
      if (!linear) {
        int32_t at[3];
        s.pointAt(L, dims, u, offset, at);
        s.texel(L, at[0], at[1], at[2], slice, res);
        return;
      }
      Tap taps[8];
      s.filter(taps, s.linearTaps(L, dims, u, offset, 256, taps), slice, res);
    };
    if (nLevels == 1 || t.tex.mipmapFilterMode == CU_TR_FILTER_MODE_POINT || s.kind == Kind::Int ||
        gather) {
      sampleAt(size_t(std::floor(lod + 0.5f)), out);
    } else {
      const size_t l0 = size_t(std::floor(lod));
      const int32_t a = weight256(lod - float(l0));
      if (a == 0 || l0 + 1 >= nLevels) {
        sampleAt(l0, out);
      } else {
        // Linear mipmap filtering is one filter over the taps of both levels, the lower level
        // carrying 256 - a of the weight and splitting it as bilinearShares does: blending the
        // two filtered results misses lanes of tex.mip_lod_trilinear.
        Tap taps[16];
        const unsigned n = levelTaps(l0, 256 - a, taps);
        s.filter(taps, n + levelTaps(l0 + 1, a, taps + n), slice, out);
      }
    }
  }
  if (r.flags & CUCPU_TEX_F16X2) {
    const uint32_t lo = floatToHalf(fromBits(out[0])) | uint32_t(floatToHalf(fromBits(out[1])))
                                                            << 16;
    const uint32_t hi = floatToHalf(fromBits(out[2])) | uint32_t(floatToHalf(fromBits(out[3])))
                                                            << 16;
    out[0] = lo;
    out[1] = hi;
  }
}

} // namespace cucpu::driver
