"""The property test of `fuzz_api.py`, run in a child interpreter so that an abort (a Rust
panic crossing into Python, a crash) is the child's exit status and fails here, rather than
ending this test run."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

EXAMPLES = int(os.environ.get("ATOMIR_FUZZ_EXAMPLES", "1000"))


def test_random_and_malformed_input_only_ever_raises_exceptions() -> None:
    child = subprocess.run(
        [sys.executable, os.path.join(os.path.dirname(__file__), "fuzz_api.py"), str(EXAMPLES)],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    if child.returncode < 0:
        name = signal.Signals(-child.returncode).name
        raise AssertionError(f"the fuzzed interpreter died by {name}:\n{child.stderr[-4000:]}")
    assert child.returncode == 0, child.stdout[-2000:] + child.stderr[-4000:]
    print(child.stdout.strip())
    counts = {key: int(value) for key, value in re.findall(r"(\w[\w .]*?) (\d+)(?:,|;)", child.stdout)}
    # Not vacuous: each operation both succeeded and refused somewhere in the run.
    for operation in ["Target", "legalize", "splice", "parse", "lower", "lower_each", "read_ptx_instruction",
                      "read_llvm", "fix_llvm"]:
        assert counts.get(f"{operation} returned", 0) > 0, (operation, counts)
        raised = sum(n for key, n in counts.items() if key.startswith(f"{operation} raised"))
        assert raised > 0, (operation, counts)
    for operation in ["read_ptx", "audit", "render"]:
        assert counts.get(f"{operation} returned", 0) > 0, (operation, counts)
    assert counts["calls"] >= 4 * EXAMPLES
