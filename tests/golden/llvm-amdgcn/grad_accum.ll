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
  %.2.1 = ptrtoint ptr addrspace(1) %grad to i64
  %.2.2 = and i64 %.2.1, 3
  %.2.3 = sub i64 0, %.2.2
  %.2.1000009 = getelementptr i8, ptr addrspace(1) %grad, i64 %.2.3
  %.2.4 = ptrtoint ptr addrspace(1) %grad to i64
  %.2.5 = and i64 %.2.4, 3
  %.2.1000010 = trunc i64 %.2.5 to i32
  %.2.1000012 = shl i32 %.2.1000010, 3
  %.2.1000014 = shl i32 65535, %.2.1000012
  %.2.1000015 = xor i32 %.2.1000014, -1
  %.2.1000016 = load atomic i32, ptr addrspace(1) %.2.1000009 syncscope("agent") monotonic, align 4
  br label %.2.b1
.2.b1:
  %.2.1000017 = phi i32 [ %.2.1000016, %.2.b0 ], [ %.2.1000029, %.2.b2 ]
  %.2.1000019 = lshr i32 %.2.1000017, %.2.1000012
  %.2.1000020 = trunc i32 %.2.1000019 to i16
  %.2.1000021 = bitcast i16 %.2.1000020 to half
  %.2.1000022 = fadd half %.2.1000021, %g0
  %.2.1000023 = bitcast half %.2.1000022 to i16
  %.2.1000024 = zext i16 %.2.1000023 to i32
  %.2.1000025 = shl i32 %.2.1000024, %.2.1000012
  %.2.1000026 = and i32 %.2.1000017, %.2.1000015
  %.2.1000027 = or i32 %.2.1000026, %.2.1000025
  %.2.1000028 = icmp eq i32 %.2.1000027, %.2.1000017
  br i1 %.2.1000028, label %.2.b3, label %.2.b2
.2.b2:
  %.2.6 = cmpxchg ptr addrspace(1) %.2.1000009, i32 %.2.1000017, i32 %.2.1000027 syncscope("agent") monotonic monotonic, align 4
  %.2.1000029 = extractvalue { i32, i1 } %.2.6, 0
  %.2.1000030 = icmp eq i32 %.2.1000029, %.2.1000017
  br i1 %.2.1000030, label %.2.b3, label %.2.b1
.2.b3:
  %.2.1000018 = phi i32 [ %.2.1000017, %.2.b1 ], [ %.2.1000029, %.2.b2 ]
  %.2.1000031 = lshr i32 %.2.1000018, %.2.1000012
  %.2.1000032 = trunc i32 %.2.1000031 to i16
  %.2.1000033 = bitcast i16 %.2.1000032 to half
  %.2.1000034 = getelementptr i8, ptr addrspace(1) %grad, i64 2
  %.2.7 = ptrtoint ptr addrspace(1) %.2.1000034 to i64
  %.2.8 = and i64 %.2.7, 3
  %.2.9 = sub i64 0, %.2.8
  %.2.1000035 = getelementptr i8, ptr addrspace(1) %.2.1000034, i64 %.2.9
  %.2.10 = ptrtoint ptr addrspace(1) %.2.1000034 to i64
  %.2.11 = and i64 %.2.10, 3
  %.2.1000036 = trunc i64 %.2.11 to i32
  %.2.1000038 = shl i32 %.2.1000036, 3
  %.2.1000040 = shl i32 65535, %.2.1000038
  %.2.1000041 = xor i32 %.2.1000040, -1
  %.2.1000042 = load atomic i32, ptr addrspace(1) %.2.1000035 syncscope("agent") monotonic, align 4
  br label %.2.b4
.2.b4:
  %.2.1000043 = phi i32 [ %.2.1000042, %.2.b3 ], [ %.2.1000055, %.2.b5 ]
  %.2.1000045 = lshr i32 %.2.1000043, %.2.1000038
  %.2.1000046 = trunc i32 %.2.1000045 to i16
  %.2.1000047 = bitcast i16 %.2.1000046 to half
  %.2.1000048 = fadd half %.2.1000047, %g1
  %.2.1000049 = bitcast half %.2.1000048 to i16
  %.2.1000050 = zext i16 %.2.1000049 to i32
  %.2.1000051 = shl i32 %.2.1000050, %.2.1000038
  %.2.1000052 = and i32 %.2.1000043, %.2.1000041
  %.2.1000053 = or i32 %.2.1000052, %.2.1000051
  %.2.1000054 = icmp eq i32 %.2.1000053, %.2.1000043
  br i1 %.2.1000054, label %.2.b6, label %.2.b5
