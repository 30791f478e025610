; cucpu-tag-scratch: accesses to the block's scratch memory (resume states, context arrays) get
; the scratch alias scope, the runtime's block and launch fields and the kernel's global
; accesses its !noalias (input: publishAfterStreaming of tests/unit/jit/barrier_kernels.ptx as
; lowered, after SROA, early CSE and cucpu-rewrite-pointers).
; RUN: cucpu-opt -passes=cucpu-tag-scratch %s | FileCheck %s
; CHECK-LABEL: define void @cucpu.inspect.publishAfterStreaming
; CHECK: %nctaid = load i32, ptr %0, align 4, !invariant.load !0, !noalias [[OUT:![0-9]+]]
; CHECK: store i32 1, ptr {{%[0-9]+}}, align 4, !alias.scope [[OUT]]
; CHECK: [[OUT]] = !{[[SCOPE:![0-9]+]]}
; CHECK: [[SCOPE]] = distinct !{[[SCOPE]], [[DOMAIN:![0-9]+]], !"scratch"}
; CHECK: [[DOMAIN]] = distinct !{[[DOMAIN]], !"cucpu.scratch"}
; ModuleID = '<string>'
source_filename = "cucpu.inspect.publishAfterStreaming"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%cucpu_launch = type { [3 x i32], [3 x i32], ptr, i32, i32, ptr, ptr, i32 }
%cucpu_block = type { [3 x i32], i32, ptr, ptr }

@cucpu.inspect.fn.barrierReductions = constant i8 0, align 16
@cucpu.inspect.fn.earlyExitExchange = constant i8 0, align 16
@cucpu.inspect.fn.nestedLoopBarriers = constant i8 0, align 16
@cucpu.inspect.fn.carriedPointers = constant i8 0, align 16
@cucpu.inspect.fn.publishAfterStreaming = constant i8 0, align 16

; Function Attrs: nounwind
define void @cucpu.inspect.publishAfterStreaming(ptr noalias %0, ptr noalias %1) #0 {
entry:
  %where = alloca [6 x i32], align 4
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
  %nthreads = load i32, ptr %12, align 4, !invariant.load !0, !cucpu.ntid !6
  %13 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 5
  %14 = getelementptr inbounds %cucpu_launch, ptr %0, i32 0, i32 6
  %services = load ptr, ptr %14, align 8, !invariant.load !0
  %15 = getelementptr inbounds %cucpu_block, ptr %1, i32 0, i32 2
  %16 = getelementptr inbounds %cucpu_block, ptr %1, i32 0, i32 3
  %scratch = load ptr, ptr %16, align 8, !invariant.load !0, !cucpu.scratch !0
  br label %block

block:                                            ; preds = %block.next, %entry
  %blocks.left = phi i32 [ %more, %entry ], [ %27, %block.next ]
  %ctaid7 = phi i32 [ %ctaid, %entry ], [ %23, %block.next ]
  %ctaid8 = phi i32 [ %ctaid3, %entry ], [ %24, %block.next ]
  %ctaid9 = phi i32 [ %ctaid6, %entry ], [ %26, %block.next ]
  br label %region.all

block.end:                                        ; preds = %done
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

region.all10:                                     ; preds = %next.all
  br label %tloop.hdr15

dispatch:                                         ; preds = %region.exit21, %region.exit
  br label %state.scan

tloop.hdr:                                        ; preds = %tloop.latch, %region.all
  %tid.z = phi i32 [ 0, %region.all ], [ %28, %tloop.latch ]
  br label %tloop.hdr11

tloop.latch:                                      ; preds = %tloop.latch12
  %28 = add nuw nsw i32 %tid.z, 1
  %29 = icmp ult i32 %28, %ntid5
  br i1 %29, label %tloop.hdr, label %region.exit

tloop.hdr11:                                      ; preds = %tloop.latch12, %tloop.hdr
  %tid.y = phi i32 [ 0, %tloop.hdr ], [ %30, %tloop.latch12 ]
  br label %tloop.hdr13

tloop.latch12:                                    ; preds = %tloop.latch14
  %30 = add nuw nsw i32 %tid.y, 1
  %31 = icmp ult i32 %30, %ntid2
  br i1 %31, label %tloop.hdr11, label %tloop.latch

tloop.hdr13:                                      ; preds = %tloop.latch14, %tloop.hdr11
  %tid.x = phi i32 [ 0, %tloop.hdr11 ], [ %41, %tloop.latch14 ]
  %32 = mul i32 %ntid2, %tid.z
  %33 = add i32 %tid.y, %32
  %34 = mul i32 %ntid, %33
  %tid.linear = add nuw nsw i32 %tid.x, %34
  %35 = zext i32 %tid.linear to i64
  %36 = mul i64 %35, 4
  %37 = zext i32 %nthreads to i64
  %38 = mul i64 %37, 16
  %39 = add i64 %38, %36
  %40 = getelementptr i8, ptr %scratch, i64 %39
  br label %ptx.b0

