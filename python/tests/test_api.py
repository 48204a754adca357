"""The Python API against the library's own answers: targets, nodes, verdicts, splicing,
lowering of text, and the errors with their rule, reason, smallest target and location."""

from __future__ import annotations

import importlib
import pydoc
from typing import Any, Callable, Dict, List

import pytest

import atomir

# The compiled module, for what it offers the tests only (typed as Any).
native = importlib.import_module("atomir._atomir")


def global_add(**changes: Any) -> atomir.Atomic:
    keywords: Dict[str, Any] = dict(order="relaxed", scope="device", space="global", result=True)
    keywords.update(changes)
    return atomir.Atomic("add", "f32", **keywords)


def test_a_target_parses_and_prints_its_canonical_name() -> None:
    target = atomir.Target("ptx:sm_90")
    assert str(target) == "ptx:sm_90@8.8" == target.name
    assert atomir.Target(target.name) == target
    assert hash(atomir.Target("ptx:sm_90@8.8")) == hash(target)
    assert (target.backend, target.sm, target.ptx_isa) == ("ptx", "sm_90", "8.8")
    llvm = atomir.Target("llvm:amdgcn")
    assert (llvm.backend, llvm.triple, llvm.llvm_version, llvm.sm) == ("llvm", "amdgcn-amd-amdhsa", 22, None)
    assert atomir.Target("visa:PVC").platform == "PVC"


def test_targets_lists_every_target_once_and_each_name_round_trips() -> None:
    every = atomir.targets()
    names = [str(t) for t in every]
    assert len(set(names)) == len(names) > 100
    assert {t.backend for t in every} == {"ptx", "visa", "llvm"}
    assert all(atomir.Target(name) == target for name, target in zip(names, every))
    assert "ptx:sm_XX" in atomir.targets_help()


def test_a_bad_target_name_says_what_is_expected() -> None:
    with pytest.raises(atomir.InvalidError) as caught:
        atomir.Target("ptx:sm_91")
    assert "sm_90" in str(caught.value) and caught.value.rule is None
    with pytest.raises(atomir.Error, match="unknown backend"):
        atomir.Target("spirv:1.5")


def test_enums_are_strings_and_are_accepted_where_strings_are() -> None:
    add: str = atomir.Op.ADD
    cas_loop: str = atomir.Strategy.CAS_LOOP
    assert add == "add" and cas_loop == "cas-loop" and atomir.Type("f16x2") is atomir.Type.F16X2
    by_enum = atomir.Atomic(atomir.Op.MAX, atomir.Type.U32, order=atomir.Order.ACQ_REL,
                            space=atomir.Space.SHARED, scope=atomir.Scope.BLOCK, result=True)
    by_string = atomir.Atomic("max", "u32", order="acq_rel", space="shared", scope="block", result=True)
    assert by_enum == by_string and hash(by_enum) == hash(by_string)
    assert str(by_enum) == "atomic.max.acq_rel.block.shared.u32"


def test_the_stub_enums_are_the_librarys_vocabulary() -> None:
    """The .pyi declares each enum's members by hand; they must be the library's spellings."""
    import ast
    import pathlib

    stub = pathlib.Path(atomir.__file__).with_name("__init__.pyi")
    declared = {
        node.name: [stmt.value.value for stmt in node.body if isinstance(stmt, ast.Assign)]  # type: ignore[attr-defined]
        for node in ast.parse(stub.read_text()).body
        if isinstance(node, ast.ClassDef) and any(getattr(b, "attr", "") == "Enum" for b in node.bases)
    }
    vocabulary = native.vocabulary()
    assert declared == vocabulary
    for name, spellings in vocabulary.items():
        assert [member.value for member in getattr(atomir, name)] == spellings


def test_a_node_the_ir_gives_no_meaning_is_refused_where_it_is_built() -> None:
    with pytest.raises(atomir.InvalidError, match="not defined on b32"):
        atomir.Atomic("add", "b32")
    with pytest.raises(atomir.InvalidError, match="must be used"):
        atomir.Atomic("load", "u32")
    with pytest.raises(atomir.InvalidError, match="orders nothing"):
        atomir.Fence("relaxed")
    with pytest.raises(atomir.InvalidError, match="is not a"):
        atomir.Atomic("add", "u33")
    with pytest.raises(atomir.InvalidError, match="through a pointer"):
        atomir.Atomic("add", "u32", space="global", pointer_space="shared")


