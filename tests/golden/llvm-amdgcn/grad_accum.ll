; llc -mtriple=amdgcn-amd-amdhsa -mcpu=gfx942
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @grad_accum(ptr addrspace(1) %grad, ptr addrspace(1) %grad_bf16, ptr addrspace(1) %master, i32 %g2, i32 %gb2, half %g0, half %g1, half %g2a, half %g3, half %g4, half %g5, half %g6, half %g7, float %w0, float %w1, float %w2, float %w3) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1 = bitcast i32 %g2 to <2 x half>
  %.0.2 = atomicrmw fadd ptr addrspace(1) %grad, <2 x half> %.0.1 syncscope("agent") monotonic, align 4
  %.0.1000002 = bitcast <2 x half> %.0.2 to i32
  br label %.0.end
.0.end:
  br label %.1.b0
.1.b0:
  %.1.1 = bitcast i32 %gb2 to <2 x bfloat>
  %.1.2 = atomicrmw fadd ptr addrspace(1) %grad_bf16, <2 x bfloat> %.1.1 syncscope("agent") monotonic, align 4
  %.1.1000002 = bitcast <2 x bfloat> %.1.2 to i32
  br label %.1.end
.1.end:
  br label %.2.b0
.2.b0:
  %.2.1000009 = getelementptr i8, ptr addrspace(1) %grad, i64 4
  %.2.1000010 = getelementptr i8, ptr addrspace(1) %grad, i64 8
  %.2.1000011 = getelementptr i8, ptr addrspace(1) %grad, i64 12
  %.2.1000013 = load atomic i32, ptr addrspace(1) %grad syncscope("agent") monotonic, align 4
  br label %.2.b1
.2.b1:
  %.2.1000014 = phi i32 [ %.2.1000013, %.2.b0 ], [ %.2.1000029, %.2.b2 ]
  %.2.1000015 = trunc i32 %.2.1000014 to i16
  %.2.1000016 = bitcast i16 %.2.1000015 to half
  %.2.1000017 = fadd half %.2.1000016, %g0
  %.2.1000018 = bitcast half %.2.1000017 to i16
  %.2.1000019 = lshr i32 %.2.1000014, 16
  %.2.1000020 = trunc i32 %.2.1000019 to i16
  %.2.1000021 = bitcast i16 %.2.1000020 to half
  %.2.1000022 = fadd half %.2.1000021, %g1
  %.2.1000023 = bitcast half %.2.1000022 to i16
  %.2.1000024 = zext i16 %.2.1000018 to i32
  %.2.1000025 = zext i16 %.2.1000023 to i32
  %.2.1000026 = shl i32 %.2.1000025, 16
  %.2.1000027 = or i32 %.2.1000024, %.2.1000026
  %.2.1000028 = icmp eq i32 %.2.1000027, %.2.1000014
  br i1 %.2.1000028, label %.2.b3, label %.2.b2
.2.b2:
  %.2.1 = cmpxchg ptr addrspace(1) %grad, i32 %.2.1000014, i32 %.2.1000027 syncscope("agent") monotonic monotonic, align 4
  %.2.1000029 = extractvalue { i32, i1 } %.2.1, 0
  %.2.1000030 = icmp eq i32 %.2.1000029, %.2.1000014
  br i1 %.2.1000030, label %.2.b3, label %.2.b1
.2.b3:
  %.2.1000031 = load atomic i32, ptr addrspace(1) %.2.1000009 syncscope("agent") monotonic, align 4
  br label %.2.b4
.2.b4:
  %.2.1000032 = phi i32 [ %.2.1000031, %.2.b3 ], [ %.2.1000047, %.2.b5 ]
  %.2.1000033 = trunc i32 %.2.1000032 to i16
  %.2.1000034 = bitcast i16 %.2.1000033 to half
  %.2.1000035 = fadd half %.2.1000034, %g2a
  %.2.1000036 = bitcast half %.2.1000035 to i16
  %.2.1000037 = lshr i32 %.2.1000032, 16
  %.2.1000038 = trunc i32 %.2.1000037 to i16
  %.2.1000039 = bitcast i16 %.2.1000038 to half
  %.2.1000040 = fadd half %.2.1000039, %g3
  %.2.1000041 = bitcast half %.2.1000040 to i16
  %.2.1000042 = zext i16 %.2.1000036 to i32
  %.2.1000043 = zext i16 %.2.1000041 to i32
  %.2.1000044 = shl i32 %.2.1000043, 16
  %.2.1000045 = or i32 %.2.1000042, %.2.1000044
  %.2.1000046 = icmp eq i32 %.2.1000045, %.2.1000032
  br i1 %.2.1000046, label %.2.b6, label %.2.b5
