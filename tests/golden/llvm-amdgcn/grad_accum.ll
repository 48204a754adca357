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
  %.2.1000017 = phi i32 [ %.2.1000016, %.2.b0 ], [ %.2.1000028, %.2.b1 ]
  %.2.1000019 = lshr i32 %.2.1000017, %.2.1000012
  %.2.1000020 = trunc i32 %.2.1000019 to i16
  %.2.1000021 = bitcast i16 %.2.1000020 to half
  %.2.1000022 = fadd half %.2.1000021, %g0
  %.2.1000023 = bitcast half %.2.1000022 to i16
  %.2.1000024 = zext i16 %.2.1000023 to i32
  %.2.1000025 = shl i32 %.2.1000024, %.2.1000012
  %.2.1000026 = and i32 %.2.1000017, %.2.1000015
  %.2.1000027 = or i32 %.2.1000026, %.2.1000025
  %.2.6 = cmpxchg ptr addrspace(1) %.2.1000009, i32 %.2.1000017, i32 %.2.1000027 syncscope("agent") monotonic monotonic, align 4
  %.2.1000028 = extractvalue { i32, i1 } %.2.6, 0
  %.2.1000029 = icmp eq i32 %.2.1000028, %.2.1000017
  br i1 %.2.1000029, label %.2.b2, label %.2.b1
.2.b2:
  %.2.1000018 = phi i32 [ %.2.1000028, %.2.b1 ]
  %.2.1000030 = lshr i32 %.2.1000018, %.2.1000012
  %.2.1000031 = trunc i32 %.2.1000030 to i16
  %.2.1000032 = bitcast i16 %.2.1000031 to half
  %.2.1000033 = getelementptr i8, ptr addrspace(1) %grad, i64 2
  %.2.7 = ptrtoint ptr addrspace(1) %.2.1000033 to i64
  %.2.8 = and i64 %.2.7, 3
  %.2.9 = sub i64 0, %.2.8
  %.2.1000034 = getelementptr i8, ptr addrspace(1) %.2.1000033, i64 %.2.9
  %.2.10 = ptrtoint ptr addrspace(1) %.2.1000033 to i64
  %.2.11 = and i64 %.2.10, 3
  %.2.1000035 = trunc i64 %.2.11 to i32
  %.2.1000037 = shl i32 %.2.1000035, 3
  %.2.1000039 = shl i32 65535, %.2.1000037
  %.2.1000040 = xor i32 %.2.1000039, -1
  %.2.1000041 = load atomic i32, ptr addrspace(1) %.2.1000034 syncscope("agent") monotonic, align 4
  br label %.2.b3
.2.b3:
  %.2.1000042 = phi i32 [ %.2.1000041, %.2.b2 ], [ %.2.1000053, %.2.b3 ]
  %.2.1000044 = lshr i32 %.2.1000042, %.2.1000037
  %.2.1000045 = trunc i32 %.2.1000044 to i16
  %.2.1000046 = bitcast i16 %.2.1000045 to half
  %.2.1000047 = fadd half %.2.1000046, %g1
  %.2.1000048 = bitcast half %.2.1000047 to i16
  %.2.1000049 = zext i16 %.2.1000048 to i32
  %.2.1000050 = shl i32 %.2.1000049, %.2.1000037
  %.2.1000051 = and i32 %.2.1000042, %.2.1000040
  %.2.1000052 = or i32 %.2.1000051, %.2.1000050
  %.2.12 = cmpxchg ptr addrspace(1) %.2.1000034, i32 %.2.1000042, i32 %.2.1000052 syncscope("agent") monotonic monotonic, align 4
  %.2.1000053 = extractvalue { i32, i1 } %.2.12, 0
  %.2.1000054 = icmp eq i32 %.2.1000053, %.2.1000042
  br i1 %.2.1000054, label %.2.b4, label %.2.b3
.2.b4:
  %.2.1000043 = phi i32 [ %.2.1000053, %.2.b3 ]
  %.2.1000055 = lshr i32 %.2.1000043, %.2.1000037
  %.2.1000056 = trunc i32 %.2.1000055 to i16
  %.2.1000057 = bitcast i16 %.2.1000056 to half
  %.2.1000058 = getelementptr i8, ptr addrspace(1) %grad, i64 4
  %.2.13 = ptrtoint ptr addrspace(1) %.2.1000058 to i64
  %.2.14 = and i64 %.2.13, 3
  %.2.15 = sub i64 0, %.2.14
  %.2.1000059 = getelementptr i8, ptr addrspace(1) %.2.1000058, i64 %.2.15
  %.2.16 = ptrtoint ptr addrspace(1) %.2.1000058 to i64
  %.2.17 = and i64 %.2.16, 3
  %.2.1000060 = trunc i64 %.2.17 to i32
  %.2.1000062 = shl i32 %.2.1000060, 3
  %.2.1000064 = shl i32 65535, %.2.1000062
  %.2.1000065 = xor i32 %.2.1000064, -1
  %.2.1000066 = load atomic i32, ptr addrspace(1) %.2.1000059 syncscope("agent") monotonic, align 4
  br label %.2.b5
