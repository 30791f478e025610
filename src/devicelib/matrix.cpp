// Warp-level matrix products (mma.sync, wmma.mma) with the arithmetic of NVIDIA's tensor cores,
// as recorded on an H200 (tests/gpu/record_mma.cpp):
//  - f16, bf16 and tf32 inputs: each product is exact; the products of one step
//    (the shape's k, but four for wmma's tf32) and the accumulator are aligned to the largest exponent among them (a
//    product counts with the sum of its factors' exponents), each keeps the 26 bits below that
//    exponent's leading bit, truncated toward zero; their exact sum is rounded toward zero to
//    f32 (an overflow gives infinity), or to nearest even for an f16 result. tf32 inputs lose
//    their 13 lowest fraction bits. wmma's tf32 m16n16k8 is two steps of four. 8-bit floats go
//    through f16 products as ptxas compiles them for sm_90 (fp8Product).
//  - f64: a chain of fused multiply-adds in k order, starting from C (B's NaNs propagate first,
//    then the sum's, then A's).
//  - integers: exact sums, wrapping or (.satfinite) saturating to s32.
#include "kernel_abi.h"
#include "cucpu/devicelib/devicelib.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace cucpu::devicelib {
namespace {

constexpr int kLanes = 32;
constexpr int kAlignedBits = 26; // bits each term keeps below the largest exponent's leading bit

int elementBits(uint16_t f) {
  switch (f) {
  case CUCPU_MF_F64: return 64;
  case CUCPU_MF_F32: case CUCPU_MF_TF32: case CUCPU_MF_S32: return 32;
  case CUCPU_MF_F16: case CUCPU_MF_BF16: return 16;
  case CUCPU_MF_S4: case CUCPU_MF_U4: return 4;
  case CUCPU_MF_B1: return 1;
  default: return 8;
  }
}

bool isFloat(uint16_t f) {
  return f == CUCPU_MF_F16 || f == CUCPU_MF_BF16 || f == CUCPU_MF_TF32 || f == CUCPU_MF_F32 ||
         f == CUCPU_MF_F64 || f == CUCPU_MF_E4M3 || f == CUCPU_MF_E5M2;
}

// A decoded floating-point element: its exact value, and the exponent alignment uses (the
// unbiased exponent; a subnormal's is the format's smallest).
struct Num {
  double v;
  int exp;
  bool neg;
};

Num fromFields(bool neg, int field, uint64_t frac, int mbits, int bias) {
  const int e = field == 0 ? 1 - bias : field - bias;
  const double sig = field == 0 ? double(frac) : double(frac | uint64_t(1) << mbits);
  const double v = std::ldexp(sig, e - mbits);
  return {neg ? -v : v, e, neg};
}

Num decodeFloat(uint16_t f, uint64_t bits) {
  switch (f) {
  case CUCPU_MF_F16: {
    const int field = int(bits >> 10) & 31;
    if (field == 31)
      return {(bits & 0x3ff) ? NAN : (bits & 0x8000) ? -INFINITY : INFINITY, 0, bool(bits & 0x8000)};
    return fromFields(bits & 0x8000, field, bits & 0x3ff, 10, 15);
  }
  case CUCPU_MF_E4M3: {
    const int field = int(bits >> 3) & 15;
    if ((bits & 0x7f) == 0x7f)
      return {NAN, 0, false};
    return fromFields(bits & 0x80, field, bits & 7, 3, 7);
  }
  case CUCPU_MF_E5M2: {
    const int field = int(bits >> 2) & 31;
    if (field == 31)
      return {(bits & 3) ? NAN : (bits & 0x80) ? -INFINITY : INFINITY, 0, bool(bits & 0x80)};
    return fromFields(bits & 0x80, field, bits & 3, 2, 15);
  }
  case CUCPU_MF_F64: {
    double v;
    std::memcpy(&v, &bits, 8);
    const int field = int(bits >> 52) & 0x7ff;
    return {v, field == 0 ? -1022 : field - 1023, bool(bits >> 63)};
  }
  default: { // bf16, tf32, f32: as f32 bits
    uint32_t u = f == CUCPU_MF_BF16 ? uint32_t(bits) << 16 : uint32_t(bits);
    if (f == CUCPU_MF_TF32)
      u &= ~0x1fffu;
    float v;
    std::memcpy(&v, &u, 4);
    const int field = int(u >> 23) & 0xff;
    return {double(v), field == 0 ? -126 : field - 127, bool(u >> 31)};
  }
  }
}

// The exact value x rounded toward zero to f32; values beyond the largest finite become infinity.
uint32_t toF32TowardZero(double x) {
  const double ax = std::fabs(x);
  double t;
  if (ax >= 0x1p128)
    t = INFINITY;
  else if (ax < 0x1p-126) // subnormal: a multiple of 2^-149
    t = std::trunc(ax * 0x1p149) * 0x1p-149;
  else { // keep 24 significant bits
    uint64_t u;
    std::memcpy(&u, &ax, 8);
    u &= ~((uint64_t(1) << 29) - 1);
    std::memcpy(&t, &u, 8);
  }
  const float f = float(std::signbit(x) ? -t : t);
  return std::bit_cast<uint32_t>(f);
}

// The exact value x rounded to nearest even f16.
uint16_t toF16Nearest(double x) {
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double ax = std::fabs(x);
  if (ax >= 65520.0) // rounds past the largest finite (65504)
    return sign | 0x7c00;
  int e;
  std::frexp(ax, &e); // ax = m * 2^e, m in [0.5, 1)
  const int lsb = std::max(e - 11, -24);
  const double q = std::nearbyint(std::ldexp(ax, -lsb)); // ties to even (default mode)
  const double r = std::ldexp(q, lsb);
  if (r == 0)
    return sign;
  int re;
  std::frexp(r, &re);
  if (re - 1 < -14) // subnormal
    return sign | uint16_t(q);
  const uint32_t field = uint32_t(re - 1 + 15);
  const uint64_t sig = uint64_t(std::ldexp(r, -(re - 1) + 10));
  return uint16_t(sign | field << 10 | (sig & 0x3ff));
}

// One rounding step of the float path: the accumulator plus `count` products.
struct Term {
  double v;
  int exp;
  bool neg;
};

uint64_t floatStep(const Term *products, int count, const Term &acc, bool f16Result) {
  bool nan = std::isnan(acc.v), pinf = acc.v == INFINITY, ninf = acc.v == -INFINITY;
  for (int i = 0; i < count; ++i) {
    nan = nan || std::isnan(products[i].v);
    pinf = pinf || products[i].v == INFINITY;
    ninf = ninf || products[i].v == -INFINITY;
  }
  if (nan || (pinf && ninf))
    return f16Result ? 0x7fff : 0x7fffffff;
  if (pinf || ninf)
    return f16Result ? (pinf ? 0x7c00 : 0xfc00) : (pinf ? 0x7f800000 : 0xff800000);
  int top = INT32_MIN;
  bool allNeg = acc.neg;
  for (int i = 0; i < count; ++i) {
    if (products[i].v != 0)
      top = std::max(top, products[i].exp);
    allNeg = allNeg && products[i].neg;
  }
  if (acc.v != 0)
    top = std::max(top, acc.exp);
  double sum = 0;
  if (top != INT32_MIN) {
    const int shift = kAlignedBits - 1 - top; // the unit of the aligned terms is 2^-shift
    for (int i = 0; i < count; ++i)
      sum += std::trunc(std::ldexp(products[i].v, shift));
    sum += std::trunc(std::ldexp(acc.v, shift));
    sum = std::ldexp(sum, -shift);
  }
  // A zero, exact or an f16 underflow, is negative only when every term is.
  const uint64_t zero = f16Result ? (allNeg ? 0x8000 : 0) : (allNeg ? 0x80000000u : 0);
  if (sum == 0)
    return zero;
  if (!f16Result)
    return toF32TowardZero(sum);
  const uint16_t h = toF16Nearest(sum);
  return (h & 0x7fff) == 0 ? zero : h;
}

int64_t intValue(uint16_t f, uint64_t bits) {
  switch (f) {
  case CUCPU_MF_S8: return int8_t(bits);
  case CUCPU_MF_S4: return (bits & 8) ? int64_t(bits & 15) - 16 : int64_t(bits & 15);
  case CUCPU_MF_S32: return int32_t(bits);
  default: return int64_t(bits); // u8, u4, b1
  }
}

// Fragment element positions: the ISA's layouts for mma.sync (e elements per register), or
// wmma's (element i of lane l is element i * 32 + l of the row-major matrix).
void posA(const cucpu_mma_desc &d, int i, int e, int lane, int &row, int &col) {
  if (d.flags & CUCPU_MMA_WMMA) {
    row = (i * kLanes + lane) / d.k;
    col = (i * kLanes + lane) % d.k;
    return;
  }
  const int g = lane >> 2, t = lane & 3, r = i / e;
  row = g + 8 * (r % 2);
  col = t * e + i % e + (r / 2) * 4 * e;
}
void posB(const cucpu_mma_desc &d, int i, int e, int lane, int &row, int &col) {
  if (d.flags & CUCPU_MMA_WMMA) {
    row = (i * kLanes + lane) / d.n;
    col = (i * kLanes + lane) % d.n;
    return;
  }
  const int g = lane >> 2, t = lane & 3, r = i / e;
  row = t * e + i % e + r * 4 * e;
  col = g;
}
void posC(const cucpu_mma_desc &d, int i, int lane, int &row, int &col) {
  if (d.flags & CUCPU_MMA_WMMA) {
    row = (i * kLanes + lane) / d.n;
    col = (i * kLanes + lane) % d.n;
    return;
  }
  row = (lane >> 2) + 8 * (i / 2);
  col = 2 * (lane & 3) + i % 2;
}

uint64_t readBits(const uint8_t *p, int bits) {
  uint64_t v = 0;
  std::memcpy(&v, p, size_t(bits + 7) / 8);
  return v;
}

// Element i of a lane's fragment of `regs` registers of `regBytes` each, starting at p.
uint64_t fragmentElement(const uint8_t *p, int regBytes, int bits, int i) {
  const int perReg = bits >= 32 ? 1 : 32 / bits;
  const uint64_t reg = readBits(p + (i / perReg) * regBytes, regBytes * 8);
  return bits == 64 ? reg : (reg >> ((i % perReg) * bits)) & ((uint64_t(1) << bits) - 1);
}

struct Tiles {
  static constexpr int kMax = 256 * 16; // elements of the largest matrix (m16n8k256's B: 2048)
  uint64_t a[kMax], b[kMax], c[kMax], d[kMax];
};

void gather(const cucpu_mma_desc &d, const uint8_t *pub, uint64_t stride, uint32_t lanes,
            Tiles &t) {
  const int ab = elementBits(d.a), bb = elementBits(d.b), cb = elementBits(d.c);
  const int ea = ab >= 32 ? 1 : 32 / ab, eb = bb >= 32 ? 1 : 32 / bb;
  const int na = d.m * d.k / kLanes, nb = d.k * d.n / kLanes, nc = d.m * d.n / kLanes;
  std::memset(t.a, 0, sizeof(uint64_t) * d.m * d.k);
  std::memset(t.b, 0, sizeof(uint64_t) * d.k * d.n);
  std::memset(t.c, 0, sizeof(uint64_t) * d.m * d.n);
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    const uint8_t *p = pub + lane * stride;
    const uint8_t *pb = p + d.a_regs * d.reg_bytes[0], *pc = pb + d.b_regs * d.reg_bytes[1];
    int row, col;
    for (int i = 0; i < na; ++i) {
      posA(d, i, ea, int(lane), row, col);
      t.a[row * d.k + col] = fragmentElement(p, d.reg_bytes[0], ab, i);
    }
    for (int i = 0; i < nb; ++i) {
      posB(d, i, eb, int(lane), row, col);
      t.b[row * d.n + col] = fragmentElement(pb, d.reg_bytes[1], bb, i);
    }
    for (int i = 0; i < nc; ++i) {
      posC(d, i, int(lane), row, col);
      t.c[row * d.n + col] = fragmentElement(pc, d.reg_bytes[2], cb, i);
    }
  }
}

