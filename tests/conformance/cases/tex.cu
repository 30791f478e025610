// Texture objects: tex, tld4 and txq over linear, pitched, 1D/2D/3D, layered, cubemap and mipmapped
// resources in every filter, address and read mode (res= on each case line; see harness.cpp).
// arch: compute_75
#include "conf.cuh"

// Every kernel takes (A, B, texture object, D, n) and reads at coordinates made from thread i.
#define TEX(name, TD)                                                                          \
  extern "C" __global__ void name(const void *, const void *, cudaTextureObject_t t, TD *D, int n)

// Thread i's output: the 4 components of v.
template <class T, class V> __device__ void put4(T *D, int i, V v) {
  D[4 * i] = v.x;
  D[4 * i + 1] = v.y;
  D[4 * i + 2] = v.z;
  D[4 * i + 3] = v.w;
}
#define PUT4(v) put4(D, i, v)

// Unnormalized coordinates reaching past every edge and hitting texel edges, texel centres and
// fractions between: 1D (16 texels), 2D (8x6) and 3D (4x4x3).
#define X1 ((i % 29) * 0.75f - 3.25f)
#define X2 ((i % 29) * 0.375f - 1.25f)
#define Y2 ((i % 13) * 0.625f - 1.0f)
#define X3 ((i % 11) * 0.625f - 1.25f)
#define Y3 ((i % 7) * 0.875f - 1.0f)
#define Z3 ((i % 5) * 0.9375f - 0.75f)
// The same normalized to twice the extent: about [-0.4, 2.3].
#define U1 (X1 * 0.125f)
#define U2 (X2 * 0.25f)
#define V2 (Y2 * (1.0f / 3))
#define U3 (X3 * 0.5f)
#define V3 (Y3 * 0.5f)
#define W3 (Z3 * (2.0f / 3))
// Mipmapped 16x8: normalized coordinates in [-0.125, 1.125] and levels of detail in
// [-1.25, 3.25] (below level 0, between levels, ties and above the last level 3).
#define UM ((i % 17) * 0.078125f - 0.125f)
#define VM ((i % 7) * 0.1875f - 0.0625f)
#define LOD ((i % 13) * 0.375f - 1.25f)
// Cube directions: components in {-1, -0.5, 0, 0.5, 1} (face centres, edges, corners and ties
// |x| == |y| == |z|), (0, 0, 0) replaced by (0, 0, 0.75); then a finer grid of directions.
#define CUBE_DIR                                                                               \
  float x = (i % 5) * 0.5f - 1, y = (i / 5 % 5) * 0.5f - 1, z = (i / 25 % 5) * 0.5f - 1;       \
  if (x == 0 && y == 0 && z == 0) z = 0.75f
#define CUBE_DIR_FINE                                                                          \
  float x = (i % 9) * 0.25f - 1, y = (i / 9 % 7) * 0.375f - 1.125f,                            \
        z = (i / 63 % 4) * 0.625f - 0.9375f

// tex1Dfetch on linear memory (64 elements): indices -8..70 and 2^30.
#define FETCH_X (i == n - 1 ? 1 << 30 : i - 8)
TEX(fetch_f, f32) { IDX; PUT4(tex1Dfetch<float4>(t, FETCH_X)); } //@ f32 threads=80 per=4 res=tex.lin.f32x1
//@ fetch_f f32 threads=80 per=4 res=tex.lin.f32x4 name=fetch_f32x4
//@ fetch_f f32 threads=80 per=4 res=tex.lin.u8x4 name=fetch_u8x4
//@ fetch_f f32 threads=80 per=4 res=tex.lin.s16x2 name=fetch_s16x2
//@ fetch_f f32 threads=80 per=4 res=tex.lin.f16x1 name=fetch_f16x1
TEX(fetch_u, u32) { IDX; PUT4(tex1Dfetch<uint4>(t, FETCH_X)); } //@ u32 threads=80 per=4 res=tex.lin.u8x2.int
//@ fetch_u u32 threads=80 per=4 res=tex.lin.u32x4.int name=fetch_u32x4
TEX(fetch_i, s32) { IDX; PUT4(tex1Dfetch<int4>(t, FETCH_X)); } //@ s32 threads=80 per=4 res=tex.lin.s8x4.int
//@ fetch_i s32 threads=80 per=4 res=tex.lin.s16x1.int name=fetch_s16x1
//@ fetch_i s32 threads=80 per=4 res=tex.lin.s32x2.int name=fetch_s32x2

