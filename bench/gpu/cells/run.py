#!/usr/bin/env python3
"""Cell timing harness, the GPU side: times every contender of every cell that
`bench/gpu/cells/prepare` built, after checking its results against atomir's reference
semantics.

    python3 DIR/run.py DIR OUT [--budget S] [--runs R] [--threads N] [--launch-cap S]
                               [--wide-runs R] [--wide-patterns K] [--wide-time-per-contender S]
                               [--cells NAME,...] [--addresses N,...] [--patterns P,...]
                               [--hang-after S]
                               [--simulate [--simulate-wrong LABEL,...] [--simulate-hang SPEC,...]
                                          [--simulate-fault SPEC,...]]

For every cell x operand pattern (constant, increasing, random) x number of addresses (1, 32,
4096, 2^20; shared memory: up to 4096 and 32 KiB, one copy per block) the runner of
`contention.py` does the work: a thread count that keeps every launch under --launch-cap, one
launch from fresh memory whose final memory and old values `gpu_bench check-cell` checks (a
contender whose result is wrong is reported, not timed), then the median of --runs timed
launches, the contenders taking turns. A vector cell's thread acts on a whole vector; each of its
elements is checked as its own atomic.

The order of the rows, and why (a run has about 6 minutes of GPU time): every cell at every
address count with its first pattern (random operands), then every cell at 1, 32 and 4096
addresses with its second pattern, then its third. What --budget cuts is thus further operand
patterns, never an address count or a class. A 2^20-address row is the uncontended case: with
2^20 threads each thread has an address of its own, so the operand pattern changes nothing the
atomic unit sees and one pattern (--wide-patterns 1) is enough; its launches take tens of
microseconds and vary little between contenders, so --wide-runs 3 timed runs within
--wide-time-per-contender 0.1 s suffice. The cost of a wide row is the check on the CPU (2^20
elements per contender) and the copies, about a second. A contended row at 1 or 32 addresses
is bounded by --launch-cap (0.3 s a launch: fewer threads where a CAS loop is slow) and
--time-per-contender (0.5 s of timed launches). With about 2 s a narrow row and 1 s a wide one,
a sample of 30 cells takes ~4 minutes for its first pattern at all four address counts and uses
the rest of a 360 s budget on the second pattern.

Each contender is loaded from its cubin (ptxas 13.5), or, where the driver refuses that, from
its PTX with the ISA version lowered to 9.0 (recorded).

The rows run in a worker process under a watchdog (`watchdog.py`): a launch that has not
returned after --hang-after seconds (10) has its process killed and is recorded as `timeout` for
that contender in that row (cell, pattern, addresses); the row runs again without it in a fresh
worker. A contender that hangs is slower than anything: results.md flags its class. No new row
starts after --budget seconds, and a row still running at --budget + --hang-after is stopped
(recorded as failed, with the hangs it found before).

OUT receives, after every row, results.jsonl (one line per row, appended: what a killed run
leaves), results.json (every number, the device, driver and date; replaced whole, never half
written), results.md (per row the time of each contender and atomir's ratio to each baseline,
then per SASS-table class the worst and median ratio and any hang) and log.txt.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import time
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cellpatch  # noqa: E402
import contention  # noqa: E402
import watchdog  # noqa: E402

SHARED = ("shared", "shared_cluster")
WIDE = 1 << 20  # addresses from which a row is wide: one thread per address
BASELINES = ("llc22", "llc23", "nvcc")


class CellCase:
    """A cell as contention.py's runner sees a case."""

    def __init__(self, entry):
        cell = entry["cell"]
        self.entry, self.cell = entry, cell
        self.name, self.op, self.type = cell["name"], cell["op"], cell["type"]
        self.used = cell["result"] == "used"
        self.result = "used" if self.used else "unused"
        self.size = entry["size"]  # the whole vector for a vector cell
        self.element_size = entry.get("element_size", self.size)
        self.lanes = entry.get("lanes", 1)
        self.operand_size = self.size * (2 if self.op == "cas" else 1)
        self.group = self.name
        self.shared = cell["space"] in SHARED


