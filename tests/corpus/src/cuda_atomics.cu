// CUDA atomics without the CUDA headers (clang -nocudainc): the builtins that CUDA's
// atomicAdd, atomicCAS, cuda::atomic_ref and __threadfence are made of.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

// A histogram bin, a reduction, a ticket lock and message passing.
__global__ void histogram(unsigned *bins, const unsigned char *data, int n) {
  for (int i = 0; i < n; ++i)
    __nvvm_atom_add_gen_i((int *)&bins[data[i]], 1);
}

__global__ void reduce(float *sum, double *dsum, float x, double y) {
  __nvvm_atom_add_gen_f(sum, x);
  __nvvm_atom_add_gen_d(dsum, y);
  __scoped_atomic_fetch_add(sum, x, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
  __scoped_atomic_fetch_max(sum, x, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
}

__global__ void counters(int *i, unsigned long long *l, unsigned *u) {
  __nvvm_atom_cta_add_gen_i(i, 1);
  __nvvm_atom_sys_add_gen_i(i, 2);
  __nvvm_atom_max_gen_i(i, 3);
  __nvvm_atom_min_gen_ui(u, 4u);
  __nvvm_atom_inc_gen_ui(u, 100u);
  __nvvm_atom_dec_gen_ui(u, 100u);
  __nvvm_atom_xchg_gen_ll((long long *)l, 5);
  __nvvm_atom_cas_gen_i(i, 6, 7);
  __atomic_fetch_sub(l, 1ull, __ATOMIC_ACQ_REL);
  __atomic_fetch_and(u, 0xffu, __ATOMIC_ACQUIRE);
  __atomic_fetch_or(u, 0x100u, __ATOMIC_RELEASE);
  __atomic_fetch_xor(u, 1u, __ATOMIC_SEQ_CST);
  __scoped_atomic_fetch_min(i, -1, __ATOMIC_SEQ_CST, __MEMORY_SCOPE_WRKGRP);
}

__global__ void ticket_lock(unsigned *next, unsigned *serving, int *data) {
  unsigned ticket = __scoped_atomic_fetch_add(next, 1u, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
  while (__scoped_atomic_load_n(serving, __ATOMIC_ACQUIRE, __MEMORY_SCOPE_DEVICE) != ticket) {
  }
  data[0] += 1;
  __scoped_atomic_store_n(serving, ticket + 1, __ATOMIC_RELEASE, __MEMORY_SCOPE_DEVICE);
}

__global__ void message_passing(int *data, int *flag, int *out) {
  __atomic_store_n(data, 42, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  __atomic_store_n(flag, 1, __ATOMIC_RELAXED);
  while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0) {
  }
  __scoped_atomic_thread_fence(__ATOMIC_SEQ_CST, __MEMORY_SCOPE_DEVICE);
  out[0] = __atomic_load_n(data, __ATOMIC_RELAXED);
  int expected = 0;
  __atomic_compare_exchange_n(out, &expected, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  __atomic_compare_exchange_n(out, &expected, 2, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
