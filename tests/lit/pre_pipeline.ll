; The JIT's pre-optimization pipeline, by name (cucpu-opt --list prints it): registers to SSA,
; then the pointer rewrite and the scratch alias scopes (input: VecAdd_kernel of
; tests/unit/jit/kernels.ptx as lowered).
; RUN: cucpu-opt -passes='function(sroa<modify-cfg>,early-cse),cucpu-rewrite-pointers,cucpu-tag-scratch' %s | FileCheck %s
; CHECK-LABEL: define void @cucpu.inspect.VecAdd_kernel
; CHECK-NOT: alloca
; CHECK: getelementptr i8, ptr
; CHECK: fadd contract float
; CHECK: store float {{%[0-9]+}}, ptr {{%[0-9]+}}, align 4, !noalias
; ModuleID = 'cucpu.inspect.VecAdd_kernel'
source_filename = "cucpu.inspect.VecAdd_kernel"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%cucpu_launch = type { [3 x i32], [3 x i32], ptr, i32, i32, ptr, ptr, i32 }
%cucpu_block = type { [3 x i32], i32, ptr, ptr }

@cucpu.inspect.fn.VecAdd_kernel = constant i8 0, align 16
@cucpu.inspect.fn.matrixMul = constant i8 0, align 16
@cucpu.inspect.fn.reduce = constant i8 0, align 16
@cucpu.inspect.fn.blockIds = constant i8 0, align 16

; Function Attrs: nounwind
define void @cucpu.inspect.VecAdd_kernel(ptr noalias %0, ptr noalias %1) #0 {
entry:
  %2 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 0
  %3 = getelementptr inbounds [3 x i32], ptr %2, i32 0, i32 0
  %nctaid = load i32, ptr %3, align 4, !invariant.load !0
  %4 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 1
  %5 = getelementptr inbounds [3 x i32], ptr %4, i32 0, i32 0
  %ntid = load i32, ptr %5, align 4, !invariant.load !0, !cucpu.ntid !1
  %6 = getelementptr inbounds %cucpu_block, ptr %1, i32 0, i32 0
  %7 = getelementptr inbounds [3 x i32], ptr %6, i32 0, i32 0
  %ctaid = load i32, ptr %7, align 4, !invariant.load !0
  %8 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 0
  %9 = getelementptr inbounds [3 x i32], ptr %8, i32 0, i32 1
  %nctaid1 = load i32, ptr %9, align 4, !invariant.load !0
  %10 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 1
  %11 = getelementptr inbounds [3 x i32], ptr %10, i32 0, i32 1
  %ntid2 = load i32, ptr %11, align 4, !invariant.load !0, !cucpu.ntid !2
  %12 = getelementptr inbounds %cucpu_block, ptr %1, i32 0, i32 0
  %13 = getelementptr inbounds [3 x i32], ptr %12, i32 0, i32 1
  %ctaid3 = load i32, ptr %13, align 4, !invariant.load !0
  %14 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 0
  %15 = getelementptr inbounds [3 x i32], ptr %14, i32 0, i32 2
  %nctaid4 = load i32, ptr %15, align 4, !invariant.load !0
  %16 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 1
  %17 = getelementptr inbounds [3 x i32], ptr %16, i32 0, i32 2
  %ntid5 = load i32, ptr %17, align 4, !invariant.load !0, !cucpu.ntid !3
  %18 = getelementptr inbounds %cucpu_block, ptr %1, i32 0, i32 0
  %19 = getelementptr inbounds [3 x i32], ptr %18, i32 0, i32 2
  %ctaid6 = load i32, ptr %19, align 4, !invariant.load !0
  %20 = getelementptr inbounds %cucpu_block, ptr %1, i32 0, i32 1
  %more = load i32, ptr %20, align 4, !invariant.load !0
  %21 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 2
  %params = load ptr, ptr %21, align 8, !invariant.load !0, !dereferenceable !4, !align !5, !cucpu.params !0
  %22 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 3
  %dynsmem = load i32, ptr %22, align 4, !invariant.load !0
  %23 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 4
  %nthreads = load i32, ptr %23, align 4, !invariant.load !0, !cucpu.ntid !6
  %24 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 5
  %envreg = load ptr, ptr %24, align 8, !invariant.load !0
  %25 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 6
  %services = load ptr, ptr %25, align 8, !invariant.load !0
  %26 = getelementptr inbounds %cucpu_block, ptr %1, i32 0, i32 2
  %shared = load ptr, ptr %26, align 8, !invariant.load !0, !cucpu.shared !0
  %27 = getelementptr inbounds %cucpu_block, ptr %1, i32 0, i32 3
  %scratch = load ptr, ptr %27, align 8, !invariant.load !0, !cucpu.scratch !0
  %r0 = alloca i1, align 1
  %r1 = alloca i1, align 1
  %r2 = alloca float, align 4
  %r3 = alloca float, align 4
  %r4 = alloca float, align 4
  %r5 = alloca float, align 4
  %r6 = alloca i32, align 4
  %r7 = alloca i32, align 4
  %r8 = alloca i32, align 4
  %r9 = alloca i32, align 4
  %r10 = alloca i32, align 4
  %r11 = alloca i32, align 4
  %r12 = alloca i64, align 8
  %r13 = alloca i64, align 8
  %r14 = alloca i64, align 8
  %r15 = alloca i64, align 8
  %r16 = alloca i64, align 8
  %r17 = alloca i64, align 8
  %r18 = alloca i64, align 8
  %r19 = alloca i64, align 8
  %r20 = alloca i64, align 8
  %r21 = alloca i64, align 8
  %r22 = alloca i64, align 8
  %cc.cf = alloca i32, align 4
  %bar.red = alloca i32, align 4
  br label %block

