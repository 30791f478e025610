// Bit manipulation: popc clz bfind brev bfe bfi prmt lop3 shf shl/shr bmsk dp4a dp2a logic.
// arch: compute_75
#include "conf.cuh"

K1(popc_b32, u32, u32, asm("popc.b32 %0, %1;" : "=r"(d) : "r"(a))) //@ u32 u32.e
K1(popc_b64, u32, u64, asm("popc.b64 %0, %1;" : "=r"(d) : "l"(a))) //@ u32 u64.e
K1(clz_b32, u32, u32, asm("clz.b32 %0, %1;" : "=r"(d) : "r"(a))) //@ u32 u32.e
K1(clz_b64, u32, u64, asm("clz.b64 %0, %1;" : "=r"(d) : "l"(a))) //@ u32 u64.e
K1(bfind_u32, u32, u32, asm("bfind.u32 %0, %1;" : "=r"(d) : "r"(a))) //@ u32 u32.e
K1(bfind_s32, u32, s32, asm("bfind.s32 %0, %1;" : "=r"(d) : "r"(a))) //@ u32 s32.e
K1(bfind_u64, u32, u64, asm("bfind.u64 %0, %1;" : "=r"(d) : "l"(a))) //@ u32 u64.e
K1(bfind_s64, u32, s64, asm("bfind.s64 %0, %1;" : "=r"(d) : "l"(a))) //@ u32 s64.e
K1(bfind_shiftamt_u32, u32, u32, asm("bfind.shiftamt.u32 %0, %1;" : "=r"(d) : "r"(a))) //@ u32 u32.e
K1(bfind_shiftamt_s32, u32, s32, asm("bfind.shiftamt.s32 %0, %1;" : "=r"(d) : "r"(a))) //@ u32 s32.e
K1(bfind_shiftamt_u64, u32, u64, asm("bfind.shiftamt.u64 %0, %1;" : "=r"(d) : "l"(a))) //@ u32 u64.e
OP1(brev_b32, "brev.b32", u32, u32) //@ u32 u32.e
OP1(brev_b64, "brev.b64", u64, u64) //@ u64 u64.e
K1(clz_c, s32, u32, d = __clz(a)) //@ s32 u32.e
K1(popc_c, s32, u64, d = __popcll(a)) //@ s32 u64.e
K1(ffs_c, s32, u32, d = __ffs(a)) //@ s32 u32.e
K1(brev_c, u32, u32, d = __brev(a)) //@ u32 u32.e

