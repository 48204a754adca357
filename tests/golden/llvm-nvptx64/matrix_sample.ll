target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @add_u32_dead(ptr addrspace(1) %a, i32 %x) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = atomicrmw add ptr addrspace(1) %a, i32 %x syncscope("device") monotonic, align 4
  br label %.0.end
.0.end:
  ret void
}

define ptx_kernel void @sub_s32_used(ptr addrspace(1) %a, i32 %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = atomicrmw sub ptr addrspace(1) %a, i32 %x syncscope("device") monotonic, align 4
  br label %.0.end
.0.end:
  store i32 %.0.1000002, ptr addrspace(1) %.out0
  ret void
}

define ptx_kernel void @min_s64_acquire(ptr addrspace(1) %a, i64 %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = atomicrmw min ptr addrspace(1) %a, i64 %x syncscope("device") monotonic, align 8
  fence syncscope("device") acquire
  br label %.0.end
.0.end:
  store i64 %.0.1000002, ptr addrspace(1) %.out0
  ret void
}

define ptx_kernel void @max_u16_shared(ptr addrspace(3) %a, i16 %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1 = ptrtoint ptr addrspace(3) %a to i64
  %.0.2 = and i64 %.0.1, 3
  %.0.3 = sub i64 0, %.0.2
  %.0.1000002 = getelementptr i8, ptr addrspace(3) %a, i64 %.0.3
  %.0.4 = ptrtoint ptr addrspace(3) %a to i64
  %.0.5 = and i64 %.0.4, 3
  %.0.1000003 = trunc i64 %.0.5 to i32
  %.0.1000005 = shl i32 %.0.1000003, 3
  %.0.1000007 = shl i32 65535, %.0.1000005
  %.0.1000008 = xor i32 %.0.1000007, -1
  %.0.1000009 = load atomic i32, ptr addrspace(3) %.0.1000002 syncscope("block") monotonic, align 4
  br label %.0.b1
.0.b1:
  %.0.1000010 = phi i32 [ %.0.1000009, %.0.b0 ], [ %.0.1000021, %.0.b2 ]
  %.0.1000013 = lshr i32 %.0.1000010, %.0.1000005
  %.0.1000014 = trunc i32 %.0.1000013 to i16
  %.0.6 = icmp ugt i16 %.0.1000014, %x
  %.0.1000015 = select i1 %.0.6, i16 %.0.1000014, i16 %x
  %.0.1000016 = zext i16 %.0.1000015 to i32
  %.0.1000017 = shl i32 %.0.1000016, %.0.1000005
  %.0.1000018 = and i32 %.0.1000010, %.0.1000008
  %.0.1000019 = or i32 %.0.1000018, %.0.1000017
  %.0.1000020 = icmp eq i32 %.0.1000019, %.0.1000010
  br i1 %.0.1000020, label %.0.b3, label %.0.b2
.0.b2:
  %.0.7 = cmpxchg ptr addrspace(3) %.0.1000002, i32 %.0.1000010, i32 %.0.1000019 syncscope("block") monotonic monotonic, align 4
  %.0.1000021 = extractvalue { i32, i1 } %.0.7, 0
  %.0.1000022 = icmp eq i32 %.0.1000021, %.0.1000010
  br i1 %.0.1000022, label %.0.b3, label %.0.b1
.0.b3:
  %.0.1000011 = phi i32 [ %.0.1000010, %.0.b1 ], [ %.0.1000021, %.0.b2 ]
  %.0.1000012 = phi i16 [ %.0.1000014, %.0.b1 ], [ %.0.1000014, %.0.b2 ]
  br label %.0.end
.0.end:
  store i16 %.0.1000012, ptr addrspace(1) %.out0
  ret void
}

define ptx_kernel void @or_b8_generic(ptr %a, i8 %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1 = ptrtoint ptr %a to i64
  %.0.2 = and i64 %.0.1, 3
  %.0.3 = sub i64 0, %.0.2
  %.0.1000002 = getelementptr i8, ptr %a, i64 %.0.3
  %.0.4 = ptrtoint ptr %a to i64
  %.0.5 = and i64 %.0.4, 3
  %.0.1000003 = trunc i64 %.0.5 to i32
  %.0.1000005 = shl i32 %.0.1000003, 3
  %.0.1000007 = shl i32 255, %.0.1000005
  %.0.1000008 = xor i32 %.0.1000007, -1
  %.0.1000009 = zext i8 %x to i32
  %.0.1000010 = shl i32 %.0.1000009, %.0.1000005
  %.0.1000011 = atomicrmw or ptr %.0.1000002, i32 %.0.1000010 syncscope("device") monotonic, align 4
  %.0.1000012 = lshr i32 %.0.1000011, %.0.1000005
  %.0.1000013 = trunc i32 %.0.1000012 to i8
  br label %.0.end
.0.end:
  store i8 %.0.1000013, ptr addrspace(1) %.out0
  ret void
}

