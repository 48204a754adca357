; llc -march=nvptx64 -mcpu=sm_90 -mattr=+ptx87
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @grad_accum(ptr addrspace(1) %grad, ptr addrspace(1) %grad_bf16, ptr addrspace(1) %master, i32 %g2, i32 %gb2, half %g0, half %g1, half %g2a, half %g3, half %g4, half %g5, half %g6, half %g7, float %w0, float %w1, float %w2, float %w3) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = load atomic i32, ptr addrspace(1) %grad syncscope("device") monotonic, align 4
  br label %.0.b1
.0.b1:
  %.0.1000003 = phi i32 [ %.0.1000002, %.0.b0 ], [ %.0.1000024, %.0.b2 ]
  %.0.1000005 = lshr i32 %.0.1000003, 16
  %.0.1000006 = lshr i32 %g2, 16
  %.0.1000007 = trunc i32 %.0.1000003 to i16
  %.0.1000008 = trunc i32 %g2 to i16
  %.0.1000009 = bitcast i16 %.0.1000008 to half
  %.0.1000010 = bitcast i16 %.0.1000007 to half
  %.0.1000011 = fadd half %.0.1000010, %.0.1000009
  %.0.1000012 = bitcast half %.0.1000011 to i16
  %.0.1000013 = zext i16 %.0.1000012 to i32
  %.0.1000014 = trunc i32 %.0.1000005 to i16
  %.0.1000015 = trunc i32 %.0.1000006 to i16
  %.0.1000016 = bitcast i16 %.0.1000015 to half
  %.0.1000017 = bitcast i16 %.0.1000014 to half
  %.0.1000018 = fadd half %.0.1000017, %.0.1000016
  %.0.1000019 = bitcast half %.0.1000018 to i16
  %.0.1000020 = zext i16 %.0.1000019 to i32
  %.0.1000021 = shl i32 %.0.1000020, 16
  %.0.1000022 = or i32 %.0.1000013, %.0.1000021
  %.0.1000023 = icmp eq i32 %.0.1000022, %.0.1000003
  br i1 %.0.1000023, label %.0.b3, label %.0.b2
.0.b2:
  %.0.1 = cmpxchg ptr addrspace(1) %grad, i32 %.0.1000003, i32 %.0.1000022 syncscope("device") monotonic monotonic, align 4
  %.0.1000024 = extractvalue { i32, i1 } %.0.1, 0
  %.0.1000025 = icmp eq i32 %.0.1000024, %.0.1000003
  br i1 %.0.1000025, label %.0.b3, label %.0.b1
.0.b3:
  br label %.0.end
.0.end:
  br label %.1.b0
.1.b0:
  %.1.1000002 = load atomic i32, ptr addrspace(1) %grad_bf16 syncscope("device") monotonic, align 4
  br label %.1.b1
.1.b1:
  %.1.1000003 = phi i32 [ %.1.1000002, %.1.b0 ], [ %.1.1000024, %.1.b2 ]
  %.1.1000005 = lshr i32 %.1.1000003, 16
  %.1.1000006 = lshr i32 %gb2, 16
  %.1.1000007 = trunc i32 %.1.1000003 to i16
  %.1.1000008 = trunc i32 %gb2 to i16
  %.1.1000009 = bitcast i16 %.1.1000008 to bfloat
  %.1.1000010 = bitcast i16 %.1.1000007 to bfloat
  %.1.1000011 = fadd bfloat %.1.1000010, %.1.1000009
  %.1.1000012 = bitcast bfloat %.1.1000011 to i16
  %.1.1000013 = zext i16 %.1.1000012 to i32
  %.1.1000014 = trunc i32 %.1.1000005 to i16
  %.1.1000015 = trunc i32 %.1.1000006 to i16
  %.1.1000016 = bitcast i16 %.1.1000015 to bfloat
  %.1.1000017 = bitcast i16 %.1.1000014 to bfloat
  %.1.1000018 = fadd bfloat %.1.1000017, %.1.1000016
  %.1.1000019 = bitcast bfloat %.1.1000018 to i16
  %.1.1000020 = zext i16 %.1.1000019 to i32
  %.1.1000021 = shl i32 %.1.1000020, 16
  %.1.1000022 = or i32 %.1.1000013, %.1.1000021
  %.1.1000023 = icmp eq i32 %.1.1000022, %.1.1000003
  br i1 %.1.1000023, label %.1.b3, label %.1.b2
