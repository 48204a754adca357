#!/usr/bin/env python3
"""Markdown tables from the contention benchmark's results.json, for bench/RESULTS.md.

    python3 bench/gpu/table.py results.json [--summary] > tables.md

Per op and type: one row per result use, operand pattern and number of addresses, with the
median milliseconds of every contender and the ratios ours/nvcc and ours/llc (below 1: ours is
faster), then the targets the benchmark is held to. Pure Python (no numpy).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cases import DEFAULT  # noqa: E402

NAMES = {"ours": "ours", "nvcc": "nvcc", "llc": "llc 22"}
PATTERN_ORDER = ("constant", "increasing", "random")


def _labels(document):
    """atomir's contenders (the default first), then the others (nvcc, llc, any more)."""
    labels = [c["label"] for c in document["contenders"]]
    ours = [label for label in labels if label == DEFAULT or label.startswith(DEFAULT + ":")]
    ours.sort(key=lambda label: label != DEFAULT)
    others = [label for label in labels if label not in ours]
    others.sort(key=lambda label: list(NAMES).index(label) if label in NAMES else len(NAMES))
    return ours, others


def _threads(count):
    if count and count & (count - 1) == 0:
        return f"2^{count.bit_length() - 1}"
    return str(count)


def _addresses(count):
    return _threads(count) if count >= 1 << 16 else str(count)


def _ms(outcome):
    if outcome is None:
        return "—"
    if outcome["status"] == "ok":
        value = outcome["median_ms"]
        return f"{value:.3f}" if value < 100 else f"{value:.1f}"
    return outcome["status"].upper()


def _ratio(a, b):
    if a is None or b is None or a["status"] != "ok" or b["status"] != "ok":
        return "—"
    value = a["median_ms"] / b["median_ms"]
    return f"{value:.3f}" if value < 0.1 else f"{value:.2f}"


def _check(row, labels):
    kinds = {}
    for label in labels:
        outcome = row.get("contenders", {}).get(label)
        if outcome and outcome["status"] == "ok":
            kinds.setdefault(outcome["check"], []).append(label)
    if len(kinds) <= 1:
        return next(iter(kinds), "—")
    return "; ".join(f"{kind} ({', '.join(who)})" for kind, who in kinds.items())


def _sort_key(row):
    pattern = PATTERN_ORDER.index(row["pattern"]) if row["pattern"] in PATTERN_ORDER else 9
    return (row["result"] != "used", pattern, row["addresses"])


def header(document):
    info = document["device"]
    lines = []
    if document.get("simulated"):
        lines += ["**SIMULATED: no GPU ran this; every time below is invented by a model.**", ""]
    driver = info.get("driver_version", "?")
    api = info.get("cuda_driver_api")
    api_text = f"CUDA {api // 1000}.{api % 1000 // 10}" if isinstance(api, int) else "?"
    nvcc = next((c.get("nvcc", {}).get("version") for c in document["contenders"] if c["label"] == "nvcc"), None)
    config = document["config"]
    lines.append(
        f"Device: {info.get('name', '?')} (compute capability {info.get('compute_capability', '?')}, "
        f"{info.get('multiprocessors', '?')} SMs), driver {driver} ({api_text}), "
        f"{nvcc or 'nvcc ?'}; run {info.get('date', '?')}."
    )
    prepared = document.get("prepared", {})
    if prepared:
        lines.append(
            f"Code: atomir {prepared.get('atomir_commit', '?')}, {prepared.get('llc', 'llc ?')}, "
            f"assembled by ptxas ({prepared.get('ptxas', '?')}) when prepared on {prepared.get('date', '?')}."
        )
    lines.append(
        f"Each row: {_threads(config['threads'])} threads of {config['block']} per block, one atomic each, "
        f"thread t on element t % n (column 'addresses'), fewer threads where a launch would take "
        f"over {config['launch_cap_s']} s (column 'threads'); median of up to {config['runs']} launches "
        f"(at least 3) after the check; ratios are ours / other (below 1: ours is faster)."
    )
    return lines


def section(document, rows, ours, others):
    # Only the contenders these kernels have; ratios only for those with a time somewhere.
    present = {label for row in rows for label in row.get("contenders", {})}
    timed = {label for row in rows for label, o in row.get("contenders", {}).items() if o["status"] == "ok"}
    ours = [label for label in ours if label in present]
    ratio_ours = [label for label in ours if label in timed]
    others = [label for label in others if label in present]
    columns = ["result", "operands", "addresses", "threads"]
    columns += [f"{NAMES.get(label, label)} (ms)" for label in ours + others]
    ratios = [(a, b) for a in ratio_ours for b in others if b in timed]
    columns += [f"{NAMES.get(a, a)}/{NAMES.get(b, b)}" for a, b in ratios]
    columns.append("check")
    aligns = ["---", "---"] + ["---:"] * (len(columns) - 3) + ["---"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join(aligns) + "|"]
    notes = []
    for row in sorted(rows, key=_sort_key):
        if "not_run" in row:
            cells = [row["result"], row["pattern"], _addresses(row["addresses"]), "—"]
            cells += ["not run"] * (len(ours + others) + len(ratios)) + [f"not run: {row['not_run']}"]
            lines.append("| " + " | ".join(cells) + " |")
            continue
        outcomes = row["contenders"]
        cells = [row["result"], row["pattern"], _addresses(row["addresses"]), _threads(row["threads"])]
        cells += [_ms(outcomes.get(label)) for label in ours + others]
        cells += [_ratio(outcomes.get(a), outcomes.get(b)) for a, b in ratios]
        cells.append(_check(row, ours + others))
        lines.append("| " + " | ".join(cells) + " |")
        for label in ours + others:
            outcome = outcomes.get(label)
            if outcome and outcome["status"] != "ok":
                reason = " ".join(outcome.get("reason", "").split())
                notes.append(f"- {row['result']} {row['pattern']} n={row['addresses']}, {NAMES.get(label, label)}: "
                             f"{outcome['status']}: {reason[:300]}")
    return lines + ([""] + notes if notes else [])