// pitched 2D memory
TEX(pitch_f, f32) { IDX; PUT4(tex2D<float4>(t, X2, Y2)); } //@ f32 threads=256 per=4 res=tex.pitch.f32x1
//@ pitch_f f32 threads=256 per=4 res=tex.pitch.u8x4.linear tol=abs=3.1e-5 name=pitch_u8x4_linear

// 1D arrays
TEX(t1d_f, f32) { IDX; PUT4(tex1D<float4>(t, X1)); } //@ f32 threads=96 per=4 res=tex.1d.f32x1
//@ t1d_f f32 threads=96 per=4 res=tex.1d.f32x2.linear tol=abs=1e-5 name=t1d_f32x2_linear
//@ t1d_f f32 threads=96 per=4 res=tex.1d.f32x1.border name=t1d_border
//@ t1d_f f32 threads=96 per=4 res=tex.1d.u8x1.linear.border tol=abs=3.1e-5 name=t1d_u8x1_linear_border
TEX(t1d_fn, f32) { IDX; PUT4(tex1D<float4>(t, U1)); } //@ f32 threads=96 per=4 res=tex.1d.f32x1.norm.wrap
//@ t1d_fn f32 threads=96 per=4 res=tex.1d.f32x4.norm.mirror.linear tol=abs=1e-5 name=t1d_mirror_linear
//@ t1d_fn f32 threads=96 per=4 res=tex.1d.u16x1.norm.linear tol=abs=3.1e-5 name=t1d_u16x1_norm_linear
TEX(t1d_i, s32) { IDX; PUT4(tex1D<int4>(t, X1)); } //@ s32 threads=96 per=4 res=tex.1d.s16x2.int

// 2D arrays: f32 in each filter and address mode, unnormalized and normalized coordinates
TEX(t2d_f, f32) { IDX; PUT4(tex2D<float4>(t, X2, Y2)); } //@ f32 threads=256 per=4 res=tex.2d.f32x1
//@ t2d_f f32 threads=256 per=4 res=tex.2d.f32x4.linear tol=abs=1e-5 name=t2d_f32x4_linear
//@ t2d_f f32 threads=256 per=4 res=tex.2d.f32x2.border name=t2d_f32x2_border
//@ t2d_f f32 threads=256 per=4 res=tex.2d.f32x1.linear.border tol=abs=1e-5 name=t2d_linear_border
//@ t2d_f f32 threads=256 per=4 res=tex.2d.f32x1.wrap name=t2d_wrap_unnormalized
//@ t2d_f f32 threads=256 per=4 res=tex.2d.f32x1.mirror.linear tol=abs=1e-5 name=t2d_mirror_linear_unnormalized
TEX(t2d_fn, f32) { IDX; PUT4(tex2D<float4>(t, U2, V2)); } //@ f32 threads=256 per=4 res=tex.2d.f32x1.norm.wrap
//@ t2d_fn f32 threads=256 per=4 res=tex.2d.f32x2.norm.wrap.linear tol=abs=1e-5 name=t2d_wrap_linear
//@ t2d_fn f32 threads=256 per=4 res=tex.2d.f32x1.norm.mirror name=t2d_mirror
//@ t2d_fn f32 threads=256 per=4 res=tex.2d.f32x4.norm.mirror.linear tol=abs=1e-5 name=t2d_mirror_linear
//@ t2d_fn f32 threads=256 per=4 res=tex.2d.f32x1.norm.border name=t2d_border_norm
//@ t2d_fn f32 threads=256 per=4 res=tex.2d.f32x1.norm.border.linear tol=abs=1e-5 name=t2d_border_linear_norm
//@ t2d_fn f32 threads=256 per=4 res=tex.2d.f32x1.norm.linear tol=abs=1e-5 name=t2d_clamp_linear_norm

// 8- and 16-bit formats read as normalized floats, f16, sRGB
//@ t2d_f f32 threads=256 per=4 res=tex.2d.u8x4 name=t2d_u8x4
//@ t2d_f f32 threads=256 per=4 res=tex.2d.u8x4.linear tol=abs=3.1e-5 name=t2d_u8x4_linear
//@ t2d_f f32 threads=256 per=4 res=tex.2d.s8x4 name=t2d_s8x4
//@ t2d_fn f32 threads=256 per=4 res=tex.2d.s8x1.norm.wrap.linear tol=abs=3.1e-5 name=t2d_s8x1_wrap_linear
//@ t2d_f f32 threads=256 per=4 res=tex.2d.u16x2 name=t2d_u16x2
//@ t2d_f f32 threads=256 per=4 res=tex.2d.s16x4.linear tol=abs=3.1e-5 name=t2d_s16x4_linear
//@ t2d_f f32 threads=256 per=4 res=tex.2d.u8x1.border name=t2d_u8x1_border
//@ t2d_f f32 threads=256 per=4 res=tex.2d.f16x1 name=t2d_f16x1
//@ t2d_f f32 threads=256 per=4 res=tex.2d.f16x4.linear tol=abs=1e-5 name=t2d_f16x4_linear
//@ t2d_fn f32 threads=256 per=4 res=tex.2d.f16x2.norm.wrap name=t2d_f16x2_wrap
//@ t2d_f f32 threads=256 per=4 res=tex.2d.u8x4.srgb name=t2d_srgb
//@ t2d_f f32 threads=256 per=4 res=tex.2d.u8x4.srgb.linear tol=abs=3.1e-5 name=t2d_srgb_linear

