"""The LLVM IR reader, `fix_llvm` and `audit` from Python: each gives what the facade gives,
and a text never makes them abort."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
from typing import Optional

import pytest

import atomir

ROOT = pathlib.Path(__file__).resolve().parents[2]

IR = """target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr addrspace(1) %p) {
  %a = atomicrmw xchg ptr addrspace(1) %p, i32 1 syncscope("device") release, align 4
  fence syncscope("block") acquire
  %v = load atomic volatile i32, ptr addrspace(1) %p syncscope("device") acquire, align 4
  ret void
}
"""


def ptx(body: str) -> str:
    return (
        ".version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
        ".reg .b32 %r<3>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\n"
        f"{body}\nret;\n}}\n"
    )


def test_read_llvm_gives_each_atomic_as_its_node() -> None:
    read = atomir.read_llvm(IR)
    assert read.triple == "nvptx64"
    assert read.errors == []
    xchg, fence, load = read.atomics
    assert (xchg.line, xchg.col, xchg.function, xchg.kind) == (3, 3, "k", "atomicrmw")
    assert xchg.node == atomir.Atomic("exch", "b32", order="release", scope="device",
                                      space="global", result=False)
    assert xchg.raw == IR.splitlines()[2].strip()
    assert fence.kind == "fence" and fence.node == atomir.Fence("acquire", "block")
    assert load.kind == "load" and isinstance(load.node, atomir.Atomic)
    assert (load.node.op, load.node.order) == ("load", "acquire")


def test_read_llvm_reads_the_triple_it_is_given_where_the_module_has_none() -> None:
    text = IR.split("\n", 1)[1]
    assert atomir.read_llvm(text).triple is None
    amd = atomir.read_llvm(text, triple="amdgcn")
    assert amd.triple == "amdgcn"
    assert atomir.read_llvm(text, triple="nvptx64-nvidia-cuda").triple == "nvptx64"
    with pytest.raises(atomir.InvalidError, match="nvptx64"):
        atomir.read_llvm(text, triple="z80")


def test_read_llvm_reports_what_it_cannot_read_with_its_place() -> None:
    bad = IR.replace('syncscope("device") release', 'syncscope("galaxy") release')
    read = atomir.read_llvm(bad)
    where = bad.splitlines()[2].index('"galaxy"') + 1
    assert [(line, col) for line, col, _ in read.errors] == [(3, where)]
    assert "galaxy" in read.errors[0][2]
    assert [atomic.kind for atomic in read.atomics] == ["fence", "load"]


def test_fix_llvm_replaces_the_atomic_whose_order_llc_22_drops() -> None:
    fixed = atomir.fix_llvm(IR, "llvm:nvptx64@22")
    assert fixed.replaced >= 1
    assert 'fence syncscope("device") release' in fixed.text
    assert "%a = " in fixed.text and "define ptx_kernel void @k" in fixed.text
    # The volatile load is left as it was, and says why.
    assert [line for line, _, _ in fixed.diagnostics] == [5]
    assert "volatile" in fixed.diagnostics[0][2]
    same = atomir.fix_llvm(IR, atomir.Target("llvm:nvptx64@22"))
    assert (same.text, same.replaced) == (fixed.text, fixed.replaced)


def test_fix_llvm_refuses_a_target_that_is_not_the_modules() -> None:
    with pytest.raises(atomir.Error, match="not an LLVM target"):
        atomir.fix_llvm(IR, "ptx:sm_90")
    with pytest.raises(atomir.InvalidError, match="amdgcn"):
        atomir.fix_llvm(IR, "llvm:amdgcn@22")
    with pytest.raises(atomir.InvalidError):
        atomir.fix_llvm(IR, "llvm:nowhere")


AUDITED = IR.split("  fence")[0] + "  ret void\n}\n"


def test_audit_reports_a_dropped_order_as_weakened() -> None:
    report = atomir.audit(AUDITED, ptx("atom.global.exch.b32 %r1, [%rd1], 1;"))
    assert (report.weakened, report.unmatched, report.is_clean) == (1, 0, False)
    (entry,) = report.entries
    assert (entry.function, entry.ir_line, entry.verdict) == ("k", 3, "weakened")
    assert entry.ir_text.startswith("%a = atomicrmw xchg")
    assert entry.ptx == [(9, "atom.global.exch.b32 %r1, [%rd1], 1")]
    assert entry.details == ["order dropped: release in the IR, relaxed in the PTX"]
    rendered = report.render("mp.ll", "mp.ptx")
    assert "mp.ll:3" in rendered and "WEAKENED" in rendered and "mp.ptx:9" in rendered


def test_audit_of_ptx_that_keeps_the_order_is_clean() -> None:
    report = atomir.audit(AUDITED, ptx("atom.release.gpu.global.exch.b32 %r1, [%rd1], 1;"))
    assert report.is_clean and report.weakened == 0
    assert [entry.verdict for entry in report.entries] == ["kept"]
    assert report.entries[0].details == []
    assert (report.unclaimed, report.ir_errors, report.ptx_errors) == ([], [], [])
    assert "1 atomics: 1 kept" in report.render()


def test_audit_names_ptx_no_ir_atomic_took_and_ir_it_finds_no_ptx_for() -> None:
    report = atomir.audit(AUDITED, ptx("atom.release.gpu.global.exch.b32 %r1, [%rd1], 1;\n"
                                       "atom.global.add.u32 %r2, [%rd1], 1;"))
    assert [(function, line) for function, line, _ in report.unclaimed] == [("k", 10)]
    empty = atomir.audit(AUDITED, ptx(""))
    assert empty.unmatched == 1 and not empty.is_clean
    assert empty.entries[0].verdict == "unmatched" and len(empty.entries[0].details) == 1


def tool_or_skip(name: str, path: str) -> Optional[str]:
    found = shutil.which(name) or (path if os.path.exists(path) else None)
    if found is None:
        message = f"{name} not found ({path})"
        if os.environ.get("ATOMIR_REQUIRE_TOOLS") == "1":
            pytest.fail(f"{name} is required (ATOMIR_REQUIRE_TOOLS=1) but not installed: {message}")
        print(f"SKIPPED: {message}")
    return found


def test_llc_22_weakens_the_litmus_and_the_fixed_module_it_keeps() -> None:
    llc = tool_or_skip("llc-22", "/usr/lib/llvm-22/bin/llc")
    if llc is None:
        return
    source = (ROOT / "tests/gpu/litmus-llvm/mp_rmw.ll").read_text()

    def compiled(text: str) -> str:
        return subprocess.run([llc, "-mtriple=nvptx64-nvidia-cuda", "-mcpu=sm_90", "-o", "-"],
                              input=text, capture_output=True, text=True, check=True).stdout

    before = atomir.audit(source, compiled(source))
    assert before.weakened == 2 and not before.is_clean, before.render()
    fixed = atomir.fix_llvm(source, "llvm:nvptx64@22")
    assert fixed.replaced == 4 and fixed.diagnostics == []
    after = atomir.audit(source, compiled(fixed.text))
    assert after.is_clean and after.weakened == 0, after.render()
    assert [entry.verdict for entry in after.entries] == ["kept"] * 4
    print(after.render("mp_rmw.ll", "mp_rmw.fixed.ptx"))
