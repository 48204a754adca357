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
  %.0.1000010 = phi i32 [ %.0.1000009, %.0.b0 ], [ %.0.1000020, %.0.b2 ]
  %.0.1000012 = lshr i32 %.0.1000010, %.0.1000005
  %.0.1000013 = trunc i32 %.0.1000012 to i16
  %.0.6 = icmp ugt i16 %.0.1000013, %x
  %.0.1000014 = select i1 %.0.6, i16 %.0.1000013, i16 %x
  %.0.1000015 = zext i16 %.0.1000014 to i32
  %.0.1000016 = shl i32 %.0.1000015, %.0.1000005
  %.0.1000017 = and i32 %.0.1000010, %.0.1000008
  %.0.1000018 = or i32 %.0.1000017, %.0.1000016
  %.0.1000019 = icmp eq i32 %.0.1000018, %.0.1000010
  br i1 %.0.1000019, label %.0.b3, label %.0.b2
.0.b2:
  %.0.7 = cmpxchg ptr addrspace(3) %.0.1000002, i32 %.0.1000010, i32 %.0.1000018 syncscope("block") monotonic monotonic, align 4
  %.0.1000020 = extractvalue { i32, i1 } %.0.7, 0
  %.0.1000021 = icmp eq i32 %.0.1000020, %.0.1000010
  br i1 %.0.1000021, label %.0.b3, label %.0.b1
.0.b3:
  %.0.1000011 = phi i32 [ %.0.1000010, %.0.b1 ], [ %.0.1000020, %.0.b2 ]
  %.0.1000022 = lshr i32 %.0.1000011, %.0.1000005
  %.0.1000023 = trunc i32 %.0.1000022 to i16
  br label %.0.end
.0.end:
  store i16 %.0.1000023, ptr addrspace(1) %.out0
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
  %.0.1000011 = phi i32 [ %.0.1000010, %.0.b0 ], [ %.0.1000022, %.0.b2 ]
  %.0.1000013 = lshr i32 %.0.1000011, %.0.1000006
  %.0.1000014 = trunc i32 %.0.1000013 to i16
  %.0.1000015 = icmp eq i16 %.0.1000014, %expected
  %.0.1000016 = select i1 %.0.1000015, i16 %new, i16 %.0.1000014
  %.0.1000017 = zext i16 %.0.1000016 to i32
  %.0.1000018 = shl i32 %.0.1000017, %.0.1000006
  %.0.1000019 = and i32 %.0.1000011, %.0.1000009
  %.0.1000020 = or i32 %.0.1000019, %.0.1000018
  %.0.1000021 = icmp eq i32 %.0.1000020, %.0.1000011
  br i1 %.0.1000021, label %.0.b3, label %.0.b2
.0.b2:
  %.0.6 = cmpxchg ptr addrspace(1) %.0.1000003, i32 %.0.1000011, i32 %.0.1000020 syncscope("device") monotonic monotonic, align 4
  %.0.1000022 = extractvalue { i32, i1 } %.0.6, 0
  %.0.1000023 = icmp eq i32 %.0.1000022, %.0.1000011
  br i1 %.0.1000023, label %.0.b3, label %.0.b1
.0.b3:
  %.0.1000012 = phi i32 [ %.0.1000011, %.0.b1 ], [ %.0.1000022, %.0.b2 ]
  %.0.1000024 = lshr i32 %.0.1000012, %.0.1000006
  %.0.1000025 = trunc i32 %.0.1000024 to i16
  br label %.0.end
.0.end:
  store i16 %.0.1000025, ptr addrspace(1) %.out0
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
  %.0.1000002 = load atomic i32, ptr addrspace(1) %a syncscope("device") monotonic, align 4
  br label %.0.b1