// integer reads (CU_TRSF_READ_AS_INTEGER; 32-bit formats always)
TEX(t2d_u, u32) { IDX; PUT4(tex2D<uint4>(t, X2, Y2)); } //@ u32 threads=256 per=4 res=tex.2d.u8x4.int
//@ t2d_u u32 threads=256 per=4 res=tex.2d.u32x4.int name=t2d_u32x4
TEX(t2d_i, s32) { IDX; PUT4(tex2D<int4>(t, X2, Y2)); } //@ s32 threads=256 per=4 res=tex.2d.s8x2.int
//@ t2d_i s32 threads=256 per=4 res=tex.2d.s16x1.int.border name=t2d_s16x1_int_border
TEX(t2d_un, u32) { IDX; PUT4(tex2D<uint4>(t, U2, V2)); } //@ u32 threads=256 per=4 res=tex.2d.u16x4.int.norm.wrap
TEX(t2d_in, s32) { IDX; PUT4(tex2D<int4>(t, U2, V2)); } //@ s32 threads=256 per=4 res=tex.2d.s32x2.int.norm.mirror

// 3D arrays
TEX(t3d_f, f32) { IDX; PUT4(tex3D<float4>(t, X3, Y3, Z3)); } //@ f32 threads=256 per=4 res=tex.3d.f32x1
//@ t3d_f f32 threads=256 per=4 res=tex.3d.f32x2.linear tol=abs=1e-5 name=t3d_f32x2_linear
//@ t3d_f f32 threads=256 per=4 res=tex.3d.f16x1.linear.border tol=abs=1e-5 name=t3d_f16x1_linear_border
TEX(t3d_fn, f32) { IDX; PUT4(tex3D<float4>(t, U3, V3, W3)); } //@ f32 threads=256 per=4 res=tex.3d.f32x1.norm.wrap.linear tol=abs=1e-5
//@ t3d_fn f32 threads=256 per=4 res=tex.3d.u8x4.norm.mirror name=t3d_u8x4_mirror
TEX(t3d_i, s32) { IDX; PUT4(tex3D<int4>(t, X3, Y3, Z3)); } //@ s32 threads=256 per=4 res=tex.3d.s16x2.int

// layered 1D and 2D arrays (3 layers; layer indices -1..3)
TEX(a1d_f, f32) { IDX; PUT4(tex1DLayered<float4>(t, X1, i / 29 % 5 - 1)); } //@ f32 threads=145 per=4 res=tex.a1d.f32x1
//@ a1d_f f32 threads=145 per=4 res=tex.a1d.u8x2.linear tol=abs=3.1e-5 name=a1d_u8x2_linear
TEX(a1d_fn, f32) { IDX; PUT4(tex1DLayered<float4>(t, U1, i / 29 % 3)); } //@ f32 threads=87 per=4 res=tex.a1d.f32x2.norm.mirror.linear tol=abs=1e-5
TEX(a2d_f, f32) { IDX; PUT4(tex2DLayered<float4>(t, X2, Y2, i % 5 - 1)); } //@ f32 threads=256 per=4 res=tex.a2d.f32x4
TEX(a2d_fn, f32) { IDX; PUT4(tex2DLayered<float4>(t, U2, V2, i % 3)); } //@ f32 threads=256 per=4 res=tex.a2d.f32x1.norm.wrap.linear tol=abs=1e-5
TEX(a2d_i, s32) { IDX; PUT4(tex2DLayered<int4>(t, X2, Y2, i % 3)); } //@ s32 threads=256 per=4 res=tex.a2d.s8x4.int

