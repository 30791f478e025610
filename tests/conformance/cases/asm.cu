// Hand-written PTX forms (inline asm as CUTLASS, CUB and cuRAND write it) that nvcc's own output
// never uses: immediates in every source position, vector registers, 64-bit carry chains.
// arch: compute_80
#include "conf.cuh"


// ---- Warp-level instructions with immediate lane, clamp, mask and value operands
WK(shfl_up_imm, asm("shfl.sync.up.b32 %0, %1, 3, 7680, 0xffffffff;" : "=r"(d) : "r"(v))) //@ u32 threads=96
WK(shfl_up_imm_clamp, asm("shfl.sync.up.b32 %0, %1, 5, 0, -1;" : "=r"(d) : "r"(v))) //@ u32 threads=96
WK(shfl_down_imm, asm("shfl.sync.down.b32 %0, %1, 1, 0x1f, 0xffffffff;" : "=r"(d) : "r"(v))) //@ u32 threads=96
WK(shfl_down_seg8, asm("shfl.sync.down.b32 %0, %1, 2, 0x1807, 0xffffffff;" : "=r"(d) : "r"(v))) //@ u32 threads=96
WK(shfl_bfly_imm, asm("shfl.sync.bfly.b32 %0, %1, 0x10, 0x1f, 0xffffffff;" : "=r"(d) : "r"(v))) //@ u32 threads=96
WK(shfl_idx_imm, asm("shfl.sync.idx.b32 %0, %1, 5, 0x1f, 0xffffffff;" : "=r"(d) : "r"(v))) //@ u32 threads=96
WK(shfl_idx_imm_value, asm("shfl.sync.idx.b32 %0, 1234, %1, 0x1f, 0xffffffff;" : "=r"(d) : "r"(v & 31))) //@ u32 threads=96
WK(shfl_down_imm_pred, asm("{ .reg .pred %%p; .reg .b32 %%t; shfl.sync.down.b32 %%t|%%p, %1, 7, 0x1f, 0xffffffff; selp.b32 %0, %%t, 99, %%p; }" : "=r"(d) : "r"(v))) //@ u32 threads=96
WK(vote_ballot_imm, asm("vote.sync.ballot.b32 %0, 1, 0xffffffff;" : "=r"(d))) //@ u32 threads=96
WK(vote_any_imm_mask, asm("{ .reg .pred %%p, %%q; setp.gt.u32 %%q, %1, 60; vote.sync.any.pred %%p, %%q, 0xffffffff; selp.u32 %0, 1, 0, %%p; }" : "=r"(d) : "r"(v))) //@ u32 threads=96
WK(match_any_imm_value, asm("match.any.sync.b32 %0, 7, 0xffffffff;" : "=r"(d))) //@ u32 threads=96
WK(match_all_imm_mask, asm("{ .reg .pred %%p; match.all.sync.b32 %0|%%p, %1, 0xffffffff; @!%%p mov.b32 %0, 5; }" : "=r"(d) : "r"(v >> 6))) //@ u32 threads=96
WK(redux_add_imm_mask, asm("redux.sync.add.u32 %0, %1, 0xffffffff;" : "=r"(d) : "r"(v))) //@ u32 threads=96
WK(bar_red_popc_imm, asm("{ .reg .pred %%p; setp.lt.u32 %%p, %1, 50; bar.red.popc.u32 %0, 0, %%p; }" : "=r"(d) : "r"(v))) //@ u32 threads=96
WK(bar_red_or_imm_count, asm("{ .reg .pred %%p, %%q; setp.eq.u32 %%p, %1, 77; bar.red.or.pred %%q, 1, 96, %%p; selp.u32 %0, 1, 0, %%q; }" : "=r"(d) : "r"(v))) //@ u32 threads=96
// Registers declared without '%' in the asm's own scope (as CUB's and cuSPARSE's inline assembly
// declares them) as destinations of warp-level instructions.
WK(shfl_down_scoped_plain_reg, asm("{ .reg .b32 t; shfl.sync.down.b32 t, %1, 1, 0x1f, 0xffffffff; mov.b32 %0, t; }" : "=r"(d) : "r"(v))) //@ u32 threads=96
WK(shfl_up_scoped_plain_reg_pred, asm("{ .reg .b32 t; .reg .pred p; shfl.sync.up.b32 t|p, %1, 2, 0, 0xffffffff; selp.b32 %0, t, 77, p; }" : "=r"(d) : "r"(v))) //@ u32 threads=96
WK(vote_ballot_scoped_plain_reg, asm("{ .reg .pred q; .reg .b32 b; setp.gt.u32 q, %1, 40; vote.sync.ballot.b32 b, q, 0xffffffff; mov.b32 %0, b; }" : "=r"(d) : "r"(v))) //@ u32 threads=96
WK(match_any_scoped_plain_reg, asm("{ .reg .b32 m; match.any.sync.b32 m, %1, 0xffffffff; mov.b32 %0, m; }" : "=r"(d) : "r"(v >> 3))) //@ u32 threads=96
WK(redux_max_scoped_plain_reg, asm("{ .reg .b32 r; redux.sync.max.u32 r, %1, 0xffffffff; mov.b32 %0, r; }" : "=r"(d) : "r"(v * 7 % 61))) //@ u32 threads=96

