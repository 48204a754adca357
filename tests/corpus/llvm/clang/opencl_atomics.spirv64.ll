target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spirv64-unknown-unknown"

; Function Attrs: nofree norecurse nounwind memory(argmem: readwrite)
define spir_kernel void @histogram(ptr addrspace(1) noundef align 4 captures(none) %bins, ptr addrspace(1) noundef readonly align 1 captures(none) %data, i32 noundef %n) local_unnamed_addr #0 !kernel_arg_addr_space !8 !kernel_arg_access_qual !9 !kernel_arg_type !10 !kernel_arg_base_type !11 !kernel_arg_type_qual !12 {
entry:
  %cmp.i1 = icmp sgt i32 %n, 0
  br i1 %cmp.i1, label %for.body.i.preheader, label %__clang_ocl_kern_imp_histogram.exit

for.body.i.preheader:                             ; preds = %entry
  %wide.trip.count = zext nneg i32 %n to i64
  br label %for.body.i

for.body.i:                                       ; preds = %for.body.i.preheader, %for.body.i
  %indvars.iv = phi i64 [ 0, %for.body.i.preheader ], [ %indvars.iv.next, %for.body.i ]
  %arrayidx.i = getelementptr inbounds nuw i8, ptr addrspace(1) %data, i64 %indvars.iv
  %0 = load i8, ptr addrspace(1) %arrayidx.i, align 1, !tbaa !13
  %idxprom1.i = zext i8 %0 to i64
  %arrayidx2.i = getelementptr inbounds nuw i32, ptr addrspace(1) %bins, i64 %idxprom1.i
  %1 = atomicrmw add ptr addrspace(1) %arrayidx2.i, i32 1 syncscope("device") monotonic, align 4
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond.not = icmp eq i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond.not, label %__clang_ocl_kern_imp_histogram.exit, label %for.body.i

__clang_ocl_kern_imp_histogram.exit:              ; preds = %for.body.i, %entry
  ret void
}

; Function Attrs: alwaysinline nofree norecurse nounwind memory(argmem: readwrite)
define spir_func void @__clang_ocl_kern_imp_histogram(ptr addrspace(1) noundef align 4 captures(none) %bins, ptr addrspace(1) noundef readonly align 1 captures(none) %data, i32 noundef %n) local_unnamed_addr #1 !kernel_arg_addr_space !8 !kernel_arg_access_qual !9 !kernel_arg_type !10 !kernel_arg_base_type !11 !kernel_arg_type_qual !12 {
entry:
  %cmp5 = icmp sgt i32 %n, 0
  br i1 %cmp5, label %for.body.preheader, label %for.cond.cleanup

for.body.preheader:                               ; preds = %entry
  %wide.trip.count = zext nneg i32 %n to i64
  br label %for.body

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %for.body.preheader, %for.body
  %indvars.iv = phi i64 [ 0, %for.body.preheader ], [ %indvars.iv.next, %for.body ]
  %arrayidx = getelementptr inbounds nuw i8, ptr addrspace(1) %data, i64 %indvars.iv
  %0 = load i8, ptr addrspace(1) %arrayidx, align 1, !tbaa !13
  %idxprom1 = zext i8 %0 to i64
  %arrayidx2 = getelementptr inbounds nuw i32, ptr addrspace(1) %bins, i64 %idxprom1
  %1 = atomicrmw add ptr addrspace(1) %arrayidx2, i32 1 syncscope("device") monotonic, align 4
  %indvars.iv.next = add nuw nsw i64 %indvars.iv, 1
  %exitcond.not = icmp eq i64 %indvars.iv.next, %wide.trip.count
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body
}

; Function Attrs: mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite)
define spir_kernel void @counters(ptr addrspace(1) noundef align 4 captures(none) %i, ptr addrspace(1) noundef align 8 captures(none) %l, ptr addrspace(3) noundef align 4 captures(none) %u) local_unnamed_addr #2 !kernel_arg_addr_space !14 !kernel_arg_access_qual !9 !kernel_arg_type !15 !kernel_arg_base_type !16 !kernel_arg_type_qual !17 {
entry:
  %0 = atomicrmw add ptr addrspace(1) %i, i32 1 syncscope("workgroup") acq_rel, align 4
  %1 = atomicrmw sub ptr addrspace(1) %l, i64 1 syncscope("device") release, align 8
  %2 = atomicrmw and ptr addrspace(3) %u, i32 255 syncscope("workgroup") acquire, align 4
  %3 = atomicrmw or ptr addrspace(3) %u, i32 256 syncscope("workgroup") monotonic, align 4
  %4 = atomicrmw max ptr addrspace(1) %i, i32 3 syncscope("device") seq_cst, align 4
  %5 = atomicrmw umin ptr addrspace(3) %u, i32 4 syncscope("workgroup") monotonic, align 4
  %6 = atomicrmw xchg ptr addrspace(1) %l, i64 5 monotonic, align 8
  %7 = cmpxchg ptr addrspace(1) %i, i32 6, i32 7 syncscope("device") acq_rel acquire, align 4
  %8 = extractvalue { i32, i1 } %7, 0
  %9 = cmpxchg weak ptr addrspace(1) %i, i32 %8, i32 8 syncscope("workgroup") monotonic monotonic, align 4
  ret void
}