.0.b1:
  %.0.1000003 = phi i32 [ %.0.1000002, %.0.b0 ], [ %.0.1000009, %.0.b2 ]
  %.0.1000005 = bitcast i32 %.0.1000003 to float
  %.0.1 = fcmp uno float %.0.1000005, %.0.1000005
  %.0.2 = fcmp uno float %x, %x
  %.0.3 = fcmp olt float %.0.1000005, %x
  %.0.4 = fcmp olt float %x, %.0.1000005
  %.0.5 = bitcast float %.0.1000005 to i32
  %.0.6 = bitcast float %x to i32
  %.0.7 = or i32 %.0.5, %.0.6
  %.0.8 = bitcast i32 %.0.7 to float
  %.0.9 = select i1 %.0.4, float %x, float %.0.8
  %.0.10 = select i1 %.0.3, float %.0.1000005, float %.0.9
  %.0.11 = select i1 %.0.2, float %.0.1000005, float %.0.10
  %.0.12 = select i1 %.0.2, float 0x7FF8000000000000, float %x
  %.0.1000006 = select i1 %.0.1, float %.0.12, float %.0.11
  %.0.1000007 = bitcast float %.0.1000006 to i32
  %.0.1000008 = icmp eq i32 %.0.1000007, %.0.1000003
  br i1 %.0.1000008, label %.0.b3, label %.0.b2
.0.b2:
  %.0.13 = cmpxchg ptr addrspace(1) %a, i32 %.0.1000003, i32 %.0.1000007 syncscope("device") monotonic monotonic, align 4
  %.0.1000009 = extractvalue { i32, i1 } %.0.13, 0
  %.0.1000010 = icmp eq i32 %.0.1000009, %.0.1000003
  br i1 %.0.1000010, label %.0.b3, label %.0.b1
.0.b3:
  %.0.1000004 = phi i32 [ %.0.1000003, %.0.b1 ], [ %.0.1000009, %.0.b2 ]
  %.0.1000011 = bitcast i32 %.0.1000004 to float
  br label %.0.end
.0.end:
  store float %.0.1000011, ptr addrspace(1) %.out0
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
  %.0.1 = fcmp uno bfloat %.0.1000014, %.0.1000014
  %.0.2 = fcmp uno bfloat %.0.1000013, %.0.1000013
  %.0.3 = fcmp olt bfloat %.0.1000013, %.0.1000014
  %.0.4 = fcmp olt bfloat %.0.1000014, %.0.1000013
  %.0.5 = bitcast bfloat %.0.1000014 to i16
  %.0.6 = bitcast bfloat %.0.1000013 to i16
  %.0.7 = and i16 %.0.5, %.0.6
  %.0.8 = bitcast i16 %.0.7 to bfloat
  %.0.9 = select i1 %.0.4, bfloat %.0.1000013, bfloat %.0.8
  %.0.10 = select i1 %.0.3, bfloat %.0.1000014, bfloat %.0.9
  %.0.11 = select i1 %.0.2, bfloat %.0.1000014, bfloat %.0.10
  %.0.12 = select i1 %.0.2, bfloat 0xR7FC0, bfloat %.0.1000013
  %.0.1000015 = select i1 %.0.1, bfloat %.0.12, bfloat %.0.11
  %.0.1000016 = bitcast bfloat %.0.1000015 to i16
  %.0.1000017 = zext i16 %.0.1000016 to i32
  %.0.1000018 = trunc i32 %.0.1000009 to i16
  %.0.1000019 = trunc i32 %.0.1000010 to i16
  %.0.1000020 = bitcast i16 %.0.1000019 to bfloat
  %.0.1000021 = bitcast i16 %.0.1000018 to bfloat
  %.0.13 = fcmp uno bfloat %.0.1000021, %.0.1000021
  %.0.14 = fcmp uno bfloat %.0.1000020, %.0.1000020
  %.0.15 = fcmp olt bfloat %.0.1000020, %.0.1000021
  %.0.16 = fcmp olt bfloat %.0.1000021, %.0.1000020
  %.0.17 = bitcast bfloat %.0.1000021 to i16
  %.0.18 = bitcast bfloat %.0.1000020 to i16
  %.0.19 = and i16 %.0.17, %.0.18
  %.0.20 = bitcast i16 %.0.19 to bfloat
  %.0.21 = select i1 %.0.16, bfloat %.0.1000020, bfloat %.0.20
  %.0.22 = select i1 %.0.15, bfloat %.0.1000021, bfloat %.0.21
  %.0.23 = select i1 %.0.14, bfloat %.0.1000021, bfloat %.0.22
  %.0.24 = select i1 %.0.14, bfloat 0xR7FC0, bfloat %.0.1000020
  %.0.1000022 = select i1 %.0.13, bfloat %.0.24, bfloat %.0.23
  %.0.1000023 = bitcast bfloat %.0.1000022 to i16
  %.0.1000024 = zext i16 %.0.1000023 to i32
  %.0.1000025 = shl i32 %.0.1000024, 16
  %.0.1000026 = or i32 %.0.1000017, %.0.1000025
  %.0.1000027 = icmp eq i32 %.0.1000026, %.0.1000006
  br i1 %.0.1000027, label %.0.b3, label %.0.b2
