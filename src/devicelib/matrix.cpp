// Warp-level matrix products (mma.sync, wmma.mma) with the arithmetic of NVIDIA's tensor cores,
// as recorded on an H200 (tests/gpu/record_mma.cpp):
//  - f16, bf16 and tf32 inputs: each product is exact; the products of one step
//    (the shape's k, but four for wmma's tf32) and the accumulator are aligned to the largest
//    exponent among them (a product counts with the sum of its factors' exponents), each keeps the
//    26 bits below that exponent's leading bit, truncated toward zero; their exact sum is rounded
//    toward zero to f32 (an overflow gives infinity), or to nearest even for an f16 result. tf32
//    inputs lose their 13 lowest fraction bits. wmma's tf32 m16n16k8 is two steps of four. 8-bit
//    floats go through f16 products as ptxas compiles them for sm_90 (fp8Product).
//  - f64: a chain of fused multiply-adds in k order, starting from C (B's NaNs propagate first,
//    then the sum's, then A's).
//  - integers: exact sums, wrapping or (.satfinite) saturating to s32.
#include "cucpu/devicelib/devicelib.h"
#include "fragments.h"
#include "kernel_abi.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <immintrin.h>

namespace cucpu::devicelib {
namespace {

constexpr int kAlignedBits = 26; // bits each term keeps below the largest exponent's leading bit

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
      return {(bits & 0x3ff)    ? NAN
              : (bits & 0x8000) ? -INFINITY
                                : INFINITY,
              0, bool(bits & 0x8000)};
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
  case CUCPU_MF_S8:
    return int8_t(bits);
  case CUCPU_MF_S4:
    return (bits & 8) ? int64_t(bits & 15) - 16 : int64_t(bits & 15);
  case CUCPU_MF_S32:
    return int32_t(bits);
  default:
    return int64_t(bits); // u8, u4, b1
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

// 8-bit floats on sm_90 (what ptxas makes of them): the elements become f16, two products of
// half the k each (HMMA k8 or k16: the first over the k with k % 4 < 2, from zero, the second
// over the rest, accumulating in f32 or f16), and C added last (FADD, or HADD2 for f16) with
// rounding to nearest.
uint64_t fp8Product(const cucpu_mma_desc &d, const Tiles &t, int i, int j, double c) {
  const bool f16 = d.d == CUCPU_MF_F16;
  Term products[16];
  Term acc{0, 0, false};
  for (int half = 0; half < 2; ++half) {
    int count = 0;
    for (int k = 0; k < d.k; ++k) {
      if ((k % 4 < 2) != (half == 0))
        continue;
      const Num x = asF16(decodeFloat(d.a, t.a[i * d.k + k]));
      const Num y = asF16(decodeFloat(d.b, t.b[k * d.n + j]));
      products[count++] = {x.v * y.v, x.exp + y.exp, x.neg != y.neg};
    }
    const Num next =
        decodeFloat(f16 ? CUCPU_MF_F16 : CUCPU_MF_F32, floatStep(products, count, acc, f16));
    acc = {next.v, next.exp, next.neg};
  }
  if (f16) { // HADD2: the f16 sum rounded to nearest even
    const double sum = acc.v + c;
    return std::isnan(sum) ? 0x7fff : toF16Nearest(sum);
  }
  const float sum = float(acc.v) + float(c);
  return std::isnan(sum) ? 0x7fffffff : std::bit_cast<uint32_t>(sum);
}

// The common case, no infinities or NaNs, f16/bf16/tf32 into f32, element-parallel so that the
// compiler vectorises it: every element's value, its alignment exponent (kNoExp for a zero,
// which never decides the largest) and sign are decoded once per tile; each step's aligned
// terms are integers below 2^27, so their sums in doubles are exact.
constexpr int kNoExp = -100000;
constexpr int kMaxTile = 512;

struct Decoded {
  double v[kMaxTile];
  int e[kMaxTile];
  int neg[kMaxTile];
};

// 2^k as a double, for |k| < 1023.
inline double pow2(int k) { return std::bit_cast<double>(uint64_t(k + 1023) << 52); }

// One step of k in [k0, k0 + count) for every element: acc (value, exponent, sign) in, the exact
// sum of the aligned terms out, with the power of two it is scaled by and whether every term
// was negative. N, the tile's width, is a constant so that the loops over a row vectorise.
// Compiled for x86-64-v3 and for any x86-64 (alignedSumsV3, alignedSums below); machines with
// AVX-512 take alignedSumsAvx512 instead.
template <int N>
[[gnu::always_inline]] inline void
alignedSumsBody(const Decoded &__restrict a, const Decoded &__restrict b,
                const Decoded &__restrict acc, int m, int kTotal, int k0, int count,
                double *__restrict sum, double *__restrict scale, int *__restrict allNeg) {
  for (int i = 0; i < m; ++i) {
    int top[N], neg[N];
    double s[N], sc[N];
    for (int j = 0; j < N; ++j) {
      top[j] = acc.e[i * N + j];
      neg[j] = acc.neg[i * N + j];
    }
    for (int k = k0; k < k0 + count; ++k) {
      const int ea = a.e[i * kTotal + k], na = a.neg[i * kTotal + k];
      for (int j = 0; j < N; ++j) {
        top[j] = std::max(top[j], ea + b.e[k * N + j]);
        neg[j] &= na ^ b.neg[k * N + j];
      }
    }
    for (int j = 0; j < N; ++j) {
      sc[j] = pow2(std::clamp(kAlignedBits - 1 - top[j], -1000, 1000));
      s[j] = std::trunc(acc.v[i * N + j] * sc[j]);
    }
    for (int k = k0; k < k0 + count; ++k) {
      const double va = a.v[i * kTotal + k];
      for (int j = 0; j < N; ++j)
        s[j] += std::trunc(va * b.v[k * N + j] * sc[j]);
    }
    for (int j = 0; j < N; ++j) {
      sum[i * N + j] = s[j];
      scale[i * N + j] = sc[j];
      allNeg[i * N + j] = neg[j];
    }
  }
}

// The versions of alignedSumsBody, chosen at run time (not with target_clones: its IFUNC resolver
// runs before a sanitizer's runtime is up and crashes TSan builds at load).
template <int N>
void alignedSums(const Decoded &__restrict a, const Decoded &__restrict b,
                 const Decoded &__restrict acc, int m, int kTotal, int k0, int count,
                 double *__restrict sum, double *__restrict scale, int *__restrict allNeg) {
  alignedSumsBody<N>(a, b, acc, m, kTotal, k0, count, sum, scale, allNeg);
}
template <int N>
__attribute__((target("arch=x86-64-v3"))) void
alignedSumsV3(const Decoded &__restrict a, const Decoded &__restrict b,
              const Decoded &__restrict acc, int m, int kTotal, int k0, int count,
              double *__restrict sum, double *__restrict scale, int *__restrict allNeg) {
  alignedSumsBody<N>(a, b, acc, m, kTotal, k0, count, sum, scale, allNeg);
}

// An f16, bf16, tf32 or f32 element's value, alignment exponent and sign; false for infinities
// and NaNs. FMT is a constant, so each format's decoder is straight-line code.
template <uint16_t FMT> inline bool fastDecode(uint64_t bits, double &v, int &e, int &neg) {
  if constexpr (FMT == CUCPU_MF_F16) {
    const int field = int(bits >> 10) & 31, mant = int(bits & 0x3ff);
    neg = int(bits >> 15) & 1;
    const double mag = double(field ? mant | 0x400 : mant) * pow2(std::max(field, 1) - 25);
    v = neg ? -mag : mag;
    e = mag == 0 ? kNoExp : std::max(field, 1) - 15;
    return field != 31;
  } else {
    uint32_t u = FMT == CUCPU_MF_BF16 ? uint32_t(bits) << 16 : uint32_t(bits);
    if constexpr (FMT == CUCPU_MF_TF32)
      u &= ~0x1fffu;
    const int field = int(u >> 23) & 0xff;
    neg = int(u >> 31);
    v = double(std::bit_cast<float>(u));
    e = v == 0 ? kNoExp : std::max(field, 1) - 127;
    return field != 0xff;
  }
}

template <uint16_t FMT>
bool decodeAs(const FragmentMap &m, const uint8_t *pub, uint64_t stride, uint32_t lanes,
              Decoded &out) {
  int finite = 1;
  constexpr int kBits = FMT == CUCPU_MF_F16 || FMT == CUCPU_MF_BF16 ? 16 : 32;
  forEachElementOf<kBits>(m, pub, stride, lanes, [&](uint16_t at, uint64_t bits) {
    finite &= int(fastDecode<FMT>(bits, out.v[at], out.e[at], out.neg[at]));
  });
  return finite;
}

// The lanes' elements of one matrix, decoded; false when one is infinite or NaN.
bool decodeFragments(const cucpu_mma_desc &d, Which w, uint16_t fmt, int tileElements,
                     const uint8_t *pub, uint64_t stride, uint32_t lanes, Decoded &out) {
  if (lanes < kLanes)
    for (int i = 0; i < tileElements; ++i)
      out.v[i] = 0, out.e[i] = kNoExp, out.neg[i] = 0;
  const FragmentMap &m = fragmentMap(d, w);
  switch (fmt) {
  case CUCPU_MF_F16:
    return decodeAs<CUCPU_MF_F16>(m, pub, stride, lanes, out);
  case CUCPU_MF_BF16:
    return decodeAs<CUCPU_MF_BF16>(m, pub, stride, lanes, out);
  case CUCPU_MF_TF32:
    return decodeAs<CUCPU_MF_TF32>(m, pub, stride, lanes, out);
  default:
    return decodeAs<CUCPU_MF_F32>(m, pub, stride, lanes, out);
  }
}

__attribute__((target("avx512f"))) inline __m256i load8i(const int *p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
}

// alignedSums with AVX-512: N / 8 vectors of 8 lanes per row.
template <int N>
__attribute__((target("avx512f"))) void
alignedSumsAvx512(const Decoded &__restrict a, const Decoded &__restrict b,
                  const Decoded &__restrict acc, int m, int kTotal, int k0, int count,
                  double *__restrict sum, double *__restrict scale, int *__restrict allNeg) {
  constexpr int kTrunc = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC, kVecs = N / 8;
  for (int i = 0; i < m; ++i) {
    __m256i top[kVecs], neg[kVecs];
    for (int v = 0; v < kVecs; ++v) {
      top[v] = load8i(acc.e + i * N + 8 * v);
      neg[v] = load8i(acc.neg + i * N + 8 * v);
    }
    for (int k = k0; k < k0 + count; ++k) {
      const __m256i ea = _mm256_set1_epi32(a.e[i * kTotal + k]);
      const __m256i na = _mm256_set1_epi32(a.neg[i * kTotal + k]);
      for (int v = 0; v < kVecs; ++v) {
        top[v] = _mm256_max_epi32(top[v], _mm256_add_epi32(load8i(b.e + k * N + 8 * v), ea));
        neg[v] = _mm256_and_si256(neg[v], _mm256_xor_si256(load8i(b.neg + k * N + 8 * v), na));
      }
    }
    __m512d sc[kVecs], s[kVecs];
    for (int v = 0; v < kVecs; ++v) {
      // 2^(25 - top), the exponent clamped to [-1000, 1000]
      __m256i shift = _mm256_sub_epi32(_mm256_set1_epi32(kAlignedBits - 1), top[v]);
      shift = _mm256_min_epi32(_mm256_max_epi32(shift, _mm256_set1_epi32(-1000)),
                               _mm256_set1_epi32(1000));
      const __m512i biased =
          _mm512_maskz_cvtepi32_epi64(0xff, _mm256_add_epi32(shift, _mm256_set1_epi32(1023)));
      sc[v] = _mm512_castsi512_pd(_mm512_maskz_slli_epi64(0xff, biased, 52));
      s[v] = _mm512_maskz_roundscale_pd(
          0xff, _mm512_mul_pd(_mm512_loadu_pd(acc.v + i * N + 8 * v), sc[v]), kTrunc);
    }
    for (int k = k0; k < k0 + count; ++k) {
      const __m512d va = _mm512_set1_pd(a.v[i * kTotal + k]);
      for (int v = 0; v < kVecs; ++v) {
        const __m512d p = _mm512_mul_pd(va, _mm512_loadu_pd(b.v + k * N + 8 * v));
        s[v] =
            _mm512_add_pd(s[v], _mm512_maskz_roundscale_pd(0xff, _mm512_mul_pd(p, sc[v]), kTrunc));
      }
    }
    for (int v = 0; v < kVecs; ++v) {
      _mm512_storeu_pd(sum + i * N + 8 * v, s[v]);
      _mm512_storeu_pd(scale + i * N + 8 * v, sc[v]);
      _mm256_storeu_si256(reinterpret_cast<__m256i *>(allNeg + i * N + 8 * v), neg[v]);
    }
  }
}

// The common case straight from the lanes' registers to theirs; false when it does not apply
// (other types, or infinities and NaNs among the inputs or an intermediate result).
bool productFast(const cucpu_mma_desc &d, const uint8_t *pub, uint64_t pubStride, uint8_t *res,
                 uint64_t resStride, uint32_t lanes) {
  const bool inputs = d.a == CUCPU_MF_F16 || d.a == CUCPU_MF_BF16 || d.a == CUCPU_MF_TF32;
  if (!inputs || d.c != CUCPU_MF_F32 || d.d != CUCPU_MF_F32 || d.m * d.k > kMaxTile ||
      d.k * d.n > kMaxTile || d.m * d.n > kMaxTile || (d.n != 8 && d.n != 16 && d.n != 32))
    return false;
  thread_local Decoded a, b, acc;
  if (!decodeFragments(d, Which::A, d.a, d.m * d.k, pub, pubStride, lanes, a) ||
      !decodeFragments(d, Which::B, d.b, d.k * d.n, pub, pubStride, lanes, b) ||
      !decodeFragments(d, Which::C, d.c, d.m * d.n, pub, pubStride, lanes, acc))
    return false;
  const int step = (d.flags & CUCPU_MMA_WMMA) && d.a == CUCPU_MF_TF32 ? 4 : d.k;
  const int elems = d.m * d.n;
  double sum[kMaxTile], scale[kMaxTile];
  int allNeg[kMaxTile];
  uint32_t out[kMaxTile];
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  static const bool v3 = __builtin_cpu_supports("x86-64-v3");
  for (int k0 = 0; k0 < d.k; k0 += step) {
    const int count = std::min(step, d.k - k0);
    if (d.n == 8)
      (avx512 ? alignedSumsAvx512<8>
       : v3   ? alignedSumsV3<8>
              : alignedSums<8>)(a, b, acc, d.m, d.k, k0, count, sum, scale, allNeg);
    else if (d.n == 16)
      (avx512 ? alignedSumsAvx512<16>
       : v3   ? alignedSumsV3<16>
              : alignedSums<16>)(a, b, acc, d.m, d.k, k0, count, sum, scale, allNeg);
    else
      (avx512 ? alignedSumsAvx512<32>
       : v3   ? alignedSumsV3<32>
              : alignedSums<32>)(a, b, acc, d.m, d.k, k0, count, sum, scale, allNeg);
    const bool last = k0 + step >= d.k;
    for (int e = 0; e < elems; ++e) {
      out[e] = sum[e] == 0 ? (allNeg[e] ? 0x80000000u : 0) : toF32TowardZero(sum[e] / scale[e]);
      if (!last && !fastDecode<CUCPU_MF_F32>(out[e], acc.v[e], acc.e[e], acc.neg[e]))
        return false; // an infinity midway: the general path's rules
    }
  }
  const FragmentMap &m = fragmentMap(d, Which::D);
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    uint8_t *p = res + lane * resStride;
    for (int i = 0; i < m.elements; ++i)
      std::memcpy(p + 4 * i, &out[m.index[lane][size_t(i)]], 4);
  }
  return true;
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
  if (productFast(*desc, pub, pub_stride, res, res_stride, lanes))
    return;
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
