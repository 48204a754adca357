target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

; Function Attrs: nofree norecurse nounwind memory(argmem: readwrite)
define protected amdgpu_kernel void @histogram(ptr addrspace(1) noundef align 4 captures(none) %bins, ptr addrspace(1) noundef readonly align 1 captures(none) %data, i32 noundef %n) local_unnamed_addr #0 !kernel_arg_addr_space !9 !kernel_arg_access_qual !10 !kernel_arg_type !11 !kernel_arg_base_type !12 !kernel_arg_type_qual !13 {
entry:
  %cmp.i1 = icmp sgt i32 %n, 0
  br i1 %cmp.i1, label %for.body.i, label %__clang_ocl_kern_imp_histogram.exit

for.body.i:                                       ; preds = %entry, %for.body.i
  %i.0.i2 = phi i32 [ %inc.i, %for.body.i ], [ 0, %entry ]
  %idxprom.i = zext nneg i32 %i.0.i2 to i64
  %arrayidx.i = getelementptr inbounds nuw i8, ptr addrspace(1) %data, i64 %idxprom.i
  %0 = load i8, ptr addrspace(1) %arrayidx.i, align 1, !tbaa !14
  %idxprom1.i = zext i8 %0 to i64
  %arrayidx2.i = getelementptr inbounds nuw i32, ptr addrspace(1) %bins, i64 %idxprom1.i
  %1 = atomicrmw add ptr addrspace(1) %arrayidx2.i, i32 1 syncscope("agent-one-as") monotonic, align 4, !amdgpu.no.fine.grained.memory !15, !amdgpu.no.remote.memory !15
  %inc.i = add nuw nsw i32 %i.0.i2, 1
  %exitcond.not = icmp eq i32 %inc.i, %n
  br i1 %exitcond.not, label %__clang_ocl_kern_imp_histogram.exit, label %for.body.i

__clang_ocl_kern_imp_histogram.exit:              ; preds = %for.body.i, %entry
  ret void
}

; Function Attrs: alwaysinline nofree norecurse nounwind memory(argmem: readwrite)
define protected void @__clang_ocl_kern_imp_histogram(ptr addrspace(1) noundef align 4 captures(none) %bins, ptr addrspace(1) noundef readonly align 1 captures(none) %data, i32 noundef %n) local_unnamed_addr #1 !kernel_arg_addr_space !9 !kernel_arg_access_qual !10 !kernel_arg_type !11 !kernel_arg_base_type !12 !kernel_arg_type_qual !13 {
entry:
  %cmp5 = icmp sgt i32 %n, 0
  br i1 %cmp5, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.body, %entry
  ret void

for.body:                                         ; preds = %entry, %for.body
  %i.06 = phi i32 [ %inc, %for.body ], [ 0, %entry ]
  %idxprom = zext nneg i32 %i.06 to i64
  %arrayidx = getelementptr inbounds nuw i8, ptr addrspace(1) %data, i64 %idxprom
  %0 = load i8, ptr addrspace(1) %arrayidx, align 1, !tbaa !14
  %idxprom1 = zext i8 %0 to i64
  %arrayidx2 = getelementptr inbounds nuw i32, ptr addrspace(1) %bins, i64 %idxprom1
  %1 = atomicrmw add ptr addrspace(1) %arrayidx2, i32 1 syncscope("agent-one-as") monotonic, align 4, !amdgpu.no.fine.grained.memory !15, !amdgpu.no.remote.memory !15
  %inc = add nuw nsw i32 %i.06, 1
  %exitcond.not = icmp eq i32 %inc, %n
  br i1 %exitcond.not, label %for.cond.cleanup, label %for.body
}