def test_legalize_answers_with_the_verdict() -> None:
    verdict = atomir.Target("ptx:sm_90").legalize(global_add(laxity="ftz"))
    assert verdict and verdict.accepted and verdict.strategy == atomir.Strategy.NATIVE
    assert verdict.emulation == "native" and verdict.rewrites == [] and verdict.refusal is None
    verdict.raise_if_refused()
    # The exact add: the native one flushes subnormals on global memory before PTX ISA 9.4.
    exact = atomir.Target("ptx:sm_90").legalize(global_add())
    # A CAS loop, run once per address by a warp's lanes one after another.
    assert exact.strategy == atomir.Strategy.CAS_LOOP and exact.emulation == "warp_serial_fold"
    assert "ptx.f32-add-flushes-without-noftz" in exact.rewrites[0]
    assert atomir.Target("ptx:sm_90@9.4").legalize(global_add()).strategy == atomir.Strategy.NATIVE
    u8 = atomir.Atomic("add", "u8", space="global", result=True)
    widened = atomir.Target("visa:PVC").legalize(u8)
    assert widened.strategy == "widen" and widened.emulation == "masked_cas_loop"
    dead = atomir.Target("ptx:sm_90").legalize(global_add(result=False, laxity="ftz"))
    assert dead.strategy == "rewrite" and "reduction" in dead.rewrites[0]


def test_a_refused_verdict_names_the_rule_and_the_smallest_target() -> None:
    exch = atomir.Atomic("exch", "b128", scope="system", space="global", result=True)
    verdict = atomir.Target("ptx:sm_80").legalize(exch)
    assert not verdict and verdict.strategy == "illegal" and verdict.emulation is None
    refusal = verdict.refusal
    assert refusal is not None
    assert refusal.rule.startswith("ptx.b128") and refusal.smallest_target == atomir.Target("ptx:sm_90@8.4")
    with pytest.raises(atomir.RefusedError) as caught:
        verdict.raise_if_refused()
    assert caught.value.rule == refusal.rule
    assert caught.value.smallest_target == atomir.Target("ptx:sm_90@8.4")
    assert isinstance(caught.value.smallest_target, atomir.Target)
    assert caught.value.reason == refusal.reason


def test_supported_targets_are_exactly_those_whose_verdict_accepts() -> None:
    exch = atomir.Atomic("exch", "b128", space="global", result=True)
    accepting = set(atomir.supported_targets(exch))
    for target in atomir.targets():
        assert (target in accepting) == bool(target.legalize(exch)), target
    assert atomir.Target("ptx:sm_90") in accepting and atomir.Target("ptx:sm_80") not in accepting


def test_fences_are_legalized_and_spliced() -> None:
    fence = atomir.Fence("seq_cst", "device")
    assert atomir.Target("ptx:sm_90").legalize(fence).accepted
    fragment = atomir.Target("ptx:sm_90").splice(fence)
    assert fragment.code.strip() == "fence.sc.gpu;"
    acq_rel = atomir.Fence("acq_rel", "device")
    refusal = atomir.Target("llvm:spirv-vulkan@23").legalize(acq_rel).refusal
    assert refusal is not None and refusal.rule == "llvm.vulkan-no-fence"
    assert atomir.Target("llvm:spirv-vulkan@23") not in atomir.supported_targets(acq_rel)
    assert atomir.Target("ptx:sm_90") in atomir.supported_targets(acq_rel)
    with pytest.raises(atomir.InvalidError, match="fence has no address"):
        atomir.Target("ptx:sm_90").splice(fence, address="%rd1")


def test_splice_binds_the_clients_registers() -> None:
    fragment = atomir.Target("ptx:sm_90").splice(
        global_add(laxity="ftz"), address="%rd1", operands=["%f1"], result="%f2", prefix="m"
    )
    assert fragment.code == "\tatom.relaxed.gpu.global.add.f32 %f2, [%rd1], %f1;\n"
    assert fragment.results == ["f2"] and fragment.result_bound and fragment.temporaries == []
    assert fragment.verdict.strategy == "native"


