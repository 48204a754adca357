"""GPU harness for atomir's PTX output.

Runs the cases that `gpu_cases gen DIR TARGET...` wrote (DIR/<sm>.ptx, DIR/<sm>.json): for each
case, many threads (thread i uses address slot i % 4) run the lowered atomic on one small buffer;
the harness returns the final memory and every thread's old values as JSON, which
`gpu_cases check DIR RESULTS...` checks against the reference semantics (valid linearization of
the old values, exact final memory).

Usage: python3 harness.py DIR OUTDIR SM...   (needs CuPy and a GPU; PTX is JIT-compiled by the
driver, so sm_70 code runs on newer GPUs too)
"""
import json
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


def main():
    directory, outdir, sms = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(cp.cuda.runtime.getDeviceProperties(0)["name"], "driver", cp.cuda.runtime.driverGetVersion())
    for sm in sms:
        run_target(directory, outdir, sm)


if __name__ == "__main__":
    main()
