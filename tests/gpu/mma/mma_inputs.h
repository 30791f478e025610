// Inputs of the warp-level matrix recordings (tests/gpu/record_mma.cpp): every element of A, B
// and C of every test is a pure function of (configuration, test, matrix, row, column), so the
// recorder and the host-side checks see the same values without storing them. Plain C++ that
// nvcc also compiles (for mma_kernels.cu).
#pragma once

#include <stdint.h>

#ifdef __CUDACC__
#define MMA_HD __host__ __device__
#else
#define MMA_HD
#endif

// Element formats.
enum MmaFmt { kF16, kBF16, kTF32, kF32, kF64, kS8, kU8, kE4M3, kE5M2, kS32, kS4, kU4, kB1 };

// One recorded configuration: the instruction's shape and element formats.
struct MmaConfig {
  const char *name;
  int m, n, k;
  MmaFmt a, b, c; // c is also d's format
};

// Input modes, by test index modulo kMmaModes (floating-point configurations).
enum {
  kModeTypical,   // exponents within a few binades of 1
  kModeWide,      // exponents across most of the format's range: alignment losses
  kModeCancel,    // products in nearly cancelling pairs
  kModeCBig,      // the accumulator far larger than the products
  kModeCSmall,    // the accumulator far smaller than the products
  kModeSpecial,   // zeros, infinities, NaNs, subnormals and extremes among typical values
  kModeSparse,    // mostly zeros: sums of one, two or three products
  kModeTiny,      // values at the bottom of the range (subnormal products or results)
  kMmaModes
};

