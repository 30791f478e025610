// Integer arithmetic: add/sub (.sat), mul/mad (.lo/.hi/.wide), div/rem, abs/neg, min/max.
// arch: compute_75
#include "conf.cuh"

OP2(add_s32, "add.s32", s32, s32, s32) //@ s32 s32.e s32.e
OP2(add_sat_s32, "add.sat.s32", s32, s32, s32) //@ s32 s32.e s32.e
OP2(sub_s32, "sub.s32", s32, s32, s32) //@ s32 s32.e s32.e
OP2(sub_sat_s32, "sub.sat.s32", s32, s32, s32) //@ s32 s32.e s32.e
OP2(add_u64, "add.u64", u64, u64, u64) //@ u64 u64.e u64.e
OP2(sub_s64, "sub.s64", s64, s64, s64) //@ s64 s64.e s64.e
OP2(add_s16, "add.s16", s16, s16, s16) //@ s16 s16.e s16.e
OP2(sub_u16, "sub.u16", u16, u16, u16) //@ u16 u16.e u16.e
K2(add_c, s32, s32, s32, d = a + b) //@ s32 s32.e s32.e

OP2(mul_lo_s32, "mul.lo.s32", s32, s32, s32) //@ s32 s32.e s32.e
OP2(mul_hi_s32, "mul.hi.s32", s32, s32, s32) //@ s32 s32.e s32.e
OP2(mul_hi_u32, "mul.hi.u32", u32, u32, u32) //@ u32 u32.e u32.e
OP2(mul_wide_s32, "mul.wide.s32", s64, s32, s32) //@ s64 s32.e s32.e
OP2(mul_wide_u32, "mul.wide.u32", u64, u32, u32) //@ u64 u32.e u32.e
OP2(mul_lo_u64, "mul.lo.u64", u64, u64, u64) //@ u64 u64.e u64.e
OP2(mul_hi_s64, "mul.hi.s64", s64, s64, s64) //@ s64 s64.e s64.e
OP2(mul_hi_u64, "mul.hi.u64", u64, u64, u64) //@ u64 u64.e u64.e
OP2(mul_lo_s16, "mul.lo.s16", s16, s16, s16) //@ s16 s16.e s16.e
OP2(mul_hi_s16, "mul.hi.s16", s16, s16, s16) //@ s16 s16.e s16.e
OP2(mul_hi_u16, "mul.hi.u16", u16, u16, u16) //@ u16 u16.e u16.e
OP2(mul_wide_s16, "mul.wide.s16", s32, s16, s16) //@ s32 s16.e s16.e
OP2(mul_wide_u16, "mul.wide.u16", u32, u16, u16) //@ u32 u16.e u16.e

OP3(mad_lo_s32, "mad.lo.s32", s32, s32, s32, s32) //@ s32 s32.s3 s32.s3 s32.s3
OP3(mad_hi_s32, "mad.hi.s32", s32, s32, s32, s32) //@ s32 s32.s3 s32.s3 s32.s3
OP3(mad_hi_u32, "mad.hi.u32", u32, u32, u32, u32) //@ u32 u32.s3 u32.s3 u32.s3
OP3(mad_hi_sat_s32, "mad.hi.sat.s32", s32, s32, s32, s32) //@ s32 s32.s3 s32.s3 s32.s3
OP3(mad_wide_s32, "mad.wide.s32", s64, s32, s32, s64) //@ s64 s32.s3 s32.s3 s64.s3
OP3(mad_wide_u32, "mad.wide.u32", u64, u32, u32, u64) //@ u64 u32.s3 u32.s3 u64.s3
OP3(mad_lo_u64, "mad.lo.u64", u64, u64, u64, u64) //@ u64 u64.s3 u64.s3 u64.s3
OP3(mad_hi_s64, "mad.hi.s64", s64, s64, s64, s64) //@ s64 s64.s3 s64.s3 s64.s3
OP3(mad_wide_s16, "mad.wide.s16", s32, s16, s16, s32) //@ s32 s16.e s16.e s32.dpc
OP3(mad_lo_u16, "mad.lo.u16", u16, u16, u16, u16) //@ u16 u16.e u16.e u16.e

