#!/usr/bin/env python3
"""Contention benchmark on the GPU: our PTX against nvcc's code for the CUDA atomic functions
and against llc 22's PTX, for int add, f32 max, f16 add scalar vs packed, v4.f32 add vs four
scalars, and u8 add, at 1, 32, 4096 and 1M distinct addresses.

Inputs (made by bench/gpu/prepare): ours.ptx and llc.ptx (`atomir lower bench/gpu/cases.atom
--module`, the latter through llc), and nvcc_cases.cu, compiled here with nvcc. Every thread
performs one atomic on element (global thread id % n); our and llc's kernels get that offset from
a patch that adds it to every pointer parameter. Each result is checked before it is timed.

    python3 contention.py DIR > results.md
"""
import re
import statistics
import subprocess
import sys
import os

import cupy as cp
import numpy as np

THREADS = 1 << 20
BLOCK = 256
ADDRESSES = [1, 32, 4096, 1 << 20]
RUNS = 5
SLOW_SECONDS = 1.0  # a single run slower than this is not repeated

# name: (bytes per element slot, operand dtype, number of pointer params, operand value bits)
CASES = {
    "int_add": (4, np.uint32, 1),
    "f32_max": (4, np.float32, 1),
    "f16_add": (2, np.float16, 1),
    "f16x2_add": (4, np.uint32, 1),
    "v4f32_add": (16, np.float32, 1),
    "f32x4_scalar_add": (16, np.float32, 4),
    "u8_add": (1, np.uint8, 1),
}
OPERAND = {
    "int_add": np.uint32(1),
    "f32_max": np.float32(3.5),
    "f16_add": np.float16(1.0),
    "f16x2_add": np.uint32(0x3C003C00),  # (1.0, 1.0)
    "v4f32_add": np.float32(1.0),
    "f32x4_scalar_add": np.float32(1.0),
    "u8_add": np.uint8(1),
}


def patch_offsets(ptx):
    """Adds `(global thread id % bench_n) * stride` to every pointer parameter of every entry."""
    out = []
    pos = 0
    for match in re.finditer(r"\.entry\s+(\w+)\s*\(", ptx):
        name = match.group(1)
        if name not in CASES:
            continue
        stride = CASES[name][0]
        close = ptx.index(")", match.end())
        body = ptx.index("{", close)
        out.append(ptx[pos:close])
        out.append(",\n\t.param .u32 bench_n\n)")
        out.append(ptx[close + 1:body + 1])
        out.append(
            "\n\t.reg .u32 %bench_t<4>;\n\t.reg .u64 %bench_off;\n"
            "\tmov.u32 %bench_t0, %ctaid.x;\n\tmov.u32 %bench_t1, %ntid.x;\n\tmov.u32 %bench_t2, %tid.x;\n"
            "\tmad.lo.u32 %bench_t0, %bench_t0, %bench_t1, %bench_t2;\n"
            "\tld.param.u32 %bench_t3, [bench_n];\n\trem.u32 %bench_t0, %bench_t0, %bench_t3;\n"
            f"\tmul.wide.u32 %bench_off, %bench_t0, {stride};\n"
        )
        following = re.compile(r"\.entry\s+\w+\s*\(").search(ptx, body)
        end = following.start() if following else len(ptx)
        section = ptx[body + 1:end]
        section, count = re.subn(
            r"(ld\.param\.(?:u64|b64|s64)\s+(%\w+),\s*\[" + name + r"_param_\d+(?:\+0)?\];)",
            lambda m: m.group(1) + f"\n\tadd.s64 {m.group(2)}, {m.group(2)}, %bench_off;",
            section,
        )
        if count != CASES[name][2]:
            raise SystemExit(f"{name}: patched {count} pointer loads, expected {CASES[name][2]}")
        out.append(section)
        pos = end
    out.append(ptx[pos:])
    return "".join(out)


def expected_value(name, n):
    """The final value of element 0 (the contended one), or None where order changes it."""
    per = THREADS // n if n <= THREADS else 1
    if name == "int_add":
        return np.uint32(per)
    if name == "u8_add":
        return np.uint8(per % 256)
    if name == "f32_max":
        return np.float32(3.5)
    if name in ("v4f32_add", "f32x4_scalar_add"):
        return np.float32(per)
    if name == "f16_add":
        return np.float16(min(per, 2048))  # 2048 + 1 rounds back to 2048 in f16
    if name == "f16x2_add":
        return np.uint32(int(np.float16(min(per, 2048)).view(np.uint16)) * 0x10001)
    return None


def run_case(function, name, n, variant):
    stride, dtype, pointers = CASES[name]
    slots = min(n, THREADS)
    buffer = cp.zeros(slots * stride + 16, dtype=np.uint8)
    base = buffer.data.ptr
    operand = OPERAND[name]
    if variant == "nvcc":
        args = (base, operand, np.uint32(n))
    else:
        args = tuple(base + 4 * i for i in range(pointers)) + (operand, np.uint32(n))
    grid = (THREADS // BLOCK,)
    times = []
    for run in range(RUNS + 1):
        buffer.fill(0)
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        function(grid, (BLOCK,), args)
        stop.record()
        stop.synchronize()
        elapsed = cp.cuda.get_elapsed_time(start, stop) / 1e3
        if run == 0:
            check(buffer, name, n, variant)
            if elapsed > SLOW_SECONDS:
                times.append(elapsed)
                break
            continue
        times.append(elapsed)
    return statistics.median(times)


def check(buffer, name, n, variant):
    expected = expected_value(name, n)
    host = buffer.get()
    dtype = type(expected)
    got = host[: np.dtype(dtype).itemsize].view(dtype)[0]
    if got != expected:
        raise SystemExit(f"{variant} {name} n={n}: element 0 is {got}, expected {expected}")


def main():
    folder = sys.argv[1]
    subprocess.run(
        ["nvcc", "-ptx", "-arch=sm_90", "-O3", "-o", f"{folder}/nvcc.ptx", f"{folder}/nvcc_cases.cu"],
        check=True,
    )
    modules = {}
    for variant in ("ours", "llc", "nvcc"):
        text = open(f"{folder}/{variant}.ptx").read()
        if variant != "nvcc":
            text = patch_offsets(text)
        path = f"{folder}/{variant}.patched.ptx"
        open(path, "w").write(text)
        modules[variant] = cp.RawModule(path=path)
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"Device: {device}; {THREADS} threads x 1 atomic, block {BLOCK}; median of {RUNS} runs (1 run where a run takes > {SLOW_SECONDS} s)\n")
    print("| case | distinct addresses | ours (ms) | nvcc (ms) | llc 22 (ms) | nvcc / ours | llc / ours |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in CASES:
        for n in ADDRESSES:
            row = {}
            for variant, module in modules.items():
                row[variant] = run_case(module.get_function(name), name, n, variant)
            print(
                f"| {name} | {n} | {row['ours']*1e3:.3f} | {row['nvcc']*1e3:.3f} | {row['llc']*1e3:.3f} | "
                f"{row['nvcc']/row['ours']:.2f} | {row['llc']/row['ours']:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