def test_splice_lists_the_temporaries_and_the_fragments_own_result() -> None:
    u8 = atomir.Atomic("add", "u8", space="global", result=True)
    fragment = atomir.Target("ptx:sm_70").splice(u8, address="%rd1", operands=["%rs1"], prefix="f0_")
    assert fragment.temporaries and all(name.startswith("f0_") for name, _ in fragment.temporaries)
    assert not fragment.result_bound and fragment.results[0].startswith("f0_")
    assert "$f0_b1:" in fragment.code and "atom.relaxed.gpu.global.cas.b32" in fragment.code


def test_cas_takes_the_expected_and_the_new_value() -> None:
    cas = atomir.Atomic("cas", "b64", order="seq_cst", scope="system", space="global", result=True)
    fragment = atomir.Target("ptx:sm_90").splice(cas, address="%rd1", operands=["%rd2", "%rd3"], result="%rd4")
    assert "%rd4, [%rd1], %rd2, %rd3" in fragment.code
    with pytest.raises(atomir.InvalidError, match="expected value, then the new one"):
        atomir.Target("ptx:sm_90").splice(cas, address="%rd1", operands=["%rd2"])


def test_a_vectors_operand_and_result_are_lists_of_names() -> None:
    v4 = atomir.Atomic("add", "f32", shape="v4", space="global", result=True, laxity="ftz")
    lanes = ["%f1", "%f2", "%f3", "%f4"]
    olds = ["%f5", "%f6", "%f7", "%f8"]
    fragment = atomir.Target("ptx:sm_90").splice(v4, address="%rd1", operands=[lanes], result=olds)
    assert "{%f5, %f6, %f7, %f8}" in fragment.code and "{%f1, %f2, %f3, %f4}" in fragment.code
    assert fragment.results == ["f5", "f6", "f7", "f8"]
    # LLVM keeps a vector whole: one name.
    llvm = atomir.Target("llvm:x86_64").splice(
        v4, address="%p", operands=[lanes], result="%old", blocks=("entry", "rest")
    )
    assert llvm.results == ["old"] and "br label %rest" in llvm.code
    with pytest.raises(atomir.InvalidError, match="bound to 1 name"):
        atomir.Target("ptx:sm_90").splice(v4, address="%rd1", operands=[lanes], result="%f5")


def test_the_types_each_bound_name_must_have() -> None:
    u8 = atomir.Atomic("add", "u8", space="global", result=True)
    fragment = atomir.Target("ptx:sm_70").splice(u8, address="%rd1", operands=["%rs1"], result="%rs2")
    assert fragment.types == {"rd1": ".b64", "rs1": ".b16", "rs2": ".b16"}
    roles = [(b.role, b.names, b.type, b.space) for b in fragment.bindings]
    assert roles == [("address", ["rd1"], ".b64", "global"), ("operand", ["rs1"], ".b16", None),
                     ("result", ["rs2"], ".b16", None)]
    v4 = atomir.Atomic("add", "f32", shape="v4", space="global", result=True)
    asked = atomir.Target("llvm:nvptx64").binding_types(v4, address="p", operands=["v"])
    assert [(b.role, b.type, b.count, b.required) for b in asked] == [
        ("address", "ptr addrspace(1)", 1, True), ("operand", "<4 x float>", 1, True),
        ("result", "<4 x float>", 1, False)]
    # Asking does not lower: a refused node still has its types.
    shared = atomir.Atomic("add", "u32", space="shared", scope="block")
    assert atomir.Target("visa:TGLLP").binding_types(shared, address="a", operands=["x"])[0].type


def test_literals_and_predicates() -> None:
    inc = atomir.Atomic("inc", "u32", space="global", result=True)
    fragment = atomir.Target("ptx:sm_90").splice(inc, address="%rd1", operands=[9], result="%r1", predicate="!%p1")
    # Where the guard fails the result is 0 and memory is not touched.
    assert fragment.code.startswith("\tmov.b32 %r1, 0;\n\t@%p1 bra $mend;\n")
    assert "atom.relaxed.gpu.global.inc.u32 %r1, [%rd1], %mr0;" in fragment.code
    assert "0x9" in fragment.code and fragment.types["p1"] == ".pred"
    with pytest.raises(atomir.InvalidError, match="does not fit"):
        atomir.Target("ptx:sm_90").splice(
            atomir.Atomic("add", "u8", space="global"), address="%rd1", operands=[256]
        )


