"""Tests of the contention benchmark's scripts on the CPU (bench/gpu/selftest runs them).

The simulated run needs a folder made by `prepare`, named by GPUBENCH_PREPARED; without it
that test is skipped with the reason printed.
"""
import json
import os
import shutil
import sys
import tempfile
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as C  # noqa: E402
import contention  # noqa: E402
import ptxpatch  # noqa: E402
import table  # noqa: E402

OURS_STYLE = """.visible .entry add_u32_used(
\t.param .u64 add_u32_used_param_0,
\t.param .b32 add_u32_used_param_1,
\t.param .u64 add_u32_used_out_0
)
{
\t.reg .b64 %a;
\t.reg .b32 %b;
\t.reg .b32 %old;
\t.reg .b64 %_d<2>;
\tld.param.b64 %a, [add_u32_used_param_0+0];
\tcvta.to.global.u64 %a, %a;
\tld.param.b32 %b, [add_u32_used_param_1+0];
\tatom.relaxed.gpu.global.add.u32 %old, [%a], %b;
\tld.param.u64 %_d1, [add_u32_used_out_0];
\tcvta.to.global.u64 %_d1, %_d1;
\tst.global.b32 [%_d1+0], %old;
\tret;
}
"""

LLC_STYLE = """.visible .entry add_f16_unused(
\t.param .u64 .ptr .global .align 1 add_f16_unused_param_0,
\t.param .align 2 .b8 add_f16_unused_param_1[2]
)
{
\t.reg .b16 \t%rs<3>;
\t.reg .b64 \t%rd<2>;
\tld.param.b64 \t%rd1, [add_f16_unused_param_0];
\tld.param.b16 \t%rs1, [add_f16_unused_param_1];
\tatom.global.add.noftz.f16 \t%rs2, [%rd1], %rs1;
\tret;
}
"""


class PatchTest(unittest.TestCase):
    def test_ours_style(self):
        patched = ptxpatch.patch_entry(OURS_STYLE, "add_u32_used", 4, True)
        self.assertIn(".param .u64 add_u32_used_param_1,", patched)
        self.assertIn(".param .u32 add_u32_used_bench_n\n)", patched)
        self.assertIn("ld.param.b64 %a, [add_u32_used_param_0+0];\n\tadd.s64 %a, %a, %bench_d0;", patched)
        self.assertIn("ld.global.nc.b32 %b, [%bench_d2];", patched)
        self.assertIn("ld.param.u64 %_d1, [add_u32_used_out_0];\n\tadd.s64 %_d1, %_d1, %bench_d1;", patched)
        self.assertIn("mul.wide.u32 %bench_d0, %bench_r3, 4;", patched)
        # The atomic itself is untouched.
        self.assertIn("\tatom.relaxed.gpu.global.add.u32 %old, [%a], %b;\n", patched)

    def test_llc_style(self):
        patched = ptxpatch.patch_entry(LLC_STYLE, "add_f16_unused", 2, False)
        self.assertIn(".param .u64 add_f16_unused_param_1,", patched)
        self.assertNotIn("[2]", patched)
        self.assertIn("ld.global.nc.b16 %rs1, [%bench_d2];", patched)

    def test_refuses_what_it_cannot_follow(self):
        escaped = OURS_STYLE.replace("\tret;", "\tmov.u64 %_d0, add_u32_used_param_1;\n\tret;")
        with self.assertRaisesRegex(ptxpatch.PatchError, "other than by a parameter load"):
            ptxpatch.patch_entry(escaped, "add_u32_used", 4, True)
        with self.assertRaisesRegex(ptxpatch.PatchError, "3 parameters, expected 2"):
            ptxpatch.patch_entry(OURS_STYLE, "add_u32_used", 4, False)
        with self.assertRaisesRegex(ptxpatch.PatchError, "no such entry"):
            ptxpatch.patch_entry(OURS_STYLE, "max_f32_used", 4, True)
        unloaded = OURS_STYLE.replace("\tld.param.b32 %b, [add_u32_used_param_1+0];\n", "")
        with self.assertRaisesRegex(ptxpatch.PatchError, "never loaded"):
            ptxpatch.patch_entry(unloaded, "add_u32_used", 4, True)