block:                                            ; preds = %block.next, %entry
  %blocks.left = phi i32 [ %more, %entry ], [ %38, %block.next ]
  %ctaid7 = phi i32 [ %ctaid, %entry ], [ %34, %block.next ]
  %ctaid8 = phi i32 [ %ctaid3, %entry ], [ %35, %block.next ]
  %ctaid9 = phi i32 [ %ctaid6, %entry ], [ %37, %block.next ]
  store i32 0, ptr %cc.cf, align 4
  br label %region.all

block.end:                                        ; preds = %region.exit
  %28 = icmp eq i32 %blocks.left, 0
  br i1 %28, label %return, label %block.next

block.next:                                       ; preds = %block.end
  %29 = add i32 %ctaid7, 1
  %30 = icmp eq i32 %29, %nctaid
  %31 = zext i1 %30 to i32
  %32 = add i32 %ctaid8, %31
  %33 = icmp eq i32 %32, %nctaid1
  %34 = select i1 %30, i32 0, i32 %29
  %35 = select i1 %33, i32 0, i32 %32
  %36 = zext i1 %33 to i32
  %37 = add i32 %ctaid9, %36
  %38 = sub i32 %blocks.left, 1
  br label %block

return:                                           ; preds = %block.end
  ret void

region.all:                                       ; preds = %block
  br label %tloop.hdr

tloop.hdr:                                        ; preds = %tloop.latch, %region.all
  %tid.z = phi i32 [ 0, %region.all ], [ %39, %tloop.latch ]
  br label %tloop.hdr10

tloop.latch:                                      ; preds = %tloop.latch11
  %39 = add nuw nsw i32 %tid.z, 1
  %40 = icmp ult i32 %39, %ntid5
  br i1 %40, label %tloop.hdr, label %region.exit

tloop.hdr10:                                      ; preds = %tloop.latch11, %tloop.hdr
  %tid.y = phi i32 [ 0, %tloop.hdr ], [ %41, %tloop.latch11 ]
  br label %tloop.hdr12

tloop.latch11:                                    ; preds = %tloop.latch13
  %41 = add nuw nsw i32 %tid.y, 1
  %42 = icmp ult i32 %41, %ntid2
  br i1 %42, label %tloop.hdr10, label %tloop.latch

tloop.hdr12:                                      ; preds = %tloop.latch13, %tloop.hdr10
  %tid.x = phi i32 [ 0, %tloop.hdr10 ], [ %46, %tloop.latch13 ]
  %43 = mul i32 %ntid2, %tid.z
  %44 = add i32 %tid.y, %43
  %45 = mul i32 %ntid, %44
  %tid.linear = add nuw nsw i32 %tid.x, %45
  br label %ptx.b0

tloop.latch13:                                    ; preds = %ptx.b2
  %46 = add nuw nsw i32 %tid.x, 1
  %47 = icmp ult i32 %46, %ntid
  br i1 %47, label %tloop.hdr12, label %tloop.latch11, !llvm.loop !7

region.exit:                                      ; preds = %tloop.latch
  br label %block.end

