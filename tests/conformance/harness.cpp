// Conformance harness: case declarations, input value sets, kernel runs and output comparison.
#include "harness.h"

#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>

namespace conformance {
namespace {

[[noreturn]] void fail(const std::string &msg) { throw std::runtime_error(msg); }

void check(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) {
    const char *name = nullptr;
    cuGetErrorName(r, &name);
    fail(std::string(what) + " failed: " + (name ? name : std::to_string(r)));
  }
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ---------------------------------------------------------------------------------------------
// Value sets: "<type>.<kind>", raw little-endian element bits. Random members come from a
// fixed generator seeded by the set's name, so every build sees the same inputs.

struct ValueSet {
  unsigned bytes = 4;
  std::vector<uint64_t> v;
};

struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform(double lo, double hi) { return lo + (hi - lo) * double(next() >> 11) / 9007199254740992.0; }
};

uint64_t seedOf(const std::string &s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s)
    h = (h ^ uint8_t(c)) * 1099511628211ull;
  return h;
}

uint64_t fb(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
uint64_t db(double d) { uint64_t u; std::memcpy(&u, &d, 8); return u; }
constexpr uint64_t kF32Inf = 0x7f800000, kF32NInf = 0xff800000, kF32NaN = 0x7fc00000;
constexpr uint64_t kF64Inf = 0x7ff0000000000000ull, kF64NInf = 0xfff0000000000000ull,
                   kF64NaN = 0x7ff8000000000000ull;

// Random f32 with exponent in [2^lo, 2^hi) and random sign/mantissa.
std::vector<uint64_t> randF32(Rng &r, int n, int lo, int hi, bool neg = true) {
  std::vector<uint64_t> out;
  for (int i = 0; i < n; ++i) {
    uint64_t e = uint64_t(127 + lo + int(r.next() % uint64_t(hi - lo)));
    uint64_t s = neg ? (r.next() & 1) : 0;
    out.push_back(s << 31 | e << 23 | (r.next() & 0x7fffff));
  }
  return out;
}
std::vector<uint64_t> randF64(Rng &r, int n, int lo, int hi, bool neg = true) {
  std::vector<uint64_t> out;
  for (int i = 0; i < n; ++i) {
    uint64_t e = uint64_t(1023 + lo + int(r.next() % uint64_t(hi - lo)));
    uint64_t s = neg ? (r.next() & 1) : 0;
    out.push_back(s << 63 | e << 52 | (r.next() & 0xfffffffffffffull));
  }
  return out;
}
std::vector<uint64_t> uniformF32(Rng &r, int n, double lo, double hi) {
  std::vector<uint64_t> out;
  for (int i = 0; i < n; ++i)
    out.push_back(fb(float(r.uniform(lo, hi))));
  return out;
}
std::vector<uint64_t> randBits(Rng &r, int n, uint64_t mask) {
  std::vector<uint64_t> out;
  for (int i = 0; i < n; ++i)
    out.push_back(r.next() & mask);
  return out;
}
std::vector<uint64_t> cat(std::vector<uint64_t> a, const std::vector<uint64_t> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}
// Pairs of 16-bit values into 32-bit lanes: element i = e[i] | e[(5i+3) % n] << 16.
std::vector<uint64_t> pairs(const std::vector<uint64_t> &e) {
  std::vector<uint64_t> out;
  for (size_t i = 0; i < e.size(); ++i)
    out.push_back(e[i] | e[(5 * i + 3) % e.size()] << 16);
  return out;
}

ValueSet makeSet(const std::string &name) {
  Rng r{seedOf(name)};
  ValueSet s;
  auto &v = s.v;
  const auto F = [](std::initializer_list<double> l) {
    std::vector<uint64_t> o;
    for (double d : l) o.push_back(fb(float(d)));
    return o;
  };
  const auto D = [](std::initializer_list<double> l) {
    std::vector<uint64_t> o;
    for (double d : l) o.push_back(db(d));
    return o;
  };
  const std::vector<uint64_t> f32e = cat(
      F({0.0, -0.0, 1.0, -1.0, 0.5, 1.5, -2.5, 3.0, 1e10, -1e-10, 100.5}),
      {0x3eaaaaab, 0x3f800001, 0x3effffff, 0x00800000, 0x00000001, 0x807fffff, 0x00400000,
       0x7f7fffff, 0xff7fffff, kF32Inf, kF32NInf, kF32NaN, 0xffc00000});
  const std::vector<uint64_t> f64e = cat(
      D({0.0, -0.0, 1.0, -1.0, 0.5, 1.5, -2.5, 3.0, 1e300, -1e-300, 100.5, 1.0 / 3}),
      {0x3ff0000000000001ull, 0x0010000000000000ull, 0x0000000000000001ull,
       0x800fffffffffffffull, 0x7fefffffffffffffull, 0xffefffffffffffffull, kF64Inf, kF64NInf,
       kF64NaN, 0xfff8000000000000ull});
  const std::vector<uint64_t> f16e = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x3e00, 0xc100,
                                      0x3555, 0x3c01, 0x7bff, 0xfbff, 0x0001, 0x03ff, 0x0400,
                                      0x7c00, 0xfc00, 0x7e00, 0x5640, 0x1400, 0x8001};
  const std::vector<uint64_t> bf16e = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x3f00, 0x3fc0, 0xc020,
                                       0x3eab, 0x3f81, 0x7f7f, 0xff7f, 0x0001, 0x007f, 0x0080,
                                       0x7f80, 0xff80, 0x7fc0, 0x42c8, 0x2000, 0x8001};
  if (name == "f32.e") { v = f32e; }
  else if (name == "f32.a") { v = cat(f32e, randF32(r, 10, -30, 30)); }
  else if (name == "f32.s") {
    v = cat({fb(0.f), fb(-0.f), fb(1.f), fb(-1.f), 0x3eaaaaab, 0x3f800001, 0x00000001,
             0x00800000, 0x7f7fffff, kF32Inf, kF32NInf, kF32NaN}, randF32(r, 3, -4, 4));
  } else if (name == "f32.pos") {
    v = cat(cat(F({0.0, -0.0, 1.0, 2.0, 4.0, 0.25, 3.0, 10.0, 1e-20, 1e20, -1.0}),
                {0x3f800001, 0x00000001, 0x00400000, 0x00800000, 0x7f7fffff, kF32Inf,
                 kF32NInf, kF32NaN, 0x3eaaaaab}), randF32(r, 8, -60, 60, false));
  } else if (name == "f32.trig") {
    v = cat(cat(F({0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 3.14159, 0.001,
                   1e-8}), {kF32Inf, kF32NaN}), uniformF32(r, 12, -3.14159, 3.14159));
  } else if (name == "f32.ex2") {
    v = cat(cat(F({0.0, -0.0, 1.0, -1.0, 0.5, 10.0, -10.0, 100.0, -100.0, 127.0, 128.0, -126.0,
                   -127.0, -149.0, -150.0, 0.001}), {kF32Inf, kF32NInf, kF32NaN}),
            uniformF32(r, 10, -20, 20));
  } else if (name == "f32.tanh") {
    v = cat(cat(F({0.0, -0.0, 0.1, -0.1, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 5.0, -5.0, 10.0,
                   -20.0, 1e-5}), {kF32Inf, kF32NInf, kF32NaN, 0x00000001}),
            uniformF32(r, 10, -4, 4));
  } else if (name == "f32.int") {
    v = cat(F({0.0, -0.0, 0.4, 0.5, 0.6, 1.5, 2.5, -0.5, -1.5, -2.5, -0.6, 3.7, -3.7, 127.5,
               128.0, 255.5, 256.0, -128.5, -129.0, 32767.5, 65535.5, 65536.0, 2147483520.0,
               2147483648.0, -2147483648.0, -2147483904.0, 4294967040.0, 4294967296.0,
               9.2233715e18, 1.8446743e19, 1e30, -1e30}),
            {kF32Inf, kF32NInf, kF32NaN, 0x00000001, 0x80000001});
  } else if (name == "f32.h") { // around f16 boundaries
    v = cat(cat(F({0.0, -0.0, 1.0, 65504.0, 65519.0, 65520.0, 70000.0, -65520.0, 1e-5, 6e-8,
                   5.960464477539063e-08, 2.98e-8, 2.9802322387695312e-08, 1e-8, 6.1e-5}),
                {0x3eaaaaab, kF32Inf, kF32NInf, kF32NaN, 0x3f800fff, 0x3f801000, 0x3f801001,
                 0x3f803000, 0xbf803000, 0x00000001}), uniformF32(r, 6, -10, 10));
  } else if (name == "f32.bh") { // around bf16 boundaries
    v = cat({0, 0x80000000, 0x3f800000, 0x3f808000, 0x3f818000, 0x3f808001, 0x3f80ffff,
             0xbf808000, 0xbf818000, 0x7f7fffff, 0x7f7f8000, 0x7f7f7fff, 0xff7f8000, 0x00000001,
             0x00008000, 0x00018000, 0x007fffff, kF32Inf, kF32NInf, kF32NaN, 0x7f800001,
             0x3eaaaaab}, randF32(r, 6, -10, 10));
  } else if (name == "f64.e") { s.bytes = 8; v = f64e; }
  else if (name == "f64.a") { s.bytes = 8; v = cat(f64e, randF64(r, 10, -60, 60)); }
  else if (name == "f64.s") {
    s.bytes = 8;
    v = cat({db(0.0), db(-0.0), db(1.0), db(-1.0), db(1.0 / 3), 0x3ff0000000000001ull,
             0x0000000000000001ull, 0x7fefffffffffffffull, kF64Inf, kF64NInf, kF64NaN},
            randF64(r, 3, -4, 4));
  } else if (name == "f64.pos") {
    s.bytes = 8;
    v = cat(cat(D({0.0, -0.0, 1.0, 2.0, 4.0, 0.25, 3.0, 10.0, 1e-300, 1e300, -1.0, 1.0 / 3}),
                {0x3ff0000000000001ull, 0x0000000000000001ull, 0x0010000000000000ull, kF64Inf,
                 kF64NInf, kF64NaN}), randF64(r, 8, -200, 200, false));
  } else if (name == "f64.int") {
    s.bytes = 8;
    v = cat(D({0.0, -0.0, 0.4, 0.5, 0.6, 1.5, 2.5, -0.5, -1.5, -2.5, 3.7, -3.7, 2147483647.0,
               2147483647.5, 2147483648.0, -2147483648.5, -2147483649.0, 4294967295.5,
               4294967296.0, 9.223372036854775e18, 9.2233720368547758e18, 1.8446744073709550e19,
               1.8446744073709552e19, -9.2233720368547758e18, -9.2233720368547779e18, 1e30}),
            {kF64Inf, kF64NInf, kF64NaN, 1});
  } else if (name == "f64.f") { // f64 -> f32 rounding and range
    s.bytes = 8;
    v = cat(D({0.0, -0.0, 1.0, 1.0 / 3, -1.0 / 3, 3.4028234663852886e38, 3.4028235677973366e38,
               3.5e38, -3.5e38, 1.1754943508222875e-38, 1.401298464324817e-45,
               7.006492321624085e-46, 7.1e-46, 1e-50, -1e-50, 0.5, 1.5, 16777217.0,
               16777219.0, -16777217.0}),
            cat({kF64Inf, kF64NInf, kF64NaN}, randF64(r, 6, -20, 20)));
  } else if (name == "s32.e") {
    v = {0, 1, 0xffffffff, 2, 0xfffffffe, 3, 7, 0xfffffff9, 100, 0xffffff9c, 12345, 0xffffcfc7,
         0xffff, 0x10000, 0x40000000, 0x7ffffffe, 0x7fffffff, 0x80000000, 0x80000001};
  } else if (name == "u32.e") {
    v = {0, 1, 2, 3, 7, 100, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe,
         0xffffffff, 0xdeadbeef, 0x12345678, 0x01000001, 0x7fffffc0};
  } else if (name == "u32.r") { v = randBits(r, 16, 0xffffffff); }
  else if (name == "u32.s3") {
    v = {0, 1, 0xffffffff, 0x80000000, 0x7fffffff, 7, 0xdeadbeef, 0x10000};
  } else if (name == "u32.q") { v = {0, 0xffffffff, 0x12345678, 0xdeadbeef}; }
  else if (name == "u32.q2") { v = {0x80ff7f01, 0x12345678, 0xdeadbeef, 0}; }
  else if (name == "u32.sh") {
    v = {0, 1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 0x7fffffff, 0x80000000,
         0xffffffff};
  } else if (name == "u32.pos") { v = {0, 1, 4, 8, 16, 31, 32, 33, 255, 260}; }
  else if (name == "u32.len") { v = {0, 1, 4, 8, 16, 31, 32, 33, 64, 255}; }
  else if (name == "u32.pos64") { v = {0, 1, 8, 31, 32, 63, 64, 65, 255}; }
  else if (name == "u32.len64") { v = {0, 1, 8, 32, 33, 63, 64, 65, 255}; }
  else if (name == "u32.pl") { // bfi position | length << 8
    for (uint64_t p : {0, 1, 8, 31, 32, 40, 255})
      for (uint64_t l : {0, 1, 8, 24, 32, 33, 255})
        v.push_back(p | l << 8);
  } else if (name == "u32.pl64") {
    for (uint64_t p : {0, 1, 8, 32, 63, 64, 255})
      for (uint64_t l : {0, 1, 8, 33, 64, 65, 255})
        v.push_back(p | l << 8);
  } else if (name == "u32.sel") {
    v = cat({0x3210, 0x0123, 0x7654, 0x4444, 0x8888, 0xfedc, 0x1357, 0x0000, 0xffff, 0x5140,
             0x9a8b, 0xc8a6, 0xffff3210}, randBits(r, 5, 0xffff));
  } else if (name == "u32.sel3") { v = {0, 1, 2, 3, 4, 5, 6, 7}; }
  else if (name == "u32.lop") { v = cat({0xf0f0f0f0, 0xcccccccc, 0xaaaaaaaa}, randBits(r, 3, 0xffffffff)); }
  else if (name == "u32.dp") { v = cat({0, 0xffffffff, 0x80808080, 0x7f7f7f7f, 0x01020304}, randBits(r, 3, 0xffffffff)); }
  else if (name == "s32.dpc") { v = {0, 1, 0xffffffff, 0x7fffffff}; }
  else if (name == "s32.s3") {
    v = {0, 1, 0xffffffff, 7, 0x7fffffff, 0x80000000, 0x12345678, 0xffffcfc7};
  } else if (name == "s64.e" || name == "u64.e" || name == "s64.s3" || name == "u64.s3") {
    s.bytes = 8;
    if (name == "s64.e")
      v = {0, 1, ~0ull, 2, ~1ull, 7, ~6ull, 0xffffffff, 0x100000000, 0xffffffff00000000ull,
           0x7fffffffffffffffull, 0x8000000000000000ull, 0x7ffffffffffffffeull,
           0x8000000000000001ull, 0x123456789abcdef0ull, uint64_t(-12345678901ll)};
    else if (name == "u64.e")
      v = {0, 1, 2, 3, 7, 0xffffffff, 0x100000000, 0x7fffffffffffffffull, 0x8000000000000000ull,
           0xfffffffffffffffeull, ~0ull, 0x123456789abcdef0ull, 0xfedcba9876543210ull,
           0x0020000000000001ull};
    else
      v = {0, 1, ~0ull, 0x7fffffffffffffffull, 0x8000000000000000ull, 0xffffffff,
           0x123456789abcdef0ull, 7};
  } else if (name == "u64.r") { s.bytes = 8; v = randBits(r, 12, ~0ull); }
  else if (name == "s16.e" || name == "u16.e") {
    s.bytes = 2;
    v = name == "s16.e" ? std::vector<uint64_t>{0, 1, 0xffff, 2, 0xfffe, 7, 0xfff9, 100, 0xff9c,
                                                0x7fff, 0x8000, 0x7ffe, 0x8001, 0x1234}
                        : std::vector<uint64_t>{0, 1, 2, 7, 100, 0x7fff, 0x8000, 0xfffe, 0xffff,
                                                0x1234, 0xff, 0x100};
  } else if (name == "f16.e") { s.bytes = 2; v = cat(f16e, randBits(r, 4, 0xffff) ); }
  else if (name == "f16.s") {
    s.bytes = 2;
    v = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x3555, 0x3c01, 0x7bff, 0x0001, 0x7c00, 0x7e00, 0xfc00};
  } else if (name == "f16.x") { // ex2 / tanh inputs
    s.bytes = 2;
    v = {0x0000, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x4900, 0xc900, 0x4b80, 0xcb80, 0x4c00, 0xcc00,
         0x4400, 0xc400, 0x2000, 0x7c00, 0xfc00, 0x7e00, 0x0001};
  } else if (name == "bf16.e") { s.bytes = 2; v = cat(bf16e, randBits(r, 4, 0xffff)); }
  else if (name == "bf16.s") {
    s.bytes = 2;
    v = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x3eab, 0x3f81, 0x7f7f, 0x0001, 0x7f80, 0x7fc0, 0xff80};
  } else if (name == "bf16.x") {
    s.bytes = 2;
    v = {0x0000, 0x8000, 0x3f80, 0xbf80, 0x3f00, 0x4120, 0xc120, 0x4170, 0xc170, 0x4180, 0xc180,
         0x4080, 0xc080, 0x3c00, 0x7f80, 0xff80, 0x7fc0, 0x0001};
  } else if (name == "f16x2.e") { v = pairs(cat(f16e, randBits(r, 4, 0xffff))); }
  else if (name == "f16x2.s") { v = pairs({0x0000, 0x8000, 0x3c00, 0xbc00, 0x3555, 0x7bff, 0x0001, 0x7c00, 0x7e00}); }
  else if (name == "bf16x2.e") { v = pairs(cat(bf16e, randBits(r, 4, 0xffff))); }
  else if (name == "bf16x2.s") { v = pairs({0x0000, 0x8000, 0x3f80, 0xbf80, 0x3eab, 0x7f7f, 0x0001, 0x7f80, 0x7fc0}); }
  else if (name == "u32.idx") { for (uint64_t i = 0; i < 64; ++i) v.push_back(i); }
  else if (name == "u32.seq") { for (uint64_t i = 0; i < 256; ++i) v.push_back(i * 2654435761u % 1000); }
  else if (name == "u64.seq") { s.bytes = 8; for (uint64_t i = 0; i < 256; ++i) v.push_back(i * 0x9e3779b97f4a7c15ull); }
  else if (name == "f32.seq") { for (int i = 0; i < 256; ++i) v.push_back(fb(float((i * 37) % 101 - 50))); }
  else if (name == "f64.seq") { s.bytes = 8; for (int i = 0; i < 256; ++i) v.push_back(db(double((i * 37) % 101 - 50) * 0.5)); }
  else if (name == "u32.ones") { v = {1, 1, 1, 1, 1, 1, 1, 1}; }
  else if (name == "u64.ones") { s.bytes = 8; v = {1, 1, 1, 1, 1, 1, 1, 1}; }
  else if (name == "u32.ff") { v = {0xffffffff}; }
  else if (name == "u32.big") { v = {0x7fffffff}; }
  else fail("unknown value set '" + name + "'");
  return s;
}