; Function Attrs: alwaysinline mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite)
define spir_func void @__clang_ocl_kern_imp_counters(ptr addrspace(1) noundef align 4 captures(none) %i, ptr addrspace(1) noundef align 8 captures(none) %l, ptr addrspace(3) noundef align 4 captures(none) %u) local_unnamed_addr #3 !kernel_arg_addr_space !14 !kernel_arg_access_qual !9 !kernel_arg_type !15 !kernel_arg_base_type !16 !kernel_arg_type_qual !17 {
entry:
  %0 = atomicrmw add ptr addrspace(1) %i, i32 1 syncscope("workgroup") acq_rel, align 4
  %1 = atomicrmw sub ptr addrspace(1) %l, i64 1 syncscope("device") release, align 8
  %2 = atomicrmw and ptr addrspace(3) %u, i32 255 syncscope("workgroup") acquire, align 4
  %3 = atomicrmw or ptr addrspace(3) %u, i32 256 syncscope("workgroup") monotonic, align 4
  %4 = atomicrmw max ptr addrspace(1) %i, i32 3 syncscope("device") seq_cst, align 4
  %5 = atomicrmw umin ptr addrspace(3) %u, i32 4 syncscope("workgroup") monotonic, align 4
  %6 = atomicrmw xchg ptr addrspace(1) %l, i64 5 monotonic, align 8
  %7 = cmpxchg ptr addrspace(1) %i, i32 6, i32 7 syncscope("device") acq_rel acquire, align 4
  %8 = extractvalue { i32, i1 } %7, 0
  %9 = cmpxchg weak ptr addrspace(1) %i, i32 %8, i32 8 syncscope("workgroup") monotonic monotonic, align 4
  ret void
}

; Function Attrs: nofree norecurse nounwind
define spir_kernel void @message_passing(ptr addrspace(1) noundef align 4 captures(none) %data, ptr addrspace(1) noundef align 4 captures(none) %flag, ptr addrspace(1) noundef writeonly align 4 captures(none) %out) local_unnamed_addr #4 !kernel_arg_addr_space !18 !kernel_arg_access_qual !9 !kernel_arg_type !19 !kernel_arg_base_type !20 !kernel_arg_type_qual !17 {
entry:
  store atomic i32 42, ptr addrspace(1) %data syncscope("device") monotonic, align 4
  fence syncscope("device") release
  store atomic i32 1, ptr addrspace(1) %flag syncscope("device") monotonic, align 4
  br label %while.cond.i

while.cond.i:                                     ; preds = %while.cond.i, %entry
  %0 = load atomic i32, ptr addrspace(1) %flag syncscope("device") acquire, align 4
  %cmp.i = icmp eq i32 %0, 0
  br i1 %cmp.i, label %while.cond.i, label %__clang_ocl_kern_imp_message_passing.exit

__clang_ocl_kern_imp_message_passing.exit:        ; preds = %while.cond.i
  fence syncscope("workgroup") seq_cst
  %1 = load atomic i32, ptr addrspace(1) %data syncscope("device") monotonic, align 4
  store i32 %1, ptr addrspace(1) %out, align 4, !tbaa !4
  ret void
}

; Function Attrs: alwaysinline nofree norecurse nounwind
define spir_func void @__clang_ocl_kern_imp_message_passing(ptr addrspace(1) noundef align 4 captures(none) %data, ptr addrspace(1) noundef align 4 captures(none) %flag, ptr addrspace(1) noundef writeonly align 4 captures(none) %out) local_unnamed_addr #5 !kernel_arg_addr_space !18 !kernel_arg_access_qual !9 !kernel_arg_type !19 !kernel_arg_base_type !20 !kernel_arg_type_qual !17 {
entry:
  store atomic i32 42, ptr addrspace(1) %data syncscope("device") monotonic, align 4
  fence syncscope("device") release
  store atomic i32 1, ptr addrspace(1) %flag syncscope("device") monotonic, align 4
  br label %while.cond

while.cond:                                       ; preds = %while.cond, %entry
  %0 = load atomic i32, ptr addrspace(1) %flag syncscope("device") acquire, align 4
  %cmp = icmp eq i32 %0, 0
  br i1 %cmp, label %while.cond, label %while.end

while.end:                                        ; preds = %while.cond
  fence syncscope("workgroup") seq_cst
  %1 = load atomic i32, ptr addrspace(1) %data syncscope("device") monotonic, align 4
  store i32 %1, ptr addrspace(1) %out, align 4, !tbaa !4
  ret void
}

attributes #0 = { nofree norecurse nounwind memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #1 = { alwaysinline nofree norecurse nounwind memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #2 = { mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #3 = { alwaysinline mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #4 = { nofree norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }
attributes #5 = { alwaysinline nofree norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "uniform-work-group-size"="false" }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!llvm.errno.tbaa = !{!4}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 3, i32 0}
!4 = !{!5, !5, i64 0}
!5 = !{!"int", !6, i64 0}
!6 = !{!"omnipotent char", !7, i64 0}
!7 = !{!"Simple C/C++ TBAA"}
!8 = !{i32 1, i32 1, i32 0}
!9 = !{!"none", !"none", !"none"}
!10 = !{!"atomic_uint*", !"uchar*", !"int"}
!11 = !{!"_Atomic(unsigned int)*", !"uchar*", !"int"}
!12 = !{!"", !"const", !""}
!13 = !{!6, !6, i64 0}
!14 = !{i32 1, i32 1, i32 3}
!15 = !{!"atomic_int*", !"atomic_ulong*", !"atomic_uint*"}
!16 = !{!"_Atomic(int)*", !"_Atomic(unsigned long)*", !"_Atomic(unsigned int)*"}
!17 = !{!"", !"", !""}
!18 = !{i32 1, i32 1, i32 1}
!19 = !{!"atomic_int*", !"atomic_int*", !"int*"}
!20 = !{!"_Atomic(int)*", !"_Atomic(int)*", !"int*"}