define ptx_kernel void @nand_b32_used(ptr addrspace(1) %a, i32 %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = atomicrmw nand ptr addrspace(1) %a, i32 %x syncscope("device") monotonic, align 4
  br label %.0.end
.0.end:
  store i32 %.0.1000002, ptr addrspace(1) %.out0
  ret void
}

define ptx_kernel void @xor_u64_release_system(ptr addrspace(1) %a, i64 %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  fence release
  %.0.1000002 = load atomic i64, ptr addrspace(1) %a monotonic, align 8
  br label %.0.b1
.0.b1:
  %.0.1000003 = phi i64 [ %.0.1000002, %.0.b0 ], [ %.0.1000006, %.0.b1 ]
  %.0.1000005 = xor i64 %.0.1000003, %x
  %.0.1 = cmpxchg ptr addrspace(1) %a, i64 %.0.1000003, i64 %.0.1000005 monotonic monotonic, align 8
  %.0.1000006 = extractvalue { i64, i1 } %.0.1, 0
  %.0.1000007 = icmp eq i64 %.0.1000006, %.0.1000003
  br i1 %.0.1000007, label %.0.b2, label %.0.b1
.0.b2:
  %.0.1000004 = phi i64 [ %.0.1000006, %.0.b1 ]
  br label %.0.end
.0.end:
  store i64 %.0.1000004, ptr addrspace(1) %.out0
  ret void
}

define ptx_kernel void @exch_b128_acq_rel(ptr addrspace(1) %a, i128 %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  fence syncscope("device") release
  %.0.1000002 = atomicrmw xchg ptr addrspace(1) %a, i128 %x syncscope("device") monotonic, align 16
  fence syncscope("device") acquire
  br label %.0.end
.0.end:
  store i128 %.0.1000002, ptr addrspace(1) %.out0
  ret void
}

define ptx_kernel void @cas_b64_seq_cst(ptr addrspace(1) %a, i64 %expected, i64 %new, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1 = cmpxchg ptr addrspace(1) %a, i64 %expected, i64 %new seq_cst seq_cst, align 8
  %.0.1000003 = extractvalue { i64, i1 } %.0.1, 0
  br label %.0.end
.0.end:
  store i64 %.0.1000003, ptr addrspace(1) %.out0
  ret void
}

define ptx_kernel void @cas_b16_used(ptr addrspace(1) %a, i16 %expected, i16 %new, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1 = ptrtoint ptr addrspace(1) %a to i64
  %.0.2 = and i64 %.0.1, 3
  %.0.3 = sub i64 0, %.0.2
  %.0.1000003 = getelementptr i8, ptr addrspace(1) %a, i64 %.0.3
  %.0.4 = ptrtoint ptr addrspace(1) %a to i64
  %.0.5 = and i64 %.0.4, 3
  %.0.1000004 = trunc i64 %.0.5 to i32
  %.0.1000006 = shl i32 %.0.1000004, 3
  %.0.1000008 = shl i32 65535, %.0.1000006
  %.0.1000009 = xor i32 %.0.1000008, -1
  %.0.1000010 = load atomic i32, ptr addrspace(1) %.0.1000003 syncscope("device") monotonic, align 4
  br label %.0.b1
.0.b1:
  %.0.1000011 = phi i32 [ %.0.1000010, %.0.b0 ], [ %.0.1000023, %.0.b2 ]
  %.0.1000014 = lshr i32 %.0.1000011, %.0.1000006
  %.0.1000015 = trunc i32 %.0.1000014 to i16
  %.0.1000016 = icmp eq i16 %.0.1000015, %expected
  %.0.1000017 = select i1 %.0.1000016, i16 %new, i16 %.0.1000015
  %.0.1000018 = zext i16 %.0.1000017 to i32
  %.0.1000019 = shl i32 %.0.1000018, %.0.1000006
  %.0.1000020 = and i32 %.0.1000011, %.0.1000009
  %.0.1000021 = or i32 %.0.1000020, %.0.1000019
  %.0.1000022 = icmp eq i32 %.0.1000021, %.0.1000011
  br i1 %.0.1000022, label %.0.b3, label %.0.b2
.0.b2:
  %.0.6 = cmpxchg ptr addrspace(1) %.0.1000003, i32 %.0.1000011, i32 %.0.1000021 syncscope("device") monotonic monotonic, align 4
  %.0.1000023 = extractvalue { i32, i1 } %.0.6, 0
  %.0.1000024 = icmp eq i32 %.0.1000023, %.0.1000011
  br i1 %.0.1000024, label %.0.b3, label %.0.b1
.0.b3:
  %.0.1000012 = phi i32 [ %.0.1000011, %.0.b1 ], [ %.0.1000023, %.0.b2 ]
  %.0.1000013 = phi i16 [ %.0.1000015, %.0.b1 ], [ %.0.1000015, %.0.b2 ]
  br label %.0.end
.0.end:
  store i16 %.0.1000013, ptr addrspace(1) %.out0
  ret void
}

