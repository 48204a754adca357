; Message passing through a release store and an acquire load, as LLVM IR: t0 stores the
; data, then publishes the flag with a release store; t1 reads the flag with an acquire load, then the data.
; Seeing the flag without the data is forbidden. LLVM 22 keeps the orders of atomic loads and stores.
target triple = "nvptx64-nvidia-cuda"

define void @t0(ptr addrspace(1) %data, ptr addrspace(1) %flag) {
entry:
  store atomic i32 1, ptr addrspace(1) %data syncscope("block") monotonic, align 4
  store atomic i32 1, ptr addrspace(1) %flag syncscope("device") release, align 4
  ret void
}

define void @t1(ptr addrspace(1) %data, ptr addrspace(1) %flag, ptr addrspace(1) %f.out, ptr addrspace(1) %d.out) {
entry:
  %f = load atomic i32, ptr addrspace(1) %flag syncscope("device") acquire, align 4
  %d = load atomic i32, ptr addrspace(1) %data syncscope("block") monotonic, align 4
  store i32 %f, ptr addrspace(1) %f.out, align 4
  store i32 %d, ptr addrspace(1) %d.out, align 4
  ret void
}
