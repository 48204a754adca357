; llc -march=nvptx64 -mcpu=sm_90 -mattr=+ptx87
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @histogram(ptr addrspace(3) %block_bins, ptr addrspace(1) %bins, i32 %count) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = atomicrmw add ptr addrspace(3) %block_bins, i32 1 syncscope("block") monotonic, align 4
  br label %.0.end
.0.end:
  br label %.1.b0
.1.b0:
  %.1.1000002 = atomicrmw add ptr addrspace(1) %bins, i32 %count syncscope("device") monotonic, align 4
  br label %.1.end
.1.end:
  ret void
}