; Function Attrs: mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite)
define protected amdgpu_kernel void @counters(ptr addrspace(1) noundef align 4 captures(none) %i, ptr addrspace(1) noundef align 8 captures(none) %l, ptr addrspace(3) noundef align 4 captures(none) %u) local_unnamed_addr #2 !kernel_arg_addr_space !16 !kernel_arg_access_qual !10 !kernel_arg_type !17 !kernel_arg_base_type !18 !kernel_arg_type_qual !19 {
entry:
  %0 = atomicrmw add ptr addrspace(1) %i, i32 1 syncscope("workgroup-one-as") acq_rel, align 4, !amdgpu.no.fine.grained.memory !15, !amdgpu.no.remote.memory !15
  %1 = atomicrmw sub ptr addrspace(1) %l, i64 1 syncscope("agent-one-as") release, align 8, !amdgpu.no.fine.grained.memory !15, !amdgpu.no.remote.memory !15
  %2 = atomicrmw and ptr addrspace(3) %u, i32 255 syncscope("workgroup-one-as") acquire, align 4, !amdgpu.no.fine.grained.memory !15, !amdgpu.no.remote.memory !15
  %3 = atomicrmw or ptr addrspace(3) %u, i32 256 syncscope("workgroup-one-as") monotonic, align 4, !amdgpu.no.fine.grained.memory !15, !amdgpu.no.remote.memory !15
  %4 = atomicrmw max ptr addrspace(1) %i, i32 3 syncscope("agent") seq_cst, align 4, !amdgpu.no.fine.grained.memory !15, !amdgpu.no.remote.memory !15
  %5 = atomicrmw umin ptr addrspace(3) %u, i32 4 syncscope("workgroup-one-as") monotonic, align 4, !amdgpu.no.fine.grained.memory !15, !amdgpu.no.remote.memory !15
  %6 = atomicrmw xchg ptr addrspace(1) %l, i64 5 syncscope("one-as") monotonic, align 8, !amdgpu.no.fine.grained.memory !15, !amdgpu.no.remote.memory !15
  %7 = cmpxchg ptr addrspace(1) %i, i32 6, i32 7 syncscope("agent-one-as") acq_rel acquire, align 4
  %8 = extractvalue { i32, i1 } %7, 0
  %9 = cmpxchg weak ptr addrspace(1) %i, i32 %8, i32 8 syncscope("workgroup-one-as") monotonic monotonic, align 4
  ret void
}

; Function Attrs: alwaysinline mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite)
define protected void @__clang_ocl_kern_imp_counters(ptr addrspace(1) noundef align 4 captures(none) %i, ptr addrspace(1) noundef align 8 captures(none) %l, ptr addrspace(3) noundef align 4 captures(none) %u) local_unnamed_addr #3 !kernel_arg_addr_space !16 !kernel_arg_access_qual !10 !kernel_arg_type !17 !kernel_arg_base_type !18 !kernel_arg_type_qual !19 {
entry:
  %0 = atomicrmw add ptr addrspace(1) %i, i32 1 syncscope("workgroup-one-as") acq_rel, align 4, !amdgpu.no.fine.grained.memory !15, !amdgpu.no.remote.memory !15
  %1 = atomicrmw sub ptr addrspace(1) %l, i64 1 syncscope("agent-one-as") release, align 8, !amdgpu.no.fine.grained.memory !15, !amdgpu.no.remote.memory !15
  %2 = atomicrmw and ptr addrspace(3) %u, i32 255 syncscope("workgroup-one-as") acquire, align 4, !amdgpu.no.fine.grained.memory !15, !amdgpu.no.remote.memory !15
  %3 = atomicrmw or ptr addrspace(3) %u, i32 256 syncscope("workgroup-one-as") monotonic, align 4, !amdgpu.no.fine.grained.memory !15, !amdgpu.no.remote.memory !15
  %4 = atomicrmw max ptr addrspace(1) %i, i32 3 syncscope("agent") seq_cst, align 4, !amdgpu.no.fine.grained.memory !15, !amdgpu.no.remote.memory !15
  %5 = atomicrmw umin ptr addrspace(3) %u, i32 4 syncscope("workgroup-one-as") monotonic, align 4, !amdgpu.no.fine.grained.memory !15, !amdgpu.no.remote.memory !15
  %6 = atomicrmw xchg ptr addrspace(1) %l, i64 5 syncscope("one-as") monotonic, align 8, !amdgpu.no.fine.grained.memory !15, !amdgpu.no.remote.memory !15
  %7 = cmpxchg ptr addrspace(1) %i, i32 6, i32 7 syncscope("agent-one-as") acq_rel acquire, align 4
  %8 = extractvalue { i32, i1 } %7, 0
  %9 = cmpxchg weak ptr addrspace(1) %i, i32 %8, i32 8 syncscope("workgroup-one-as") monotonic monotonic, align 4
  ret void
}

