; cucpu-rewrite-pointers: PTX's integer addresses become getelementptr on the loaded base, and
; loads from the kernel's parameter buffer are invariant (input: VecAdd_kernel of
; tests/unit/jit/kernels.ptx as lowered, after SROA and early CSE).
; RUN: cucpu-opt -passes=cucpu-rewrite-pointers %s | FileCheck %s
; CHECK-LABEL: define void @cucpu.inspect.VecAdd_kernel
; CHECK: [[A:%[0-9]+]] = load i64, ptr %params, align 8, !invariant.load
; CHECK: [[BASE:%[0-9]+]] = inttoptr i64 {{%[0-9]+}} to ptr
; CHECK-NEXT: [[ADDR:%[0-9]+]] = getelementptr i8, ptr [[BASE]], i64 {{%[0-9]+}}
; CHECK-NEXT: load float, ptr [[ADDR]], align 4
; CHECK: [[BASE2:%[0-9]+]] = inttoptr i64 {{%[0-9]+}} to ptr
; CHECK-NEXT: [[ADDR2:%[0-9]+]] = getelementptr i8, ptr [[BASE2]], i64 {{%[0-9]+}}
; CHECK-NEXT: load float, ptr [[ADDR2]], align 4
; CHECK: [[SUM:%[0-9]+]] = fadd contract float
; CHECK: [[BASE3:%[0-9]+]] = inttoptr i64 {{%[0-9]+}} to ptr
; CHECK-NEXT: [[ADDR3:%[0-9]+]] = getelementptr i8, ptr [[BASE3]], i64 {{%[0-9]+}}
; CHECK-NEXT: store float [[SUM]], ptr [[ADDR3]], align 4
; ModuleID = '<string>'
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
  %nctaid = load i32, ptr %0, align 4, !invariant.load !0
  %2 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 1
  %ntid = load i32, ptr %2, align 4, !invariant.load !0, !cucpu.ntid !1
  %ctaid = load i32, ptr %1, align 4, !invariant.load !0
  %3 = getelementptr inbounds [3 x i32], ptr %0, i32 0, i32 1
  %nctaid1 = load i32, ptr %3, align 4, !invariant.load !0
  %4 = getelementptr inbounds [3 x i32], ptr %2, i32 0, i32 1
  %ntid2 = load i32, ptr %4, align 4, !invariant.load !0, !cucpu.ntid !2
  %5 = getelementptr inbounds [3 x i32], ptr %1, i32 0, i32 1
  %ctaid3 = load i32, ptr %5, align 4, !invariant.load !0
  %6 = getelementptr inbounds [3 x i32], ptr %0, i32 0, i32 2
  %7 = getelementptr inbounds [3 x i32], ptr %2, i32 0, i32 2
  %ntid5 = load i32, ptr %7, align 4, !invariant.load !0, !cucpu.ntid !3
  %8 = getelementptr inbounds [3 x i32], ptr %1, i32 0, i32 2
  %ctaid6 = load i32, ptr %8, align 4, !invariant.load !0
  %9 = getelementptr inbounds %cucpu_block, ptr %1, i32 0, i32 1
  %more = load i32, ptr %9, align 4, !invariant.load !0
  %10 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 2
  %params = load ptr, ptr %10, align 8, !invariant.load !0, !dereferenceable !4, !align !5, !cucpu.params !0
  %11 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 3
  %12 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 4
  %13 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 5
  %14 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 6
  %15 = getelementptr inbounds %cucpu_block, ptr %1, i32 0, i32 2
  %16 = getelementptr inbounds %cucpu_block, ptr %1, i32 0, i32 3
  br label %block

block:                                            ; preds = %block.next, %entry
  %blocks.left = phi i32 [ %more, %entry ], [ %27, %block.next ]
  %ctaid7 = phi i32 [ %ctaid, %entry ], [ %23, %block.next ]
  %ctaid8 = phi i32 [ %ctaid3, %entry ], [ %24, %block.next ]
  %ctaid9 = phi i32 [ %ctaid6, %entry ], [ %26, %block.next ]
  br label %region.all

block.end:                                        ; preds = %region.exit
  %17 = icmp eq i32 %blocks.left, 0
  br i1 %17, label %return, label %block.next

block.next:                                       ; preds = %block.end
  %18 = add i32 %ctaid7, 1
  %19 = icmp eq i32 %18, %nctaid
  %20 = zext i1 %19 to i32
  %21 = add i32 %ctaid8, %20
  %22 = icmp eq i32 %21, %nctaid1
  %23 = select i1 %19, i32 0, i32 %18
  %24 = select i1 %22, i32 0, i32 %21
  %25 = zext i1 %22 to i32
  %26 = add i32 %ctaid9, %25
  %27 = sub i32 %blocks.left, 1
  br label %block

