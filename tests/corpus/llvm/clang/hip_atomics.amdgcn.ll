target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@__hip_cuid_e5460efd9da1e395 = addrspace(1) global i8 0
@llvm.compiler.used = appending addrspace(1) global [1 x ptr] [ptr addrspacecast (ptr addrspace(1) @__hip_cuid_e5460efd9da1e395 to ptr)], section "llvm.metadata"

; Function Attrs: mustprogress nofree norecurse nounwind memory(argmem: readwrite)
define protected amdgpu_kernel void @_Z9histogramPjPKhi(ptr addrspace(1) noundef captures(none) %bins.coerce, ptr addrspace(1) noundef readonly captures(none) %data.coerce, i32 noundef %n) local_unnamed_addr #0 {
entry:
  %cmp7 = icmp sgt i32 %n, 0
  br i1 %cmp7, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %entry, %for.body
  %i.08 = phi i32 [ %inc, %for.body ], [ 0, %entry ]
  %idxprom = zext nneg i32 %i.08 to i64
  %arrayidx = getelementptr inbounds nuw i8, ptr addrspace(1) %data.coerce, i64 %idxprom
  %0 = load i8, ptr addrspace(1) %arrayidx, align 1, !tbaa !9
  %idxprom3 = zext i8 %0 to i64
  %arrayidx4 = getelementptr inbounds nuw i32, ptr addrspace(1) %bins.coerce, i64 %idxprom3
  %1 = atomicrmw add ptr addrspace(1) %arrayidx4, i32 1 syncscope("agent") monotonic, align 4, !noalias.addrspace !10, !amdgpu.no.fine.grained.memory !11, !amdgpu.no.remote.memory !11
  %inc = add nuw nsw i32 %i.08, 1
  %exitcond.not = icmp eq i32 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body, !llvm.loop !12
}

; Function Attrs: mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite)
define protected amdgpu_kernel void @_Z6reducePfPdfd(ptr addrspace(1) noundef captures(none) %sum.coerce, ptr addrspace(1) noundef captures(none) %dsum.coerce, float noundef %x, double noundef %y) local_unnamed_addr #1 {
entry:
  %0 = atomicrmw fadd ptr addrspace(1) %sum.coerce, float %x syncscope("agent") monotonic, align 4, !noalias.addrspace !10, !amdgpu.no.fine.grained.memory !11, !amdgpu.no.remote.memory !11
  %1 = atomicrmw fadd ptr addrspace(1) %dsum.coerce, double %y monotonic, align 8, !noalias.addrspace !10, !amdgpu.no.fine.grained.memory !11, !amdgpu.no.remote.memory !11
  %2 = atomicrmw fmax ptr addrspace(1) %sum.coerce, float %x syncscope("workgroup") monotonic, align 4, !noalias.addrspace !10, !amdgpu.no.fine.grained.memory !11, !amdgpu.no.remote.memory !11
  %3 = atomicrmw fmin ptr addrspace(1) %dsum.coerce, double %y syncscope("agent") seq_cst, align 8, !noalias.addrspace !10, !amdgpu.no.fine.grained.memory !11, !amdgpu.no.remote.memory !11
  ret void
}

; Function Attrs: mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite)
define protected amdgpu_kernel void @_Z8countersPiPyPj(ptr addrspace(1) noundef captures(none) %i.coerce, ptr addrspace(1) noundef captures(none) %l.coerce, ptr addrspace(1) noundef captures(none) %u.coerce) local_unnamed_addr #1 {
entry:
  %0 = atomicrmw add ptr addrspace(1) %i.coerce, i32 1 syncscope("workgroup") acq_rel, align 4, !noalias.addrspace !10, !amdgpu.no.fine.grained.memory !11, !amdgpu.no.remote.memory !11
  %1 = atomicrmw sub ptr addrspace(1) %l.coerce, i64 1 syncscope("agent") release, align 8, !noalias.addrspace !10, !amdgpu.no.fine.grained.memory !11, !amdgpu.no.remote.memory !11
  %2 = atomicrmw and ptr addrspace(1) %u.coerce, i32 255 acquire, align 4, !noalias.addrspace !10, !amdgpu.no.fine.grained.memory !11, !amdgpu.no.remote.memory !11
  %3 = atomicrmw or ptr addrspace(1) %u.coerce, i32 256 syncscope("agent") monotonic, align 4, !noalias.addrspace !10, !amdgpu.no.fine.grained.memory !11, !amdgpu.no.remote.memory !11
  %4 = atomicrmw xor ptr addrspace(1) %u.coerce, i32 1 syncscope("agent") seq_cst, align 4, !noalias.addrspace !10, !amdgpu.no.fine.grained.memory !11, !amdgpu.no.remote.memory !11
  %5 = atomicrmw xchg ptr addrspace(1) %l.coerce, i64 5 syncscope("agent") monotonic, align 8, !noalias.addrspace !10, !amdgpu.no.fine.grained.memory !11, !amdgpu.no.remote.memory !11
  %6 = cmpxchg ptr addrspace(1) %i.coerce, i32 6, i32 7 syncscope("agent") acq_rel acquire, align 4, !noalias.addrspace !10
  %7 = extractvalue { i32, i1 } %6, 0
  %8 = cmpxchg weak ptr addrspace(1) %i.coerce, i32 %7, i32 8 syncscope("workgroup") monotonic monotonic, align 4, !noalias.addrspace !10
  ret void
}

