"""Drives the Python API with random and malformed nodes, names, targets and texts (hypothesis):
every call must return or raise an `Exception`; a Rust panic reaching Python as a
`BaseException`, or an abort of the interpreter, fails. Run as a child process by
`test_properties.py`, so an abort is seen as the child's exit status.

    python3 fuzz_api.py EXAMPLES
prints one line of counts and exits 0 when every call ended in a return or an exception.
"""

from __future__ import annotations

import collections
import importlib
import itertools
import sys
from typing import Any, Callable, Dict, List

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import atomir

VOCABULARY = importlib.import_module("atomir._atomir").vocabulary()
TARGET_NAMES = [str(target) for target in atomir.targets()]
EXAMPLE_TEXT = """\
kernel k(%p: ptr.global, %s: ptr.shared, %x: u32, %f: f32, %q: pred, %e: b64, %n: b64) {
  %old = atomic.add.relaxed.device.global.u32 [%p], %x
  @%q atomic.max.release.block.shared.f32 [%s], %f
  %c = atomic.cas.seq_cst.system.global.b64 [%p], %e, %n
  %v = atomic.add.acq_rel.device.global.v4.f32 [%p], {%f, %f, %f, %f}
  fence.seq_cst.device
  %l = atomic.load.acquire.device.global.u32 [%p]
  atomic.store.release.device.global.u32 [%p], %x
}
"""

EXAMPLE_PTX = """\
.version 8.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_p)
{
\t.reg .b32 %r<4>;
\t.reg .b64 %rd<2>;
\t.reg .pred %p<2>;
\tld.param.u64 %rd1, [k_p];
\t@%p1 atom.acquire.gpu.global.cas.b32 %r1, [%rd1+4], %r2, %r3;
\tred.relaxed.cta.shared::cta.add.u32 [%rd1], 1;
\tld.acquire.sys.global.v2.b32 {%r1, %r2}, [%rd1];
\tmembar.gl;
}
"""

PTX_INSTRUCTIONS = EXAMPLE_PTX.splitlines()[9:13]

EXAMPLE_LL = """\
target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @k(ptr addrspace(1) %p, ptr addrspace(3) %s, i32 %x) {
entry:
  %a = atomicrmw xchg ptr addrspace(1) %p, i32 1 syncscope("device") release, align 4
  %b = atomicrmw fadd ptr addrspace(3) %s, float 1.0 syncscope("block") monotonic, align 4
  %c = cmpxchg ptr addrspace(1) %p, i32 %x, i32 %a acq_rel acquire, align 4
  fence syncscope("block") acquire
  %v = load atomic i32, ptr addrspace(1) %p acquire, align 4
  store atomic i32 %v, ptr addrspace(1) %p syncscope("device") release, align 4
  ret void
}
"""
LLVM_TARGET_NAMES = [name for name in TARGET_NAMES if name.startswith("llvm:")]
TRIPLES = ["nvptx64", "amdgcn", "spirv64", "x86_64", "spirv-vulkan", "nvptx64-nvidia-cuda"]

counts: Dict[str, int] = collections.Counter()

#: Every code point, lone surrogates (U+D800 to U+DFFF, which Python's `str` holds and UTF-8
#: cannot encode) included: such a string is an `atomir.Error` like any other bad input.
CHARACTERS = st.characters(exclude_categories=())


def strings(max_size: int) -> st.SearchStrategy[str]:
    return st.text(CHARACTERS, max_size=max_size)


def node_pool() -> List[Any]:
    """Every node the IR defines over a grid of ops, types, shapes, orders, spaces and result
    uses, and every fence."""
    pool: List[Any] = []
    for op, ty, shape, order, space, result in itertools.product(
        VOCABULARY["Op"], VOCABULARY["Type"], ["scalar", "v4"], VOCABULARY["Order"],
        ["generic", "global", "shared"], [False, True],
    ):
        try:
            pool.append(atomir.Atomic(op, ty, shape=shape, order=order, space=space, result=result))
        except atomir.InvalidError:
            pass
    for order, scope in itertools.product(VOCABULARY["Order"], VOCABULARY["Scope"]):
        try:
            pool.append(atomir.Fence(order, scope))
        except atomir.InvalidError:
            pass
    return pool


NODES = node_pool()


def call(what: str, function: Callable[[], Any]) -> Any:
    """Runs one API call: a return or an `Exception` is counted; anything else propagates."""
    counts["calls"] += 1
    try:
        value = function()
    except atomir.Error:
        counts[f"{what} raised atomir.Error"] += 1
        return None
    except UnicodeError:
        # A string atomir cannot take is its error, not a failed conversion.
        raise
    except Exception as error:  # TypeError of argument conversion: still an exception
        counts[f"{what} raised {type(error).__name__}"] += 1
        return None
    counts[f"{what} returned"] += 1
    return value


def mutated(text: str, data: st.DataObject) -> str:
    """`text` with a few random characters replaced, inserted or removed."""
    chars = list(text)
    for _ in range(data.draw(st.integers(0, 3))):
        at = data.draw(st.integers(0, len(chars)))
        kind = data.draw(st.sampled_from(["replace", "insert", "delete"]))
        char = data.draw(CHARACTERS)
        if kind == "insert" or not chars:
            chars.insert(at, char)
        elif kind == "replace":
            chars[min(at, len(chars) - 1)] = char
        else:
            del chars[min(at, len(chars) - 1)]
    return "".join(chars)