tloop.latch14:                                    ; preds = %ptx.b1, %br.taken
  %41 = add nuw nsw i32 %tid.x, 1
  %42 = icmp ult i32 %41, %ntid
  br i1 %42, label %tloop.hdr13, label %tloop.latch12, !llvm.loop !7

region.exit:                                      ; preds = %tloop.latch
  br label %dispatch

ptx.b0:                                           ; preds = %tloop.hdr13
  %43 = load i64, ptr %params, align 8, !invariant.load !0, !llvm.access.group !9, !cucpu.outside.scratch !0
  %44 = getelementptr i8, ptr %params, i64 8
  %45 = load i64, ptr %44, align 8, !invariant.load !0, !llvm.access.group !9, !cucpu.outside.scratch !0
  %46 = getelementptr i8, ptr %params, i64 16
  %47 = load i64, ptr %46, align 8, !invariant.load !0, !llvm.access.group !9, !cucpu.outside.scratch !0
  %48 = getelementptr i8, ptr %params, i64 24
  %49 = getelementptr i8, ptr %params, i64 32
  %50 = load i32, ptr %49, align 4, !invariant.load !0, !llvm.access.group !9, !cucpu.outside.scratch !0
  %51 = sext i32 %ntid to i64
  %52 = sext i32 %ctaid7 to i64
  %53 = mul i64 %52, %51
  %54 = trunc i64 %53 to i32
  %55 = zext i32 %tid.x to i33
  %56 = zext i32 %54 to i33
  %57 = add i33 %56, %55
  %58 = trunc i33 %57 to i32
  %59 = icmp sge i32 %58, %50
  br i1 %59, label %br.taken, label %br.fall

br.taken:                                         ; preds = %ptx.b0
  store i32 1, ptr %40, align 4, !llvm.access.group !9
  br label %tloop.latch14

br.fall:                                          ; preds = %ptx.b0
  br label %ptx.b1

ptx.b1:                                           ; preds = %br.fall
  %60 = sext i32 %58 to i64
  %61 = mul i64 %60, 4
  %62 = add i64 %43, %61
  %63 = add i64 %45, %61
  %64 = inttoptr i64 %45 to ptr
  %65 = getelementptr i8, ptr %64, i64 %61
  %66 = load float, ptr %65, align 4, !llvm.access.group !9, !cucpu.outside.scratch !0
  %67 = inttoptr i64 %43 to ptr
  %68 = getelementptr i8, ptr %67, i64 %61
  %69 = load float, ptr %68, align 4, !llvm.access.group !9, !cucpu.outside.scratch !0
  %70 = fadd contract float %69, %66
  %71 = add i64 %47, %61
  %72 = inttoptr i64 %47 to ptr
  %73 = getelementptr i8, ptr %72, i64 %61
  store float %70, ptr %73, align 4, !llvm.access.group !9, !cucpu.outside.scratch !0
  store i32 1, ptr %40, align 4, !llvm.access.group !9
  br label %tloop.latch14

tloop.hdr15:                                      ; preds = %tloop.latch16, %region.all10
  %tid.z22 = phi i32 [ 0, %region.all10 ], [ %74, %tloop.latch16 ]
  br label %tloop.hdr17

tloop.latch16:                                    ; preds = %tloop.latch18
  %74 = add nuw nsw i32 %tid.z22, 1
  %75 = icmp ult i32 %74, %ntid5
  br i1 %75, label %tloop.hdr15, label %region.exit21

tloop.hdr17:                                      ; preds = %tloop.latch18, %tloop.hdr15
  %tid.y23 = phi i32 [ 0, %tloop.hdr15 ], [ %76, %tloop.latch18 ]
  br label %tloop.hdr19

tloop.latch18:                                    ; preds = %tloop.latch20
  %76 = add nuw nsw i32 %tid.y23, 1
  %77 = icmp ult i32 %76, %ntid2
  br i1 %77, label %tloop.hdr17, label %tloop.latch16

