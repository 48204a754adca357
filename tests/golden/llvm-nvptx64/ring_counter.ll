; llc -march=nvptx64 -mcpu=sm_90 -mattr=+ptx87
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @ring_push(ptr addrspace(1) %head, ptr addrspace(1) %pushed, i32 %last_slot, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = atomicrmw uinc_wrap ptr addrspace(1) %head, i32 %last_slot syncscope("device") monotonic, align 4
  br label %.0.end
.0.end:
  br label %.1.b0
.1.b0:
  %.1.1000002 = atomicrmw add ptr addrspace(1) %pushed, i64 1 syncscope("device") monotonic, align 8
  br label %.1.end
.1.end:
  store i32 %.0.1000002, ptr addrspace(1) %.out0
  ret void
}

define ptx_kernel void @ring_pop(ptr addrspace(1) %tail, i32 %last_slot, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = atomicrmw udec_wrap ptr addrspace(1) %tail, i32 %last_slot syncscope("device") monotonic, align 4
  br label %.0.end
.0.end:
  store i32 %.0.1000002, ptr addrspace(1) %.out0
  ret void
}