void scatter(const cucpu_mma_desc &d, const Tiles &t, uint8_t *res, uint64_t stride,
             uint32_t lanes) {
  const int db = elementBits(d.d);
  const int perReg = db >= 32 ? 1 : 32 / db;
  const int nd = d.m * d.n / kLanes;
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    uint8_t *p = res + lane * stride;
    std::memset(p, 0, size_t(d.d_regs) * d.reg_bytes[3]);
    int row, col;
    for (int i = 0; i < nd; ++i) {
      posC(d, i, int(lane), row, col);
      uint8_t *r = p + (i / perReg) * d.reg_bytes[3];
      uint64_t reg = readBits(r, d.reg_bytes[3] * 8);
      reg |= t.d[row * d.n + col] << ((i % perReg) * db);
      std::memcpy(r, &reg, d.reg_bytes[3]);
    }
  }
}

// x * y + acc rounded once; of several NaN operands, y's wins, then acc's, then x's (quieted).
double fmaWithNaNs(double x, double y, double acc) {
  const double quiet = 0.0;
  if (std::isnan(y))
    return y + quiet;
  if (std::isnan(acc))
    return acc;
  if (std::isnan(x))
    return x + quiet;
  return std::fma(x, y, acc);
}

// An element converted exactly to f16: the exponent alignment sees is f16's (e4m3's subnormals
// are normal f16 numbers).
Num asF16(Num x) {
  if (std::isfinite(x.v) && x.v != 0) {
    int e;
    std::frexp(x.v, &e);
    x.exp = std::max(e - 1, -14);
  }
  return x;
}

