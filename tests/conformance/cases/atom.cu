// atom and red on global and shared memory: every operation and type, returned old values.
// arch: compute_90
#include "conf.cuh"
#include <cuda_fp16.h>

// Commutative operations from every thread into 4 words; the final words are deterministic.
#define RED4(name, T, ...)                                                                     \
  extern "C" __global__ void name(const T *A, const void *, const void *, T *D, int n) {       \
    IDX;                                                                                       \
    T a = A[i];                                                                                \
    T *p = &D[i % 4];                                                                          \
    __VA_ARGS__;                                                                               \
  }
RED4(atom_add_u32, u32, atomicAdd(p, a)) //@ u32 u32.seq nout=4
RED4(atom_add_u64, u64, atomicAdd(p, a)) //@ u64 u64.seq nout=4
RED4(atom_add_f32, f32, atomicAdd(p, a)) //@ f32 f32.seq nout=4
RED4(atom_add_f64, f64, atomicAdd(p, a)) //@ f64 f64.seq nout=4
RED4(atom_min_s32, s32, atomicMin(p, a)) //@ s32 s32.e nout=4 init=s32.e
RED4(atom_max_s32, s32, atomicMax(p, a)) //@ s32 s32.e nout=4 init=s32.e
RED4(atom_min_u32, u32, atomicMin(p, a)) //@ u32 u32.e nout=4 init=u32.ff
RED4(atom_max_u32, u32, atomicMax(p, a)) //@ u32 u32.e nout=4
RED4(atom_min_s64, s64, atomicMin(p, a)) //@ s64 s64.e nout=4
RED4(atom_max_u64, u64, atomicMax(p, a)) //@ u64 u64.e nout=4
RED4(atom_and_b32, u32, atomicAnd(p, a)) //@ u32 u32.r nout=4 init=u32.ff
RED4(atom_or_b32, u32, atomicOr(p, a)) //@ u32 u32.r nout=4
RED4(atom_xor_b32, u32, atomicXor(p, a)) //@ u32 u32.r nout=4
RED4(atom_and_b64, u64, atomicAnd(p, a)) //@ u64 u64.r nout=4 init=u64.e
RED4(atom_or_b64, u64, atomicOr(p, a)) //@ u64 u64.r nout=4
RED4(atom_xor_b64, u64, atomicXor(p, a)) //@ u64 u64.r nout=4
RED4(atom_inc_u32, u32, atomicInc(p, 17)) //@ u32 u32.seq nout=4
RED4(atom_dec_u32, u32, atomicDec(p, 17)) //@ u32 u32.seq nout=4 init=u32.idx
RED4(atom_cas_add_u32, u32, u32 old = *p; for (;;) { u32 seen = atomicCAS(p, old, old + a); if (seen == old) break; old = seen; }) //@ u32 u32.seq nout=4
RED4(atom_cas_add_u64, u64, u64 old = *p; for (;;) { u64 seen = atomicCAS(p, old, old * 3 + a); if (seen == old) break; old = seen; }) //@ u64 u64.ones nout=4
RED4(red_add_u32, u32, asm volatile("red.global.add.u32 [%0], %1;" ::"l"(p), "r"(a) : "memory")) //@ u32 u32.seq nout=4
RED4(red_add_f32, f32, asm volatile("red.global.add.f32 [%0], %1;" ::"l"(p), "f"(a) : "memory")) //@ f32 f32.seq nout=4
RED4(red_add_f64, f64, asm volatile("red.global.add.f64 [%0], %1;" ::"l"(p), "d"(a) : "memory")) //@ f64 f64.seq nout=4
RED4(red_max_s32, s32, asm volatile("red.global.max.s32 [%0], %1;" ::"l"(p), "r"(a) : "memory")) //@ s32 s32.e nout=4 init=s32.e
RED4(red_min_u64, u64, asm volatile("red.global.min.u64 [%0], %1;" ::"l"(p), "l"(a) : "memory")) //@ u64 u64.e nout=4 init=u64.e
RED4(red_and_b64, u64, asm volatile("red.global.and.b64 [%0], %1;" ::"l"(p), "l"(a) : "memory")) //@ u64 u64.r nout=4 init=u64.e
RED4(red_or_b32, u32, asm volatile("red.global.or.b32 [%0], %1;" ::"l"(p), "r"(a) : "memory")) //@ u32 u32.r nout=4
RED4(red_inc_u32, u32, asm volatile("red.global.inc.u32 [%0], %1;" ::"l"(p), "r"(5u) : "memory")) //@ u32 u32.seq nout=4
RED4(red_dec_u32, u32, asm volatile("red.global.dec.u32 [%0], %1;" ::"l"(p), "r"(9u) : "memory")) //@ u32 u32.seq nout=4
RED4(red_relaxed_gpu_add_s32, s32, asm volatile("red.relaxed.gpu.global.add.s32 [%0], %1;" ::"l"(p), "r"(a) : "memory")) //@ s32 s32.e nout=4
RED4(atom_acq_rel_sys_add_u64, u64, u64 r; asm volatile("atom.acq_rel.sys.global.add.u64 %0, [%1], %2;" : "=l"(r) : "l"(p), "l"(a) : "memory")) //@ u64 u64.seq nout=4
RED4(atom_generic_add_s32, s32, s32 r; asm volatile("atom.add.s32 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(a) : "memory")) //@ s32 s32.e nout=4
RED4(atom_add_noftz_f16, u16, u16 r; asm volatile("atom.global.add.noftz.f16 %0, [%1], %2;" : "=h"(r) : "l"(p), "h"(u16(0x3c00)) : "memory")) //@ f16 u16.e nout=4
RED4(atom_add_noftz_f16x2, u32, u32 r; asm volatile("atom.global.add.noftz.f16x2 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(0x3c004000u) : "memory")) //@ f16x2 u32.e nout=4
RED4(atom_add_noftz_bf16, u16, u16 r; asm volatile("atom.global.add.noftz.bf16 %0, [%1], %2;" : "=h"(r) : "l"(p), "h"(u16(0x3f80)) : "memory")) //@ bf16 u16.e nout=4
RED4(atom_add_noftz_bf16x2, u32, u32 r; asm volatile("atom.global.add.noftz.bf16x2 %0, [%1], %2;" : "=r"(r) : "l"(p), "r"(0x3f804000u) : "memory")) //@ bf16x2 u32.e nout=4

// Old values: each thread works on its own word D[2i] and stores what atom returned in D[2i+1].
#define OLD(name, T, ...)                                                                      \
  extern "C" __global__ void name(const T *A, const T *B, const void *, T *D, int n) {         \
    IDX;                                                                                       \
    T a = A[i], b = B[i];                                                                      \
    T *p = &D[2 * i];                                                                          \
    *p = b;                                                                                    \
    T old;                                                                                     \
    __VA_ARGS__;                                                                               \
    D[2 * i + 1] = old;                                                                        \
  }
OLD(old_exch_b32, u32, asm volatile("atom.global.exch.b32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(a) : "memory")) //@ u32 u32.e u32.s3 per=2
OLD(old_exch_b64, u64, asm volatile("atom.global.exch.b64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(a) : "memory")) //@ u64 u64.e u64.s3 per=2
OLD(old_cas_b32, u32, asm volatile("atom.global.cas.b32 %0, [%1], %2, %3;" : "=r"(old) : "l"(p), "r"(a), "r"(a ^ 0x5555u) : "memory")) //@ u32 u32.s3 u32.s3 per=2
OLD(old_cas_b64, u64, asm volatile("atom.global.cas.b64 %0, [%1], %2, %3;" : "=l"(old) : "l"(p), "l"(a), "l"(~a) : "memory")) //@ u64 u64.s3 u64.s3 per=2
OLD(old_add_s32, s32, asm volatile("atom.global.add.s32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(a) : "memory")) //@ s32 s32.s3 s32.s3 per=2
OLD(old_inc_u32, u32, asm volatile("atom.global.inc.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(a) : "memory")) //@ u32 u32.e u32.s3 per=2
OLD(old_dec_u32, u32, asm volatile("atom.global.dec.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(a) : "memory")) //@ u32 u32.e u32.s3 per=2
OLD(old_min_s64, s64, asm volatile("atom.global.min.s64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(a) : "memory")) //@ s64 s64.s3 s64.s3 per=2
OLD(old_or_b64, u64, asm volatile("atom.global.or.b64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(a) : "memory")) //@ u64 u64.s3 u64.e per=2
OLD(old_add_f32, f32, asm volatile("atom.global.add.f32 %0, [%1], %2;" : "=f"(old) : "l"(p), "f"(a) : "memory")) //@ f32 f32.s f32.s per=2
OLD(red_add_sub_f32, f32, asm volatile("red.global.add.f32 [%0], %1;" ::"l"(p), "f"(a) : "memory"); old = 0) //@ f32 f32.s f32.s per=2
OLD(old_add_f64, f64, asm volatile("atom.global.add.f64 %0, [%1], %2;" : "=d"(old) : "l"(p), "d"(a) : "memory")) //@ f64 f64.s f64.s per=2
OLD(old_xor_b32, u32, old = atomicXor(p, a)) //@ u32 u32.e u32.s3 per=2

// Shared memory: per-block accumulation into 4 shared words, then copied out.
#define SHARED4(name, T, INIT, ...)                                                            \
  extern "C" __global__ void name(const T *A, const void *, const void *, T *D, int n) {       \
    __shared__ T s[4];                                                                         \
    int i = blockIdx.x * blockDim.x + threadIdx.x;                                             \
    if (threadIdx.x < 4) s[threadIdx.x] = INIT;                                                \
    __syncthreads();                                                                           \
    if (i < n) {                                                                               \
      T a = A[i];                                                                              \
      T *p = &s[threadIdx.x % 4];                                                              \
      __VA_ARGS__;                                                                             \
    }                                                                                          \
    __syncthreads();                                                                           \
    if (threadIdx.x < 4) D[blockIdx.x * 4 + threadIdx.x] = s[threadIdx.x];                     \
  }
SHARED4(sh_add_u32, u32, 0, atomicAdd(p, a)) //@ u32 u32.seq nout=8 block=128
SHARED4(sh_add_f32, f32, 0.5f, atomicAdd(p, a)) //@ f32 f32.seq nout=8 block=128
SHARED4(sh_max_s32, s32, -5, atomicMax(p, a)) //@ s32 u32.seq nout=8 block=128
SHARED4(sh_min_u64, u64, ~0ull, atomicMin(p, a)) //@ u64 u64.seq nout=8 block=128
SHARED4(sh_or_b32, u32, 0, atomicOr(p, a)) //@ u32 u32.seq nout=8 block=128
SHARED4(sh_inc_u32, u32, 0, atomicInc(p, 7)) //@ u32 u32.seq nout=8 block=128
SHARED4(sh_cas_u32, u32, 1, u32 old = *p; for (;;) { u32 seen = atomicCAS(p, old, old * 5 + a); if (seen == old) break; old = seen; }) //@ u32 u32.ones nout=8 block=4 grid=2 threads=8
SHARED4(sh_exch_u32, u32, 0, atomicExch(p, 7u)) //@ u32 u32.seq nout=8 block=128
SHARED4(sh_red_add_u64, u64, 3, asm volatile("red.shared.add.u64 [%0], %1;" ::"r"((u32)__cvta_generic_to_shared(p)), "l"(a) : "memory")) //@ u64 u64.seq nout=8 block=128
SHARED4(sh_atom_xor_b32, u32, 0, u32 r; asm volatile("atom.shared.xor.b32 %0, [%1], %2;" : "=r"(r) : "r"((u32)__cvta_generic_to_shared(p)), "r"(a) : "memory")) //@ u32 u32.seq nout=8 block=128
SHARED4(sh_atom_add_f64, f64, 0.25, f64 r; asm volatile("atom.shared.add.f64 %0, [%1], %2;" : "=d"(r) : "r"((u32)__cvta_generic_to_shared(p)), "d"(a) : "memory")) //@ f64 f64.seq nout=8 block=128
