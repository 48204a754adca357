"""Retargeted PTX on the GPU: nvcc's sm_90 PTX of the corpus against `atomir lower`'s
ptx:sm_60/70/80 versions of it (tests/ptx-corpus/nvcc/sm_90 and tests/ptx-corpus/retarget/,
both checked in and made by scripts/ptx-corpus).

Every kernel of every file runs on one thread (its atomics address p[0] or its block's shared
array; old values go to p[64]), in the original and in each retargeted module, from the same
memory and the same operands, over several trials; the final memory must be the same byte for
byte. Operand and memory bytes are below 0x40, so every float is finite and every integer
small. The original's PTX ISA (9.5) is newer than a driver JIT-compiles, so it runs as ptxas
13.5's sm_90 code, checked in beside it (tests/ptx-corpus/cubin/sm_90), on an sm_90 device,
and is assembled by ptxas (PTXAS, else `ptxas` on PATH) for any other; the retargeted modules
(ISA 8.8) are JIT-compiled by the driver, so sm_60/70/80 code runs on a newer GPU for real.

Usage: python3 tests/gpu/retarget.py [OUT.json]   (default target/gpu-retarget.json)
Needs CuPy and a GPU of sm_90 or newer. Exit code 1 when a kernel's memory differs or a module
or kernel fails.
"""
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zlib

import cupy as cp
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "ptx-corpus")
TARGETS = ["sm_60", "sm_70", "sm_80"]
TRIALS = 4
MEMORY_BYTES = 2048
SCALARS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def entries(ptx):
    """Each `.entry` with the byte size of each parameter, in order."""
    found = []
    for match in re.finditer(r"\.entry\s+(\w+)\s*\(([^)]*)\)", ptx):
        sizes = []
        for param in match.group(2).split(","):
            param = param.strip()
            if not param:
                continue
            array = re.search(r"\.b8\s+\w+\[(\d+)\]", param)
            if array:
                sizes.append(int(array.group(1)))
                continue
            kind = re.search(r"\.[usbf](8|16|32|64)\b", param)
            sizes.append(int(kind.group(1)) // 8 if kind else 8)
        found.append((match.group(1), sizes))
    return found


def load_original(path, arch):
    cubin = os.path.join(CORPUS, "cubin", arch, os.path.basename(path)[:-len(".ptx")] + ".cubin")
    if os.path.exists(cubin):
        return cp.RawModule(path=cubin)
    ptxas = os.environ.get("PTXAS") or shutil.which("ptxas")
    if not ptxas:
        raise RuntimeError("ptxas not found (set PTXAS): the original's PTX ISA needs it")
    cubin = tempfile.NamedTemporaryFile(suffix=".cubin", delete=False).name
    subprocess.run([ptxas, f"-arch={arch}", path, "-o", cubin], check=True)
    return cp.RawModule(path=cubin)


def load_retargeted(target, name):
    """A retargeted module: the driver JIT-compiles its PTX, unless it keeps an ISA newer than
    the driver knows; then scripts/ptx-corpus has assembled it for sm_90 beside the originals."""
    cubin = os.path.join(CORPUS, "cubin", target, "retarget-" + name[:-len(".ptx")] + ".cubin")
    if os.path.exists(cubin):
        return cp.RawModule(path=cubin)
    return cp.RawModule(path=os.path.join(CORPUS, "retarget", target, name))


def trial_inputs(trial, sizes, rng):
    """The memory image and the scalar operands of one trial."""
    memory = rng.integers(0, 0x40, MEMORY_BYTES, dtype=np.uint8)
    if trial == 0:
        memory[:] = 0
    scalars = [rng.integers(0, 0x40, size, dtype=np.uint8) for size in sizes[1:]]
    if trial == 2 and scalars:
        # The first operand equals the value at p[0]: a compare-and-swap succeeds.
        memory[: len(scalars[0])] = scalars[0]
    return memory, scalars


def run(module, kernel, memory, scalars):
    function = module.get_function(kernel)
    buffer = cp.asarray(memory.copy())
    args = [np.uint64(buffer.data.ptr)]
    for data in scalars:
        # A by-value parameter: its bytes as an unsigned integer of its size.
        args.append(np.frombuffer(data.tobytes(), dtype=SCALARS[len(data)])[0])
    function((1,), (1,), tuple(args))
    cp.cuda.runtime.deviceSynchronize()
    return cp.asnumpy(buffer)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "gpu-retarget.json")
    device = cp.cuda.Device()
    arch = f"sm_{device.compute_capability}"
    properties = cp.cuda.runtime.getDeviceProperties(device.id)
    record = {
        "device": properties["name"].decode(),
        "compute_capability": device.compute_capability,
        "driver": cp.cuda.runtime.driverGetVersion(),
        "runtime": cp.cuda.runtime.runtimeGetVersion(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "trials": TRIALS,
        "kernels": [],
        "errors": [],
        "skipped": [],
    }
    source_dir = os.path.join(CORPUS, "nvcc", "sm_90")
    for name in sorted(os.listdir(source_dir)):
        path = os.path.join(source_dir, name)
        with open(path) as f:
            ptx = f.read()
        try:
            original = load_original(path, arch)
        except Exception as error:
            record["errors"].append({"file": name, "target": "sm_90", "error": str(error)})
            continue
        modules = {}
        for target in TARGETS:
            try:
                modules[target] = load_retargeted(target, name)
            except Exception as error:
                record["errors"].append({"file": name, "target": target, "error": str(error)})
        for kernel, sizes in entries(ptx):
            if any(size not in SCALARS for size in sizes[1:]):
                # CuPy passes scalars of 1 to 8 bytes; a 16-byte float4 by value has no such type.
                record["skipped"].append({"file": name, "kernel": kernel, "why": "a 16-byte parameter"})
                continue
            rng = np.random.default_rng(zlib.crc32(f"{name}/{kernel}".encode()))
            inputs = [trial_inputs(trial, sizes, rng) for trial in range(TRIALS)]
            try:
                expected = [run(original, kernel, m, s) for m, s in inputs]
            except Exception as error:
                record["errors"].append({"file": name, "kernel": kernel, "target": "sm_90", "error": str(error)})
                continue
            for target, module in modules.items():
                row = {"file": name, "kernel": kernel, "target": target, "equal": True}
                try:
                    for trial, ((memory, scalars), want) in enumerate(zip(inputs, expected)):
                        got = run(module, kernel, memory, scalars)
                        if not np.array_equal(got, want):
                            at = int(np.nonzero(got != want)[0][0])
                            row.update(equal=False, trial=trial, first_difference=at,
                                       original=want[at:at + 16].tobytes().hex(),
                                       retargeted=got[at:at + 16].tobytes().hex())
                            break
                except Exception as error:
                    row.update(equal=False, error=str(error))
                record["kernels"].append(row)
    summary = {}
    for row in record["kernels"]:
        counts = summary.setdefault(row["target"], {"equal": 0, "different": 0, "failed": 0})
        counts["failed" if "error" in row else "equal" if row["equal"] else "different"] += 1
    record["summary"] = summary
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(record, f, indent=1)
    print(json.dumps({"device": record["device"], "summary": summary, "errors": len(record["errors"]),
                      "skipped": len(record["skipped"])}))
    failed = record["errors"] or any(not row["equal"] for row in record["kernels"])
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
