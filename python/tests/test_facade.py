"""Every public operation of the Rust facade (the crate `atomir`, `atomir/src/*.rs`) that a
compiler uses, and the Python API that carries it out. The Rust side is read from the source (`atomir/src`, its
modules' folders included), so an operation added
there fails this test until the Python API has it and the table below names it."""

from __future__ import annotations

import pathlib
import re
from typing import Dict, List

import atomir

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Rust operation -> the Python attributes (from the module `atomir`) that carry it out.
PYTHON_OF_RUST: Dict[str, List[str]] = {
    "Target::all": ["targets"],
    "Target::from_str": ["Target"],
    "Target::fmt": ["Target.__str__", "Target.name"],
    "Target::backend_name": ["Target.backend"],
    # The backend behind a target: its operations are the target's own in Python.
    "Target::backend": ["Target.backend", "Target.sm", "Target.ptx_isa", "Target.triple",
                        "Target.llvm_version", "Target.platform"],
    "Target::legalize": ["Target.legalize", "Verdict"],
    "Target::legalize_fence": ["Target.legalize", "Fence"],
    "Target::legalize_signature": ["Target.lower"],
    "Target::target_name": ["Target.name"],
    "Target::lower": ["Target.lower", "Lowered"],
    "Target::lower_into": ["Target.lower"],
    "Target::lower_each": ["Target.lower_each", "InstLowering"],
    "Target::splice": ["Target.splice", "Fragment"],
    "Target::binding_types": ["Target.binding_types", "Binding", "Fragment.types"],
    "Target::smallest_accepting": ["Refusal.smallest_target", "Error"],
    # The typed id a refusal holds, as a target: Python's refusals hold the target itself.
    "Target::of_id": ["Refusal.smallest_target", "Error"],
    "Target::instructions": ["Target.legalize", "Verdict.instructions"],
    # Python's splice builds the node's one-instruction kernel itself, with the client's names.
    "node_kernel": ["Target.splice", "Target.binding_types"],
    "supported_targets": ["supported_targets"],
    "targets_help": ["targets_help"],
    # The IR's own entry points the facade re-exports for a compiler.
    "text::parse": ["parse", "Module"],
    "verify::verify": ["parse"],
    "text::print": ["Module.__str__"],
    "AtomicNode::new": ["Atomic", "Load", "Store"],
    "Fence": ["Fence"],
    # The readers of other compilers' output.
    "read_ptx": ["read_ptx", "PtxModule", "PtxAtomic"],
    "read_ptx_instruction": ["read_ptx_instruction", "PtxAtomic"],
    "read_llvm": ["read_llvm", "LlvmModule", "LlvmAtomic"],
    # What is built on the LLVM IR reader: the fix for one llc and the audit of llc's PTX.
    "fix_module": ["fix_llvm", "Fixed"],
    "audit": ["audit", "AuditReport", "AuditEntry"],
}

# What the facade re-exports that a compiler calls (beyond `lib.rs`'s own functions).
REEXPORTED = ["text::parse", "verify::verify", "text::print", "AtomicNode::new", "Fence"]
# The readers the facade re-exports by name (`pub use … as read_ptx`).
READERS = ["read_ptx", "read_ptx_instruction", "read_llvm"]


def rust_operations() -> List[str]:
    # Each file of the facade without its unit tests; lib.rs first, where the re-exports are.
    files = sorted((ROOT / "atomir/src").rglob("*.rs"), key=lambda path: (path.name != "lib.rs", str(path)))
    source = "\n".join(path.read_text().split("#[cfg(test)]")[0] for path in files)
    found = []
    # Target's inherent methods and those of every trait it implements (Backend, FromStr,
    # Display), then the free functions.
    for block in re.finditer(r"\nimpl(?: [\w:]+ for)? Target \{(\n.*?)\n\}\n", source, re.S):
        for name in re.findall(r"\n    (?:pub )?fn (\w+)", block.group(1)):
            found.append(f"Target::{name}")
    found += re.findall(r"\npub fn (\w+)", source)
    assert re.search(r"pub use atomir_ir::\{[^}]*\btext\b[^}]*\bverify\b", source, re.S)
    readers = [name for name in READERS if re.search(rf"\bas {name}\b", source)]
    return sorted(set(found + REEXPORTED + readers))


def resolve(path: str) -> object:
    value: object = atomir
    for part in path.split("."):
        value = getattr(value, part)
    return value


def test_every_facade_operation_has_its_python_form() -> None:
    operations = rust_operations()
    assert "Target::splice" in operations and "supported_targets" in operations
    assert {"read_llvm", "fix_module", "audit"} <= set(operations), operations
    missing = [op for op in operations if op not in PYTHON_OF_RUST]
    assert not missing, f"facade operations without a Python form: {missing}"
    stale = [op for op in PYTHON_OF_RUST if op not in operations]
    assert not stale, f"the table names operations the facade no longer has: {stale}"
    for rust, python in PYTHON_OF_RUST.items():
        for path in python:
            assert resolve(path) is not None, (rust, path)
            assert path.split(".")[0] in atomir.__all__, path
    print(f"{len(operations)} facade operations, each with its Python form")