const ValueSet &getSet(const std::string &name) {
  static std::map<std::string, ValueSet> cache;
  auto it = cache.find(name);
  if (it == cache.end())
    it = cache.emplace(name, makeSet(name)).first;
  return it->second;
}

bool isType(const std::string &t) {
  for (const char *x : {"u8", "s8", "u16", "s16", "f16", "bf16", "u32", "s32", "f32", "f16x2",
                        "bf16x2", "u64", "s64", "f64"})
    if (t == x) return true;
  return false;
}

unsigned typeBytes(const std::string &t) {
  if (t == "u8" || t == "s8") return 1;
  if (t == "u16" || t == "s16" || t == "f16" || t == "bf16") return 2;
  if (t == "u32" || t == "s32" || t == "f32" || t == "f16x2" || t == "bf16x2") return 4;
  if (t == "u64" || t == "s64" || t == "f64") return 8;
  fail("unknown output type '" + t + "'");
}

size_t threadCount(const Case &c) {
  if (c.sets.empty())
    return c.threads;
  size_t n = 1;
  for (const auto &s : c.sets)
    n *= getSet(s).v.size();
  return n;
}

// Input element k of set j for thread i (cross product, last set fastest).
uint64_t inputOf(const Case &c, size_t i, size_t j) {
  std::vector<size_t> idx(c.sets.size());
  for (size_t k = c.sets.size(); k-- > 0;) {
    size_t n = getSet(c.sets[k]).v.size();
    idx[k] = i % n;
    i /= n;
  }
  return getSet(c.sets[j]).v[idx[j]];
}

