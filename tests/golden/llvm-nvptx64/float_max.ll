target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @amax(ptr addrspace(3) %block_max, ptr addrspace(1) %amax, float %x, float %partial) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = load atomic i32, ptr addrspace(3) %block_max syncscope("block") monotonic, align 4
  br label %.0.b1
.0.b1:
  %.0.1000003 = phi i32 [ %.0.1000002, %.0.b0 ], [ %.0.1000009, %.0.b2 ]
  %.0.1000005 = bitcast i32 %.0.1000003 to float
  %.0.1 = fcmp uno float %.0.1000005, %.0.1000005
  %.0.2 = fcmp uno float %x, %x
  %.0.3 = fcmp olt float %x, %.0.1000005
  %.0.4 = fcmp olt float %.0.1000005, %x
  %.0.5 = bitcast float %.0.1000005 to i32
  %.0.6 = bitcast float %x to i32
  %.0.7 = and i32 %.0.5, %.0.6
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
  %.0.13 = cmpxchg ptr addrspace(3) %block_max, i32 %.0.1000003, i32 %.0.1000007 syncscope("block") monotonic monotonic, align 4
  %.0.1000009 = extractvalue { i32, i1 } %.0.13, 0
  %.0.1000010 = icmp eq i32 %.0.1000009, %.0.1000003
  br i1 %.0.1000010, label %.0.b3, label %.0.b1
.0.b3:
  %.0.1000004 = phi i32 [ %.0.1000003, %.0.b1 ], [ %.0.1000009, %.0.b2 ]
  %.0.1000011 = bitcast i32 %.0.1000004 to float
  br label %.0.end
.0.end:
  br label %.1.b0
.1.b0:
  %.1.1000002 = load atomic i32, ptr addrspace(1) %amax syncscope("device") monotonic, align 4
  br label %.1.b1
.1.b1:
  %.1.1000003 = phi i32 [ %.1.1000002, %.1.b0 ], [ %.1.1000009, %.1.b2 ]
  %.1.1000005 = bitcast i32 %.1.1000003 to float
  %.1.1 = fcmp uno float %.1.1000005, %.1.1000005
  %.1.2 = fcmp uno float %partial, %partial
  %.1.3 = fcmp olt float %partial, %.1.1000005
  %.1.4 = fcmp olt float %.1.1000005, %partial
  %.1.5 = bitcast float %.1.1000005 to i32
  %.1.6 = bitcast float %partial to i32
  %.1.7 = and i32 %.1.5, %.1.6
  %.1.8 = bitcast i32 %.1.7 to float
  %.1.9 = select i1 %.1.4, float %partial, float %.1.8
  %.1.10 = select i1 %.1.3, float %.1.1000005, float %.1.9
  %.1.11 = select i1 %.1.2, float %.1.1000005, float %.1.10
  %.1.12 = select i1 %.1.2, float 0x7FF8000000000000, float %partial
  %.1.1000006 = select i1 %.1.1, float %.1.12, float %.1.11
  %.1.1000007 = bitcast float %.1.1000006 to i32
  %.1.1000008 = icmp eq i32 %.1.1000007, %.1.1000003
  br i1 %.1.1000008, label %.1.b3, label %.1.b2
.1.b2:
  %.1.13 = cmpxchg ptr addrspace(1) %amax, i32 %.1.1000003, i32 %.1.1000007 syncscope("device") monotonic monotonic, align 4
  %.1.1000009 = extractvalue { i32, i1 } %.1.13, 0
  %.1.1000010 = icmp eq i32 %.1.1000009, %.1.1000003
  br i1 %.1.1000010, label %.1.b3, label %.1.b1
.1.b3:
  %.1.1000004 = phi i32 [ %.1.1000003, %.1.b1 ], [ %.1.1000009, %.1.b2 ]
  %.1.1000011 = bitcast i32 %.1.1000004 to float
  br label %.1.end
.1.end:
  ret void
}

define ptx_kernel void @residual_max(ptr addrspace(1) %norm, double %r, ptr addrspace(1) %.out0) {
.entry:
  br label %.0.b0
.0.b0:
  %.0.1000002 = load atomic i64, ptr addrspace(1) %norm syncscope("device") monotonic, align 8
  br label %.0.b1
.0.b1:
  %.0.1000003 = phi i64 [ %.0.1000002, %.0.b0 ], [ %.0.1000009, %.0.b2 ]
  %.0.1000005 = bitcast i64 %.0.1000003 to double
  %.0.1 = fcmp uno double %.0.1000005, %.0.1000005
  %.0.2 = fcmp uno double %r, %r
  %.0.3 = fcmp olt double %r, %.0.1000005
  %.0.4 = fcmp olt double %.0.1000005, %r
  %.0.5 = bitcast double %.0.1000005 to i64
  %.0.6 = bitcast double %r to i64
  %.0.7 = and i64 %.0.5, %.0.6
  %.0.8 = bitcast i64 %.0.7 to double
  %.0.9 = select i1 %.0.4, double %r, double %.0.8
  %.0.10 = select i1 %.0.3, double %.0.1000005, double %.0.9
  %.0.11 = select i1 %.0.2, double %.0.1000005, double %.0.10
  %.0.12 = select i1 %.0.2, double 0x7FF8000000000000, double %r
  %.0.1000006 = select i1 %.0.1, double %.0.12, double %.0.11
  %.0.1000007 = bitcast double %.0.1000006 to i64
  %.0.1000008 = icmp eq i64 %.0.1000007, %.0.1000003
  br i1 %.0.1000008, label %.0.b3, label %.0.b2
.0.b2:
  %.0.13 = cmpxchg ptr addrspace(1) %norm, i64 %.0.1000003, i64 %.0.1000007 syncscope("device") monotonic monotonic, align 8
  %.0.1000009 = extractvalue { i64, i1 } %.0.13, 0
  %.0.1000010 = icmp eq i64 %.0.1000009, %.0.1000003
  br i1 %.0.1000010, label %.0.b3, label %.0.b1
.0.b3:
  %.0.1000004 = phi i64 [ %.0.1000003, %.0.b1 ], [ %.0.1000009, %.0.b2 ]
  %.0.1000011 = bitcast i64 %.0.1000004 to double
  br label %.0.end
.0.end:
  store double %.0.1000011, ptr addrspace(1) %.out0
  ret void
}