ptx.b0:                                           ; preds = %tloop.hdr12
  %48 = getelementptr i8, ptr %params, i64 0
  %49 = load i64, ptr %48, align 8, !llvm.access.group !9, !cucpu.outside.scratch !0
  store i64 %49, ptr %r13, align 8
  %50 = getelementptr i8, ptr %params, i64 8
  %51 = load i64, ptr %50, align 8, !llvm.access.group !9, !cucpu.outside.scratch !0
  store i64 %51, ptr %r14, align 8
  %52 = getelementptr i8, ptr %params, i64 16
  %53 = load i64, ptr %52, align 8, !llvm.access.group !9, !cucpu.outside.scratch !0
  store i64 %53, ptr %r15, align 8
  %54 = getelementptr i8, ptr %params, i64 24
  %55 = load i32, ptr %54, align 4, !llvm.access.group !9, !cucpu.outside.scratch !0
  store i32 %55, ptr %r8, align 4
  store i32 %ntid, ptr %r9, align 4
  store i32 %ctaid7, ptr %r10, align 4
  store i32 %tid.x, ptr %r11, align 4
  %56 = load i32, ptr %r9, align 4
  %57 = load i32, ptr %r10, align 4
  %58 = sext i32 %57 to i64
  %59 = sext i32 %56 to i64
  %60 = mul i64 %59, %58
  %61 = trunc i64 %60 to i32
  %62 = load i32, ptr %r11, align 4
  %63 = zext i32 %62 to i33
  %64 = zext i32 %61 to i33
  %65 = add i33 %64, %63
  %66 = trunc i33 %65 to i32
  store i32 %66, ptr %r7, align 4
  %67 = load i32, ptr %r7, align 4
  %68 = load i32, ptr %r8, align 4
  %69 = icmp sge i32 %67, %68
  %70 = xor i1 %69, true
  store i1 %69, ptr %r1, align 1
  %71 = load i1, ptr %r1, align 1
  br i1 %71, label %br.taken, label %br.fall

br.taken:                                         ; preds = %ptx.b0
  br label %ptx.b2

br.fall:                                          ; preds = %ptx.b0
  br label %ptx.b1

ptx.b2:                                           ; preds = %ptx.b1, %br.taken
  br label %tloop.latch13

ptx.b1:                                           ; preds = %br.fall
  %72 = load i64, ptr %r13, align 8
  store i64 %72, ptr %r16, align 8
  %73 = load i32, ptr %r7, align 4
  %74 = sext i32 %73 to i64
  %75 = mul i64 %74, 4
  store i64 %75, ptr %r17, align 8
  %76 = load i64, ptr %r16, align 8
  %77 = load i64, ptr %r17, align 8
  %78 = add i64 %76, %77
  store i64 %78, ptr %r18, align 8
  %79 = load i64, ptr %r14, align 8
  store i64 %79, ptr %r19, align 8
  %80 = load i64, ptr %r19, align 8
  %81 = load i64, ptr %r17, align 8
  %82 = add i64 %80, %81
  store i64 %82, ptr %r20, align 8
  %83 = load i64, ptr %r20, align 8
  %84 = add i64 %83, 0
  %85 = inttoptr i64 %84 to ptr
  %86 = load float, ptr %85, align 4, !llvm.access.group !9, !cucpu.outside.scratch !0
  store float %86, ptr %r3, align 4
  %87 = load i64, ptr %r18, align 8
  %88 = add i64 %87, 0
  %89 = inttoptr i64 %88 to ptr
  %90 = load float, ptr %89, align 4, !llvm.access.group !9, !cucpu.outside.scratch !0
  store float %90, ptr %r4, align 4
  %91 = load float, ptr %r4, align 4
  %92 = load float, ptr %r3, align 4
  %93 = fadd contract float %91, %92
  store float %93, ptr %r5, align 4
  %94 = load i64, ptr %r15, align 8
  store i64 %94, ptr %r21, align 8
  %95 = load i64, ptr %r21, align 8
  %96 = load i64, ptr %r17, align 8
  %97 = add i64 %95, %96
  store i64 %97, ptr %r22, align 8
  %98 = load i64, ptr %r22, align 8
  %99 = add i64 %98, 0
  %100 = inttoptr i64 %99 to ptr
  %101 = load float, ptr %r5, align 4
  store float %101, ptr %100, align 4, !llvm.access.group !9, !cucpu.outside.scratch !0
  br label %ptx.b2
}

attributes #0 = { nounwind }

!0 = !{}
!1 = !{i32 0}
!2 = !{i32 1}
!3 = !{i32 2}
!4 = !{i64 28}
!5 = !{i64 16}
!6 = !{i32 3}
!7 = distinct !{!7, !8}
!8 = !{!"llvm.loop.parallel_accesses", !9}
!9 = distinct !{}