// ---- Integer instructions with immediates where registers usually are
K1(prmt_imm_sources, u32, u32, asm("prmt.b32 %0, 0x76543210, %1, 0x5140;" : "=r"(d) : "r"(a))) //@ u32 u32.e
K1(prmt_imm_selector, u32, u32, asm("prmt.b32 %0, %1, 0xfedcba98, 0x7351;" : "=r"(d) : "r"(a))) //@ u32 u32.e
K1(bfe_imm_source, u32, u32, asm("bfe.u32 %0, 0xf0e1d2c3, %1, 12;" : "=r"(d) : "r"(a & 31))) //@ u32 u32.e
K1(bfe_s32_imm_pos_len, s32, s32, asm("bfe.s32 %0, %1, 4, 9;" : "=r"(d) : "r"(a))) //@ s32 s32.e
K1(bfi_imm_all, u32, u32, asm("bfi.b32 %0, 0x5a, %1, 8, 7;" : "=r"(d) : "r"(a))) //@ u32 u32.e
K1(lop3_imm_sources, u32, u32, asm("lop3.b32 %0, 0xf0f0f0f0, %1, 0xcccccccc, 0x96;" : "=r"(d) : "r"(a))) //@ u32 u32.e
K1(shf_imm_sources, u32, u32, asm("shf.l.wrap.b32 %0, 0x12345678, %1, 12;" : "=r"(d) : "r"(a))) //@ u32 u32.e
K1(shf_r_clamp_imm, u32, u32, asm("shf.r.clamp.b32 %0, %1, 0x9abcdef0, 40;" : "=r"(d) : "r"(a))) //@ u32 u32.e
K1(mad_imm, s32, s32, asm("mad.lo.s32 %0, 3, %1, -7;" : "=r"(d) : "r"(a))) //@ s32 s32.e
K1(mad_hi_imm, s32, s32, asm("mad.hi.s32 %0, %1, -1640531535, 11;" : "=r"(d) : "r"(a))) //@ s32 s32.e
K1(mul_wide_imm, u64, u32, asm("mul.wide.u32 %0, 0xfffffff1, %1;" : "=l"(d) : "r"(a))) //@ u64 u32.e
K1(min_imm_first, s32, s32, asm("min.s32 %0, -5, %1;" : "=r"(d) : "r"(a))) //@ s32 s32.e
K1(max_u64_imm, u64, u64, asm("max.u64 %0, %1, 0x123456789;" : "=l"(d) : "l"(a))) //@ u64 u64.e
K1(dp4a_imm, u32, u32, asm("dp4a.u32.u32 %0, 0x01020304, %1, 10;" : "=r"(d) : "r"(a))) //@ u32 u32.e
K1(dp2a_imm, s32, u32, asm("dp2a.hi.s32.u32 %0, 0x00ff8001, %1, -3;" : "=r"(d) : "r"(a))) //@ s32 u32.e
K1(selp_imm, u32, u32, asm("{ .reg .pred %%p; setp.ne.u32 %%p, %1, 0; selp.b32 %0, 5, 9, %%p; }" : "=r"(d) : "r"(a & 1))) //@ u32 u32.e
K1(setp_imm_first, u32, s32, asm("{ .reg .pred %%p; setp.lt.s32 %%p, 7, %1; selp.u32 %0, 1, 0, %%p; }" : "=r"(d) : "r"(a))) //@ u32 s32.e
K1(slct_imm, s32, s32, asm("slct.s32.s32 %0, 100, -100, %1;" : "=r"(d) : "r"(a))) //@ s32 s32.e
K1(bmsk_imm, u32, u32, asm("bmsk.clamp.b32 %0, 3, %1;" : "=r"(d) : "r"(a & 63))) //@ u32 u32.e
K1(sad_imm, u32, u32, asm("sad.u32 %0, %1, 1000, 5;" : "=r"(d) : "r"(a))) //@ u32 u32.e
K1(mov_pack_imm, u64, u32, asm("mov.b64 %0, {%1, 0x89abcdef};" : "=l"(d) : "r"(a))) //@ u64 u32.e
K1(mov_pack16_imm, u32, u32, asm("{ .reg .b16 %%h; cvt.u16.u32 %%h, %1; mov.b32 %0, {0x1234, %%h}; }" : "=r"(d) : "r"(a))) //@ u32 u32.e
K1(fma_imm, f32, f32, asm("fma.rn.f32 %0, 0f3FC00000, %1, 0fBF800000;" : "=f"(d) : "f"(a))) //@ f32 f32.e
K1(fma_f64_imm, f64, f64, asm("fma.rn.f64 %0, %1, 0d3FF8000000000000, 0dC000000000000000;" : "=d"(d) : "d"(a))) //@ f64 f64.e