OP3(bfe_u32, "bfe.u32", u32, u32, u32, u32) //@ u32 u32.s3 u32.pos u32.len
OP3(bfe_s32, "bfe.s32", s32, s32, u32, u32) //@ s32 s32.s3 u32.pos u32.len
OP3(bfe_u64, "bfe.u64", u64, u64, u32, u32) //@ u64 u64.s3 u32.pos64 u32.len64
OP3(bfe_s64, "bfe.s64", s64, s64, u32, u32) //@ s64 s64.s3 u32.pos64 u32.len64
K3(bfi_b32, u32, u32, u32, u32, asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(a), "r"(b), "r"(c & 255), "r"(c >> 8))) //@ u32 u32.q u32.q u32.pl
K3(bfi_b64, u64, u64, u64, u32, asm("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(d) : "l"(a), "l"(b), "r"(c & 255), "r"(c >> 8))) //@ u64 u64.s3 u64.s3 u32.pl64

OP3(prmt_b32, "prmt.b32", u32, u32, u32, u32) //@ u32 u32.q2 u32.q2 u32.sel
OP3(prmt_f4e, "prmt.b32.f4e", u32, u32, u32, u32) //@ u32 u32.q2 u32.q2 u32.sel3
OP3(prmt_b4e, "prmt.b32.b4e", u32, u32, u32, u32) //@ u32 u32.q2 u32.q2 u32.sel3
OP3(prmt_rc8, "prmt.b32.rc8", u32, u32, u32, u32) //@ u32 u32.q2 u32.q2 u32.sel3
OP3(prmt_ecl, "prmt.b32.ecl", u32, u32, u32, u32) //@ u32 u32.q2 u32.q2 u32.sel3
OP3(prmt_ecr, "prmt.b32.ecr", u32, u32, u32, u32) //@ u32 u32.q2 u32.q2 u32.sel3
OP3(prmt_rc16, "prmt.b32.rc16", u32, u32, u32, u32) //@ u32 u32.q2 u32.q2 u32.sel3
K3(byte_perm_c, u32, u32, u32, u32, d = __byte_perm(a, b, c)) //@ u32 u32.q2 u32.q2 u32.sel

#define LOP3(lut) K3(lop3_##lut, u32, u32, u32, u32, asm("lop3.b32 %0, %1, %2, %3, " #lut ";" : "=r"(d) : "r"(a), "r"(b), "r"(c)))
LOP3(0x00) //@ lop3_0x00 u32 u32.lop u32.lop u32.lop
LOP3(0xff) //@ lop3_0xff u32 u32.lop u32.lop u32.lop
LOP3(0x96) //@ lop3_0x96 u32 u32.lop u32.lop u32.lop
LOP3(0xe8) //@ lop3_0xe8 u32 u32.lop u32.lop u32.lop
LOP3(0xca) //@ lop3_0xca u32 u32.lop u32.lop u32.lop
LOP3(0x1e) //@ lop3_0x1e u32 u32.lop u32.lop u32.lop
LOP3(0x80) //@ lop3_0x80 u32 u32.lop u32.lop u32.lop
LOP3(0x6a) //@ lop3_0x6a u32 u32.lop u32.lop u32.lop

OP3(shf_l_wrap, "shf.l.wrap.b32", u32, u32, u32, u32) //@ u32 u32.q u32.q u32.sh
OP3(shf_l_clamp, "shf.l.clamp.b32", u32, u32, u32, u32) //@ u32 u32.q u32.q u32.sh
OP3(shf_r_wrap, "shf.r.wrap.b32", u32, u32, u32, u32) //@ u32 u32.q u32.q u32.sh
OP3(shf_r_clamp, "shf.r.clamp.b32", u32, u32, u32, u32) //@ u32 u32.q u32.q u32.sh
K3(funnel_c, u32, u32, u32, u32, d = __funnelshift_l(a, b, c) ^ __funnelshift_rc(a, b, c)) //@ u32 u32.q u32.q u32.sh

OP2(shl_b32, "shl.b32", u32, u32, u32) //@ u32 u32.q2 u32.sh
OP2(shr_u32, "shr.u32", u32, u32, u32) //@ u32 u32.q2 u32.sh
OP2(shr_s32, "shr.s32", s32, s32, u32) //@ s32 s32.s3 u32.sh
OP2(shr_b32, "shr.b32", u32, u32, u32) //@ u32 u32.q2 u32.sh
OP2(shl_b64, "shl.b64", u64, u64, u32) //@ u64 u64.s3 u32.sh
OP2(shr_u64, "shr.u64", u64, u64, u32) //@ u64 u64.s3 u32.sh
OP2(shr_s64, "shr.s64", s64, s64, u32) //@ s64 s64.s3 u32.sh
K2(shl_b16, u16, u16, u32, asm("shl.b16 %0, %1, %2;" : "=h"(d) : "h"(a), "r"(b))) //@ u16 u16.e u32.sh
K2(shr_s16, s16, s16, u32, asm("shr.s16 %0, %1, %2;" : "=h"(d) : "h"(a), "r"(b))) //@ s16 s16.e u32.sh
K2(shr_u16, u16, u16, u32, asm("shr.u16 %0, %1, %2;" : "=h"(d) : "h"(a), "r"(b))) //@ u16 u16.e u32.sh

OP2(bmsk_clamp, "bmsk.clamp.b32", u32, u32, u32) //@ u32 u32.sh u32.sh
OP2(bmsk_wrap, "bmsk.wrap.b32", u32, u32, u32) //@ u32 u32.sh u32.sh

OP3(dp4a_u32_u32, "dp4a.u32.u32", u32, u32, u32, u32) //@ u32 u32.dp u32.dp s32.dpc
OP3(dp4a_s32_s32, "dp4a.s32.s32", s32, s32, s32, s32) //@ s32 u32.dp u32.dp s32.dpc
OP3(dp4a_s32_u32, "dp4a.s32.u32", s32, s32, u32, s32) //@ s32 u32.dp u32.dp s32.dpc
OP3(dp4a_u32_s32, "dp4a.u32.s32", s32, u32, s32, s32) //@ s32 u32.dp u32.dp s32.dpc
OP3(dp2a_lo_u32_u32, "dp2a.lo.u32.u32", u32, u32, u32, u32) //@ u32 u32.dp u32.dp s32.dpc
OP3(dp2a_hi_u32_u32, "dp2a.hi.u32.u32", u32, u32, u32, u32) //@ u32 u32.dp u32.dp s32.dpc
OP3(dp2a_lo_s32_s32, "dp2a.lo.s32.s32", s32, s32, s32, s32) //@ s32 u32.dp u32.dp s32.dpc
OP3(dp2a_hi_s32_u32, "dp2a.hi.s32.u32", s32, s32, u32, s32) //@ s32 u32.dp u32.dp s32.dpc
OP3(dp2a_lo_u32_s32, "dp2a.lo.u32.s32", s32, u32, s32, s32) //@ s32 u32.dp u32.dp s32.dpc

OP2(and_b32, "and.b32", u32, u32, u32) //@ u32 u32.q2 u32.e
OP2(or_b64, "or.b64", u64, u64, u64) //@ u64 u64.s3 u64.e
OP2(xor_b16, "xor.b16", u16, u16, u16) //@ u16 u16.e u16.e
OP1(not_b32, "not.b32", u32, u32) //@ u32 u32.e
OP1(not_b64, "not.b64", u64, u64) //@ u64 u64.e
OP1(cnot_b32, "cnot.b32", u32, u32) //@ u32 u32.e
OP1(cnot_b16, "cnot.b16", u16, u16) //@ u16 u16.e
K2(pred_logic, u32, u32, u32, asm("{ .reg .pred %%p, %%q, %%r, %%s; setp.ne.u32 %%p, %1, 0; setp.ne.u32 %%q, %2, 0; and.pred %%r, %%p, %%q; or.pred %%s, %%p, !%%q; xor.pred %%r, %%r, %%s; not.pred %%s, %%s; selp.u32 %0, 1, 0, %%r; @%%s add.u32 %0, %0, 2; }" : "=r"(d) : "r"(a), "r"(b))) //@ u32 u32.s3 u32.s3