.2.b5:
  %.2.1000067 = phi i32 [ %.2.1000066, %.2.b4 ], [ %.2.1000078, %.2.b5 ]
  %.2.1000069 = lshr i32 %.2.1000067, %.2.1000062
  %.2.1000070 = trunc i32 %.2.1000069 to i16
  %.2.1000071 = bitcast i16 %.2.1000070 to half
  %.2.1000072 = fadd half %.2.1000071, %g2a
  %.2.1000073 = bitcast half %.2.1000072 to i16
  %.2.1000074 = zext i16 %.2.1000073 to i32
  %.2.1000075 = shl i32 %.2.1000074, %.2.1000062
  %.2.1000076 = and i32 %.2.1000067, %.2.1000065
  %.2.1000077 = or i32 %.2.1000076, %.2.1000075
  %.2.18 = cmpxchg ptr addrspace(1) %.2.1000059, i32 %.2.1000067, i32 %.2.1000077 syncscope("agent") monotonic monotonic, align 4
  %.2.1000078 = extractvalue { i32, i1 } %.2.18, 0
  %.2.1000079 = icmp eq i32 %.2.1000078, %.2.1000067
  br i1 %.2.1000079, label %.2.b6, label %.2.b5
.2.b6:
  %.2.1000068 = phi i32 [ %.2.1000078, %.2.b5 ]
  %.2.1000080 = lshr i32 %.2.1000068, %.2.1000062
  %.2.1000081 = trunc i32 %.2.1000080 to i16
  %.2.1000082 = bitcast i16 %.2.1000081 to half
  %.2.1000083 = getelementptr i8, ptr addrspace(1) %grad, i64 6
  %.2.19 = ptrtoint ptr addrspace(1) %.2.1000083 to i64
  %.2.20 = and i64 %.2.19, 3
  %.2.21 = sub i64 0, %.2.20
  %.2.1000084 = getelementptr i8, ptr addrspace(1) %.2.1000083, i64 %.2.21
  %.2.22 = ptrtoint ptr addrspace(1) %.2.1000083 to i64
  %.2.23 = and i64 %.2.22, 3
  %.2.1000085 = trunc i64 %.2.23 to i32
  %.2.1000087 = shl i32 %.2.1000085, 3
  %.2.1000089 = shl i32 65535, %.2.1000087
  %.2.1000090 = xor i32 %.2.1000089, -1
  %.2.1000091 = load atomic i32, ptr addrspace(1) %.2.1000084 syncscope("agent") monotonic, align 4
  br label %.2.b7
.2.b7:
  %.2.1000092 = phi i32 [ %.2.1000091, %.2.b6 ], [ %.2.1000103, %.2.b7 ]
  %.2.1000094 = lshr i32 %.2.1000092, %.2.1000087
  %.2.1000095 = trunc i32 %.2.1000094 to i16
  %.2.1000096 = bitcast i16 %.2.1000095 to half
  %.2.1000097 = fadd half %.2.1000096, %g3
  %.2.1000098 = bitcast half %.2.1000097 to i16
  %.2.1000099 = zext i16 %.2.1000098 to i32
  %.2.1000100 = shl i32 %.2.1000099, %.2.1000087
  %.2.1000101 = and i32 %.2.1000092, %.2.1000090
  %.2.1000102 = or i32 %.2.1000101, %.2.1000100
  %.2.24 = cmpxchg ptr addrspace(1) %.2.1000084, i32 %.2.1000092, i32 %.2.1000102 syncscope("agent") monotonic monotonic, align 4
  %.2.1000103 = extractvalue { i32, i1 } %.2.24, 0
  %.2.1000104 = icmp eq i32 %.2.1000103, %.2.1000092
  br i1 %.2.1000104, label %.2.b8, label %.2.b7
.2.b8:
  %.2.1000093 = phi i32 [ %.2.1000103, %.2.b7 ]
  %.2.1000105 = lshr i32 %.2.1000093, %.2.1000087
  %.2.1000106 = trunc i32 %.2.1000105 to i16
  %.2.1000107 = bitcast i16 %.2.1000106 to half
  %.2.1000108 = getelementptr i8, ptr addrspace(1) %grad, i64 8
  %.2.25 = ptrtoint ptr addrspace(1) %.2.1000108 to i64
  %.2.26 = and i64 %.2.25, 3
  %.2.27 = sub i64 0, %.2.26
  %.2.1000109 = getelementptr i8, ptr addrspace(1) %.2.1000108, i64 %.2.27
  %.2.28 = ptrtoint ptr addrspace(1) %.2.1000108 to i64
  %.2.29 = and i64 %.2.28, 3
  %.2.1000110 = trunc i64 %.2.29 to i32
  %.2.1000112 = shl i32 %.2.1000110, 3
  %.2.1000114 = shl i32 65535, %.2.1000112
  %.2.1000115 = xor i32 %.2.1000114, -1
  %.2.1000116 = load atomic i32, ptr addrspace(1) %.2.1000109 syncscope("agent") monotonic, align 4
  br label %.2.b9
