; llc -mtriple=amdgcn-amd-amdhsa -mcpu=gfx942
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @add_u32_dead(ptr addrspace(1) %a, i32 %x) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = atomicrmw add ptr addrspace(1) %a, i32 %x syncscope("agent") monotonic, align 4
  br label %.0.end
.0.end:
  ret void
}

define amdgpu_kernel void @sub_s32_used(ptr addrspace(1) %a, i32 %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = atomicrmw sub ptr addrspace(1) %a, i32 %x syncscope("agent") monotonic, align 4
  br label %.0.end
.0.end:
  store i32 %.0.1000002, ptr addrspace(1) %.out0
  ret void
}

define amdgpu_kernel void @min_s64_acquire(ptr addrspace(1) %a, i64 %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = atomicrmw min ptr addrspace(1) %a, i64 %x syncscope("agent") acquire, align 8
  br label %.0.end
.0.end:
  store i64 %.0.1000002, ptr addrspace(1) %.out0
  ret void
}

define amdgpu_kernel void @max_u16_shared(ptr addrspace(3) %a, i16 %x, ptr addrspace(1) %.out0) {
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
  %.0.1000009 = load atomic i32, ptr addrspace(3) %.0.1000002 syncscope("workgroup") monotonic, align 4
  br label %.0.b1
.0.b1:
  %.0.1000010 = phi i32 [ %.0.1000009, %.0.b0 ], [ %.0.1000019, %.0.b2 ]
  %.0.1000011 = lshr i32 %.0.1000010, %.0.1000005
  %.0.1000012 = trunc i32 %.0.1000011 to i16
  %.0.6 = icmp ugt i16 %.0.1000012, %x
  %.0.1000013 = select i1 %.0.6, i16 %.0.1000012, i16 %x
  %.0.1000014 = zext i16 %.0.1000013 to i32
  %.0.1000015 = shl i32 %.0.1000014, %.0.1000005
  %.0.1000016 = and i32 %.0.1000010, %.0.1000008
  %.0.1000017 = or i32 %.0.1000016, %.0.1000015
  %.0.1000018 = icmp eq i32 %.0.1000017, %.0.1000010
  br i1 %.0.1000018, label %.0.b3, label %.0.b2
.0.b2:
  %.0.7 = cmpxchg ptr addrspace(3) %.0.1000002, i32 %.0.1000010, i32 %.0.1000017 syncscope("workgroup") monotonic monotonic, align 4
  %.0.1000019 = extractvalue { i32, i1 } %.0.7, 0
  %.0.1000020 = icmp eq i32 %.0.1000019, %.0.1000010
  br i1 %.0.1000020, label %.0.b3, label %.0.b1
.0.b3:
  br label %.0.end
.0.end:
  store i16 %.0.1000012, ptr addrspace(1) %.out0
  ret void
}

define amdgpu_kernel void @or_b8_generic(ptr %a, i8 %x, ptr addrspace(1) %.out0) {
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
  %.0.1000011 = atomicrmw or ptr %.0.1000002, i32 %.0.1000010 syncscope("agent") monotonic, align 4
  %.0.1000012 = lshr i32 %.0.1000011, %.0.1000005
  %.0.1000013 = trunc i32 %.0.1000012 to i8
  br label %.0.end
.0.end:
  store i8 %.0.1000013, ptr addrspace(1) %.out0
  ret void
}

define amdgpu_kernel void @nand_b32_used(ptr addrspace(1) %a, i32 %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = load atomic i32, ptr addrspace(1) %a syncscope("agent") monotonic, align 4
  br label %.0.b1
.0.b1:
  %.0.1000003 = phi i32 [ %.0.1000002, %.0.b0 ], [ %.0.1000007, %.0.b1 ]
  %.0.1000005 = and i32 %.0.1000003, %x
  %.0.1000006 = xor i32 %.0.1000005, -1
  %.0.1 = cmpxchg ptr addrspace(1) %a, i32 %.0.1000003, i32 %.0.1000006 syncscope("agent") monotonic monotonic, align 4
  %.0.1000007 = extractvalue { i32, i1 } %.0.1, 0
  %.0.1000008 = icmp eq i32 %.0.1000007, %.0.1000003
  br i1 %.0.1000008, label %.0.b2, label %.0.b1
.0.b2:
  %.0.1000004 = phi i32 [ %.0.1000007, %.0.b1 ]
  br label %.0.end
.0.end:
  store i32 %.0.1000004, ptr addrspace(1) %.out0
  ret void
}