def test_a_name_the_target_cannot_take_is_an_invalid_input_with_its_rule() -> None:
    with pytest.raises(atomir.InvalidError) as caught:
        atomir.Target("ptx:sm_90").splice(global_add(), address="%rd 1", operands=["%f1"])
    assert caught.value.rule is not None and "identifier" in caught.value.reason
    with pytest.raises(atomir.InvalidError, match="prefix"):
        atomir.Target("ptx:sm_90").splice(global_add(), address="%rd1", operands=["%f1"], prefix="0x")


def test_a_refused_splice_carries_rule_and_smallest_target() -> None:
    shared = atomir.Atomic("add", "u32", space="shared", scope="block")
    with pytest.raises(atomir.RefusedError) as caught:
        atomir.Target("visa:TGLLP").splice(shared, address="a", operands=["x"])
    error = caught.value
    assert (error.rule, error.smallest_target) == ("visa.svm-no-slm", atomir.Target("visa:DG2"))
    assert error.line is None and isinstance(error, atomir.Error)


HISTOGRAM = """\
kernel histogram(%block_bins: ptr.shared, %bins: ptr.global, %count: u32) {
  atomic.add.relaxed.block.shared.u32 [%block_bins], 1
  atomic.add.relaxed.device.global.u32 [%bins], %count
}
"""


def test_a_modules_text_is_parsed_and_lowered() -> None:
    module = atomir.parse(HISTOGRAM)
    assert module.kernels == ["histogram"]
    instructions = module.instructions()
    assert [(i.kernel, i.index, i.line, i.col) for i in instructions] == [
        ("histogram", 0, 2, 3), ("histogram", 1, 3, 3)
    ]
    assert str(instructions[0].node) == "atomic.add.relaxed.block.shared.u32"
    lowered = atomir.Target("ptx:sm_90").lower(module)
    assert "red.relaxed.cta.shared::cta.add.u32 [%block_bins]" in lowered.code
    assert [v.strategy for _, _, v in lowered.verdicts] == ["rewrite", "rewrite"]
    assert "atomic.add.relaxed.device.global.u32" in str(module)
    as_module = atomir.Target("ptx:sm_90").lower(HISTOGRAM, complete_module=True).code
    assert ".visible .entry histogram" in as_module


def test_a_refusal_in_a_module_carries_its_line_and_column() -> None:
    with pytest.raises(atomir.RefusedError) as caught:
        atomir.Target("visa:TGLLP").lower(HISTOGRAM)
    error = caught.value
    assert (error.line, error.col, error.kernel) == (2, 3, "histogram")
    assert error.rule == "visa.svm-no-slm" and error.smallest_target == atomir.Target("visa:DG2")
    assert str(error).startswith("2:3: error: in kernel `histogram`")
    skipped = atomir.Target("visa:TGLLP").lower(HISTOGRAM, skip_refusals=True)
    assert [(r.rule, r.line) for r in skipped.refusals] == [("visa.svm-no-slm", 2)]
    each = atomir.Target("visa:TGLLP").lower_each(HISTOGRAM)
    assert [e.code is None for e in each] == [True, False]
    assert each[0].verdict.refusal is not None and each[0].verdict.refusal.line == 2


def test_text_that_does_not_parse_gives_every_diagnostic() -> None:
    with pytest.raises(atomir.InvalidError) as caught:
        atomir.parse("kernel k(%p: ptr.global) {\n  atomic.frob.u32 [%p], 1\n  atomic.add.u99 [%p], 1\n}\n")
    error = caught.value
    assert error.line == 2 and len(error.diagnostics) == 2
    assert "frob" in error.diagnostics[0][2]


def test_help_shows_the_docstrings() -> None:
    for documented, words in [
        (atomir.Target, "canonical name"),
        (atomir.Target.splice, "operands"),
        (atomir.Target.legalize, "smallest target"),
        (atomir.Atomic, "pointer_space"),
        (atomir.supported_targets, "accepts"),
        (atomir.Error, "smallest_target"),
        (atomir.Load, "acquire"),
        (atomir, "RefusedError"),
    ]:
        assert words in pydoc.render_doc(documented), documented


def test_a_wrong_argument_type_is_an_exception() -> None:
    with pytest.raises(TypeError):
        atomir.Target("ptx:sm_90").legalize("atomic.add.u32")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        atomir.Target("ptx:sm_90").lower(42)  # type: ignore[arg-type]


