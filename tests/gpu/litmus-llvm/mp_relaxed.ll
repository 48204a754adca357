; Message passing through read-modify-writes, as LLVM IR: t0 stores the data, then publishes
; the flag with a relaxed exchange; t1 reads the flag with a relaxed add of 0, then the data.
; Seeing the flag without the data is allowed: the teeth of the test.
target triple = "nvptx64-nvidia-cuda"

define void @t0(ptr addrspace(1) %data, ptr addrspace(1) %flag) {
entry:
  store atomic i32 1, ptr addrspace(1) %data syncscope("block") monotonic, align 4
  %old = atomicrmw xchg ptr addrspace(1) %flag, i32 1 syncscope("device") monotonic, align 4
  ret void
}

define void @t1(ptr addrspace(1) %data, ptr addrspace(1) %flag, ptr addrspace(1) %f.out, ptr addrspace(1) %d.out) {
entry:
  %f = atomicrmw add ptr addrspace(1) %flag, i32 0 syncscope("device") monotonic, align 4
  %d = load atomic i32, ptr addrspace(1) %data syncscope("block") monotonic, align 4
  store i32 %f, ptr addrspace(1) %f.out, align 4
  store i32 %d, ptr addrspace(1) %d.out, align 4
  ret void
}