define amdgpu_kernel void @xor_u64_release_system(ptr addrspace(1) %a, i64 %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = load atomic i64, ptr addrspace(1) %a monotonic, align 8
  br label %.0.b1
.0.b1:
  %.0.1000003 = phi i64 [ %.0.1000002, %.0.b0 ], [ %.0.1000006, %.0.b1 ]
  %.0.1000005 = xor i64 %.0.1000003, %x
  %.0.1 = cmpxchg ptr addrspace(1) %a, i64 %.0.1000003, i64 %.0.1000005 release monotonic, align 8
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

define amdgpu_kernel void @cas_b64_seq_cst(ptr addrspace(1) %a, i64 %expected, i64 %new, ptr addrspace(1) %.out0) {
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

define amdgpu_kernel void @cas_b16_used(ptr addrspace(1) %a, i16 %expected, i16 %new, ptr addrspace(1) %.out0) {
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
  %.0.1000010 = load atomic i32, ptr addrspace(1) %.0.1000003 syncscope("agent") monotonic, align 4
  br label %.0.b1
.0.b1:
  %.0.1000011 = phi i32 [ %.0.1000010, %.0.b0 ], [ %.0.1000021, %.0.b2 ]
  %.0.1000012 = lshr i32 %.0.1000011, %.0.1000006
  %.0.1000013 = trunc i32 %.0.1000012 to i16
  %.0.1000014 = icmp eq i16 %.0.1000013, %expected
  %.0.1000015 = select i1 %.0.1000014, i16 %new, i16 %.0.1000013
  %.0.1000016 = zext i16 %.0.1000015 to i32
  %.0.1000017 = shl i32 %.0.1000016, %.0.1000006
  %.0.1000018 = and i32 %.0.1000011, %.0.1000009
  %.0.1000019 = or i32 %.0.1000018, %.0.1000017
  %.0.1000020 = icmp eq i32 %.0.1000019, %.0.1000011
  br i1 %.0.1000020, label %.0.b3, label %.0.b2
.0.b2:
  %.0.6 = cmpxchg ptr addrspace(1) %.0.1000003, i32 %.0.1000011, i32 %.0.1000019 syncscope("agent") monotonic monotonic, align 4
  %.0.1000021 = extractvalue { i32, i1 } %.0.6, 0
  %.0.1000022 = icmp eq i32 %.0.1000021, %.0.1000011
  br i1 %.0.1000022, label %.0.b3, label %.0.b1
.0.b3:
  br label %.0.end
.0.end:
  store i16 %.0.1000013, ptr addrspace(1) %.out0
  ret void
}

define amdgpu_kernel void @add_f16_used(ptr addrspace(1) %a, half %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1 = ptrtoint ptr addrspace(1) %a to i64
  %.0.2 = and i64 %.0.1, 3
  %.0.3 = sub i64 0, %.0.2
  %.0.1000002 = getelementptr i8, ptr addrspace(1) %a, i64 %.0.3
  %.0.4 = ptrtoint ptr addrspace(1) %a to i64
  %.0.5 = and i64 %.0.4, 3
  %.0.1000003 = trunc i64 %.0.5 to i32
  %.0.1000005 = shl i32 %.0.1000003, 3
  %.0.1000007 = shl i32 65535, %.0.1000005
  %.0.1000008 = xor i32 %.0.1000007, -1
  %.0.1000009 = load atomic i32, ptr addrspace(1) %.0.1000002 syncscope("agent") monotonic, align 4
  br label %.0.b1
.0.b1:
  %.0.1000010 = phi i32 [ %.0.1000009, %.0.b0 ], [ %.0.1000021, %.0.b2 ]
  %.0.1000011 = lshr i32 %.0.1000010, %.0.1000005
  %.0.1000012 = trunc i32 %.0.1000011 to i16
  %.0.1000013 = bitcast i16 %.0.1000012 to half
  %.0.1000014 = fadd half %.0.1000013, %x
  %.0.1000015 = bitcast half %.0.1000014 to i16
  %.0.1000016 = zext i16 %.0.1000015 to i32
  %.0.1000017 = shl i32 %.0.1000016, %.0.1000005
  %.0.1000018 = and i32 %.0.1000010, %.0.1000008
  %.0.1000019 = or i32 %.0.1000018, %.0.1000017
  %.0.1000020 = icmp eq i32 %.0.1000019, %.0.1000010
  br i1 %.0.1000020, label %.0.b3, label %.0.b2
.0.b2:
  %.0.6 = cmpxchg ptr addrspace(1) %.0.1000002, i32 %.0.1000010, i32 %.0.1000019 syncscope("agent") monotonic monotonic, align 4
  %.0.1000021 = extractvalue { i32, i1 } %.0.6, 0
  %.0.1000022 = icmp eq i32 %.0.1000021, %.0.1000010
  br i1 %.0.1000022, label %.0.b3, label %.0.b1
.0.b3:
  %.0.1000023 = bitcast i16 %.0.1000012 to half
  br label %.0.end
.0.end:
  store half %.0.1000023, ptr addrspace(1) %.out0
  ret void
}

define amdgpu_kernel void @add_bf16x2_dead(ptr addrspace(1) %a, i32 %x) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1 = bitcast i32 %x to <2 x bfloat>
  %.0.2 = atomicrmw fadd ptr addrspace(1) %a, <2 x bfloat> %.0.1 syncscope("agent") monotonic, align 4
  %.0.1000002 = bitcast <2 x bfloat> %.0.2 to i32
  br label %.0.end
.0.end:
  ret void
}

define amdgpu_kernel void @min_f32_used(ptr addrspace(1) %a, float %x, ptr addrspace(1) %.out0) {
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
  %.0.1000010 = atomicrmw min ptr addrspace(1) %a, i32 %.0.1000002 syncscope("agent") monotonic, align 4
  br label %.0.b4
.0.b3:
  %.0.1000011 = atomicrmw umax ptr addrspace(1) %a, i32 %.0.1000002 syncscope("agent") monotonic, align 4
  br label %.0.b4
.0.b4:
  %.0.1000008 = phi i32 [ %.0.1000010, %.0.b2 ], [ %.0.1000011, %.0.b3 ]
  %.0.1000013 = icmp ugt i32 %.0.1000008, 4286578688
  br i1 %.0.1000013, label %.0.b5, label %.0.b9
.0.b5:
  %.0.1000014 = load atomic i32, ptr addrspace(1) %a syncscope("agent") monotonic, align 4
  br label %.0.b6
.0.b6:
  %.0.1000015 = phi i32 [ %.0.1000014, %.0.b5 ], [ %.0.1000020, %.0.b7 ]
  %.0.1000016 = bitcast i32 %.0.1000015 to float
  %.0.1000029 = bitcast float %.0.1000016 to i32
  %.0.1000030 = and i32 %.0.1000029, 2147483647
  %.0.1000031 = icmp ugt i32 %.0.1000030, 2139095040
  %.0.1000032 = lshr i32 %.0.1000029, 31
  %.0.1000033 = sub i32 0, %.0.1000032
  %.0.1000034 = or i32 %.0.1000033, 2147483648
  %.0.1000035 = xor i32 %.0.1000029, %.0.1000034
  %.0.1000036 = bitcast float %x to i32
  %.0.1000037 = and i32 %.0.1000036, 2147483647
  %.0.1000038 = icmp ugt i32 %.0.1000037, 2139095040
  %.0.1000039 = lshr i32 %.0.1000036, 31
  %.0.1000040 = sub i32 0, %.0.1000039
  %.0.1000041 = or i32 %.0.1000040, 2147483648
  %.0.1000042 = xor i32 %.0.1000036, %.0.1000041
  %.0.1000043 = icmp ult i32 %.0.1000035, %.0.1000042
  %.0.1000044 = select i1 %.0.1000043, i32 %.0.1000029, i32 %.0.1000036
  %.0.1000045 = select i1 %.0.1000038, i32 %.0.1000029, i32 %.0.1000044
  %.0.1000046 = select i1 %.0.1000031, i32 %.0.1000036, i32 %.0.1000045
  %.0.1000047 = and i1 %.0.1000031, %.0.1000038
  %.0.1000049 = select i1 %.0.1000047, i32 2143289344, i32 %.0.1000046
  %.0.1000017 = bitcast i32 %.0.1000049 to float
  %.0.1000018 = bitcast float %.0.1000017 to i32
  %.0.1000019 = icmp eq i32 %.0.1000018, %.0.1000015
  br i1 %.0.1000019, label %.0.b8, label %.0.b7
.0.b7:
  %.0.1 = cmpxchg ptr addrspace(1) %a, i32 %.0.1000015, i32 %.0.1000018 syncscope("agent") monotonic monotonic, align 4
  %.0.1000020 = extractvalue { i32, i1 } %.0.1, 0
  %.0.1000021 = icmp eq i32 %.0.1000020, %.0.1000015
  br i1 %.0.1000021, label %.0.b8, label %.0.b6
.0.b8:
  br label %.0.b9
.0.b9:
  %.0.1000022 = phi i32 [ %.0.1000008, %.0.b4 ], [ %.0.1000015, %.0.b8 ]
  %.0.1000023 = bitcast i32 %.0.1000022 to float
  br label %.0.end
.0.end:
  store float %.0.1000023, ptr addrspace(1) %.out0
  ret void
}

define amdgpu_kernel void @add_v2_f32_dead(ptr addrspace(1) %a, float %x, float %y) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000003 = atomicrmw fadd ptr addrspace(1) %a, float %x syncscope("agent") monotonic, align 4
  %.0.1000004 = getelementptr i8, ptr addrspace(1) %a, i64 4
  %.0.1000005 = atomicrmw fadd ptr addrspace(1) %.0.1000004, float %y syncscope("agent") monotonic, align 4
  br label %.0.end
.0.end:
  ret void
}

