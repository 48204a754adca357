"""Runs the example compiler's kernels on an NVIDIA GPU through CuPy, for `ptx:sm_70` and
`ptx:sm_90` code, and checks every result against what the kernel means, computed here on the
host. The PTX is JIT-compiled by the driver, so sm_70 code runs on newer GPUs too (and its
emulations execute for real).

    python3 examples/python/run_gpu.py [OUT.json]

Writes a JSON record (device, compute capability, driver and runtime versions, date, atomir's
version, and per target and kernel: the PTX's SHA-256, the check's verdict and what it compared)
to OUT.json (default `examples/python/results/gpu-<date>.json`); exits 1 if any check fails.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from typing import Any, Callable, Dict, List, Optional, Tuple

import cupy as cp  # type: ignore[import-not-found]
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import atomir  # noqa: E402
import kernel_compiler  # noqa: E402

TARGETS = ["ptx:sm_70", "ptx:sm_90"]
BLOCKS, THREADS = 64, 256
Check = Tuple[bool, str]


def histogram256(function: Callable[..., Any], rng: np.random.Generator) -> Check:
    n = 1 << 20
    # Skewed toward a few bins, so blocks contend on them in shared and global memory.
    data = np.where(rng.random(n) < 0.5, rng.integers(0, 4, n), rng.integers(0, 256, n)).astype(np.uint8)
    bins = cp.zeros(256, dtype=cp.uint32)
    function((BLOCKS,), (THREADS,), (cp.asarray(data), np.uint32(n), bins))
    got, want = cp.asnumpy(bins), np.bincount(data, minlength=256).astype(np.uint32)
    wrong = int(np.count_nonzero(got != want))
    return wrong == 0, f"{n} bytes into 256 bins: {wrong} bins differ; bin 0 = {int(got[0])} (expected {int(want[0])})"


def max_reduce(function: Callable[..., Any], rng: np.random.Generator) -> Check:
    n = 1 << 20
    x = (rng.standard_normal(n) * 1000.0).astype(np.float32)
    x[rng.integers(0, n, 16)] = -np.inf
    out = cp.full(1, -np.inf, dtype=cp.float32)
    function((BLOCKS,), (THREADS,), (cp.asarray(x), np.uint32(n), out))
    got, want = cp.asnumpy(out)[0], x.max()
    return bool(got == want), f"max of {n} floats: {got!r} (expected {want!r})"


def grad_accumulate(function: Callable[..., Any], rng: np.random.Generator) -> Check:
    n, slots = 1 << 16, 256
    # Multiples of 0.5 up to 2: every partial sum (at most 512) is exact in f16, so the sums do
    # not depend on the order of the additions.
    g = (rng.integers(1, 5, n) * 0.5).astype(np.float16)
    grad = cp.zeros(slots, dtype=cp.float16)
    function((BLOCKS,), (THREADS,), (cp.asarray(g), np.uint32(n), np.uint32(slots), grad))
    want = np.zeros(slots, dtype=np.float64)
    np.add.at(want, np.arange(n) % slots, g.astype(np.float64))
    got = cp.asnumpy(grad).astype(np.float64)
    wrong = int(np.count_nonzero(got != want))
    return wrong == 0, f"{n} f16 gradients into {slots} slots: {wrong} slots differ; slot 0 = {got[0]} (expected {want[0]})"


def ticket_lock(function: Callable[..., Any], rng: np.random.Generator) -> Check:
    blocks = 256
    next_ticket, now_serving = cp.zeros(1, dtype=cp.uint32), cp.zeros(1, dtype=cp.uint32)
    counter, order = cp.zeros(1, dtype=cp.uint32), cp.zeros(blocks, dtype=cp.uint32)
    function((blocks,), (32,), (next_ticket, now_serving, counter, order))
    values = [int(cp.asnumpy(a)[0]) for a in (next_ticket, now_serving, counter)]
    # Ticket t holds the lock t-th: it reads the counter at t and leaves t + 1.
    in_order = bool(np.array_equal(cp.asnumpy(order), np.arange(1, blocks + 1, dtype=np.uint32)))
    ok = values == [blocks] * 3 and in_order
    return ok, (
        f"{blocks} blocks through the lock: tickets {values[0]}, served {values[1]}, "
        f"counter {values[2]} (expected {blocks} each); turns in ticket order: {in_order}"
    )


CHECKS: Dict[str, Callable[[Callable[..., Any], np.random.Generator], Check]] = {
    "histogram256": histogram256,
    "max_reduce": max_reduce,
    "grad_accumulate": grad_accumulate,
    "ticket_lock": ticket_lock,
}


def commit() -> Optional[str]:
    """The repository's commit, where git can tell."""
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True,
            cwd=os.path.dirname(os.path.abspath(__file__)),
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def device_record() -> Dict[str, Any]:
    properties = cp.cuda.runtime.getDeviceProperties(0)
    name = properties["name"]
    return {
        "device": name.decode() if isinstance(name, bytes) else str(name),
        "compute_capability": f"{properties['major']}.{properties['minor']}",
        "driver": cp.cuda.runtime.driverGetVersion(),
        "runtime": cp.cuda.runtime.runtimeGetVersion(),
        "cupy": cp.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "atomir": atomir.__version__,
        "commit": commit(),
    }


def run(directory: str) -> List[Dict[str, Any]]:
    results = []
    for name in TARGETS:
        target = atomir.Target(name)
        for kernel_name, kernel in kernel_compiler.compile_ptx(target).items():
            ptx = kernel.render()
            path = os.path.join(directory, f"{kernel_name}_{target.sm}.ptx")
            with open(path, "w") as f:
                f.write(ptx)
            record: Dict[str, Any] = {
                "target": str(target),
                "kernel": kernel_name,
                "ptx_sha256": hashlib.sha256(ptx.encode()).hexdigest(),
                "atomics": [f"{use.node}" for use in kernel.atomics],
            }
            try:
                function = cp.RawModule(path=path).get_function(kernel_name)
                ok, detail = CHECKS[kernel_name](function, np.random.default_rng(2026))
                cp.cuda.runtime.deviceSynchronize()
            except Exception as error:  # a launch or JIT failure is a failed check, recorded
                ok, detail = False, f"{type(error).__name__}: {error}"
            record.update(ok=ok, detail=detail)
            print(f"{'ok  ' if ok else 'FAIL'} {target} {kernel_name}: {detail}")
            results.append(record)
    return results


def main(argv: List[str]) -> int:
    record = device_record()
    with tempfile.TemporaryDirectory() as directory:
        record["results"] = run(directory)
    record["all_ok"] = all(result["ok"] for result in record["results"])
    default = os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "results", f"gpu-{record['date'][:10]}.json"
    )
    out = argv[0] if argv else default
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(record, f, indent=2)
        f.write("\n")
    passed = sum(result["ok"] for result in record["results"])
    print(f"{passed} passed, {len(record['results']) - passed} failed")
    print(f"wrote {out} ({record['device']}, driver {record['driver']})")
    return 0 if record["all_ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