def _find(document, op, type_, result=None, pattern=None, addresses=None):
    for row in document["rows"]:
        if "not_run" in row:
            continue
        if (row["op"], row["type"]) != (op, type_):
            continue
        if result and row["result"] != result:
            continue
        if pattern and row["pattern"] != pattern:
            continue
        if addresses is not None and row["addresses"] != addresses:
            continue
        yield row


def _speedup(row, ours, other="nvcc"):
    a, b = row["contenders"].get(ours), row["contenders"].get(other)
    if not a or not b or a["status"] != "ok" or b["status"] != "ok":
        return None
    return b["median_ms"] / a["median_ms"]


def targets(document):
    ours, _ = _labels(document)
    lines = ["| target | row | value | met |", "|---|---|---:|---|"]

    def speedups(name, op, type_, pattern, addresses, least):
        found = False
        for row in _find(document, op, type_, pattern=pattern, addresses=addresses):
            for label in ours:
                value = _speedup(row, label)
                if value is None:
                    continue
                found = True
                where = f"{row['result']}, {NAMES.get(label, label)}, {_threads(row['threads'])} threads"
                lines.append(f"| {name} | {row['pattern']}, {where} | {value:.1f}x | "
                             f"{'yes' if value >= least else 'no'} |")
        if not found:
            lines.append(f"| {name} | — | — | not measured |")

    speedups("f32 max, increasing operands, 1 address: >= 100x faster than nvcc", "max", "f32", "increasing", 1, 100)
    speedups("f32 max, increasing operands, 32 addresses: >= 50x faster than nvcc", "max", "f32", "increasing", 32, 50)
    speedups("u8 add, 1 address: >= 10x faster than nvcc", "add", "u8", None, 1, 10)
    variants = [label for label in ours if label != DEFAULT]
    packed_rows = 0
    for variant in variants:
        for lane, pair in (("f16", "f16x2"), ("bf16", "bf16x2")):
            for row in _find(document, "add", lane):
                mine = row["contenders"].get(variant)
                refs = list(_find(document, "add", pair, row["result"], row["pattern"], row["addresses"]))
                ref = refs[0]["contenders"].get(DEFAULT) if refs else None
                if not mine or not ref or mine["status"] != "ok" or ref["status"] != "ok":
                    continue
                packed_rows += 1
                value = mine["median_ms"] / ref["median_ms"]
                met = "yes" if value <= 2 else "no"
                if refs[0]["threads"] != row["threads"]:
                    met = f"not comparable: {_threads(row['threads'])} against {_threads(refs[0]['threads'])} threads"
                lines.append(
                    f"| {lane} add opt-in within 2x of packed {pair} | {row['result']}, {row['pattern']}, "
                    f"n={row['addresses']}, {variant} | {value:.2f}x | {met} |")
    if not packed_rows:
        lines.append("| f16 add opt-in within 2x of packed f16x2 | — | — | no opt-in variant measured |")
    slower = []
    for row in document["rows"]:
        if "not_run" in row:
            continue
        for label in ours:
            a, b = row["contenders"].get(label), row["contenders"].get("nvcc")
            if not a or not b or a["status"] != "ok" or b["status"] != "ok":
                continue
            # Slower beyond noise: the ranges of the runs do not overlap and the medians differ by 5%.
            if a["min_ms"] > b["max_ms"] and a["median_ms"] > 1.05 * b["median_ms"]:
                slower.append(f"{row['case']} {row['pattern']} n={row['addresses']} ({label} "
                              f"{a['median_ms']:.3f} ms, nvcc {b['median_ms']:.3f} ms)")
    lines.append(f"| nothing slower than nvcc beyond noise | {len(slower)} rows slower | — | "
                 f"{'yes' if not slower else 'no'} |")
    problems = [f"{row['case']} {row['pattern']} n={row['addresses']}: {label} {o['status']}"
                for row in document["rows"] if "contenders" in row
                for label, o in row["contenders"].items() if o["status"] != "ok"]
    extra = []
    if slower:
        extra += ["", "Slower than nvcc beyond noise:", ""] + [f"- {s}" for s in slower]
    if problems:
        extra += ["", f"Not timed ({len(problems)}): a wrong result, an error or a missing kernel:", ""]
        extra += [f"- {p}" for p in problems]
    not_run = sum(1 for row in document["rows"] if "not_run" in row)
    if not_run:
        extra += ["", f"{not_run} rows not run (time budget)."]
    return lines + extra


def render(document, summary_only=False):
    ours, others = _labels(document)
    lines = ["# GPU contention: atomir against nvcc and llc 22", ""] + header(document) + [""]
    lines += ["## Targets", ""] + targets(document) + [""]
    if summary_only:
        return "\n".join(lines)
    groups = {}
    for row in document["rows"]:
        groups.setdefault((row["op"], row["type"]), []).append(row)
    for (op, type_), rows in groups.items():
        lines += [f"## {op} {type_}", ""] + section(document, rows, ours, others) + [""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results")
    parser.add_argument("--summary", action="store_true", help="only the header and the targets")
    options = parser.parse_args()
    with open(options.results) as f:
        document = json.load(f)
    sys.stdout.write(render(document, options.summary) + "\n")


if __name__ == "__main__":
    main()