.2.b9:
  %.2.1000117 = phi i32 [ %.2.1000116, %.2.b8 ], [ %.2.1000128, %.2.b9 ]
  %.2.1000119 = lshr i32 %.2.1000117, %.2.1000112
  %.2.1000120 = trunc i32 %.2.1000119 to i16
  %.2.1000121 = bitcast i16 %.2.1000120 to half
  %.2.1000122 = fadd half %.2.1000121, %g4
  %.2.1000123 = bitcast half %.2.1000122 to i16
  %.2.1000124 = zext i16 %.2.1000123 to i32
  %.2.1000125 = shl i32 %.2.1000124, %.2.1000112
  %.2.1000126 = and i32 %.2.1000117, %.2.1000115
  %.2.1000127 = or i32 %.2.1000126, %.2.1000125
  %.2.30 = cmpxchg ptr addrspace(1) %.2.1000109, i32 %.2.1000117, i32 %.2.1000127 syncscope("agent") monotonic monotonic, align 4
  %.2.1000128 = extractvalue { i32, i1 } %.2.30, 0
  %.2.1000129 = icmp eq i32 %.2.1000128, %.2.1000117
  br i1 %.2.1000129, label %.2.b10, label %.2.b9
.2.b10:
  %.2.1000118 = phi i32 [ %.2.1000128, %.2.b9 ]
  %.2.1000130 = lshr i32 %.2.1000118, %.2.1000112
  %.2.1000131 = trunc i32 %.2.1000130 to i16
  %.2.1000132 = bitcast i16 %.2.1000131 to half
  %.2.1000133 = getelementptr i8, ptr addrspace(1) %grad, i64 10
  %.2.31 = ptrtoint ptr addrspace(1) %.2.1000133 to i64
  %.2.32 = and i64 %.2.31, 3
  %.2.33 = sub i64 0, %.2.32
  %.2.1000134 = getelementptr i8, ptr addrspace(1) %.2.1000133, i64 %.2.33
  %.2.34 = ptrtoint ptr addrspace(1) %.2.1000133 to i64
  %.2.35 = and i64 %.2.34, 3
  %.2.1000135 = trunc i64 %.2.35 to i32
  %.2.1000137 = shl i32 %.2.1000135, 3
  %.2.1000139 = shl i32 65535, %.2.1000137
  %.2.1000140 = xor i32 %.2.1000139, -1
  %.2.1000141 = load atomic i32, ptr addrspace(1) %.2.1000134 syncscope("agent") monotonic, align 4
  br label %.2.b11
.2.b11:
  %.2.1000142 = phi i32 [ %.2.1000141, %.2.b10 ], [ %.2.1000153, %.2.b11 ]
  %.2.1000144 = lshr i32 %.2.1000142, %.2.1000137
  %.2.1000145 = trunc i32 %.2.1000144 to i16
  %.2.1000146 = bitcast i16 %.2.1000145 to half
  %.2.1000147 = fadd half %.2.1000146, %g5
  %.2.1000148 = bitcast half %.2.1000147 to i16
  %.2.1000149 = zext i16 %.2.1000148 to i32
  %.2.1000150 = shl i32 %.2.1000149, %.2.1000137
  %.2.1000151 = and i32 %.2.1000142, %.2.1000140
  %.2.1000152 = or i32 %.2.1000151, %.2.1000150
  %.2.36 = cmpxchg ptr addrspace(1) %.2.1000134, i32 %.2.1000142, i32 %.2.1000152 syncscope("agent") monotonic monotonic, align 4
  %.2.1000153 = extractvalue { i32, i1 } %.2.36, 0
  %.2.1000154 = icmp eq i32 %.2.1000153, %.2.1000142
  br i1 %.2.1000154, label %.2.b12, label %.2.b11