.2.b5:
  %.2.12 = cmpxchg ptr addrspace(1) %.2.1000035, i32 %.2.1000043, i32 %.2.1000053 syncscope("agent") monotonic monotonic, align 4
  %.2.1000055 = extractvalue { i32, i1 } %.2.12, 0
  %.2.1000056 = icmp eq i32 %.2.1000055, %.2.1000043
  br i1 %.2.1000056, label %.2.b6, label %.2.b4
.2.b6:
  %.2.1000044 = phi i32 [ %.2.1000043, %.2.b4 ], [ %.2.1000055, %.2.b5 ]
  %.2.1000057 = lshr i32 %.2.1000044, %.2.1000038
  %.2.1000058 = trunc i32 %.2.1000057 to i16
  %.2.1000059 = bitcast i16 %.2.1000058 to half
  %.2.1000060 = getelementptr i8, ptr addrspace(1) %grad, i64 4
  %.2.13 = ptrtoint ptr addrspace(1) %.2.1000060 to i64
  %.2.14 = and i64 %.2.13, 3
  %.2.15 = sub i64 0, %.2.14
  %.2.1000061 = getelementptr i8, ptr addrspace(1) %.2.1000060, i64 %.2.15
  %.2.16 = ptrtoint ptr addrspace(1) %.2.1000060 to i64
  %.2.17 = and i64 %.2.16, 3
  %.2.1000062 = trunc i64 %.2.17 to i32
  %.2.1000064 = shl i32 %.2.1000062, 3
  %.2.1000066 = shl i32 65535, %.2.1000064
  %.2.1000067 = xor i32 %.2.1000066, -1
  %.2.1000068 = load atomic i32, ptr addrspace(1) %.2.1000061 syncscope("agent") monotonic, align 4
  br label %.2.b7
.2.b7:
  %.2.1000069 = phi i32 [ %.2.1000068, %.2.b6 ], [ %.2.1000081, %.2.b8 ]
  %.2.1000071 = lshr i32 %.2.1000069, %.2.1000064
  %.2.1000072 = trunc i32 %.2.1000071 to i16
  %.2.1000073 = bitcast i16 %.2.1000072 to half
  %.2.1000074 = fadd half %.2.1000073, %g2a
  %.2.1000075 = bitcast half %.2.1000074 to i16
  %.2.1000076 = zext i16 %.2.1000075 to i32
  %.2.1000077 = shl i32 %.2.1000076, %.2.1000064
  %.2.1000078 = and i32 %.2.1000069, %.2.1000067
  %.2.1000079 = or i32 %.2.1000078, %.2.1000077
  %.2.1000080 = icmp eq i32 %.2.1000079, %.2.1000069
  br i1 %.2.1000080, label %.2.b9, label %.2.b8
.2.b8:
  %.2.18 = cmpxchg ptr addrspace(1) %.2.1000061, i32 %.2.1000069, i32 %.2.1000079 syncscope("agent") monotonic monotonic, align 4
  %.2.1000081 = extractvalue { i32, i1 } %.2.18, 0
  %.2.1000082 = icmp eq i32 %.2.1000081, %.2.1000069
  br i1 %.2.1000082, label %.2.b9, label %.2.b7
.2.b9:
  %.2.1000070 = phi i32 [ %.2.1000069, %.2.b7 ], [ %.2.1000081, %.2.b8 ]
  %.2.1000083 = lshr i32 %.2.1000070, %.2.1000064
  %.2.1000084 = trunc i32 %.2.1000083 to i16
  %.2.1000085 = bitcast i16 %.2.1000084 to half
  %.2.1000086 = getelementptr i8, ptr addrspace(1) %grad, i64 6
  %.2.19 = ptrtoint ptr addrspace(1) %.2.1000086 to i64
  %.2.20 = and i64 %.2.19, 3
  %.2.21 = sub i64 0, %.2.20
  %.2.1000087 = getelementptr i8, ptr addrspace(1) %.2.1000086, i64 %.2.21
  %.2.22 = ptrtoint ptr addrspace(1) %.2.1000086 to i64
  %.2.23 = and i64 %.2.22, 3
  %.2.1000088 = trunc i64 %.2.23 to i32
  %.2.1000090 = shl i32 %.2.1000088, 3
  %.2.1000092 = shl i32 65535, %.2.1000090
  %.2.1000093 = xor i32 %.2.1000092, -1
  %.2.1000094 = load atomic i32, ptr addrspace(1) %.2.1000087 syncscope("agent") monotonic, align 4
  br label %.2.b10
