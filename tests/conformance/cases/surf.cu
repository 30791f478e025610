// Surface objects: suld/sust (.b in every width and vector form, .p), sured and suq on 1D/2D/3D,
// layered and cubemap arrays in each boundary mode (res= on each case line; see harness.cpp).
// The surface's final contents follow each case's output.
// arch: compute_75
#include "conf.cuh"

// Every kernel takes (A, B, surface object, D, n); x coordinates of .b forms are in bytes.
#define SURF(name, TD)                                                                         \
  extern "C" __global__ void name(const void *, const void *, cudaSurfaceObject_t s, TD *D, int n)
#define ZERO cudaBoundaryModeZero
#define CLAMP cudaBoundaryModeClamp

// Element (e % w, e / w) of a w x h surface as coordinates pushed out of range on the edges (by
// a distance depending on the other coordinate), so that clamping brings each back: one writer
// per element.
__device__ int2 outside(int e, int w, int h) {
  int x = e % w, y = e / w;
  return make_int2(x == 0 ? -1 - y : x == w - 1 ? w + y : x,
                   y == 0 ? -1 - x : y == h - 1 ? h + x : y);
}
__device__ u32 pack4(uchar4 v) { return v.x | v.y << 8 | v.z << 16 | u32(v.w) << 24; }

// suld: 1D (16 elements), 2D (8x6), 3D (4x4x3), layered (3 layers), cubemaps; out of range
// coordinates in the zero and clamp modes, in range in the trap mode
SURF(s1d_read_zero, u32) { IDX; D[i] = surf1Dread<u32>(s, (i - 4) * 4, ZERO); } //@ u32 threads=24 res=surf.1d.u32x1
SURF(s1d_read_u8x4_clamp, u32) { IDX; D[i] = pack4(surf1Dread<uchar4>(s, i == n - 1 ? 1 << 20 : (i - 4) * 4, CLAMP)); } //@ u32 threads=25 res=surf.1d.u8x4
SURF(s2d_read_s16x2_zero, s32) { IDX; short2 v = surf2Dread<short2>(s, (i % 10 - 1) * 4, i / 10 - 1, ZERO); D[2 * i] = v.x; D[2 * i + 1] = v.y; } //@ s32 threads=80 per=2 res=surf.2d.s16x2
SURF(s2d_read_f32x4_clamp, f32) { IDX; float4 v = surf2Dread<float4>(s, (i % 10 - 1) * 16, i / 10 - 1, CLAMP); D[4 * i] = v.x; D[4 * i + 1] = v.y; D[4 * i + 2] = v.z; D[4 * i + 3] = v.w; } //@ f32 threads=80 per=4 res=surf.2d.f32x4
SURF(s2d_read_b64, s64) { IDX; D[i] = surf2Dread<long long>(s, i % 8 * 8, i / 8); } //@ s64 threads=48 res=surf.2d.u32x2
SURF(s2d_read_u16x4, u64) { IDX; ushort4 v = surf2Dread<ushort4>(s, i % 8 * 8, i / 8); D[i] = v.x | u32(v.y) << 16 | u64(v.z) << 32 | u64(v.w) << 48; } //@ u64 threads=48 res=surf.2d.u16x4
SURF(s2d_read_s32x4, s32) { IDX; int4 v = surf2Dread<int4>(s, i % 8 * 16, i / 8); D[4 * i] = v.x; D[4 * i + 1] = v.y; D[4 * i + 2] = v.z; D[4 * i + 3] = v.w; } //@ s32 threads=48 per=4 res=surf.2d.s32x4
SURF(s2d_read_v2b64, u64) { IDX; asm("suld.b.2d.v2.b64.trap {%0, %1}, [%2, {%3, %4}];" : "=l"(D[2 * i]), "=l"(D[2 * i + 1]) : "l"(s), "r"(i % 8 * 16), "r"(i / 8)); } //@ u64 threads=48 per=2 res=surf.2d.u32x4
SURF(s2d_read_b16_clamp, u32) { IDX; D[i] = surf2Dread<u16>(s, (i % 10 - 1) * 2, i / 10 - 1, CLAMP); } //@ u32 threads=80 res=surf.2d.u8x2
SURF(s3d_read_f32x2_zero, f32) { IDX; float2 v = surf3Dread<float2>(s, (i % 6 - 1) * 8, i / 6 % 6 - 1, i / 36 - 1, ZERO); D[2 * i] = v.x; D[2 * i + 1] = v.y; } //@ f32 threads=180 per=2 res=surf.3d.f32x2
SURF(s3d_read_u8_clamp, u32) { IDX; D[i] = surf3Dread<u8>(s, i % 6 - 1, i / 6 % 6 - 1, i / 36 - 1, CLAMP); } //@ u32 threads=180 res=surf.3d.u8x1
SURF(sa1d_read_clamp, s32) { IDX; D[i] = surf1DLayeredread<int>(s, (i % 20 - 2) * 4, i / 20, CLAMP); } //@ s32 threads=60 res=surf.a1d.s32x1
SURF(sa2d_read_u16x2_zero, u32) { IDX; ushort2 v = surf2DLayeredread<ushort2>(s, (i % 10 - 1) * 4, i / 10 % 8 - 1, i / 80, ZERO); D[i] = v.x | u32(v.y) << 16; } //@ u32 threads=240 res=surf.a2d.u16x2
SURF(scube_read, u32) { IDX; D[i] = surfCubemapread<u32>(s, i % 4 * 4, i / 4 % 4, i / 16); } //@ u32 threads=96 res=surf.cube.u32x1
SURF(sacube_read, f32) { IDX; D[i] = surfCubemapLayeredread<float>(s, i % 4 * 4, i / 4 % 4, i / 16); } //@ f32 threads=192 res=surf.acube.f32x1

