// Memory: ld/st widths and vector forms in every state space, .nc/ldu/volatile/relaxed/acquire,
// generic addressing, cvta, isspacep, mov pack/unpack, .func calls (params, recursion, indirect).
// arch: compute_75
#include "conf.cuh"

#define KERNEL(name, TA, TD)                                                                   \
  extern "C" __global__ void name(const TA *A, const TA *B, const void *, TD *D, int n)

KERNEL(ld_v4_u32, u32, u32) { IDX; u32 x, y, z, w; asm("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "l"(A + 4 * (i / 4))); D[i] = (i % 4 == 0 ? x : i % 4 == 1 ? y : i % 4 == 2 ? z : w) ^ x; } //@ u32 u32.seq
KERNEL(ld_v2_u64, u64, u64) { IDX; u64 x, y; asm("ld.global.v2.u64 {%0, %1}, [%2];" : "=l"(x), "=l"(y) : "l"(A + 2 * (i / 2))); D[i] = i % 2 ? y - x : x; } //@ u64 u64.seq
KERNEL(ld_v2_f64, f64, f64) { IDX; f64 x, y; asm("ld.global.v2.f64 {%0, %1}, [%2];" : "=d"(x), "=d"(y) : "l"(A + 2 * (i / 2))); D[i] = i % 2 ? y : x; } //@ f64 f64.seq
KERNEL(ld_v4_f32_c, f32, f32) { IDX; float4 v = reinterpret_cast<const float4 *>(A)[i / 4]; D[i] = v.x + v.y * 2 + v.z * 3 + v.w * 4; } //@ f32 f32.seq
KERNEL(st_v4_u32, u32, u32) { IDX; if (i % 4) return; asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(D + i), "r"(A[i + 3]), "r"(A[i + 2]), "r"(A[i + 1]), "r"(A[i]) : "memory"); } //@ u32 u32.seq
KERNEL(st_v2_f32_c, f32, f32) { IDX; if (i % 2) return; reinterpret_cast<float2 *>(D)[i / 2] = make_float2(A[i + 1], A[i]); } //@ f32 f32.seq
KERNEL(ld_u8_ext, u32, u32) { IDX; u32 x; asm("ld.global.u8 %0, [%1];" : "=r"(x) : "l"((const u8 *)A + i)); D[i] = x; } //@ u32 u32.e
KERNEL(ld_s8_ext, u32, u32) { IDX; u32 x; asm("ld.global.s8 %0, [%1];" : "=r"(x) : "l"((const u8 *)A + i)); D[i] = x; } //@ u32 u32.e
KERNEL(ld_s16_ext, u32, u32) { IDX; u32 x; asm("ld.global.s16 %0, [%1];" : "=r"(x) : "l"((const u16 *)A + i)); D[i] = x; } //@ u32 u32.e
KERNEL(ld_u16_ext64, u32, u64) { IDX; u64 x; asm("ld.global.u16 %0, [%1];" : "=l"(x) : "l"((const u16 *)A + i)); D[i] = x; } //@ u64 u32.e
KERNEL(ld_s32_ext64, u32, u64) { IDX; u64 x; asm("ld.global.s32 %0, [%1];" : "=l"(x) : "l"(A + i)); D[i] = x; } //@ u64 u32.e
KERNEL(st_u8_trunc, u32, u32) { IDX; asm volatile("st.global.u8 [%0], %1;" ::"l"((u8 *)D + i), "r"(A[i]) : "memory"); } //@ u32 u32.e
KERNEL(st_b16_trunc, u32, u32) { IDX; asm volatile("st.global.b16 [%0], %1;" ::"l"((u16 *)D + i), "h"((u16)(A[i] >> 3)) : "memory"); } //@ u32 u32.e
KERNEL(ld_v4_u8, u32, u32) { IDX; u16 x, y, z, w; asm("ld.global.v4.u8 {%0, %1, %2, %3}, [%4];" : "=h"(x), "=h"(y), "=h"(z), "=h"(w) : "l"(A + i)); D[i] = u32(x) << 24 | u32(y) << 16 | u32(z) << 8 | w; } //@ u32 u32.e
KERNEL(ld_nc_f32, f32, f32) { IDX; f32 x; asm("ld.global.nc.f32 %0, [%1];" : "=f"(x) : "l"(A + (n - 1 - i))); D[i] = x; } //@ f32 f32.a
KERNEL(ld_nc_v2_s32, s32, s32) { IDX; s32 x, y; asm("ld.global.nc.v2.s32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "l"(A + 2 * (i / 2))); D[i] = x - y; } //@ s32 u32.seq
KERNEL(ld_nc_c, u64, u64) { IDX; D[i] = __ldg(A + i) + __ldg(A + (i + 1) % n); } //@ u64 u64.e
KERNEL(ldu_u32, u32, u32) { IDX; u32 x; asm("ldu.global.u32 %0, [%1];" : "=r"(x) : "l"(A + 3)); D[i] = x + A[i]; } //@ u32 u32.e
KERNEL(ld_volatile, u32, u32) { IDX; u32 x; asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(x) : "l"(A + i)); D[i] = x; } //@ u32 u32.e
KERNEL(ld_relaxed_acquire, u32, u32) { IDX; u32 x, y; asm volatile("ld.relaxed.gpu.global.u32 %0, [%2]; ld.acquire.gpu.global.u32 %1, [%2];" : "=r"(x), "=r"(y) : "l"(A + i)); D[i] = x ^ (y << 1); } //@ u32 u32.e
KERNEL(st_release, u32, u32) { IDX; asm volatile("st.release.gpu.global.u32 [%0], %1; st.relaxed.sys.global.u32 [%0+0], %1;" ::"l"(D + i), "r"(A[i] * 3) : "memory"); } //@ u32 u32.e
// vector memory-model accesses (CUB's tile status pairs are st.relaxed.gpu.v2.u32): one access each
KERNEL(ld_relaxed_v2, u32, u32) { IDX; u32 x, y; asm volatile("ld.relaxed.gpu.global.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "l"(A + 2 * (i / 2))); D[i] = i % 2 ? y - x : x ^ 5; } //@ u32 u32.seq
KERNEL(ld_relaxed_v4_u16, u32, u32) { IDX; u16 a, b, c, d; asm volatile("ld.relaxed.gpu.global.v4.u16 {%0, %1, %2, %3}, [%4];" : "=h"(a), "=h"(b), "=h"(c), "=h"(d) : "l"(A + 2 * (i / 2))); D[i] = i % 2 ? (u32(c) << 16 | d) : (u32(a) | u32(b) << 16) ^ 1; } //@ u32 u32.seq
KERNEL(ld_acquire_v2_u64, u64, u64) { IDX; u64 x, y; asm volatile("ld.acquire.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(x), "=l"(y) : "l"(A + 2 * (i / 2))); D[i] = i % 2 ? y : x + 1; } //@ u64 u64.seq
KERNEL(st_relaxed_v2, u32, u32) { IDX; if (i % 2) return; asm volatile("st.relaxed.gpu.global.v2.u32 [%0], {%1, %2};" ::"l"(D + i), "r"(A[i + 1]), "r"(A[i] * 3) : "memory"); } //@ u32 u32.seq
KERNEL(st_release_v4_f32, f32, f32) { IDX; if (i % 4) return; asm volatile("st.release.gpu.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(D + i), "f"(A[i + 3]), "f"(A[i + 2] * 2), "f"(A[i + 1]), "f"(-A[i]) : "memory"); } //@ f32 f32.seq
KERNEL(st_relaxed_v2_sh, u32, u32) { __shared__ u32 s[128]; IDX; u32 t = threadIdx.x; if (t % 2 == 0) asm volatile("st.relaxed.cta.shared.v2.u32 [%0], {%1, %2};" ::"r"((u32)__cvta_generic_to_shared(s + t)), "r"(A[i] + 7), "r"(A[i + 1] ^ 9) : "memory"); __syncthreads(); u32 x, y; asm volatile("ld.acquire.cta.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"((u32)__cvta_generic_to_shared(s + (t & ~1u)))); D[i] = t % 2 ? y : x; } //@ u32 u32.seq block=128
KERNEL(ld_cache_hints, u32, u32) { IDX; u32 x, y; asm("ld.global.ca.u32 %0, [%2]; ld.global.cs.u32 %1, [%2+4];" : "=r"(x), "=r"(y) : "l"(A + 2 * (i / 2))); asm volatile("st.global.wb.u32 [%0], %1;" ::"l"(D + i), "r"(x + y)); } //@ u32 u32.seq
KERNEL(ld_l1_no_allocate, u32, u32) { IDX; u32 x; asm("ld.global.L1::no_allocate.u32 %0, [%1];" : "=r"(x) : "l"(A + i)); D[i] = x; } //@ u32 u32.e
KERNEL(prefetch_ops, u32, u32) { IDX; asm volatile("prefetch.global.L2 [%0]; prefetch.global.L1 [%0]; prefetchu.L1 [%0];" ::"l"(A + i)); D[i] = A[i]; } //@ u32 u32.e

// shared memory: static, vector, 32-bit addresses, dynamic
KERNEL(sh_reverse, u32, u32) { __shared__ u32 s[128]; IDX; s[threadIdx.x] = A[i]; __syncthreads(); D[i] = s[blockDim.x - 1 - threadIdx.x]; } //@ u32 u32.seq block=128
KERNEL(sh_v2_b32, u32, u32) { __shared__ u32 s[256]; IDX; u32 t = threadIdx.x; u32 sa = (u32)__cvta_generic_to_shared(s + 2 * t); asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(sa), "r"(A[i]), "r"(~A[i]) : "memory"); __syncthreads(); u32 x, y; u32 sb = (u32)__cvta_generic_to_shared(s + 2 * (blockDim.x - 1 - t)); asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(sb)); D[i] = x + (y << 4); } //@ u32 u32.seq block=64
KERNEL(sh_dynamic, f32, f32) { extern __shared__ f32 dyn[]; IDX; dyn[threadIdx.x] = A[i]; dyn[blockDim.x + threadIdx.x] = A[i] * 2; __syncthreads(); D[i] = dyn[(threadIdx.x + 1) % blockDim.x] + dyn[blockDim.x + (threadIdx.x + 5) % blockDim.x]; } //@ f32 f32.seq block=32 shmem=256
KERNEL(sh_u8_u16, u32, u32) { __shared__ u8 b[64]; __shared__ u16 h[64]; IDX; b[threadIdx.x] = A[i]; h[threadIdx.x] = A[i] >> 8; __syncthreads(); D[i] = b[63 - threadIdx.x] | u32(h[(threadIdx.x + 1) % 64]) << 8; } //@ u32 u32.seq block=64
KERNEL(sh_generic, u32, u32) { __shared__ u32 s[64]; IDX; u32 *p = s + threadIdx.x; u32 x = 0; asm volatile("st.u32 [%0], %1;" ::"l"(p), "r"(A[i])); __syncthreads(); asm volatile("ld.u32 %0, [%1];" : "=r"(x) : "l"(s + (threadIdx.x ^ 1))); D[i] = x; } //@ u32 u32.seq block=64
KERNEL(sh_cvta, u64, u64) { __shared__ u32 s[64]; IDX; u64 g = (u64)(s + threadIdx.x), sh, back; asm("cvta.to.shared.u64 %0, %1;" : "=l"(sh) : "l"(g)); asm("cvta.shared.u64 %0, %1;" : "=l"(back) : "l"(sh)); D[i] = (sh - (u64)threadIdx.x * 4) * 0 + (back == g) + 2 * (sh == 4 * threadIdx.x + (u64)__cvta_generic_to_shared(s)); } //@ u64 u64.seq block=64
KERNEL(sh_cvt_u32, u32, u32) { __shared__ u32 s[64]; IDX; s[threadIdx.x] = A[i]; __syncthreads(); u32 a32; asm("{ .reg .u64 %%t; cvta.to.shared.u64 %%t, %1; cvt.u32.u64 %0, %%t; }" : "=r"(a32) : "l"(s + (63 - threadIdx.x))); u32 x; asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x) : "r"(a32)); D[i] = x; } //@ u32 u32.seq block=64

// isspacep and generic pointers to every space
__constant__ u32 ctab[16] = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597};
__device__ u32 gtab[4] = {7, 11, 13, 17};
__device__ __noinline__ u32 space_bits(const void *p) { return __isGlobal(p) | __isShared(p) << 1 | __isLocal(p) << 2 | __isConstant(p) << 3; }
KERNEL(isspacep, u32, u32) { __shared__ u32 s[4]; u32 loc[4]; IDX; loc[i % 4] = i; const void *ps[5] = {A, s, loc + (i % 4), ctab, gtab}; D[i] = space_bits(ps[i % 5]) | (loc[i % 4] != i) << 8; } //@ u32 u32.e
KERNEL(isspacep_asm, u32, u32) { __shared__ u32 s[4]; IDX; u32 g, sh, l; asm("{ .reg .pred %%p, %%q, %%r; isspacep.global %%p, %3; isspacep.shared %%q, %4; isspacep.local %%r, %3; selp.u32 %0, 1, 0, %%p; selp.u32 %1, 1, 0, %%q; selp.u32 %2, 1, 0, %%r; }" : "=r"(g), "=r"(sh), "=r"(l) : "l"(A), "l"(s)); D[i] = g | sh << 1 | l << 2; } //@ u32 u32.ones
KERNEL(const_table, u32, u32) { IDX; D[i] = ctab[A[i] % 16] + gtab[i % 4]; } //@ u32 u32.e
KERNEL(const_asm, u32, u32) { IDX; u32 x; asm("ld.const.u32 %0, [ctab+8];" : "=r"(x)); D[i] = x * A[i]; } //@ u32 u32.e
KERNEL(param_asm, u32, u32) { IDX; u32 x; asm("ld.param.u32 %0, [param_asm_param_4];" : "=r"(x)); D[i] = x + A[i]; } //@ u32 u32.e

// local memory: a dynamically indexed per-thread array
KERNEL(local_array, u32, u32) { IDX; u32 loc[24]; for (int k = 0; k < 24; ++k) loc[(k * 7 + A[i]) % 24] = k * A[i]; u32 s = 0; for (int k = 0; k < 24; k += 5) s += loc[(A[i] + k) % 24] << k; D[i] = s; } //@ u32 u32.e
KERNEL(local_asm, u32, u32) { IDX; u32 x; asm volatile(".local .align 8 .b32 tmp[4]; .reg .u64 %%lp; st.local.u32 [tmp+4], %1; st.local.v2.u32 [tmp+8], {%1, %1}; mov.u64 %%lp, tmp; ld.local.u32 %0, [%%lp+8];" : "=r"(x) : "r"(A[i])); D[i] = x; } //@ u32 u32.e

// registers and .local variables declared without % inside an inline-asm { } scope
KERNEL(scoped_bare_names, u32, u32) { IDX; u32 x; asm volatile("{ .local .b32 tmp[2]; .reg .pred p; .reg .u32 t; setp.lt.u32 p, %1, 100; st.local.u32 [tmp+4], %1; ld.local.u32 t, [tmp+4]; selp.u32 %0, t, 7, p; }" : "=r"(x) : "r"(A[i])); D[i] = x; } //@ u32 u32.e

// mov: pack and unpack
KERNEL(mov_pack64, u32, u64) { IDX; u64 x; asm("mov.b64 %0, {%1, %2};" : "=l"(x) : "r"(A[i]), "r"(B[i])); D[i] = x; } //@ u64 u32.e u32.s3
KERNEL(mov_unpack64, u64, u32) { IDX; u32 lo, hi; asm("mov.b64 {%0, %1}, %2;" : "=r"(lo), "=r"(hi) : "l"(A[i])); D[i] = lo - hi; } //@ u32 u64.e
KERNEL(mov_pack32, u16, u32) { IDX; u32 x; asm("mov.b32 %0, {%1, %2};" : "=r"(x) : "h"(A[i]), "h"(B[i])); D[i] = x; } //@ u32 u16.e u16.e
KERNEL(mov_unpack32_sink, u32, u16) { IDX; u16 hi; asm("mov.b32 {_, %0}, %1;" : "=h"(hi) : "r"(A[i])); D[i] = hi; } //@ u16 u32.e
KERNEL(mov_f32_imm, u32, f32) { IDX; f32 x, y; asm("mov.f32 %0, 0f3F800001; mov.b32 %1, 0fFF800000;" : "=f"(x), "=f"(y)); D[i] = A[i] & 1 ? x : y; } //@ f32 u32.e
KERNEL(mov_f64_imm, u32, f64) { IDX; f64 x; asm("mov.f64 %0, 0d3FF0000000000001;" : "=d"(x)); D[i] = x * A[i]; } //@ f64 u32.e

// .func calls: parameters and return values, recursion (indirect calls: call.cu)
__device__ __noinline__ u64 mix(u64 a, u32 b, f32 c) { return a * 31 + b + (u64)(c * 4); }
__device__ __noinline__ u32 fib(u32 k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }
struct Pair { u32 x; f32 y; u64 z; };
__device__ __noinline__ Pair make_pair(u32 v) { return Pair{v + 1, v * 0.5f, (u64)v << 33}; }
KERNEL(call_params, u32, u64) { IDX; D[i] = mix(A[i], B[i] + 1, (f32)B[i]); } //@ u64 u32.e u32.s3
KERNEL(call_recursive, u32, u32) { IDX; D[i] = fib(A[i] % 20); } //@ u32 u32.e
KERNEL(call_struct_return, u32, u64) { IDX; Pair p = make_pair(A[i]); D[i] = p.x + (u64)p.y + p.z; } //@ u64 u32.e