; Function Attrs: mustprogress nofree norecurse nounwind
define protected amdgpu_kernel void @_Z15message_passingPiS_S_(ptr addrspace(1) noundef captures(none) %data.coerce, ptr addrspace(1) noundef captures(none) %flag.coerce, ptr addrspace(1) noundef writeonly captures(none) %out.coerce) local_unnamed_addr #2 {
entry:
  store atomic i32 42, ptr addrspace(1) %data.coerce syncscope("agent") monotonic, align 4
  fence syncscope("agent") release
  store atomic i32 1, ptr addrspace(1) %flag.coerce syncscope("agent") monotonic, align 4
  br label %while.cond

while.cond:                                       ; preds = %while.cond, %entry
  %0 = load atomic i32, ptr addrspace(1) %flag.coerce syncscope("agent") acquire, align 4
  %cmp = icmp eq i32 %0, 0
  br i1 %cmp, label %while.cond, label %while.end, !llvm.loop !14

while.end:                                        ; preds = %while.cond
  fence syncscope("workgroup") seq_cst
  %1 = load atomic i32, ptr addrspace(1) %data.coerce syncscope("agent") monotonic, align 4
  store i32 %1, ptr addrspace(1) %out.coerce, align 4, !tbaa !5
  ret void
}

attributes #0 = { mustprogress nofree norecurse nounwind memory(argmem: readwrite) "amdgpu-agpr-alloc"="0" "amdgpu-flat-work-group-size"="1,1024" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx942" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-ds-pk-add-16-insts,+atomic-fadd-rtn-insts,+atomic-flat-pk-add-16-insts,+atomic-fmin-fmax-global-f64,+atomic-global-pk-add-bf16-inst,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+fp8-conversion-insts,+fp8-insts,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+gfx940-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64,+xf32-insts" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite) "amdgpu-agpr-alloc"="0" "amdgpu-flat-work-group-size"="1,1024" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx942" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-ds-pk-add-16-insts,+atomic-fadd-rtn-insts,+atomic-flat-pk-add-16-insts,+atomic-fmin-fmax-global-f64,+atomic-global-pk-add-bf16-inst,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+fp8-conversion-insts,+fp8-insts,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+gfx940-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64,+xf32-insts" "uniform-work-group-size"="true" }
attributes #2 = { mustprogress nofree norecurse nounwind "amdgpu-agpr-alloc"="0" "amdgpu-flat-work-group-size"="1,1024" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx942" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-ds-pk-add-16-insts,+atomic-fadd-rtn-insts,+atomic-flat-pk-add-16-insts,+atomic-fmin-fmax-global-f64,+atomic-global-pk-add-bf16-inst,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+fp8-conversion-insts,+fp8-insts,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+gfx940-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64,+xf32-insts" "uniform-work-group-size"="true" }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.errno.tbaa = !{!5}

!0 = !{i32 1, !"amdhsa_code_object_version", i32 600}
!1 = !{i32 1, !"amdgpu_printf_kind", !"hostcall"}
!2 = !{i32 1, !"wchar_size", i32 4}
!3 = !{i32 8, !"PIC Level", i32 2}
!5 = !{!6, !6, i64 0}
!6 = !{!"int", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C++ TBAA"}
!9 = !{!7, !7, i64 0}
!10 = !{i32 5, i32 6}
!11 = !{}
!12 = distinct !{!12, !13}
!13 = !{!"llvm.loop.mustprogress"}
!14 = distinct !{!14, !13}
