target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nofree noinline norecurse nounwind memory(argmem: readwrite)
define dso_local ptx_kernel void @_Z9histogramPjPKhi(ptr noundef captures(none) %bins, ptr noundef readonly captures(none) %data, i32 noundef %n) local_unnamed_addr #0 {
entry:
  %cmp5 = icmp sgt i32 %n, 0
  br i1 %cmp5, label %for.body.preheader, label %for.cond.cleanup

for.body.preheader:                               ; preds = %entry
  %xtraiter = and i32 %n, 3
  %0 = icmp ult i32 %n, 4
  br i1 %0, label %for.body.epil.preheader, label %for.body.preheader.new

for.body.preheader.new:                           ; preds = %for.body.preheader
  %unroll_iter = and i32 %n, 2147483644
  br label %for.body

for.cond.cleanup.loopexit.unr-lcssa:              ; preds = %for.body
  %lcmp.mod.not = icmp eq i32 %xtraiter, 0
  br i1 %lcmp.mod.not, label %for.cond.cleanup, label %for.body.epil.preheader

for.body.epil.preheader:                          ; preds = %for.cond.cleanup.loopexit.unr-lcssa, %for.body.preheader
  %i.06.epil.init = phi i32 [ 0, %for.body.preheader ], [ %inc.3, %for.cond.cleanup.loopexit.unr-lcssa ]
  %lcmp.mod7 = icmp ne i32 %xtraiter, 0
  tail call void @llvm.assume(i1 %lcmp.mod7)
  br label %for.body.epil

for.body.epil:                                    ; preds = %for.body.epil, %for.body.epil.preheader
  %i.06.epil = phi i32 [ %inc.epil, %for.body.epil ], [ %i.06.epil.init, %for.body.epil.preheader ]
  %epil.iter = phi i32 [ %epil.iter.next, %for.body.epil ], [ 0, %for.body.epil.preheader ]
  %idxprom.epil = zext nneg i32 %i.06.epil to i64
  %arrayidx.epil = getelementptr inbounds nuw i8, ptr %data, i64 %idxprom.epil
  %1 = load i8, ptr %arrayidx.epil, align 1, !tbaa !8
  %idxprom1.epil = zext i8 %1 to i64
  %arrayidx2.epil = getelementptr inbounds nuw i32, ptr %bins, i64 %idxprom1.epil
  %2 = atomicrmw add ptr %arrayidx2.epil, i32 1 seq_cst, align 4
  %inc.epil = add nuw nsw i32 %i.06.epil, 1
  %epil.iter.next = add i32 %epil.iter, 1
  %epil.iter.cmp.not = icmp eq i32 %epil.iter.next, %xtraiter
  br i1 %epil.iter.cmp.not, label %for.cond.cleanup, label %for.body.epil, !llvm.loop !9

for.cond.cleanup:                                 ; preds = %for.cond.cleanup.loopexit.unr-lcssa, %for.body.epil, %entry
  ret void

