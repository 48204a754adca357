// The benchmark's kernels (bench/gpu/cases.py) written with CUDA's atomic functions, as a CUDA
// programmer would: atomicAdd where CUDA has it (int, float, half, bfloat16 and their pairs),
// the CUDA programming guide's compare-and-swap loop where it has none (float and double
// max/min, with fmaxf/fminf; 8-bit add on the containing 32-bit word; 16-bit add with the 16-bit
// atomicCAS). Thread t acts on a[t % n] with operand b[t]; with the result used it stores the
// old value to out[t]: the same parameters as the atomir and llc kernels after bench/gpu's patch.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#define TID() (blockIdx.x * blockDim.x + threadIdx.x)

// The CUDA programming guide's compare-and-swap loop, computing the new value with `combine`.
template <typename Combine>
__device__ __forceinline__ float f32_cas_loop(float *address, float value, Combine combine) {
  int *word = (int *)address;
  int old = *word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, __float_as_int(combine(value, __int_as_float(assumed))));
  } while (assumed != old);
  return __int_as_float(old);
}

template <typename Combine>
__device__ __forceinline__ double f64_cas_loop(double *address, double value, Combine combine) {
  unsigned long long *word = (unsigned long long *)address;
  unsigned long long old = *word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, __double_as_longlong(combine(value, __longlong_as_double(assumed))));
  } while (assumed != old);
  return __longlong_as_double(old);
}

struct Max {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
  __device__ double operator()(double a, double b) const { return fmax(a, b); }
};
struct Min {
  __device__ float operator()(float a, float b) const { return fminf(a, b); }
  __device__ double operator()(double a, double b) const { return fmin(a, b); }
};

__device__ __forceinline__ float f32_max(float *a, float v) { return f32_cas_loop(a, v, Max()); }
__device__ __forceinline__ float f32_min(float *a, float v) { return f32_cas_loop(a, v, Min()); }
__device__ __forceinline__ double f64_max(double *a, double v) { return f64_cas_loop(a, v, Max()); }
__device__ __forceinline__ double f64_min(double *a, double v) { return f64_cas_loop(a, v, Min()); }

__device__ __forceinline__ uint8_t u8_add(uint8_t *address, uint8_t value) {
  unsigned int *word = (unsigned int *)((uintptr_t)address & ~(uintptr_t)3);
  unsigned int shift = ((uintptr_t)address & 3) * 8;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    unsigned int byte = ((assumed >> shift) + value) & 0xffu;
    old = atomicCAS(word, assumed, (assumed & ~(0xffu << shift)) | (byte << shift));
  } while (assumed != old);
  return (uint8_t)(old >> shift);
}

__device__ __forceinline__ unsigned short u16_add(unsigned short *address, unsigned short value) {
  unsigned short old = *address, assumed;
  do {
    assumed = old;
    old = atomicCAS(address, assumed, (unsigned short)(assumed + value));
  } while (assumed != old);
  return old;
}

#define KERNELS(NAME, T, CALL)                                                  \
  extern "C" __global__ void NAME##_used(T *a, const T *b, T *out, unsigned n) { \
    unsigned t = TID();                                                         \
    out[t] = CALL(a + t % n, b[t]);                                             \
  }                                                                             \
  extern "C" __global__ void NAME##_unused(T *a, const T *b, unsigned n) {      \
    unsigned t = TID();                                                         \
    CALL(a + t % n, b[t]);                                                      \
  }

KERNELS(max_f32, float, f32_max)
KERNELS(min_f32, float, f32_min)
KERNELS(max_f64, double, f64_max)
KERNELS(min_f64, double, f64_min)
KERNELS(add_f16, __half, atomicAdd)
KERNELS(add_bf16, __nv_bfloat16, atomicAdd)
KERNELS(add_f16x2, __half2, atomicAdd)
KERNELS(add_bf16x2, __nv_bfloat162, atomicAdd)
KERNELS(add_u8, uint8_t, u8_add)
KERNELS(add_u16, unsigned short, u16_add)
KERNELS(add_f32, float, atomicAdd)
KERNELS(add_u32, unsigned int, atomicAdd)
KERNELS(add_u64, unsigned long long, atomicAdd)