OP2(div_s32, "div.s32", s32, s32, s32) //@ s32 s32.e s32.e
OP2(div_u32, "div.u32", u32, u32, u32) //@ u32 u32.e u32.e
OP2(rem_s32, "rem.s32", s32, s32, s32) //@ s32 s32.e s32.e
OP2(rem_u32, "rem.u32", u32, u32, u32) //@ u32 u32.e u32.e
OP2(div_s64, "div.s64", s64, s64, s64) //@ s64 s64.e s64.e
OP2(div_u64, "div.u64", u64, u64, u64) //@ u64 u64.e u64.e
OP2(rem_s64, "rem.s64", s64, s64, s64) //@ s64 s64.e s64.e
OP2(rem_u64, "rem.u64", u64, u64, u64) //@ u64 u64.e u64.e
OP2(div_s16, "div.s16", s16, s16, s16) //@ s16 s16.e s16.e
OP2(rem_u16, "rem.u16", u16, u16, u16) //@ u16 u16.e u16.e
K2(div_c, s32, s32, s32, d = b ? a / b : 0) //@ s32 s32.e s32.e
K2(rem_c, u64, u64, u64, d = b ? a % b : 1) //@ u64 u64.e u64.e

OP1(abs_s32, "abs.s32", s32, s32) //@ s32 s32.e
OP1(abs_s64, "abs.s64", s64, s64) //@ s64 s64.e
OP1(abs_s16, "abs.s16", s16, s16) //@ s16 s16.e
OP1(neg_s32, "neg.s32", s32, s32) //@ s32 s32.e
OP1(neg_s64, "neg.s64", s64, s64) //@ s64 s64.e
OP1(neg_s16, "neg.s16", s16, s16) //@ s16 s16.e

OP2(min_s32, "min.s32", s32, s32, s32) //@ s32 s32.e s32.e
OP2(max_s32, "max.s32", s32, s32, s32) //@ s32 s32.e s32.e
OP2(min_u32, "min.u32", u32, u32, u32) //@ u32 u32.e u32.e
OP2(max_u32, "max.u32", u32, u32, u32) //@ u32 u32.e u32.e
OP2(min_s64, "min.s64", s64, s64, s64) //@ s64 s64.e s64.e
OP2(max_u64, "max.u64", u64, u64, u64) //@ u64 u64.e u64.e
OP2(min_s16, "min.s16", s16, s16, s16) //@ s16 s16.e s16.e
OP2(max_u16, "max.u16", u16, u16, u16) //@ u16 u16.e u16.e

