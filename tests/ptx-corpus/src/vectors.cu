// Vector float atomics: float2 and float4 adds (sm_90 and newer; scripts/ptx-corpus compiles
// this file for those only).
#include "corpus.h"

K(add_float2, "add.relaxed.device.v2.f32.ftz", float2, p[64 + i] = atomicAdd(p, v))
K(add_float4, "add.relaxed.device.v4.f32.ftz", float4, p[64 + i] = atomicAdd(p, v))
K(add_float4_unused, "add.relaxed.device.v4.f32.ftz", float4, atomicAdd(p, v))