MMA_HD inline uint64_t mmaHash(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

struct MmaFmtBits {
  int ebits, mbits, bias;
};

MMA_HD inline MmaFmtBits mmaBits(MmaFmt f) {
  switch (f) {
  case kF16: return {5, 10, 15};
  case kBF16: return {8, 7, 127};
  case kE4M3: return {4, 3, 7};
  case kE5M2: return {5, 2, 15};
  case kF64: return {11, 52, 1023};
  default: return {8, 23, 127}; // f32 and tf32 (stored as f32)
  }
}

// A float of format f with unbiased exponent in [lo, hi] (clamped to the normal range; an
// exponent below it gives a subnormal), random sign and fraction.
MMA_HD inline uint64_t mmaFloat(MmaFmt f, uint64_t h, int lo, int hi) {
  const MmaFmtBits fb = mmaBits(f);
  const int emax = (1 << fb.ebits) - 2 - fb.bias; // e4m3 also uses the top binade
  int e = lo + int(mmaHash(h ^ 1) % uint64_t(hi - lo + 1));
  int field = e + fb.bias;
  if (field < 0)
    field = 0;
  if (field > emax + fb.bias)
    field = emax + fb.bias;
  uint64_t frac = mmaHash(h ^ 2) & ((1ull << fb.mbits) - 1);
  if (f == kE4M3 && field == 15 && frac == 7)
    frac = 6; // S.1111.111 is e4m3's NaN
  const uint64_t sign = mmaHash(h ^ 3) & 1;
  return sign << (fb.ebits + fb.mbits) | uint64_t(field) << fb.mbits | frac;
}

// A special value of format f: zeros, infinities, NaN, the smallest subnormal, the largest normal.
MMA_HD inline uint64_t mmaSpecial(MmaFmt f, uint64_t h) {
  const MmaFmtBits fb = mmaBits(f);
  const uint64_t sign = (mmaHash(h ^ 4) & 1) << (fb.ebits + fb.mbits);
  const uint64_t expAll = ((1ull << fb.ebits) - 1) << fb.mbits;
  const uint64_t fracAll = (1ull << fb.mbits) - 1;
  switch (mmaHash(h ^ 5) % 6) {
  case 0: return sign;                                      // zero
  case 1: return f == kE4M3 ? sign | 0x7e : sign | expAll;  // infinity (e4m3: largest)
  case 2: return f == kE4M3 ? 0x7f : expAll | 1ull << (fb.mbits - 1); // NaN
  case 3: return sign | 1;                                  // smallest subnormal
  case 4: return sign | (mmaHash(h ^ 6) & fracAll);         // a subnormal
  default: return sign | (expAll - (1ull << fb.mbits)) | fracAll; // largest normal
  }
}

// Element (row, col) of matrix `mat` (0: A, 1: B, 2: C) of test `test`, as raw bits.
MMA_HD inline uint64_t mmaInput(const MmaConfig &cfg, int cfgIndex, int test, int mat, int row,
                                int col) {
  const MmaFmt f = mat == 0 ? cfg.a : mat == 1 ? cfg.b : cfg.c;
  const uint64_t h =
      mmaHash(uint64_t(cfgIndex) << 48 ^ uint64_t(test) << 20 ^ uint64_t(mat) << 16 ^
              uint64_t(row) << 8 ^ uint64_t(col));
  const int mode = test % kMmaModes;
  if (f == kS8 || f == kU8 || f == kS4 || f == kU4 || f == kB1) {
    const int bits = f == kS8 || f == kU8 ? 8 : f == kB1 ? 1 : 4;
    uint64_t v = mmaHash(h) & ((1ull << bits) - 1);
    if (mode == kModeWide) // the extremes
      v = (mmaHash(h ^ 7) & 1) ? (1ull << (bits - 1)) : (1ull << (bits - 1)) - 1;
    return v;
  }
  if (f == kS32) {
    int64_t v = int64_t(mmaHash(h) % 2000001) - 1000000;
    if (mode == kModeWide) // near the limits: saturation
      v = (mmaHash(h ^ 7) & 1) ? 2147483647 - int64_t(mmaHash(h ^ 8) % 3000)
                               : -2147483647 - 1 + int64_t(mmaHash(h ^ 8) % 3000);
    return uint64_t(uint32_t(int32_t(v)));
  }
  const bool acc = mat == 2;
  const bool narrow = f == kF16 || f == kE4M3 || f == kE5M2;
  uint64_t v;
  switch (mode) {
  case kModeWide:
    v = acc ? mmaFloat(f, h, -30, 30) : narrow ? mmaFloat(f, h, -12, 12) : mmaFloat(f, h, -40, 40);
    break;
  case kModeCancel:
    if (acc) {
      v = mmaFloat(f, h, -8, 2);
    } else {
      // A's odd columns repeat the even ones; B's odd rows negate the even ones, with the last
      // fraction bits changed: pairs of products that nearly cancel.
      const int r2 = mat == 0 ? row : row & ~1, c2 = mat == 0 ? col & ~1 : col;
      const uint64_t hh = mmaHash(uint64_t(cfgIndex) << 48 ^ uint64_t(test) << 20 ^
                                  uint64_t(mat) << 16 ^ uint64_t(r2) << 8 ^ uint64_t(c2));
      v = mmaFloat(f, hh, -2, 2);
      if (mat == 1 && (row & 1)) {
        const MmaFmtBits fb = mmaBits(f);
        v ^= 1ull << (fb.ebits + fb.mbits);
        v ^= mmaHash(h ^ 9) & 3;
      }
    }
    break;
  case kModeCBig: v = acc ? mmaFloat(f, h, 8, 20) : mmaFloat(f, h, -4, 4); break;
  case kModeCSmall: v = acc ? mmaFloat(f, h, -40, -12) : mmaFloat(f, h, -2, 2); break;
  case kModeSpecial:
    v = mmaHash(h ^ 10) % 12 == 0 ? mmaSpecial(f, h) : mmaFloat(f, h, -3, 3);
    break;
  case kModeSparse: v = mmaHash(h ^ 11) % 4 == 0 ? mmaFloat(f, h, -10, 10) : 0; break;
  case kModeTiny:
    v = acc ? mmaFloat(f, h, -130, -110)
            : narrow ? mmaFloat(f, h, -16, -5) : mmaFloat(f, h, -75, -50);
    break;
  default: v = mmaFloat(f, h, -3, 3); break;
  }
  if (f == kTF32 && mode == kModeTypical) // exact tf32 values; other modes keep all 23 bits
    v &= ~uint64_t(0x1fff);
  return v;
}