class OperandTest(unittest.TestCase):
    def values(self, op, type_, pattern, threads=1 << 20):
        return contention.operand_values(C.Case(op, type_, True), pattern, threads)

    def test_increasing_moves_memory_on(self):
        maxes = self.values("max", "f32", "increasing").view(np.float32)
        self.assertTrue(np.all(np.diff(maxes) > 0))
        mins = self.values("min", "f64", "increasing").view(np.float64)
        self.assertTrue(np.all(np.diff(mins) < 0))
        halves = self.values("add", "f16", "increasing").view(np.float16).astype(np.float64)
        # In [0, 1): the last ones round up to 1.0 in f16.
        self.assertTrue(np.all((halves >= 0) & (halves <= 1)) and np.all(np.diff(halves) >= 0))
        bytes_ = self.values("add", "u8", "increasing", 600)
        self.assertEqual(list(bytes_[254:258]), [254, 255, 0, 1])

    def test_patterns_differ_and_repeat(self):
        first = self.values("add", "u64", "random", 4096)
        self.assertTrue(np.array_equal(first, self.values("add", "u64", "random", 4096)))
        self.assertGreater(len(np.unique(first.view(np.uint64))), 4000)
        self.assertEqual(set(self.values("add", "f32", "constant", 64).view(np.float32)), {1.0})
        self.assertEqual(set(self.values("max", "f32", "constant", 64).view(np.float32)), {3.5})
        sums = self.values("add", "f32", "random").view(np.float32)
        self.assertTrue(np.all(sums == np.round(sums)) and np.abs(sums).max() <= 15)

    def test_16_bit_floats(self):
        self.assertEqual(contention.float_bits("bf16", np.array([1.0, -2.0, 1.00390625]))[:2].tolist(), [0x3F80, 0xC000])
        # 1 + 2^-8 lies halfway between two bf16 values: ties to even, down to 1.0.
        self.assertEqual(int(contention.float_bits("bf16", np.array([1.00390625]))[0]), 0x3F80)
        self.assertEqual(int(contention.float_bits("f16x2", np.array([1.0]))[0]), 0x3C003C00)

    def test_initial_memory(self):
        memory = contention.initial_memory(C.Case("max", "f32", True), 5)
        self.assertEqual(len(memory), 48)
        self.assertTrue(np.all(memory[:20].view(np.float32) == -np.inf))
        self.assertTrue(np.all(memory[20:] == C.GUARD_BYTE))
        memory = contention.initial_memory(C.Case("add", "u8", False), 1)
        self.assertEqual(memory[0], 0)
        self.assertTrue(np.all(memory[1:] == C.GUARD_BYTE))


def fake_document():
    """A results document with invented times, for the table only."""
    def ok(ms, spread=0.01):
        return {"status": "ok", "check": "linearization", "median_ms": ms, "min_ms": ms * (1 - spread),
                "max_ms": ms * (1 + spread), "runs": 7}
    rows = [
        {"case": "max_f32_used", "op": "max", "type": "f32", "result": "used", "pattern": "increasing",
         "addresses": 1, "threads": 1 << 20,
         "contenders": {"ours": ok(0.8), "nvcc": ok(400.0), "llc": ok(390.0)}},
        {"case": "max_f32_used", "op": "max", "type": "f32", "result": "used", "pattern": "increasing",
         "addresses": 32, "threads": 1 << 20,
         "contenders": {"ours": ok(0.5), "nvcc": ok(10.0),
                        "llc": {"status": "wrong", "reason": "element 0: the old values of 2 threads are no linearization"}}},
        {"case": "add_u32_unused", "op": "add", "type": "u32", "result": "unused", "pattern": "constant",
         "addresses": 1 << 20, "threads": 1 << 20,
         "contenders": {"ours": ok(0.02, 0), "nvcc": ok(0.01, 0), "llc": ok(0.01)}},
        {"case": "add_f16_unused", "op": "add", "type": "f16", "result": "unused", "pattern": "random",
         "addresses": 1, "threads": 1 << 16,
         "contenders": {"ours": ok(30.0), "ours:packed": ok(1.5), "nvcc": ok(30.0), "llc": ok(30.0)}},
        {"case": "add_f16x2_unused", "op": "add", "type": "f16x2", "result": "unused", "pattern": "random",
         "addresses": 1, "threads": 1 << 16,
         "contenders": {"ours": ok(1.0), "nvcc": ok(1.0), "llc": ok(25.0)}},
        {"case": "add_u8_used", "op": "add", "type": "u8", "result": "used", "pattern": "constant",
         "addresses": 1, "not_run": "time budget"},
    ]
    return {
        "schema": "atomir-gpu-contention/1", "simulated": True,
        "device": {"name": "TEST", "driver_version": "0.0", "cuda_driver_api": 13000, "date": "never"},
        "config": {"threads": 1 << 20, "block": 256, "launch_cap_s": 0.6, "runs": 7},
        "contenders": [{"label": "ours"}, {"label": "ours:packed"}, {"label": "llc"},
                       {"label": "nvcc", "nvcc": {"version": "nvcc test"}}],
        "rows": rows,
    }


