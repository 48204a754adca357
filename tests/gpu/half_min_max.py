"""Exhaustive check of PTX `min`/`max` on `.f16` and `.bf16` against atomir's float min/max
(IEEE 754-2019 minimumNumber/maximumNumber, -0 < +0), on all 2^32 operand pairs per
instruction, on the GPU (CuPy). Two NaNs may give any NaN (the lowering canonicalizes it);
every other pair must give exactly the reference's bits.

    python3 tests/gpu/half_min_max.py [OUT.json]

Prints one line per instruction and exits non-zero if any pair differs. This is the
measurement behind `Feature::HalfMinMax` (lower-ptx/src/target.rs).
"""
import json
import subprocess
import sys

import cupy as cp

SOURCE = r"""
template <int OP>
__device__ __forceinline__ unsigned short target_op(unsigned short a, unsigned short b) {
    unsigned short d;
    if (OP == 0) asm("max.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b));
    if (OP == 1) asm("min.f16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b));
    if (OP == 2) asm("max.bf16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b));
    if (OP == 3) asm("min.bf16 %0, %1, %2;" : "=h"(d) : "h"(a), "h"(b));
    return d;
}

__device__ __forceinline__ unsigned key(unsigned short x) {
    // Unsigned order of the key is the float order with -0 < +0.
    return (x & 0x8000u) ? (unsigned)(unsigned short)~x : (unsigned)(x | 0x8000u);
}

template <int OP>
__device__ void check(unsigned long long *counts, unsigned *first) {
    const unsigned infinity = (OP < 2) ? 0x7c00u : 0x7f80u;
    const bool is_max = (OP == 0 || OP == 2);
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;   // 2^24 threads
    unsigned short a = (unsigned short)(t >> 8);
    bool a_nan = (a & 0x7fffu) > infinity;
    unsigned long long wrong = 0, both_nan = 0;
    for (unsigned lo = 0; lo < 256; ++lo) {
        unsigned short b = (unsigned short)(((t & 0xffu) << 8) | lo);
        bool b_nan = (b & 0x7fffu) > infinity;
        unsigned short got = target_op<OP>(a, b);
        if (a_nan && b_nan) {
            ++both_nan;
            if ((got & 0x7fffu) <= infinity) {  // two NaNs must still give a NaN
                ++wrong;
                atomicCAS(first, 0xffffffffu, ((unsigned)a << 16) | b);
            }
            continue;
        }
        unsigned short want;
        if (a_nan) want = b;
        else if (b_nan) want = a;
        else {
            bool a_first = is_max ? key(a) >= key(b) : key(a) <= key(b);
            want = a_first ? a : b;
        }
        if (got != want) {
            ++wrong;
            atomicCAS(first, 0xffffffffu, ((unsigned)a << 16) | b);
        }
    }
    atomicAdd(&counts[0], wrong);
    atomicAdd(&counts[1], both_nan);
}

extern "C" __global__ void check_max_f16(unsigned long long *c, unsigned *f) { check<0>(c, f); }
extern "C" __global__ void check_min_f16(unsigned long long *c, unsigned *f) { check<1>(c, f); }
extern "C" __global__ void check_max_bf16(unsigned long long *c, unsigned *f) { check<2>(c, f); }
extern "C" __global__ void check_min_bf16(unsigned long long *c, unsigned *f) { check<3>(c, f); }
"""


def main():
    module = cp.RawModule(code=SOURCE, options=("-arch=sm_90",))
    props = cp.cuda.runtime.getDeviceProperties(0)
    driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                            capture_output=True, text=True).stdout.strip()
    record = {"device": props["name"].decode(), "driver": driver, "instructions": {}}
    print(f"{record['device']}, driver {driver}")
    failed = False
    for op, name in (("max", "f16"), ("min", "f16"), ("max", "bf16"), ("min", "bf16")):
        counts = cp.zeros(2, dtype=cp.uint64)
        first = cp.full(1, 0xFFFFFFFF, dtype=cp.uint32)
        module.get_function(f"check_{op}_{name}")(((1 << 24) // 256,), (256,), (counts, first))
        wrong, both_nan = (int(x) for x in cp.asnumpy(counts))
        pair = int(cp.asnumpy(first)[0])
        line = f"{op}.{name}: {1 << 32} pairs, {wrong} differ, {both_nan} with two NaNs"
        if wrong:
            line += f" (first: a={pair >> 16:#06x} b={pair & 0xffff:#06x})"
            failed = True
        print(line)
        record["instructions"][f"{op}.{name}"] = {"pairs": 1 << 32, "differ": wrong, "two_nans": both_nan}
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            json.dump(record, f, indent=1)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
