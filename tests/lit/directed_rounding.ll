; cucpu-directed-rounding: calls of cucpu.rnd.<op>.<mode> become AVX-512 instructions with that
; embedded rounding (mode | 8, no exceptions), scalars and narrow vectors padded to 16 lanes.
; RUN: cucpu-opt -passes='function(cucpu-directed-rounding)' %s | FileCheck %s

; CHECK-LABEL: define float @add_rz
; CHECK: [[A:%[0-9]+]] = insertelement <16 x float> poison, float %a, i64 0
; CHECK: [[B:%[0-9]+]] = insertelement <16 x float> poison, float %b, i64 0
; CHECK: [[R:%[0-9]+]] = call <16 x float> @llvm.x86.avx512.add.ps.512(<16 x float> [[A]], <16 x float> [[B]], i32 11)
; CHECK: [[S:%[0-9]+]] = extractelement <16 x float> [[R]], i64 0
; CHECK: ret float [[S]]
define float @add_rz(float %a, float %b) {
  %r = call float @cucpu.rnd.add.3(float %a, float %b)
  ret float %r
}

; CHECK-LABEL: define <4 x float> @fma_rm_v4
; CHECK: shufflevector <4 x float> %a, <4 x float> poison, <16 x i32> <i32 0, i32 1, i32 2, i32 3, i32 poison
; CHECK: call <16 x float> @llvm.x86.avx512.vfmadd.ps.512({{.*}}, i32 9)
; CHECK: shufflevector <16 x float> {{%[0-9]+}}, <16 x float> poison, <4 x i32> <i32 0, i32 1, i32 2, i32 3>
define <4 x float> @fma_rm_v4(<4 x float> %a, <4 x float> %b, <4 x float> %c) {
  %r = call <4 x float> @cucpu.rnd.fma.1.v4(<4 x float> %a, <4 x float> %b, <4 x float> %c)
  ret <4 x float> %r
}

; CHECK-LABEL: define <16 x float> @sqrt_rp_v16
; CHECK: call <16 x float> @llvm.x86.avx512.sqrt.ps.512(<16 x float> %a, i32 10)
; CHECK-NOT: shufflevector
define <16 x float> @sqrt_rp_v16(<16 x float> %a) {
  %r = call <16 x float> @cucpu.rnd.sqrt.2.v16(<16 x float> %a)
  ret <16 x float> %r
}

; A call of anything else stays.
; CHECK-LABEL: define float @other
; CHECK: call float @other.fn(float %a)
define float @other(float %a) {
  %r = call float @other.fn(float %a)
  ret float %r
}

declare float @cucpu.rnd.add.3(float, float)
declare <4 x float> @cucpu.rnd.fma.1.v4(<4 x float>, <4 x float>, <4 x float>)
declare <16 x float> @cucpu.rnd.sqrt.2.v16(<16 x float>)
declare float @other.fn(float)