.2.b5:
  %.2.2 = cmpxchg ptr addrspace(1) %.2.1000009, i32 %.2.1000032, i32 %.2.1000045 syncscope("agent") monotonic monotonic, align 4
  %.2.1000047 = extractvalue { i32, i1 } %.2.2, 0
  %.2.1000048 = icmp eq i32 %.2.1000047, %.2.1000032
  br i1 %.2.1000048, label %.2.b6, label %.2.b4
.2.b6:
  %.2.1000049 = load atomic i32, ptr addrspace(1) %.2.1000010 syncscope("agent") monotonic, align 4
  br label %.2.b7
.2.b7:
  %.2.1000050 = phi i32 [ %.2.1000049, %.2.b6 ], [ %.2.1000065, %.2.b8 ]
  %.2.1000051 = trunc i32 %.2.1000050 to i16
  %.2.1000052 = bitcast i16 %.2.1000051 to half
  %.2.1000053 = fadd half %.2.1000052, %g4
  %.2.1000054 = bitcast half %.2.1000053 to i16
  %.2.1000055 = lshr i32 %.2.1000050, 16
  %.2.1000056 = trunc i32 %.2.1000055 to i16
  %.2.1000057 = bitcast i16 %.2.1000056 to half
  %.2.1000058 = fadd half %.2.1000057, %g5
  %.2.1000059 = bitcast half %.2.1000058 to i16
  %.2.1000060 = zext i16 %.2.1000054 to i32
  %.2.1000061 = zext i16 %.2.1000059 to i32
  %.2.1000062 = shl i32 %.2.1000061, 16
  %.2.1000063 = or i32 %.2.1000060, %.2.1000062
  %.2.1000064 = icmp eq i32 %.2.1000063, %.2.1000050
  br i1 %.2.1000064, label %.2.b9, label %.2.b8
.2.b8:
  %.2.3 = cmpxchg ptr addrspace(1) %.2.1000010, i32 %.2.1000050, i32 %.2.1000063 syncscope("agent") monotonic monotonic, align 4
  %.2.1000065 = extractvalue { i32, i1 } %.2.3, 0
  %.2.1000066 = icmp eq i32 %.2.1000065, %.2.1000050
  br i1 %.2.1000066, label %.2.b9, label %.2.b7
.2.b9:
  %.2.1000067 = load atomic i32, ptr addrspace(1) %.2.1000011 syncscope("agent") monotonic, align 4
  br label %.2.b10
.2.b10:
  %.2.1000068 = phi i32 [ %.2.1000067, %.2.b9 ], [ %.2.1000083, %.2.b11 ]
  %.2.1000069 = trunc i32 %.2.1000068 to i16
  %.2.1000070 = bitcast i16 %.2.1000069 to half
  %.2.1000071 = fadd half %.2.1000070, %g6
  %.2.1000072 = bitcast half %.2.1000071 to i16
  %.2.1000073 = lshr i32 %.2.1000068, 16
  %.2.1000074 = trunc i32 %.2.1000073 to i16
  %.2.1000075 = bitcast i16 %.2.1000074 to half
  %.2.1000076 = fadd half %.2.1000075, %g7
  %.2.1000077 = bitcast half %.2.1000076 to i16
  %.2.1000078 = zext i16 %.2.1000072 to i32
  %.2.1000079 = zext i16 %.2.1000077 to i32
  %.2.1000080 = shl i32 %.2.1000079, 16
  %.2.1000081 = or i32 %.2.1000078, %.2.1000080
  %.2.1000082 = icmp eq i32 %.2.1000081, %.2.1000068
  br i1 %.2.1000082, label %.2.b12, label %.2.b11
.2.b11:
  %.2.4 = cmpxchg ptr addrspace(1) %.2.1000011, i32 %.2.1000068, i32 %.2.1000081 syncscope("agent") monotonic monotonic, align 4
  %.2.1000083 = extractvalue { i32, i1 } %.2.4, 0
  %.2.1000084 = icmp eq i32 %.2.1000083, %.2.1000068
  br i1 %.2.1000084, label %.2.b12, label %.2.b10
.2.b12:
  br label %.2.end
.2.end:
  br label %.3.b0
.3.b0:
  %.3.1000005 = atomicrmw fadd ptr addrspace(1) %master, float %w0 syncscope("agent") monotonic, align 4
  %.3.1000006 = getelementptr i8, ptr addrspace(1) %master, i64 4
  %.3.1000007 = atomicrmw fadd ptr addrspace(1) %.3.1000006, float %w1 syncscope("agent") monotonic, align 4
  %.3.1000008 = getelementptr i8, ptr addrspace(1) %master, i64 8
  %.3.1000009 = atomicrmw fadd ptr addrspace(1) %.3.1000008, float %w2 syncscope("agent") monotonic, align 4
  %.3.1000010 = getelementptr i8, ptr addrspace(1) %master, i64 12
  %.3.1000011 = atomicrmw fadd ptr addrspace(1) %.3.1000010, float %w3 syncscope("agent") monotonic, align 4
  br label %.3.end
.3.end:
  ret void
}

