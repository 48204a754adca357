#!/usr/bin/env python3
"""GPU contention benchmark: atomir's PTX against nvcc's CUDA atomic functions and llc 22's PTX.

    python3 contention.py DIR OUT [--cases add_u8,max_f32_used,...] [--patterns ...]
                                  [--addresses 1,32] [--threads N] [--launch-cap S]
                                  [--runs R] [--budget S] [--simulate [--simulate-wrong C]]

DIR is what `bench/gpu/prepare` made (manifest.json, the patched PTX of atomir and llc, the CUDA
source, the semantics checker `gpu_bench`, these scripts). OUT receives results.json (every
number, the device, driver and date), results.md (the tables) and log.txt.

For every kernel (cases.py) x operand pattern x number of addresses, and every contender:
1. the thread count: 2^20 threads, unless a launch of some contender would take longer than
   --launch-cap seconds (CAS loops on one address can take tens of seconds): then the largest
   of 4096, 16384, 65536, 262144 threads that keeps every contender's launch under the cap,
   found by probing upwards; one count for all contenders of the row, recorded with it;
2. the check: one launch from fresh memory, its final memory and old values checked against
   atomir's reference semantics by `gpu_bench check` (a valid linearization of the old values;
   exact final memory of order-independent reductions; float add reductions exactly where
   every order gives the same sum, else within a rounding bound, else only "no NaN", each
   labelled); a contender whose result is wrong is reported, not timed;
3. the time: CUDA events around each launch, memory reset before each, one warm-up, then the
   median of --runs launches (at least 3, fewer than --runs where a launch is slow; the check
   launch counts as the first where it took more than 50 ms).
--simulate runs everything against a model instead of a GPU (sequential semantics for the
results, invented times) to test this script: its output says SIMULATED on every table.
"""
import argparse
import concurrent.futures
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cases as C  # noqa: E402
import table  # noqa: E402

LADDER = (1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20)
SLOW_CHECK_LAUNCH = 0.05  # seconds: a check launch this slow counts as a timed run
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


# ---------------------------------------------------------------- operands and memory

def _f16_bits(values):
    return values.astype(np.float16).view(np.uint16)


def _bf16_bits(values):
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16  # round to nearest even (finite values)
    return rounded.astype(np.uint16)


def float_bits(type_, values):
    """The bits of float64 `values` as `type_` (both lanes of a packed type hold the value)."""
    lane = {"f16x2": "f16", "bf16x2": "bf16"}.get(type_, type_)
    if lane == "f32":
        bits = values.astype(np.float32).view(np.uint32)
    elif lane == "f64":
        bits = values.astype(np.float64).view(np.uint64)
    elif lane == "f16":
        bits = _f16_bits(values)
    else:
        bits = _bf16_bits(values)
    if lane != type_:
        bits = bits.astype(np.uint32) * np.uint32(0x10001)
    return bits


def operand_values(case, pattern, threads):
    """Every thread's operand as raw bytes (see cases.py for the patterns)."""
    tid = np.arange(threads, dtype=np.uint64)
    rng = np.random.default_rng(zlib.crc32(f"{case.group}/{pattern}".encode()))
    if case.type.startswith("u"):
        width = C.SIZE[case.type]
        if pattern == "constant":
            values = np.ones(threads, dtype=np.uint64)
        elif pattern == "increasing":
            values = tid
        else:
            values = rng.integers(0, 1 << 64, size=threads, dtype=np.uint64, endpoint=False)
        return values.astype(UINT[width]).view(np.uint8)
    small = case.type in ("f16", "bf16", "f16x2", "bf16x2")
    if pattern == "constant":
        values = np.full(threads, 1.0 if case.op == "add" else 3.5)
    elif pattern == "increasing":
        values = tid.astype(np.float64) / (1 << 20) if small else tid.astype(np.float64)
        if case.op == "min":
            values = -values
    elif case.op == "add":
        values = rng.integers(-15, 16, size=threads).astype(np.float64)
    else:
        values = rng.standard_normal(threads) * 1000.0
    return float_bits(case.type, values).view(np.uint8)