define ptx_kernel void @add_f16_used(ptr addrspace(1) %a, half %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = atomicrmw fadd ptr addrspace(1) %a, half %x syncscope("device") monotonic, align 2
  br label %.0.end
.0.end:
  store half %.0.1000002, ptr addrspace(1) %.out0
  ret void
}

define ptx_kernel void @add_bf16x2_dead(ptr addrspace(1) %a, i32 %x) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1 = bitcast i32 %x to <2 x bfloat>
  %.0.2 = atomicrmw fadd ptr addrspace(1) %a, <2 x bfloat> %.0.1 syncscope("device") monotonic, align 4
  %.0.1000002 = bitcast <2 x bfloat> %.0.2 to i32
  br label %.0.end
.0.end:
  ret void
}

define ptx_kernel void @min_f32_used(ptr addrspace(1) %a, float %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = bitcast float %x to i32
  %.0.1000006 = and i32 %.0.1000002, 2147483647
  %.0.1000007 = icmp ugt i32 %.0.1000006, 2139095040
  br i1 %.0.1000007, label %.0.b5, label %.0.b1
.0.b1:
  %.0.1000009 = icmp uge i32 %.0.1000002, 2147483648
  br i1 %.0.1000009, label %.0.b3, label %.0.b2
.0.b2:
  %.0.1000010 = atomicrmw min ptr addrspace(1) %a, i32 %.0.1000002 syncscope("device") monotonic, align 4
  br label %.0.b4
.0.b3:
  %.0.1000011 = atomicrmw umax ptr addrspace(1) %a, i32 %.0.1000002 syncscope("device") monotonic, align 4
  br label %.0.b4
.0.b4:
  %.0.1000008 = phi i32 [ %.0.1000010, %.0.b2 ], [ %.0.1000011, %.0.b3 ]
  %.0.1000013 = icmp ugt i32 %.0.1000008, 4286578688
  br i1 %.0.1000013, label %.0.b5, label %.0.b9
.0.b5:
  %.0.1000014 = load atomic i32, ptr addrspace(1) %a syncscope("device") monotonic, align 4
  br label %.0.b6
.0.b6:
  %.0.1000015 = phi i32 [ %.0.1000014, %.0.b5 ], [ %.0.1000021, %.0.b7 ]
  %.0.1000017 = bitcast i32 %.0.1000015 to float
  %.0.1000030 = bitcast float %.0.1000017 to i32
  %.0.1000031 = and i32 %.0.1000030, 2147483647
  %.0.1000032 = icmp ugt i32 %.0.1000031, 2139095040
  %.0.1000033 = lshr i32 %.0.1000030, 31
  %.0.1000034 = sub i32 0, %.0.1000033
  %.0.1000035 = or i32 %.0.1000034, 2147483648
  %.0.1000036 = xor i32 %.0.1000030, %.0.1000035
  %.0.1000037 = bitcast float %x to i32
  %.0.1000038 = and i32 %.0.1000037, 2147483647
  %.0.1000039 = icmp ugt i32 %.0.1000038, 2139095040
  %.0.1000040 = lshr i32 %.0.1000037, 31
  %.0.1000041 = sub i32 0, %.0.1000040
  %.0.1000042 = or i32 %.0.1000041, 2147483648
  %.0.1000043 = xor i32 %.0.1000037, %.0.1000042
  %.0.1000044 = icmp ult i32 %.0.1000036, %.0.1000043
  %.0.1000045 = select i1 %.0.1000044, i32 %.0.1000030, i32 %.0.1000037
  %.0.1000046 = select i1 %.0.1000039, i32 %.0.1000030, i32 %.0.1000045
  %.0.1000047 = select i1 %.0.1000032, i32 %.0.1000037, i32 %.0.1000046
  %.0.1000048 = and i1 %.0.1000032, %.0.1000039
  %.0.1000050 = select i1 %.0.1000048, i32 2143289344, i32 %.0.1000047
  %.0.1000018 = bitcast i32 %.0.1000050 to float
  %.0.1000019 = bitcast float %.0.1000018 to i32
  %.0.1000020 = icmp eq i32 %.0.1000019, %.0.1000015
  br i1 %.0.1000020, label %.0.b8, label %.0.b7
.0.b7:
  %.0.1 = cmpxchg ptr addrspace(1) %a, i32 %.0.1000015, i32 %.0.1000019 syncscope("device") monotonic monotonic, align 4
  %.0.1000021 = extractvalue { i32, i1 } %.0.1, 0
  %.0.1000022 = icmp eq i32 %.0.1000021, %.0.1000015
  br i1 %.0.1000022, label %.0.b8, label %.0.b6
.0.b8:
  %.0.1000016 = phi i32 [ %.0.1000015, %.0.b6 ], [ %.0.1000021, %.0.b7 ]
  br label %.0.b9
.0.b9:
  %.0.1000023 = phi i32 [ %.0.1000008, %.0.b4 ], [ %.0.1000016, %.0.b8 ]
  %.0.1000024 = bitcast i32 %.0.1000023 to float
  br label %.0.end
.0.end:
  store float %.0.1000024, ptr addrspace(1) %.out0
  ret void
}

