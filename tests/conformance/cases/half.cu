// Half precision: f16, f16x2, bf16, bf16x2 arithmetic, fma, min/max, ex2/tanh, setp, cvt;
// plus the sm_80/sm_86/sm_90 integer and f32 forms (relu, NaN, xorsign, 16x2 SIMD).
// arch: compute_90
#include "conf.cuh"
#include <cuda_fp16.h>
#include <cuda_bf16.h>

K2(add_f16, u16, u16, u16, asm("add.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(add_rn_f16, u16, u16, u16, asm("add.rn.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(add_ftz_f16, u16, u16, u16, asm("add.ftz.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(add_sat_f16, u16, u16, u16, asm("add.sat.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(add_rn_ftz_sat_f16, u16, u16, u16, asm("add.rn.ftz.sat.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(add_f16x2, u32, u32, u32, asm("add.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ f16x2 f16x2.e f16x2.e
K2(add_rn_f16x2, u32, u32, u32, asm("add.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ f16x2 f16x2.e f16x2.e
K2(add_ftz_sat_f16x2, u32, u32, u32, asm("add.ftz.sat.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ f16x2 f16x2.e f16x2.e
K2(add_bf16, u16, u16, u16, asm("add.bf16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ bf16 bf16.e bf16.e
K2(add_bf16x2, u32, u32, u32, asm("add.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ bf16x2 bf16x2.e bf16x2.e
K2(add_rn_bf16, u16, u16, u16, asm("add.rn.bf16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ bf16 bf16.e bf16.e
K2(add_rn_bf16x2, u32, u32, u32, asm("add.rn.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ bf16x2 bf16x2.e bf16x2.e
K2(sub_f16, u16, u16, u16, asm("sub.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(sub_rn_f16, u16, u16, u16, asm("sub.rn.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(sub_ftz_f16, u16, u16, u16, asm("sub.ftz.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(sub_sat_f16, u16, u16, u16, asm("sub.sat.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(sub_rn_ftz_sat_f16, u16, u16, u16, asm("sub.rn.ftz.sat.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(sub_f16x2, u32, u32, u32, asm("sub.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ f16x2 f16x2.e f16x2.e
K2(sub_rn_f16x2, u32, u32, u32, asm("sub.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ f16x2 f16x2.e f16x2.e
K2(sub_ftz_sat_f16x2, u32, u32, u32, asm("sub.ftz.sat.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ f16x2 f16x2.e f16x2.e
K2(sub_bf16, u16, u16, u16, asm("sub.bf16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ bf16 bf16.e bf16.e
K2(sub_bf16x2, u32, u32, u32, asm("sub.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ bf16x2 bf16x2.e bf16x2.e
K2(sub_rn_bf16, u16, u16, u16, asm("sub.rn.bf16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ bf16 bf16.e bf16.e
K2(sub_rn_bf16x2, u32, u32, u32, asm("sub.rn.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ bf16x2 bf16x2.e bf16x2.e
K2(mul_f16, u16, u16, u16, asm("mul.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(mul_rn_f16, u16, u16, u16, asm("mul.rn.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(mul_ftz_f16, u16, u16, u16, asm("mul.ftz.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(mul_sat_f16, u16, u16, u16, asm("mul.sat.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(mul_rn_ftz_sat_f16, u16, u16, u16, asm("mul.rn.ftz.sat.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(mul_f16x2, u32, u32, u32, asm("mul.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ f16x2 f16x2.e f16x2.e
K2(mul_rn_f16x2, u32, u32, u32, asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ f16x2 f16x2.e f16x2.e
K2(mul_ftz_sat_f16x2, u32, u32, u32, asm("mul.ftz.sat.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ f16x2 f16x2.e f16x2.e
K2(mul_bf16, u16, u16, u16, asm("mul.bf16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ bf16 bf16.e bf16.e
K2(mul_bf16x2, u32, u32, u32, asm("mul.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ bf16x2 bf16x2.e bf16x2.e
K2(mul_rn_bf16, u16, u16, u16, asm("mul.rn.bf16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ bf16 bf16.e bf16.e
K2(mul_rn_bf16x2, u32, u32, u32, asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ bf16x2 bf16x2.e bf16x2.e
K3(fma_rn_f16, u16, u16, u16, u16, asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(d) : "h"(a), "h"(b), "h"(c))) //@ f16 f16.s f16.s f16.s
K3(fma_rn_ftz_f16, u16, u16, u16, u16, asm("fma.rn.ftz.f16 %0, %1, %2, %3;" : "=h"(d) : "h"(a), "h"(b), "h"(c))) //@ f16 f16.s f16.s f16.s
K3(fma_rn_sat_f16, u16, u16, u16, u16, asm("fma.rn.sat.f16 %0, %1, %2, %3;" : "=h"(d) : "h"(a), "h"(b), "h"(c))) //@ f16 f16.s f16.s f16.s
K3(fma_rn_relu_f16, u16, u16, u16, u16, asm("fma.rn.relu.f16 %0, %1, %2, %3;" : "=h"(d) : "h"(a), "h"(b), "h"(c))) //@ f16 f16.s f16.s f16.s
K3(fma_rn_ftz_relu_f16, u16, u16, u16, u16, asm("fma.rn.ftz.relu.f16 %0, %1, %2, %3;" : "=h"(d) : "h"(a), "h"(b), "h"(c))) //@ f16 f16.s f16.s f16.s
K3(fma_rn_f16x2, u32, u32, u32, u32, asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ f16x2 f16x2.s f16x2.s f16x2.s
K3(fma_rn_sat_f16x2, u32, u32, u32, u32, asm("fma.rn.sat.f16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ f16x2 f16x2.s f16x2.s f16x2.s
K3(fma_rn_relu_f16x2, u32, u32, u32, u32, asm("fma.rn.relu.f16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ f16x2 f16x2.s f16x2.s f16x2.s
K3(fma_rn_bf16, u16, u16, u16, u16, asm("fma.rn.bf16 %0, %1, %2, %3;" : "=h"(d) : "h"(a), "h"(b), "h"(c))) //@ bf16 bf16.s bf16.s bf16.s
K3(fma_rn_bf16x2, u32, u32, u32, u32, asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ bf16x2 bf16x2.s bf16x2.s bf16x2.s
K3(fma_rn_relu_bf16, u16, u16, u16, u16, asm("fma.rn.relu.bf16 %0, %1, %2, %3;" : "=h"(d) : "h"(a), "h"(b), "h"(c))) //@ bf16 bf16.s bf16.s bf16.s
K3(fma_rn_relu_bf16x2, u32, u32, u32, u32, asm("fma.rn.relu.bf16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ bf16x2 bf16x2.s bf16x2.s bf16x2.s
K1(neg_f16, u16, u16, asm("neg.f16 %0, %1;" : "=h"(d) : "h"(a))) //@ f16 f16.e
K1(neg_ftz_f16, u16, u16, asm("neg.ftz.f16 %0, %1;" : "=h"(d) : "h"(a))) //@ f16 f16.e
K1(neg_f16x2, u32, u32, asm("neg.f16x2 %0, %1;" : "=r"(d) : "r"(a))) //@ f16x2 f16x2.e
K1(neg_bf16, u16, u16, asm("neg.bf16 %0, %1;" : "=h"(d) : "h"(a))) //@ bf16 bf16.e
K1(neg_bf16x2, u32, u32, asm("neg.bf16x2 %0, %1;" : "=r"(d) : "r"(a))) //@ bf16x2 bf16x2.e
K1(abs_f16, u16, u16, asm("abs.f16 %0, %1;" : "=h"(d) : "h"(a))) //@ f16 f16.e
K1(abs_ftz_f16, u16, u16, asm("abs.ftz.f16 %0, %1;" : "=h"(d) : "h"(a))) //@ f16 f16.e
K1(abs_f16x2, u32, u32, asm("abs.f16x2 %0, %1;" : "=r"(d) : "r"(a))) //@ f16x2 f16x2.e
K1(abs_bf16, u16, u16, asm("abs.bf16 %0, %1;" : "=h"(d) : "h"(a))) //@ bf16 bf16.e
K1(abs_bf16x2, u32, u32, asm("abs.bf16x2 %0, %1;" : "=r"(d) : "r"(a))) //@ bf16x2 bf16x2.e
K2(min_f16, u16, u16, u16, asm("min.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(min_ftz_f16, u16, u16, u16, asm("min.ftz.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(min_NaN_f16, u16, u16, u16, asm("min.NaN.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(min_f16x2, u32, u32, u32, asm("min.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ f16x2 f16x2.e f16x2.e
K2(min_NaN_f16x2, u32, u32, u32, asm("min.NaN.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ f16x2 f16x2.e f16x2.e
K2(min_bf16, u16, u16, u16, asm("min.bf16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ bf16 bf16.e bf16.e
K2(min_NaN_bf16, u16, u16, u16, asm("min.NaN.bf16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ bf16 bf16.e bf16.e
K2(min_bf16x2, u32, u32, u32, asm("min.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ bf16x2 bf16x2.e bf16x2.e
K2(min_xorsign_abs_f16, u16, u16, u16, asm("min.xorsign.abs.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(min_xorsign_abs_bf16x2, u32, u32, u32, asm("min.xorsign.abs.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ bf16x2 bf16x2.e bf16x2.e
K2(max_f16, u16, u16, u16, asm("max.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(max_ftz_f16, u16, u16, u16, asm("max.ftz.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(max_NaN_f16, u16, u16, u16, asm("max.NaN.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(max_f16x2, u32, u32, u32, asm("max.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ f16x2 f16x2.e f16x2.e
K2(max_NaN_f16x2, u32, u32, u32, asm("max.NaN.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ f16x2 f16x2.e f16x2.e
K2(max_bf16, u16, u16, u16, asm("max.bf16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ bf16 bf16.e bf16.e
K2(max_NaN_bf16, u16, u16, u16, asm("max.NaN.bf16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ bf16 bf16.e bf16.e
K2(max_bf16x2, u32, u32, u32, asm("max.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ bf16x2 bf16x2.e bf16x2.e
K2(max_xorsign_abs_f16, u16, u16, u16, asm("max.xorsign.abs.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(max_xorsign_abs_bf16x2, u32, u32, u32, asm("max.xorsign.abs.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ bf16x2 bf16x2.e bf16x2.e
K1(ex2_approx_f16, u16, u16, asm("ex2.approx.f16 %0, %1;" : "=h"(d) : "h"(a))) //@ f16 f16.x tol=ulp=2,rel=2e-3
K1(ex2_approx_f16x2, u32, u32, asm("ex2.approx.f16x2 %0, %1;" : "=r"(d) : "r"(a))) //@ f16x2 f16x2.s tol=ulp=2,rel=2e-3
K1(ex2_approx_ftz_bf16, u16, u16, asm("ex2.approx.ftz.bf16 %0, %1;" : "=h"(d) : "h"(a))) //@ bf16 bf16.x tol=ulp=2
K1(ex2_approx_ftz_bf16x2, u32, u32, asm("ex2.approx.ftz.bf16x2 %0, %1;" : "=r"(d) : "r"(a))) //@ bf16x2 bf16x2.s tol=ulp=2
K1(tanh_approx_f16, u16, u16, asm("tanh.approx.f16 %0, %1;" : "=h"(d) : "h"(a))) //@ f16 f16.x tol=ulp=2,abs=1e-3
K1(tanh_approx_f16x2, u32, u32, asm("tanh.approx.f16x2 %0, %1;" : "=r"(d) : "r"(a))) //@ f16x2 f16x2.s tol=ulp=2,abs=1e-3
K1(tanh_approx_bf16, u16, u16, asm("tanh.approx.bf16 %0, %1;" : "=h"(d) : "h"(a))) //@ bf16 bf16.x tol=ulp=2,abs=8e-3
K1(tanh_approx_bf16x2, u32, u32, asm("tanh.approx.bf16x2 %0, %1;" : "=r"(d) : "r"(a))) //@ bf16x2 bf16x2.s tol=ulp=2,abs=8e-3
PRED2(setp_lt_f16, "setp.lt.f16", u16, u16) //@ u32 f16.e f16.e
PRED2(setp_equ_f16, "setp.equ.f16", u16, u16) //@ u32 f16.e f16.e
PRED2(setp_nan_f16, "setp.nan.f16", u16, u16) //@ u32 f16.e f16.e
PRED2(setp_ge_f16, "setp.ge.f16", u16, u16) //@ u32 f16.e f16.e
PRED2(setp_lt_bf16, "setp.lt.bf16", u16, u16) //@ u32 bf16.e bf16.e
PRED2(setp_neu_bf16, "setp.neu.bf16", u16, u16) //@ u32 bf16.e bf16.e
K2(setp_gtu_f16x2, u32, u32, u32, asm("{ .reg .pred %%p, %%q; setp.gtu.f16x2 %%p|%%q, %1, %2; selp.u32 %0, 1, 0, %%p; @%%q add.u32 %0, %0, 2; }" : "=r"(d) : "r"(a), "r"(b))) //@ u32 f16x2.e f16x2.e
K2(setp_gtu_bf16x2, u32, u32, u32, asm("{ .reg .pred %%p, %%q; setp.gtu.bf16x2 %%p|%%q, %1, %2; selp.u32 %0, 1, 0, %%p; @%%q add.u32 %0, %0, 2; }" : "=r"(d) : "r"(a), "r"(b))) //@ u32 bf16x2.e bf16x2.e
K2(setp_ftz_le_f16, u32, u16, u16, asm("{ .reg .pred %%p; setp.le.ftz.f16 %%p, %1, %2; selp.u32 %0, 1, 0, %%p; }" : "=r"(d) : "h"(a), "h"(b))) //@ u32 f16.e f16.e
K3(setp_lt_and_f16x2, u32, u32, u32, u32, asm("{ .reg .pred %%c, %%p, %%q; setp.ne.u32 %%c, %3, 0; setp.lt.and.f16x2 %%p|%%q, %1, %2, %%c; selp.u32 %0, 1, 0, %%p; @%%q add.u32 %0, %0, 2; }" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 f16x2.e f16x2.e u32.s3
K2(set_lt_f16_f16, u16, u16, u16, asm("set.lt.f16.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ f16 f16.e f16.e
K2(set_geu_ftz_u32_f16, u32, u16, u16, asm("set.geu.ftz.u32.f16 %0, %1, %2;" : "=r"(d) : "h"(a), "h"(b))) //@ u32 f16.e f16.e
K2(set_gtu_f16x2_f16x2, u32, u32, u32, asm("set.gtu.f16x2.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ f16x2 f16x2.e f16x2.e
K2(set_le_u32_bf16x2, u32, u32, u32, asm("set.le.u32.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ u32 bf16x2.e bf16x2.e
K2(set_ne_bf16_bf16, u16, u16, u16, asm("set.ne.bf16.bf16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b))) //@ bf16 bf16.e bf16.e
K1(cvt_rn_bf16_f32, u16, f32, asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(d) : "f"(a))) //@ bf16 f32.bh
K1(cvt_rz_bf16_f32, u16, f32, asm("cvt.rz.bf16.f32 %0, %1;" : "=h"(d) : "f"(a))) //@ bf16 f32.bh
K1(cvt_rm_bf16_f32, u16, f32, asm("cvt.rm.bf16.f32 %0, %1;" : "=h"(d) : "f"(a))) //@ bf16 f32.bh
K1(cvt_rp_bf16_f32, u16, f32, asm("cvt.rp.bf16.f32 %0, %1;" : "=h"(d) : "f"(a))) //@ bf16 f32.bh
K1(cvt_rn_relu_bf16_f32, u16, f32, asm("cvt.rn.relu.bf16.f32 %0, %1;" : "=h"(d) : "f"(a))) //@ bf16 f32.bh
K1(cvt_rn_relu_f16_f32, u16, f32, asm("cvt.rn.relu.f16.f32 %0, %1;" : "=h"(d) : "f"(a))) //@ f16 f32.h
K1(cvt_f32_bf16, f32, u16, asm("cvt.f32.bf16 %0, %1;" : "=f"(d) : "h"(a))) //@ f32 bf16.e
K1(cvt_rni_s32_bf16, s32, u16, asm("cvt.rni.s32.bf16 %0, %1;" : "=r"(d) : "h"(a))) //@ s32 bf16.e
K1(cvt_rn_bf16_s32, u16, s32, asm("cvt.rn.bf16.s32 %0, %1;" : "=h"(d) : "r"(a))) //@ bf16 s32.e
K2(cvt_rn_f16x2_f32, u32, f32, f32, asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(a), "f"(b))) //@ f16x2 f32.h f32.h
K2(cvt_rn_relu_f16x2_f32, u32, f32, f32, asm("cvt.rn.relu.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(a), "f"(b))) //@ f16x2 f32.h f32.h
K2(cvt_rn_bf16x2_f32, u32, f32, f32, asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(a), "f"(b))) //@ bf16x2 f32.bh f32.bh
K1(cvt_rna_tf32_f32, u32, f32, asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(d) : "f"(a))) //@ u32 f32.bh
K1(cvt_rn_satfinite_f16_f32, u16, f32, asm("cvt.rn.satfinite.f16.f32 %0, %1;" : "=h"(d) : "f"(a))) //@ f16 f32.h
K2(min_NaN_f32, f32, f32, f32, asm("min.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b))) //@ f32 f32.a f32.a
K2(min_xorsign_abs_f32, f32, f32, f32, asm("min.xorsign.abs.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b))) //@ f32 f32.e f32.e
K2(min_relu_s32, s32, s32, s32, asm("min.relu.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ s32 s32.e s32.e
K2(max_NaN_f32, f32, f32, f32, asm("max.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b))) //@ f32 f32.a f32.a
K2(max_xorsign_abs_f32, f32, f32, f32, asm("max.xorsign.abs.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b))) //@ f32 f32.e f32.e
K2(max_relu_s32, s32, s32, s32, asm("max.relu.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ s32 s32.e s32.e
K2(min_s16x2, u32, u32, u32, asm("min.s16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ u32 u32.r u32.e
K2(max_u16x2, u32, u32, u32, asm("max.u16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ u32 u32.r u32.e
K2(max_relu_s16x2, u32, u32, u32, asm("max.relu.s16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ u32 u32.r u32.e
K2(add_u16x2, u32, u32, u32, asm("add.u16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ u32 u32.r u32.e
K2(min_u16x2, u32, u32, u32, asm("min.u16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ u32 u32.r u32.e
K2(hadd_c, u16, u16, u16, d = __half_as_ushort(__hadd(__ushort_as_half(a), __ushort_as_half(b)))) //@ f16 f16.e f16.e
K2(hmul2_c, u32, u32, u32, __half2 x = *(const __half2 *)&a; __half2 y = *(const __half2 *)&b; __half2 z = __hmul2(x, y); d = *(u32 *)&z) //@ f16x2 f16x2.e f16x2.e
K3(hfma_bf16_c, u16, u16, u16, u16, d = __bfloat16_as_ushort(__hfma(__ushort_as_bfloat16(a), __ushort_as_bfloat16(b), __ushort_as_bfloat16(c)))) //@ bf16 bf16.s bf16.s bf16.s
K1(half2float_c, f32, u16, d = __half2float(__ushort_as_half(a))) //@ f32 f16.e
K1(float2half_c, u16, f32, d = __half_as_ushort(__float2half_rn(a))) //@ f16 f32.h
K1(float2bf16_c, u16, f32, d = __bfloat16_as_ushort(__float2bfloat16(a))) //@ bf16 f32.bh
K2(hlt_c, s32, u16, u16, d = __hlt(__ushort_as_half(a), __ushort_as_half(b))) //@ s32 f16.e f16.e
