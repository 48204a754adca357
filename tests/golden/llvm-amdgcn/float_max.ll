; llc -mtriple=amdgcn-amd-amdhsa -mcpu=gfx942
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @amax(ptr addrspace(3) %block_max, ptr addrspace(1) %amax, float %x, float %partial) {
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
  %.0.1000010 = atomicrmw max ptr addrspace(3) %block_max, i32 %.0.1000002 syncscope("workgroup") monotonic, align 4
  br label %.0.b4
.0.b3:
  %.0.1000011 = atomicrmw umin ptr addrspace(3) %block_max, i32 %.0.1000002 syncscope("workgroup") monotonic, align 4
  br label %.0.b4
.0.b4:
  %.0.1000008 = phi i32 [ %.0.1000010, %.0.b2 ], [ %.0.1000011, %.0.b3 ]
  %.0.1000012 = icmp ugt i32 %.0.1000008, 2139095040
  %.0.1000013 = icmp ult i32 %.0.1000008, 2147483648
  %.0.1000014 = and i1 %.0.1000012, %.0.1000013
  br i1 %.0.1000014, label %.0.b5, label %.0.b9
.0.b5:
  %.0.1000015 = load atomic i32, ptr addrspace(3) %block_max syncscope("workgroup") monotonic, align 4
  br label %.0.b6
.0.b6:
  %.0.1000016 = phi i32 [ %.0.1000015, %.0.b5 ], [ %.0.1000021, %.0.b7 ]
  %.0.1000017 = bitcast i32 %.0.1000016 to float
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
  %.0.1000045 = select i1 %.0.1000044, i32 %.0.1000037, i32 %.0.1000030
  %.0.1000046 = select i1 %.0.1000039, i32 %.0.1000030, i32 %.0.1000045
  %.0.1000047 = select i1 %.0.1000032, i32 %.0.1000037, i32 %.0.1000046
  %.0.1000048 = and i1 %.0.1000032, %.0.1000039
  %.0.1000050 = select i1 %.0.1000048, i32 2143289344, i32 %.0.1000047
  %.0.1000018 = bitcast i32 %.0.1000050 to float
  %.0.1000019 = bitcast float %.0.1000018 to i32
  %.0.1000020 = icmp eq i32 %.0.1000019, %.0.1000016
  br i1 %.0.1000020, label %.0.b8, label %.0.b7
.0.b7:
  %.0.1 = cmpxchg ptr addrspace(3) %block_max, i32 %.0.1000016, i32 %.0.1000019 syncscope("workgroup") monotonic monotonic, align 4
  %.0.1000021 = extractvalue { i32, i1 } %.0.1, 0
  %.0.1000022 = icmp eq i32 %.0.1000021, %.0.1000016
  br i1 %.0.1000022, label %.0.b8, label %.0.b6
.0.b8:
  br label %.0.b9
.0.b9:
  %.0.1000023 = phi i32 [ %.0.1000008, %.0.b4 ], [ %.0.1000016, %.0.b8 ]
  %.0.1000024 = bitcast i32 %.0.1000023 to float
  br label %.0.end
.0.end:
  br label %.1.b0
.1.b0:
  %.1.1000002 = bitcast float %partial to i32
  %.1.1000006 = and i32 %.1.1000002, 2147483647
  %.1.1000007 = icmp ugt i32 %.1.1000006, 2139095040
  br i1 %.1.1000007, label %.1.b5, label %.1.b1
.1.b1:
  %.1.1000009 = icmp uge i32 %.1.1000002, 2147483648
  br i1 %.1.1000009, label %.1.b3, label %.1.b2
.1.b2:
  %.1.1000010 = atomicrmw max ptr addrspace(1) %amax, i32 %.1.1000002 syncscope("agent") monotonic, align 4
  br label %.1.b4
.1.b3:
  %.1.1000011 = atomicrmw umin ptr addrspace(1) %amax, i32 %.1.1000002 syncscope("agent") monotonic, align 4
  br label %.1.b4
.1.b4:
  %.1.1000008 = phi i32 [ %.1.1000010, %.1.b2 ], [ %.1.1000011, %.1.b3 ]
  %.1.1000012 = icmp ugt i32 %.1.1000008, 2139095040
  %.1.1000013 = icmp ult i32 %.1.1000008, 2147483648
  %.1.1000014 = and i1 %.1.1000012, %.1.1000013
  br i1 %.1.1000014, label %.1.b5, label %.1.b9
.1.b5:
  %.1.1000015 = load atomic i32, ptr addrspace(1) %amax syncscope("agent") monotonic, align 4
  br label %.1.b6
.1.b6:
  %.1.1000016 = phi i32 [ %.1.1000015, %.1.b5 ], [ %.1.1000021, %.1.b7 ]
  %.1.1000017 = bitcast i32 %.1.1000016 to float
  %.1.1000030 = bitcast float %.1.1000017 to i32
  %.1.1000031 = and i32 %.1.1000030, 2147483647
  %.1.1000032 = icmp ugt i32 %.1.1000031, 2139095040
  %.1.1000033 = lshr i32 %.1.1000030, 31
  %.1.1000034 = sub i32 0, %.1.1000033
  %.1.1000035 = or i32 %.1.1000034, 2147483648
  %.1.1000036 = xor i32 %.1.1000030, %.1.1000035
  %.1.1000037 = bitcast float %partial to i32
  %.1.1000038 = and i32 %.1.1000037, 2147483647
  %.1.1000039 = icmp ugt i32 %.1.1000038, 2139095040
  %.1.1000040 = lshr i32 %.1.1000037, 31
  %.1.1000041 = sub i32 0, %.1.1000040
  %.1.1000042 = or i32 %.1.1000041, 2147483648
  %.1.1000043 = xor i32 %.1.1000037, %.1.1000042
  %.1.1000044 = icmp ult i32 %.1.1000036, %.1.1000043
  %.1.1000045 = select i1 %.1.1000044, i32 %.1.1000037, i32 %.1.1000030
  %.1.1000046 = select i1 %.1.1000039, i32 %.1.1000030, i32 %.1.1000045
  %.1.1000047 = select i1 %.1.1000032, i32 %.1.1000037, i32 %.1.1000046
  %.1.1000048 = and i1 %.1.1000032, %.1.1000039
  %.1.1000050 = select i1 %.1.1000048, i32 2143289344, i32 %.1.1000047
  %.1.1000018 = bitcast i32 %.1.1000050 to float
  %.1.1000019 = bitcast float %.1.1000018 to i32
  %.1.1000020 = icmp eq i32 %.1.1000019, %.1.1000016
  br i1 %.1.1000020, label %.1.b8, label %.1.b7
.1.b7:
  %.1.1 = cmpxchg ptr addrspace(1) %amax, i32 %.1.1000016, i32 %.1.1000019 syncscope("agent") monotonic monotonic, align 4
  %.1.1000021 = extractvalue { i32, i1 } %.1.1, 0
  %.1.1000022 = icmp eq i32 %.1.1000021, %.1.1000016
  br i1 %.1.1000022, label %.1.b8, label %.1.b6
.1.b8:
  br label %.1.b9
.1.b9:
  %.1.1000023 = phi i32 [ %.1.1000008, %.1.b4 ], [ %.1.1000016, %.1.b8 ]
  %.1.1000024 = bitcast i32 %.1.1000023 to float
  br label %.1.end
.1.end:
  ret void
}