std::vector<uint8_t> pack(const ValueSet &s, const std::vector<uint64_t> &vals) {
  std::vector<uint8_t> out(vals.size() * s.bytes);
  for (size_t i = 0; i < vals.size(); ++i)
    std::memcpy(out.data() + i * s.bytes, &vals[i], s.bytes); // little-endian host
  return out;
}

// The module text with only `kernel` among the .entry functions (so that one unsupported
// instruction elsewhere in the file does not fail every case of the file).
std::string extractKernel(const std::string &ptx, const std::string &kernel) {
  std::string out;
  size_t pos = 0;
  while (pos < ptx.size()) {
    size_t e = ptx.find(".entry ", pos);
    if (e == std::string::npos) {
      out += ptx.substr(pos);
      break;
    }
    size_t lineStart = ptx.rfind('\n', e);
    lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
    size_t nameStart = e + 7;
    size_t nameEnd = ptx.find_first_of("( \n", nameStart);
    std::string name = ptx.substr(nameStart, nameEnd - nameStart);
    // the end of the body: the brace that brings the depth back to zero
    size_t i = ptx.find('{', nameEnd);
    int depth = 0;
    for (; i < ptx.size(); ++i) {
      if (ptx.compare(i, 2, "//") == 0) {
        i = ptx.find('\n', i);
        if (i == std::string::npos) break;
        continue;
      }
      if (ptx[i] == '{') ++depth;
      if (ptx[i] == '}' && --depth == 0) break;
    }
    if (i == std::string::npos || i >= ptx.size())
      fail("unterminated .entry " + name);
    out += ptx.substr(pos, lineStart - pos);
    if (name == kernel)
      out += ptx.substr(lineStart, i + 1 - lineStart);
    pos = i + 1;
  }
  return out;
}