.0.b2:
  %.0.25 = cmpxchg ptr addrspace(1) %a, i32 %.0.1000006, i32 %.0.1000026 syncscope("device") monotonic monotonic, align 4
  %.0.1000028 = extractvalue { i32, i1 } %.0.25, 0
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
  %.0.26 = fcmp uno bfloat %.0.1000040, %.0.1000040
  %.0.27 = fcmp uno bfloat %.0.1000039, %.0.1000039
  %.0.28 = fcmp olt bfloat %.0.1000039, %.0.1000040
  %.0.29 = fcmp olt bfloat %.0.1000040, %.0.1000039
  %.0.30 = bitcast bfloat %.0.1000040 to i16
  %.0.31 = bitcast bfloat %.0.1000039 to i16
  %.0.32 = and i16 %.0.30, %.0.31
  %.0.33 = bitcast i16 %.0.32 to bfloat
  %.0.34 = select i1 %.0.29, bfloat %.0.1000039, bfloat %.0.33
  %.0.35 = select i1 %.0.28, bfloat %.0.1000040, bfloat %.0.34
  %.0.36 = select i1 %.0.27, bfloat %.0.1000040, bfloat %.0.35
  %.0.37 = select i1 %.0.27, bfloat 0xR7FC0, bfloat %.0.1000039
  %.0.1000041 = select i1 %.0.26, bfloat %.0.37, bfloat %.0.36
  %.0.1000042 = bitcast bfloat %.0.1000041 to i16
  %.0.1000043 = zext i16 %.0.1000042 to i32
  %.0.1000044 = trunc i32 %.0.1000035 to i16
  %.0.1000045 = trunc i32 %.0.1000036 to i16
  %.0.1000046 = bitcast i16 %.0.1000045 to bfloat
  %.0.1000047 = bitcast i16 %.0.1000044 to bfloat
  %.0.38 = fcmp uno bfloat %.0.1000047, %.0.1000047
  %.0.39 = fcmp uno bfloat %.0.1000046, %.0.1000046
  %.0.40 = fcmp olt bfloat %.0.1000046, %.0.1000047
  %.0.41 = fcmp olt bfloat %.0.1000047, %.0.1000046
  %.0.42 = bitcast bfloat %.0.1000047 to i16
  %.0.43 = bitcast bfloat %.0.1000046 to i16
  %.0.44 = and i16 %.0.42, %.0.43
  %.0.45 = bitcast i16 %.0.44 to bfloat
  %.0.46 = select i1 %.0.41, bfloat %.0.1000046, bfloat %.0.45
  %.0.47 = select i1 %.0.40, bfloat %.0.1000047, bfloat %.0.46
  %.0.48 = select i1 %.0.39, bfloat %.0.1000047, bfloat %.0.47
  %.0.49 = select i1 %.0.39, bfloat 0xR7FC0, bfloat %.0.1000046
  %.0.1000048 = select i1 %.0.38, bfloat %.0.49, bfloat %.0.48
  %.0.1000049 = bitcast bfloat %.0.1000048 to i16
  %.0.1000050 = zext i16 %.0.1000049 to i32
  %.0.1000051 = shl i32 %.0.1000050, 16
  %.0.1000052 = or i32 %.0.1000043, %.0.1000051
  %.0.1000053 = icmp eq i32 %.0.1000052, %.0.1000032
  br i1 %.0.1000053, label %.0.b6, label %.0.b5
