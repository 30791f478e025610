// f32 arithmetic with directed rounding (.rm/.rp/.rz), vectorised over a block, against the host
// FPU computing the same operations in the same rounding mode (an exact reference: IEEE 754
// defines each result bit for bit); ex2.approx.f32 against 2^x in double.
#include "run_grid.h"

#include <cfenv>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace {

const char *kPtx = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry directed(.param .u64 pa, .param .u64 pc, .param .u64 pd, .param .u64 pout,
                         .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<4>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd0, [pa];
  ld.param.u64 %rd1, [pc];
  ld.param.u64 %rd2, [pd];
  ld.param.u64 %rd3, [pout];
  ld.param.u32 %r0, [n];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r1, %r1, %r2, %r3;
  setp.ge.u32 %p, %r1, %r0;
  @%p bra DONE;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd0, %rd4;
  add.s64 %rd6, %rd1, %rd4;
  add.s64 %rd7, %rd2, %rd4;
  ld.global.f32 %f0, [%rd5];
  ld.global.f32 %f1, [%rd6];
  ld.global.f32 %f2, [%rd7];
  fma.rm.f32 %f3, %f0, %f1, %f2;
  fma.rp.f32 %f4, %f0, %f1, %f2;
  fma.rz.f32 %f5, %f0, %f1, %f2;
  add.rm.f32 %f6, %f0, %f2;
  add.rp.f32 %f7, %f0, %f2;
  add.rz.f32 %f8, %f0, %f2;
  mul.rm.f32 %f9, %f0, %f1;
  mul.rp.f32 %f10, %f0, %f1;
  mul.rz.f32 %f11, %f0, %f1;
  mul.wide.u32 %rd4, %r1, 36;
  add.s64 %rd8, %rd3, %rd4;
  st.global.v4.f32 [%rd8], {%f3, %f4, %f5, %f6};
  st.global.v4.f32 [%rd8+16], {%f7, %f8, %f9, %f10};
  st.global.f32 [%rd8+32], %f11;
DONE:
  ret;
}
)";