CUmodule loadModule(const std::string &text) {
  char log[8192] = {0};
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {log, reinterpret_cast<void *>(uintptr_t(sizeof log))};
  CUmodule m = nullptr;
  CUresult r = cuModuleLoadDataEx(&m, text.c_str(), 2, opts, vals);
  if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
    // Recording with a driver older than the nvcc that wrote the PTX: retry with older ISA
    // versions (the cases use nothing newer than their instructions need).
    for (const char *ver : {"8.8", "8.7", "8.5", "8.4", "8.3", "8.2", "8.0", "7.8"}) {
      std::string t = text;
      size_t p = t.find(".version ");
      size_t e = t.find('\n', p);
      t.replace(p, e - p, std::string(".version ") + ver);
      r = cuModuleLoadDataEx(&m, t.c_str(), 2, opts, vals);
      if (r != CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
        break;
    }
  }
  if (r != CUDA_SUCCESS) {
    const char *name = nullptr;
    cuGetErrorName(r, &name);
    fail(std::string("cuModuleLoadDataEx: ") + (name ? name : "?") + ": " + log);
  }
  return m;
}

// Float lanes of an output type: bits per lane and exponent/mantissa widths; 0 for integers.
struct Lane {
  unsigned bytes;
  int expBits, manBits; // 0: integer
};
Lane laneOf(const std::string &t) {
  if (t == "f16" || t == "f16x2") return {2, 5, 10};
  if (t == "bf16" || t == "bf16x2") return {2, 8, 7};
  if (t == "f32") return {4, 8, 23};
  if (t == "f64") return {8, 11, 52};
  return {typeBytes(t), 0, 0};
}

double laneValue(uint64_t bits, const Lane &l) {
  if (l.bytes == 8) { double d; std::memcpy(&d, &bits, 8); return d; }
  if (l.bytes == 4) { float f; uint32_t u = uint32_t(bits); std::memcpy(&f, &u, 4); return f; }
  int e = int(bits >> l.manBits) & ((1 << l.expBits) - 1);
  uint64_t m = bits & ((1ull << l.manBits) - 1);
  int bias = (1 << (l.expBits - 1)) - 1;
  double v = e == 0 ? std::ldexp(double(m), 1 - bias - l.manBits)
                    : std::ldexp(double(m | 1ull << l.manBits), e - bias - l.manBits);
  if (e == (1 << l.expBits) - 1) v = m ? NAN : INFINITY;
  return (bits >> (l.bytes * 8 - 1)) & 1 ? -v : v;
}

