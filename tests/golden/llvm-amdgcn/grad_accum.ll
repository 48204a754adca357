target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @grad_accum(ptr addrspace(1) %grad, ptr addrspace(1) %master, i32 %g2, half %g0, half %g1, half %g2a, half %g3, half %g4, half %g5, half %g6, half %g7, float %w0, float %w1, float %w2, float %w3) {
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
  %.1.1 = ptrtoint ptr addrspace(1) %grad to i64
  %.1.2 = and i64 %.1.1, 3
  %.1.3 = sub i64 0, %.1.2
  %.1.1000009 = getelementptr i8, ptr addrspace(1) %grad, i64 %.1.3
  %.1.4 = ptrtoint ptr addrspace(1) %grad to i64
  %.1.5 = and i64 %.1.4, 3
  %.1.1000010 = trunc i64 %.1.5 to i32
  %.1.1000012 = shl i32 %.1.1000010, 3
  %.1.1000014 = shl i32 65535, %.1.1000012
  %.1.1000015 = xor i32 %.1.1000014, -1
  %.1.1000016 = load atomic i32, ptr addrspace(1) %.1.1000009 syncscope("agent") monotonic, align 4
  br label %.1.b1
.1.b1:
  %.1.1000017 = phi i32 [ %.1.1000016, %.1.b0 ], [ %.1.1000028, %.1.b1 ]
  %.1.1000019 = lshr i32 %.1.1000017, %.1.1000012
  %.1.1000020 = trunc i32 %.1.1000019 to i16
  %.1.1000021 = bitcast i16 %.1.1000020 to half
  %.1.1000022 = fadd half %.1.1000021, %g0
  %.1.1000023 = bitcast half %.1.1000022 to i16
  %.1.1000024 = zext i16 %.1.1000023 to i32
  %.1.1000025 = shl i32 %.1.1000024, %.1.1000012
  %.1.1000026 = and i32 %.1.1000017, %.1.1000015
  %.1.1000027 = or i32 %.1.1000026, %.1.1000025
  %.1.6 = cmpxchg ptr addrspace(1) %.1.1000009, i32 %.1.1000017, i32 %.1.1000027 syncscope("agent") monotonic monotonic, align 4
  %.1.1000028 = extractvalue { i32, i1 } %.1.6, 0
  %.1.1000029 = icmp eq i32 %.1.1000028, %.1.1000017
  br i1 %.1.1000029, label %.1.b2, label %.1.b1
.1.b2:
  %.1.1000018 = phi i32 [ %.1.1000028, %.1.b1 ]
  %.1.1000030 = lshr i32 %.1.1000018, %.1.1000012
  %.1.1000031 = trunc i32 %.1.1000030 to i16
  %.1.1000032 = bitcast i16 %.1.1000031 to half
  %.1.1000033 = getelementptr i8, ptr addrspace(1) %grad, i64 2
  %.1.7 = ptrtoint ptr addrspace(1) %.1.1000033 to i64
  %.1.8 = and i64 %.1.7, 3
  %.1.9 = sub i64 0, %.1.8
  %.1.1000034 = getelementptr i8, ptr addrspace(1) %.1.1000033, i64 %.1.9
  %.1.10 = ptrtoint ptr addrspace(1) %.1.1000033 to i64
  %.1.11 = and i64 %.1.10, 3
  %.1.1000035 = trunc i64 %.1.11 to i32
  %.1.1000037 = shl i32 %.1.1000035, 3
  %.1.1000039 = shl i32 65535, %.1.1000037
  %.1.1000040 = xor i32 %.1.1000039, -1
  %.1.1000041 = load atomic i32, ptr addrspace(1) %.1.1000034 syncscope("agent") monotonic, align 4
  br label %.1.b3
.1.b3:
  %.1.1000042 = phi i32 [ %.1.1000041, %.1.b2 ], [ %.1.1000053, %.1.b3 ]
  %.1.1000044 = lshr i32 %.1.1000042, %.1.1000037
  %.1.1000045 = trunc i32 %.1.1000044 to i16
  %.1.1000046 = bitcast i16 %.1.1000045 to half
  %.1.1000047 = fadd half %.1.1000046, %g1
  %.1.1000048 = bitcast half %.1.1000047 to i16
  %.1.1000049 = zext i16 %.1.1000048 to i32
  %.1.1000050 = shl i32 %.1.1000049, %.1.1000037
  %.1.1000051 = and i32 %.1.1000042, %.1.1000040
  %.1.1000052 = or i32 %.1.1000051, %.1.1000050
  %.1.12 = cmpxchg ptr addrspace(1) %.1.1000034, i32 %.1.1000042, i32 %.1.1000052 syncscope("agent") monotonic monotonic, align 4
  %.1.1000053 = extractvalue { i32, i1 } %.1.12, 0
  %.1.1000054 = icmp eq i32 %.1.1000053, %.1.1000042
  br i1 %.1.1000054, label %.1.b4, label %.1.b3
.1.b4:
  %.1.1000043 = phi i32 [ %.1.1000053, %.1.b3 ]
  %.1.1000055 = lshr i32 %.1.1000043, %.1.1000037
  %.1.1000056 = trunc i32 %.1.1000055 to i16
  %.1.1000057 = bitcast i16 %.1.1000056 to half
  %.1.1000058 = getelementptr i8, ptr addrspace(1) %grad, i64 4
  %.1.13 = ptrtoint ptr addrspace(1) %.1.1000058 to i64
  %.1.14 = and i64 %.1.13, 3
  %.1.15 = sub i64 0, %.1.14
  %.1.1000059 = getelementptr i8, ptr addrspace(1) %.1.1000058, i64 %.1.15
  %.1.16 = ptrtoint ptr addrspace(1) %.1.1000058 to i64
  %.1.17 = and i64 %.1.16, 3
  %.1.1000060 = trunc i64 %.1.17 to i32
  %.1.1000062 = shl i32 %.1.1000060, 3
  %.1.1000064 = shl i32 65535, %.1.1000062
  %.1.1000065 = xor i32 %.1.1000064, -1
  %.1.1000066 = load atomic i32, ptr addrspace(1) %.1.1000059 syncscope("agent") monotonic, align 4
  br label %.1.b5
.1.b5:
  %.1.1000067 = phi i32 [ %.1.1000066, %.1.b4 ], [ %.1.1000078, %.1.b5 ]
  %.1.1000069 = lshr i32 %.1.1000067, %.1.1000062
  %.1.1000070 = trunc i32 %.1.1000069 to i16
  %.1.1000071 = bitcast i16 %.1.1000070 to half
  %.1.1000072 = fadd half %.1.1000071, %g2a
  %.1.1000073 = bitcast half %.1.1000072 to i16
  %.1.1000074 = zext i16 %.1.1000073 to i32
  %.1.1000075 = shl i32 %.1.1000074, %.1.1000062
  %.1.1000076 = and i32 %.1.1000067, %.1.1000065
  %.1.1000077 = or i32 %.1.1000076, %.1.1000075
  %.1.18 = cmpxchg ptr addrspace(1) %.1.1000059, i32 %.1.1000067, i32 %.1.1000077 syncscope("agent") monotonic monotonic, align 4
  %.1.1000078 = extractvalue { i32, i1 } %.1.18, 0
  %.1.1000079 = icmp eq i32 %.1.1000078, %.1.1000067
  br i1 %.1.1000079, label %.1.b6, label %.1.b5
.1.b6:
  %.1.1000068 = phi i32 [ %.1.1000078, %.1.b5 ]
  %.1.1000080 = lshr i32 %.1.1000068, %.1.1000062
  %.1.1000081 = trunc i32 %.1.1000080 to i16
  %.1.1000082 = bitcast i16 %.1.1000081 to half
  %.1.1000083 = getelementptr i8, ptr addrspace(1) %grad, i64 6
  %.1.19 = ptrtoint ptr addrspace(1) %.1.1000083 to i64
  %.1.20 = and i64 %.1.19, 3
  %.1.21 = sub i64 0, %.1.20
  %.1.1000084 = getelementptr i8, ptr addrspace(1) %.1.1000083, i64 %.1.21
  %.1.22 = ptrtoint ptr addrspace(1) %.1.1000083 to i64
  %.1.23 = and i64 %.1.22, 3
  %.1.1000085 = trunc i64 %.1.23 to i32
  %.1.1000087 = shl i32 %.1.1000085, 3
  %.1.1000089 = shl i32 65535, %.1.1000087
  %.1.1000090 = xor i32 %.1.1000089, -1
  %.1.1000091 = load atomic i32, ptr addrspace(1) %.1.1000084 syncscope("agent") monotonic, align 4
  br label %.1.b7
.1.b7:
  %.1.1000092 = phi i32 [ %.1.1000091, %.1.b6 ], [ %.1.1000103, %.1.b7 ]
  %.1.1000094 = lshr i32 %.1.1000092, %.1.1000087
  %.1.1000095 = trunc i32 %.1.1000094 to i16
  %.1.1000096 = bitcast i16 %.1.1000095 to half
  %.1.1000097 = fadd half %.1.1000096, %g3
  %.1.1000098 = bitcast half %.1.1000097 to i16
  %.1.1000099 = zext i16 %.1.1000098 to i32
  %.1.1000100 = shl i32 %.1.1000099, %.1.1000087
  %.1.1000101 = and i32 %.1.1000092, %.1.1000090
  %.1.1000102 = or i32 %.1.1000101, %.1.1000100
  %.1.24 = cmpxchg ptr addrspace(1) %.1.1000084, i32 %.1.1000092, i32 %.1.1000102 syncscope("agent") monotonic monotonic, align 4
  %.1.1000103 = extractvalue { i32, i1 } %.1.24, 0
  %.1.1000104 = icmp eq i32 %.1.1000103, %.1.1000092
  br i1 %.1.1000104, label %.1.b8, label %.1.b7
.1.b8:
  %.1.1000093 = phi i32 [ %.1.1000103, %.1.b7 ]
  %.1.1000105 = lshr i32 %.1.1000093, %.1.1000087
  %.1.1000106 = trunc i32 %.1.1000105 to i16
  %.1.1000107 = bitcast i16 %.1.1000106 to half
  %.1.1000108 = getelementptr i8, ptr addrspace(1) %grad, i64 8
  %.1.25 = ptrtoint ptr addrspace(1) %.1.1000108 to i64
  %.1.26 = and i64 %.1.25, 3
  %.1.27 = sub i64 0, %.1.26
  %.1.1000109 = getelementptr i8, ptr addrspace(1) %.1.1000108, i64 %.1.27
  %.1.28 = ptrtoint ptr addrspace(1) %.1.1000108 to i64
  %.1.29 = and i64 %.1.28, 3
  %.1.1000110 = trunc i64 %.1.29 to i32
  %.1.1000112 = shl i32 %.1.1000110, 3
  %.1.1000114 = shl i32 65535, %.1.1000112
  %.1.1000115 = xor i32 %.1.1000114, -1
  %.1.1000116 = load atomic i32, ptr addrspace(1) %.1.1000109 syncscope("agent") monotonic, align 4
  br label %.1.b9
.1.b9:
  %.1.1000117 = phi i32 [ %.1.1000116, %.1.b8 ], [ %.1.1000128, %.1.b9 ]
  %.1.1000119 = lshr i32 %.1.1000117, %.1.1000112
  %.1.1000120 = trunc i32 %.1.1000119 to i16
  %.1.1000121 = bitcast i16 %.1.1000120 to half
  %.1.1000122 = fadd half %.1.1000121, %g4
  %.1.1000123 = bitcast half %.1.1000122 to i16
  %.1.1000124 = zext i16 %.1.1000123 to i32
  %.1.1000125 = shl i32 %.1.1000124, %.1.1000112
  %.1.1000126 = and i32 %.1.1000117, %.1.1000115
  %.1.1000127 = or i32 %.1.1000126, %.1.1000125
  %.1.30 = cmpxchg ptr addrspace(1) %.1.1000109, i32 %.1.1000117, i32 %.1.1000127 syncscope("agent") monotonic monotonic, align 4
  %.1.1000128 = extractvalue { i32, i1 } %.1.30, 0
  %.1.1000129 = icmp eq i32 %.1.1000128, %.1.1000117
  br i1 %.1.1000129, label %.1.b10, label %.1.b9
.1.b10:
  %.1.1000118 = phi i32 [ %.1.1000128, %.1.b9 ]
  %.1.1000130 = lshr i32 %.1.1000118, %.1.1000112
  %.1.1000131 = trunc i32 %.1.1000130 to i16
  %.1.1000132 = bitcast i16 %.1.1000131 to half
  %.1.1000133 = getelementptr i8, ptr addrspace(1) %grad, i64 10
  %.1.31 = ptrtoint ptr addrspace(1) %.1.1000133 to i64
  %.1.32 = and i64 %.1.31, 3
  %.1.33 = sub i64 0, %.1.32
  %.1.1000134 = getelementptr i8, ptr addrspace(1) %.1.1000133, i64 %.1.33
  %.1.34 = ptrtoint ptr addrspace(1) %.1.1000133 to i64
  %.1.35 = and i64 %.1.34, 3
  %.1.1000135 = trunc i64 %.1.35 to i32
  %.1.1000137 = shl i32 %.1.1000135, 3
  %.1.1000139 = shl i32 65535, %.1.1000137
  %.1.1000140 = xor i32 %.1.1000139, -1
  %.1.1000141 = load atomic i32, ptr addrspace(1) %.1.1000134 syncscope("agent") monotonic, align 4
  br label %.1.b11
.1.b11:
  %.1.1000142 = phi i32 [ %.1.1000141, %.1.b10 ], [ %.1.1000153, %.1.b11 ]
  %.1.1000144 = lshr i32 %.1.1000142, %.1.1000137
  %.1.1000145 = trunc i32 %.1.1000144 to i16
  %.1.1000146 = bitcast i16 %.1.1000145 to half
  %.1.1000147 = fadd half %.1.1000146, %g5
  %.1.1000148 = bitcast half %.1.1000147 to i16
  %.1.1000149 = zext i16 %.1.1000148 to i32
  %.1.1000150 = shl i32 %.1.1000149, %.1.1000137
  %.1.1000151 = and i32 %.1.1000142, %.1.1000140
  %.1.1000152 = or i32 %.1.1000151, %.1.1000150
  %.1.36 = cmpxchg ptr addrspace(1) %.1.1000134, i32 %.1.1000142, i32 %.1.1000152 syncscope("agent") monotonic monotonic, align 4
  %.1.1000153 = extractvalue { i32, i1 } %.1.36, 0
  %.1.1000154 = icmp eq i32 %.1.1000153, %.1.1000142
  br i1 %.1.1000154, label %.1.b12, label %.1.b11
.1.b12:
  %.1.1000143 = phi i32 [ %.1.1000153, %.1.b11 ]
  %.1.1000155 = lshr i32 %.1.1000143, %.1.1000137
  %.1.1000156 = trunc i32 %.1.1000155 to i16
  %.1.1000157 = bitcast i16 %.1.1000156 to half
  %.1.1000158 = getelementptr i8, ptr addrspace(1) %grad, i64 12
  %.1.37 = ptrtoint ptr addrspace(1) %.1.1000158 to i64
  %.1.38 = and i64 %.1.37, 3
  %.1.39 = sub i64 0, %.1.38
  %.1.1000159 = getelementptr i8, ptr addrspace(1) %.1.1000158, i64 %.1.39
  %.1.40 = ptrtoint ptr addrspace(1) %.1.1000158 to i64
  %.1.41 = and i64 %.1.40, 3
  %.1.1000160 = trunc i64 %.1.41 to i32
  %.1.1000162 = shl i32 %.1.1000160, 3
  %.1.1000164 = shl i32 65535, %.1.1000162
  %.1.1000165 = xor i32 %.1.1000164, -1
  %.1.1000166 = load atomic i32, ptr addrspace(1) %.1.1000159 syncscope("agent") monotonic, align 4
  br label %.1.b13
.1.b13:
  %.1.1000167 = phi i32 [ %.1.1000166, %.1.b12 ], [ %.1.1000178, %.1.b13 ]
  %.1.1000169 = lshr i32 %.1.1000167, %.1.1000162
  %.1.1000170 = trunc i32 %.1.1000169 to i16
  %.1.1000171 = bitcast i16 %.1.1000170 to half
  %.1.1000172 = fadd half %.1.1000171, %g6
  %.1.1000173 = bitcast half %.1.1000172 to i16
  %.1.1000174 = zext i16 %.1.1000173 to i32
  %.1.1000175 = shl i32 %.1.1000174, %.1.1000162
  %.1.1000176 = and i32 %.1.1000167, %.1.1000165
  %.1.1000177 = or i32 %.1.1000176, %.1.1000175
  %.1.42 = cmpxchg ptr addrspace(1) %.1.1000159, i32 %.1.1000167, i32 %.1.1000177 syncscope("agent") monotonic monotonic, align 4
  %.1.1000178 = extractvalue { i32, i1 } %.1.42, 0
  %.1.1000179 = icmp eq i32 %.1.1000178, %.1.1000167
  br i1 %.1.1000179, label %.1.b14, label %.1.b13
.1.b14:
  %.1.1000168 = phi i32 [ %.1.1000178, %.1.b13 ]
  %.1.1000180 = lshr i32 %.1.1000168, %.1.1000162
  %.1.1000181 = trunc i32 %.1.1000180 to i16
  %.1.1000182 = bitcast i16 %.1.1000181 to half
  %.1.1000183 = getelementptr i8, ptr addrspace(1) %grad, i64 14
  %.1.43 = ptrtoint ptr addrspace(1) %.1.1000183 to i64
  %.1.44 = and i64 %.1.43, 3
  %.1.45 = sub i64 0, %.1.44
  %.1.1000184 = getelementptr i8, ptr addrspace(1) %.1.1000183, i64 %.1.45
  %.1.46 = ptrtoint ptr addrspace(1) %.1.1000183 to i64
  %.1.47 = and i64 %.1.46, 3
  %.1.1000185 = trunc i64 %.1.47 to i32
  %.1.1000187 = shl i32 %.1.1000185, 3
  %.1.1000189 = shl i32 65535, %.1.1000187
  %.1.1000190 = xor i32 %.1.1000189, -1
  %.1.1000191 = load atomic i32, ptr addrspace(1) %.1.1000184 syncscope("agent") monotonic, align 4
  br label %.1.b15
.1.b15:
  %.1.1000192 = phi i32 [ %.1.1000191, %.1.b14 ], [ %.1.1000203, %.1.b15 ]
  %.1.1000194 = lshr i32 %.1.1000192, %.1.1000187
  %.1.1000195 = trunc i32 %.1.1000194 to i16
  %.1.1000196 = bitcast i16 %.1.1000195 to half
  %.1.1000197 = fadd half %.1.1000196, %g7
  %.1.1000198 = bitcast half %.1.1000197 to i16
  %.1.1000199 = zext i16 %.1.1000198 to i32
  %.1.1000200 = shl i32 %.1.1000199, %.1.1000187
  %.1.1000201 = and i32 %.1.1000192, %.1.1000190
  %.1.1000202 = or i32 %.1.1000201, %.1.1000200
  %.1.48 = cmpxchg ptr addrspace(1) %.1.1000184, i32 %.1.1000192, i32 %.1.1000202 syncscope("agent") monotonic monotonic, align 4
  %.1.1000203 = extractvalue { i32, i1 } %.1.48, 0
  %.1.1000204 = icmp eq i32 %.1.1000203, %.1.1000192
  br i1 %.1.1000204, label %.1.b16, label %.1.b15
.1.b16:
  %.1.1000193 = phi i32 [ %.1.1000203, %.1.b15 ]
  %.1.1000205 = lshr i32 %.1.1000193, %.1.1000187
  %.1.1000206 = trunc i32 %.1.1000205 to i16
  %.1.1000207 = bitcast i16 %.1.1000206 to half
  br label %.1.end
.1.end:
  br label %.2.b0
.2.b0:
  %.2.1000005 = atomicrmw fadd ptr addrspace(1) %master, float %w0 syncscope("agent") monotonic, align 4
  %.2.1000006 = getelementptr i8, ptr addrspace(1) %master, i64 4
  %.2.1000007 = atomicrmw fadd ptr addrspace(1) %.2.1000006, float %w1 syncscope("agent") monotonic, align 4
  %.2.1000008 = getelementptr i8, ptr addrspace(1) %master, i64 8
  %.2.1000009 = atomicrmw fadd ptr addrspace(1) %.2.1000008, float %w2 syncscope("agent") monotonic, align 4
  %.2.1000010 = getelementptr i8, ptr addrspace(1) %master, i64 12
  %.2.1000011 = atomicrmw fadd ptr addrspace(1) %.2.1000010, float %w3 syncscope("agent") monotonic, align 4
  br label %.2.end
.2.end:
  ret void
}