.2.b10:
  %.2.1000095 = phi i32 [ %.2.1000094, %.2.b9 ], [ %.2.1000107, %.2.b11 ]
  %.2.1000097 = lshr i32 %.2.1000095, %.2.1000090
  %.2.1000098 = trunc i32 %.2.1000097 to i16
  %.2.1000099 = bitcast i16 %.2.1000098 to half
  %.2.1000100 = fadd half %.2.1000099, %g3
  %.2.1000101 = bitcast half %.2.1000100 to i16
  %.2.1000102 = zext i16 %.2.1000101 to i32
  %.2.1000103 = shl i32 %.2.1000102, %.2.1000090
  %.2.1000104 = and i32 %.2.1000095, %.2.1000093
  %.2.1000105 = or i32 %.2.1000104, %.2.1000103
  %.2.1000106 = icmp eq i32 %.2.1000105, %.2.1000095
  br i1 %.2.1000106, label %.2.b12, label %.2.b11
.2.b11:
  %.2.24 = cmpxchg ptr addrspace(1) %.2.1000087, i32 %.2.1000095, i32 %.2.1000105 syncscope("agent") monotonic monotonic, align 4
  %.2.1000107 = extractvalue { i32, i1 } %.2.24, 0
  %.2.1000108 = icmp eq i32 %.2.1000107, %.2.1000095
  br i1 %.2.1000108, label %.2.b12, label %.2.b10
.2.b12:
  %.2.1000096 = phi i32 [ %.2.1000095, %.2.b10 ], [ %.2.1000107, %.2.b11 ]
  %.2.1000109 = lshr i32 %.2.1000096, %.2.1000090
  %.2.1000110 = trunc i32 %.2.1000109 to i16
  %.2.1000111 = bitcast i16 %.2.1000110 to half
  %.2.1000112 = getelementptr i8, ptr addrspace(1) %grad, i64 8
  %.2.25 = ptrtoint ptr addrspace(1) %.2.1000112 to i64
  %.2.26 = and i64 %.2.25, 3
  %.2.27 = sub i64 0, %.2.26
  %.2.1000113 = getelementptr i8, ptr addrspace(1) %.2.1000112, i64 %.2.27
  %.2.28 = ptrtoint ptr addrspace(1) %.2.1000112 to i64
  %.2.29 = and i64 %.2.28, 3
  %.2.1000114 = trunc i64 %.2.29 to i32
  %.2.1000116 = shl i32 %.2.1000114, 3
  %.2.1000118 = shl i32 65535, %.2.1000116
  %.2.1000119 = xor i32 %.2.1000118, -1
  %.2.1000120 = load atomic i32, ptr addrspace(1) %.2.1000113 syncscope("agent") monotonic, align 4
  br label %.2.b13
.2.b13:
  %.2.1000121 = phi i32 [ %.2.1000120, %.2.b12 ], [ %.2.1000133, %.2.b14 ]
  %.2.1000123 = lshr i32 %.2.1000121, %.2.1000116
  %.2.1000124 = trunc i32 %.2.1000123 to i16
  %.2.1000125 = bitcast i16 %.2.1000124 to half
  %.2.1000126 = fadd half %.2.1000125, %g4
  %.2.1000127 = bitcast half %.2.1000126 to i16
  %.2.1000128 = zext i16 %.2.1000127 to i32
  %.2.1000129 = shl i32 %.2.1000128, %.2.1000116
  %.2.1000130 = and i32 %.2.1000121, %.2.1000119
  %.2.1000131 = or i32 %.2.1000130, %.2.1000129
  %.2.1000132 = icmp eq i32 %.2.1000131, %.2.1000121
  br i1 %.2.1000132, label %.2.b15, label %.2.b14
.2.b14:
  %.2.30 = cmpxchg ptr addrspace(1) %.2.1000113, i32 %.2.1000121, i32 %.2.1000131 syncscope("agent") monotonic monotonic, align 4
  %.2.1000133 = extractvalue { i32, i1 } %.2.30, 0
  %.2.1000134 = icmp eq i32 %.2.1000133, %.2.1000121
  br i1 %.2.1000134, label %.2.b15, label %.2.b13