// Position of a float in the total order of its format (for ulp distances).
int64_t ordered(uint64_t bits, const Lane &l) {
  uint64_t sign = 1ull << (l.bytes * 8 - 1);
  return (bits & sign) ? -int64_t(bits & ~sign) : int64_t(bits);
}

bool within(const std::string &tol, uint64_t g, uint64_t w, const Lane &l) {
  double gv = laneValue(g, l), wv = laneValue(w, l);
  if (std::isnan(gv) && std::isnan(wv)) return true; // NaN payloads are not compared
  if (g == w) return true;
  if (tol.empty() || !std::isfinite(gv) || !std::isfinite(wv)) return false;
  std::stringstream ss(tol);
  std::string part;
  while (std::getline(ss, part, ',')) {
    size_t eq = part.find('=');
    std::string k = part.substr(0, eq);
    double x = std::stod(part.substr(eq + 1));
    if (k == "ulp" && double(std::llabs(ordered(g, l) - ordered(w, l))) <= x) return true;
    if (k == "abs" && std::fabs(gv - wv) <= x) return true;
    if (k == "rel" && std::fabs(gv - wv) <= x * std::fabs(wv)) return true;
  }
  return false;
}

std::string hexOf(uint64_t v, unsigned bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%0*llx", int(bytes * 2), static_cast<unsigned long long>(v));
  return buf;
}

// ---------------------------------------------------------------------------------------------
// Resources. The case option res=<kind>.<geom>.<format>[.<opt>]... creates a texture (kind
// tex) or surface (kind surf) object before the launch and passes its handle as the kernel's
// third argument (so such a case has at most 2 value sets).
//   geom: lin (linear memory, 64 elements), pitch (pitched 8x6, rows of 256 bytes), 1d (array
//     16), 2d (8x6), 3d (4x4x3), a1d (16, 3 layers), a2d (8x6, 3 layers), cube (4x4, 6 faces),
//     acube (4x4, 12 faces = 2 cubes), mip2d (mipmapped 16x8, 4 levels). Surfaces need one of
//     the arrays 1d..acube.
//   format: u8 s8 u16 s16 u32 s32 f16 f32 followed by x1, x2 or x4 (channels).
//   opts (textures only): point (default) | linear filtering; clamp (default) | wrap | mirror |
//     border addressing in all three dimensions; norm (normalized coordinates); int (read as
//     integer); srgb; mlinear (linear mipmap filtering). The border color is always
//     {0.25, 0.5, 0.75, 1}; the maximum mipmap level clamp is 3 for mip2d and mlinear, else 0.
// Contents, identical on every machine: the components in memory order (level, layer or face,
// z, y, x, channel), the k-th (k = 0, 1, ...) being ((k * 7) % 23) * 0.25 - 2.5 for f32 and
// f16 (exact in both), for integer formats of b bits the top b bits of k * 2654435761 mod 2^32
// (values across the type's range, negative ones included). Pitch row padding is zero.
// After the run a surface's array is copied back and its bytes appended to the output (compared
// bitwise per output element).

struct Geom {
  const char *name;
  CUresourcetype type;
  size_t w, h, d; // level 0 extent; h 0 for 1D, d the depth, layers or faces (0 for none)
  unsigned flags; // CUDA_ARRAY3D_*
};
constexpr CUresourcetype kArray = CU_RESOURCE_TYPE_ARRAY;
constexpr Geom kGeoms[] = {
    {"lin", CU_RESOURCE_TYPE_LINEAR, 64, 0, 0, 0},
    {"pitch", CU_RESOURCE_TYPE_PITCH2D, 8, 6, 0, 0},
    {"1d", kArray, 16, 0, 0, 0},
    {"2d", kArray, 8, 6, 0, 0},
    {"3d", kArray, 4, 4, 3, 0},
    {"a1d", kArray, 16, 0, 3, CUDA_ARRAY3D_LAYERED},
    {"a2d", kArray, 8, 6, 3, CUDA_ARRAY3D_LAYERED},
    {"cube", kArray, 4, 4, 6, CUDA_ARRAY3D_CUBEMAP},
    {"acube", kArray, 4, 4, 12, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED},
    {"mip2d", CU_RESOURCE_TYPE_MIPMAPPED_ARRAY, 16, 8, 0, 0}};
constexpr unsigned kMipLevels = 4;
constexpr size_t kPitch = 256;

struct ResSpec {
  bool surf = false;
  const Geom *geom = nullptr;
  CUarray_format format = CU_AD_FORMAT_FLOAT;
  unsigned compBytes = 4, channels = 1;
  CUaddress_mode addr = CU_TR_ADDRESS_MODE_CLAMP;
  CUfilter_mode filter = CU_TR_FILTER_MODE_POINT, mipFilter = CU_TR_FILTER_MODE_POINT;
  unsigned texFlags = 0; // CU_TRSF_*
  unsigned levels() const {
    return geom->type == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY ? kMipLevels : 1;
  }
  size_t elemBytes() const { return size_t(compBytes) * channels; }
};

