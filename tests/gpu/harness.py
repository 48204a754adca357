"""GPU harness for atomir's PTX output.

Runs the cases that `gpu_cases gen DIR TARGET...` wrote (DIR/<sm>.ptx, DIR/<sm>.json): for each
case, many threads (thread i uses address slot i % 4) run the lowered atomic on one small buffer;
the harness returns the final memory and every thread's old values as JSON, which
`gpu_cases check DIR RESULTS...` checks against the reference semantics (valid linearization of
the old values, exact final memory).

Usage: python3 harness.py DIR OUTDIR SM...   (needs CuPy and a GPU; PTX is JIT-compiled by the
driver, so sm_70 code runs on newer GPUs too)

       python3 harness.py kernels DIR OUTDIR [BUDGET_SECONDS]
runs the random-kernel differential that `gpu_cases kernels-gen DIR` wrote (DIR/kernels.json and
one module per target): each case once, one thread, through its wrapper
`atomir_case_wN(global, shared_image, args, out)`; writes OUTDIR/kernels-results.json for
`gpu_cases kernels-check DIR OUTDIR/kernels-results.json`. Every target runs at once, each in
its own worker process; a case that faults ends its worker (a fault poisons the CUDA context)
and the next worker goes on after it. A worker that runs past the budget (default 150 s) is
stopped, and its target's remaining cases are missing from the results.

       python3 harness.py litmus DIR OUTDIR [BUDGET_SECONDS]
runs the litmus tests that `gpu_cases litmus-gen DIR` wrote (DIR/litmus.json, one cubin per
test): each test's `litmus` entry is launched with about two blocks per SM (the blocks split
evenly among the test's threads, one instance per thread of a block slot) and 128 threads per
block, LITMUS_ITERATIONS fresh instances per thread per launch, again and again until the
test's share of the budget (default 120 s in all) is spent, cycling through two pairings of
blocks, without and with memory stress; the device counts the outcomes. Writes
OUTDIR/litmus-results.json for `gpu_cases litmus-check DIR OUTDIR/litmus-results.json`.
"""
import concurrent.futures
import json
import os
import struct
import subprocess
import sys
import time

import cupy as cp
import numpy as np


