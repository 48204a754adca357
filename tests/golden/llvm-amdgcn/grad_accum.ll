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
  %.2.1000014 = phi i32 [ %.2.1000013, %.2.b0 ], [ %.2.1000030, %.2.b2 ]
  %.2.1000016 = trunc i32 %.2.1000014 to i16
  %.2.1000017 = bitcast i16 %.2.1000016 to half
  %.2.1000018 = fadd half %.2.1000017, %g0
  %.2.1000019 = bitcast half %.2.1000018 to i16
  %.2.1000020 = lshr i32 %.2.1000014, 16
  %.2.1000021 = trunc i32 %.2.1000020 to i16
  %.2.1000022 = bitcast i16 %.2.1000021 to half
  %.2.1000023 = fadd half %.2.1000022, %g1
  %.2.1000024 = bitcast half %.2.1000023 to i16
  %.2.1000025 = zext i16 %.2.1000019 to i32
  %.2.1000026 = zext i16 %.2.1000024 to i32
  %.2.1000027 = shl i32 %.2.1000026, 16
  %.2.1000028 = or i32 %.2.1000025, %.2.1000027
  %.2.1000029 = icmp eq i32 %.2.1000028, %.2.1000014
  br i1 %.2.1000029, label %.2.b3, label %.2.b2
.2.b2:
  %.2.1 = cmpxchg ptr addrspace(1) %grad, i32 %.2.1000014, i32 %.2.1000028 syncscope("agent") monotonic monotonic, align 4
  %.2.1000030 = extractvalue { i32, i1 } %.2.1, 0
  %.2.1000031 = icmp eq i32 %.2.1000030, %.2.1000014
  br i1 %.2.1000031, label %.2.b3, label %.2.b1
.2.b3:
  %.2.1000015 = phi i32 [ %.2.1000014, %.2.b1 ], [ %.2.1000030, %.2.b2 ]
  %.2.1000032 = load atomic i32, ptr addrspace(1) %.2.1000009 syncscope("agent") monotonic, align 4
  br label %.2.b4
.2.b4:
  %.2.1000033 = phi i32 [ %.2.1000032, %.2.b3 ], [ %.2.1000049, %.2.b5 ]
  %.2.1000035 = trunc i32 %.2.1000033 to i16
  %.2.1000036 = bitcast i16 %.2.1000035 to half
  %.2.1000037 = fadd half %.2.1000036, %g2a
  %.2.1000038 = bitcast half %.2.1000037 to i16
  %.2.1000039 = lshr i32 %.2.1000033, 16
  %.2.1000040 = trunc i32 %.2.1000039 to i16
  %.2.1000041 = bitcast i16 %.2.1000040 to half
  %.2.1000042 = fadd half %.2.1000041, %g3
  %.2.1000043 = bitcast half %.2.1000042 to i16
  %.2.1000044 = zext i16 %.2.1000038 to i32
  %.2.1000045 = zext i16 %.2.1000043 to i32
  %.2.1000046 = shl i32 %.2.1000045, 16
  %.2.1000047 = or i32 %.2.1000044, %.2.1000046
  %.2.1000048 = icmp eq i32 %.2.1000047, %.2.1000033
  br i1 %.2.1000048, label %.2.b6, label %.2.b5
.2.b5:
  %.2.2 = cmpxchg ptr addrspace(1) %.2.1000009, i32 %.2.1000033, i32 %.2.1000047 syncscope("agent") monotonic monotonic, align 4
  %.2.1000049 = extractvalue { i32, i1 } %.2.2, 0
  %.2.1000050 = icmp eq i32 %.2.1000049, %.2.1000033
  br i1 %.2.1000050, label %.2.b6, label %.2.b4
.2.b6:
  %.2.1000034 = phi i32 [ %.2.1000033, %.2.b4 ], [ %.2.1000049, %.2.b5 ]
  %.2.1000051 = load atomic i32, ptr addrspace(1) %.2.1000010 syncscope("agent") monotonic, align 4
  br label %.2.b7