ResSpec parseRes(const std::string &spec) {
  std::vector<std::string> parts;
  std::stringstream ss(spec);
  for (std::string p; std::getline(ss, p, '.');)
    parts.push_back(p);
  const auto bad = [&](const std::string &why) { fail("res=" + spec + ": " + why); };
  if (parts.size() < 3 || (parts[0] != "tex" && parts[0] != "surf"))
    bad("expected tex|surf.<geom>.<format>[.<opt>]...");
  ResSpec r;
  r.surf = parts[0] == "surf";
  for (const Geom &g : kGeoms)
    if (parts[1] == g.name) r.geom = &g;
  if (!r.geom) bad("unknown geometry " + parts[1]);
  if (r.surf && r.geom->type != kArray) bad("a surface needs an array geometry");
  static const struct {
    const char *name;
    CUarray_format format;
    unsigned bytes;
  } kFormats[] = {{"u8", CU_AD_FORMAT_UNSIGNED_INT8, 1},  {"s8", CU_AD_FORMAT_SIGNED_INT8, 1},
                  {"u16", CU_AD_FORMAT_UNSIGNED_INT16, 2}, {"s16", CU_AD_FORMAT_SIGNED_INT16, 2},
                  {"u32", CU_AD_FORMAT_UNSIGNED_INT32, 4}, {"s32", CU_AD_FORMAT_SIGNED_INT32, 4},
                  {"f16", CU_AD_FORMAT_HALF, 2},           {"f32", CU_AD_FORMAT_FLOAT, 4}};
  const std::string &f = parts[2];
  size_t x = f.find('x');
  bool known = false;
  for (const auto &k : kFormats)
    if (f.substr(0, x) == k.name) {
      r.format = k.format;
      r.compBytes = k.bytes;
      known = true;
    }
  const std::string ch = x == std::string::npos ? "" : f.substr(x + 1);
  if (!known || (ch != "1" && ch != "2" && ch != "4")) bad("unknown format " + f);
  r.channels = unsigned(std::stoul(ch));
  for (size_t i = 3; i < parts.size(); ++i) {
    const std::string &o = parts[i];
    if (r.surf) bad("surfaces take no options");
    if (o == "point") r.filter = CU_TR_FILTER_MODE_POINT;
    else if (o == "linear") r.filter = CU_TR_FILTER_MODE_LINEAR;
    else if (o == "clamp") r.addr = CU_TR_ADDRESS_MODE_CLAMP;
    else if (o == "wrap") r.addr = CU_TR_ADDRESS_MODE_WRAP;
    else if (o == "mirror") r.addr = CU_TR_ADDRESS_MODE_MIRROR;
    else if (o == "border") r.addr = CU_TR_ADDRESS_MODE_BORDER;
    else if (o == "norm") r.texFlags |= CU_TRSF_NORMALIZED_COORDINATES;
    else if (o == "int") r.texFlags |= CU_TRSF_READ_AS_INTEGER;
    else if (o == "srgb") r.texFlags |= CU_TRSF_SRGB;
    else if (o == "mlinear") r.mipFilter = CU_TR_FILTER_MODE_LINEAR;
    else bad("unknown option " + o);
  }
  return r;
}

// Elements of one level in x, y and z (layers, faces), each at least 1.
struct Extent {
  size_t w, h, d;
};
Extent extentOf(const ResSpec &r, unsigned level) {
  const Geom &g = *r.geom;
  return {std::max<size_t>(g.w >> level, 1), std::max<size_t>(g.h >> level, 1),
          std::max<size_t>(g.d, 1)};
}

// f16 bits of a float that f16 represents exactly as a normal number or zero.
uint16_t halfBits(float f) {
  const uint32_t u = uint32_t(fb(f));
  if (!(u & 0x7fffffff))
    return uint16_t(u >> 16);
  return uint16_t((u >> 16 & 0x8000) | ((u >> 23 & 0xff) - 112) << 10 | (u & 0x7fffff) >> 13);
}

// Component k of the contents, in the format's bits.
uint32_t component(const ResSpec &r, uint32_t k) {
  const float f = float((k * 7) % 23) * 0.25f - 2.5f;
  if (r.format == CU_AD_FORMAT_FLOAT) return uint32_t(fb(f));
  if (r.format == CU_AD_FORMAT_HALF) return halfBits(f);
  return uint32_t(k * 2654435761u) >> (32 - 8 * r.compBytes);
}

// The contents of one level with rows of `pitch` bytes, continuing from component k.
std::vector<uint8_t> levelContents(const ResSpec &r, const Extent &e, size_t pitch,
                                   uint32_t &k) {
  std::vector<uint8_t> out(pitch * e.h * e.d, 0);
  for (size_t row = 0; row < e.h * e.d; ++row)
    for (size_t c = 0; c < e.w * r.channels; ++c) {
      const uint32_t v = component(r, k++);
      std::memcpy(out.data() + row * pitch + c * r.compBytes, &v, r.compBytes);
    }
  return out;
}

// Copies a whole array level between the host (tightly packed) and the array.
void copyArray(CUarray a, const ResSpec &r, const Extent &e, uint8_t *host, bool toArray) {
  CUDA_MEMCPY3D m = {};
  const size_t row = e.w * r.elemBytes();
  if (toArray) {
    m.srcMemoryType = CU_MEMORYTYPE_HOST;
    m.srcHost = host;
    m.srcPitch = row;
    m.srcHeight = e.h;
    m.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    m.dstArray = a;
  } else {
    m.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    m.srcArray = a;
    m.dstMemoryType = CU_MEMORYTYPE_HOST;
    m.dstHost = host;
    m.dstPitch = row;
    m.dstHeight = e.h;
  }
  m.WidthInBytes = row;
  m.Height = e.h;
  m.Depth = e.d;
  check(cuMemcpy3D(&m), "cuMemcpy3D");
}

// A case's texture or surface object and what it reads; destroyed with it.
struct Resource {
  CUdeviceptr mem = 0;
  CUarray array = nullptr;
  CUmipmappedArray mip = nullptr;
  CUtexObject tex = 0;
  CUsurfObject surf = 0;

  Resource() = default;
  Resource(const Resource &) = delete;
  Resource &operator=(const Resource &) = delete;
  ~Resource() {
    if (tex) cuTexObjectDestroy(tex);
    if (surf) cuSurfObjectDestroy(surf);
    if (array) cuArrayDestroy(array);
    if (mip) cuMipmappedArrayDestroy(mip);
    if (mem) cuMemFree(mem);
  }