return:                                           ; preds = %block.end
  ret void

region.all:                                       ; preds = %block
  br label %tloop.hdr

tloop.hdr:                                        ; preds = %tloop.latch, %region.all
  %tid.z = phi i32 [ 0, %region.all ], [ %28, %tloop.latch ]
  br label %tloop.hdr10

tloop.latch:                                      ; preds = %tloop.latch11
  %28 = add nuw nsw i32 %tid.z, 1
  %29 = icmp ult i32 %28, %ntid5
  br i1 %29, label %tloop.hdr, label %region.exit

tloop.hdr10:                                      ; preds = %tloop.latch11, %tloop.hdr
  %tid.y = phi i32 [ 0, %tloop.hdr ], [ %30, %tloop.latch11 ]
  br label %tloop.hdr12

tloop.latch11:                                    ; preds = %tloop.latch13
  %30 = add nuw nsw i32 %tid.y, 1
  %31 = icmp ult i32 %30, %ntid2
  br i1 %31, label %tloop.hdr10, label %tloop.latch

tloop.hdr12:                                      ; preds = %tloop.latch13, %tloop.hdr10
  %tid.x = phi i32 [ 0, %tloop.hdr10 ], [ %35, %tloop.latch13 ]
  %32 = mul i32 %ntid2, %tid.z
  %33 = add i32 %tid.y, %32
  %34 = mul i32 %ntid, %33
  br label %ptx.b0

tloop.latch13:                                    ; preds = %ptx.b2
  %35 = add nuw nsw i32 %tid.x, 1
  %36 = icmp ult i32 %35, %ntid
  br i1 %36, label %tloop.hdr12, label %tloop.latch11, !llvm.loop !6

region.exit:                                      ; preds = %tloop.latch
  br label %block.end

ptx.b0:                                           ; preds = %tloop.hdr12
  %37 = load i64, ptr %params, align 8, !llvm.access.group !8, !cucpu.outside.scratch !0
  %38 = getelementptr i8, ptr %params, i64 8
  %39 = load i64, ptr %38, align 8, !llvm.access.group !8, !cucpu.outside.scratch !0
  %40 = getelementptr i8, ptr %params, i64 16
  %41 = load i64, ptr %40, align 8, !llvm.access.group !8, !cucpu.outside.scratch !0
  %42 = getelementptr i8, ptr %params, i64 24
  %43 = load i32, ptr %42, align 4, !llvm.access.group !8, !cucpu.outside.scratch !0
  %44 = sext i32 %ctaid7 to i64
  %45 = sext i32 %ntid to i64
  %46 = mul i64 %45, %44
  %47 = trunc i64 %46 to i32
  %48 = zext i32 %tid.x to i33
  %49 = zext i32 %47 to i33
  %50 = add i33 %49, %48
  %51 = trunc i33 %50 to i32
  %52 = icmp sge i32 %51, %43
  br i1 %52, label %br.taken, label %br.fall

br.taken:                                         ; preds = %ptx.b0
  br label %ptx.b2

br.fall:                                          ; preds = %ptx.b0
  br label %ptx.b1

ptx.b2:                                           ; preds = %ptx.b1, %br.taken
  br label %tloop.latch13

ptx.b1:                                           ; preds = %br.fall
  %53 = sext i32 %51 to i64
  %54 = mul i64 %53, 4
  %55 = add i64 %37, %54
  %56 = add i64 %39, %54
  %57 = inttoptr i64 %56 to ptr
  %58 = load float, ptr %57, align 4, !llvm.access.group !8, !cucpu.outside.scratch !0
  %59 = inttoptr i64 %55 to ptr
  %60 = load float, ptr %59, align 4, !llvm.access.group !8, !cucpu.outside.scratch !0
  %61 = fadd contract float %60, %58
  %62 = add i64 %41, %54
  %63 = inttoptr i64 %62 to ptr
  store float %61, ptr %63, align 4, !llvm.access.group !8, !cucpu.outside.scratch !0
  br label %ptx.b2
}

attributes #0 = { nounwind }

!0 = !{}
!1 = !{i32 0}
!2 = !{i32 1}
!3 = !{i32 2}
!4 = !{i64 28}
!5 = !{i64 16}
!6 = distinct !{!6, !7}
!7 = !{!"llvm.loop.parallel_accesses", !8}
!8 = distinct !{}