class CellRow(contention.Row):
    def groups(self, threads):
        return threads // contention.C.BLOCK if self.case.shared else 1

    def checker_call(self, command, threads):
        return [f"{command}-cell", "--cell", self.case.name, "--addresses", str(self.addresses),
                "--threads", str(threads), "--groups", str(self.groups(threads))]


def is_float(type_):
    return type_.startswith("f") or type_.startswith("bf")


def integer_operands(size, pattern, threads, rng):
    """Raw bytes: 1, the thread id, or random bits, in each of `threads` elements of `size`
    bytes."""
    words = -(-size // 8)
    tid = np.arange(threads, dtype=np.uint64)
    values = np.zeros((threads, words), dtype=np.uint64)
    if pattern == "constant":
        values[:, 0] = 1
    elif pattern == "increasing":
        values[:, 0] = tid
    else:
        values[:] = rng.integers(0, 1 << 64, size=(threads, words), dtype=np.uint64, endpoint=False)
    return values.view(np.uint8).reshape(threads, words * 8)[:, :size].copy()


def cell_operands(case, pattern, threads):
    """Every thread's operand bytes (expected then new for a cas); a vector's elements each
    take the pattern's value of their own index (thread t's element k is the value of
    t * lanes + k)."""
    rng = np.random.default_rng(zlib.crc32(f"{case.name}/{pattern}".encode()))
    count, size = threads * case.lanes, case.element_size
    if is_float(case.type):
        shim = contention.C.Case(case.op if case.op in ("add", "max", "min") else "add", case.type, case.used)
        values = contention.operand_values(shim, pattern, count).reshape(count, size)
    else:
        values = integer_operands(size, pattern, count, rng)
    if case.op == "cas":
        # Expected: the pattern's value, or (random) one of four small values; new: one more.
        expected = values.copy()
        if pattern == "random":
            expected = np.zeros_like(values)
            expected[:, 0] = rng.integers(0, 4, size=count)
        new = expected.copy()
        new[:, 0] += 1
        values = np.concatenate([expected.reshape(threads, -1), new.reshape(threads, -1)], axis=1)
    return np.ascontiguousarray(values).reshape(-1)


def cell_initial_memory(case, addresses, threads):
    """One copy (global) or one per block (shared): the elements (float max: -inf, float min:
    +inf, else 0) padded to 16 bytes, then guard bytes."""
    slot = cellpatch.slot_bytes(addresses, case.size)
    memory = np.full(slot, contention.C.GUARD_BYTE, dtype=np.uint8)
    element = np.zeros(case.element_size, dtype=np.uint8)
    if is_float(case.type) and case.op in ("max", "min", "fmaximumnum", "fminimumnum", "fmaximum", "fminimum"):
        sign = -np.inf if "max" in case.op else np.inf
        element = contention.float_bits(case.type, np.array([sign])).view(np.uint8)
    memory[: addresses * case.size] = np.tile(element, addresses * case.lanes)
    groups = threads // contention.C.BLOCK if case.shared else 1
    return np.tile(memory, groups)


class CellRunner(contention.Runner):
    def __init__(self, device, folder, options, log):
        super().__init__(device, folder, options, log)
        self.narrow_options = options
        self.wide_options = argparse.Namespace(**vars(options))
        self.wide_options.runs = options.wide_runs
        self.wide_options.time_per_contender = options.wide_time_per_contender

    def run(self, row, modules):
        # A wide row's launches are short and its contenders alike (see the top of the file):
        # fewer timed runs there.
        self.options = self.wide_options if row.addresses >= WIDE else self.narrow_options
        return super().run(row, modules)

    def operands(self, case, pattern):
        key = (case.group, pattern)
        if key not in self.operand_cache:
            values = cell_operands(case, pattern, self.options.threads)
            path = os.path.join(self.workdir, f"operands-{len(self.operand_cache)}")
            values.tofile(path)
            self.operand_cache = {key: (values, path)}  # one cell at a time: keep memory low
        return self.operand_cache[key]

    def initial_memory(self, case, addresses):
        return cell_initial_memory(case, addresses, self.options.threads)

    def check(self, row, threads, operands_path, memory, olds, init):
        # A check of 2^20 elements takes seconds: progress the watchdog must see.
        self.device.emit("check")
        outcome = super().check(row, threads, operands_path, memory, olds, init)
        self.device.emit("checked")
        return outcome


def load_cell(device, folder, entry, log):
    """label -> module entry for contention.Runner.run, each loaded from its cubin or PTX."""
    modules = {}
    name = entry["cell"]["name"]
    for contender in entry["contenders"]:
        label = contender["label"]
        item = {"applies": lambda case: True, "info": contender}
        if "error" in contender:
            item["error"] = contender["error"]
        else:
            item["module"], item["loaded_from"], error = load_module(device, folder, contender, name)
            if error:
                item["error"] = error
                log(f"{name} {label}: {error}")
        modules[label] = item
    return modules


def load_module(device, folder, contender, name):
    """(module, what it came from, error)."""
    failures = []
    paths = [("ptx", contender["ptx"])] if device.simulated else [("cubin", contender["cubin"]), ("ptx", contender["ptx"])]
    for kind, relative in paths:
        path = os.path.join(folder, relative)
        if kind == "ptx" and not device.simulated:
            with open(path) as f:
                text = f.read()
            path = path[:-len(".ptx")] + ".isa90.ptx"
            version = re.search(r"^\.version (\d+)\.(\d+)", text, re.M)
            if version and (int(version.group(1)), int(version.group(2))) > (9, 0):
                text = text.replace(version.group(0), ".version 9.0", 1)
            with open(path, "w") as f:
                f.write(text)
        try:
            module = device.load(path)
            device.kernel(module, name)
            return module, kind, None
        except Exception as error:  # noqa: BLE001 - reported per contender
            failures.append(f"{kind}: {type(error).__name__}: {error}")
    return None, None, "; ".join(failures)


HUNG = ("timeout", "crashed")


def ratios(contenders):
    """atomir's median time over each baseline's, where both ran and passed."""
    ours = contenders.get("ours", {})
    if ours.get("status") != "ok":
        return {}
    out = {}
    for label, outcome in contenders.items():
        if label != "ours" and outcome.get("status") == "ok" and outcome["median_ms"] > 0:
            out[label] = ours["median_ms"] / outcome["median_ms"]
    return out


def hung(contenders):
    """The contenders that never returned (or took their process down) in a row."""
    return [label for label, outcome in contenders.items() if outcome.get("status") in HUNG]


def render(document):
    lines = [f"# Cell timing, {document['device'].get('name')}, {document['device'].get('date')}"
             + (" (SIMULATED: no GPU, invented times)" if document["simulated"] else ""), "",
             "| cell | class | pattern | n | threads | contender: median ms (check) | ours / baseline |",
             "|---|---|---|---:|---:|---|---|"]
    for row in document["rows"]:
        if "not_run" in row:
            lines.append(f"| {row['cell']} | {row.get('class') or ''} | {row['pattern']} | {row['addresses']} | | not run: {row['not_run']} | |")
            continue
        cells = []
        for label, outcome in row["contenders"].items():
            if outcome["status"] == "ok":
                cells.append(f"{label}: {outcome['median_ms']:.4g} ({outcome['check']})")
            elif outcome["status"] in HUNG:
                cells.append(f"{label}: **{outcome['status'].upper()}** ({outcome['reason']})")
            else:
                cells.append(f"{label}: {outcome['status']}")
        if "failed" in row:
            cells.append(f"**row failed**: {row['failed']}")
        ratio = ", ".join(f"{label} {value:.2f}x" for label, value in row["ratios"].items())
        ratio += "".join(f"{', ' if ratio else ''}{label} hung" for label in hung(row["contenders"]))
        lines.append(f"| {row['cell']} | {row.get('class') or ''} | {row['pattern']} | {row['addresses']} "
                     f"| {row.get('threads') or ''} | {'; '.join(cells)} | {ratio} |")
    return "\n".join(lines + [""] + class_summary(document["rows"])) + "\n"


def class_summary(rows):
    """Per SASS-table class: rows timed, atomir's worst and median ratio to each baseline, and
    every hang. atomir's code hanging counts as slower than anything (an infinite ratio to every
    baseline that ran); a baseline hanging flags the class too, as code to look at."""
    classes = {}
    for row in rows:
        if "contenders" not in row:
            continue
        entry = classes.setdefault(row.get("class") or "(none)", {"rows": 0, "ratios": {}, "hangs": []})
        entry["rows"] += 1
        for label, value in row["ratios"].items():
            entry["ratios"].setdefault(label, []).append(value)
        for label in hung(row["contenders"]):
            entry["hangs"].append(f"{label} in {row['cell']} ({row['pattern']}, n={row['addresses']})")
            if label == "ours":
                for other, outcome in row["contenders"].items():
                    if other in BASELINES and outcome["status"] == "ok":
                        entry["ratios"].setdefault(other, []).append(float("inf"))
    if not classes:
        return []
    lines = ["Per class, ours / baseline over the rows that ran (inf: atomir's code hung):", "",
             "| class | rows | " + " | ".join(f"/{b} worst | median" for b in BASELINES) + " | flagged |",
             "|---|---:|" + "---:|---:|" * len(BASELINES) + "---|"]
    for name, entry in classes.items():
        cells = []
        for baseline in BASELINES:
            values = sorted(entry["ratios"].get(baseline, []))
            cells += [f"{values[-1]:.2f}", f"{statistics.median(values):.2f}"] if values else ["—", "—"]
        flag = "HANG: " + "; ".join(entry["hangs"]) if entry["hangs"] else ""
        lines.append(f"| {name} | {entry['rows']} | " + " | ".join(cells) + f" | {flag} |")
    return lines


def first_patterns(entry):
    """The cell's patterns, the one that tells most first: random (every lane's operand
    differs, as in real use), then increasing, then constant."""
    return sorted(entry["patterns"], key=lambda p: ("random", "increasing", "constant").index(p))


def ordered_rows(entries, addresses, wide_patterns):
    """(entry, row) in the order they run: every cell at every address count with its first
    pattern, then the second pattern of every cell at every address count, and so on; a wide
    row (2^20 addresses) only for the first `wide_patterns` patterns. What --budget cuts is
    then further samples, never an address count."""
    rows = []
    depth = max((len(e["patterns"]) for e in entries), default=0)
    for rank in range(depth):
        for n in addresses:
            if n >= WIDE and rank >= wide_patterns:
                continue
            for entry in entries:
                patterns = first_patterns(entry)
                if n in entry["addresses"] and rank < len(patterns):
                    rows.append((entry, CellRow(CellCase(entry), patterns[rank], n)))
    return rows


def parse_options(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder")
    parser.add_argument("out")
    parser.add_argument("--cells", help="comma-separated cell names (default: every prepared cell)")
    parser.add_argument("--addresses", help="comma-separated address counts (default: each cell's)")
    parser.add_argument("--patterns", help="comma-separated operand patterns (default: each cell's)")
    parser.add_argument("--threads", type=int, default=contention.C.THREADS)
    parser.add_argument("--launch-cap", type=float, default=0.3)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--time-per-contender", type=float, default=0.5)
    parser.add_argument("--wide-runs", type=int, default=3, help="--runs of a 2^20-address row")
    parser.add_argument("--wide-time-per-contender", type=float, default=0.1)
    parser.add_argument("--wide-patterns", type=int, default=1,
                        help="operand patterns of a 2^20-address row (the first of the cell's)")
    parser.add_argument("--budget", type=float, default=360,
                        help="seconds after which no new row starts (the rest is reported as not run)")
    parser.add_argument("--hang-after", type=float, default=10,
                        help="seconds without progress (a launch that has not returned) after which the "
                             "worker is killed and the contender recorded as timeout")
    parser.add_argument("--simulate", action="store_true", help="no GPU: test this script against a model")
    parser.add_argument("--simulate-wrong", default="")
    parser.add_argument("--simulate-hang", default="", metavar="[CELL/]LABEL[@N],...",
                        help="with --simulate: launches of these contenders never return")
    parser.add_argument("--simulate-fault", default="", metavar="[CELL/]LABEL[@N],...",
                        help="with --simulate: launches of these contenders fault and lose the CUDA context")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--scratch", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def worker_main(options):
    """The worker process (see watchdog.py): rows from stdin, events to the protocol pipe."""
    emit = watchdog.Emitter()
    folder = os.path.abspath(options.folder)
    with open(os.path.join(folder, "manifest.json")) as f:
        entries = {e["cell"]["name"]: e for e in json.load(f)["cells"]}
    if options.simulate:
        inner = contention.SimulatedDevice(os.path.join(folder, "gpu_bench"), options.scratch,
                                           [w for w in options.simulate_wrong.split(",") if w])
    else:
        inner = contention.CudaDevice()
    device = watchdog.WatchedDevice(inner, emit, *((watchdog.parse_specs(options.simulate_hang),
                                                    watchdog.parse_specs(options.simulate_fault))
                                                   if options.simulate else ()))
    emit("ready", info=inner.info())

    def log(text):
        emit("log", text=text)

    runner = CellRunner(device, folder, options, log)
    shutil.rmtree(runner.workdir, ignore_errors=True)
    runner.workdir = tempfile.mkdtemp(dir=options.scratch)  # the supervisor removes it, killed or not
    modules = {}
    for line in sys.stdin:
        task = json.loads(line)
        entry = entries[task["cell"]]
        if task["cell"] not in modules:
            modules[task["cell"]] = load_cell(inner, folder, entry, log)
            for label, item in modules[task["cell"]].items():
                if item.get("module") is not None:
                    if options.simulate:
                        item["module"]["contender"] = label
                    item["module"] = watchdog.LabelledModule(label, item["module"])
        per_cell = modules[task["cell"]]
        row = CellRow(CellCase(entry), task["pattern"], task["addresses"])
        result = runner.run(row, {label: item for label, item in per_cell.items() if label not in task["skip"]})
        emit("row", result=result, loaded_from={label: item.get("loaded_from") for label, item in per_cell.items()})
    runner.pool.shutdown()


def run_watched(supervisor, entry, row, deadline, log):
    """The row's result; a contender that hangs or crashes is recorded so and the row runs
    again without it. A row the run's time limit stops is marked `stopped`, with the hangs
    recorded before."""
    skipped = {}
    while True:
        task = {"cell": row.case.name, "pattern": row.pattern, "addresses": row.addresses, "skip": sorted(skipped)}
        try:
            event = supervisor.run_row(task, deadline, lambda text: log(f"  {text}"))
        except watchdog.OutOfBudget:
            log(f"{row.key()}: stopped at the time limit (--budget + --hang-after)")
            return {"contenders": skipped, "failed": "stopped at the time limit (--budget + --hang-after)",
                    "ratios": {}, "stopped": True}, {}
        except watchdog.WorkerLost as stall:
            log(f"{row.key()}: {stall.label or 'the row'} {stall.status.upper()}: {stall.reason}")
            if stall.label is None or stall.label in skipped:
                return {"contenders": skipped, "failed": f"{stall.status}: {stall.reason}", "ratios": {}}, {}
            skipped[stall.label] = {"status": stall.status, "reason": stall.reason}
            continue
        result = event["result"]
        outcomes = result["contenders"] | skipped
        order = [c["label"] for c in entry["contenders"]]
        result["contenders"] = {label: outcomes[label] for label in order if label in outcomes}
        result["ratios"] = ratios(result["contenders"])
        return result, event["loaded_from"]


def write_atomically(path, text):
    with open(path + ".part", "w") as f:
        f.write(text)
    os.replace(path + ".part", path)


def main(argv=None):
    argv = list(argv if argv is not None else sys.argv[1:])
    options = parse_options(argv)
    if options.worker:
        worker_main(options)
        return
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
    contention.self_test_checker(checker)
    scratch = tempfile.mkdtemp(prefix="atomir-cells-", dir=contention._scratch())
    supervisor = watchdog.Supervisor([sys.executable, os.path.abspath(__file__), *argv, "--worker", "--scratch", scratch],
                                     options.hang_after, log)
    deadline = started + options.budget + options.hang_after
    try:
        run_rows(options, manifest, supervisor, started, deadline, log)
    finally:
        supervisor.stop()
        shutil.rmtree(scratch, ignore_errors=True)
        log_file.close()


def run_rows(options, manifest, supervisor, started, deadline, log):
    info = dict(supervisor.ensure_started(deadline))
    info.update(date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                host=platform.node(), python=platform.python_version(), numpy=np.__version__)
    log(f"device: {json.dumps(info)}")
    wanted = set(options.cells.split(",")) if options.cells else None
    entries = [e for e in manifest["cells"] if wanted is None or e["cell"]["name"] in wanted]
    if options.patterns:
        # A later call of a run split in parts: the patterns an earlier call did not reach.
        entries = [dict(e, patterns=[p for p in e["patterns"] if p in options.patterns.split(",")]) for e in entries]
    addresses = sorted({n for e in entries for n in e["addresses"]})
    if options.addresses:
        addresses = [n for n in addresses if str(n) in options.addresses.split(",")]
    rows = ordered_rows(entries, addresses, options.wide_patterns)
    loaded_from = {}
    document = {"schema": "atomir-gpu-cells/1", "simulated": options.simulate, "device": info,
                "config": {k: getattr(options, k) for k in ("threads", "launch_cap", "runs", "time_per_contender", "budget",
                                                             "wide_runs", "wide_time_per_contender", "wide_patterns",
                                                             "hang_after")}
                | {"block": contention.C.BLOCK, "cluster": cellpatch.CLUSTER},
                "prepared": manifest.get("prepared", {}), "cells": [], "rows": []}
    out = options.out
    stream = open(os.path.join(out, "results.jsonl"), "w")

    def save(final=False):
        document["cells"] = [{"cell": e["cell"], "class": e.get("class"),
                              "contenders": [c | {"loaded_from": loaded_from.get(e["cell"]["name"], {}).get(c["label"])}
                                             for c in e["contenders"]]} for e in entries]
        document["worker_restarts"] = supervisor.restarts
        if final:
            document["seconds"] = round(time.time() - started, 1)
        write_atomically(os.path.join(out, "results.json"), json.dumps(document, indent=1))
        write_atomically(os.path.join(out, "results.md"), render(document))

    log(f"{len(rows)} rows of {len(entries)} cells")
    stopped = None
    for index, (entry, row) in enumerate(rows):
        head = {"cell": row.case.name, "class": entry.get("class"), "pattern": row.pattern, "addresses": row.addresses}
        result = None
        if stopped is None and time.time() - started > options.budget:
            stopped = "time budget"
        if stopped is None:
            row_started = time.time()
            result, loaded = run_watched(supervisor, entry, row, deadline, log)
            loaded_from.setdefault(row.case.name, {}).update(loaded)
            result.update(head, seconds=round(time.time() - row_started, 3))
            if result.pop("stopped", False):
                stopped = "time budget"
        if result is None:
            result = head | {"not_run": stopped}
        else:
            summary = ", ".join(f"{label} {o['median_ms']:.3f} ms" if o["status"] == "ok" else f"{label} {o['status'].upper()}"
                                for label, o in result["contenders"].items())
            log(f"{index + 1}/{len(rows)} {row.key()} threads={result.get('threads')}: {summary}")
        document["rows"].append(result)
        stream.write(json.dumps(result) + "\n")
        stream.flush()
        os.fsync(stream.fileno())
        save()
    supervisor.close()
    stream.close()
    save(final=True)
    log(f"done in {document['seconds']} s ({supervisor.restarts} worker restarts); "
        f"results.json, results.jsonl, results.md and log.txt in {out}")


if __name__ == "__main__":
    main()