def test_a_lone_surrogate_anywhere_is_an_atomir_error() -> None:
    bad = "\ud800"
    target = atomir.Target("ptx:sm_90")
    add = atomir.Atomic("add", "u32", space="global", result=True)
    calls: List[Callable[[], object]] = [
        lambda: atomir.Target(bad),
        lambda: atomir.Target("ptx:sm_9" + bad),
        lambda: atomir.Atomic(bad, "u32"),
        lambda: atomir.Atomic("add", "u32", order=bad),
        lambda: atomir.Atomic("add", "u32", hint=bad),
        lambda: atomir.Atomic("add", "u32", pointer_space=bad),
        lambda: atomir.Fence("seq_cst", bad),
        lambda: atomir.parse("kernel k" + bad + "() {}\n"),
        lambda: target.splice(add, address="%rd" + bad, operands=["%r1"]),
        lambda: target.splice(add, address="%rd1", operands=[bad]),
        lambda: target.splice(add, address="%rd1", operands=["%r1"], result=[bad]),
        lambda: target.splice(add, address="%rd1", operands=["%r1"], predicate=bad),
        lambda: target.splice(add, address="%rd1", operands=["%r1"], prefix=bad),
        lambda: atomir.Target("llvm:x86_64").splice(add, address="a", operands=["x"], blocks=(bad, "b")),
        lambda: target.binding_types(add, address=bad, operands=["%r1"]),
        lambda: target.lower(bad),
        lambda: target.lower("", generic_params=bad),
        lambda: target.lower_each(bad),
        lambda: atomir.read_ptx(bad),
        lambda: atomir.read_ptx_instruction(bad),
        lambda: atomir.read_llvm(bad),
        lambda: atomir.read_llvm("", bad),
        lambda: atomir.fix_llvm(bad, "llvm:nvptx64"),
        lambda: atomir.fix_llvm("", bad),
        lambda: atomir.audit(bad, ""),
        lambda: atomir.audit("", bad),
        lambda: atomir.audit("", "", bad),
        lambda: atomir.audit("", "").render(bad),
    ]
    for call in calls:
        with pytest.raises(atomir.InvalidError, match="lone surrogate"):
            call()


def test_a_panic_comes_back_as_an_internal_error() -> None:
    with pytest.raises(atomir.InternalError, match="on purpose"):
        native._panic_inside_the_guard()


def test_plain_loops_put_code_size_before_contended_speed() -> None:
    text = "kernel k(%p: ptr.global, %x: u8) {\n  %o = atomic.add.relaxed.device.global.u8 [%p], %x\n}\n"
    target = atomir.Target("ptx:sm_90")
    combined = target.lower(text).code
    plain = target.lower(text, plain_loops=True).code
    assert "match.any.sync" in combined and "match.any.sync" not in plain
    assert len(plain) < len(combined)
    assert target.lower_each(text, plain_loops=True)[0].code == plain
    u8 = atomir.Atomic("add", "u8", space="global", result=True)
    spliced = atomir.Target("ptx:sm_90+plain-loops").splice(u8, address="%rd1", operands=["%rs1"])
    assert "match.any.sync" not in spliced.code
    assert atomir.Target("ptx:sm_90+plain-loops").legalize(u8).emulation == "masked_cas_loop"
    with pytest.raises(atomir.InvalidError, match="global or anywhere"):
        target.lower(text, generic_params="somewhere")
    generic = "kernel g(%p: ptr.generic, %x: u32) {\n  atomic.add.relaxed.device.generic.u32 [%p], %x\n}\n"
    assert ".global" in target.lower(generic, complete_module=True).code.split("red.")[1].split("\n")[0]
    anywhere = target.lower(generic, complete_module=True, generic_params="anywhere").code
    assert ".global" not in anywhere.split("red.")[1].split("\n")[0]


def test_instruction_counts_come_with_the_code() -> None:
    u8 = atomir.Atomic("add", "u8", space="global", result=True)
    target = atomir.Target("ptx:sm_90")
    combined = target.splice(u8, address="%rd1", operands=["%rs1"])
    assert target.legalize(u8).instructions == combined.instructions
    plain = atomir.Target("ptx:sm_90+plain-loops").splice(u8, address="%rd1", operands=["%rs1"])
    assert combined.instructions == combined.verdict.instructions
    lines = [line for line in plain.code.splitlines() if not line.rstrip().endswith(":")]
    assert plain.instructions == len(lines) and 2 * plain.instructions <= combined.instructions
    text = "kernel k(%p: ptr.global, %x: u8) {\n  %o = atomic.add.relaxed.device.global.u8 [%p], %x\n}\n"
    (_, _, lowered), = target.lower(text).verdicts
    (each,) = target.lower_each(text)
    assert lowered.instructions == each.verdict.instructions == combined.instructions


