// f32/f64 arithmetic: every rounding mode, .ftz, .sat, div/rcp/sqrt, approximate functions,
// testp, copysign, min/max, and the spellings nvcc emits for CUDA math.
// arch: compute_75
#include "conf.cuh"

OP2(add_f32, "add.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(add_ftz_f32, "add.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(add_rn_f32, "add.rn.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(add_rn_ftz_f32, "add.rn.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(add_rz_f32, "add.rz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(add_rz_ftz_f32, "add.rz.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(add_rm_f32, "add.rm.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(add_rm_ftz_f32, "add.rm.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(add_rp_f32, "add.rp.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(add_rp_ftz_f32, "add.rp.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(add_sat_f32, "add.sat.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(add_rn_ftz_sat_f32, "add.rn.ftz.sat.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(add_f64, "add.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(add_rn_f64, "add.rn.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(add_rz_f64, "add.rz.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(add_rm_f64, "add.rm.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(add_rp_f64, "add.rp.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(sub_f32, "sub.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(sub_ftz_f32, "sub.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(sub_rn_f32, "sub.rn.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(sub_rn_ftz_f32, "sub.rn.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(sub_rz_f32, "sub.rz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(sub_rz_ftz_f32, "sub.rz.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(sub_rm_f32, "sub.rm.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(sub_rm_ftz_f32, "sub.rm.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(sub_rp_f32, "sub.rp.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(sub_rp_ftz_f32, "sub.rp.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(sub_sat_f32, "sub.sat.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(sub_rn_ftz_sat_f32, "sub.rn.ftz.sat.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(sub_f64, "sub.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(sub_rn_f64, "sub.rn.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(sub_rz_f64, "sub.rz.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(sub_rm_f64, "sub.rm.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(sub_rp_f64, "sub.rp.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(mul_f32, "mul.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(mul_ftz_f32, "mul.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(mul_rn_f32, "mul.rn.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(mul_rn_ftz_f32, "mul.rn.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(mul_rz_f32, "mul.rz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(mul_rz_ftz_f32, "mul.rz.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(mul_rm_f32, "mul.rm.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(mul_rm_ftz_f32, "mul.rm.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(mul_rp_f32, "mul.rp.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(mul_rp_ftz_f32, "mul.rp.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(mul_sat_f32, "mul.sat.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(mul_rn_ftz_sat_f32, "mul.rn.ftz.sat.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(mul_f64, "mul.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(mul_rn_f64, "mul.rn.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(mul_rz_f64, "mul.rz.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(mul_rm_f64, "mul.rm.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(mul_rp_f64, "mul.rp.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP3(fma_rn_f32, "fma.rn.f32", f32, f32, f32, f32) //@ f32 f32.s f32.s f32.s
OP3(fma_rz_f32, "fma.rz.f32", f32, f32, f32, f32) //@ f32 f32.s f32.s f32.s
OP3(fma_rm_f32, "fma.rm.f32", f32, f32, f32, f32) //@ f32 f32.s f32.s f32.s
OP3(fma_rp_f32, "fma.rp.f32", f32, f32, f32, f32) //@ f32 f32.s f32.s f32.s
OP3(fma_rn_ftz_f32, "fma.rn.ftz.f32", f32, f32, f32, f32) //@ f32 f32.s f32.s f32.s
OP3(fma_rn_sat_f32, "fma.rn.sat.f32", f32, f32, f32, f32) //@ f32 f32.s f32.s f32.s
OP3(fma_rz_ftz_sat_f32, "fma.rz.ftz.sat.f32", f32, f32, f32, f32) //@ f32 f32.s f32.s f32.s
OP3(fma_rn_f64, "fma.rn.f64", f64, f64, f64, f64) //@ f64 f64.s f64.s f64.s
OP3(fma_rz_f64, "fma.rz.f64", f64, f64, f64, f64) //@ f64 f64.s f64.s f64.s
OP3(fma_rm_f64, "fma.rm.f64", f64, f64, f64, f64) //@ f64 f64.s f64.s f64.s
OP3(fma_rp_f64, "fma.rp.f64", f64, f64, f64, f64) //@ f64 f64.s f64.s f64.s
OP3(mad_rn_f32, "mad.rn.f32", f32, f32, f32, f32) //@ f32 f32.s f32.s f32.s
OP3(mad_rp_ftz_f32, "mad.rp.ftz.f32", f32, f32, f32, f32) //@ f32 f32.s f32.s f32.s
OP3(mad_rn_f64, "mad.rn.f64", f64, f64, f64, f64) //@ f64 f64.s f64.s f64.s
OP2(div_approx_f32, "div.approx.f32", f32, f32, f32) //@ f32 f32.a f32.a tol=ulp=4
OP2(div_approx_ftz_f32, "div.approx.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a tol=ulp=4
OP2(div_full_f32, "div.full.f32", f32, f32, f32) //@ f32 f32.a f32.a tol=ulp=4
OP2(div_full_ftz_f32, "div.full.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a tol=ulp=4
OP2(div_rn_f32, "div.rn.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(div_rz_f32, "div.rz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(div_rm_f32, "div.rm.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(div_rp_f32, "div.rp.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(div_rn_ftz_f32, "div.rn.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(div_rn_f64, "div.rn.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(div_rz_f64, "div.rz.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(div_rm_f64, "div.rm.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(div_rp_f64, "div.rp.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP1(abs_f32, "abs.f32", f32, f32) //@ f32 f32.a
OP1(abs_ftz_f32, "abs.ftz.f32", f32, f32) //@ f32 f32.a
OP1(abs_f64, "abs.f64", f64, f64) //@ f64 f64.a
OP1(neg_f32, "neg.f32", f32, f32) //@ f32 f32.a
OP1(neg_ftz_f32, "neg.ftz.f32", f32, f32) //@ f32 f32.a
OP1(neg_f64, "neg.f64", f64, f64) //@ f64 f64.a
OP2(min_f32, "min.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(min_ftz_f32, "min.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(min_f64, "min.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP2(max_f32, "max.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(max_ftz_f32, "max.ftz.f32", f32, f32, f32) //@ f32 f32.a f32.a
OP2(max_f64, "max.f64", f64, f64, f64) //@ f64 f64.a f64.a
OP1(rcp_approx_f32, "rcp.approx.f32", f32, f32) //@ f32 f32.pos tol=ulp=2
OP1(rcp_approx_ftz_f32, "rcp.approx.ftz.f32", f32, f32) //@ f32 f32.pos tol=ulp=2
OP1(rcp_rn_f32, "rcp.rn.f32", f32, f32) //@ f32 f32.pos
OP1(rcp_rz_f32, "rcp.rz.f32", f32, f32) //@ f32 f32.pos
OP1(rcp_rm_f32, "rcp.rm.f32", f32, f32) //@ f32 f32.pos
OP1(rcp_rp_f32, "rcp.rp.f32", f32, f32) //@ f32 f32.pos
OP1(rcp_rn_ftz_f32, "rcp.rn.ftz.f32", f32, f32) //@ f32 f32.pos
OP1(rcp_rn_f64, "rcp.rn.f64", f64, f64) //@ f64 f64.pos
OP1(rcp_rz_f64, "rcp.rz.f64", f64, f64) //@ f64 f64.pos
OP1(rcp_rm_f64, "rcp.rm.f64", f64, f64) //@ f64 f64.pos
OP1(rcp_rp_f64, "rcp.rp.f64", f64, f64) //@ f64 f64.pos
OP1(rcp_approx_ftz_f64, "rcp.approx.ftz.f64", f64, f64) //@ f64 f64.pos tol=rel=4e-6
OP1(sqrt_approx_f32, "sqrt.approx.f32", f32, f32) //@ f32 f32.pos tol=ulp=4
OP1(sqrt_approx_ftz_f32, "sqrt.approx.ftz.f32", f32, f32) //@ f32 f32.pos tol=ulp=4
OP1(sqrt_rn_f32, "sqrt.rn.f32", f32, f32) //@ f32 f32.pos
OP1(sqrt_rz_f32, "sqrt.rz.f32", f32, f32) //@ f32 f32.pos
OP1(sqrt_rm_f32, "sqrt.rm.f32", f32, f32) //@ f32 f32.pos
OP1(sqrt_rp_f32, "sqrt.rp.f32", f32, f32) //@ f32 f32.pos
OP1(sqrt_rn_ftz_f32, "sqrt.rn.ftz.f32", f32, f32) //@ f32 f32.pos
OP1(sqrt_rn_f64, "sqrt.rn.f64", f64, f64) //@ f64 f64.pos
OP1(sqrt_rz_f64, "sqrt.rz.f64", f64, f64) //@ f64 f64.pos
OP1(sqrt_rm_f64, "sqrt.rm.f64", f64, f64) //@ f64 f64.pos
OP1(sqrt_rp_f64, "sqrt.rp.f64", f64, f64) //@ f64 f64.pos
OP1(rsqrt_approx_f32, "rsqrt.approx.f32", f32, f32) //@ f32 f32.pos tol=ulp=4
OP1(rsqrt_approx_ftz_f32, "rsqrt.approx.ftz.f32", f32, f32) //@ f32 f32.pos tol=ulp=4
OP1(rsqrt_approx_f64, "rsqrt.approx.f64", f64, f64) //@ f64 f64.pos tol=rel=1e-5
OP1(rsqrt_approx_ftz_f64, "rsqrt.approx.ftz.f64", f64, f64) //@ f64 f64.pos tol=rel=1e-5
OP1(sin_approx_f32, "sin.approx.f32", f32, f32) //@ f32 f32.trig tol=abs=2e-6
OP1(sin_approx_ftz_f32, "sin.approx.ftz.f32", f32, f32) //@ f32 f32.trig tol=abs=2e-6
OP1(cos_approx_f32, "cos.approx.f32", f32, f32) //@ f32 f32.trig tol=abs=2e-6
OP1(cos_approx_ftz_f32, "cos.approx.ftz.f32", f32, f32) //@ f32 f32.trig tol=abs=2e-6
OP1(lg2_approx_f32, "lg2.approx.f32", f32, f32) //@ f32 f32.pos tol=abs=4e-7,rel=1e-6
OP1(ex2_approx_f32, "ex2.approx.f32", f32, f32) //@ f32 f32.ex2 tol=ulp=4,rel=1e-6
OP1(lg2_approx_ftz_f32, "lg2.approx.ftz.f32", f32, f32) //@ f32 f32.pos tol=abs=4e-7,rel=1e-6
OP1(ex2_approx_ftz_f32, "ex2.approx.ftz.f32", f32, f32) //@ f32 f32.ex2 tol=ulp=4,rel=1e-6
OP1(tanh_approx_f32, "tanh.approx.f32", f32, f32) //@ f32 f32.tanh tol=rel=1e-3,abs=1e-6
PRED1(testp_finite_f32, "testp.finite.f32", f32) //@ u32 f32.a
PRED1(testp_infinite_f32, "testp.infinite.f32", f32) //@ u32 f32.a
PRED1(testp_number_f32, "testp.number.f32", f32) //@ u32 f32.a
PRED1(testp_notanumber_f32, "testp.notanumber.f32", f32) //@ u32 f32.a
PRED1(testp_normal_f32, "testp.normal.f32", f32) //@ u32 f32.a
PRED1(testp_subnormal_f32, "testp.subnormal.f32", f32) //@ u32 f32.a
PRED1(testp_finite_f64, "testp.finite.f64", f64) //@ u32 f64.a
PRED1(testp_infinite_f64, "testp.infinite.f64", f64) //@ u32 f64.a
PRED1(testp_number_f64, "testp.number.f64", f64) //@ u32 f64.a
PRED1(testp_notanumber_f64, "testp.notanumber.f64", f64) //@ u32 f64.a
PRED1(testp_normal_f64, "testp.normal.f64", f64) //@ u32 f64.a
PRED1(testp_subnormal_f64, "testp.subnormal.f64", f64) //@ u32 f64.a
OP2(copysign_f32, "copysign.f32", f32, f32, f32) //@ f32 f32.e f32.e
OP2(copysign_f64, "copysign.f64", f64, f64, f64) //@ f64 f64.e f64.e
K3(fma_c, f32, f32, f32, f32, d = a * b + c) //@ f32 f32.s f32.s f32.s
K2(div_c, f32, f32, f32, d = a / b) //@ f32 f32.a f32.a
K2(div_c64, f64, f64, f64, d = a / b) //@ f64 f64.a f64.a
K1(sqrt_c, f32, f32, d = sqrtf(a)) //@ f32 f32.pos
K1(rsqrt_c, f32, f32, d = rsqrtf(a)) //@ f32 f32.pos tol=ulp=4
K2(fdividef_c, f32, f32, f32, d = __fdividef(a, b)) //@ f32 f32.a f32.a tol=ulp=4
K1(expf_c, f32, f32, d = __expf(a)) //@ f32 f32.trig tol=ulp=8,rel=2e-6
K1(sinf_c, f32, f32, d = __sinf(a)) //@ f32 f32.trig tol=abs=2e-6
K2(fminf_c, f32, f32, f32, d = fminf(a, b)) //@ f32 f32.a f32.a
K2(fmax_c, f64, f64, f64, d = fmax(a, b)) //@ f64 f64.a f64.a
K1(fabsf_c, f32, f32, d = fabsf(a)) //@ f32 f32.a
K2(copysignf_c, f32, f32, f32, d = copysignf(a, b)) //@ f32 f32.e f32.e
K1(isnan_c, s32, f32, d = isnan(a) + 2 * isinf(a) + 4 * isfinite(a)) //@ s32 f32.a
K2(fadd_rz_c, f32, f32, f32, d = __fadd_rz(a, b)) //@ f32 f32.a f32.a
K2(dmul_ru_c, f64, f64, f64, d = __dmul_ru(a, b)) //@ f64 f64.a f64.a
K1(saturate_c, f32, f32, d = __saturatef(a)) //@ f32 f32.a
