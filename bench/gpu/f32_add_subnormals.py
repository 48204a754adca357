#!/usr/bin/env python3
"""The f32 atomic add and subnormals on the GPU: does the native `atom.global.add.f32` flush
them, is atomir's exact f32 add (the CAS loop it prints where the target has no `.noftz.f32`)
bit-exact on them, and what does the loop cost against the native add.

    bench/gpu/f32_add_subnormals.py prepare DIR [--atomir PATH]   # here: PTX and cubins
    python3 DIR/f32_add_subnormals.py run DIR OUT [--runs R]       # on the GPU machine (CuPy)
    bench/gpu/f32_add_subnormals.py run DIR OUT --simulate         # the run's self-test, no GPU

DIR is self-contained (the script and the patcher are copied in); `run` exits non-zero when a
form other than the native `ftz` one is not IEEE-exact on some pair, or a timed sum is wrong.

`prepare` writes one cell of each form as `atomir lower --module` prints it, in the per-thread
form of the cell timing harness (`cells/cellpatch.py`: thread t adds its operand `b[t]` to
element `t % n`, its old value to `out[t]`), assembled by ptxas 13.5 for sm_90:
- `ours`: the exact relaxed device-scope add on global memory for `ptx:sm_90` (PTX ISA 8.8):
  atomir's CAS loop, `add.rn.f32` in registers;
- `ours:serial-fold`: the same under `+serial-fold` (one CAS loop per address and warp);
- `native`: the same node of laxity `ftz`, which atomir prints as the native `atom.global.add.f32`;
- `noftz`: the exact node for `ptx:sm_90@9.4`, the native `atom.global.add.noftz.f32`;
- `shared`: the exact node on shared memory, the native `atom.shared::cta.add.f32`;
- `ours:dead`, `native:dead`: the result unused (the CAS loop; `red.global.add.f32`).

`run` (a) adds every pair of edge values (subnormals of both signs and the smallest and largest,
the smallest normal, signed zeros, ±1, infinities, NaNs) and random subnormal and near-normal
pairs, one thread per pair on an address of its own, and compares each contender's final memory
and old value with the IEEE sum (the host's f32 arithmetic) and with the sum with inputs and
result flushed to a zero of their sign; (b) times `ours`, `ours:serial-fold`, `native` and
`noftz` with the result used, at 1, 32 and 4096 addresses, every thread adding 1.0 (each final
sum is checked exactly), the median of --runs launches. OUT/f32_add_subnormals.json holds every
number, OUT/f32_add_subnormals.md the tables.
"""
import argparse
import ctypes
import datetime
import glob
import json
import os
import platform
import random
import re
import shutil
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CELLS = os.path.join(HERE, "cells")
for folder in (HERE, CELLS):
    if folder not in sys.path:
        sys.path.insert(0, folder)
import cellpatch  # noqa: E402

BLOCK = 256
ADDRESSES = (1, 32, 4096)
TIMED = ("ours", "ours:serial-fold", "native", "noftz")
# label: (target, laxity, space, result used)
FORMS = {
    "ours": ("ptx:sm_90", "", "global", True),
    "ours:serial-fold": ("ptx:sm_90+serial-fold", "", "global", True),
    "native": ("ptx:sm_90", ".ftz", "global", True),
    "noftz": ("ptx:sm_90@9.4", "", "global", True),
    "shared": ("ptx:sm_90", "", "shared", True),
    "ours:dead": ("ptx:sm_90", "", "global", False),
    "native:dead": ("ptx:sm_90", ".ftz", "global", False),
}
# Edge values: ±0, ±1, the smallest and largest subnormals and some between, the smallest
# normal and its neighbour, the largest finite, infinities, a quiet and a signalling NaN.
EDGES = [0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x00000001, 0x80000001, 0x00000002,
         0x00000003, 0x80000003, 0x00400000, 0x807FFFFF, 0x007FFFFF, 0x00800000, 0x80800000,
         0x00800001, 0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001]


def fail(message):
    raise SystemExit(f"f32_add_subnormals: {message}")


# ---------------------------------------------------------------- the reference, on the host

