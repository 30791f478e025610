// Comparison and selection: setp with every comparison (ordered and unordered) and boolean
// combination, selp, slct, set.
// arch: compute_75
#include "conf.cuh"

PRED2(setp_eq_f32, "setp.eq.f32", f32, f32) //@ u32 f32.a f32.a
PRED2(setp_eq_f64, "setp.eq.f64", f64, f64) //@ u32 f64.a f64.a
PRED2(setp_ne_f32, "setp.ne.f32", f32, f32) //@ u32 f32.a f32.a
PRED2(setp_ne_f64, "setp.ne.f64", f64, f64) //@ u32 f64.a f64.a
PRED2(setp_lt_f32, "setp.lt.f32", f32, f32) //@ u32 f32.a f32.a
PRED2(setp_lt_f64, "setp.lt.f64", f64, f64) //@ u32 f64.a f64.a
PRED2(setp_le_f32, "setp.le.f32", f32, f32) //@ u32 f32.a f32.a
PRED2(setp_le_f64, "setp.le.f64", f64, f64) //@ u32 f64.a f64.a
PRED2(setp_gt_f32, "setp.gt.f32", f32, f32) //@ u32 f32.a f32.a
PRED2(setp_gt_f64, "setp.gt.f64", f64, f64) //@ u32 f64.a f64.a
PRED2(setp_ge_f32, "setp.ge.f32", f32, f32) //@ u32 f32.a f32.a
PRED2(setp_ge_f64, "setp.ge.f64", f64, f64) //@ u32 f64.a f64.a
PRED2(setp_equ_f32, "setp.equ.f32", f32, f32) //@ u32 f32.a f32.a
PRED2(setp_equ_f64, "setp.equ.f64", f64, f64) //@ u32 f64.a f64.a
PRED2(setp_neu_f32, "setp.neu.f32", f32, f32) //@ u32 f32.a f32.a
PRED2(setp_neu_f64, "setp.neu.f64", f64, f64) //@ u32 f64.a f64.a
PRED2(setp_ltu_f32, "setp.ltu.f32", f32, f32) //@ u32 f32.a f32.a
PRED2(setp_ltu_f64, "setp.ltu.f64", f64, f64) //@ u32 f64.a f64.a
PRED2(setp_leu_f32, "setp.leu.f32", f32, f32) //@ u32 f32.a f32.a
PRED2(setp_leu_f64, "setp.leu.f64", f64, f64) //@ u32 f64.a f64.a
PRED2(setp_gtu_f32, "setp.gtu.f32", f32, f32) //@ u32 f32.a f32.a
PRED2(setp_gtu_f64, "setp.gtu.f64", f64, f64) //@ u32 f64.a f64.a
PRED2(setp_geu_f32, "setp.geu.f32", f32, f32) //@ u32 f32.a f32.a
PRED2(setp_geu_f64, "setp.geu.f64", f64, f64) //@ u32 f64.a f64.a
PRED2(setp_num_f32, "setp.num.f32", f32, f32) //@ u32 f32.a f32.a
PRED2(setp_num_f64, "setp.num.f64", f64, f64) //@ u32 f64.a f64.a
PRED2(setp_nan_f32, "setp.nan.f32", f32, f32) //@ u32 f32.a f32.a
PRED2(setp_nan_f64, "setp.nan.f64", f64, f64) //@ u32 f64.a f64.a
PRED2(setp_lt_ftz_f32, "setp.lt.ftz.f32", f32, f32) //@ u32 f32.a f32.a
PRED2(setp_geu_ftz_f32, "setp.geu.ftz.f32", f32, f32) //@ u32 f32.a f32.a
PRED2(setp_eq_s32, "setp.eq.s32", s32, s32) //@ u32 s32.e s32.e
PRED2(setp_ne_s32, "setp.ne.s32", s32, s32) //@ u32 s32.e s32.e
PRED2(setp_lt_s32, "setp.lt.s32", s32, s32) //@ u32 s32.e s32.e
PRED2(setp_le_s32, "setp.le.s32", s32, s32) //@ u32 s32.e s32.e
PRED2(setp_gt_s32, "setp.gt.s32", s32, s32) //@ u32 s32.e s32.e
PRED2(setp_ge_s32, "setp.ge.s32", s32, s32) //@ u32 s32.e s32.e
PRED2(setp_lo_u32, "setp.lo.u32", u32, u32) //@ u32 u32.e u32.e
PRED2(setp_ls_u32, "setp.ls.u32", u32, u32) //@ u32 u32.e u32.e
PRED2(setp_hi_u32, "setp.hi.u32", u32, u32) //@ u32 u32.e u32.e
PRED2(setp_hs_u32, "setp.hs.u32", u32, u32) //@ u32 u32.e u32.e
PRED2(setp_lt_u32, "setp.lt.u32", u32, u32) //@ u32 u32.e u32.e
PRED2(setp_ge_u32, "setp.ge.u32", u32, u32) //@ u32 u32.e u32.e
PRED2(setp_lt_s64, "setp.lt.s64", s64, s64) //@ u32 s64.e s64.e
PRED2(setp_ge_s64, "setp.ge.s64", s64, s64) //@ u32 s64.e s64.e
PRED2(setp_lo_u64, "setp.lo.u64", u64, u64) //@ u32 u64.e u64.e
PRED2(setp_hs_u64, "setp.hs.u64", u64, u64) //@ u32 u64.e u64.e
PRED2(setp_eq_u64, "setp.eq.u64", u64, u64) //@ u32 u64.e u64.e
PRED2(setp_lt_s16, "setp.lt.s16", s16, s16) //@ u32 s16.e s16.e
PRED2(setp_hi_u16, "setp.hi.u16", u16, u16) //@ u32 u16.e u16.e
PRED2(setp_eq_b32, "setp.eq.b32", u32, u32) //@ u32 u32.e u32.e
PRED2(setp_ne_b64, "setp.ne.b64", u64, u64) //@ u32 u64.e u64.e
PRED2(setp_ne_b16, "setp.ne.b16", u16, u16) //@ u32 u16.e u16.e
K3(setp_lt_and_f32, u32, f32, f32, u32, asm("{ .reg .pred %%c, %%p, %%q; setp.ne.u32 %%c, %3, 0; setp.lt.and.f32 %%p|%%q, %1, %2, !%%c; selp.u32 %0, 1, 0, %%p; @%%q add.u32 %0, %0, 2; }" : "=r"(d) : "f"(a), "f"(b), "r"(c))) //@ u32 f32.a f32.a u32.ones
K3(setp_lt_and_s32, u32, s32, s32, u32, asm("{ .reg .pred %%c, %%p, %%q; setp.ne.u32 %%c, %3, 0; setp.lt.and.s32 %%p|%%q, %1, %2, !%%c; selp.u32 %0, 1, 0, %%p; @%%q add.u32 %0, %0, 2; }" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 s32.e s32.e u32.ones
K3(setp_lt_or_f32, u32, f32, f32, u32, asm("{ .reg .pred %%c, %%p, %%q; setp.ne.u32 %%c, %3, 0; setp.lt.or.f32 %%p|%%q, %1, %2, !%%c; selp.u32 %0, 1, 0, %%p; @%%q add.u32 %0, %0, 2; }" : "=r"(d) : "f"(a), "f"(b), "r"(c))) //@ u32 f32.a f32.a u32.ones
K3(setp_lt_or_s32, u32, s32, s32, u32, asm("{ .reg .pred %%c, %%p, %%q; setp.ne.u32 %%c, %3, 0; setp.lt.or.s32 %%p|%%q, %1, %2, !%%c; selp.u32 %0, 1, 0, %%p; @%%q add.u32 %0, %0, 2; }" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 s32.e s32.e u32.ones
K3(setp_lt_xor_f32, u32, f32, f32, u32, asm("{ .reg .pred %%c, %%p, %%q; setp.ne.u32 %%c, %3, 0; setp.lt.xor.f32 %%p|%%q, %1, %2, !%%c; selp.u32 %0, 1, 0, %%p; @%%q add.u32 %0, %0, 2; }" : "=r"(d) : "f"(a), "f"(b), "r"(c))) //@ u32 f32.a f32.a u32.ones
K3(setp_lt_xor_s32, u32, s32, s32, u32, asm("{ .reg .pred %%c, %%p, %%q; setp.ne.u32 %%c, %3, 0; setp.lt.xor.s32 %%p|%%q, %1, %2, !%%c; selp.u32 %0, 1, 0, %%p; @%%q add.u32 %0, %0, 2; }" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 s32.e s32.e u32.ones
K3(setp_nan_or_f64, u32, f64, f64, u32, asm("{ .reg .pred %%c, %%p, %%q; setp.ne.u32 %%c, %3, 0; setp.nan.or.f64 %%p|%%q, %1, %2, %%c; selp.u32 %0, 1, 0, %%p; @%%q add.u32 %0, %0, 2; }" : "=r"(d) : "d"(a), "d"(b), "r"(c))) //@ u32 f64.e f64.e u32.s3
K3(selp_b32, u32, u32, u32, u32, asm("{ .reg .pred %%p; setp.ne.u32 %%p, %3, 0; selp.b32 %0, %1, %2, %%p; }" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.e u32.e u32.s3
K3(selp_f32, f32, f32, f32, u32, asm("{ .reg .pred %%p; setp.ne.u32 %%p, %3, 0; selp.f32 %0, %1, %2, %%p; }" : "=f"(d) : "f"(a), "f"(b), "r"(c))) //@ f32 f32.a f32.a u32.s3
K3(selp_b64, u64, u64, u64, u32, asm("{ .reg .pred %%p; setp.ne.u32 %%p, %3, 0; selp.b64 %0, %1, %2, %%p; }" : "=l"(d) : "l"(a), "l"(b), "r"(c))) //@ u64 u64.e u64.e u32.s3
K3(selp_f64, f64, f64, f64, u32, asm("{ .reg .pred %%p; setp.ne.u32 %%p, %3, 0; selp.f64 %0, %1, %2, %%p; }" : "=d"(d) : "d"(a), "d"(b), "r"(c))) //@ f64 f64.a f64.a u32.s3
K3(selp_u16, u16, u16, u16, u32, asm("{ .reg .pred %%p; setp.ne.u32 %%p, %3, 0; selp.u16 %0, %1, %2, %%p; }" : "=h"(d) : "h"(a), "h"(b), "r"(c))) //@ u16 u16.e u16.e u32.s3
K3(slct_s32_s32, s32, s32, s32, s32, asm("slct.s32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ s32 u32.s3 u32.q s32.e
K3(slct_f32_s32, f32, f32, f32, s32, asm("slct.f32.s32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "r"(c))) //@ f32 f32.s f32.s s32.e
K3(slct_u32_f32, u32, u32, u32, f32, asm("slct.u32.f32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "f"(c))) //@ u32 u32.s3 u32.q f32.a
K3(slct_b64_f32, u64, u64, u64, f32, asm("slct.b64.f32 %0, %1, %2, %3;" : "=l"(d) : "l"(a), "l"(b), "f"(c))) //@ u64 u64.s3 u64.s3 f32.e
K3(slct_f64_s32, f64, f64, f64, s32, asm("slct.f64.s32 %0, %1, %2, %3;" : "=d"(d) : "d"(a), "d"(b), "r"(c))) //@ f64 f64.s f64.s s32.s3
K3(slct_s32_f32, s32, s32, s32, f32, asm("slct.s32.f32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "f"(c))) //@ s32 u32.s3 u32.q f32.a
K3(slct_ftz_f32_f32, f32, f32, f32, f32, asm("slct.ftz.f32.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c))) //@ f32 f32.s f32.s f32.e
K2(set_lt_u32_f32, u32, f32, f32, asm("set.lt.u32.f32 %0, %1, %2;" : "=r"(d) : "f"(a), "f"(b))) //@ u32 f32.a f32.a
K2(set_ltu_f32_f32, f32, f32, f32, asm("set.ltu.f32.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b))) //@ f32 f32.a f32.a
K2(set_eq_s32_s32, s32, s32, s32, asm("set.eq.s32.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ s32 s32.e s32.e
K2(set_gt_u32_u32, u32, u32, u32, asm("set.gt.u32.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ u32 u32.e u32.e
K2(set_nan_u32_f64, u32, f64, f64, asm("set.nan.u32.f64 %0, %1, %2;" : "=r"(d) : "d"(a), "d"(b))) //@ u32 f64.a f64.a
K2(set_ge_f32_s32, f32, s32, s32, asm("set.ge.f32.s32 %0, %1, %2;" : "=f"(d) : "r"(a), "r"(b))) //@ f32 s32.e s32.e
K2(set_ne_s32_u64, s32, u64, u64, asm("set.ne.s32.u64 %0, %1, %2;" : "=r"(d) : "l"(a), "l"(b))) //@ s32 u64.e u64.e
K2(set_leu_f32_f64, f32, f64, f64, asm("set.leu.f32.f64 %0, %1, %2;" : "=f"(d) : "d"(a), "d"(b))) //@ f32 f64.a f64.a
K3(set_lt_and_u32_f32, u32, f32, f32, u32, asm("{ .reg .pred %%c; setp.ne.u32 %%c, %3, 0; set.lt.and.u32.f32 %0, %1, %2, %%c; }" : "=r"(d) : "f"(a), "f"(b), "r"(c))) //@ u32 f32.e f32.e u32.s3
K3(set_gt_or_ftz_f32_f32, f32, f32, f32, u32, asm("{ .reg .pred %%c; setp.ne.u32 %%c, %3, 0; set.gt.or.ftz.f32.f32 %0, %1, %2, !%%c; }" : "=f"(d) : "f"(a), "f"(b), "r"(c))) //@ f32 f32.e f32.e u32.s3
K2(cmp_c, s32, f32, f32, d = (a < b) + 2 * (a == b) + 4 * !(a >= b)) //@ s32 f32.a f32.a
K3(sel_c, s64, s64, s64, s32, d = c > 5 ? a : b) //@ s64 s64.s3 s64.s3 s32.s3
K2(ucmp_c, s32, u64, u64, d = (a < b) - (a > b)) //@ s32 u64.e u64.e