// cubemaps (4x4 faces) and cubemap layered (2 cubes)
TEX(cube_f, f32) { IDX; CUBE_DIR; PUT4(texCubemap<float4>(t, x, y, z)); } //@ f32 threads=125 per=4 res=tex.cube.f32x1
//@ cube_f f32 threads=125 per=4 res=tex.cube.u8x4.norm name=cube_u8x4_norm
//@ cube_f f32 threads=125 per=4 res=tex.cube.f32x2.linear tol=abs=1e-5 name=cube_f32x2_linear
TEX(cube_fine, f32) { IDX; CUBE_DIR_FINE; PUT4(texCubemap<float4>(t, x, y, z)); } //@ f32 threads=252 per=4 res=tex.cube.f32x4
//@ cube_fine f32 threads=252 per=4 res=tex.cube.f32x1.linear tol=abs=1e-5 name=cube_fine_linear
TEX(acube_f, f32) { IDX; CUBE_DIR; PUT4(texCubemapLayered<float4>(t, x, y, z, i / 125)); } //@ f32 threads=250 per=4 res=tex.acube.f32x1
//@ acube_f f32 threads=250 per=4 res=tex.acube.f16x2.linear tol=abs=1e-5 name=acube_f16x2_linear

// mipmaps (16x8, 4 levels): explicit level of detail, and gradients (axis-aligned with
// footprints of 0.5..3 texels, and diagonal)
TEX(mip_lod, f32) { IDX; PUT4(tex2DLod<float4>(t, UM, VM, LOD)); } //@ f32 threads=256 per=4 res=tex.mip2d.f32x1.norm
//@ mip_lod f32 threads=256 per=4 res=tex.mip2d.f32x1.norm.mlinear tol=abs=1e-5 name=mip_lod_mlinear
//@ mip_lod f32 threads=256 per=4 res=tex.mip2d.f32x2.norm.linear.mlinear tol=abs=1e-5 name=mip_lod_trilinear
//@ mip_lod f32 threads=256 per=4 res=tex.mip2d.u8x4.norm.wrap.mlinear tol=abs=3.1e-5 name=mip_lod_u8x4_wrap
TEX(mip_grad, f32) { IDX; float s = (i % 6 + 1) * 0.5f; PUT4(tex2DGrad<float4>(t, UM, VM, make_float2(s * 0.0625f, 0), make_float2(0, s * 0.0625f))); } //@ f32 threads=256 per=4 res=tex.mip2d.f32x1.norm
//@ mip_grad f32 threads=256 per=4 res=tex.mip2d.f32x1.norm.linear.mlinear tol=abs=1e-5 name=mip_grad_trilinear
TEX(mip_grad_diag, f32) { IDX; float s = (i % 6 + 1) * 0.5f; PUT4(tex2DGrad<float4>(t, UM, VM, make_float2(s * 0.0625f, s * 0.0625f), make_float2(-s * 0.03125f, s * 0.0625f))); } //@ f32 threads=256 per=4 res=tex.mip2d.f32x1.norm.mlinear tol=abs=1e-5
// Gradients of many shapes (components in texels: x of dx (a+1)/2, y of dx 3b/8, x of dy
// (c-1.5)(a-3)/4, y of dy ((b+c)%5+1)/2), so that the GPU's level-of-detail formula shows.
TEX(mip_grad_shapes, f32) { IDX; int a = i & 7, b = (i >> 3) & 7, c = (i >> 6) & 3; PUT4(tex2DGrad<float4>(t, UM, VM, make_float2((a + 1) * 0.03125f, b * 0.046875f), make_float2((c - 1.5f) * (a - 3) * 0.015625f, ((b + c) % 5 + 1) * 0.0625f))); } //@ f32 threads=256 per=4 res=tex.mip2d.f32x1.norm.mlinear tol=abs=1e-5
//@ mip_grad_shapes f32 threads=256 per=4 res=tex.mip2d.f32x1.norm.linear.mlinear tol=abs=1e-5 name=mip_grad_shapes_trilinear
// Equal gradients X = Y = (b/2, a/2) texels, so that their sum (b, a) decides the level of detail,
// a = 3 + k/8 and b = 1/2 + j/8 on a grid (and the same along x): data for the sum term's rounding.
TEX(mip_grad_sum_y, f32) { IDX; float b = 0.5f + (i & 15) * 0.125f, a = 3.0f + ((i >> 4) & 15) * 0.125f; float2 g = make_float2(b / 32, a / 16); PUT4(tex2DGrad<float4>(t, UM, VM, g, g)); } //@ f32 threads=256 per=4 res=tex.mip2d.f32x1.norm.mlinear tol=abs=1e-5
TEX(mip_grad_sum_x, f32) { IDX; float b = 0.5f + (i & 15) * 0.125f, a = 3.0f + ((i >> 4) & 15) * 0.125f; float2 g = make_float2(a / 32, b / 16); PUT4(tex2DGrad<float4>(t, UM, VM, g, g)); } //@ f32 threads=256 per=4 res=tex.mip2d.f32x1.norm.mlinear tol=abs=1e-5