// 8-bit floats on sm_90 (what ptxas makes of them): the elements become f16, two k16 products
// from zero (the first over the k with k % 4 < 2, the second over the rest, accumulating), and C
// added last in f32 with rounding to nearest.
uint64_t fp8Product(const cucpu_mma_desc &d, const Tiles &t, int i, int j, double c) {
  Term products[16];
  Term acc{0, 0, false};
  uint64_t out = 0;
  for (int half = 0; half < 2; ++half) {
    int count = 0;
    for (int k = 0; k < d.k; ++k) {
      if ((k % 4 < 2) != (half == 0))
        continue;
      const Num x = asF16(decodeFloat(d.a, t.a[i * d.k + k]));
      const Num y = asF16(decodeFloat(d.b, t.b[k * d.n + j]));
      products[count++] = {x.v * y.v, x.exp + y.exp, x.neg != y.neg};
    }
    out = floatStep(products, count, acc, false);
    const Num next = decodeFloat(CUCPU_MF_F32, out);
    acc = {next.v, next.exp, next.neg};
  }
  const float sum = float(acc.v) + float(c);
  return std::isnan(sum) ? 0x7fffffff : std::bit_cast<uint32_t>(sum);
}

void computeFloat(const cucpu_mma_desc &d, Tiles &t) {
  const bool f64 = d.a == CUCPU_MF_F64;
  const bool fp8 = d.a == CUCPU_MF_E4M3 || d.a == CUCPU_MF_E5M2;
  const bool f16Result = d.d == CUCPU_MF_F16;
  // wmma's tf32 m16n16k8 runs as two m16n8k4 steps; every other shape in one.
  const int step = (d.flags & CUCPU_MMA_WMMA) && d.a == CUCPU_MF_TF32 ? 4 : d.k;
  Term products[256];
  for (int i = 0; i < d.m; ++i)
    for (int j = 0; j < d.n; ++j) {
      if (f64) {
        double acc;
        std::memcpy(&acc, &t.c[i * d.n + j], 8);
        for (int k = 0; k < d.k; ++k) {
          double x, y;
          std::memcpy(&x, &t.a[i * d.k + k], 8);
          std::memcpy(&y, &t.b[k * d.n + j], 8);
          acc = fmaWithNaNs(x, y, acc);
        }
        std::memcpy(&t.d[i * d.n + j], &acc, 8);
        continue;
      }
      const Num c = decodeFloat(d.c, t.c[i * d.n + j]);
      if (fp8) {
        t.d[i * d.n + j] = fp8Product(d, t, i, j, c.v);
        continue;
      }
      Term acc{c.v, c.exp, c.neg};
      uint64_t out = 0;
      for (int k0 = 0; k0 < d.k; k0 += step) {
        const int count = std::min(step, d.k - k0);
        for (int k = 0; k < count; ++k) {
          const Num x = decodeFloat(d.a, t.a[i * d.k + k0 + k]);
          const Num y = decodeFloat(d.b, t.b[(k0 + k) * d.n + j]);
          products[k] = {x.v * y.v, x.exp + y.exp, x.neg != y.neg};
        }
        out = floatStep(products, count, acc, f16Result);
        const Num next = decodeFloat(f16Result ? CUCPU_MF_F16 : CUCPU_MF_F32, out);
        acc = {next.v, next.exp, next.neg};
      }
      t.d[i * d.n + j] = out;
    }
}