define amdgpu_kernel void @residual_max(ptr addrspace(1) %norm, double %r, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = bitcast double %r to i64
  %.0.1000006 = and i64 %.0.1000002, 9223372036854775807
  %.0.1000007 = icmp ugt i64 %.0.1000006, 9218868437227405312
  br i1 %.0.1000007, label %.0.b5, label %.0.b1
.0.b1:
  %.0.1000009 = icmp uge i64 %.0.1000002, 9223372036854775808
  br i1 %.0.1000009, label %.0.b3, label %.0.b2
.0.b2:
  %.0.1000010 = atomicrmw max ptr addrspace(1) %norm, i64 %.0.1000002 syncscope("agent") monotonic, align 8
  br label %.0.b4
.0.b3:
  %.0.1000011 = atomicrmw umin ptr addrspace(1) %norm, i64 %.0.1000002 syncscope("agent") monotonic, align 8
  br label %.0.b4
.0.b4:
  %.0.1000008 = phi i64 [ %.0.1000010, %.0.b2 ], [ %.0.1000011, %.0.b3 ]
  %.0.1000012 = icmp ugt i64 %.0.1000008, 9218868437227405312
  %.0.1000013 = icmp ult i64 %.0.1000008, 9223372036854775808
  %.0.1000014 = and i1 %.0.1000012, %.0.1000013
  br i1 %.0.1000014, label %.0.b5, label %.0.b9
.0.b5:
  %.0.1000015 = load atomic i64, ptr addrspace(1) %norm syncscope("agent") monotonic, align 8
  br label %.0.b6
.0.b6:
  %.0.1000016 = phi i64 [ %.0.1000015, %.0.b5 ], [ %.0.1000021, %.0.b7 ]
  %.0.1000017 = bitcast i64 %.0.1000016 to double
  %.0.1000030 = bitcast double %.0.1000017 to i64
  %.0.1000031 = and i64 %.0.1000030, 9223372036854775807
  %.0.1000032 = icmp ugt i64 %.0.1000031, 9218868437227405312
  %.0.1000033 = lshr i64 %.0.1000030, 63
  %.0.1000034 = sub i64 0, %.0.1000033
  %.0.1000035 = or i64 %.0.1000034, 9223372036854775808
  %.0.1000036 = xor i64 %.0.1000030, %.0.1000035
  %.0.1000037 = bitcast double %r to i64
  %.0.1000038 = and i64 %.0.1000037, 9223372036854775807
  %.0.1000039 = icmp ugt i64 %.0.1000038, 9218868437227405312
  %.0.1000040 = lshr i64 %.0.1000037, 63
  %.0.1000041 = sub i64 0, %.0.1000040
  %.0.1000042 = or i64 %.0.1000041, 9223372036854775808
  %.0.1000043 = xor i64 %.0.1000037, %.0.1000042
  %.0.1000044 = icmp ult i64 %.0.1000036, %.0.1000043
  %.0.1000045 = select i1 %.0.1000044, i64 %.0.1000037, i64 %.0.1000030
  %.0.1000046 = select i1 %.0.1000039, i64 %.0.1000030, i64 %.0.1000045
  %.0.1000047 = select i1 %.0.1000032, i64 %.0.1000037, i64 %.0.1000046
  %.0.1000048 = and i1 %.0.1000032, %.0.1000039
  %.0.1000050 = select i1 %.0.1000048, i64 9221120237041090560, i64 %.0.1000047
  %.0.1000018 = bitcast i64 %.0.1000050 to double
  %.0.1000019 = bitcast double %.0.1000018 to i64
  %.0.1000020 = icmp eq i64 %.0.1000019, %.0.1000016
  br i1 %.0.1000020, label %.0.b8, label %.0.b7
.0.b7:
  %.0.1 = cmpxchg ptr addrspace(1) %norm, i64 %.0.1000016, i64 %.0.1000019 syncscope("agent") monotonic monotonic, align 8
  %.0.1000021 = extractvalue { i64, i1 } %.0.1, 0
  %.0.1000022 = icmp eq i64 %.0.1000021, %.0.1000016
  br i1 %.0.1000022, label %.0.b8, label %.0.b6
.0.b8:
  br label %.0.b9
.0.b9:
  %.0.1000023 = phi i64 [ %.0.1000008, %.0.b4 ], [ %.0.1000016, %.0.b8 ]
  %.0.1000024 = bitcast i64 %.0.1000023 to double
  br label %.0.end
.0.end:
  store double %.0.1000024, ptr addrspace(1) %.out0
  ret void
}

