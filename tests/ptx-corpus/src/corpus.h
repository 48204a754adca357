// Kernels of the PTX corpus. K(name, "expect", T, statement): a kernel `name` whose body is
// `statement` on `T *p`, `T v`, `T w`, with `i` the thread's index: the atomics address p[0]
// (or the block's shared array), old values go to p[64 + i]; "expect" is what the body's
// atomics mean, in order, as `op.order.scope.type[.laxity]` (`iN`: an integer or untyped N-bit
// type, the signedness being immaterial to the op; `.ftz`: CUDA's float atomicAdd on global
// memory is `atom.global.add.f32`, which the PTX ISA says flushes subnormals there;
// `fence.order.scope`), `;`-separated. The corpus test
// reads each kernel's PTX and compares.
#pragma once
#include <cuda/atomic>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define K(name, expect, T, ...)                                                             \
  extern "C" __global__ void name(T *p, T v, T w) {                                        \
    unsigned i = threadIdx.x;                                                               \
    (void)i;                                                                                \
    (void)w;                                                                                \
    __VA_ARGS__;                                                                            \
  }

// The same on shared memory: `s` is the block's array, copied out to `p` afterwards.
#define KS(name, expect, T, ...)                                                            \
  extern "C" __global__ void name(T *p, T v, T w) {                                        \
    __shared__ T s[64];                                                                     \
    unsigned i = threadIdx.x;                                                               \
    (void)i;                                                                                \
    (void)w;                                                                                \
    s[i % 64] = p[i];                                                                       \
    __syncthreads();                                                                        \
    __VA_ARGS__;                                                                            \
    __syncthreads();                                                                        \
    p[64 + i] = s[i % 64];                                                                     \
  }
