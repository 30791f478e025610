// Video and SIMD integer instructions (hand-written PTX, as NPP and image code use them): the
// scalar vadd/vsub/vabsdiff/vmin/vmax/vshl/vshr/vmad/vset with byte and half selectors, .sat,
// secondary operations and merges, and the 2- and 4-way SIMD forms with masks, selectors,
// saturation and accumulation.
// arch: compute_80
#include "conf.cuh"

#define V3(name, insn) OP3(name, insn, u32, u32, u32, u32)
#define V2(name, insn) OP2(name, insn, u32, u32, u32)

// scalar, plain and with selectors
V2(vadd_u32, "vadd.u32.u32.u32") //@ u32 u32.dp u32.dp
V2(vadd_s32_sat, "vadd.s32.s32.s32.sat") //@ u32 u32.dp u32.dp
V2(vadd_u32_s32_sat, "vadd.u32.s32.u32.sat") //@ u32 u32.dp u32.dp
K2(vsub_sel_b1_h1, u32, u32, u32, asm("vsub.s32.u32.s32 %0, %1.b1, %2.h1;" : "=r"(d) : "r"(a), "r"(b))) //@ u32 u32.dp u32.dp
K2(vabsdiff_sel_b3_b0, u32, u32, u32, asm("vabsdiff.u32.s32.u32 %0, %1.b3, %2.b0;" : "=r"(d) : "r"(a), "r"(b))) //@ u32 u32.dp u32.dp
K2(vmin_s32_h0, u32, u32, u32, asm("vmin.s32.s32.s32 %0, %1.h0, %2.h1;" : "=r"(d) : "r"(a), "r"(b))) //@ u32 u32.dp u32.dp
V2(vmax_u32, "vmax.u32.u32.u32") //@ u32 u32.dp u32.dp
V2(vmax_s32_u32_sat, "vmax.s32.u32.s32.sat") //@ u32 u32.dp u32.dp
// secondary operations with c
K3(vabsdiff_add, u32, u32, u32, u32, asm("vabsdiff.u32.u32.u32.add %0, %1.b0, %2.b0, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vadd_sat_min, u32, u32, u32, u32, asm("vadd.s32.s32.s32.sat.min %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vsub_max, u32, u32, u32, u32, asm("vsub.u32.u32.u32.max %0, %1.h1, %2.h0, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vmin_add_s32, u32, u32, u32, u32, asm("vmin.s32.s32.s32.add %0, %1.b2, %2.b1, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
// merges into a byte or half of c
K3(vadd_merge_b2, u32, u32, u32, u32, asm("vadd.u32.u32.u32 %0.b2, %1.b3, %2.b1, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vadd_sat_merge_b0, u32, u32, u32, u32, asm("vadd.s32.s32.s32.sat %0.b0, %1.b0, %2.b1, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vsub_sat_merge_h1, u32, u32, u32, u32, asm("vsub.u32.u32.u32.sat %0.h1, %1.h0, %2.h1, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vmax_merge_h0, u32, u32, u32, u32, asm("vmax.s32.s32.s32 %0.h0, %1.h1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
// shifts
V2(vshl_clamp, "vshl.u32.u32.u32.clamp") //@ u32 u32.dp u32.sh
V2(vshl_wrap, "vshl.u32.u32.u32.wrap") //@ u32 u32.dp u32.sh
V2(vshr_s32_clamp, "vshr.s32.s32.u32.clamp") //@ u32 u32.dp u32.sh
V2(vshr_u32_wrap, "vshr.u32.u32.u32.wrap") //@ u32 u32.dp u32.sh
K2(vshl_sat_sel, u32, u32, u32, asm("vshl.s32.s32.u32.sat.clamp %0, %1.h1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ u32 u32.dp u32.sh
K3(vshr_add, u32, u32, u32, u32, asm("vshr.u32.u32.u32.clamp.add %0, %1.b1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.sh u32.q2
K3(vshl_merge_b1, u32, u32, u32, u32, asm("vshl.u32.u32.u32.wrap %0.b1, %1.b0, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.sh u32.q2
// multiply-add
K3(vmad_u32_h, u32, u32, u32, u32, asm("vmad.u32.u32.u32 %0, %1.h0, %2.h1, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vmad_s32_sat, u32, u32, u32, u32, asm("vmad.s32.s32.s32.sat %0, %1.h1, %2.h0, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vmad_s32_shr7, u32, u32, u32, u32, asm("vmad.s32.s32.s32.shr7 %0, %1.b0, %2.b2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vmad_u32_shr15_sat, u32, u32, u32, u32, asm("vmad.u32.u32.u32.sat.shr15 %0, %1.h0, %2.h0, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vmad_neg_a, u32, u32, u32, u32, asm("vmad.s32.s32.s32 %0, -%1.b1, %2.b3, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vmad_po, u32, u32, u32, u32, asm("vmad.u32.u32.u32.po %0, %1.b0, %2.b1, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
// comparisons
V2(vset_lt_u32, "vset.u32.u32.lt") //@ u32 u32.dp u32.dp
V2(vset_ge_s32, "vset.s32.s32.ge") //@ u32 u32.dp u32.dp
K2(vset_eq_sel, u32, u32, u32, asm("vset.u32.s32.eq %0, %1.b0, %2.b0;" : "=r"(d) : "r"(a), "r"(b))) //@ u32 u32.dp u32.dp
K3(vset_ne_add, u32, u32, u32, u32, asm("vset.s32.u32.ne.add %0, %1.h0, %2.h1, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vset_gt_merge, u32, u32, u32, u32, asm("vset.s32.s32.gt %0.b3, %1.b1, %2.b2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2

// SIMD: two halves
V3(vadd2_u32, "vadd2.u32.u32.u32") //@ u32 u32.dp u32.dp u32.q2
V3(vadd2_s32_sat, "vadd2.s32.s32.s32.sat") //@ u32 u32.dp u32.dp u32.q2
V3(vsub2_u32_sat, "vsub2.u32.u32.u32.sat") //@ u32 u32.dp u32.dp u32.q2
V3(vavrg2_s32, "vavrg2.s32.s32.s32") //@ u32 u32.dp u32.dp u32.q2
V3(vavrg2_u32, "vavrg2.u32.u32.u32") //@ u32 u32.dp u32.dp u32.q2
V3(vabsdiff2_add, "vabsdiff2.u32.u32.u32.add") //@ u32 u32.dp u32.dp u32.q2
V3(vabsdiff2_s32, "vabsdiff2.s32.s32.s32") //@ u32 u32.dp u32.dp u32.q2
V3(vmin2_s32, "vmin2.s32.s32.s32") //@ u32 u32.dp u32.dp u32.q2
V3(vmax2_u32_s32_sat, "vmax2.u32.s32.s32.sat") //@ u32 u32.dp u32.dp u32.q2
V3(vset2_ne, "vset2.u32.u32.ne") //@ u32 u32.dp u32.dp u32.q2
V3(vset2_lt_add, "vset2.s32.s32.lt.add") //@ u32 u32.dp u32.dp u32.q2
K3(vadd2_mask_h1, u32, u32, u32, u32, asm("vadd2.u32.u32.u32 %0.h1, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vsub2_sel, u32, u32, u32, u32, asm("vsub2.s32.s32.s32 %0, %1.h21, %2.h03, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vmax2_add_mask, u32, u32, u32, u32, asm("vmax2.s32.s32.s32.add %0.h0, %1.h11, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
// SIMD: four bytes
V3(vadd4_u32_sat, "vadd4.u32.u32.u32.sat") //@ u32 u32.dp u32.dp u32.q2
V3(vadd4_s32, "vadd4.s32.s32.s32") //@ u32 u32.dp u32.dp u32.q2
V3(vsub4_s32_sat, "vsub4.s32.s32.s32.sat") //@ u32 u32.dp u32.dp u32.q2
V3(vavrg4_u32, "vavrg4.u32.u32.u32") //@ u32 u32.dp u32.dp u32.q2
V3(vavrg4_s32, "vavrg4.s32.s32.s32") //@ u32 u32.dp u32.dp u32.q2
V3(vabsdiff4_add, "vabsdiff4.u32.u32.u32.add") //@ u32 u32.dp u32.dp u32.q2
V3(vabsdiff4_s32_sat, "vabsdiff4.s32.s32.s32.sat") //@ u32 u32.dp u32.dp u32.q2
V3(vmin4_s32, "vmin4.s32.s32.s32") //@ u32 u32.dp u32.dp u32.q2
V3(vmax4_u32, "vmax4.u32.u32.u32") //@ u32 u32.dp u32.dp u32.q2
V3(vmin4_u32_s32_add, "vmin4.u32.s32.u32.add") //@ u32 u32.dp u32.dp u32.q2
V3(vset4_s32_lt, "vset4.s32.s32.lt") //@ u32 u32.dp u32.dp u32.q2
V3(vset4_eq_add, "vset4.u32.u32.eq.add") //@ u32 u32.dp u32.dp u32.q2
K3(vadd4_mask_b31, u32, u32, u32, u32, asm("vadd4.u32.u32.u32.sat %0.b31, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vsub4_sel, u32, u32, u32, u32, asm("vsub4.u32.u32.u32 %0, %1.b7531, %2.b0246, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vabsdiff4_add_mask, u32, u32, u32, u32, asm("vabsdiff4.u32.u32.u32.add %0.b20, %1.b3210, %2.b4567, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
K3(vmad_neg_c, u32, u32, u32, u32, asm("vmad.u32.u32.u32 %0, %1.h1, %2.h0, -%3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 u32.dp u32.dp u32.q2