  void create(const ResSpec &r) {
    CUDA_RESOURCE_DESC rd = {};
    rd.resType = r.geom->type;
    uint32_t k = 0;
    if (r.geom->type == kArray || r.geom->type == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY) {
      CUDA_ARRAY3D_DESCRIPTOR ad = {};
      ad.Width = r.geom->w;
      ad.Height = r.geom->h;
      ad.Depth = r.geom->d;
      ad.Format = r.format;
      ad.NumChannels = r.channels;
      ad.Flags = r.geom->flags | (r.surf ? CUDA_ARRAY3D_SURFACE_LDST : 0);
      if (r.geom->type == kArray) {
        check(cuArray3DCreate(&array, &ad), "cuArray3DCreate");
        rd.res.array.hArray = array;
      } else {
        check(cuMipmappedArrayCreate(&mip, &ad, r.levels()), "cuMipmappedArrayCreate");
        rd.res.mipmap.hMipmappedArray = mip;
      }
      for (unsigned l = 0; l < r.levels(); ++l) {
        CUarray level = array;
        if (mip)
          check(cuMipmappedArrayGetLevel(&level, mip, l), "cuMipmappedArrayGetLevel");
        const Extent e = extentOf(r, l);
        auto bytes = levelContents(r, e, e.w * r.elemBytes(), k);
        copyArray(level, r, e, bytes.data(), true);
      }
    } else {
      // linear or pitched memory at the device's texture alignment
      CUdevice dev;
      int align = 0;
      check(cuCtxGetDevice(&dev), "cuCtxGetDevice");
      check(cuDeviceGetAttribute(&align, CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, dev),
            "cuDeviceGetAttribute");
      const Extent e = extentOf(r, 0);
      const bool pitched = r.geom->type == CU_RESOURCE_TYPE_PITCH2D;
      const size_t pitch = pitched ? kPitch : e.w * r.elemBytes();
      auto bytes = levelContents(r, e, pitch, k);
      check(cuMemAlloc(&mem, bytes.size() + size_t(align)), "cuMemAlloc");
      const CUdeviceptr a = CUdeviceptr(align), p = (mem + a - 1) / a * a;
      check(cuMemcpyHtoD(p, bytes.data(), bytes.size()), "cuMemcpyHtoD");
      if (pitched)
        rd.res.pitch2D = {p, r.format, r.channels, e.w, e.h, pitch};
      else
        rd.res.linear = {p, r.format, r.channels, bytes.size()};
    }
    if (r.surf) {
      check(cuSurfObjectCreate(&surf, &rd), "cuSurfObjectCreate");
      return;
    }
    CUDA_TEXTURE_DESC td = {};
    for (auto &a : td.addressMode)
      a = r.addr;
    td.filterMode = r.filter;
    td.flags = r.texFlags;
    td.mipmapFilterMode = r.mipFilter;
    td.maxMipmapLevelClamp =
        float(std::max(r.levels() - 1, r.mipFilter == CU_TR_FILTER_MODE_LINEAR ? 3u : 0u));
    const float border[4] = {0.25f, 0.5f, 0.75f, 1.0f};
    std::copy(border, border + 4, td.borderColor);
    check(cuTexObjectCreate(&tex, &rd, &td, nullptr), "cuTexObjectCreate");
  }

  // The array's current contents (a surface's).
  std::vector<uint8_t> readBack(const ResSpec &r) const {
    const Extent e = extentOf(r, 0);
    std::vector<uint8_t> out(e.w * e.h * e.d * r.elemBytes());
    copyArray(array, r, e, out.data(), false);
    return out;
  }
};

// Bytes a surface resource appends to the output (0 for none).
size_t appendedBytes(const Case &c) {
  if (c.res.empty())
    return 0;
  const ResSpec r = parseRes(c.res);
  if (!r.surf)
    return 0;
  const Extent e = extentOf(r, 0);
  return e.w * e.h * e.d * r.elemBytes();
}

// Output elements the kernel writes (a surface's contents follow them).
size_t outCount(const Case &c) { return c.nOut ? c.nOut : threadCount(c) * c.outPer; }

} // namespace

std::vector<Case> loadCases(const std::string &dir) {
  std::vector<Case> out;
  std::ifstream list(dir + "/cases.list");
  if (!list)
    fail("cannot read " + dir + "/cases.list");
  std::string stem;
  while (list >> stem) {
    std::ifstream in(dir + "/" + stem + ".cu");
    if (!in)
      fail("cannot read " + dir + "/" + stem + ".cu");
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
      ++lineNo;
      size_t at = line.find("//@");
      if (at == std::string::npos)
        continue;
      Case c;
      c.stem = stem;
      c.line = lineNo;
      std::string code = line.substr(0, at);
      std::stringstream spec(line.substr(at + 3));
      std::string tok;
      std::string first;
      spec >> first;
      if (!isType(first)) {
        c.kernel = first; // an explicit kernel name before the output type
      } else if (code.find_first_not_of(" \t") == std::string::npos) {
        fail(stem + ".cu:" + std::to_string(lineNo) + ": case without a kernel name");
      } else if (code.find("__global__") != std::string::npos) {
        size_t p = code.find('(');
        size_t s = code.find_last_of(" *", p - 1);
        c.kernel = code.substr(s + 1, p - s - 1);
      } else {
        size_t p = code.find('('), q = code.find_first_of(",)", p);
        c.kernel = code.substr(p + 1, q - p - 1);
      }
      if (isType(first))
        c.outType = first;
      else
        spec >> c.outType;
      std::string nameOpt;
      while (spec >> tok) {
        size_t eq = tok.find('=');
        if (eq == std::string::npos) {
          c.sets.push_back(tok);
          continue;
        }
        std::string k = tok.substr(0, eq), v = tok.substr(eq + 1);
        auto dims = [&](unsigned *d) {
          std::stringstream ds(v);
          std::string x;
          for (int i = 0; i < 3 && std::getline(ds, x, ','); ++i)
            d[i] = unsigned(std::stoul(x));
        };
        if (k == "name") nameOpt = v;
        else if (k == "per") c.outPer = unsigned(std::stoul(v));
        else if (k == "nout") c.nOut = unsigned(std::stoul(v));
        else if (k == "threads") c.threads = unsigned(std::stoul(v));
        else if (k == "block") dims(c.block);
        else if (k == "grid") dims(c.grid);
        else if (k == "shmem") c.shmem = unsigned(std::stoul(v));
        else if (k == "init") c.init = v;
        else if (k == "tol") c.tol = v;
        else if (k == "res") c.res = v;
        else if (k == "expect" && v == "error") c.expectError = true;
        else fail(stem + ".cu:" + std::to_string(lineNo) + ": unknown option " + k);
      }
      c.name = stem + "." + (nameOpt.empty() ? c.kernel : nameOpt);
      typeBytes(c.outType);
      if (c.sets.size() > (c.res.empty() ? 3u : 2u) || (c.sets.empty() && !c.threads))
        fail(stem + ".cu:" + std::to_string(lineNo) + ": bad case");
      try {
        if (appendedBytes(c) % typeBytes(c.outType))
          fail("the surface's bytes are no whole number of " + c.outType + " elements");
      } catch (const std::runtime_error &e) {
        fail(stem + ".cu:" + std::to_string(lineNo) + ": " + e.what());
      }
      for (const auto &s : c.sets)
        getSet(s);
      out.push_back(c);
    }
  }
  return out;
}