def initial_memory(case, addresses):
    """n elements (-inf for float max, +inf for float min, else 0), then guard bytes."""
    size = case.size
    length = -(-addresses * size // 16) * 16 + 16
    memory = np.full(length, C.GUARD_BYTE, dtype=np.uint8)
    if case.op in ("max", "min") and not case.type.startswith("u"):
        value = float_bits(case.type, np.array([-np.inf if case.op == "max" else np.inf]))
    else:
        value = np.zeros(1, dtype=UINT[size])
    memory[: addresses * size] = np.tile(value.view(np.uint8), addresses)
    return memory


# ---------------------------------------------------------------- devices

class CudaDevice:
    """The GPU, through CuPy."""

    simulated = False

    def __init__(self):
        import cupy
        self.cp = cupy
        self.start, self.stop = cupy.cuda.Event(), cupy.cuda.Event()

    def info(self):
        cp = self.cp
        props = cp.cuda.runtime.getDeviceProperties(0)
        info = {
            "name": props["name"].decode(),
            "compute_capability": f"{props['major']}.{props['minor']}",
            "multiprocessors": props["multiProcessorCount"],
            "cuda_driver_api": cp.cuda.runtime.driverGetVersion(),
            "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
            "cupy": cp.__version__,
        }
        try:
            query = "driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw"
            line = subprocess.run(
                ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
                capture_output=True, text=True, timeout=20,
            ).stdout.splitlines()[0]
            for key, value in zip(query.split(","), line.split(",")):
                info[key.replace(".", "_")] = value.strip()
        except Exception as error:  # noqa: BLE001 - nvidia-smi is optional
            info["nvidia_smi"] = f"unavailable: {error}"
        return info

    def load(self, path):
        return self.cp.RawModule(path=path)

    def kernel(self, module, name):
        return module.get_function(name)

    def buffers(self, init, operands, olds_bytes):
        cp = self.cp
        return {
            "init": cp.asarray(init),
            "memory": cp.asarray(init),
            "operands": cp.asarray(operands),
            "olds": cp.zeros(max(olds_bytes, 1), dtype=cp.uint8),
        }

    def launch(self, kernel, row, threads, bufs, results):
        """One launch from fresh memory; (seconds, final memory, old values) or just seconds."""
        cp = self.cp
        cp.copyto(bufs["memory"], bufs["init"])
        if results and row.case.used:
            bufs["olds"].fill(0xFF)  # poison: a thread that stores nothing leaves a NaN / max
        args = [bufs["memory"], bufs["operands"]]
        if row.case.used:
            args.append(bufs["olds"])
        args.append(np.uint32(row.addresses))
        self.start.record()
        kernel((threads // C.BLOCK,), (C.BLOCK,), tuple(args))
        self.stop.record()
        self.stop.synchronize()
        seconds = cp.cuda.get_elapsed_time(self.start, self.stop) / 1e3
        if not results:
            return seconds, None, None
        memory = cp.asnumpy(bufs["memory"])
        olds = cp.asnumpy(bufs["olds"][: threads * row.case.size]) if row.case.used else None
        return seconds, memory, olds


class SimulatedDevice:
    """A stand-in for the GPU that tests this script on a CPU: results from a sequential run
    (`gpu_bench simulate`, threads shuffled), times from a made-up model. Never a measurement."""

    simulated = True

    def __init__(self, checker, workdir, wrong):
        self.checker, self.workdir, self.wrong = checker, workdir, set(wrong)
        self.calls = 0

    def info(self):
        return {"name": "SIMULATED (no GPU)", "cuda_driver_api": None}

    def load(self, path):
        with open(path) as f:
            text = f.read()
        return {"path": path, "contender": os.path.basename(path).split(".")[0], "text": text}

    def kernel(self, module, name):
        text = module["text"]
        start = text.find(f".entry {name}(")
        if start < 0:
            raise KeyError(f"no kernel {name} in {module['path']}")
        params = text[start:text.index(")", start)].count(".param")
        return (module["contender"], name, params)

    def buffers(self, init, operands, olds_bytes):
        return {"init": init, "operands": operands}

    def model_seconds(self, kernel, row, threads):
        contender = kernel[0]
        per_address = -(-threads // row.addresses)
        native = row.case.op == "add" and row.case.type in ("u32", "u64", "f32", "f16x2", "bf16x2")
        cost = 0.75e-9 if native else (40e-9 if row.pattern == "constant" else 400e-9)
        if row.case.type in ("u8", "u16"):
            cost = 40e-9 * per_address ** 0.5
        factor = {"nvcc": 1.2, "llc": 1.05}.get(contender, 1.0)
        return 5e-6 + per_address * cost * factor

    def launch(self, kernel, row, threads, bufs, results):
        # A GPU takes whatever arguments it is handed: a kernel that declares other
        # parameters than the launch passes (memory, operands, [olds,] n) reads garbage there.
        passed = 3 + (1 if row.case.used else 0)
        if kernel[2] != passed:
            raise RuntimeError(f"{kernel[1]} declares {kernel[2]} parameters, the launch passes {passed}")
        seconds = self.model_seconds(kernel, row, threads)
        if not results:
            return seconds, None, None
        self.calls += 1
        folder = tempfile.mkdtemp(dir=self.workdir)
        init, operands = os.path.join(folder, "init"), os.path.join(folder, "operands")
        final, olds = os.path.join(folder, "final"), os.path.join(folder, "olds")
        bufs["init"].tofile(init)
        bufs["operands"][: threads * getattr(row.case, "operand_size", row.case.size)].tofile(operands)
        subprocess.run(
            [self.checker, *row.checker_call("simulate", threads), "--init", init,
             "--operands", operands, "--final", final, "--olds", olds,
             "--order", f"shuffle:{self.calls}"],
            check=True,
        )
        memory = np.fromfile(final, dtype=np.uint8)
        old_values = np.fromfile(olds, dtype=np.uint8) if row.case.used else None
        if kernel[0] in self.wrong:
            memory[0] ^= 0x40
        shutil.rmtree(folder)
        return seconds, memory, old_values


# ---------------------------------------------------------------- one row

class Row:
    def __init__(self, case, pattern, addresses):
        self.case, self.pattern, self.addresses = case, pattern, addresses

    def checker_args(self, threads):
        return ["--op", self.case.op, "--type", self.case.type, "--result", self.case.result,
                "--addresses", str(self.addresses), "--threads", str(threads)]

    def checker_call(self, command, threads):
        """The checker's arguments for `command` (check or simulate) on this row."""
        return [command, *self.checker_args(threads)]

    def key(self):
        return f"{self.case.name} {self.pattern} n={self.addresses}"


class Runner:
    def __init__(self, device, folder, options, log):
        self.device, self.folder, self.options, self.log = device, folder, options, log
        self.checker = os.path.join(folder, "gpu_bench")
        self.workdir = tempfile.mkdtemp(prefix="atomir-contention-", dir=_scratch())
        self.operand_cache = {}
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=8)

    def operands(self, case, pattern):
        key = (case.group, pattern)
        if key not in self.operand_cache:
            values = operand_values(case, pattern, self.options.threads)
            path = os.path.join(self.workdir, f"operands-{case.group}-{pattern}")
            values.tofile(path)
            self.operand_cache[key] = (values, path)
        return self.operand_cache[key]

    def initial_memory(self, case, addresses):
        return initial_memory(case, addresses)

    def thread_count(self, row, kernels, bufs, record):
        """The largest ladder step at which no contender's launch exceeds the cap."""
        most = self.options.threads
        if row.addresses >= 4096:
            return most
        steps = [t for t in LADDER if row.addresses <= t < most] + [most]
        previous = None
        for threads in steps:
            slowest = 0.0
            for label, kernel in list(kernels.items()):
                try:
                    seconds, _, _ = self.device.launch(kernel, row, threads, bufs, False)
                except Exception as error:  # noqa: BLE001 - reported per contender
                    record[label] = {"status": "error", "reason": f"{type(error).__name__}: {error}"}
                    del kernels[label]
                    continue
                slowest = max(slowest, seconds)
            record.setdefault("_ladder", []).append({"threads": threads, "slowest_ms": slowest * 1e3})
            if threads == most:
                return threads
            growth = 16.0 if previous is None or previous < 5e-4 else min(16.0, max(4.0, slowest / previous))
            if slowest * growth > self.options.launch_cap:
                return threads
            previous = slowest
        return most

    def check(self, row, threads, operands_path, memory, olds, init):
        """(passed, the kind of check or what is wrong), by the semantics checker."""
        try:
            return self._check(row, threads, operands_path, memory, olds, init)
        except Exception as error:  # noqa: BLE001 - a checker that cannot run passes nothing
            return False, f"the checker could not run: {type(error).__name__}: {error}"

    def _check(self, row, threads, operands_path, memory, olds, init):
        folder = tempfile.mkdtemp(dir=self.workdir)
        try:
            paths = {name: os.path.join(folder, name) for name in ("init", "final", "olds")}
            init.tofile(paths["init"])
            memory.tofile(paths["final"])
            command = [self.checker, *row.checker_call("check", threads), "--init", paths["init"],
                       "--operands", operands_path, "--final", paths["final"]]
            if olds is not None:
                olds.tofile(paths["olds"])
                command += ["--olds", paths["olds"]]
            done = subprocess.run(command, capture_output=True, text=True)
            text = (done.stdout + done.stderr).strip()
            if done.returncode == 0 and text.startswith("ok "):
                return True, text[len("ok "):]
            if done.returncode == 1 and text.startswith("wrong: "):
                return False, text[len("wrong: "):]
            return False, text or f"checker exit {done.returncode}"
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def time(self, kernels, row, threads, bufs, samples, record):
        """Runs per contender (seconds), `samples` already taken counted in. The contenders take
        turns, so that a drift of the clocks during the row does not favour one of them. A short
        launch is timed right after an untimed launch of the same kernel: a kernel that follows
        another contender's long contended run is slower for a while (an H100, f16x2 add at 32
        addresses: 0.088 ms after itself, 0.093 to 0.113 ms after llc's 27 ms CAS loop, for
        nvcc's kernel as for ours), which would charge one contender for another's code."""
        runs = {label: list(samples[label]) for label in kernels}

        def wants_more(label):
            taken = runs[label]
            if len(taken) >= self.options.runs:
                return False
            return len(taken) < 3 or sum(taken) <= self.options.time_per_contender

        for label, kernel in list(kernels.items()):
            if not runs[label]:
                self._launch_or_drop(label, kernel, row, threads, bufs, kernels, record)  # warm-up
        while True:
            turn = [label for label in kernels if wants_more(label)]
            if not turn:
                return {label: runs[label] for label in kernels}
            for label in turn:
                if not runs[label] or runs[label][-1] < SLOW_CHECK_LAUNCH:
                    if self._launch_or_drop(label, kernels[label], row, threads, bufs, kernels, record) is None:
                        continue  # settles the GPU after the previous contender; not timed
                seconds = self._launch_or_drop(label, kernels[label], row, threads, bufs, kernels, record)
                if seconds is not None:
                    runs[label].append(seconds)

    def _launch_or_drop(self, label, kernel, row, threads, bufs, kernels, record):
        try:
            return self.device.launch(kernel, row, threads, bufs, False)[0]
        except Exception as error:  # noqa: BLE001 - reported per contender
            record[label] = {"status": "error", "reason": f"{type(error).__name__}: {error}"}
            kernels.pop(label, None)
            return None

    def run(self, row, modules):
        result = {"case": row.case.name, "op": row.case.op, "type": row.case.type,
                  "result": row.case.result, "pattern": row.pattern, "addresses": row.addresses}
        record = {}
        kernels = {}
        for label, module in modules.items():
            if not module["applies"](row.case):
                continue
            if module.get("error"):
                record[label] = {"status": "error", "reason": module["error"]}
                continue
            try:
                kernels[label] = self.device.kernel(module["module"], row.case.name)
            except Exception as error:  # noqa: BLE001
                record[label] = {"status": "missing", "reason": f"{type(error).__name__}: {error}"}
        values, operands_path = self.operands(row.case, row.pattern)
        init = self.initial_memory(row.case, row.addresses)
        bufs = self.device.buffers(init, values, self.options.threads * row.case.size)
        threads = self.thread_count(row, kernels, bufs, record)
        result["threads"] = threads
        result["ladder"] = record.pop("_ladder", [])
        launched = {}
        for label, kernel in kernels.items():
            try:
                launched[label] = self.device.launch(kernel, row, threads, bufs, True)
            except Exception as error:  # noqa: BLE001
                record[label] = {"status": "error", "reason": f"{type(error).__name__}: {error}"}
        checks = {
            label: self.pool.submit(self.check, row, threads, operands_path, memory, olds, init)
            for label, (_, memory, olds) in launched.items()
        }
        passed = {}
        samples = {}
        for label, future in checks.items():
            good, detail = future.result()
            if not good:
                record[label] = {"status": "wrong", "reason": detail}
                continue
            passed[label] = detail
            seconds = launched[label][0]
            samples[label] = [seconds] if seconds > SLOW_CHECK_LAUNCH else []
        timed = {label: kernels[label] for label in passed}
        runs = self.time(timed, row, threads, bufs, samples, record)
        for label, taken in runs.items():
            record[label] = {
                "status": "ok", "check": passed[label],
                "median_ms": statistics.median(taken) * 1e3,
                "min_ms": min(taken) * 1e3, "max_ms": max(taken) * 1e3,
                "runs": len(taken),
            }
        result["contenders"] = record
        return result


def _scratch():
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


# ---------------------------------------------------------------- setup

def find_nvcc():
    found = shutil.which("nvcc")
    if found:
        return found
    for candidate in ("/usr/local/cuda/bin/nvcc",):
        if os.path.exists(candidate):
            return candidate
    import glob
    for candidate in sorted(glob.glob("/usr/local/cuda*/bin/nvcc")) + sorted(
        glob.glob(os.path.join(sys.prefix, "lib/python3*/site-packages/nvidia/cu*/bin/nvcc"))
    ):
        return candidate
    return None


def compile_nvcc(folder, workdir, log):
    """nvcc's PTX for nvcc_cases.cu, compiled here: this machine's nvcc matches its driver. If
    that fails, the PTX that prepare's newer nvcc made (if any), its ISA version lowered to one
    this driver reads (it uses nothing newer), labelled as such in the results."""
    nvcc = find_nvcc()
    info = {}
    if nvcc is None:
        info["error"] = "nvcc not found on this machine"
    else:
        version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
        output = os.path.join(workdir, "nvcc.ptx")
        command = [nvcc, "-ptx", "-arch=sm_90", "-O3", "-o", output, os.path.join(folder, "nvcc_cases.cu")]
        done = subprocess.run(command, capture_output=True, text=True)
        info = {"nvcc": nvcc, "version": version[-1] if version else "?", "command": " ".join(command[1:])}
        if done.returncode == 0:
            log(f"nvcc: {info['version']}")
            return output, info
        info["error"] = f"nvcc failed: {done.stderr.strip()[-2000:]}"
    prepared = os.path.join(folder, "nvcc.ptx")
    if not os.path.exists(prepared):
        return None, info
    with open(prepared) as f:
        text = f.read()
    fallback = os.path.join(workdir, "nvcc-prepared.ptx")
    with open(fallback, "w") as f:
        f.write(re.sub(r"^\.version \d+\.\d+", ".version 8.7", text, count=1, flags=re.M))
    log(f"nvcc here: {info['error']}; using the PTX prepare made, as PTX ISA 8.7")
    return fallback, {"version": "prepare's nvcc (see prepared.nvcc_check), PTX ISA lowered to 8.7",
                      "fallback_because": info["error"]}


def self_test_checker(checker):
    """The checker must run on this machine and tell a right result from a wrong one."""
    with tempfile.TemporaryDirectory(dir=_scratch()) as folder:
        case = C.Case("add", "u32", True)
        row = Row(case, "random", 4)
        threads = 1024
        paths = {n: os.path.join(folder, n) for n in ("init", "operands", "final", "olds")}
        initial_memory(case, 4).tofile(paths["init"])
        operand_values(case, "random", threads).tofile(paths["operands"])
        files = [a for n in ("init", "operands", "final", "olds") for a in (f"--{n}", paths[n])]
        subprocess.run([checker, "simulate", *row.checker_args(threads), *files, "--order", "shuffle:5"], check=True)
        good = subprocess.run([checker, "check", *row.checker_args(threads), *files], capture_output=True, text=True)
        final = np.fromfile(paths["final"], dtype=np.uint8)
        final[1] ^= 1
        final.tofile(paths["final"])
        bad = subprocess.run([checker, "check", *row.checker_args(threads), *files], capture_output=True, text=True)
        if good.returncode != 0 or bad.returncode != 1:
            raise SystemExit(f"the checker does not work here: {good.stdout}{good.stderr} / {bad.stdout}{bad.stderr}")


def load_modules(device, folder, manifest, nvcc_ptx, nvcc_info, log):
    modules = {}
    for contender in manifest["contenders"]:
        label = contender["label"]
        kernels = set(contender.get("kernels") or [])
        entry = {"applies": (lambda case, k=kernels: case.name in k), "info": contender}
        path = nvcc_ptx if label == "nvcc" else (
            os.path.join(folder, contender["ptx"]) if contender.get("ptx") else None)
        if label == "nvcc" and nvcc_ptx is None:
            entry["error"] = nvcc_info.get("error", "nvcc unavailable")
        elif path is None:
            entry["error"] = contender.get("error", "no PTX")
        else:
            try:
                entry["module"] = device.load(path)
            except Exception as error:  # noqa: BLE001
                entry["error"] = f"loading {os.path.basename(path)}: {type(error).__name__}: {error}"
        if "error" in entry:
            log(f"{label}: {entry['error']}")
        modules[label] = entry
    return modules


def parse_options(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder")
    parser.add_argument("out")
    parser.add_argument("--cases", help="comma-separated kernel names or op_type groups (default: all)")
    parser.add_argument("--patterns", default=",".join(C.PATTERNS))
    parser.add_argument("--addresses", default=",".join(map(str, C.ADDRESSES)))
    parser.add_argument("--threads", type=int, default=C.THREADS)
    parser.add_argument("--launch-cap", type=float, default=0.6,
                        help="seconds one launch of any contender may take before a row runs fewer threads")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--time-per-contender", type=float, default=1.0,
                        help="seconds of timed launches per contender and row beyond which no more are run (at least 3)")
    parser.add_argument("--budget", type=float, default=400,
                        help="seconds after which no new row starts (the rest is reported as not run)")
    parser.add_argument("--simulate", action="store_true", help="no GPU: test this script against a model")
    parser.add_argument("--simulate-wrong", default="", help="with --simulate: contenders whose results are corrupted")
    options = parser.parse_args(argv)
    if options.threads % C.BLOCK or options.threads < C.BLOCK:
        parser.error(f"--threads must be a multiple of {C.BLOCK}")
    return options


def main(argv=None):
    options = parse_options(argv if argv is not None else sys.argv[1:])
    started = time.time()
    os.makedirs(options.out, exist_ok=True)
    log_file = open(os.path.join(options.out, "log.txt"), "w")

    def log(text):
        line = f"[{time.time() - started:6.1f}s] {text}"
        print(line, flush=True)
        log_file.write(line + "\n")
        log_file.flush()

    folder = os.path.abspath(options.folder)
    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    checker = os.path.join(folder, "gpu_bench")
    os.chmod(checker, 0o755)
    self_test_checker(checker)
    if options.simulate:
        device = SimulatedDevice(checker, _scratch(), [w for w in options.simulate_wrong.split(",") if w])
    else:
        device = CudaDevice()
    runner = Runner(device, folder, options, log)
    info = device.info()
    info["date"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    info["host"] = platform.node()
    info["python"] = platform.python_version()
    info["numpy"] = np.__version__
    log(f"device: {json.dumps(info)}")
    if options.simulate:
        nvcc_ptx, nvcc_info = os.path.join(folder, "nvcc.ptx"), {"version": "simulated"}
        if not os.path.exists(nvcc_ptx):
            nvcc_ptx, nvcc_info = None, {"error": "no nvcc.ptx from prepare to simulate with"}
    else:
        nvcc_ptx, nvcc_info = compile_nvcc(folder, runner.workdir, log)
    modules = load_modules(device, folder, manifest, nvcc_ptx, nvcc_info, log)

    all_cases = [c for c in C.all_cases() if c.name in set(manifest["cases"])]
    chosen = C.select(all_cases, options.cases.split(",") if options.cases else None)
    patterns = [p for p in options.patterns.split(",") if p]
    addresses = [int(a) for a in options.addresses.split(",") if a]
    rows = [Row(case, pattern, n) for case in chosen for pattern in patterns for n in addresses]
    document = {
        "schema": "atomir-gpu-contention/1",
        "simulated": device.simulated,
        "device": info,
        "config": {
            "threads": options.threads, "block": C.BLOCK, "launch_cap_s": options.launch_cap,
            "runs": options.runs, "time_per_contender_s": options.time_per_contender,
            "budget_s": options.budget, "guard_byte": C.GUARD_BYTE,
        },
        "contenders": [m["info"] | ({"nvcc": nvcc_info} if label == "nvcc" else {})
                       for label, m in modules.items()],
        "prepared": manifest.get("prepared", {}),
        "rows": [],
    }
    results_path = os.path.join(options.out, "results.json")
    log(f"{len(rows)} rows, {len(modules)} contenders")
    for index, row in enumerate(rows):
        if time.time() - started > options.budget:
            document["rows"].append({"case": row.case.name, "op": row.case.op, "type": row.case.type,
                                     "result": row.case.result, "pattern": row.pattern,
                                     "addresses": row.addresses, "not_run": "time budget"})
            continue
        row_started = time.time()
        result = runner.run(row, modules)
        result["seconds"] = round(time.time() - row_started, 3)
        document["rows"].append(result)
        cells = []
        for label, outcome in result["contenders"].items():
            if outcome["status"] == "ok":
                cells.append(f"{label} {outcome['median_ms']:.3f} ms")
            else:
                cells.append(f"{label} {outcome['status'].upper()}")
        log(f"{index + 1}/{len(rows)} {row.key()} threads={result['threads']}: {', '.join(cells)} ({result['seconds']:.1f} s)")
        with open(results_path, "w") as f:
            json.dump(document, f, indent=1)
    document["seconds"] = round(time.time() - started, 1)
    with open(results_path, "w") as f:
        json.dump(document, f, indent=1)
    markdown = table.render(document)
    with open(os.path.join(options.out, "results.md"), "w") as f:
        f.write(markdown)
    print(table.render(document, summary_only=True))
    log(f"done in {document['seconds']} s; results.json, results.md and log.txt in {options.out}")
    log_file.close()
    runner.pool.shutdown()
    shutil.rmtree(runner.workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