.2.b7:
  %.2.1000052 = phi i32 [ %.2.1000051, %.2.b6 ], [ %.2.1000068, %.2.b8 ]
  %.2.1000054 = trunc i32 %.2.1000052 to i16
  %.2.1000055 = bitcast i16 %.2.1000054 to half
  %.2.1000056 = fadd half %.2.1000055, %g4
  %.2.1000057 = bitcast half %.2.1000056 to i16
  %.2.1000058 = lshr i32 %.2.1000052, 16
  %.2.1000059 = trunc i32 %.2.1000058 to i16
  %.2.1000060 = bitcast i16 %.2.1000059 to half
  %.2.1000061 = fadd half %.2.1000060, %g5
  %.2.1000062 = bitcast half %.2.1000061 to i16
  %.2.1000063 = zext i16 %.2.1000057 to i32
  %.2.1000064 = zext i16 %.2.1000062 to i32
  %.2.1000065 = shl i32 %.2.1000064, 16
  %.2.1000066 = or i32 %.2.1000063, %.2.1000065
  %.2.1000067 = icmp eq i32 %.2.1000066, %.2.1000052
  br i1 %.2.1000067, label %.2.b9, label %.2.b8
.2.b8:
  %.2.3 = cmpxchg ptr addrspace(1) %.2.1000010, i32 %.2.1000052, i32 %.2.1000066 syncscope("agent") monotonic monotonic, align 4
  %.2.1000068 = extractvalue { i32, i1 } %.2.3, 0
  %.2.1000069 = icmp eq i32 %.2.1000068, %.2.1000052
  br i1 %.2.1000069, label %.2.b9, label %.2.b7
.2.b9:
  %.2.1000053 = phi i32 [ %.2.1000052, %.2.b7 ], [ %.2.1000068, %.2.b8 ]
  %.2.1000070 = load atomic i32, ptr addrspace(1) %.2.1000011 syncscope("agent") monotonic, align 4
  br label %.2.b10
.2.b10:
  %.2.1000071 = phi i32 [ %.2.1000070, %.2.b9 ], [ %.2.1000087, %.2.b11 ]
  %.2.1000073 = trunc i32 %.2.1000071 to i16
  %.2.1000074 = bitcast i16 %.2.1000073 to half
  %.2.1000075 = fadd half %.2.1000074, %g6
  %.2.1000076 = bitcast half %.2.1000075 to i16
  %.2.1000077 = lshr i32 %.2.1000071, 16
  %.2.1000078 = trunc i32 %.2.1000077 to i16
  %.2.1000079 = bitcast i16 %.2.1000078 to half
  %.2.1000080 = fadd half %.2.1000079, %g7
  %.2.1000081 = bitcast half %.2.1000080 to i16
  %.2.1000082 = zext i16 %.2.1000076 to i32
  %.2.1000083 = zext i16 %.2.1000081 to i32
  %.2.1000084 = shl i32 %.2.1000083, 16
  %.2.1000085 = or i32 %.2.1000082, %.2.1000084
  %.2.1000086 = icmp eq i32 %.2.1000085, %.2.1000071
  br i1 %.2.1000086, label %.2.b12, label %.2.b11
.2.b11:
  %.2.4 = cmpxchg ptr addrspace(1) %.2.1000011, i32 %.2.1000071, i32 %.2.1000085 syncscope("agent") monotonic monotonic, align 4
  %.2.1000087 = extractvalue { i32, i1 } %.2.4, 0
  %.2.1000088 = icmp eq i32 %.2.1000087, %.2.1000071
  br i1 %.2.1000088, label %.2.b12, label %.2.b10
.2.b12:
  %.2.1000072 = phi i32 [ %.2.1000071, %.2.b10 ], [ %.2.1000087, %.2.b11 ]
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