void computeInt(const cucpu_mma_desc &d, Tiles &t) {
  for (int i = 0; i < d.m; ++i)
    for (int j = 0; j < d.n; ++j) {
      int64_t acc = intValue(CUCPU_MF_S32, t.c[i * d.n + j]);
      for (int k = 0; k < d.k; ++k) {
        const uint64_t x = t.a[i * d.k + k], y = t.b[k * d.n + j];
        if (d.a == CUCPU_MF_B1)
          acc += int64_t((d.flags & CUCPU_MMA_XOR) ? (x ^ y) & 1 : x & y & 1);
        else
          acc += intValue(d.a, x) * intValue(d.b, y);
      }
      if (d.flags & CUCPU_MMA_SATFINITE)
        acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
      t.d[i * d.n + j] = uint32_t(acc);
    }
}

} // namespace

extern "C" void cucpu_mma(const cucpu_mma_desc *desc, const uint8_t *pub, uint64_t pub_stride,
                          uint8_t *res, uint64_t res_stride, uint32_t lanes) {
  thread_local Tiles tiles;
  gather(*desc, pub, pub_stride, lanes, tiles);
  if (isFloat(desc->a))
    computeFloat(*desc, tiles);
  else
    computeInt(*desc, tiles);
  scatter(*desc, tiles, res, res_stride, lanes);
}

const std::vector<Symbol> &symbols() {
  static const std::vector<Symbol> s = {{"cucpu_mma", reinterpret_cast<void *>(&cucpu_mma)}};
  return s;
}

} // namespace cucpu::devicelib