for.body:                                         ; preds = %for.body, %for.body.preheader.new
  %i.06 = phi i32 [ 0, %for.body.preheader.new ], [ %inc.3, %for.body ]
  %niter = phi i32 [ 0, %for.body.preheader.new ], [ %niter.next.3, %for.body ]
  %idxprom = zext nneg i32 %i.06 to i64
  %arrayidx = getelementptr inbounds nuw i8, ptr %data, i64 %idxprom
  %3 = load i8, ptr %arrayidx, align 1, !tbaa !8
  %idxprom1 = zext i8 %3 to i64
  %arrayidx2 = getelementptr inbounds nuw i32, ptr %bins, i64 %idxprom1
  %4 = atomicrmw add ptr %arrayidx2, i32 1 seq_cst, align 4
  %5 = zext nneg i32 %i.06 to i64
  %6 = getelementptr inbounds nuw i8, ptr %data, i64 %5
  %arrayidx.1 = getelementptr inbounds nuw i8, ptr %6, i64 1
  %7 = load i8, ptr %arrayidx.1, align 1, !tbaa !8
  %idxprom1.1 = zext i8 %7 to i64
  %arrayidx2.1 = getelementptr inbounds nuw i32, ptr %bins, i64 %idxprom1.1
  %8 = atomicrmw add ptr %arrayidx2.1, i32 1 seq_cst, align 4
  %9 = zext nneg i32 %i.06 to i64
  %10 = getelementptr inbounds nuw i8, ptr %data, i64 %9
  %arrayidx.2 = getelementptr inbounds nuw i8, ptr %10, i64 2
  %11 = load i8, ptr %arrayidx.2, align 1, !tbaa !8
  %idxprom1.2 = zext i8 %11 to i64
  %arrayidx2.2 = getelementptr inbounds nuw i32, ptr %bins, i64 %idxprom1.2
  %12 = atomicrmw add ptr %arrayidx2.2, i32 1 seq_cst, align 4
  %13 = zext nneg i32 %i.06 to i64
  %14 = getelementptr inbounds nuw i8, ptr %data, i64 %13
  %arrayidx.3 = getelementptr inbounds nuw i8, ptr %14, i64 3
  %15 = load i8, ptr %arrayidx.3, align 1, !tbaa !8
  %idxprom1.3 = zext i8 %15 to i64
  %arrayidx2.3 = getelementptr inbounds nuw i32, ptr %bins, i64 %idxprom1.3
  %16 = atomicrmw add ptr %arrayidx2.3, i32 1 seq_cst, align 4
  %inc.3 = add nuw nsw i32 %i.06, 4
  %niter.next.3 = add i32 %niter, 4
  %niter.ncmp.3 = icmp eq i32 %niter.next.3, %unroll_iter
  br i1 %niter.ncmp.3, label %for.cond.cleanup.loopexit.unr-lcssa, label %for.body, !llvm.loop !11
}

; Function Attrs: mustprogress nofree noinline norecurse nounwind willreturn memory(argmem: readwrite)
define dso_local ptx_kernel void @_Z6reducePfPdfd(ptr noundef captures(none) %sum, ptr noundef captures(none) %dsum, float noundef %x, double noundef %y) local_unnamed_addr #1 {
entry:
  %0 = atomicrmw fadd ptr %sum, float %x seq_cst, align 4
  %1 = atomicrmw fadd ptr %dsum, double %y seq_cst, align 8
  %2 = atomicrmw fadd ptr %sum, float %x monotonic, align 4
  %3 = atomicrmw fmax ptr %sum, float %x monotonic, align 4
  ret void
}

; Function Attrs: mustprogress noinline norecurse nounwind memory(argmem: readwrite)
define dso_local ptx_kernel void @_Z8countersPiPyPj(ptr noundef captures(none) %i, ptr noundef captures(none) %l, ptr noundef captures(none) %u) local_unnamed_addr #2 {
entry:
  %0 = tail call i32 @llvm.nvvm.atomic.add.gen.i.cta.i32.p0(ptr %i, i32 1)
  %1 = tail call i32 @llvm.nvvm.atomic.add.gen.i.sys.i32.p0(ptr %i, i32 2)
  %2 = atomicrmw max ptr %i, i32 3 seq_cst, align 4
  %3 = atomicrmw umin ptr %u, i32 4 seq_cst, align 4
  %4 = atomicrmw uinc_wrap ptr %u, i32 100 seq_cst, align 4
  %5 = atomicrmw udec_wrap ptr %u, i32 100 seq_cst, align 4
  %6 = atomicrmw xchg ptr %l, i64 5 seq_cst, align 8
  %7 = cmpxchg ptr %i, i32 6, i32 7 seq_cst seq_cst, align 4
  %8 = atomicrmw sub ptr %l, i64 1 acq_rel, align 8
  %9 = atomicrmw and ptr %u, i32 255 acquire, align 4
  %10 = atomicrmw or ptr %u, i32 256 release, align 4
  %11 = atomicrmw xor ptr %u, i32 1 seq_cst, align 4
  %12 = atomicrmw min ptr %i, i32 -1 seq_cst, align 4
  ret void
}

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare i32 @llvm.nvvm.atomic.add.gen.i.cta.i32.p0(ptr captures(none), i32) #3