def run_target(directory, outdir, sm):
    with open(f"{directory}/{sm}.json") as f:
        spec = json.load(f)
    started = time.time()
    module = cp.RawModule(path=f"{directory}/{spec['module']}")
    results = []
    for case in spec["cases"]:
        name = case["kernel"]
        try:
            function = module.get_function(name)
            threads = case["threads"]
            memory = cp.asarray(np.frombuffer(bytes.fromhex(case["memory"]), dtype=np.uint8).copy())
            args = []
            for param in case["params"]:
                if param["kind"] == "addr":
                    offsets = np.array(param["offsets"], dtype=np.uint64)
                    args.append(cp.asarray(offsets + np.uint64(memory.data.ptr)))
                else:
                    data = np.frombuffer(bytes.fromhex(param["data"]), dtype=np.uint8).copy()
                    args.append(cp.asarray(data))
            outputs = [cp.zeros(threads * r["bytes"], dtype=cp.uint8) for r in case["results"]]
            block = 256
            function((threads // block,), (block,), tuple(args + outputs))
            cp.cuda.runtime.deviceSynchronize()
            results.append({
                "kernel": name,
                "memory": cp.asnumpy(memory).tobytes().hex(),
                "results": [cp.asnumpy(o).tobytes().hex() for o in outputs],
            })
        except Exception as error:  # report per case, keep going
            results.append({"kernel": name, "error": f"{type(error).__name__}: {error}"})
    with open(f"{outdir}/results_{sm}.json", "w") as f:
        json.dump({"target": spec["target"], "cases": results}, f)
    errors = sum(1 for r in results if "error" in r)
    print(f"{sm}: ran {len(results)} cases in {time.time() - started:.1f} s, {errors} launch errors")


def kernels_worker(directory, target_index, first, lines_path):
    """Runs the cases of one target from `first` on, one JSON line per case, until one faults."""
    with open(f"{directory}/kernels.json") as f:
        spec = json.load(f)
    target = spec["targets"][target_index]
    region = spec["region_bytes"]
    module = cp.RawModule(path=f"{directory}/{target['module']}")
    with open(lines_path, "a") as out:
        for case in target["cases"][first:]:
            record = {"case": case["case"]}
            try:
                function = module.get_function(case["wrapper"])
                memory = cp.asarray(np.frombuffer(bytes.fromhex(case["global"]), dtype=np.uint8).copy())
                shared = cp.asarray(np.frombuffer(bytes.fromhex(case["shared"]), dtype=np.uint8).copy())
                args = cp.asarray(np.frombuffer(bytes.fromhex(case["args"]), dtype=np.uint8).copy())
                result = cp.zeros(case["out_bytes"], dtype=cp.uint8)
                assert memory.size == region and shared.size == region
                function((1,), (1,), (memory, shared, args, result))
                cp.cuda.runtime.deviceSynchronize()
                record["global"] = cp.asnumpy(memory).tobytes().hex()
                record["shared"] = cp.asnumpy(shared).tobytes().hex()
                record["out"] = cp.asnumpy(result).tobytes().hex()
            except Exception as error:  # the context may be gone: record it and stop
                record["error"] = f"{type(error).__name__}: {error}"
                out.write(json.dumps(record) + "\n")
                out.flush()
                sys.exit(3)
            out.write(json.dumps(record) + "\n")
            out.flush()


def run_kernel_target(directory, outdir, budget, index, cases):
    """Runs one target's cases, a fresh worker after each fault; returns its records."""
    lines_path = f"{outdir}/kernels-{index}.jsonl"
    if os.path.exists(lines_path):
        os.remove(lines_path)
    done, restarts = 0, 0
    while done < len(cases):
        try:
            worker = subprocess.run(
                [sys.executable, __file__, "kernels-worker", directory, str(index), str(done),
                 lines_path],
                capture_output=True, text=True, timeout=budget)
        except subprocess.TimeoutExpired:
            with open(lines_path, "a") as f:
                f.write(json.dumps({"case": cases[done]["case"],
                                    "error": f"worker ran past {budget} s"}) + "\n")
            break
        finished = 0
        if os.path.exists(lines_path):
            with open(lines_path) as f:
                finished = sum(1 for _ in f)
        if finished == done:  # the worker died before finishing one case: record it
            with open(lines_path, "a") as f:
                error = (worker.stderr or "worker died").strip().splitlines()[-1:]
                f.write(json.dumps({"case": cases[done]["case"], "error": " ".join(error)}) + "\n")
            finished += 1
        done = finished
        restarts += worker.returncode != 0
    with open(lines_path) as f:
        return [json.loads(line) for line in f], restarts


def needs_newer_device(target, device_sm):
    """Whether a `ptx:sm_N` target's code cannot load on a device of compute capability
    `device_sm` (the driver JIT-compiles PTX for its own SM or older ones only)."""
    if not target.startswith("ptx:sm_"):
        return False
    return int(target[len("ptx:sm_"):].rstrip("af")) > device_sm


def run_kernels(directory, outdir, budget):
    """Runs every target at once, each in its own worker processes: loading a module (the
    driver's JIT of several megabytes of PTX) takes most of a target's time and uses one CPU."""
    with open(f"{directory}/kernels.json") as f:
        spec = json.load(f)
    started = time.time()
    device = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    results = {"device": f"{device}, driver {cp.cuda.runtime.driverGetVersion()}", "targets": []}
    properties = cp.cuda.runtime.getDeviceProperties(0)
    device_sm = properties["major"] * 10 + properties["minor"]
    targets = spec["targets"]
    workers = max(1, min(len(targets), os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [None if needs_newer_device(target["target"], device_sm) else
                   pool.submit(run_kernel_target, directory, outdir, budget, index, target["cases"])
                   for index, target in enumerate(targets)]
        for target, future in zip(targets, futures):
            if future is None:
                reason = f"needs a newer GPU than this sm_{device_sm}"
                results["targets"].append({"target": target["target"], "skipped": reason,
                                           "cases": []})
                print(f"{target['target']}: skipped, {reason}")
                continue
            records, restarts = future.result()
            errors = sum(1 for r in records if "error" in r)
            results["targets"].append({"target": target["target"], "cases": records})
            print(f"{target['target']}: {len(records)} cases, {errors} faults "
                  f"({restarts} worker restarts), {time.time() - started:.1f} s after the start")
    with open(f"{outdir}/kernels-results.json", "w") as f:
        json.dump(results, f)
    print(f"kernels: {time.time() - started:.1f} s in all; results in {outdir}/kernels-results.json")


LITMUS_BLOCK = 128
LITMUS_ITERATIONS = 64
LITMUS_STRESS_WORDS = 1 << 22
# (layout, stress blocks per SM): the launches of a test cycle through these conditions.
LITMUS_CONDITIONS = [(0, 0), (1, 0), (0, 1), (1, 1)]


def unpack_u64(array):
    raw = cp.asnumpy(array).tobytes()
    return list(struct.unpack(f"<{len(raw) // 8}Q", raw))


def run_litmus(directory, outdir, budget):
    """Launches every litmus test for its share of the budget, cycling through the pairings of
    blocks (layout 0: neighbouring blocks, 1: blocks half a grid apart) without and with memory
    stress (one more block per SM hammering other memory); the device fills a histogram of
    outcomes per test and condition (see `atomir_tests::litmus`)."""
    with open(f"{directory}/litmus.json") as f:
        spec = json.load(f)
    properties = cp.cuda.runtime.getDeviceProperties(0)
    sm_count = properties["multiProcessorCount"]
    device = f"{properties['name'].decode()}, driver {cp.cuda.runtime.driverGetVersion()}"
    print(f"litmus: {device}, {sm_count} SMs")
    results = {"device": device, "sm_count": sm_count, "tests": []}
    share = budget / max(1, len(spec["tests"]))
    started = time.time()
    stress = cp.zeros(LITMUS_STRESS_WORDS, dtype=cp.uint32)
    for test in spec["tests"]:
        record = {"name": test["name"]}
        try:
            function = cp.RawModule(path=f"{directory}/{test['module']}").get_function("litmus")
            roles = test["threads"]
            per_role = max(1, 2 * sm_count // roles)
            instances = per_role * LITMUS_BLOCK
            iterations = LITMUS_ITERATIONS
            locations = cp.zeros(test["locations"] * iterations * instances, dtype=cp.uint32)
            scratch = cp.zeros(instances * test["results"], dtype=cp.uint32)
            smids = cp.zeros(instances * roles, dtype=cp.uint32)
            sync = cp.zeros(2 * iterations * instances, dtype=cp.uint32)
            histograms = [cp.zeros(2 * test["keys"] + 1, dtype=cp.uint64) for _ in LITMUS_CONDITIONS]
            launches = [0] * len(LITMUS_CONDITIONS)
            sink = cp.zeros(1, dtype=cp.uint32)
            total, test_started = 0, time.time()
            while total < len(LITMUS_CONDITIONS) or time.time() - test_started < share:
                condition = total % len(LITMUS_CONDITIONS)
                layout, stress_per_sm = LITMUS_CONDITIONS[condition]
                locations.fill(0)
                sync.fill(0)
                blocks = roles * per_role + stress_per_sm * sm_count
                function((blocks,), (LITMUS_BLOCK,),
                         (locations, scratch, smids, sync, histograms[condition], sink,
                          np.uint32(iterations), np.uint32(per_role), np.uint32(layout), stress,
                          np.uint32(LITMUS_STRESS_WORDS - 1)))
                cp.cuda.runtime.deviceSynchronize()
                launches[condition] += 1
                total += 1
            runs = [{"layout": layout, "stress": bool(stress_per_sm), "launches": launches[i],
                     "histogram": unpack_u64(histograms[i])}
                    for i, (layout, stress_per_sm) in enumerate(LITMUS_CONDITIONS)]
            record.update({
                "histogram": [sum(column) for column in zip(*(r["histogram"] for r in runs))],
                "runs": runs, "launches": total, "iterations": iterations,
                "instances": instances, "blocks": roles * per_role, "block": LITMUS_BLOCK,
                "seconds": round(time.time() - test_started, 2),
            })
            print(f"{test['name']}: {total} launches of {instances} instances x {iterations} "
                  f"iterations in {record['seconds']} s")
        except Exception as error:  # report per test, keep going
            record["error"] = f"{type(error).__name__}: {error}"
            print(f"{test['name']}: {record['error']}")
        results["tests"].append(record)
    with open(f"{outdir}/litmus-results.json", "w") as f:
        json.dump(results, f)
    print(f"litmus: {time.time() - started:.1f} s in all; results in {outdir}/litmus-results.json")


def main():
    if sys.argv[1] == "kernels-worker":
        kernels_worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
        return
    if sys.argv[1] == "kernels":
        os.makedirs(sys.argv[3], exist_ok=True)
        budget = float(sys.argv[4]) if len(sys.argv) > 4 else 150.0
        run_kernels(sys.argv[2], sys.argv[3], budget)
        return
    if sys.argv[1] == "litmus":
        os.makedirs(sys.argv[3], exist_ok=True)
        budget = float(sys.argv[4]) if len(sys.argv) > 4 else 120.0
        run_litmus(sys.argv[2], sys.argv[3], budget)
        return
    directory, outdir, sms = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(outdir, exist_ok=True)
    print(cp.cuda.runtime.getDeviceProperties(0)["name"], "driver", cp.cuda.runtime.driverGetVersion())
    for sm in sms:
        run_target(directory, outdir, sm)


if __name__ == "__main__":
    main()