def test_a_refusal_names_its_smallest_target_as_a_target() -> None:
    exch = atomir.Atomic("exch", "b128", scope="system", space="global", result=True)
    verdict = atomir.Target("ptx:sm_80").legalize(exch)
    refusal = verdict.refusal
    assert refusal is not None and refusal.smallest_target == atomir.Target("ptx:sm_90@8.4")
    assert verdict.instructions is None
    assert "smallest target that accepts it: ptx:sm_90@8.4" in str(refusal)
    assert repr(refusal) == "Refusal(rule='ptx.b128-sys-needs-ptx84', smallest_target=Target('ptx:sm_90@8.4'))"
    # The smallest target accepts the node, and its verdict counts the code.
    smallest = refusal.smallest_target
    assert smallest is not None
    accepted = smallest.legalize(exch)
    assert accepted and isinstance(accepted.instructions, int) and accepted.instructions > 0


def test_every_accepted_verdict_counts_the_code_a_splice_of_the_node_prints() -> None:
    nodes = [
        atomir.Atomic("add", "u8", space="global", result=True),
        atomir.Atomic("max", "f32", space="shared", scope="block", result=True),
        atomir.Atomic("cas", "b64", order="acq_rel", space="global", result=True),
        atomir.Atomic("add", "f16", shape="v4", space="global"),
        atomir.Load("u32", order="acquire", space="global"),
    ]
    names = {1: ["%a"], 2: ["%a", "%b"]}
    compared = 0
    for name in ["ptx:sm_70", "ptx:sm_90", "visa:PVC", "visa:TGLLP"]:
        target = atomir.Target(name)
        for node in nodes:
            verdict = target.legalize(node)
            if not verdict:
                assert verdict.instructions is None
                continue
            operands = [op if node.lanes == 1 else [f"{op}{i}" for i in range(node.lanes)]
                        for op in names.get(node.operand_count, [])]
            spliced = target.splice(node, address="%rd1", operands=operands)
            assert verdict.instructions == spliced.instructions, (name, str(node))
            compared += 1
    assert compared >= 12


PTX = """\
.version 8.8
.target sm_90
.address_size 64
.visible .entry publish(.param .u64 publish_flag)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [publish_flag];
	@!%p1 atom.acquire.gpu.global.add.u32 %r1, [%rd1+8], 1;
	st.release.sys.global.b32 [%rd1], %r2;
	fence.sc.cta;
	multimem.ld_reduce.global.add.u32 %r1, [%rd1];
}
"""


def test_read_ptx_gives_each_atomic_as_its_node() -> None:
    read = atomir.read_ptx(PTX)
    assert (read.version, read.sm) == ("8.8", "sm_90")
    add, store, fence = read.atomics
    assert (add.line, add.col, add.function, add.opcode) == (10, 2, "publish", "atom")
    assert str(add.node) == "atomic.add.acquire.device.global.u32"
    assert (add.guard, add.result, add.address, add.operands) == ("!%p1", ["%r1"], "[%rd1+8]", ["1"])
    assert store.node == atomir.Store("b32", order="release", scope="system", space="global")
    assert fence.node == atomir.Fence("seq_cst", "block")
    assert [(line, "multimem" in message) for line, _, message in read.errors] == [(13, True)]
    # Each becomes a module of atomir's text, which a target lowers.
    assert "atom" in atomir.Target("ptx:sm_70").lower(add.text).code
    # Without .noftz, an f32 add on global memory flushes subnormals: the ftz add.
    one = atomir.read_ptx_instruction("red.global.add.f32 [%rd1], %f2;")
    assert one.node == atomir.Atomic("add", "f32", space="global", laxity="ftz")
    assert one.opcode == "red"
    exact = atomir.read_ptx_instruction("red.global.add.noftz.f32 [%rd1], %f2;")
    assert exact.node == atomir.Atomic("add", "f32", space="global")
    with pytest.raises(atomir.InvalidError) as caught:
        atomir.read_ptx_instruction("add.u32 %r1, %r2, %r3;")
    assert caught.value.line == 1 and caught.value.col is not None