; Function Attrs: nocallback nounwind memory(argmem: readwrite)
declare i32 @llvm.nvvm.atomic.add.gen.i.sys.i32.p0(ptr captures(none), i32) #3

; Function Attrs: mustprogress nofree noinline norecurse nounwind memory(argmem: readwrite)
define dso_local ptx_kernel void @_Z11ticket_lockPjS_Pi(ptr noundef captures(none) %next, ptr noundef captures(none) %serving, ptr noundef captures(none) %data) local_unnamed_addr #0 {
entry:
  %0 = atomicrmw add ptr %next, i32 1 monotonic, align 4
  br label %while.cond

while.cond:                                       ; preds = %while.cond, %entry
  %1 = load atomic i32, ptr %serving acquire, align 4
  %cmp.not = icmp eq i32 %1, %0
  br i1 %cmp.not, label %while.end, label %while.cond, !llvm.loop !13

while.end:                                        ; preds = %while.cond
  %2 = load i32, ptr %data, align 4, !tbaa !4
  %add = add nsw i32 %2, 1
  store i32 %add, ptr %data, align 4, !tbaa !4
  %add3 = add i32 %0, 1
  store atomic i32 %add3, ptr %serving release, align 4
  ret void
}

; Function Attrs: mustprogress nofree noinline norecurse nounwind
define dso_local ptx_kernel void @_Z15message_passingPiS_S_(ptr noundef captures(none) %data, ptr noundef captures(none) %flag, ptr noundef captures(none) %out) local_unnamed_addr #4 {
entry:
  store atomic i32 42, ptr %data monotonic, align 4
  fence release
  store atomic i32 1, ptr %flag monotonic, align 4
  br label %while.cond

while.cond:                                       ; preds = %while.cond, %entry
  %0 = load atomic i32, ptr %flag acquire, align 4
  %cmp = icmp eq i32 %0, 0
  br i1 %cmp, label %while.cond, label %while.end, !llvm.loop !14

while.end:                                        ; preds = %while.cond
  fence seq_cst
  %1 = load atomic i32, ptr %data monotonic, align 4
  store i32 %1, ptr %out, align 4, !tbaa !4
  %2 = cmpxchg ptr %out, i32 0, i32 1 acq_rel acquire, align 4
  %3 = extractvalue { i32, i1 } %2, 0
  %4 = cmpxchg weak ptr %out, i32 %3, i32 2 monotonic monotonic, align 4
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write)
declare void @llvm.assume(i1 noundef) #5

attributes #0 = { mustprogress nofree noinline norecurse nounwind memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx42,+ptx80,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nofree noinline norecurse nounwind willreturn memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx42,+ptx80,+sm_90" "uniform-work-group-size"="true" }
attributes #2 = { mustprogress noinline norecurse nounwind memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx42,+ptx80,+sm_90" "uniform-work-group-size"="true" }
attributes #3 = { nocallback nounwind memory(argmem: readwrite) }
attributes #4 = { mustprogress nofree noinline norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx42,+ptx80,+sm_90" "uniform-work-group-size"="true" }
attributes #5 = { nocallback nofree nosync nounwind willreturn memory(inaccessiblemem: write) }

!llvm.module.flags = !{!0, !1, !2}
!llvm.errno.tbaa = !{!4}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!2 = !{i32 7, !"frame-pointer", i32 2}
!4 = !{!5, !5, i64 0}
!5 = !{!"int", !6, i64 0}
!6 = !{!"omnipotent char", !7, i64 0}
!7 = !{!"Simple C++ TBAA"}
!8 = !{!6, !6, i64 0}
!9 = distinct !{!9, !10}
!10 = !{!"llvm.loop.unroll.disable"}
!11 = distinct !{!11, !12}
!12 = !{!"llvm.loop.mustprogress"}
!13 = distinct !{!13, !12}
!14 = distinct !{!14, !12}