; Function Attrs: nofree norecurse nounwind
define protected amdgpu_kernel void @message_passing(ptr addrspace(1) noundef align 4 captures(none) %data, ptr addrspace(1) noundef align 4 captures(none) %flag, ptr addrspace(1) noundef writeonly align 4 captures(none) %out) local_unnamed_addr #4 !kernel_arg_addr_space !20 !kernel_arg_access_qual !10 !kernel_arg_type !21 !kernel_arg_base_type !22 !kernel_arg_type_qual !19 {
entry:
  store atomic i32 42, ptr addrspace(1) %data syncscope("agent-one-as") monotonic, align 4
  fence syncscope("agent") release
  store atomic i32 1, ptr addrspace(1) %flag syncscope("agent-one-as") monotonic, align 4
  br label %while.cond.i

while.cond.i:                                     ; preds = %while.cond.i, %entry
  %0 = load atomic i32, ptr addrspace(1) %flag syncscope("agent-one-as") acquire, align 4
  %cmp.i = icmp eq i32 %0, 0
  br i1 %cmp.i, label %while.cond.i, label %__clang_ocl_kern_imp_message_passing.exit

__clang_ocl_kern_imp_message_passing.exit:        ; preds = %while.cond.i
  fence syncscope("workgroup") seq_cst
  %1 = load atomic i32, ptr addrspace(1) %data syncscope("agent-one-as") monotonic, align 4
  store i32 %1, ptr addrspace(1) %out, align 4, !tbaa !5
  ret void
}

; Function Attrs: alwaysinline nofree norecurse nounwind
define protected void @__clang_ocl_kern_imp_message_passing(ptr addrspace(1) noundef align 4 captures(none) %data, ptr addrspace(1) noundef align 4 captures(none) %flag, ptr addrspace(1) noundef writeonly align 4 captures(none) %out) local_unnamed_addr #5 !kernel_arg_addr_space !20 !kernel_arg_access_qual !10 !kernel_arg_type !21 !kernel_arg_base_type !22 !kernel_arg_type_qual !19 {
entry:
  store atomic i32 42, ptr addrspace(1) %data syncscope("agent-one-as") monotonic, align 4
  fence syncscope("agent") release
  store atomic i32 1, ptr addrspace(1) %flag syncscope("agent-one-as") monotonic, align 4
  br label %while.cond

while.cond:                                       ; preds = %while.cond, %entry
  %0 = load atomic i32, ptr addrspace(1) %flag syncscope("agent-one-as") acquire, align 4
  %cmp = icmp eq i32 %0, 0
  br i1 %cmp, label %while.cond, label %while.end

while.end:                                        ; preds = %while.cond
  fence syncscope("workgroup") seq_cst
  %1 = load atomic i32, ptr addrspace(1) %data syncscope("agent-one-as") monotonic, align 4
  store i32 %1, ptr addrspace(1) %out, align 4, !tbaa !5
  ret void
}