// tld4 (tex2Dgather) of each component on point-filtered 2D textures
#define GATHER(T, x, y)                                                                        \
  (i % 4 == 0   ? tex2Dgather<T>(t, x, y, 0)                                                   \
   : i % 4 == 1 ? tex2Dgather<T>(t, x, y, 1)                                                   \
   : i % 4 == 2 ? tex2Dgather<T>(t, x, y, 2)                                                   \
                : tex2Dgather<T>(t, x, y, 3))
TEX(gather_f, f32) { IDX; PUT4(GATHER(float4, X2, Y2)); } //@ f32 threads=256 per=4 res=tex.2d.f32x4
TEX(gather_fn, f32) { IDX; PUT4(GATHER(float4, U2, V2)); } //@ f32 threads=256 per=4 res=tex.2d.u8x4.norm.wrap
TEX(gather_i, s32) { IDX; PUT4(GATHER(int4, X2, Y2)); } //@ s32 threads=256 per=4 res=tex.2d.s16x2.int

// the sparse-residency predicate (a texture not sparse: always resident)
TEX(sparse, f32) { IDX; bool r; float4 v = tex2D<float4>(t, X2, Y2, &r); D[5 * i] = v.x; D[5 * i + 1] = v.y; D[5 * i + 2] = v.z; D[5 * i + 3] = v.w; D[5 * i + 4] = r; } //@ f32 threads=256 per=5 res=tex.2d.f32x4

// f16x2 results: {r, g} and {b, a} packed
TEX(tex_f16x2, u32) { IDX; asm("tex.2d.v2.f16x2.f32 {%0, %1}, [%2, {%3, %4}];" : "=r"(D[2 * i]), "=r"(D[2 * i + 1]) : "l"(t), "f"(X2), "f"(Y2)); } //@ u32 threads=256 per=2 res=tex.2d.f16x4
//@ tex_f16x2 u32 threads=256 per=2 res=tex.2d.u8x4 name=tex_f16x2_u8x4

// texel offsets -2..2 and -1..1
TEX(tex_offset, f32) { IDX; float4 v; asm("tex.2d.v4.f32.f32 {%0, %1, %2, %3}, [%4, {%5, %6}], {%7, %8};" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(t), "f"(X2), "f"(Y2), "r"(i % 5 - 2), "r"(i % 3 - 1)); PUT4(v); } //@ f32 threads=256 per=4 res=tex.2d.f32x1

// txq: the sizes, those of level i too (with channel_data_type, channel_order,
// normalized_coords, array_size, num_mipmap_levels, num_samples, filter_mode or addr_mode_N the
// driver's JIT loads the module without the kernel: cuModuleGetFunction does not find it)
#define TXQ(k, q) asm("txq." q ".b32 %0, [%1];" : "=r"(o[k]) : "l"(t))
#define TXQ_LEVEL(k, q) asm("txq.level." q ".b32 %0, [%1], %2;" : "=r"(o[k]) : "l"(t), "r"(i))
TEX(tex_query, u32) {
  IDX;
  u32 *o = D + 6 * i;
  TXQ(0, "width");
  TXQ(1, "height");
  TXQ(2, "depth");
  TXQ_LEVEL(3, "width");
  TXQ_LEVEL(4, "height");
  TXQ_LEVEL(5, "depth");
}
//@ tex_query u32 threads=5 per=6 res=tex.2d.f32x1 name=txq_2d
//@ tex_query u32 threads=5 per=6 res=tex.3d.u8x4.norm.linear.wrap name=txq_3d
//@ tex_query u32 threads=5 per=6 res=tex.1d.s8x2.border name=txq_1d
//@ tex_query u32 threads=5 per=6 res=tex.a1d.u16x1.norm.mirror name=txq_a1d
//@ tex_query u32 threads=5 per=6 res=tex.a2d.s16x2.int.mirror name=txq_a2d
//@ tex_query u32 threads=5 per=6 res=tex.mip2d.f32x1.norm.mlinear name=txq_mip2d
//@ tex_query u32 threads=5 per=6 res=tex.cube.f16x4.border name=txq_cube
//@ tex_query u32 threads=5 per=6 res=tex.acube.u32x1.int name=txq_acube
//@ tex_query u32 threads=5 per=6 res=tex.lin.f32x2 name=txq_lin
//@ tex_query u32 threads=5 per=6 res=tex.pitch.s32x4.int name=txq_pitch
