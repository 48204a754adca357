// The same contention cases written with the CUDA atomic functions, as a CUDA programmer would:
// atomicAdd where CUDA has it, the CAS loop of the CUDA programming guide where it has none.
// Each thread performs OPS atomics on element (global thread id % n) of its array(s).
#include <cuda_fp16.h>
#include <stdint.h>

#define OPS 1
#define TID() ((blockIdx.x * blockDim.x + threadIdx.x) % n)

__device__ __forceinline__ void f32_max_cas(float *address, float value) {
  int *word = (int *)address;
  int old = *word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, __float_as_int(fmaxf(value, __int_as_float(assumed))));
  } while (assumed != old);
}

__device__ __forceinline__ void u8_add_cas(uint8_t *address, uint8_t value) {
  unsigned int *word = (unsigned int *)((uintptr_t)address & ~(uintptr_t)3);
  unsigned int shift = ((uintptr_t)address & 3) * 8;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    unsigned int byte = ((assumed >> shift) + value) & 0xffu;
    old = atomicCAS(word, assumed, (assumed & ~(0xffu << shift)) | (byte << shift));
  } while (assumed != old);
}

extern "C" {
__global__ void int_add(unsigned int *a, unsigned int b, unsigned int n) {
  unsigned int *p = a + TID();
  for (int i = 0; i < OPS; i++) atomicAdd(p, b);
}
__global__ void f32_max(float *a, float b, unsigned int n) {
  float *p = a + TID();
  for (int i = 0; i < OPS; i++) f32_max_cas(p, b);
}
__global__ void f16_add(__half *a, __half b, unsigned int n) {
  __half *p = a + TID();
  for (int i = 0; i < OPS; i++) atomicAdd(p, b);
}
__global__ void f16x2_add(__half2 *a, __half2 b, unsigned int n) {
  __half2 *p = a + TID();
  for (int i = 0; i < OPS; i++) atomicAdd(p, b);
}
__global__ void v4f32_add(float4 *a, float b, unsigned int n) {
  float4 *p = a + TID();
  for (int i = 0; i < OPS; i++) atomicAdd(p, make_float4(b, b, b, b));
}
__global__ void f32x4_scalar_add(float4 *a, float b, unsigned int n) {
  float *p = (float *)(a + TID());
  for (int i = 0; i < OPS; i++) {
    atomicAdd(p, b); atomicAdd(p + 1, b); atomicAdd(p + 2, b); atomicAdd(p + 3, b);
  }
}
__global__ void u8_add(uint8_t *a, uint8_t b, unsigned int n) {
  uint8_t *p = a + TID();
  for (int i = 0; i < OPS; i++) u8_add_cas(p, b);
}
}
