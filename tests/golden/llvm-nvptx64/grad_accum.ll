; llc -march=nvptx64 -mcpu=sm_90 -mattr=+ptx87
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @grad_accum(ptr addrspace(1) %grad, ptr addrspace(1) %grad_bf16, ptr addrspace(1) %master, i32 %g2, i32 %gb2, half %g0, half %g1, half %g2a, half %g3, half %g4, half %g5, half %g6, half %g7, float %w0, float %w1, float %w2, float %w3) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1 = bitcast i32 %g2 to <2 x half>
  %.0.2 = atomicrmw fadd ptr addrspace(1) %grad, <2 x half> %.0.1 syncscope("device") monotonic, align 4
  %.0.1000002 = bitcast <2 x half> %.0.2 to i32
  br label %.0.end
.0.end:
  br label %.1.b0
.1.b0:
  %.1.1 = bitcast i32 %gb2 to <2 x bfloat>
  %.1.2 = atomicrmw fadd ptr addrspace(1) %grad_bf16, <2 x bfloat> %.1.1 syncscope("device") monotonic, align 4
  %.1.1000002 = bitcast <2 x bfloat> %.1.2 to i32
  br label %.1.end
.1.end:
  br label %.2.b0
.2.b0:
  %.2.1000009 = atomicrmw fadd ptr addrspace(1) %grad, half %g0 syncscope("device") monotonic, align 2
  %.2.1000010 = getelementptr i8, ptr addrspace(1) %grad, i64 2
  %.2.1000011 = atomicrmw fadd ptr addrspace(1) %.2.1000010, half %g1 syncscope("device") monotonic, align 2
  %.2.1000012 = getelementptr i8, ptr addrspace(1) %grad, i64 4
  %.2.1000013 = atomicrmw fadd ptr addrspace(1) %.2.1000012, half %g2a syncscope("device") monotonic, align 2
  %.2.1000014 = getelementptr i8, ptr addrspace(1) %grad, i64 6
  %.2.1000015 = atomicrmw fadd ptr addrspace(1) %.2.1000014, half %g3 syncscope("device") monotonic, align 2
  %.2.1000016 = getelementptr i8, ptr addrspace(1) %grad, i64 8
  %.2.1000017 = atomicrmw fadd ptr addrspace(1) %.2.1000016, half %g4 syncscope("device") monotonic, align 2
  %.2.1000018 = getelementptr i8, ptr addrspace(1) %grad, i64 10
  %.2.1000019 = atomicrmw fadd ptr addrspace(1) %.2.1000018, half %g5 syncscope("device") monotonic, align 2
  %.2.1000020 = getelementptr i8, ptr addrspace(1) %grad, i64 12
  %.2.1000021 = atomicrmw fadd ptr addrspace(1) %.2.1000020, half %g6 syncscope("device") monotonic, align 2
  %.2.1000022 = getelementptr i8, ptr addrspace(1) %grad, i64 14
  %.2.1000023 = atomicrmw fadd ptr addrspace(1) %.2.1000022, half %g7 syncscope("device") monotonic, align 2
  br label %.2.end
.2.end:
  br label %.3.b0
.3.b0:
  %.3.1000005 = atomicrmw fadd ptr addrspace(1) %master, float %w0 syncscope("device") monotonic, align 4
  %.3.1000006 = getelementptr i8, ptr addrspace(1) %master, i64 4
  %.3.1000007 = atomicrmw fadd ptr addrspace(1) %.3.1000006, float %w1 syncscope("device") monotonic, align 4
  %.3.1000008 = getelementptr i8, ptr addrspace(1) %master, i64 8
  %.3.1000009 = atomicrmw fadd ptr addrspace(1) %.3.1000008, float %w2 syncscope("device") monotonic, align 4
  %.3.1000010 = getelementptr i8, ptr addrspace(1) %master, i64 12
  %.3.1000011 = atomicrmw fadd ptr addrspace(1) %.3.1000010, float %w3 syncscope("device") monotonic, align 4
  br label %.3.end
.3.end:
  ret void
}

