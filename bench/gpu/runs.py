#!/usr/bin/env python3
"""One line per recorded contention run: the targets of table.py's summary, across runs.

    python3 bench/gpu/runs.py bench/gpu/results/h100-*.json

For each results.json of `contention.py` (files of other scripts are passed over), in the order
the runs were prepared: the commit
whose code it timed, the date, how many times nvcc's time ours is for f32 max with increasing
operands at 1 and 32 addresses (result used / unused), the range of that for u8 add at one
address, the largest comparable ratio of the f16/bf16 add opt-in to the packed add, and the
rows slower than nvcc beyond noise, all as `table.py --summary` computes them.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from table import _find, _labels, _speedup, targets  # noqa: E402


def _pair(document, addresses):
    values = []
    for result in ("used", "unused"):
        rows = list(_find(document, "max", "f32", result, "increasing", addresses))
        value = _speedup(rows[0], "ours") if rows else None
        values.append("—" if value is None else f"{value:,.1f}x")
    return " / ".join(values)


def _u8(document):
    values = [v for row in _find(document, "add", "u8", addresses=1)
              for v in [_speedup(row, "ours")] if v is not None]
    return f"{min(values):,.1f}x to {max(values):,.1f}x" if values else "—"


def _opt_in(lines):
    ratios = [float(line.split("|")[3].strip().rstrip("x")) for line in lines
              if "opt-in within 2x" in line and line.rstrip().endswith("| yes |")]
    misses = [line for line in lines if "opt-in within 2x" in line and line.rstrip().endswith("| no |")]
    if not ratios and not misses:
        return "not measured"
    text = f"at most {max(ratios):.2f}x" if ratios else ""
    return text + (f", {len(misses)} rows over 2x" if misses else "")


def _slower(lines):
    for line in lines:
        if line.startswith("| nothing slower than nvcc"):
            return line.split("|")[2].strip().split()[0]
    return "—"


def main():
    print("| results file | code timed | date | f32 max, 1 address, used / unused | "
          "f32 max, 32 addresses, used / unused | u8 add, 1 address | f16/bf16 add opt-in / packed | "
          "rows slower than nvcc |")
    print("|---|---|---|---:|---:|---:|---|---:|")
    runs = []
    for path in sys.argv[1:]:
        with open(path) as f:
            document = json.load(f)
        if "contenders" in document:
            runs.append((document.get("prepared", {}).get("date", ""), path, document))
    for _, path, document in sorted(runs):
        _labels(document)
        lines = targets(document)
        prepared = document.get("prepared", {})
        print(f"| `{path}` | {prepared.get('atomir_commit', '?')} | {prepared.get('date', '?')[:10]} | "
              f"{_pair(document, 1)} | {_pair(document, 32)} | {_u8(document)} | {_opt_in(lines)} | "
              f"{_slower(lines)} |")


if __name__ == "__main__":
    main()