define amdgpu_kernel void @max_v4_bf16x2(ptr addrspace(1) %a, i32 %x, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000005 = load atomic i32, ptr addrspace(1) %a syncscope("agent") monotonic, align 4
  br label %.0.b1
.0.b1:
  %.0.1000006 = phi i32 [ %.0.1000005, %.0.b0 ], [ %.0.1000027, %.0.b2 ]
  %.0.1000008 = lshr i32 %.0.1000006, 16
  %.0.1000009 = lshr i32 %x, 16
  %.0.1000010 = trunc i32 %.0.1000006 to i16
  %.0.1000011 = trunc i32 %x to i16
  %.0.1000012 = bitcast i16 %.0.1000011 to bfloat
  %.0.1000013 = bitcast i16 %.0.1000010 to bfloat
  %.0.1000109 = bitcast bfloat %.0.1000013 to i16
  %.0.1000110 = and i16 %.0.1000109, 32767
  %.0.1000111 = icmp ugt i16 %.0.1000110, 32640
  %.0.1000112 = lshr i16 %.0.1000109, 15
  %.0.1000113 = sub i16 0, %.0.1000112
  %.0.1000114 = or i16 %.0.1000113, 32768
  %.0.1000115 = xor i16 %.0.1000109, %.0.1000114
  %.0.1000116 = bitcast bfloat %.0.1000012 to i16
  %.0.1000117 = and i16 %.0.1000116, 32767
  %.0.1000118 = icmp ugt i16 %.0.1000117, 32640
  %.0.1000119 = lshr i16 %.0.1000116, 15
  %.0.1000120 = sub i16 0, %.0.1000119
  %.0.1000121 = or i16 %.0.1000120, 32768
  %.0.1000122 = xor i16 %.0.1000116, %.0.1000121
  %.0.1000123 = icmp ult i16 %.0.1000115, %.0.1000122
  %.0.1000124 = select i1 %.0.1000123, i16 %.0.1000116, i16 %.0.1000109
  %.0.1000125 = select i1 %.0.1000118, i16 %.0.1000109, i16 %.0.1000124
  %.0.1000126 = select i1 %.0.1000111, i16 %.0.1000116, i16 %.0.1000125
  %.0.1000127 = and i1 %.0.1000111, %.0.1000118
  %.0.1000129 = select i1 %.0.1000127, i16 32704, i16 %.0.1000126
  %.0.1000014 = bitcast i16 %.0.1000129 to bfloat
  %.0.1000015 = bitcast bfloat %.0.1000014 to i16
  %.0.1000016 = zext i16 %.0.1000015 to i32
  %.0.1000017 = trunc i32 %.0.1000008 to i16
  %.0.1000018 = trunc i32 %.0.1000009 to i16
  %.0.1000019 = bitcast i16 %.0.1000018 to bfloat
  %.0.1000020 = bitcast i16 %.0.1000017 to bfloat
  %.0.1000135 = bitcast bfloat %.0.1000020 to i16
  %.0.1000136 = and i16 %.0.1000135, 32767
  %.0.1000137 = icmp ugt i16 %.0.1000136, 32640
  %.0.1000138 = lshr i16 %.0.1000135, 15
  %.0.1000139 = sub i16 0, %.0.1000138
  %.0.1000140 = or i16 %.0.1000139, 32768
  %.0.1000141 = xor i16 %.0.1000135, %.0.1000140
  %.0.1000142 = bitcast bfloat %.0.1000019 to i16
  %.0.1000143 = and i16 %.0.1000142, 32767
  %.0.1000144 = icmp ugt i16 %.0.1000143, 32640
  %.0.1000145 = lshr i16 %.0.1000142, 15
  %.0.1000146 = sub i16 0, %.0.1000145
  %.0.1000147 = or i16 %.0.1000146, 32768
  %.0.1000148 = xor i16 %.0.1000142, %.0.1000147
  %.0.1000149 = icmp ult i16 %.0.1000141, %.0.1000148
  %.0.1000150 = select i1 %.0.1000149, i16 %.0.1000142, i16 %.0.1000135
  %.0.1000151 = select i1 %.0.1000144, i16 %.0.1000135, i16 %.0.1000150
  %.0.1000152 = select i1 %.0.1000137, i16 %.0.1000142, i16 %.0.1000151
  %.0.1000153 = and i1 %.0.1000137, %.0.1000144
  %.0.1000155 = select i1 %.0.1000153, i16 32704, i16 %.0.1000152
  %.0.1000021 = bitcast i16 %.0.1000155 to bfloat
  %.0.1000022 = bitcast bfloat %.0.1000021 to i16
  %.0.1000023 = zext i16 %.0.1000022 to i32
  %.0.1000024 = shl i32 %.0.1000023, 16
  %.0.1000025 = or i32 %.0.1000016, %.0.1000024
  %.0.1000026 = icmp eq i32 %.0.1000025, %.0.1000006
  br i1 %.0.1000026, label %.0.b3, label %.0.b2
.0.b2:
  %.0.1 = cmpxchg ptr addrspace(1) %a, i32 %.0.1000006, i32 %.0.1000025 syncscope("agent") monotonic monotonic, align 4
  %.0.1000027 = extractvalue { i32, i1 } %.0.1, 0
  %.0.1000028 = icmp eq i32 %.0.1000027, %.0.1000006
  br i1 %.0.1000028, label %.0.b3, label %.0.b1
.0.b3:
  %.0.1000029 = getelementptr i8, ptr addrspace(1) %a, i64 4
  %.0.1000030 = load atomic i32, ptr addrspace(1) %.0.1000029 syncscope("agent") monotonic, align 4
  br label %.0.b4
.0.b4:
  %.0.1000031 = phi i32 [ %.0.1000030, %.0.b3 ], [ %.0.1000052, %.0.b5 ]
  %.0.1000033 = lshr i32 %.0.1000031, 16
  %.0.1000034 = lshr i32 %x, 16
  %.0.1000035 = trunc i32 %.0.1000031 to i16
  %.0.1000036 = trunc i32 %x to i16
  %.0.1000037 = bitcast i16 %.0.1000036 to bfloat
  %.0.1000038 = bitcast i16 %.0.1000035 to bfloat
  %.0.1000161 = bitcast bfloat %.0.1000038 to i16
  %.0.1000162 = and i16 %.0.1000161, 32767
  %.0.1000163 = icmp ugt i16 %.0.1000162, 32640
  %.0.1000164 = lshr i16 %.0.1000161, 15
  %.0.1000165 = sub i16 0, %.0.1000164
  %.0.1000166 = or i16 %.0.1000165, 32768
  %.0.1000167 = xor i16 %.0.1000161, %.0.1000166
  %.0.1000168 = bitcast bfloat %.0.1000037 to i16
  %.0.1000169 = and i16 %.0.1000168, 32767
  %.0.1000170 = icmp ugt i16 %.0.1000169, 32640
  %.0.1000171 = lshr i16 %.0.1000168, 15
  %.0.1000172 = sub i16 0, %.0.1000171
  %.0.1000173 = or i16 %.0.1000172, 32768
  %.0.1000174 = xor i16 %.0.1000168, %.0.1000173
  %.0.1000175 = icmp ult i16 %.0.1000167, %.0.1000174
  %.0.1000176 = select i1 %.0.1000175, i16 %.0.1000168, i16 %.0.1000161
  %.0.1000177 = select i1 %.0.1000170, i16 %.0.1000161, i16 %.0.1000176
  %.0.1000178 = select i1 %.0.1000163, i16 %.0.1000168, i16 %.0.1000177
  %.0.1000179 = and i1 %.0.1000163, %.0.1000170
  %.0.1000181 = select i1 %.0.1000179, i16 32704, i16 %.0.1000178
  %.0.1000039 = bitcast i16 %.0.1000181 to bfloat
  %.0.1000040 = bitcast bfloat %.0.1000039 to i16
  %.0.1000041 = zext i16 %.0.1000040 to i32
  %.0.1000042 = trunc i32 %.0.1000033 to i16
  %.0.1000043 = trunc i32 %.0.1000034 to i16
  %.0.1000044 = bitcast i16 %.0.1000043 to bfloat
  %.0.1000045 = bitcast i16 %.0.1000042 to bfloat
  %.0.1000187 = bitcast bfloat %.0.1000045 to i16
  %.0.1000188 = and i16 %.0.1000187, 32767
  %.0.1000189 = icmp ugt i16 %.0.1000188, 32640
  %.0.1000190 = lshr i16 %.0.1000187, 15
  %.0.1000191 = sub i16 0, %.0.1000190
  %.0.1000192 = or i16 %.0.1000191, 32768
  %.0.1000193 = xor i16 %.0.1000187, %.0.1000192
  %.0.1000194 = bitcast bfloat %.0.1000044 to i16
  %.0.1000195 = and i16 %.0.1000194, 32767
  %.0.1000196 = icmp ugt i16 %.0.1000195, 32640
  %.0.1000197 = lshr i16 %.0.1000194, 15
  %.0.1000198 = sub i16 0, %.0.1000197
  %.0.1000199 = or i16 %.0.1000198, 32768
  %.0.1000200 = xor i16 %.0.1000194, %.0.1000199
  %.0.1000201 = icmp ult i16 %.0.1000193, %.0.1000200
  %.0.1000202 = select i1 %.0.1000201, i16 %.0.1000194, i16 %.0.1000187
  %.0.1000203 = select i1 %.0.1000196, i16 %.0.1000187, i16 %.0.1000202
  %.0.1000204 = select i1 %.0.1000189, i16 %.0.1000194, i16 %.0.1000203
  %.0.1000205 = and i1 %.0.1000189, %.0.1000196
  %.0.1000207 = select i1 %.0.1000205, i16 32704, i16 %.0.1000204
  %.0.1000046 = bitcast i16 %.0.1000207 to bfloat
  %.0.1000047 = bitcast bfloat %.0.1000046 to i16
  %.0.1000048 = zext i16 %.0.1000047 to i32
  %.0.1000049 = shl i32 %.0.1000048, 16
  %.0.1000050 = or i32 %.0.1000041, %.0.1000049
  %.0.1000051 = icmp eq i32 %.0.1000050, %.0.1000031
  br i1 %.0.1000051, label %.0.b6, label %.0.b5
.0.b5:
  %.0.2 = cmpxchg ptr addrspace(1) %.0.1000029, i32 %.0.1000031, i32 %.0.1000050 syncscope("agent") monotonic monotonic, align 4
  %.0.1000052 = extractvalue { i32, i1 } %.0.2, 0
  %.0.1000053 = icmp eq i32 %.0.1000052, %.0.1000031
  br i1 %.0.1000053, label %.0.b6, label %.0.b4
.0.b6:
  %.0.1000054 = getelementptr i8, ptr addrspace(1) %a, i64 8
  %.0.1000055 = load atomic i32, ptr addrspace(1) %.0.1000054 syncscope("agent") monotonic, align 4
  br label %.0.b7
.0.b7:
  %.0.1000056 = phi i32 [ %.0.1000055, %.0.b6 ], [ %.0.1000077, %.0.b8 ]
  %.0.1000058 = lshr i32 %.0.1000056, 16
  %.0.1000059 = lshr i32 %x, 16
  %.0.1000060 = trunc i32 %.0.1000056 to i16
  %.0.1000061 = trunc i32 %x to i16
  %.0.1000062 = bitcast i16 %.0.1000061 to bfloat
  %.0.1000063 = bitcast i16 %.0.1000060 to bfloat
  %.0.1000213 = bitcast bfloat %.0.1000063 to i16
  %.0.1000214 = and i16 %.0.1000213, 32767
  %.0.1000215 = icmp ugt i16 %.0.1000214, 32640
  %.0.1000216 = lshr i16 %.0.1000213, 15
  %.0.1000217 = sub i16 0, %.0.1000216
  %.0.1000218 = or i16 %.0.1000217, 32768
  %.0.1000219 = xor i16 %.0.1000213, %.0.1000218
  %.0.1000220 = bitcast bfloat %.0.1000062 to i16
  %.0.1000221 = and i16 %.0.1000220, 32767
  %.0.1000222 = icmp ugt i16 %.0.1000221, 32640
  %.0.1000223 = lshr i16 %.0.1000220, 15
  %.0.1000224 = sub i16 0, %.0.1000223
  %.0.1000225 = or i16 %.0.1000224, 32768
  %.0.1000226 = xor i16 %.0.1000220, %.0.1000225
  %.0.1000227 = icmp ult i16 %.0.1000219, %.0.1000226
  %.0.1000228 = select i1 %.0.1000227, i16 %.0.1000220, i16 %.0.1000213
  %.0.1000229 = select i1 %.0.1000222, i16 %.0.1000213, i16 %.0.1000228
  %.0.1000230 = select i1 %.0.1000215, i16 %.0.1000220, i16 %.0.1000229
  %.0.1000231 = and i1 %.0.1000215, %.0.1000222
  %.0.1000233 = select i1 %.0.1000231, i16 32704, i16 %.0.1000230
  %.0.1000064 = bitcast i16 %.0.1000233 to bfloat
  %.0.1000065 = bitcast bfloat %.0.1000064 to i16
  %.0.1000066 = zext i16 %.0.1000065 to i32
  %.0.1000067 = trunc i32 %.0.1000058 to i16
  %.0.1000068 = trunc i32 %.0.1000059 to i16
  %.0.1000069 = bitcast i16 %.0.1000068 to bfloat
  %.0.1000070 = bitcast i16 %.0.1000067 to bfloat
  %.0.1000239 = bitcast bfloat %.0.1000070 to i16
  %.0.1000240 = and i16 %.0.1000239, 32767
  %.0.1000241 = icmp ugt i16 %.0.1000240, 32640
  %.0.1000242 = lshr i16 %.0.1000239, 15
  %.0.1000243 = sub i16 0, %.0.1000242
  %.0.1000244 = or i16 %.0.1000243, 32768
  %.0.1000245 = xor i16 %.0.1000239, %.0.1000244
  %.0.1000246 = bitcast bfloat %.0.1000069 to i16
  %.0.1000247 = and i16 %.0.1000246, 32767
  %.0.1000248 = icmp ugt i16 %.0.1000247, 32640
  %.0.1000249 = lshr i16 %.0.1000246, 15
  %.0.1000250 = sub i16 0, %.0.1000249
  %.0.1000251 = or i16 %.0.1000250, 32768
  %.0.1000252 = xor i16 %.0.1000246, %.0.1000251
  %.0.1000253 = icmp ult i16 %.0.1000245, %.0.1000252
  %.0.1000254 = select i1 %.0.1000253, i16 %.0.1000246, i16 %.0.1000239
  %.0.1000255 = select i1 %.0.1000248, i16 %.0.1000239, i16 %.0.1000254
  %.0.1000256 = select i1 %.0.1000241, i16 %.0.1000246, i16 %.0.1000255
  %.0.1000257 = and i1 %.0.1000241, %.0.1000248
  %.0.1000259 = select i1 %.0.1000257, i16 32704, i16 %.0.1000256
  %.0.1000071 = bitcast i16 %.0.1000259 to bfloat
  %.0.1000072 = bitcast bfloat %.0.1000071 to i16
  %.0.1000073 = zext i16 %.0.1000072 to i32
  %.0.1000074 = shl i32 %.0.1000073, 16
  %.0.1000075 = or i32 %.0.1000066, %.0.1000074
  %.0.1000076 = icmp eq i32 %.0.1000075, %.0.1000056
  br i1 %.0.1000076, label %.0.b9, label %.0.b8
.0.b8:
  %.0.3 = cmpxchg ptr addrspace(1) %.0.1000054, i32 %.0.1000056, i32 %.0.1000075 syncscope("agent") monotonic monotonic, align 4
  %.0.1000077 = extractvalue { i32, i1 } %.0.3, 0
  %.0.1000078 = icmp eq i32 %.0.1000077, %.0.1000056
  br i1 %.0.1000078, label %.0.b9, label %.0.b7
.0.b9:
  %.0.1000079 = getelementptr i8, ptr addrspace(1) %a, i64 12
  %.0.1000080 = load atomic i32, ptr addrspace(1) %.0.1000079 syncscope("agent") monotonic, align 4
  br label %.0.b10
.0.b10:
  %.0.1000081 = phi i32 [ %.0.1000080, %.0.b9 ], [ %.0.1000102, %.0.b11 ]
  %.0.1000083 = lshr i32 %.0.1000081, 16
  %.0.1000084 = lshr i32 %x, 16
  %.0.1000085 = trunc i32 %.0.1000081 to i16
  %.0.1000086 = trunc i32 %x to i16
  %.0.1000087 = bitcast i16 %.0.1000086 to bfloat
  %.0.1000088 = bitcast i16 %.0.1000085 to bfloat
  %.0.1000265 = bitcast bfloat %.0.1000088 to i16
  %.0.1000266 = and i16 %.0.1000265, 32767
  %.0.1000267 = icmp ugt i16 %.0.1000266, 32640
  %.0.1000268 = lshr i16 %.0.1000265, 15
  %.0.1000269 = sub i16 0, %.0.1000268
  %.0.1000270 = or i16 %.0.1000269, 32768
  %.0.1000271 = xor i16 %.0.1000265, %.0.1000270
  %.0.1000272 = bitcast bfloat %.0.1000087 to i16
  %.0.1000273 = and i16 %.0.1000272, 32767
  %.0.1000274 = icmp ugt i16 %.0.1000273, 32640
  %.0.1000275 = lshr i16 %.0.1000272, 15
  %.0.1000276 = sub i16 0, %.0.1000275
  %.0.1000277 = or i16 %.0.1000276, 32768
  %.0.1000278 = xor i16 %.0.1000272, %.0.1000277
  %.0.1000279 = icmp ult i16 %.0.1000271, %.0.1000278
  %.0.1000280 = select i1 %.0.1000279, i16 %.0.1000272, i16 %.0.1000265
  %.0.1000281 = select i1 %.0.1000274, i16 %.0.1000265, i16 %.0.1000280
  %.0.1000282 = select i1 %.0.1000267, i16 %.0.1000272, i16 %.0.1000281
  %.0.1000283 = and i1 %.0.1000267, %.0.1000274
  %.0.1000285 = select i1 %.0.1000283, i16 32704, i16 %.0.1000282
  %.0.1000089 = bitcast i16 %.0.1000285 to bfloat
  %.0.1000090 = bitcast bfloat %.0.1000089 to i16
  %.0.1000091 = zext i16 %.0.1000090 to i32
  %.0.1000092 = trunc i32 %.0.1000083 to i16
  %.0.1000093 = trunc i32 %.0.1000084 to i16
  %.0.1000094 = bitcast i16 %.0.1000093 to bfloat
  %.0.1000095 = bitcast i16 %.0.1000092 to bfloat
  %.0.1000291 = bitcast bfloat %.0.1000095 to i16
  %.0.1000292 = and i16 %.0.1000291, 32767
  %.0.1000293 = icmp ugt i16 %.0.1000292, 32640
  %.0.1000294 = lshr i16 %.0.1000291, 15
  %.0.1000295 = sub i16 0, %.0.1000294
  %.0.1000296 = or i16 %.0.1000295, 32768
  %.0.1000297 = xor i16 %.0.1000291, %.0.1000296
  %.0.1000298 = bitcast bfloat %.0.1000094 to i16
  %.0.1000299 = and i16 %.0.1000298, 32767
  %.0.1000300 = icmp ugt i16 %.0.1000299, 32640
  %.0.1000301 = lshr i16 %.0.1000298, 15
  %.0.1000302 = sub i16 0, %.0.1000301
  %.0.1000303 = or i16 %.0.1000302, 32768
  %.0.1000304 = xor i16 %.0.1000298, %.0.1000303
  %.0.1000305 = icmp ult i16 %.0.1000297, %.0.1000304
  %.0.1000306 = select i1 %.0.1000305, i16 %.0.1000298, i16 %.0.1000291
  %.0.1000307 = select i1 %.0.1000300, i16 %.0.1000291, i16 %.0.1000306
  %.0.1000308 = select i1 %.0.1000293, i16 %.0.1000298, i16 %.0.1000307
  %.0.1000309 = and i1 %.0.1000293, %.0.1000300
  %.0.1000311 = select i1 %.0.1000309, i16 32704, i16 %.0.1000308
  %.0.1000096 = bitcast i16 %.0.1000311 to bfloat
  %.0.1000097 = bitcast bfloat %.0.1000096 to i16
  %.0.1000098 = zext i16 %.0.1000097 to i32
  %.0.1000099 = shl i32 %.0.1000098, 16
  %.0.1000100 = or i32 %.0.1000091, %.0.1000099
  %.0.1000101 = icmp eq i32 %.0.1000100, %.0.1000081
  br i1 %.0.1000101, label %.0.b12, label %.0.b11
.0.b11:
  %.0.4 = cmpxchg ptr addrspace(1) %.0.1000079, i32 %.0.1000081, i32 %.0.1000100 syncscope("agent") monotonic monotonic, align 4
  %.0.1000102 = extractvalue { i32, i1 } %.0.4, 0
  %.0.1000103 = icmp eq i32 %.0.1000102, %.0.1000081
  br i1 %.0.1000103, label %.0.b12, label %.0.b10
.0.b12:
  %.0.5 = insertelement <4 x i32> poison, i32 %.0.1000006, i32 0
  %.0.6 = insertelement <4 x i32> %.0.5, i32 %.0.1000031, i32 1
  %.0.7 = insertelement <4 x i32> %.0.6, i32 %.0.1000056, i32 2
  %.0.8 = insertelement <4 x i32> %.0.7, i32 %.0.1000081, i32 3
  br label %.0.end
.0.end:
  store <4 x i32> %.0.8, ptr addrspace(1) %.out0
  ret void
}

define amdgpu_kernel void @inc_all_ones_bound(ptr addrspace(1) %a, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = atomicrmw uinc_wrap ptr addrspace(1) %a, i32 4294967295 syncscope("agent") monotonic, align 4
  br label %.0.end
.0.end:
  store i32 %.0.1000002, ptr addrspace(1) %.out0
  ret void
}

define amdgpu_kernel void @predicated_with_hint(ptr addrspace(1) %a, i32 %x, i1 %p, ptr addrspace(1) %.out0) {
.entry:
  br i1 %p, label %.0.b0, label %.0.end
.0.b0:
  %.0.1000002 = atomicrmw add ptr addrspace(1) %a, i32 %x syncscope("agent") monotonic, align 4
  br label %.0.end
.0.end:
  %.0.1 = phi i32 [ %.0.1000002, %.0.b0 ], [ zeroinitializer, %.entry ]
  br i1 %p, label %.1.end, label %.1.b0
.1.b0:
  %.1.1000002 = atomicrmw and ptr addrspace(1) %a, i32 %x syncscope("agent") monotonic, align 4
  br label %.1.end
.1.end:
  store i32 %.0.1, ptr addrspace(1) %.out0
  ret void
}