attributes #0 = { nofree norecurse nounwind memory(argmem: readwrite) "amdgpu-agpr-alloc"="0" "amdgpu-flat-work-group-size"="1,256" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx942" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-ds-pk-add-16-insts,+atomic-fadd-rtn-insts,+atomic-flat-pk-add-16-insts,+atomic-fmin-fmax-global-f64,+atomic-global-pk-add-bf16-inst,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+fp8-conversion-insts,+fp8-insts,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+gfx940-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64,+xf32-insts" "uniform-work-group-size"="false" }
attributes #1 = { alwaysinline nofree norecurse nounwind memory(argmem: readwrite) "amdgpu-agpr-alloc"="0" "amdgpu-flat-work-group-size"="1,256" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx942" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-ds-pk-add-16-insts,+atomic-fadd-rtn-insts,+atomic-flat-pk-add-16-insts,+atomic-fmin-fmax-global-f64,+atomic-global-pk-add-bf16-inst,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+fp8-conversion-insts,+fp8-insts,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+gfx940-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64,+xf32-insts" "uniform-work-group-size"="false" }
attributes #2 = { mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite) "amdgpu-agpr-alloc"="0" "amdgpu-flat-work-group-size"="1,256" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx942" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-ds-pk-add-16-insts,+atomic-fadd-rtn-insts,+atomic-flat-pk-add-16-insts,+atomic-fmin-fmax-global-f64,+atomic-global-pk-add-bf16-inst,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+fp8-conversion-insts,+fp8-insts,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+gfx940-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64,+xf32-insts" "uniform-work-group-size"="false" }
attributes #3 = { alwaysinline mustprogress nofree norecurse nounwind willreturn memory(argmem: readwrite) "amdgpu-agpr-alloc"="0" "amdgpu-flat-work-group-size"="1,256" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx942" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-ds-pk-add-16-insts,+atomic-fadd-rtn-insts,+atomic-flat-pk-add-16-insts,+atomic-fmin-fmax-global-f64,+atomic-global-pk-add-bf16-inst,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+fp8-conversion-insts,+fp8-insts,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+gfx940-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64,+xf32-insts" "uniform-work-group-size"="false" }
attributes #4 = { nofree norecurse nounwind "amdgpu-agpr-alloc"="0" "amdgpu-flat-work-group-size"="1,256" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx942" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-ds-pk-add-16-insts,+atomic-fadd-rtn-insts,+atomic-flat-pk-add-16-insts,+atomic-fmin-fmax-global-f64,+atomic-global-pk-add-bf16-inst,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+fp8-conversion-insts,+fp8-insts,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+gfx940-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64,+xf32-insts" "uniform-work-group-size"="false" }
attributes #5 = { alwaysinline nofree norecurse nounwind "amdgpu-agpr-alloc"="0" "amdgpu-flat-work-group-size"="1,256" "amdgpu-no-cluster-id-x" "amdgpu-no-cluster-id-y" "amdgpu-no-cluster-id-z" "amdgpu-no-completion-action" "amdgpu-no-default-queue" "amdgpu-no-dispatch-id" "amdgpu-no-dispatch-ptr" "amdgpu-no-flat-scratch-init" "amdgpu-no-heap-ptr" "amdgpu-no-hostcall-ptr" "amdgpu-no-implicitarg-ptr" "amdgpu-no-lds-kernel-id" "amdgpu-no-multigrid-sync-arg" "amdgpu-no-queue-ptr" "amdgpu-no-workgroup-id-x" "amdgpu-no-workgroup-id-y" "amdgpu-no-workgroup-id-z" "amdgpu-no-workitem-id-x" "amdgpu-no-workitem-id-y" "amdgpu-no-workitem-id-z" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx942" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-ds-pk-add-16-insts,+atomic-fadd-rtn-insts,+atomic-flat-pk-add-16-insts,+atomic-fmin-fmax-global-f64,+atomic-global-pk-add-bf16-inst,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+fp8-conversion-insts,+fp8-insts,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+gfx940-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64,+xf32-insts" "uniform-work-group-size"="false" }

!llvm.module.flags = !{!0, !1, !2}
!opencl.ocl.version = !{!3}
!llvm.errno.tbaa = !{!5}

!0 = !{i32 1, !"amdhsa_code_object_version", i32 600}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 8, !"PIC Level", i32 2}
!3 = !{i32 2, i32 0}
!5 = !{!6, !6, i64 0}
!6 = !{!"int", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = !{i32 1, i32 1, i32 0}
!10 = !{!"none", !"none", !"none"}
!11 = !{!"atomic_uint*", !"uchar*", !"int"}
!12 = !{!"_Atomic(unsigned int)*", !"uchar*", !"int"}
!13 = !{!"", !"const", !""}
!14 = !{!7, !7, i64 0}
!15 = !{}
!16 = !{i32 1, i32 1, i32 3}
!17 = !{!"atomic_int*", !"atomic_ulong*", !"atomic_uint*"}
!18 = !{!"_Atomic(int)*", !"_Atomic(unsigned long)*", !"_Atomic(unsigned int)*"}
!19 = !{!"", !"", !""}
!20 = !{i32 1, i32 1, i32 1}
!21 = !{!"atomic_int*", !"atomic_int*", !"int*"}
!22 = !{!"_Atomic(int)*", !"_Atomic(int)*", !"int*"}
