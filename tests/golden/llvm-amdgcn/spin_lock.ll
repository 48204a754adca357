; llc -mtriple=amdgcn-amd-amdhsa -mcpu=gfx942
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @spin_lock(ptr addrspace(1) %lock, ptr addrspace(1) %.out0, ptr addrspace(1) %.out1) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1 = cmpxchg ptr addrspace(1) %lock, i32 0, i32 1 syncscope("agent") acquire acquire, align 4
  %.0.1000003 = extractvalue { i32, i1 } %.0.1, 0
  br label %.0.end
.0.end:
  br label %.1.b0
.1.b0:
  %.1.1000002 = atomicrmw xchg ptr addrspace(1) %lock, i32 0 syncscope("agent") release, align 4
  br label %.1.end
.1.end:
  store i32 %.0.1000003, ptr addrspace(1) %.out0
  store i32 %.1.1000002, ptr addrspace(1) %.out1
  ret void
}