class TableTest(unittest.TestCase):
    def test_tables(self):
        text = table.render(fake_document())
        self.assertIn("**SIMULATED", text)
        self.assertIn("driver 0.0 (CUDA 13.0)", text)
        # A variant's columns appear where it has kernels.
        self.assertIn("| result | operands | addresses | threads | ours (ms) | ours:packed (ms) | nvcc (ms) | llc 22 (ms) | "
                      "ours/nvcc | ours/llc 22 | ours:packed/nvcc | ours:packed/llc 22 | check |", text)
        self.assertIn("| unused | random | 1 | 2^16 | 30.000 | 1.500 | 30.000 | 30.000 | 1.00 | 1.00 | 0.050 | 0.050 |", text)
        self.assertIn("| result | operands | addresses | threads | ours (ms) | nvcc (ms) | llc 22 (ms) | ours/nvcc | ours/llc 22 | check |", text)
        self.assertIn("| used | increasing | 1 | 2^20 | 0.800 | 400.0 | 390.0 | 0.002 | 0.002 | linearization |", text)
        self.assertIn("| used | increasing | 32 | 2^20 | 0.500 | 10.000 | WRONG | 0.050 | — | linearization |", text)
        self.assertIn("llc 22: wrong: element 0", text)
        self.assertIn("| unused | constant | 2^20 | 2^20 |", text)
        self.assertIn("| used | constant | 1 | — | not run: time budget |", text)

    def test_targets(self):
        text = table.render(fake_document(), summary_only=True)
        self.assertIn("| f32 max, increasing operands, 1 address: >= 100x faster than nvcc | increasing, used, ours, "
                      "2^20 threads | 500.0x | yes |", text)
        self.assertIn("32 addresses: >= 50x faster than nvcc | increasing, used, ours, 2^20 threads | 20.0x | no |", text)
        self.assertIn("| u8 add, 1 address: >= 10x faster than nvcc | — | — | not measured |", text)
        self.assertIn("| f16 add opt-in within 2x of packed f16x2 | unused, random, n=1, ours:packed | 1.50x | yes |", text)
        self.assertIn("| nothing slower than nvcc beyond noise | 1 rows slower | — | no |", text)
        self.assertIn("add_u32_unused constant n=1048576 (ours 0.020 ms, nvcc 0.010 ms)", text)
        self.assertIn("1 rows not run (time budget)", text)
        self.assertNotIn("## max f32", text)

    def test_packed_comparison_needs_equal_thread_counts(self):
        document = fake_document()
        document["rows"][4]["threads"] = 1 << 20
        text = table.render(document, summary_only=True)
        self.assertIn("| 1.50x | not comparable: 2^16 against 2^20 threads |", text)


@unittest.skipUnless(os.environ.get("GPUBENCH_PREPARED"), "GPUBENCH_PREPARED names no prepared folder")
class SimulatedRunTest(unittest.TestCase):
    """The whole runner against the model: planning, checks, JSON, tables."""

    def test_run(self):
        folder = os.environ["GPUBENCH_PREPARED"]
        out = tempfile.mkdtemp()
        try:
            contention.main([folder, out, "--simulate", "--simulate-wrong", "llc", "--threads", str(1 << 16),
                             "--cases", "max_f32,add_u8_used,add_f16_unused,add_bf16_used", "--runs", "3"])
            with open(os.path.join(out, "results.json")) as f:
                document = json.load(f)
            labels = {c["label"] for c in document["contenders"] if "error" not in c}
            refused = {c["label"] for c in document["contenders"] if "error" in c}
            self.assertTrue(document["simulated"])
            self.assertEqual(len(document["rows"]), (2 + 1 + 1 + 1) * 3 * 4)
            for row in document["rows"]:
                outcomes = row["contenders"]
                self.assertTrue(row["threads"] <= 1 << 16, row)
                for label in labels - {"llc"}:
                    if label in outcomes:
                        self.assertEqual(outcomes[label]["status"], "ok", (row["case"], label, outcomes[label]))
                for label in refused & set(outcomes):
                    self.assertEqual(outcomes[label]["status"], "error")
                    self.assertIn("atomir refused", outcomes[label]["reason"])
                if row["result"] == "used":
                    self.assertEqual(outcomes["ours"]["check"], "linearization")
                # A corrupted result is reported, not timed, wherever the check can see it.
                llc = outcomes["llc"]
                self.assertTrue(llc["status"] == "wrong" or llc.get("check") == "weak", (row, llc))
                self.assertEqual("median_ms" in llc, llc["status"] == "ok")
            # Slow rows ran fewer threads, the same for every contender.
            slow = [r for r in document["rows"] if r["case"] == "add_u8_used" and r["addresses"] == 1]
            self.assertTrue(all(r["threads"] < 1 << 16 for r in slow), slow)
            self.assertIn("ours:packed", {r["case"] and label for r in document["rows"] for label in r["contenders"]})
            with open(os.path.join(out, "results.md")) as f:
                markdown = f.read()
            self.assertIn("**SIMULATED", markdown)
            self.assertIn("## add u8", markdown)
        finally:
            shutil.rmtree(out)


if __name__ == "__main__":
    unittest.main()