define ptx_kernel void @add_f64_cluster(ptr addrspace(7) %a, double %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = atomicrmw fadd ptr addrspace(7) %a, double %x syncscope("cluster") monotonic, align 8
  br label %.0.end
.0.end:
  store double %.0.1000002, ptr addrspace(1) %.out0
  ret void
}

define ptx_kernel void @add_v2_f32_dead(ptr addrspace(1) %a, float %x, float %y) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1 = insertelement <2 x float> poison, float %x, i32 0
  %.0.2 = insertelement <2 x float> %.0.1, float %y, i32 1
  %.0.3 = atomicrmw fadd ptr addrspace(1) %a, <2 x float> %.0.2 syncscope("device") monotonic, align 8
  br label %.0.end
.0.end:
  ret void
}

define ptx_kernel void @max_v4_bf16x2(ptr addrspace(1) %a, i32 %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000005 = load atomic i32, ptr addrspace(1) %a syncscope("device") monotonic, align 4
  br label %.0.b1
.0.b1:
  %.0.1000006 = phi i32 [ %.0.1000005, %.0.b0 ], [ %.0.1000028, %.0.b2 ]
  %.0.1000009 = lshr i32 %.0.1000006, 16
  %.0.1000010 = lshr i32 %x, 16
  %.0.1000011 = trunc i32 %.0.1000006 to i16
  %.0.1000012 = trunc i32 %x to i16
  %.0.1000013 = bitcast i16 %.0.1000012 to bfloat
  %.0.1000014 = bitcast i16 %.0.1000011 to bfloat
  %.0.1000113 = bitcast bfloat %.0.1000014 to i16
  %.0.1000114 = and i16 %.0.1000113, 32767
  %.0.1000115 = icmp ugt i16 %.0.1000114, 32640
  %.0.1000116 = lshr i16 %.0.1000113, 15
  %.0.1000117 = sub i16 0, %.0.1000116
  %.0.1000118 = or i16 %.0.1000117, 32768
  %.0.1000119 = xor i16 %.0.1000113, %.0.1000118
  %.0.1000120 = bitcast bfloat %.0.1000013 to i16
  %.0.1000121 = and i16 %.0.1000120, 32767
  %.0.1000122 = icmp ugt i16 %.0.1000121, 32640
  %.0.1000123 = lshr i16 %.0.1000120, 15
  %.0.1000124 = sub i16 0, %.0.1000123
  %.0.1000125 = or i16 %.0.1000124, 32768
  %.0.1000126 = xor i16 %.0.1000120, %.0.1000125
  %.0.1000127 = icmp ult i16 %.0.1000119, %.0.1000126
  %.0.1000128 = select i1 %.0.1000127, i16 %.0.1000120, i16 %.0.1000113
  %.0.1000129 = select i1 %.0.1000122, i16 %.0.1000113, i16 %.0.1000128
  %.0.1000130 = select i1 %.0.1000115, i16 %.0.1000120, i16 %.0.1000129
  %.0.1000131 = and i1 %.0.1000115, %.0.1000122
  %.0.1000133 = select i1 %.0.1000131, i16 32704, i16 %.0.1000130
  %.0.1000015 = bitcast i16 %.0.1000133 to bfloat
  %.0.1000016 = bitcast bfloat %.0.1000015 to i16
  %.0.1000017 = zext i16 %.0.1000016 to i32
  %.0.1000018 = trunc i32 %.0.1000009 to i16
  %.0.1000019 = trunc i32 %.0.1000010 to i16
  %.0.1000020 = bitcast i16 %.0.1000019 to bfloat
  %.0.1000021 = bitcast i16 %.0.1000018 to bfloat
  %.0.1000139 = bitcast bfloat %.0.1000021 to i16
  %.0.1000140 = and i16 %.0.1000139, 32767
  %.0.1000141 = icmp ugt i16 %.0.1000140, 32640
  %.0.1000142 = lshr i16 %.0.1000139, 15
  %.0.1000143 = sub i16 0, %.0.1000142
  %.0.1000144 = or i16 %.0.1000143, 32768
  %.0.1000145 = xor i16 %.0.1000139, %.0.1000144
  %.0.1000146 = bitcast bfloat %.0.1000020 to i16
  %.0.1000147 = and i16 %.0.1000146, 32767
  %.0.1000148 = icmp ugt i16 %.0.1000147, 32640
  %.0.1000149 = lshr i16 %.0.1000146, 15
  %.0.1000150 = sub i16 0, %.0.1000149
  %.0.1000151 = or i16 %.0.1000150, 32768
  %.0.1000152 = xor i16 %.0.1000146, %.0.1000151
  %.0.1000153 = icmp ult i16 %.0.1000145, %.0.1000152
  %.0.1000154 = select i1 %.0.1000153, i16 %.0.1000146, i16 %.0.1000139
  %.0.1000155 = select i1 %.0.1000148, i16 %.0.1000139, i16 %.0.1000154
  %.0.1000156 = select i1 %.0.1000141, i16 %.0.1000146, i16 %.0.1000155
  %.0.1000157 = and i1 %.0.1000141, %.0.1000148
  %.0.1000159 = select i1 %.0.1000157, i16 32704, i16 %.0.1000156
  %.0.1000022 = bitcast i16 %.0.1000159 to bfloat
  %.0.1000023 = bitcast bfloat %.0.1000022 to i16
  %.0.1000024 = zext i16 %.0.1000023 to i32
  %.0.1000025 = shl i32 %.0.1000024, 16
  %.0.1000026 = or i32 %.0.1000017, %.0.1000025
  %.0.1000027 = icmp eq i32 %.0.1000026, %.0.1000006
  br i1 %.0.1000027, label %.0.b3, label %.0.b2
.0.b2:
  %.0.1 = cmpxchg ptr addrspace(1) %a, i32 %.0.1000006, i32 %.0.1000026 syncscope("device") monotonic monotonic, align 4
  %.0.1000028 = extractvalue { i32, i1 } %.0.1, 0
  %.0.1000029 = icmp eq i32 %.0.1000028, %.0.1000006
  br i1 %.0.1000029, label %.0.b3, label %.0.b1
.0.b3:
  %.0.1000007 = phi i32 [ %.0.1000006, %.0.b1 ], [ %.0.1000028, %.0.b2 ]
  %.0.1000030 = getelementptr i8, ptr addrspace(1) %a, i64 4
  %.0.1000031 = load atomic i32, ptr addrspace(1) %.0.1000030 syncscope("device") monotonic, align 4
  br label %.0.b4
.0.b4:
  %.0.1000032 = phi i32 [ %.0.1000031, %.0.b3 ], [ %.0.1000054, %.0.b5 ]
  %.0.1000035 = lshr i32 %.0.1000032, 16
  %.0.1000036 = lshr i32 %x, 16
  %.0.1000037 = trunc i32 %.0.1000032 to i16
  %.0.1000038 = trunc i32 %x to i16
  %.0.1000039 = bitcast i16 %.0.1000038 to bfloat
  %.0.1000040 = bitcast i16 %.0.1000037 to bfloat
  %.0.1000165 = bitcast bfloat %.0.1000040 to i16
  %.0.1000166 = and i16 %.0.1000165, 32767
  %.0.1000167 = icmp ugt i16 %.0.1000166, 32640
  %.0.1000168 = lshr i16 %.0.1000165, 15
  %.0.1000169 = sub i16 0, %.0.1000168
  %.0.1000170 = or i16 %.0.1000169, 32768
  %.0.1000171 = xor i16 %.0.1000165, %.0.1000170
  %.0.1000172 = bitcast bfloat %.0.1000039 to i16
  %.0.1000173 = and i16 %.0.1000172, 32767
  %.0.1000174 = icmp ugt i16 %.0.1000173, 32640
  %.0.1000175 = lshr i16 %.0.1000172, 15
  %.0.1000176 = sub i16 0, %.0.1000175
  %.0.1000177 = or i16 %.0.1000176, 32768
  %.0.1000178 = xor i16 %.0.1000172, %.0.1000177
  %.0.1000179 = icmp ult i16 %.0.1000171, %.0.1000178
  %.0.1000180 = select i1 %.0.1000179, i16 %.0.1000172, i16 %.0.1000165
  %.0.1000181 = select i1 %.0.1000174, i16 %.0.1000165, i16 %.0.1000180
  %.0.1000182 = select i1 %.0.1000167, i16 %.0.1000172, i16 %.0.1000181
  %.0.1000183 = and i1 %.0.1000167, %.0.1000174
  %.0.1000185 = select i1 %.0.1000183, i16 32704, i16 %.0.1000182
  %.0.1000041 = bitcast i16 %.0.1000185 to bfloat
  %.0.1000042 = bitcast bfloat %.0.1000041 to i16
  %.0.1000043 = zext i16 %.0.1000042 to i32
  %.0.1000044 = trunc i32 %.0.1000035 to i16
  %.0.1000045 = trunc i32 %.0.1000036 to i16
  %.0.1000046 = bitcast i16 %.0.1000045 to bfloat
  %.0.1000047 = bitcast i16 %.0.1000044 to bfloat
  %.0.1000191 = bitcast bfloat %.0.1000047 to i16
  %.0.1000192 = and i16 %.0.1000191, 32767
  %.0.1000193 = icmp ugt i16 %.0.1000192, 32640
  %.0.1000194 = lshr i16 %.0.1000191, 15
  %.0.1000195 = sub i16 0, %.0.1000194
  %.0.1000196 = or i16 %.0.1000195, 32768
  %.0.1000197 = xor i16 %.0.1000191, %.0.1000196
  %.0.1000198 = bitcast bfloat %.0.1000046 to i16
  %.0.1000199 = and i16 %.0.1000198, 32767
  %.0.1000200 = icmp ugt i16 %.0.1000199, 32640
  %.0.1000201 = lshr i16 %.0.1000198, 15
  %.0.1000202 = sub i16 0, %.0.1000201
  %.0.1000203 = or i16 %.0.1000202, 32768
  %.0.1000204 = xor i16 %.0.1000198, %.0.1000203
  %.0.1000205 = icmp ult i16 %.0.1000197, %.0.1000204
  %.0.1000206 = select i1 %.0.1000205, i16 %.0.1000198, i16 %.0.1000191
  %.0.1000207 = select i1 %.0.1000200, i16 %.0.1000191, i16 %.0.1000206
  %.0.1000208 = select i1 %.0.1000193, i16 %.0.1000198, i16 %.0.1000207
  %.0.1000209 = and i1 %.0.1000193, %.0.1000200
  %.0.1000211 = select i1 %.0.1000209, i16 32704, i16 %.0.1000208
  %.0.1000048 = bitcast i16 %.0.1000211 to bfloat
  %.0.1000049 = bitcast bfloat %.0.1000048 to i16
  %.0.1000050 = zext i16 %.0.1000049 to i32
  %.0.1000051 = shl i32 %.0.1000050, 16
  %.0.1000052 = or i32 %.0.1000043, %.0.1000051
  %.0.1000053 = icmp eq i32 %.0.1000052, %.0.1000032
  br i1 %.0.1000053, label %.0.b6, label %.0.b5
.0.b5:
  %.0.2 = cmpxchg ptr addrspace(1) %.0.1000030, i32 %.0.1000032, i32 %.0.1000052 syncscope("device") monotonic monotonic, align 4
  %.0.1000054 = extractvalue { i32, i1 } %.0.2, 0
  %.0.1000055 = icmp eq i32 %.0.1000054, %.0.1000032
  br i1 %.0.1000055, label %.0.b6, label %.0.b4
.0.b6:
  %.0.1000033 = phi i32 [ %.0.1000032, %.0.b4 ], [ %.0.1000054, %.0.b5 ]
  %.0.1000056 = getelementptr i8, ptr addrspace(1) %a, i64 8
  %.0.1000057 = load atomic i32, ptr addrspace(1) %.0.1000056 syncscope("device") monotonic, align 4
  br label %.0.b7
.0.b7:
  %.0.1000058 = phi i32 [ %.0.1000057, %.0.b6 ], [ %.0.1000080, %.0.b8 ]
  %.0.1000061 = lshr i32 %.0.1000058, 16
  %.0.1000062 = lshr i32 %x, 16
  %.0.1000063 = trunc i32 %.0.1000058 to i16
  %.0.1000064 = trunc i32 %x to i16
  %.0.1000065 = bitcast i16 %.0.1000064 to bfloat
  %.0.1000066 = bitcast i16 %.0.1000063 to bfloat
  %.0.1000217 = bitcast bfloat %.0.1000066 to i16
  %.0.1000218 = and i16 %.0.1000217, 32767
  %.0.1000219 = icmp ugt i16 %.0.1000218, 32640
  %.0.1000220 = lshr i16 %.0.1000217, 15
  %.0.1000221 = sub i16 0, %.0.1000220
  %.0.1000222 = or i16 %.0.1000221, 32768
  %.0.1000223 = xor i16 %.0.1000217, %.0.1000222
  %.0.1000224 = bitcast bfloat %.0.1000065 to i16
  %.0.1000225 = and i16 %.0.1000224, 32767
  %.0.1000226 = icmp ugt i16 %.0.1000225, 32640
  %.0.1000227 = lshr i16 %.0.1000224, 15
  %.0.1000228 = sub i16 0, %.0.1000227
  %.0.1000229 = or i16 %.0.1000228, 32768
  %.0.1000230 = xor i16 %.0.1000224, %.0.1000229
  %.0.1000231 = icmp ult i16 %.0.1000223, %.0.1000230
  %.0.1000232 = select i1 %.0.1000231, i16 %.0.1000224, i16 %.0.1000217
  %.0.1000233 = select i1 %.0.1000226, i16 %.0.1000217, i16 %.0.1000232
  %.0.1000234 = select i1 %.0.1000219, i16 %.0.1000224, i16 %.0.1000233
  %.0.1000235 = and i1 %.0.1000219, %.0.1000226
  %.0.1000237 = select i1 %.0.1000235, i16 32704, i16 %.0.1000234
  %.0.1000067 = bitcast i16 %.0.1000237 to bfloat
  %.0.1000068 = bitcast bfloat %.0.1000067 to i16
  %.0.1000069 = zext i16 %.0.1000068 to i32
  %.0.1000070 = trunc i32 %.0.1000061 to i16
  %.0.1000071 = trunc i32 %.0.1000062 to i16
  %.0.1000072 = bitcast i16 %.0.1000071 to bfloat
  %.0.1000073 = bitcast i16 %.0.1000070 to bfloat
  %.0.1000243 = bitcast bfloat %.0.1000073 to i16
  %.0.1000244 = and i16 %.0.1000243, 32767
  %.0.1000245 = icmp ugt i16 %.0.1000244, 32640
  %.0.1000246 = lshr i16 %.0.1000243, 15
  %.0.1000247 = sub i16 0, %.0.1000246
  %.0.1000248 = or i16 %.0.1000247, 32768
  %.0.1000249 = xor i16 %.0.1000243, %.0.1000248
  %.0.1000250 = bitcast bfloat %.0.1000072 to i16
  %.0.1000251 = and i16 %.0.1000250, 32767
  %.0.1000252 = icmp ugt i16 %.0.1000251, 32640
  %.0.1000253 = lshr i16 %.0.1000250, 15
  %.0.1000254 = sub i16 0, %.0.1000253
  %.0.1000255 = or i16 %.0.1000254, 32768
  %.0.1000256 = xor i16 %.0.1000250, %.0.1000255
  %.0.1000257 = icmp ult i16 %.0.1000249, %.0.1000256
  %.0.1000258 = select i1 %.0.1000257, i16 %.0.1000250, i16 %.0.1000243
  %.0.1000259 = select i1 %.0.1000252, i16 %.0.1000243, i16 %.0.1000258
  %.0.1000260 = select i1 %.0.1000245, i16 %.0.1000250, i16 %.0.1000259
  %.0.1000261 = and i1 %.0.1000245, %.0.1000252
  %.0.1000263 = select i1 %.0.1000261, i16 32704, i16 %.0.1000260
  %.0.1000074 = bitcast i16 %.0.1000263 to bfloat
  %.0.1000075 = bitcast bfloat %.0.1000074 to i16
  %.0.1000076 = zext i16 %.0.1000075 to i32
  %.0.1000077 = shl i32 %.0.1000076, 16
  %.0.1000078 = or i32 %.0.1000069, %.0.1000077
  %.0.1000079 = icmp eq i32 %.0.1000078, %.0.1000058
  br i1 %.0.1000079, label %.0.b9, label %.0.b8
.0.b8:
  %.0.3 = cmpxchg ptr addrspace(1) %.0.1000056, i32 %.0.1000058, i32 %.0.1000078 syncscope("device") monotonic monotonic, align 4
  %.0.1000080 = extractvalue { i32, i1 } %.0.3, 0
  %.0.1000081 = icmp eq i32 %.0.1000080, %.0.1000058
  br i1 %.0.1000081, label %.0.b9, label %.0.b7
.0.b9:
  %.0.1000059 = phi i32 [ %.0.1000058, %.0.b7 ], [ %.0.1000080, %.0.b8 ]
  %.0.1000082 = getelementptr i8, ptr addrspace(1) %a, i64 12
  %.0.1000083 = load atomic i32, ptr addrspace(1) %.0.1000082 syncscope("device") monotonic, align 4
  br label %.0.b10
.0.b10:
  %.0.1000084 = phi i32 [ %.0.1000083, %.0.b9 ], [ %.0.1000106, %.0.b11 ]
  %.0.1000087 = lshr i32 %.0.1000084, 16
  %.0.1000088 = lshr i32 %x, 16
  %.0.1000089 = trunc i32 %.0.1000084 to i16
  %.0.1000090 = trunc i32 %x to i16
  %.0.1000091 = bitcast i16 %.0.1000090 to bfloat
  %.0.1000092 = bitcast i16 %.0.1000089 to bfloat
  %.0.1000269 = bitcast bfloat %.0.1000092 to i16
  %.0.1000270 = and i16 %.0.1000269, 32767
  %.0.1000271 = icmp ugt i16 %.0.1000270, 32640
  %.0.1000272 = lshr i16 %.0.1000269, 15
  %.0.1000273 = sub i16 0, %.0.1000272
  %.0.1000274 = or i16 %.0.1000273, 32768
  %.0.1000275 = xor i16 %.0.1000269, %.0.1000274
  %.0.1000276 = bitcast bfloat %.0.1000091 to i16
  %.0.1000277 = and i16 %.0.1000276, 32767
  %.0.1000278 = icmp ugt i16 %.0.1000277, 32640
  %.0.1000279 = lshr i16 %.0.1000276, 15
  %.0.1000280 = sub i16 0, %.0.1000279
  %.0.1000281 = or i16 %.0.1000280, 32768
  %.0.1000282 = xor i16 %.0.1000276, %.0.1000281
  %.0.1000283 = icmp ult i16 %.0.1000275, %.0.1000282
  %.0.1000284 = select i1 %.0.1000283, i16 %.0.1000276, i16 %.0.1000269
  %.0.1000285 = select i1 %.0.1000278, i16 %.0.1000269, i16 %.0.1000284
  %.0.1000286 = select i1 %.0.1000271, i16 %.0.1000276, i16 %.0.1000285
  %.0.1000287 = and i1 %.0.1000271, %.0.1000278
  %.0.1000289 = select i1 %.0.1000287, i16 32704, i16 %.0.1000286
  %.0.1000093 = bitcast i16 %.0.1000289 to bfloat
  %.0.1000094 = bitcast bfloat %.0.1000093 to i16
  %.0.1000095 = zext i16 %.0.1000094 to i32
  %.0.1000096 = trunc i32 %.0.1000087 to i16
  %.0.1000097 = trunc i32 %.0.1000088 to i16
  %.0.1000098 = bitcast i16 %.0.1000097 to bfloat
  %.0.1000099 = bitcast i16 %.0.1000096 to bfloat
  %.0.1000295 = bitcast bfloat %.0.1000099 to i16
  %.0.1000296 = and i16 %.0.1000295, 32767
  %.0.1000297 = icmp ugt i16 %.0.1000296, 32640
  %.0.1000298 = lshr i16 %.0.1000295, 15
  %.0.1000299 = sub i16 0, %.0.1000298
  %.0.1000300 = or i16 %.0.1000299, 32768
  %.0.1000301 = xor i16 %.0.1000295, %.0.1000300
  %.0.1000302 = bitcast bfloat %.0.1000098 to i16
  %.0.1000303 = and i16 %.0.1000302, 32767
  %.0.1000304 = icmp ugt i16 %.0.1000303, 32640
  %.0.1000305 = lshr i16 %.0.1000302, 15
  %.0.1000306 = sub i16 0, %.0.1000305
  %.0.1000307 = or i16 %.0.1000306, 32768
  %.0.1000308 = xor i16 %.0.1000302, %.0.1000307
  %.0.1000309 = icmp ult i16 %.0.1000301, %.0.1000308
  %.0.1000310 = select i1 %.0.1000309, i16 %.0.1000302, i16 %.0.1000295
  %.0.1000311 = select i1 %.0.1000304, i16 %.0.1000295, i16 %.0.1000310
  %.0.1000312 = select i1 %.0.1000297, i16 %.0.1000302, i16 %.0.1000311
  %.0.1000313 = and i1 %.0.1000297, %.0.1000304
  %.0.1000315 = select i1 %.0.1000313, i16 32704, i16 %.0.1000312
  %.0.1000100 = bitcast i16 %.0.1000315 to bfloat
  %.0.1000101 = bitcast bfloat %.0.1000100 to i16
  %.0.1000102 = zext i16 %.0.1000101 to i32
  %.0.1000103 = shl i32 %.0.1000102, 16
  %.0.1000104 = or i32 %.0.1000095, %.0.1000103
  %.0.1000105 = icmp eq i32 %.0.1000104, %.0.1000084
  br i1 %.0.1000105, label %.0.b12, label %.0.b11
.0.b11:
  %.0.4 = cmpxchg ptr addrspace(1) %.0.1000082, i32 %.0.1000084, i32 %.0.1000104 syncscope("device") monotonic monotonic, align 4
  %.0.1000106 = extractvalue { i32, i1 } %.0.4, 0
  %.0.1000107 = icmp eq i32 %.0.1000106, %.0.1000084
  br i1 %.0.1000107, label %.0.b12, label %.0.b10
.0.b12:
  %.0.1000085 = phi i32 [ %.0.1000084, %.0.b10 ], [ %.0.1000106, %.0.b11 ]
  %.0.5 = insertelement <4 x i32> poison, i32 %.0.1000007, i32 0
  %.0.6 = insertelement <4 x i32> %.0.5, i32 %.0.1000033, i32 1
  %.0.7 = insertelement <4 x i32> %.0.6, i32 %.0.1000059, i32 2
  %.0.8 = insertelement <4 x i32> %.0.7, i32 %.0.1000085, i32 3
  br label %.0.end
.0.end:
  store <4 x i32> %.0.8, ptr addrspace(1) %.out0
  ret void
}

define ptx_kernel void @inc_all_ones_bound(ptr addrspace(1) %a, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = atomicrmw uinc_wrap ptr addrspace(1) %a, i32 4294967295 syncscope("device") monotonic, align 4
  br label %.0.end
.0.end:
  store i32 %.0.1000002, ptr addrspace(1) %.out0
  ret void
}

define ptx_kernel void @predicated_with_hint(ptr addrspace(1) %a, i32 %x, i1 %p, ptr addrspace(1) %.out0) {
.entry:
  br i1 %p, label %.0.b0, label %.0.end
.0.b0:
  %.0.1000002 = atomicrmw add ptr addrspace(1) %a, i32 %x syncscope("device") monotonic, align 4
  br label %.0.end
.0.end:
  %.0.1 = phi i32 [ %.0.1000002, %.0.b0 ], [ zeroinitializer, %.entry ]
  br i1 %p, label %.1.end, label %.1.b0
.1.b0:
  %.1.1000002 = atomicrmw and ptr addrspace(1) %a, i32 %x syncscope("device") monotonic, align 4
  br label %.1.end
.1.end:
  store i32 %.0.1, ptr addrspace(1) %.out0
  ret void
}