.2.b15:
  %.2.1000122 = phi i32 [ %.2.1000121, %.2.b13 ], [ %.2.1000133, %.2.b14 ]
  %.2.1000135 = lshr i32 %.2.1000122, %.2.1000116
  %.2.1000136 = trunc i32 %.2.1000135 to i16
  %.2.1000137 = bitcast i16 %.2.1000136 to half
  %.2.1000138 = getelementptr i8, ptr addrspace(1) %grad, i64 10
  %.2.31 = ptrtoint ptr addrspace(1) %.2.1000138 to i64
  %.2.32 = and i64 %.2.31, 3
  %.2.33 = sub i64 0, %.2.32
  %.2.1000139 = getelementptr i8, ptr addrspace(1) %.2.1000138, i64 %.2.33
  %.2.34 = ptrtoint ptr addrspace(1) %.2.1000138 to i64
  %.2.35 = and i64 %.2.34, 3
  %.2.1000140 = trunc i64 %.2.35 to i32
  %.2.1000142 = shl i32 %.2.1000140, 3
  %.2.1000144 = shl i32 65535, %.2.1000142
  %.2.1000145 = xor i32 %.2.1000144, -1
  %.2.1000146 = load atomic i32, ptr addrspace(1) %.2.1000139 syncscope("agent") monotonic, align 4
  br label %.2.b16
.2.b16:
  %.2.1000147 = phi i32 [ %.2.1000146, %.2.b15 ], [ %.2.1000159, %.2.b17 ]
  %.2.1000149 = lshr i32 %.2.1000147, %.2.1000142
  %.2.1000150 = trunc i32 %.2.1000149 to i16
  %.2.1000151 = bitcast i16 %.2.1000150 to half
  %.2.1000152 = fadd half %.2.1000151, %g5
  %.2.1000153 = bitcast half %.2.1000152 to i16
  %.2.1000154 = zext i16 %.2.1000153 to i32
  %.2.1000155 = shl i32 %.2.1000154, %.2.1000142
  %.2.1000156 = and i32 %.2.1000147, %.2.1000145
  %.2.1000157 = or i32 %.2.1000156, %.2.1000155
  %.2.1000158 = icmp eq i32 %.2.1000157, %.2.1000147
  br i1 %.2.1000158, label %.2.b18, label %.2.b17
.2.b17:
  %.2.36 = cmpxchg ptr addrspace(1) %.2.1000139, i32 %.2.1000147, i32 %.2.1000157 syncscope("agent") monotonic monotonic, align 4
  %.2.1000159 = extractvalue { i32, i1 } %.2.36, 0
  %.2.1000160 = icmp eq i32 %.2.1000159, %.2.1000147
  br i1 %.2.1000160, label %.2.b18, label %.2.b16
.2.b18:
  %.2.1000148 = phi i32 [ %.2.1000147, %.2.b16 ], [ %.2.1000159, %.2.b17 ]
  %.2.1000161 = lshr i32 %.2.1000148, %.2.1000142
  %.2.1000162 = trunc i32 %.2.1000161 to i16
  %.2.1000163 = bitcast i16 %.2.1000162 to half
  %.2.1000164 = getelementptr i8, ptr addrspace(1) %grad, i64 12
  %.2.37 = ptrtoint ptr addrspace(1) %.2.1000164 to i64
  %.2.38 = and i64 %.2.37, 3
  %.2.39 = sub i64 0, %.2.38
  %.2.1000165 = getelementptr i8, ptr addrspace(1) %.2.1000164, i64 %.2.39
  %.2.40 = ptrtoint ptr addrspace(1) %.2.1000164 to i64
  %.2.41 = and i64 %.2.40, 3
  %.2.1000166 = trunc i64 %.2.41 to i32
  %.2.1000168 = shl i32 %.2.1000166, 3
  %.2.1000170 = shl i32 65535, %.2.1000168
  %.2.1000171 = xor i32 %.2.1000170, -1
  %.2.1000172 = load atomic i32, ptr addrspace(1) %.2.1000165 syncscope("agent") monotonic, align 4
  br label %.2.b19
