// The warp-level matrix configurations recorded on the GPU (tests/gpu/record_mma.cpp), in index
// order: the kernel of configuration i is named mma_<name> in mma_kernels.ptx. The first group
// are `mma.sync` (fragments in the ISA's layouts), the second `wmma` (whole tiles via memory).
#pragma once

#include "mma_inputs.h"

#define MMA_CONFIGS(X)                                                                             \
  X(f16_f32_m16n8k16, 16, 8, 16, kF16, kF16, kF32)                                                \
  X(bf16_f32_m16n8k16, 16, 8, 16, kBF16, kBF16, kF32)                                             \
  X(f16_f16_m16n8k16, 16, 8, 16, kF16, kF16, kF16)                                                \
  X(f16_f32_m16n8k8, 16, 8, 8, kF16, kF16, kF32)                                                  \
  X(bf16_f32_m16n8k8, 16, 8, 8, kBF16, kBF16, kF32)                                               \
  X(tf32_f32_m16n8k8, 16, 8, 8, kTF32, kTF32, kF32)                                               \
  X(tf32_f32_m16n8k4, 16, 8, 4, kTF32, kTF32, kF32)                                               \
  X(s8_s32_m16n8k32, 16, 8, 32, kS8, kS8, kS32)                                                   \
  X(s8_s32_m16n8k32_sat, 16, 8, 32, kS8, kS8, kS32)                                               \
  X(u8s8_s32_m16n8k16, 16, 8, 16, kU8, kS8, kS32)                                                 \
  X(e4m3_f32_m16n8k32, 16, 8, 32, kE4M3, kE4M3, kF32)                                             \
  X(e5m2e4m3_f32_m16n8k32, 16, 8, 32, kE5M2, kE4M3, kF32)                                         \
  X(f64_m8n8k4, 8, 8, 4, kF64, kF64, kF64)                                                        \
  X(f64_m16n8k16, 16, 8, 16, kF64, kF64, kF64)                                                    \
  X(s4_s32_m16n8k64, 16, 8, 64, kS4, kS4, kS32)                                                   \
  X(b1_and_m16n8k256, 16, 8, 256, kB1, kB1, kS32)                                                 \
  X(wmma_f16_f32_m16n16k16, 16, 16, 16, kF16, kF16, kF32)                                         \
  X(wmma_f16_f16_m16n16k16, 16, 16, 16, kF16, kF16, kF16)                                         \
  X(wmma_bf16_f32_m16n16k16, 16, 16, 16, kBF16, kBF16, kF32)                                      \
  X(wmma_tf32_f32_m16n16k8, 16, 16, 8, kTF32, kTF32, kF32)                                        \
  X(wmma_s8_s32_m16n16k16, 16, 16, 16, kS8, kS8, kS32)                                            \
  X(wmma_f64_m8n8k4, 8, 8, 4, kF64, kF64, kF64)                                                   \
  X(wmma_f16_f32_m32n8k16, 32, 8, 16, kF16, kF16, kF32)                                           \
  X(wmma_f16_f32_m8n32k16, 8, 32, 16, kF16, kF16, kF32)                                           \
  X(e4m3_f32_m16n8k16, 16, 8, 16, kE4M3, kE4M3, kF32)                                             \
  X(e4m3_f16_m16n8k32, 16, 8, 32, kE4M3, kE4M3, kF16)                                             \
  X(e5m2_f16_m16n8k16, 16, 8, 16, kE5M2, kE5M2, kF16)

#define MMA_CONFIG_ENTRY(name, m, n, k, a, b, c) {#name, m, n, k, a, b, c},
static const MmaConfig kMmaConfigs[] = {MMA_CONFIGS(MMA_CONFIG_ENTRY)};
#undef MMA_CONFIG_ENTRY
static const int kMmaConfigCount = int(sizeof kMmaConfigs / sizeof kMmaConfigs[0]);

// Bits of one element of format f.
MMA_HD inline int mmaElementBits(MmaFmt f) {
  switch (f) {
  case kF64: return 64;
  case kF32: case kTF32: case kS32: return 32;
  case kF16: case kBF16: return 16;
  case kS4: case kU4: return 4;
  case kB1: return 1;
  default: return 8;
  }
}

// Position (row, col) of fragment element i of a lane, in the ISA's layouts for the m16n8kK
// shapes with e elements per register (the m8n8 shapes are their first eight rows).
MMA_HD inline void mmaPosA(int i, int e, int lane, int &row, int &col) {
  const int g = lane >> 2, t = lane & 3, r = i / e;
  row = g + 8 * (r % 2);
  col = t * e + i % e + (r / 2) * 4 * e;
}
MMA_HD inline void mmaPosB(int i, int e, int lane, int &row, int &col) {
  const int g = lane >> 2, t = lane & 3, r = i / e;
  row = t * e + i % e + r * 4 * e;
  col = g;
}
MMA_HD inline void mmaPosC(int i, int lane, int &row, int &col) {
  row = (lane >> 2) + 8 * (i / 2);
  col = 2 * (lane & 3) + i % 2;
}
