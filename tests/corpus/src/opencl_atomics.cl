// OpenCL C 2.0 atomics through clang's __opencl_atomic_* builtins, which the OpenCL library's
// atomic_fetch_add_explicit and friends are made of (clang alone links no library): a
// histogram, counters and message passing.

kernel void histogram(global atomic_uint *bins, global const uchar *data, int n) {
  for (int i = 0; i < n; ++i)
    __opencl_atomic_fetch_add(&bins[data[i]], 1u, __ATOMIC_RELAXED, __OPENCL_MEMORY_SCOPE_DEVICE);
}

kernel void counters(global atomic_int *i, global atomic_ulong *l, local atomic_uint *u) {
  __opencl_atomic_fetch_add(i, 1, __ATOMIC_ACQ_REL, __OPENCL_MEMORY_SCOPE_WORK_GROUP);
  __opencl_atomic_fetch_sub(l, 1ul, __ATOMIC_RELEASE, __OPENCL_MEMORY_SCOPE_DEVICE);
  __opencl_atomic_fetch_and(u, 0xffu, __ATOMIC_ACQUIRE, __OPENCL_MEMORY_SCOPE_WORK_GROUP);
  __opencl_atomic_fetch_or(u, 0x100u, __ATOMIC_RELAXED, __OPENCL_MEMORY_SCOPE_WORK_GROUP);
  __opencl_atomic_fetch_max(i, 3, __ATOMIC_SEQ_CST, __OPENCL_MEMORY_SCOPE_DEVICE);
  __opencl_atomic_fetch_min(u, 4u, __ATOMIC_RELAXED, __OPENCL_MEMORY_SCOPE_WORK_GROUP);
  __opencl_atomic_exchange(l, 5ul, __ATOMIC_RELAXED, __OPENCL_MEMORY_SCOPE_ALL_SVM_DEVICES);
  int expected = 6;
  __opencl_atomic_compare_exchange_strong(i, &expected, 7, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE,
                                          __OPENCL_MEMORY_SCOPE_DEVICE);
  __opencl_atomic_compare_exchange_weak(i, &expected, 8, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                        __OPENCL_MEMORY_SCOPE_WORK_GROUP);
}

kernel void message_passing(global atomic_int *data, global atomic_int *flag, global int *out) {
  __opencl_atomic_store(data, 42, __ATOMIC_RELAXED, __OPENCL_MEMORY_SCOPE_DEVICE);
  __scoped_atomic_thread_fence(__ATOMIC_RELEASE, __MEMORY_SCOPE_DEVICE);
  __opencl_atomic_store(flag, 1, __ATOMIC_RELAXED, __OPENCL_MEMORY_SCOPE_DEVICE);
  while (__opencl_atomic_load(flag, __ATOMIC_ACQUIRE, __OPENCL_MEMORY_SCOPE_DEVICE) == 0) {
  }
  __scoped_atomic_thread_fence(__ATOMIC_SEQ_CST, __MEMORY_SCOPE_WRKGRP);
  out[0] = __opencl_atomic_load(data, __ATOMIC_RELAXED, __OPENCL_MEMORY_SCOPE_DEVICE);
}
