// 8-bit floats and packing conversions: f32 pairs and f16x2 to e4m3x2/e5m2x2 (.satfinite,
// .relu) and back to f16x2 for every 8-bit code, tf32 rounding, cvt.pack.sat.
// arch: compute_90
#include "conf.cuh"

#define NK(name, TD, body) extern "C" __global__ void name(const void *, const void *, const void *, TD *D, int n) { IDX; TD d; body; D[i] = d; }

K2(e4m3x2_f32, u32, f32, f32, { u16 h; asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(h) : "f"(a), "f"(b)); d = h; }) //@ u32 f32.h f32.a
K2(e5m2x2_f32, u32, f32, f32, { u16 h; asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(h) : "f"(a), "f"(b)); d = h; }) //@ u32 f32.h f32.a
K2(e4m3x2_f32_relu, u32, f32, f32, { u16 h; asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;" : "=h"(h) : "f"(a), "f"(b)); d = h; }) //@ u32 f32.a f32.s
K2(e5m2x2_f32_relu, u32, f32, f32, { u16 h; asm("cvt.rn.satfinite.relu.e5m2x2.f32 %0, %1, %2;" : "=h"(h) : "f"(a), "f"(b)); d = h; }) //@ u32 f32.a f32.s
K1(e4m3x2_f16x2, u32, u32, { u16 h; asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(h) : "r"(a)); d = h; }) //@ u32 f16x2.e
K1(e5m2x2_f16x2, u32, u32, { u16 h; asm("cvt.rn.satfinite.e5m2x2.f16x2 %0, %1;" : "=h"(h) : "r"(a)); d = h; }) //@ u32 f16x2.e
K1(e5m2x2_f16x2_relu, u32, u32, { u16 h; asm("cvt.rn.satfinite.relu.e5m2x2.f16x2 %0, %1;" : "=h"(h) : "r"(a)); d = h; }) //@ u32 f16x2.e
// Every 8-bit code, paired with its reverse, back to f16x2.
NK(f16x2_e4m3x2, u32, { u16 h = u16(i | (255 - i) << 8); asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(d) : "h"(h)); }) //@ u32 threads=256
NK(f16x2_e5m2x2, u32, { u16 h = u16(i | (255 - i) << 8); asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(d) : "h"(h)); }) //@ u32 threads=256
NK(f16x2_e4m3x2_relu, u32, { u16 h = u16(i | (255 - i) << 8); asm("cvt.rn.relu.f16x2.e4m3x2 %0, %1;" : "=r"(d) : "h"(h)); }) //@ u32 threads=256
// tf32
K1(tf32_rna, u32, f32, asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(d) : "f"(a))) //@ u32 f32.bh
K1(tf32_rna_satfinite, u32, f32, asm("cvt.rna.satfinite.tf32.f32 %0, %1;" : "=r"(d) : "f"(a))) //@ u32 f32.bh
K1(tf32_rn, u32, f32, asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(d) : "f"(a))) //@ u32 f32.bh
K1(tf32_rz_relu, u32, f32, asm("cvt.rz.relu.tf32.f32 %0, %1;" : "=r"(d) : "f"(a))) //@ u32 f32.bh
// cvt.pack.sat: two s32 narrowed with saturation, packed above c's low part
K3(pack_sat_s8, u32, s32, s32, u32, asm("cvt.pack.sat.s8.s32.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 s32.s3 s32.s3 u32.q2
K3(pack_sat_u8, u32, s32, s32, u32, asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))) //@ u32 s32.s3 s32.s3 u32.q2
K2(pack_sat_s16, u32, s32, s32, asm("cvt.pack.sat.s16.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ u32 s32.e s32.s3
K2(pack_sat_u16, u32, s32, s32, asm("cvt.pack.sat.u16.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))) //@ u32 s32.e s32.s3