.2.b19:
  %.2.1000173 = phi i32 [ %.2.1000172, %.2.b18 ], [ %.2.1000185, %.2.b20 ]
  %.2.1000175 = lshr i32 %.2.1000173, %.2.1000168
  %.2.1000176 = trunc i32 %.2.1000175 to i16
  %.2.1000177 = bitcast i16 %.2.1000176 to half
  %.2.1000178 = fadd half %.2.1000177, %g6
  %.2.1000179 = bitcast half %.2.1000178 to i16
  %.2.1000180 = zext i16 %.2.1000179 to i32
  %.2.1000181 = shl i32 %.2.1000180, %.2.1000168
  %.2.1000182 = and i32 %.2.1000173, %.2.1000171
  %.2.1000183 = or i32 %.2.1000182, %.2.1000181
  %.2.1000184 = icmp eq i32 %.2.1000183, %.2.1000173
  br i1 %.2.1000184, label %.2.b21, label %.2.b20
.2.b20:
  %.2.42 = cmpxchg ptr addrspace(1) %.2.1000165, i32 %.2.1000173, i32 %.2.1000183 syncscope("agent") monotonic monotonic, align 4
  %.2.1000185 = extractvalue { i32, i1 } %.2.42, 0
  %.2.1000186 = icmp eq i32 %.2.1000185, %.2.1000173
  br i1 %.2.1000186, label %.2.b21, label %.2.b19
.2.b21:
  %.2.1000174 = phi i32 [ %.2.1000173, %.2.b19 ], [ %.2.1000185, %.2.b20 ]
  %.2.1000187 = lshr i32 %.2.1000174, %.2.1000168
  %.2.1000188 = trunc i32 %.2.1000187 to i16
  %.2.1000189 = bitcast i16 %.2.1000188 to half
  %.2.1000190 = getelementptr i8, ptr addrspace(1) %grad, i64 14
  %.2.43 = ptrtoint ptr addrspace(1) %.2.1000190 to i64
  %.2.44 = and i64 %.2.43, 3
  %.2.45 = sub i64 0, %.2.44
  %.2.1000191 = getelementptr i8, ptr addrspace(1) %.2.1000190, i64 %.2.45
  %.2.46 = ptrtoint ptr addrspace(1) %.2.1000190 to i64
  %.2.47 = and i64 %.2.46, 3
  %.2.1000192 = trunc i64 %.2.47 to i32
  %.2.1000194 = shl i32 %.2.1000192, 3
  %.2.1000196 = shl i32 65535, %.2.1000194
  %.2.1000197 = xor i32 %.2.1000196, -1
  %.2.1000198 = load atomic i32, ptr addrspace(1) %.2.1000191 syncscope("agent") monotonic, align 4
  br label %.2.b22
.2.b22:
  %.2.1000199 = phi i32 [ %.2.1000198, %.2.b21 ], [ %.2.1000211, %.2.b23 ]
  %.2.1000201 = lshr i32 %.2.1000199, %.2.1000194
  %.2.1000202 = trunc i32 %.2.1000201 to i16
  %.2.1000203 = bitcast i16 %.2.1000202 to half
  %.2.1000204 = fadd half %.2.1000203, %g7
  %.2.1000205 = bitcast half %.2.1000204 to i16
  %.2.1000206 = zext i16 %.2.1000205 to i32
  %.2.1000207 = shl i32 %.2.1000206, %.2.1000194
  %.2.1000208 = and i32 %.2.1000199, %.2.1000197
  %.2.1000209 = or i32 %.2.1000208, %.2.1000207
  %.2.1000210 = icmp eq i32 %.2.1000209, %.2.1000199
  br i1 %.2.1000210, label %.2.b24, label %.2.b23
.2.b23:
  %.2.48 = cmpxchg ptr addrspace(1) %.2.1000191, i32 %.2.1000199, i32 %.2.1000209 syncscope("agent") monotonic monotonic, align 4
  %.2.1000211 = extractvalue { i32, i1 } %.2.48, 0
  %.2.1000212 = icmp eq i32 %.2.1000211, %.2.1000199
  br i1 %.2.1000212, label %.2.b24, label %.2.b22
.2.b24:
  %.2.1000200 = phi i32 [ %.2.1000199, %.2.b22 ], [ %.2.1000211, %.2.b23 ]
  %.2.1000213 = lshr i32 %.2.1000200, %.2.1000194
  %.2.1000214 = trunc i32 %.2.1000213 to i16
  %.2.1000215 = bitcast i16 %.2.1000214 to half
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