// ---- Vector registers: .reg .v2/.v4 declarations, whole vectors in loads, stores and moves,
// components as operands
// (groups of four inputs; the last, partial group reads nothing)
K1(vreg_ld_v4, u32, u32, d = 0; if ((i & ~3) + 4 <= n) asm("{ .reg .v4 .u32 %%v; ld.global.v4.u32 %%v, [%1]; add.u32 %0, %%v.x, %%v.w; xor.b32 %0, %0, %%v.y; sub.u32 %0, %0, %%v.z; }" : "=r"(d) : "l"(A + (i & ~3)))) //@ u32 u32.e
K1(vreg_mov_v2_f32, f32, f32, asm("{ .reg .v2 .f32 %%w; mov.v2.f32 %%w, {%1, 0f40000000}; mul.rn.f32 %0, %%w.x, %%w.y; }" : "=f"(d) : "f"(a))) //@ f32 f32.e
K1(vreg_unpack_v4_u16, u32, u64, asm("{ .reg .v4 .u16 %%h; .reg .b32 %%t; mov.b64 {%%h.x, %%h.y, %%h.z, %%h.w}, %1; or.b16 %%h.x, %%h.x, %%h.y; cvt.u32.u16 %0, %%h.z; cvt.u32.u16 %%t, %%h.x; shl.b32 %0, %0, 16; or.b32 %0, %0, %%t; }" : "=r"(d) : "l"(a))) //@ u32 u64.e
K1(vreg_pack_v4_u16, u64, u64, asm("{ .reg .v4 .u16 %%h; mov.b64 {%%h.x, %%h.y, %%h.z, %%h.w}, %1; mov.b64 %0, {%%h.w, %%h.z, %%h.y, %%h.x}; }" : "=l"(d) : "l"(a))) //@ u64 u64.e
extern "C" __global__ void vreg_st_v4(const u32 *A, const void *, const void *, u32 *D, int n) {
  IDX;
  if ((i & ~3) + 4 > n) { // the last, partial group
    D[i] = 0;
    return;
  }
  if (i % 4)
    return;
  asm volatile("{ .reg .v4 .u32 %%v; ld.global.v4.u32 %%v, [%0]; add.u32 %%v.y, %%v.y, 1; st.global.v4.u32 [%1], {%%v.w, %%v.z, %%v.y, %%v.x}; }" :: "l"(A + i), "l"(D + i) : "memory");
} //@ vreg_st_v4 u32 u32.e

// ---- 64-bit carry chains
K2(sub_cc_u64_128, u64, u64, u64, u64 lo, hi; asm("sub.cc.u64 %0, %2, %3; subc.u64 %1, 0, 0;" : "=l"(lo), "=l"(hi) : "l"(a), "l"(b)); d = lo ^ (hi << 17) ^ (hi >> 5)) //@ u64 u64.e u64.e
K2(subc_cc_u64_192, u64, u64, u64, u64 x, y, z; asm("sub.cc.u64 %0, %3, %4; subc.cc.u64 %1, %4, %3; subc.u64 %2, 5, 0;" : "=l"(x), "=l"(y), "=l"(z) : "l"(a), "l"(b)); d = x ^ (y * 3) ^ (z << 40)) //@ u64 u64.e u64.e
K2(addc_cc_u64_192, u64, u64, u64, u64 x, y, z; asm("add.cc.u64 %0, %3, %4; addc.cc.u64 %1, %3, %3; addc.u64 %2, 0, 0;" : "=l"(x), "=l"(y), "=l"(z) : "l"(a), "l"(b)); d = x ^ (y * 5) ^ (z << 33)) //@ u64 u64.e u64.e
K2(mad_cc_s64, u64, s64, s64, u64 x, y; asm("mad.lo.cc.s64 %0, %2, %3, %2; madc.hi.s64 %1, %2, %3, -1;" : "=l"(x), "=l"(y) : "l"(a), "l"(b)); d = x ^ (y << 1)) //@ u64 s64.e s64.e