.0.b5:
  %.0.50 = cmpxchg ptr addrspace(1) %.0.1000030, i32 %.0.1000032, i32 %.0.1000052 syncscope("device") monotonic monotonic, align 4
  %.0.1000054 = extractvalue { i32, i1 } %.0.50, 0
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
  %.0.51 = fcmp uno bfloat %.0.1000066, %.0.1000066
  %.0.52 = fcmp uno bfloat %.0.1000065, %.0.1000065
  %.0.53 = fcmp olt bfloat %.0.1000065, %.0.1000066
  %.0.54 = fcmp olt bfloat %.0.1000066, %.0.1000065
  %.0.55 = bitcast bfloat %.0.1000066 to i16
  %.0.56 = bitcast bfloat %.0.1000065 to i16
  %.0.57 = and i16 %.0.55, %.0.56
  %.0.58 = bitcast i16 %.0.57 to bfloat
  %.0.59 = select i1 %.0.54, bfloat %.0.1000065, bfloat %.0.58
  %.0.60 = select i1 %.0.53, bfloat %.0.1000066, bfloat %.0.59
  %.0.61 = select i1 %.0.52, bfloat %.0.1000066, bfloat %.0.60
  %.0.62 = select i1 %.0.52, bfloat 0xR7FC0, bfloat %.0.1000065
  %.0.1000067 = select i1 %.0.51, bfloat %.0.62, bfloat %.0.61
  %.0.1000068 = bitcast bfloat %.0.1000067 to i16
  %.0.1000069 = zext i16 %.0.1000068 to i32
  %.0.1000070 = trunc i32 %.0.1000061 to i16
  %.0.1000071 = trunc i32 %.0.1000062 to i16
  %.0.1000072 = bitcast i16 %.0.1000071 to bfloat
  %.0.1000073 = bitcast i16 %.0.1000070 to bfloat
  %.0.63 = fcmp uno bfloat %.0.1000073, %.0.1000073
  %.0.64 = fcmp uno bfloat %.0.1000072, %.0.1000072
  %.0.65 = fcmp olt bfloat %.0.1000072, %.0.1000073
  %.0.66 = fcmp olt bfloat %.0.1000073, %.0.1000072
  %.0.67 = bitcast bfloat %.0.1000073 to i16
  %.0.68 = bitcast bfloat %.0.1000072 to i16
  %.0.69 = and i16 %.0.67, %.0.68
  %.0.70 = bitcast i16 %.0.69 to bfloat
  %.0.71 = select i1 %.0.66, bfloat %.0.1000072, bfloat %.0.70
  %.0.72 = select i1 %.0.65, bfloat %.0.1000073, bfloat %.0.71
  %.0.73 = select i1 %.0.64, bfloat %.0.1000073, bfloat %.0.72
  %.0.74 = select i1 %.0.64, bfloat 0xR7FC0, bfloat %.0.1000072
  %.0.1000074 = select i1 %.0.63, bfloat %.0.74, bfloat %.0.73
  %.0.1000075 = bitcast bfloat %.0.1000074 to i16
  %.0.1000076 = zext i16 %.0.1000075 to i32
  %.0.1000077 = shl i32 %.0.1000076, 16
  %.0.1000078 = or i32 %.0.1000069, %.0.1000077
  %.0.1000079 = icmp eq i32 %.0.1000078, %.0.1000058
  br i1 %.0.1000079, label %.0.b9, label %.0.b8