.2.b12:
  %.2.1000143 = phi i32 [ %.2.1000153, %.2.b11 ]
  %.2.1000155 = lshr i32 %.2.1000143, %.2.1000137
  %.2.1000156 = trunc i32 %.2.1000155 to i16
  %.2.1000157 = bitcast i16 %.2.1000156 to half
  %.2.1000158 = getelementptr i8, ptr addrspace(1) %grad, i64 12
  %.2.37 = ptrtoint ptr addrspace(1) %.2.1000158 to i64
  %.2.38 = and i64 %.2.37, 3
  %.2.39 = sub i64 0, %.2.38
  %.2.1000159 = getelementptr i8, ptr addrspace(1) %.2.1000158, i64 %.2.39
  %.2.40 = ptrtoint ptr addrspace(1) %.2.1000158 to i64
  %.2.41 = and i64 %.2.40, 3
  %.2.1000160 = trunc i64 %.2.41 to i32
  %.2.1000162 = shl i32 %.2.1000160, 3
  %.2.1000164 = shl i32 65535, %.2.1000162
  %.2.1000165 = xor i32 %.2.1000164, -1
  %.2.1000166 = load atomic i32, ptr addrspace(1) %.2.1000159 syncscope("agent") monotonic, align 4
  br label %.2.b13
.2.b13:
  %.2.1000167 = phi i32 [ %.2.1000166, %.2.b12 ], [ %.2.1000178, %.2.b13 ]
  %.2.1000169 = lshr i32 %.2.1000167, %.2.1000162
  %.2.1000170 = trunc i32 %.2.1000169 to i16
  %.2.1000171 = bitcast i16 %.2.1000170 to half
  %.2.1000172 = fadd half %.2.1000171, %g6
  %.2.1000173 = bitcast half %.2.1000172 to i16
  %.2.1000174 = zext i16 %.2.1000173 to i32
  %.2.1000175 = shl i32 %.2.1000174, %.2.1000162
  %.2.1000176 = and i32 %.2.1000167, %.2.1000165
  %.2.1000177 = or i32 %.2.1000176, %.2.1000175
  %.2.42 = cmpxchg ptr addrspace(1) %.2.1000159, i32 %.2.1000167, i32 %.2.1000177 syncscope("agent") monotonic monotonic, align 4
  %.2.1000178 = extractvalue { i32, i1 } %.2.42, 0
  %.2.1000179 = icmp eq i32 %.2.1000178, %.2.1000167
  br i1 %.2.1000179, label %.2.b14, label %.2.b13
.2.b14:
  %.2.1000168 = phi i32 [ %.2.1000178, %.2.b13 ]
  %.2.1000180 = lshr i32 %.2.1000168, %.2.1000162
  %.2.1000181 = trunc i32 %.2.1000180 to i16
  %.2.1000182 = bitcast i16 %.2.1000181 to half
  %.2.1000183 = getelementptr i8, ptr addrspace(1) %grad, i64 14
  %.2.43 = ptrtoint ptr addrspace(1) %.2.1000183 to i64
  %.2.44 = and i64 %.2.43, 3
  %.2.45 = sub i64 0, %.2.44
  %.2.1000184 = getelementptr i8, ptr addrspace(1) %.2.1000183, i64 %.2.45
  %.2.46 = ptrtoint ptr addrspace(1) %.2.1000183 to i64
  %.2.47 = and i64 %.2.46, 3
  %.2.1000185 = trunc i64 %.2.47 to i32
  %.2.1000187 = shl i32 %.2.1000185, 3
  %.2.1000189 = shl i32 65535, %.2.1000187
  %.2.1000190 = xor i32 %.2.1000189, -1
  %.2.1000191 = load atomic i32, ptr addrspace(1) %.2.1000184 syncscope("agent") monotonic, align 4
  br label %.2.b15
.2.b15:
  %.2.1000192 = phi i32 [ %.2.1000191, %.2.b14 ], [ %.2.1000203, %.2.b15 ]
  %.2.1000194 = lshr i32 %.2.1000192, %.2.1000187
  %.2.1000195 = trunc i32 %.2.1000194 to i16
  %.2.1000196 = bitcast i16 %.2.1000195 to half
  %.2.1000197 = fadd half %.2.1000196, %g7
  %.2.1000198 = bitcast half %.2.1000197 to i16
  %.2.1000199 = zext i16 %.2.1000198 to i32
  %.2.1000200 = shl i32 %.2.1000199, %.2.1000187
  %.2.1000201 = and i32 %.2.1000192, %.2.1000190
  %.2.1000202 = or i32 %.2.1000201, %.2.1000200
  %.2.48 = cmpxchg ptr addrspace(1) %.2.1000184, i32 %.2.1000192, i32 %.2.1000202 syncscope("agent") monotonic monotonic, align 4
  %.2.1000203 = extractvalue { i32, i1 } %.2.48, 0
  %.2.1000204 = icmp eq i32 %.2.1000203, %.2.1000192
  br i1 %.2.1000204, label %.2.b16, label %.2.b15
.2.b16:
  %.2.1000193 = phi i32 [ %.2.1000203, %.2.b15 ]
  %.2.1000205 = lshr i32 %.2.1000193, %.2.1000187
  %.2.1000206 = trunc i32 %.2.1000205 to i16
  %.2.1000207 = bitcast i16 %.2.1000206 to half
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