// sust: every element written at most once; dropped (zero) and clamped stores out of range
SURF(s1d_write_zero, u32) { IDX; surf1Dwrite<u32>(0x80000000u + i * 0x01010101u, s, (i - 4) * 4, ZERO); } //@ u32 threads=24 nout=1 res=surf.1d.u32x1
SURF(s1d_write_u8x4_clamp, u32) { IDX; int x = i == 0 ? -3 : i == 15 ? 20 : i; surf1Dwrite(make_uchar4(i, i * 3, 255 - i, 0x80 | i), s, x * 4, CLAMP); } //@ u32 threads=16 nout=1 res=surf.1d.u8x4
SURF(s2d_write_f32x4, u32) { IDX; surf2Dwrite(make_float4(i * 0.5f - 3, -i, i + 0.25f, i * 1e30f), s, i % 8 * 16, i / 8); } //@ u32 threads=48 nout=1 res=surf.2d.f32x4
SURF(s2d_write_s16x2_clamp, u32) { IDX; int2 c = outside(i, 8, 6); surf2Dwrite(make_short2(i * 1000 - 20000, -i), s, c.x * 4, c.y, CLAMP); } //@ u32 threads=48 nout=1 res=surf.2d.s16x2
SURF(s2d_write_b64_zero, u32) { IDX; surf2Dwrite<long long>((s64)i << 40 | (0xdeadbeef ^ i), s, (i % 10 - 1) * 8, i / 10 - 1, ZERO); } //@ u32 threads=80 nout=1 res=surf.2d.u32x2
SURF(s2d_write_v2b64, u32) { IDX; asm volatile("sust.b.2d.v2.b64.trap [%0, {%1, %2}], {%3, %4};" ::"l"(s), "r"(i % 8 * 16), "r"(i / 8), "l"(~(u64)i), "l"((u64)i * 0x9e3779b97f4a7c15ull) : "memory"); } //@ u32 threads=48 nout=1 res=surf.2d.u32x4
SURF(s3d_write_u8_zero, u32) { IDX; surf3Dwrite<u8>(i, s, i % 6 - 1, i / 6 % 6 - 1, i / 36 - 1, ZERO); } //@ u32 threads=180 nout=1 res=surf.3d.u8x1
SURF(s3d_write_f32_clamp, u32) { IDX; int2 c = outside(i % 16, 4, 4); int z = i / 16; surf3Dwrite(i * 0.75f, s, c.x * 4, c.y, z == 0 ? -2 : z == 2 ? 5 : z, CLAMP); } //@ u32 threads=48 nout=1 res=surf.3d.f32x1
SURF(sa1d_write, u32) { IDX; surf1DLayeredwrite(i * -0.375f, s, i % 8 * 8, i / 8); } //@ u32 threads=24 nout=1 res=surf.a1d.f32x1
SURF(sa2d_write_u16x4_clamp, u32) { IDX; int2 c = outside(i % 48, 8, 6); surf2DLayeredwrite(make_ushort4(i, i * 7, 0xffff - i, 0x8000 | i), s, c.x * 8, c.y, i / 48, CLAMP); } //@ u32 threads=144 nout=1 res=surf.a2d.u16x4
SURF(scube_write, u32) { IDX; if (i % 3) return; surfCubemapwrite<u32>(i * 0x10001u, s, i % 4 * 4, i / 4 % 4, i / 16); } //@ u32 threads=96 nout=1 res=surf.cube.u32x1
SURF(sacube_write, u32) { IDX; surfCubemapLayeredwrite(make_float2(i, -0.5f * i), s, i % 4 * 8, i / 4 % 4, i / 16); } //@ u32 threads=192 nout=1 res=surf.acube.f32x2
SURF(s2d_rmw_b8, u32) { IDX; u8 v = surf2Dread<u8>(s, i % 8, i / 8); surf2Dwrite<u8>(~v + i, s, i % 8, i / 8); D[i] = v; } //@ u32 threads=48 res=surf.2d.u8x1

