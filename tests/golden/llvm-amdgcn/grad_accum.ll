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
  %.2.1000032 = trunc i32 %.2.1000015 to i16
  %.2.1000033 = bitcast i16 %.2.1000032 to half
  %.2.1000034 = lshr i32 %.2.1000015, 16
  %.2.1000035 = trunc i32 %.2.1000034 to i16
  %.2.1000036 = bitcast i16 %.2.1000035 to half
  %.2.1000037 = load atomic i32, ptr addrspace(1) %.2.1000009 syncscope("agent") monotonic, align 4
  br label %.2.b4
.2.b4:
  %.2.1000038 = phi i32 [ %.2.1000037, %.2.b3 ], [ %.2.1000054, %.2.b5 ]
  %.2.1000040 = trunc i32 %.2.1000038 to i16
  %.2.1000041 = bitcast i16 %.2.1000040 to half
  %.2.1000042 = fadd half %.2.1000041, %g2a
  %.2.1000043 = bitcast half %.2.1000042 to i16
  %.2.1000044 = lshr i32 %.2.1000038, 16
  %.2.1000045 = trunc i32 %.2.1000044 to i16
  %.2.1000046 = bitcast i16 %.2.1000045 to half
  %.2.1000047 = fadd half %.2.1000046, %g3
  %.2.1000048 = bitcast half %.2.1000047 to i16
  %.2.1000049 = zext i16 %.2.1000043 to i32
  %.2.1000050 = zext i16 %.2.1000048 to i32
  %.2.1000051 = shl i32 %.2.1000050, 16
  %.2.1000052 = or i32 %.2.1000049, %.2.1000051
  %.2.1000053 = icmp eq i32 %.2.1000052, %.2.1000038
  br i1 %.2.1000053, label %.2.b6, label %.2.b5
.2.b5:
  %.2.2 = cmpxchg ptr addrspace(1) %.2.1000009, i32 %.2.1000038, i32 %.2.1000052 syncscope("agent") monotonic monotonic, align 4
  %.2.1000054 = extractvalue { i32, i1 } %.2.2, 0
  %.2.1000055 = icmp eq i32 %.2.1000054, %.2.1000038
  br i1 %.2.1000055, label %.2.b6, label %.2.b4
.2.b6:
  %.2.1000039 = phi i32 [ %.2.1000038, %.2.b4 ], [ %.2.1000054, %.2.b5 ]
  %.2.1000056 = trunc i32 %.2.1000039 to i16
  %.2.1000057 = bitcast i16 %.2.1000056 to half
  %.2.1000058 = lshr i32 %.2.1000039, 16
  %.2.1000059 = trunc i32 %.2.1000058 to i16
  %.2.1000060 = bitcast i16 %.2.1000059 to half
  %.2.1000061 = load atomic i32, ptr addrspace(1) %.2.1000010 syncscope("agent") monotonic, align 4
  br label %.2.b7
.2.b7:
  %.2.1000062 = phi i32 [ %.2.1000061, %.2.b6 ], [ %.2.1000078, %.2.b8 ]
  %.2.1000064 = trunc i32 %.2.1000062 to i16
  %.2.1000065 = bitcast i16 %.2.1000064 to half
  %.2.1000066 = fadd half %.2.1000065, %g4
  %.2.1000067 = bitcast half %.2.1000066 to i16
  %.2.1000068 = lshr i32 %.2.1000062, 16
  %.2.1000069 = trunc i32 %.2.1000068 to i16
  %.2.1000070 = bitcast i16 %.2.1000069 to half
  %.2.1000071 = fadd half %.2.1000070, %g5
  %.2.1000072 = bitcast half %.2.1000071 to i16
  %.2.1000073 = zext i16 %.2.1000067 to i32
  %.2.1000074 = zext i16 %.2.1000072 to i32
  %.2.1000075 = shl i32 %.2.1000074, 16
  %.2.1000076 = or i32 %.2.1000073, %.2.1000075
  %.2.1000077 = icmp eq i32 %.2.1000076, %.2.1000062
  br i1 %.2.1000077, label %.2.b9, label %.2.b8
.2.b8:
  %.2.3 = cmpxchg ptr addrspace(1) %.2.1000010, i32 %.2.1000062, i32 %.2.1000076 syncscope("agent") monotonic monotonic, align 4
  %.2.1000078 = extractvalue { i32, i1 } %.2.3, 0
  %.2.1000079 = icmp eq i32 %.2.1000078, %.2.1000062
  br i1 %.2.1000079, label %.2.b9, label %.2.b7
.2.b9:
  %.2.1000063 = phi i32 [ %.2.1000062, %.2.b7 ], [ %.2.1000078, %.2.b8 ]
  %.2.1000080 = trunc i32 %.2.1000063 to i16
  %.2.1000081 = bitcast i16 %.2.1000080 to half
  %.2.1000082 = lshr i32 %.2.1000063, 16
  %.2.1000083 = trunc i32 %.2.1000082 to i16
  %.2.1000084 = bitcast i16 %.2.1000083 to half
  %.2.1000085 = load atomic i32, ptr addrspace(1) %.2.1000011 syncscope("agent") monotonic, align 4
  br label %.2.b10
.2.b10:
  %.2.1000086 = phi i32 [ %.2.1000085, %.2.b9 ], [ %.2.1000102, %.2.b11 ]
  %.2.1000088 = trunc i32 %.2.1000086 to i16
  %.2.1000089 = bitcast i16 %.2.1000088 to half
  %.2.1000090 = fadd half %.2.1000089, %g6
  %.2.1000091 = bitcast half %.2.1000090 to i16
  %.2.1000092 = lshr i32 %.2.1000086, 16
  %.2.1000093 = trunc i32 %.2.1000092 to i16
  %.2.1000094 = bitcast i16 %.2.1000093 to half
  %.2.1000095 = fadd half %.2.1000094, %g7
  %.2.1000096 = bitcast half %.2.1000095 to i16
  %.2.1000097 = zext i16 %.2.1000091 to i32
  %.2.1000098 = zext i16 %.2.1000096 to i32
  %.2.1000099 = shl i32 %.2.1000098, 16
  %.2.1000100 = or i32 %.2.1000097, %.2.1000099
  %.2.1000101 = icmp eq i32 %.2.1000100, %.2.1000086
  br i1 %.2.1000101, label %.2.b12, label %.2.b11
.2.b11:
  %.2.4 = cmpxchg ptr addrspace(1) %.2.1000011, i32 %.2.1000086, i32 %.2.1000100 syncscope("agent") monotonic monotonic, align 4
  %.2.1000102 = extractvalue { i32, i1 } %.2.4, 0
  %.2.1000103 = icmp eq i32 %.2.1000102, %.2.1000086
  br i1 %.2.1000103, label %.2.b12, label %.2.b10
.2.b12:
  %.2.1000087 = phi i32 [ %.2.1000086, %.2.b10 ], [ %.2.1000102, %.2.b11 ]
  %.2.1000104 = trunc i32 %.2.1000087 to i16
  %.2.1000105 = bitcast i16 %.2.1000104 to half
  %.2.1000106 = lshr i32 %.2.1000087, 16
  %.2.1000107 = trunc i32 %.2.1000106 to i16
  %.2.1000108 = bitcast i16 %.2.1000107 to half
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

