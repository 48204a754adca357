; A module whose llc 22 PTX was read by hand: what llc 22 makes of each atomic, and so what the
; audit must say (tests/tests/llvm_corpus.rs, `audit_of_the_hand_checked_module`).
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @hand(ptr addrspace(1) %data, ptr addrspace(1) %flag, ptr addrspace(3) %s, float %f, i32 %x) {
entry:
  store atomic i32 %x, ptr addrspace(1) %data syncscope("device") monotonic, align 4
  %a = atomicrmw xchg ptr addrspace(1) %flag, i32 1 syncscope("device") release, align 4
  %b = atomicrmw add ptr addrspace(1) %flag, i32 %x acquire, align 4
  %c = cmpxchg ptr addrspace(1) %flag, i32 0, i32 %x syncscope("device") acq_rel acquire, align 4
  %d = load atomic i32, ptr addrspace(1) %flag syncscope("device") acquire, align 4
  fence syncscope("block") seq_cst
  %e = atomicrmw fadd ptr addrspace(1) %data, float %f syncscope("device") monotonic, align 4
  %g = atomicrmw fadd ptr addrspace(3) %s, float %f syncscope("block") monotonic, align 4
  %h = atomicrmw umax ptr addrspace(3) %s, i32 %x syncscope("block") seq_cst, align 4
  ret void
}