// sust.p: formatted stores, x in elements; f32 surfaces take f32 bits, the integer ones (u8 and
// s8 arrays included: integer formats, not unorm/snorm) integers, saturated to the channel type
#define SUST_P4(a, b, c, d)                                                                    \
  asm volatile("sust.p.2d.v4.b32.trap [%0, {%1, %2}], {%3, %4, %5, %6};" ::"l"(s), "r"(i % 8),  \
               "r"(i / 8), "r"(a), "r"(b), "r"(c), "r"(d)                                      \
               : "memory")
#define F(x) __float_as_uint(x)
SURF(sust_p_f32, u32) { IDX; SUST_P4(F(i * 0.5f - 3), F(-i), F(i + 0.25f), F(i * 1e30f)); } //@ u32 threads=48 nout=1 res=surf.2d.f32x4
SURF(sust_p_u8, u32) { IDX; SUST_P4(F(i % 9 * 0.2f - 0.4f), F(i % 13 * (1.0f / 12)), F((i + 0.5f) * (1.0f / 255)), F(i < 24 ? -1.0f : 2.0f)); } //@ u32 threads=48 nout=1 res=surf.2d.u8x4
//@ sust_p_u8 u32 threads=48 nout=1 res=surf.2d.s8x4 name=sust_p_s8
SURF(sust_p_u8_int, u32) { IDX; SUST_P4(i, 300 + i, -i, 0x7fffffff); } //@ u32 threads=48 nout=1 res=surf.2d.u8x4
SURF(sust_p_s32, u32) { IDX; SUST_P4(i - 24, 0x7fffffff, 0x80000000, (u32)i * i * 1000003); } //@ u32 threads=48 nout=1 res=surf.2d.s32x4
SURF(sust_p_1d_f32, u32) { IDX; asm volatile("sust.p.1d.b32.trap [%0, {%1}], {%2};" ::"l"(s), "r"(15 - i), "r"(F(i * -0.125f)) : "memory"); } //@ u32 threads=16 nout=1 res=surf.1d.f32x1

// sured: many threads reducing into a few elements (exact totals whatever the order); sured.p
// (ptxas takes .add/.min/.max/.and/.or.b32) faults on the GPU even in range: not covered
#define SURED(name, insn, T, C, v)                                                             \
  SURF(name, u32) {                                                                            \
    IDX;                                                                                       \
    T x = v;                                                                                   \
    asm volatile(insn " [%0, {%1, %2}], %3;" ::"l"(s), "r"(i % 3 * (int)sizeof(T)), "r"(i % 2), \
                 C(x)                                                                          \
                 : "memory");                                                                  \
  }