def to_float(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def to_bits(value):
    return struct.unpack("<I", bytes(ctypes.c_float(value)))[0]


def is_nan(bits):
    return (bits & 0x7FFFFFFF) > 0x7F800000


def is_subnormal(bits):
    return (bits & 0x7F800000) == 0 and (bits & 0x007FFFFF) != 0


def flushed(bits):
    return bits & 0x80000000 if is_subnormal(bits) else bits


def ieee_add(a, b):
    """The IEEE 754 f32 sum (round to nearest even): the f64 sum of two f32 values is exact
    short of overflow, and ctypes rounds it to f32 once."""
    return to_bits(to_float(a) + to_float(b))


def ftz_add(a, b):
    """The sum with inputs and result flushed to a zero of their sign, as PTX documents for
    `atom.add.f32` on global memory."""
    return flushed(ieee_add(flushed(a), flushed(b)))


def same(got, expected):
    return got == expected or (is_nan(got) and is_nan(expected))


def pairs(count, seed=0x5B_F32):
    """Every pair of edge values, then at least `count` random pairs of subnormal or near-normal
    values (exponent field 0 to 2), of either sign: as many as fill whole blocks, since every
    thread of a launch takes a pair."""
    chosen = [(a, b) for a in EDGES for b in EDGES]
    rng = random.Random(seed)
    for _ in range(-(-(len(chosen) + count) // BLOCK) * BLOCK - len(chosen)):
        def draw():
            return (rng.getrandbits(1) << 31) | (rng.randrange(3) << 23) | rng.getrandbits(23)
        chosen.append((draw(), draw()))
    return chosen


# ---------------------------------------------------------------- prepare (on the CPU)

def cell_text(laxity, space, used):
    pointer = "ptr.shared" if space == "shared" else "ptr.global"
    result = "%r = " if used else ""
    return (f"kernel f32_add(%a: {pointer}, %b: f32) {{\n"
            f"  {result}atomic.add.relaxed.device.{space}.f32{laxity} [%a], %b\n}}\n")


def oracles():
    root = os.path.dirname(os.path.dirname(HERE))
    return os.environ.get("ATOMIR_ORACLES") or os.path.join(root, "target", "oracles")


def ptxas():
    found = sorted(glob.glob(os.path.join(
        oracles(), "cu13/lib/python3*/site-packages/nvidia/cu13/bin/ptxas")))
    if not found:
        fail("ptxas 13.5 not found; run scripts/install-oracles")
    return found[-1]


def prepare(options):
    root = os.path.dirname(os.path.dirname(HERE))
    atomir = options.atomir or os.path.join(root, "target", "release", "atomir")
    if not os.path.exists(atomir):
        atomir = os.path.join(root, "target", "debug", "atomir")
    assembler = ptxas()
    os.makedirs(options.dir, exist_ok=True)
    forms = {}
    for label, (target, laxity, space, used) in FORMS.items():
        stem = label.replace(":", "-")
        source = os.path.join(options.dir, f"{stem}.atom")
        with open(source, "w") as f:
            f.write(cell_text(laxity, space, used))
        done = subprocess.run([atomir, "lower", source, "--target", target, "--module"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            fail(f"{label}: atomir lower: {done.stderr.strip()}")
        patched = cellpatch.patch_entry(done.stdout, "f32_add", 4, 1, used, space)
        ptx = os.path.join(options.dir, f"{stem}.ptx")
        with open(ptx, "w") as f:
            f.write(patched)
        cubin = os.path.join(options.dir, f"{stem}.cubin")
        done = subprocess.run([assembler, "-arch=sm_90", "-O3", "-o", cubin, ptx],
                              capture_output=True, text=True)
        if done.returncode != 0:
            fail(f"{label}: ptxas: {(done.stdout + done.stderr).strip()}")
        forms[label] = {"target": target, "laxity": laxity or "exact", "space": space,
                        "used": used, "ptx": f"{stem}.ptx", "cubin": f"{stem}.cubin",
                        "atom": atom_lines(patched)}
    version = subprocess.run([assembler, "--version"], capture_output=True, text=True)
    manifest = {"forms": forms, "ptxas": version.stdout.strip().splitlines()[-1],
                "prepared": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    with open(os.path.join(options.dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    for script in (os.path.abspath(__file__), os.path.join(CELLS, "cellpatch.py"),
                   os.path.join(HERE, "ptxpatch.py")):
        shutil.copy(script, options.dir)
    for label, form in forms.items():
        print(f"{label:18} {form['target']:24} {form['space']:7} {'; '.join(form['atom'])}")
    print(f"prepared {len(forms)} forms in {options.dir}")


def atom_lines(ptx):
    """The atomics and the f32 arithmetic of a form's PTX, to show what each contender is."""
    return [line.strip().rstrip(";") for line in ptx.splitlines()
            if line.strip().startswith(("atom.", "red.", "add.rn.f32"))]


# ---------------------------------------------------------------- the device, and its model

class Gpu:
    def __init__(self, folder):
        import cupy
        import numpy
        self.cp, self.np, self.folder = cupy, numpy, folder
        self.kernels = {}

    def describe(self):
        properties = self.cp.cuda.runtime.getDeviceProperties(0)
        return {"device": properties["name"].decode(),
                "driver": self.cp.cuda.runtime.driverGetVersion(),
                "sms": properties["multiProcessorCount"]}

    def kernel(self, form):
        """The form's kernel from its cubin, or, where the driver refuses the cubin, from its
        PTX with the ISA version lowered to 9.0 (what a CUDA 13.0 driver JIT-compiles; the
        `.noftz` form needs 9.4 and then fails with the driver's message)."""
        if form["cubin"] not in self.kernels:
            try:
                module = self.cp.RawModule(path=os.path.join(self.folder, form["cubin"]))
                form["loaded"] = "cubin"
            except self.cp.cuda.driver.CUDADriverError as error:
                with open(os.path.join(self.folder, form["ptx"])) as f:
                    ptx = re.sub(r"^\.version \d+\.\d+", ".version 9.0", f.read(), flags=re.M)
                module = self.cp.RawModule(code=ptx)
                form["loaded"] = f"PTX 9.0 (cubin refused: {error})"
            self.kernels[form["cubin"]] = module.get_function("f32_add")
        return self.kernels[form["cubin"]]

    def launch(self, form, memory, operands, addresses, threads, runs=1):
        """Launches `runs` times from `memory`; (final memory, old values, median ms)."""
        np, cp = self.np, self.cp
        a = cp.asarray(np.array(memory, dtype=np.uint32))
        b = cp.asarray(np.array(operands, dtype=np.uint32))
        out = cp.zeros(threads, dtype=np.uint32)
        kernel = self.kernel(form)
        args = (a, b, out, np.uint32(addresses)) if form["used"] else (a, b, np.uint32(addresses))
        grid = (threads + BLOCK - 1) // BLOCK
        times = []
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        for _ in range(runs):
            a.set(np.array(memory, dtype=np.uint32))
            start.record()
            kernel((grid,), (BLOCK,), args)
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop))
        olds = out.get().tolist() if form["used"] else None
        return a.get().tolist(), olds, sorted(times)[len(times) // 2]


class Model:
    """The forms as the PTX ISA documents them, threads one after another: the native add on
    global memory flushes, every other form is IEEE. Tests the run's bookkeeping, not a GPU."""

    def __init__(self, folder):
        self.folder = folder

    def describe(self):
        return {"device": "model (no GPU)", "driver": None, "sms": None}

    def launch(self, form, memory, operands, addresses, threads, runs=1):
        add = ftz_add if form["laxity"] == ".ftz" else ieee_add
        memory = list(memory)
        olds = []
        for thread in range(threads):
            slot = element_of(form, thread, addresses)
            olds.append(memory[slot])
            memory[slot] = add(memory[slot], operands[thread])
        return memory, olds if form["used"] else None, 0.0


def element_of(form, thread, addresses):
    """The word of `memory` thread `thread` acts on (cellpatch's layout: a shared form works on
    its block's slot, `slot_bytes` long)."""
    if form["space"] == "shared":
        words = cellpatch.slot_bytes(addresses, 4) // 4
        return (thread // BLOCK) * words + (thread % BLOCK) % addresses
    return thread % addresses


def memory_for(form, values, addresses, threads):
    """The initial memory holding `values[i]` at the word thread i acts on."""
    if form["space"] == "shared":
        words = cellpatch.slot_bytes(addresses, 4) // 4
        memory = [0] * (words * ((threads + BLOCK - 1) // BLOCK))
    else:
        memory = [0] * addresses
    for thread, value in enumerate(values):
        memory[element_of(form, thread, addresses)] = value
    return memory


# ---------------------------------------------------------------- run (on the GPU)

def exactness(device, forms, chosen):
    """(a): each form on every pair, one thread and address per pair (one block's worth of
    addresses per block for the shared form)."""
    rows = {}
    for label, form in forms.items():
        threads = len(chosen)
        addresses = BLOCK if form["space"] == "shared" else threads
        memory = memory_for(form, [a for a, _ in chosen], addresses, threads)
        final, olds, _ = device.launch(form, memory, [b for _, b in chosen], addresses, threads)
        row = {"pairs": threads, "ieee": 0, "ftz": 0, "neither": 0, "subnormal_results": 0,
               "examples": []}
        for thread, (a, b) in enumerate(chosen):
            got = final[element_of(form, thread, addresses)]
            old_right = olds is None or olds[thread] == a
            exact, flush = ieee_add(a, b), ftz_add(a, b)
            row["subnormal_results"] += is_subnormal(exact)
            if same(got, exact) and old_right:
                row["ieee"] += 1
            elif same(got, flush) and old_right:
                row["ftz"] += 1
            else:
                row["neither"] += 1
            if not same(got, exact) and len(row["examples"]) < 8:
                row["examples"].append(f"{a:#010x} + {b:#010x} = {got:#010x} (IEEE {exact:#010x},"
                                       f" flushed {flush:#010x}, old {'ok' if old_right else 'WRONG'})")
        rows[label] = row
    return rows


def timing(device, forms, runs, threads):
    """(b): the result-used forms at 1, 32 and 4096 addresses, every thread adding 1.0; the
    final sums are integers below 2^24, so every order gives them exactly."""
    one = to_bits(1.0)
    rows = []
    for addresses in ADDRESSES:
        row = {"addresses": addresses, "threads": threads, "ms": {}, "checked": {}}
        for label in TIMED:
            form = forms[label]
            final, _, ms = device.launch(form, [0] * addresses, [one] * threads, addresses,
                                         threads, runs)
            expected = [to_bits(float(len(range(i, threads, addresses)))) for i in range(addresses)]
            row["ms"][label] = ms
            row["checked"][label] = final == expected
        rows.append(row)
    return rows


def report(result):
    lines = [f"# f32 atomic add and subnormals: {result['device']['device']}, {result['date']}", "",
             "(a) every edge pair and random subnormal pairs, one thread and address each:", "",
             "| form | target | PTX | pairs | IEEE | flushed | neither |", "|---|---|---|---:|---:|---:|---:|"]
    for label, row in result["exactness"].items():
        form = result["forms"][label]
        atom = "; ".join(form["atom"][:2]).replace("|", "\\|")
        lines.append(f"| {label} | {form['target']} {form['space']} {form['laxity']} | `{atom}` | "
                     f"{row['pairs']} | {row['ieee']} | {row['ftz']} | {row['neither']} |")
    for label, row in result["exactness"].items():
        for example in row["examples"]:
            lines.append(f"- {label}: {example}")
    lines += ["", "(b) median ms, every thread adding 1.0 (final sums checked exactly):", "",
              "| addresses | threads | " + " | ".join(TIMED) + " | ours/native |",
              "|---:|---:|" + "---:|" * (len(TIMED) + 1)]
    for row in result["timing"]:
        cells = [f"{row['ms'][label]:.4g}" + ("" if row["checked"][label] else " WRONG")
                 for label in TIMED]
        ratio = row["ms"]["ours"] / row["ms"]["native"] if row["ms"]["native"] else float("nan")
        lines.append(f"| {row['addresses']} | {row['threads']} | " + " | ".join(cells)
                     + f" | {ratio:.3g} |")
    return "\n".join(lines) + "\n"


def run(options):
    with open(os.path.join(options.dir, "manifest.json")) as f:
        manifest = json.load(f)
    forms = manifest["forms"]
    device = Model(options.dir) if options.simulate else Gpu(options.dir)
    started = time.time()
    chosen = pairs(options.random_pairs)
    result = {"device": device.describe(), "host": platform.node(), "forms": forms,
              "ptxas": manifest["ptxas"],
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "exactness": exactness(device, forms, chosen),
              "timing": timing(device, forms, options.runs, options.threads)}
    result["seconds"] = round(time.time() - started, 1)
    os.makedirs(options.out, exist_ok=True)
    with open(os.path.join(options.out, "f32_add_subnormals.json"), "w") as f:
        json.dump(result, f, indent=1)
    text = report(result)
    with open(os.path.join(options.out, "f32_add_subnormals.md"), "w") as f:
        f.write(text)
    print(text)
    wrong = [label for label, row in result["exactness"].items()
             if label != "native" and label != "native:dead" and row["ieee"] != row["pairs"]]
    wrong += [f"{label} at {row['addresses']}" for row in result["timing"]
              for label, ok in row["checked"].items() if not ok]
    if wrong:
        fail(f"not exact: {', '.join(wrong)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    made = commands.add_parser("prepare", help="write the forms' PTX and cubins (CPU)")
    made.add_argument("dir")
    made.add_argument("--atomir", help="the atomir binary (default: target/release, then debug)")
    runner = commands.add_parser("run", help="run the forms (GPU, or --simulate)")
    runner.add_argument("dir")
    runner.add_argument("out")
    runner.add_argument("--runs", type=int, default=5)
    runner.add_argument("--threads", type=int, default=1 << 16,
                        help="threads of a timed launch (default 65536: a CAS loop on one "
                             "address retries per lane)")
    runner.add_argument("--random-pairs", type=int, default=4096)
    runner.add_argument("--simulate", action="store_true",
                        help="the PTX ISA's model of the forms instead of a GPU (a self-test)")
    options = parser.parse_args()
    if options.command == "run" and options.threads % BLOCK:
        fail(f"--threads must be a multiple of {BLOCK} (every thread of a launch acts)")
    if options.command == "prepare":
        prepare(options)
    else:
        run(options)


if __name__ == "__main__":
    main()