def mostly(valid: st.SearchStrategy[Any], malformed: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """`valid` nine times in ten, else `malformed`."""
    return st.integers(0, 9).flatmap(lambda pick: valid if pick else malformed)


def spelling(kind: str) -> st.SearchStrategy[Any]:
    valid = st.sampled_from(VOCABULARY[kind])
    malformed = st.one_of(strings(12), st.integers(), st.none())
    return mostly(valid, malformed)


target_names = st.one_of(
    st.sampled_from(TARGET_NAMES),
    st.sampled_from(TARGET_NAMES).map(lambda name: name + "+bogus"),
    st.builds(lambda b, s: f"{b}:{s}", st.sampled_from(["ptx", "visa", "llvm", "spirv"]), strings(10)),
    strings(20),
)

valid_register = st.from_regex(r"%?[A-Za-z_][A-Za-z0-9_]{0,6}", fullmatch=True)
register = mostly(
    valid_register,
    st.one_of(strings(8), st.integers(min_value=-(2**130), max_value=2**130)),
)
operand = st.one_of(register, st.lists(register, max_size=9))


@st.composite
def nodes(draw: st.DrawFn) -> Any:
    choice = draw(st.integers(0, 9))
    if choice >= 5:
        return draw(st.sampled_from(NODES))
    if choice == 0:
        order, scope = draw(spelling("Order")), draw(spelling("Scope"))
        return call("Fence", lambda: atomir.Fence(order, scope))
    if choice == 1:
        return draw(st.one_of(st.none(), st.integers(), strings(5)))
    keywords = dict(
        shape=draw(spelling("Shape")),
        order=draw(spelling("Order")),
        scope=draw(spelling("Scope")),
        space=draw(spelling("Space")),
        result=draw(st.booleans()),
        hint=draw(st.one_of(st.none(), spelling("Hint"))),
        pointer_space=draw(st.one_of(st.none(), spelling("Space"))),
    )
    op, ty = draw(spelling("Op")), draw(spelling("Type"))
    return call("Atomic", lambda: atomir.Atomic(op, ty, **keywords))


@settings(
    max_examples=int(sys.argv[1]) if len(sys.argv) > 1 else 300,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(st.data())
def exercise(data: st.DataObject) -> None:
    node = data.draw(nodes())
    name = data.draw(target_names)
    target = call("Target", lambda: atomir.Target(name))
    if target is None:
        target = atomir.Target(data.draw(st.sampled_from(TARGET_NAMES)))
    call("legalize", lambda: target.legalize(node))
    if data.draw(st.integers(0, 15)) == 0:
        call("supported_targets", lambda: atomir.supported_targets(node))
    if isinstance(node, atomir.Atomic) and data.draw(st.booleans()):
        # Well formed: the operands the node takes, a lane each for a vector.
        one = register if node.lanes == 1 else st.lists(register, min_size=node.lanes, max_size=node.lanes)
        operands = data.draw(st.lists(one, min_size=node.operand_count, max_size=node.operand_count))
        result = data.draw(one) if node.result else None
    else:
        operands = data.draw(st.lists(operand, max_size=3))
        result = data.draw(st.one_of(st.none(), operand))
    keywords: Dict[str, Any] = dict(
        address=data.draw(st.one_of(st.none(), register)),
        operands=operands,
        result=result,
        predicate=data.draw(st.one_of(st.none(), register, register.map(lambda r: f"!{r}"))),
        prefix=data.draw(st.one_of(st.just("m"), st.from_regex(r"[a-z]{1,3}[0-9]?_", fullmatch=True), strings(4))),
    )
    if data.draw(st.booleans()):
        keywords["blocks"] = data.draw(st.tuples(register, register))
    call("splice", lambda: target.splice(node, **keywords))
    text = data.draw(st.one_of(st.just(EXAMPLE_TEXT), strings(60)).map(lambda t: mutated(t, data)))
    module = call("parse", lambda: atomir.parse(text))
    source = module if module is not None else text
    complete, skip = data.draw(st.booleans()), data.draw(st.booleans())
    call("lower", lambda: target.lower(source, complete_module=complete, skip_refusals=skip))
    if data.draw(st.integers(0, 3)) == 0:
        call("lower_each", lambda: target.lower_each(source))
    if module is not None:
        call("instructions", lambda: [str(i.node) for i in module.instructions()])
    ptx = data.draw(st.one_of(st.just(EXAMPLE_PTX), strings(80)).map(lambda t: mutated(t, data)))
    read = call("read_ptx", lambda: atomir.read_ptx(ptx))
    if read is not None and read.atomics:
        atomic = data.draw(st.sampled_from(read.atomics))
        call("lower", lambda: target.lower(atomic.text))
    line = data.draw(st.one_of(st.sampled_from(PTX_INSTRUCTIONS), strings(40)))
    line = mutated(line, data)
    call("read_ptx_instruction", lambda: atomir.read_ptx_instruction(line))
    ir = data.draw(st.one_of(st.just(EXAMPLE_LL), strings(80)).map(lambda t: mutated(t, data)))
    triple = data.draw(st.one_of(st.none(), st.sampled_from(TRIPLES), strings(8)))
    call("read_llvm", lambda: atomir.read_llvm(ir, triple))
    fix_target = data.draw(st.one_of(st.sampled_from(LLVM_TARGET_NAMES), st.just(name), st.just(target)))
    call("fix_llvm", lambda: atomir.fix_llvm(ir, fix_target))
    report = call("audit", lambda: atomir.audit(ir, ptx))
    if report is not None:
        call("render", lambda: [entry.details for entry in report.entries] and report.render("a.ll", "a.ptx"))


if __name__ == "__main__":
    exercise()
    summary = ", ".join(f"{key} {value}" for key, value in sorted(counts.items()))
    print(f"fuzz: {summary}; 0 aborts")
    sys.exit(0)