.0.b8:
  %.0.75 = cmpxchg ptr addrspace(1) %.0.1000056, i32 %.0.1000058, i32 %.0.1000078 syncscope("device") monotonic monotonic, align 4
  %.0.1000080 = extractvalue { i32, i1 } %.0.75, 0
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
  %.0.76 = fcmp uno bfloat %.0.1000092, %.0.1000092
  %.0.77 = fcmp uno bfloat %.0.1000091, %.0.1000091
  %.0.78 = fcmp olt bfloat %.0.1000091, %.0.1000092
  %.0.79 = fcmp olt bfloat %.0.1000092, %.0.1000091
  %.0.80 = bitcast bfloat %.0.1000092 to i16
  %.0.81 = bitcast bfloat %.0.1000091 to i16
  %.0.82 = and i16 %.0.80, %.0.81
  %.0.83 = bitcast i16 %.0.82 to bfloat
  %.0.84 = select i1 %.0.79, bfloat %.0.1000091, bfloat %.0.83
  %.0.85 = select i1 %.0.78, bfloat %.0.1000092, bfloat %.0.84
  %.0.86 = select i1 %.0.77, bfloat %.0.1000092, bfloat %.0.85
  %.0.87 = select i1 %.0.77, bfloat 0xR7FC0, bfloat %.0.1000091
  %.0.1000093 = select i1 %.0.76, bfloat %.0.87, bfloat %.0.86
  %.0.1000094 = bitcast bfloat %.0.1000093 to i16
  %.0.1000095 = zext i16 %.0.1000094 to i32
  %.0.1000096 = trunc i32 %.0.1000087 to i16
  %.0.1000097 = trunc i32 %.0.1000088 to i16
  %.0.1000098 = bitcast i16 %.0.1000097 to bfloat
  %.0.1000099 = bitcast i16 %.0.1000096 to bfloat
  %.0.88 = fcmp uno bfloat %.0.1000099, %.0.1000099
  %.0.89 = fcmp uno bfloat %.0.1000098, %.0.1000098
  %.0.90 = fcmp olt bfloat %.0.1000098, %.0.1000099
  %.0.91 = fcmp olt bfloat %.0.1000099, %.0.1000098
  %.0.92 = bitcast bfloat %.0.1000099 to i16
  %.0.93 = bitcast bfloat %.0.1000098 to i16
  %.0.94 = and i16 %.0.92, %.0.93
  %.0.95 = bitcast i16 %.0.94 to bfloat
  %.0.96 = select i1 %.0.91, bfloat %.0.1000098, bfloat %.0.95
  %.0.97 = select i1 %.0.90, bfloat %.0.1000099, bfloat %.0.96
  %.0.98 = select i1 %.0.89, bfloat %.0.1000099, bfloat %.0.97
  %.0.99 = select i1 %.0.89, bfloat 0xR7FC0, bfloat %.0.1000098
  %.0.1000100 = select i1 %.0.88, bfloat %.0.99, bfloat %.0.98
  %.0.1000101 = bitcast bfloat %.0.1000100 to i16
  %.0.1000102 = zext i16 %.0.1000101 to i32
  %.0.1000103 = shl i32 %.0.1000102, 16
  %.0.1000104 = or i32 %.0.1000095, %.0.1000103
  %.0.1000105 = icmp eq i32 %.0.1000104, %.0.1000084
  br i1 %.0.1000105, label %.0.b12, label %.0.b11
.0.b11:
  %.0.100 = cmpxchg ptr addrspace(1) %.0.1000082, i32 %.0.1000084, i32 %.0.1000104 syncscope("device") monotonic monotonic, align 4
  %.0.1000106 = extractvalue { i32, i1 } %.0.100, 0
  %.0.1000107 = icmp eq i32 %.0.1000106, %.0.1000084
  br i1 %.0.1000107, label %.0.b12, label %.0.b10
.0.b12:
  %.0.1000085 = phi i32 [ %.0.1000084, %.0.b10 ], [ %.0.1000106, %.0.b11 ]
  %.0.101 = insertelement <4 x i32> poison, i32 %.0.1000007, i32 0
  %.0.102 = insertelement <4 x i32> %.0.101, i32 %.0.1000033, i32 1
  %.0.103 = insertelement <4 x i32> %.0.102, i32 %.0.1000059, i32 2
  %.0.104 = insertelement <4 x i32> %.0.103, i32 %.0.1000085, i32 3
  br label %.0.end
.0.end:
  store <4 x i32> %.0.104, ptr addrspace(1) %.out0
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