.1.b2:
  %.1.1 = cmpxchg ptr addrspace(1) %grad_bf16, i32 %.1.1000003, i32 %.1.1000022 syncscope("device") monotonic monotonic, align 4
  %.1.1000024 = extractvalue { i32, i1 } %.1.1, 0
  %.1.1000025 = icmp eq i32 %.1.1000024, %.1.1000003
  br i1 %.1.1000025, label %.1.b3, label %.1.b1
.1.b3:
  br label %.1.end
.1.end:
  br label %.2.b0
.2.b0:
  %.2.1000009 = atomicrmw fadd ptr addrspace(1) %grad, half %g0 syncscope("device") monotonic, align 2
  %.2.1000010 = getelementptr i8, ptr addrspace(1) %grad, i64 2
  %.2.1000011 = atomicrmw fadd ptr addrspace(1) %.2.1000010, half %g1 syncscope("device") monotonic, align 2
  %.2.1000012 = getelementptr i8, ptr addrspace(1) %grad, i64 4
  %.2.1000013 = atomicrmw fadd ptr addrspace(1) %.2.1000012, half %g2a syncscope("device") monotonic, align 2
  %.2.1000014 = getelementptr i8, ptr addrspace(1) %grad, i64 6
  %.2.1000015 = atomicrmw fadd ptr addrspace(1) %.2.1000014, half %g3 syncscope("device") monotonic, align 2
  %.2.1000016 = getelementptr i8, ptr addrspace(1) %grad, i64 8
  %.2.1000017 = atomicrmw fadd ptr addrspace(1) %.2.1000016, half %g4 syncscope("device") monotonic, align 2
  %.2.1000018 = getelementptr i8, ptr addrspace(1) %grad, i64 10
  %.2.1000019 = atomicrmw fadd ptr addrspace(1) %.2.1000018, half %g5 syncscope("device") monotonic, align 2
  %.2.1000020 = getelementptr i8, ptr addrspace(1) %grad, i64 12
  %.2.1000021 = atomicrmw fadd ptr addrspace(1) %.2.1000020, half %g6 syncscope("device") monotonic, align 2
  %.2.1000022 = getelementptr i8, ptr addrspace(1) %grad, i64 14
  %.2.1000023 = atomicrmw fadd ptr addrspace(1) %.2.1000022, half %g7 syncscope("device") monotonic, align 2
  br label %.2.end
.2.end:
  br label %.3.b0
.3.b0:
  %.3.1000005 = load atomic i32, ptr addrspace(1) %master syncscope("device") monotonic, align 4
  br label %.3.b1
.3.b1:
  %.3.1000006 = phi i32 [ %.3.1000005, %.3.b0 ], [ %.3.1000011, %.3.b2 ]
  %.3.1000007 = bitcast i32 %.3.1000006 to float
  %.3.1000008 = fadd float %.3.1000007, %w0
  %.3.1000009 = bitcast float %.3.1000008 to i32
  %.3.1000010 = icmp eq i32 %.3.1000009, %.3.1000006
  br i1 %.3.1000010, label %.3.b3, label %.3.b2
.3.b2:
  %.3.1 = cmpxchg ptr addrspace(1) %master, i32 %.3.1000006, i32 %.3.1000009 syncscope("device") monotonic monotonic, align 4
  %.3.1000011 = extractvalue { i32, i1 } %.3.1, 0
  %.3.1000012 = icmp eq i32 %.3.1000011, %.3.1000006
  br i1 %.3.1000012, label %.3.b3, label %.3.b1