// Extended precision: 64-bit and 96-bit sums and differences from 32-bit carry chains.
K2(addc_64, u64, u64, u64, u32 lo, hi; asm("add.cc.u32 %0, %2, %4; addc.u32 %1, %3, %5;" : "=r"(lo), "=r"(hi) : "r"(u32(a)), "r"(u32(a >> 32)), "r"(u32(b)), "r"(u32(b >> 32))); d = u64(hi) << 32 | lo) //@ u64 u64.e u64.e
K2(subc_64, u64, u64, u64, u32 lo, hi; asm("sub.cc.u32 %0, %2, %4; subc.u32 %1, %3, %5;" : "=r"(lo), "=r"(hi) : "r"(u32(a)), "r"(u32(a >> 32)), "r"(u32(b)), "r"(u32(b >> 32))); d = u64(hi) << 32 | lo) //@ u64 u64.e u64.e
K2(addc_cc_96, u64, u64, u64, u32 x, y, z; asm("add.cc.u32 %0, %3, %5; addc.cc.u32 %1, %4, %6; addc.u32 %2, 0, 0;" : "=r"(x), "=r"(y), "=r"(z) : "r"(u32(a)), "r"(u32(a >> 32)), "r"(u32(b)), "r"(u32(b >> 32))); d = (u64(y) << 32 | x) ^ (u64(z) << 63)) //@ u64 u64.e u64.e
K2(subc_cc_96, u64, u64, u64, u32 x, y, z; asm("sub.cc.u32 %0, %3, %5; subc.cc.u32 %1, %4, %6; subc.u32 %2, 0, 0;" : "=r"(x), "=r"(y), "=r"(z) : "r"(u32(a)), "r"(u32(a >> 32)), "r"(u32(b)), "r"(u32(b >> 32))); d = (u64(y) << 32 | x) ^ (u64(z) << 40)) //@ u64 u64.e u64.e
K2(addc_u64_128, u64, u64, u64, u64 lo, hi; asm("add.cc.u64 %0, %2, %3; addc.u64 %1, 0, 0;" : "=l"(lo), "=l"(hi) : "l"(a), "l"(b)); d = lo ^ (hi << 63)) //@ u64 u64.e u64.e
K2(subc_s32_cc, u64, s32, s32, u32 x, y; asm("sub.cc.s32 %0, %2, %3; subc.cc.s32 %1, 5, 7;" : "=r"(x), "=r"(y) : "r"(a), "r"(b)); d = u64(y) << 32 | x) //@ u64 s32.e s32.e
// 64x64 -> 128-bit product with mad.lo.cc / madc.hi chains on 32-bit limbs (high 64 bits out).
K2(madc_mul128, u64, u64, u64, u32 a0 = u32(a), a1 = u32(a >> 32), b0 = u32(b), b1 = u32(b >> 32); u32 r1, r2, r3; asm("{ .reg .u32 %%t<3>; mul.lo.u32 %%t0, %3, %5; mul.hi.u32 %%t1, %3, %5; mad.lo.cc.u32 %%t1, %3, %6, %%t1; madc.hi.u32 %%t2, %3, %6, 0; mad.lo.cc.u32 %%t1, %4, %5, %%t1; madc.hi.cc.u32 %%t2, %4, %5, %%t2; madc.hi.u32 %2, %4, %6, 0; mad.lo.cc.u32 %1, %4, %6, %%t2; addc.u32 %2, %2, 0; mov.u32 %0, %%t1; }" : "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a0), "r"(a1), "r"(b0), "r"(b1)); d = u64(r3) << 32 | r2; d ^= r1) //@ u64 u64.e u64.e
K2(madc_lo_cc, u64, u32, u32, u32 x, y; asm("mad.lo.cc.u32 %0, %2, %3, %3; madc.lo.cc.u32 %1, %3, %2, %2;" : "=r"(x), "=r"(y) : "r"(a), "r"(b)); d = u64(y) << 32 | x) //@ u64 u32.e u32.e
K2(mad_cc_u64, u64, u64, u64, u64 x, y; asm("mad.lo.cc.u64 %0, %2, %3, %2; madc.hi.u64 %1, %2, %3, 0;" : "=l"(x), "=l"(y) : "l"(a), "l"(b)); d = x ^ y) //@ u64 u64.e u64.e

// Legacy 24-bit multiplies and sum of absolute differences.
OP2(mul24_lo_s32, "mul24.lo.s32", s32, s32, s32) //@ s32 s32.e s32.e
OP2(mul24_hi_u32, "mul24.hi.u32", u32, u32, u32) //@ u32 u32.e u32.e
OP3(mad24_lo_u32, "mad24.lo.u32", u32, u32, u32, u32) //@ u32 u32.s3 u32.s3 u32.s3
OP3(sad_u32, "sad.u32", u32, u32, u32, u32) //@ u32 u32.s3 u32.s3 u32.s3
OP3(sad_s32, "sad.s32", s32, s32, s32, s32) //@ s32 s32.s3 s32.s3 s32.s3
K2(mul24_c, s32, s32, s32, d = __mul24(a, b)) //@ s32 s32.e s32.e
K2(mulhi_c, s32, s32, s32, d = __mulhi(a, b) + __umulhi(a, b)) //@ s32 s32.e s32.e
K2(sad_c, u32, u32, u32, d = __usad(a, b, 3)) //@ u32 u32.e u32.e
