// HIP atomics without the HIP headers (clang -nogpuinc): the builtins that atomicAdd and
// friends, unsafe float atomics and __threadfence are made of.
#define __global__ __attribute__((global))

__global__ void histogram(unsigned *bins, const unsigned char *data, int n) {
  for (int i = 0; i < n; ++i)
    __hip_atomic_fetch_add(&bins[data[i]], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

__global__ void reduce(float *sum, double *dsum, float x, double y) {
  __hip_atomic_fetch_add(sum, x, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_add(dsum, y, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
  __hip_atomic_fetch_max(sum, x, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_min(dsum, y, __ATOMIC_SEQ_CST, __HIP_MEMORY_SCOPE_AGENT);
}

__global__ void counters(int *i, unsigned long long *l, unsigned *u) {
  __hip_atomic_fetch_add(i, 1, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_sub(l, 1ull, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_and(u, 0xffu, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM);
  __hip_atomic_fetch_or(u, 0x100u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_xor(u, 1u, __ATOMIC_SEQ_CST, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_exchange(l, 5ull, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  int expected = 6;
  __hip_atomic_compare_exchange_strong(i, &expected, 7, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE,
                                       __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_compare_exchange_weak(i, &expected, 8, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                     __HIP_MEMORY_SCOPE_WORKGROUP);
}

__global__ void message_passing(int *data, int *flag, int *out) {
  __hip_atomic_store(data, 42, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
  __hip_atomic_store(flag, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  while (__hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0) {
  }
  __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup");
  out[0] = __hip_atomic_load(data, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