.3.b3:
  %.3.1000013 = bitcast i32 %.3.1000006 to float
  %.3.1000014 = getelementptr i8, ptr addrspace(1) %master, i64 4
  %.3.1000015 = load atomic i32, ptr addrspace(1) %.3.1000014 syncscope("device") monotonic, align 4
  br label %.3.b4
.3.b4:
  %.3.1000016 = phi i32 [ %.3.1000015, %.3.b3 ], [ %.3.1000021, %.3.b5 ]
  %.3.1000017 = bitcast i32 %.3.1000016 to float
  %.3.1000018 = fadd float %.3.1000017, %w1
  %.3.1000019 = bitcast float %.3.1000018 to i32
  %.3.1000020 = icmp eq i32 %.3.1000019, %.3.1000016
  br i1 %.3.1000020, label %.3.b6, label %.3.b5
.3.b5:
  %.3.2 = cmpxchg ptr addrspace(1) %.3.1000014, i32 %.3.1000016, i32 %.3.1000019 syncscope("device") monotonic monotonic, align 4
  %.3.1000021 = extractvalue { i32, i1 } %.3.2, 0
  %.3.1000022 = icmp eq i32 %.3.1000021, %.3.1000016
  br i1 %.3.1000022, label %.3.b6, label %.3.b4
.3.b6:
  %.3.1000023 = bitcast i32 %.3.1000016 to float
  %.3.1000024 = getelementptr i8, ptr addrspace(1) %master, i64 8
  %.3.1000025 = load atomic i32, ptr addrspace(1) %.3.1000024 syncscope("device") monotonic, align 4
  br label %.3.b7
.3.b7:
  %.3.1000026 = phi i32 [ %.3.1000025, %.3.b6 ], [ %.3.1000031, %.3.b8 ]
  %.3.1000027 = bitcast i32 %.3.1000026 to float
  %.3.1000028 = fadd float %.3.1000027, %w2
  %.3.1000029 = bitcast float %.3.1000028 to i32
  %.3.1000030 = icmp eq i32 %.3.1000029, %.3.1000026
  br i1 %.3.1000030, label %.3.b9, label %.3.b8
.3.b8:
  %.3.3 = cmpxchg ptr addrspace(1) %.3.1000024, i32 %.3.1000026, i32 %.3.1000029 syncscope("device") monotonic monotonic, align 4
  %.3.1000031 = extractvalue { i32, i1 } %.3.3, 0
  %.3.1000032 = icmp eq i32 %.3.1000031, %.3.1000026
  br i1 %.3.1000032, label %.3.b9, label %.3.b7
.3.b9:
  %.3.1000033 = bitcast i32 %.3.1000026 to float
  %.3.1000034 = getelementptr i8, ptr addrspace(1) %master, i64 12
  %.3.1000035 = load atomic i32, ptr addrspace(1) %.3.1000034 syncscope("device") monotonic, align 4
  br label %.3.b10
.3.b10:
  %.3.1000036 = phi i32 [ %.3.1000035, %.3.b9 ], [ %.3.1000041, %.3.b11 ]
  %.3.1000037 = bitcast i32 %.3.1000036 to float
  %.3.1000038 = fadd float %.3.1000037, %w3
  %.3.1000039 = bitcast float %.3.1000038 to i32
  %.3.1000040 = icmp eq i32 %.3.1000039, %.3.1000036
  br i1 %.3.1000040, label %.3.b12, label %.3.b11
.3.b11:
  %.3.4 = cmpxchg ptr addrspace(1) %.3.1000034, i32 %.3.1000036, i32 %.3.1000039 syncscope("device") monotonic monotonic, align 4
  %.3.1000041 = extractvalue { i32, i1 } %.3.4, 0
  %.3.1000042 = icmp eq i32 %.3.1000041, %.3.1000036
  br i1 %.3.1000042, label %.3.b12, label %.3.b10
.3.b12:
  %.3.1000043 = bitcast i32 %.3.1000036 to float
  br label %.3.end
.3.end:
  ret void
}

