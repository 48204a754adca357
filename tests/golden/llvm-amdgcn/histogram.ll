; llc -mtriple=amdgcn-amd-amdhsa -mcpu=gfx942
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @histogram(ptr addrspace(3) %block_bins, ptr addrspace(1) %bins, i32 %count) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = atomicrmw add ptr addrspace(3) %block_bins, i32 1 syncscope("workgroup") monotonic, align 4
  br label %.0.end
.0.end:
  br label %.1.b0
.1.b0:
  %.1.1000002 = atomicrmw add ptr addrspace(1) %bins, i32 %count syncscope("agent") monotonic, align 4
  br label %.1.end
.1.end:
  ret void
}