// Random floats over the whole range, subnormals, zeros and infinities, with products and sums
// that overflow, underflow, cancel exactly and land on halfway points.
float randomFloat(std::mt19937 &rng) {
  std::uniform_int_distribution<int> kind(0, 9);
  std::uniform_int_distribution<uint32_t> bits;
  switch (kind(rng)) {
  case 0: { // subnormal
    uint32_t u = (bits(rng) & 0x807fffffu);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  case 1:
    return std::ldexp(float(int(bits(rng) % 2001) - 1000), int(bits(rng) % 60) - 30);
  case 2: // near the top of the range
    return std::ldexp(1.0f + float(bits(rng) % 1000) / 1000.0f, 126 - int(bits(rng) % 4)) *
           (bits(rng) & 1 ? -1.0f : 1.0f);
  case 3:
    return bits(rng) & 1 ? 0.0f : -0.0f;
  case 4:
    return bits(rng) & 1 ? INFINITY : 1.0f;
  default: { // any finite float
    uint32_t u = bits(rng);
    float f;
    std::memcpy(&f, &u, 4);
    return std::isfinite(f) ? f : 1.5f;
  }
  }
}

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(Rounding, DirectedF32MatchesTheHostFpu) {
  auto prog = load(kPtx);
  ASSERT_TRUE(prog);
  const unsigned n = 1 << 16;
  std::mt19937 rng(20261123);
  std::vector<float> a(n), c(n), d(n), out(9 * n);
  for (unsigned i = 0; i < n; ++i) {
    a[i] = randomFloat(rng);
    c[i] = randomFloat(rng);
    // Often the negated product or a neighbour of it: exact cancellation and tiny residuals.
    d[i] = i % 4 == 0   ? -a[i] * c[i]
           : i % 4 == 1 ? std::nextafter(-a[i] * c[i], 0.0f)
                        : randomFloat(rng);
  }
  const float *pa = a.data(), *pc = c.data(), *pd = d.data();
  float *po = out.data();
  unsigned nn = n;
  uint32_t grid[3] = {n / 256, 1, 1}, block[3] = {256, 1, 1};
  runGrid(*prog, "directed", grid, block, {&pa, &pc, &pd, &po, &nn}, 0, 4);

  const int modes[3] = {FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
  const char *names[3] = {"rm", "rp", "rz"};
  const int saved = std::fegetround();
  int mismatches = 0;
  for (unsigned i = 0; i < n && mismatches < 10; ++i)
    for (int m = 0; m < 3; ++m) {
      std::fesetround(modes[m]);
      volatile float x = a[i], y = c[i], z = d[i];
      float want[3] = {std::fmaf(x, y, z), x + z, x * y};
      std::fesetround(saved);
      for (int op = 0; op < 3; ++op) {
        float got = out[9 * i + 3 * op + m];
        bool same = bitsOf(got) == bitsOf(want[op]) || (std::isnan(got) && std::isnan(want[op]));
        if (!same && ++mismatches <= 10)
          ADD_FAILURE() << (op == 0   ? "fma."
                            : op == 1 ? "add."
                                      : "mul.")
                        << names[m] << ".f32 of " << std::hexfloat << a[i] << ", " << c[i] << ", "
                        << d[i] << ": got " << got << ", want " << want[op];
      }
    }
  std::fesetround(saved);
}

} // namespace

// ex2.approx.f32 over its whole domain against 2^x in double: within PTX's 2 ulp (relative to
// the exact result's own ulp, subnormal results included); overflow to +inf from 128 on, 0 from
// below the subnormal range, NaN for NaN.
TEST(Approx, Ex2WithinTwoUlpOfExact) {
  auto prog = load(R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry ex2(.param .u64 pa, .param .u64 pout, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<4>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd0, [pa];
  ld.param.u64 %rd1, [pout];
  ld.param.u32 %r0, [n];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r1, %r1, %r2, %r3;
  setp.ge.u32 %p, %r1, %r0;
  @%p bra DONE;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd0, %rd2;
  add.s64 %rd4, %rd1, %rd2;
  ld.global.f32 %f0, [%rd3];
  ex2.approx.f32 %f1, %f0;
  st.global.f32 [%rd4], %f1;
DONE:
  ret;
}
)");
  ASSERT_TRUE(prog);
  const unsigned n = 1 << 16;
  std::vector<float> x(n), out(n);
  for (unsigned i = 0; i < n; ++i) // -160 .. 130 in even steps, then specials
    x[i] = -160.0f + 290.0f * float(i) / float(n - 8);
  const float specials[8] = {INFINITY, -INFINITY, NAN, 0.0f, -0.0f, 128.0f, 127.99999f, -149.0f};
  for (int k = 0; k < 8; ++k)
    x[n - 8 + k] = specials[k];
  const float *px = x.data();
  float *po = out.data();
  unsigned nn = n;
  uint32_t grid[3] = {n / 256, 1, 1}, block[3] = {256, 1, 1};
  runGrid(*prog, "ex2", grid, block, {&px, &po, &nn}, 0, 3);
  int bad = 0;
  for (unsigned i = 0; i < n && bad < 10; ++i) {
    const double want = std::exp2(double(x[i]));
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(out[i]));
      continue;
    }
    if (want >= 0x1p128 || want == 0.0) {
      if (out[i] != float(want) && ++bad)
        ADD_FAILURE() << "ex2(" << x[i] << ") = " << out[i] << ", want " << float(want);
      continue;
    }
    // one ulp of the exact result as a float (subnormal results: 2^-149)
    const double ulp = std::ldexp(1.0, std::max(std::ilogb(want), -126) - 23);
    if (std::fabs(double(out[i]) - want) > 2 * ulp && ++bad)
      ADD_FAILURE() << std::hexfloat << "ex2(" << x[i] << ") = " << out[i] << ", want " << want;
  }
}