SURED(sured_add_u32, "sured.b.add.2d.u32.trap", u32, "r", i * 2654435761u) //@ u32 threads=256 nout=1 res=surf.2d.u32x1
SURED(sured_add_s32, "sured.b.add.2d.s32.trap", s32, "r", i * 1000 - 100000) //@ u32 threads=256 nout=1 res=surf.2d.s32x1
SURED(sured_min_u32, "sured.b.min.2d.u32.trap", u32, "r", i * 2654435761u) //@ u32 threads=256 nout=1 res=surf.2d.u32x1
SURED(sured_max_u32, "sured.b.max.2d.u32.trap", u32, "r", i * 2654435761u) //@ u32 threads=256 nout=1 res=surf.2d.u32x1
SURED(sured_min_s32, "sured.b.min.2d.s32.trap", s32, "r", i * 2654435761u) //@ u32 threads=256 nout=1 res=surf.2d.s32x1
SURED(sured_max_s32, "sured.b.max.2d.s32.trap", s32, "r", i * 2654435761u) //@ u32 threads=256 nout=1 res=surf.2d.s32x1
SURED(sured_and_b32, "sured.b.and.2d.b32.trap", u32, "r", ~(1u << i % 32)) //@ u32 threads=256 nout=1 res=surf.2d.u32x1
SURED(sured_or_b32, "sured.b.or.2d.b32.trap", u32, "r", 1u << (i * 7 % 32)) //@ u32 threads=256 nout=1 res=surf.2d.u32x1
SURED(sured_add_u64, "sured.b.add.2d.u64.trap", u64, "l", i * 0x9e3779b97f4a7c15ull) //@ u32 threads=256 nout=1 res=surf.2d.u32x2
SURED(sured_min_u64, "sured.b.min.2d.u64.trap", u64, "l", i * 0x9e3779b97f4a7c15ull) //@ u32 threads=256 nout=1 res=surf.2d.u32x2
SURED(sured_max_u64, "sured.b.max.2d.u64.trap", u64, "l", i * 0x9e3779b97f4a7c15ull) //@ u32 threads=256 nout=1 res=surf.2d.u32x2
SURED(sured_min_s64, "sured.b.min.2d.s64.trap", s64, "l", i * 0x9e3779b97f4a7c15ull) //@ u32 threads=256 nout=1 res=surf.2d.s32x2
SURED(sured_max_s64, "sured.b.max.2d.s64.trap", s64, "l", i * 0x9e3779b97f4a7c15ull) //@ u32 threads=256 nout=1 res=surf.2d.s32x2
SURF(sured_add_clamp_1d, u32) { IDX; const int xs[6] = {-2, -1, 0, 15, 16, 40}; asm volatile("sured.b.add.1d.u32.clamp [%0, {%1}], %2;" ::"l"(s), "r"(xs[i % 6] * 4), "r"(i + 1) : "memory"); } //@ u32 threads=256 nout=1 res=surf.1d.u32x1
SURF(sured_add_zero_3d, u32) { IDX; asm volatile("sured.b.add.3d.u32.zero [%0, {%1, %2, %3, %3}], %4;" ::"l"(s), "r"((i % 6 - 1) * 4), "r"(i / 6 % 6 - 1), "r"(i / 36 % 5 - 1), "r"(i + 1) : "memory"); } //@ u32 threads=256 nout=1 res=surf.3d.u32x1

// suq: the sizes (channel_data_type, channel_order, array_size and memory_layout fail the
// driver's JIT: cuModuleLoadDataEx returns CUDA_ERROR_NOT_SUPPORTED)
SURF(surf_query, u32) {
  IDX;
  asm("suq.width.b32 %0, [%1];" : "=r"(D[3 * i]) : "l"(s));
  asm("suq.height.b32 %0, [%1];" : "=r"(D[3 * i + 1]) : "l"(s));
  asm("suq.depth.b32 %0, [%1];" : "=r"(D[3 * i + 2]) : "l"(s));
}
//@ surf_query u32 threads=1 per=3 res=surf.1d.u8x4 name=suq_1d
//@ surf_query u32 threads=1 per=3 res=surf.2d.f32x1 name=suq_2d
//@ surf_query u32 threads=1 per=3 res=surf.3d.s16x2 name=suq_3d
//@ surf_query u32 threads=1 per=3 res=surf.a1d.u32x4 name=suq_a1d
//@ surf_query u32 threads=1 per=3 res=surf.a2d.f16x4 name=suq_a2d
//@ surf_query u32 threads=1 per=3 res=surf.cube.u16x1 name=suq_cube
//@ surf_query u32 threads=1 per=3 res=surf.acube.s8x2 name=suq_acube

// a trap-mode load out of range faults the launch (expect=error: the run must fail as the GPU's)
SURF(s2d_trap_oob, u32) { IDX; D[i] = surf2Dread<u32>(s, i * 4, 0); } //@ u32 threads=9 res=surf.2d.u32x1 expect=error