tloop.hdr19:                                      ; preds = %tloop.latch20, %tloop.hdr17
  %tid.x24 = phi i32 [ 0, %tloop.hdr17 ], [ %86, %tloop.latch20 ]
  %78 = mul i32 %ntid2, %tid.z22
  %79 = add i32 %tid.y23, %78
  %80 = mul i32 %ntid, %79
  %tid.linear25 = add nuw nsw i32 %tid.x24, %80
  %81 = load i64, ptr %48, align 8, !invariant.load !0, !llvm.access.group !10, !cucpu.outside.scratch !0
  %82 = zext i32 %tid.linear25 to i64
  %83 = mul i64 %82, 4
  %84 = add i64 %38, %83
  %85 = getelementptr i8, ptr %scratch, i64 %84
  br label %ptx.b3

tloop.latch20:                                    ; preds = %ptx.b5
  %86 = add nuw nsw i32 %tid.x24, 1
  %87 = icmp ult i32 %86, %ntid
  br i1 %87, label %tloop.hdr19, label %tloop.latch18, !llvm.loop !11

region.exit21:                                    ; preds = %tloop.latch16
  br label %dispatch

ptx.b3:                                           ; preds = %tloop.hdr19
  %88 = icmp ne i32 %tid.x24, 0
  br i1 %88, label %br.taken26, label %br.fall27

br.taken26:                                       ; preds = %ptx.b3
  br label %ptx.b5

br.fall27:                                        ; preds = %ptx.b3
  br label %ptx.b4

ptx.b5:                                           ; preds = %ptx.b4, %br.taken26
  store i32 2147483647, ptr %85, align 4, !llvm.access.group !10
  br label %tloop.latch20

ptx.b4:                                           ; preds = %br.fall27
  %89 = zext i32 %ctaid7 to i64
  %90 = mul i64 %89, 4
  %91 = add i64 %81, %90
  %92 = inttoptr i64 %81 to ptr
  %93 = getelementptr i8, ptr %92, i64 %90
  store atomic i32 1, ptr %93 release, align 4, !llvm.access.group !10, !cucpu.outside.scratch !0
  br label %ptx.b5

state.scan:                                       ; preds = %state.scan, %dispatch
  %i = phi i32 [ 0, %dispatch ], [ %103, %state.scan ]
  %94 = phi i32 [ 2147483647, %dispatch ], [ %101, %state.scan ]
  %95 = phi i32 [ 0, %dispatch ], [ %102, %state.scan ]
  %96 = zext i32 %i to i64
  %97 = mul i64 %96, 4
  %98 = add i64 %38, %97
  %99 = getelementptr i8, ptr %scratch, i64 %98
  %100 = load i32, ptr %99, align 4
  %101 = call i32 @llvm.smin.i32(i32 %94, i32 %100)
  %102 = call i32 @llvm.smax.i32(i32 %95, i32 %100)
  %103 = add nuw nsw i32 %i, 1
  %104 = icmp ult i32 %103, %nthreads
  br i1 %104, label %state.scan, label %state.scan.done

state.scan.done:                                  ; preds = %state.scan
  %105 = icmp eq i32 %101, %102
  br i1 %105, label %next.all, label %next.some

done:                                             ; preds = %next.some, %next.all
  br label %block.end

next.all:                                         ; preds = %state.scan.done
  switch i32 %101, label %done [
    i32 1, label %region.all10
  ]

next.some:                                        ; preds = %state.scan.done
  store i32 %ctaid7, ptr %where, align 4
  %106 = getelementptr [6 x i32], ptr %where, i32 0, i32 1
  store i32 %ctaid8, ptr %106, align 4
  %107 = getelementptr [6 x i32], ptr %where, i32 0, i32 2
  store i32 %ctaid9, ptr %107, align 4
  %108 = getelementptr [6 x i32], ptr %where, i32 0, i32 3
  store i32 0, ptr %108, align 4
  %109 = getelementptr [6 x i32], ptr %where, i32 0, i32 4
  store i32 0, ptr %109, align 4
  %110 = getelementptr [6 x i32], ptr %where, i32 0, i32 5
  store i32 0, ptr %110, align 4
  %111 = getelementptr i8, ptr %services, i32 16
  %112 = load ptr, ptr %111, align 8
  call void %112(ptr %0, ptr %where)
  br label %done
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.smin.i32(i32, i32) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare i32 @llvm.smax.i32(i32, i32) #1

attributes #0 = { nounwind }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!0 = !{}
!1 = !{i32 0}
!2 = !{i32 1}
!3 = !{i32 2}
!4 = !{i64 36}
!5 = !{i64 16}
!6 = !{i32 3}
!7 = distinct !{!7, !8}
!8 = !{!"llvm.loop.parallel_accesses", !9}
!9 = distinct !{}
!10 = distinct !{}
!11 = distinct !{!11, !12}
!12 = !{!"llvm.loop.parallel_accesses", !10}