void initDevice(bool reset) {
  check(cuInit(0), "cuInit");
  CUdevice dev;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  if (reset)
    check(cuDevicePrimaryCtxReset(dev), "cuDevicePrimaryCtxReset");
  CUcontext ctx;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

std::vector<uint8_t> runCase(const std::string &dir, const Case &c) {
  static std::map<std::string, std::string> ptxCache;
  auto it = ptxCache.find(c.stem);
  if (it == ptxCache.end())
    it = ptxCache.emplace(c.stem, readFile(dir + "/" + c.stem + ".ptx")).first;
  CUmodule m = loadModule(extractKernel(it->second, c.kernel));
  CUfunction f;
  check(cuModuleGetFunction(&f, m, c.kernel.c_str()), "cuModuleGetFunction");

  const size_t n = threadCount(c);
  CUdeviceptr in[3] = {0, 0, 0};
  for (size_t j = 0; j < c.sets.size(); ++j) {
    const ValueSet &s = getSet(c.sets[j]);
    std::vector<uint64_t> vals(n);
    for (size_t i = 0; i < n; ++i)
      vals[i] = inputOf(c, i, j);
    auto bytes = pack(s, vals);
    check(cuMemAlloc(&in[j], bytes.size()), "cuMemAlloc");
    check(cuMemcpyHtoD(in[j], bytes.data(), bytes.size()), "cuMemcpyHtoD");
  }
  ResSpec spec;
  Resource res;
  if (!c.res.empty()) {
    spec = parseRes(c.res);
    res.create(spec);
  }
  const unsigned ob = typeBytes(c.outType);
  const size_t nOut = outCount(c);
  std::vector<uint8_t> out(nOut * ob, 0);
  if (!c.init.empty()) {
    const ValueSet &s = getSet(c.init);
    for (size_t i = 0; i < nOut; ++i)
      std::memcpy(out.data() + i * ob, &s.v[i % s.v.size()], std::min(ob, s.bytes));
  }
  CUdeviceptr d;
  check(cuMemAlloc(&d, out.size()), "cuMemAlloc");
  check(cuMemcpyHtoD(d, out.data(), out.size()), "cuMemcpyHtoD");
  int count = int(n);
  void *third = c.res.empty() ? static_cast<void *>(&in[2]) : spec.surf ? &res.surf : &res.tex;
  void *args[] = {&in[0], &in[1], third, &d, &count};
  unsigned block[3] = {c.block[0] ? c.block[0] : unsigned(std::min<size_t>(n, 128)), c.block[1],
                       c.block[2]};
  unsigned grid[3] = {c.grid[0] ? c.grid[0] : unsigned((n + block[0] - 1) / block[0]),
                      c.grid[1], c.grid[2]};
  check(cuLaunchKernel(f, grid[0], grid[1], grid[2], block[0], block[1], block[2], c.shmem,
                       nullptr, args, nullptr), "cuLaunchKernel");
  check(cuCtxSynchronize(), "cuCtxSynchronize");
  check(cuMemcpyDtoH(out.data(), d, out.size()), "cuMemcpyDtoH");
  if (spec.surf) {
    auto contents = res.readBack(spec);
    out.insert(out.end(), contents.begin(), contents.end());
  }
  for (auto p : in)
    if (p) cuMemFree(p);
  cuMemFree(d);
  cuModuleUnload(m);
  return out;
}

std::string compare(const Case &c, const std::vector<uint8_t> &got,
                    const std::vector<uint8_t> &want) {
  if (got.size() != want.size())
    return "output has " + std::to_string(got.size()) + " bytes, expected " +
           std::to_string(want.size());
  const Lane l = laneOf(c.outType);
  const unsigned ob = typeBytes(c.outType);
  const size_t perThread = c.nOut ? 0 : c.outPer;
  const size_t kernelBytes = outCount(c) * ob; // a surface's contents follow, compared bitwise
  std::string msg;
  int shown = 0, bad = 0;
  for (size_t i = 0; i < got.size(); i += l.bytes) {
    uint64_t g = 0, w = 0;
    std::memcpy(&g, &got[i], l.bytes);
    std::memcpy(&w, &want[i], l.bytes);
    bool ok = l.expBits && i < kernelBytes ? within(c.tol, g, w, l) : g == w;
    if (ok)
      continue;
    ++bad;
    if (shown++ >= 8)
      continue;
    size_t elem = i / ob;
    if (i >= kernelBytes) {
      msg += "  surface byte " + std::to_string(i - kernelBytes) + ": got " +
             hexOf(g, l.bytes) + " want " + hexOf(w, l.bytes) + "\n";
      continue;
    }
    msg += "  element " + std::to_string(elem);
    if (perThread && !c.sets.empty()) {
      size_t t = elem / perThread;
      msg += " (inputs";
      for (size_t j = 0; j < c.sets.size(); ++j)
        msg += " " + hexOf(inputOf(c, t, j), getSet(c.sets[j]).bytes);
      msg += ")";
    }
    msg += " lane byte " + std::to_string(i % ob) + ": got " + hexOf(g, l.bytes) + " want " +
           hexOf(w, l.bytes) + "\n";
  }
  if (bad)
    msg = std::to_string(bad) + " mismatching lanes\n" + msg;
  return msg;
}

std::map<std::string, std::string> loadExpected(const std::string &file) {
  std::map<std::string, std::string> out;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    size_t sp = line.find(' ');
    if (sp != std::string::npos)
      out[line.substr(0, sp)] = line.substr(sp + 1);
  }
  return out;
}

std::string toHex(const std::vector<uint8_t> &v) {
  static const char *d = "0123456789abcdef";
  std::string s;
  for (uint8_t x : v) {
    s += d[x >> 4];
    s += d[x & 15];
  }
  return s;
}

std::vector<uint8_t> fromHex(const std::string &s) {
  std::vector<uint8_t> v(s.size() / 2);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = uint8_t(std::stoul(s.substr(2 * i, 2), nullptr, 16));
  return v;
}

} // namespace conformance
