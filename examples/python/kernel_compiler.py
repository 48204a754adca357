"""A small kernel compiler in Python that renders its kernels as PTX text, the way tinygrad's PTX
renderer and NVIDIA Warp build theirs, and asks atomir for every atomic instead of writing
`atom.*` strings by hand: each atomic is an `atomir.Atomic` (or `Load`/`Store`), spliced onto
the compiler's own registers by `Target.splice`, its temporaries declared where the compiler
declares its registers.

Four kernels:

- `histogram256`: a 256-bin byte histogram; each block counts into shared memory (u32 add,
  block scope), then adds its non-zero bins to the global histogram (u32 add, device scope).
- `max_reduce`: a float max-reduction; each block takes the max of its elements in shared
  memory, then one thread takes it into the global result.
- `grad_accumulate`: half-precision gradient accumulation, `grad[i % slots] += g[i]` (f16 add).
- `ticket_lock`: a ticket lock around a non-atomic counter increment: one thread per block takes
  a ticket (u32 add), spins on an acquire load of `now_serving`, increments the counter, and
  hands over with a release store of the next ticket.

`python3 kernel_compiler.py [TARGET...]` prints each kernel's PTX for the PTX targets given
(default `ptx:sm_70 ptx:sm_90`) and, for other targets (`visa:PVC`, `llvm:amdgcn`), each
atomic's fragment or what the target refuses, with the rule and the smallest target that
accepts it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple, Union

import atomir

# The compiler's register classes: PTX type of the declaration and the name's stem.
REGISTER_CLASSES: Dict[str, Tuple[str, str]] = {
    "pred": (".pred", "p"),
    "b16": (".b16", "h"),
    "b32": (".b32", "r"),
    "b64": (".b64", "rd"),
}

Operand = Union[str, int, Sequence[Union[str, int]]]


@dataclass
class AtomicUse:
    """One atomic of a kernel, with the compiler's names of its values."""

    what: str
    node: atomir.Atomic
    address: str
    operands: List[Operand]
    result: Optional[str] = None


@dataclass
class PtxKernel:
    """A kernel being rendered: parameters, registers, body lines, and the atomics in it."""

    name: str
    target: atomir.Target
    params: List[Tuple[str, str]]
    registers: Dict[str, str] = field(default_factory=dict)
    lines: List[str] = field(default_factory=list)
    temporaries: List[Tuple[str, str]] = field(default_factory=list)
    shared: List[str] = field(default_factory=list)
    atomics: List[AtomicUse] = field(default_factory=list)

    def reg(self, cls: str) -> str:
        """A new register of class `cls` (`b32`, `b64`, `b16`, `pred`), as `%r3`."""
        stem = REGISTER_CLASSES[cls][1]
        name = f"%{stem}{sum(1 for r in self.registers.values() if r == cls)}"
        self.registers[name] = cls
        return name

    def emit(self, *lines: str) -> None:
        self.lines.extend(lines)

    def label(self, name: str) -> None:
        self.lines.append(f"${name}:")

    def param(self, name: str, cls: str = "b64", to_global: bool = True) -> str:
        register = self.reg(cls)
        ptx_type = ".u64" if cls == "b64" else ".u32"
        self.emit(f"\tld.param{ptx_type} {register}, [{self.name}_{name}];")
        if cls == "b64" and to_global:
            self.emit(f"\tcvta.to.global.u64 {register}, {register};")
        return register

    def element_address(self, base: str, index: str, size: int) -> str:
        """`base + index * size` in a new 64-bit register."""
        offset, address = self.reg("b64"), self.reg("b64")
        self.emit(f"\tmul.wide.u32 {offset}, {index}, {size};")
        self.emit(f"\tadd.s64 {address}, {base}, {offset};")
        return address

    def atomic(
        self,
        what: str,
        node: atomir.Atomic,
        address: str,
        operands: Sequence[Operand] = (),
        result: Optional[str] = None,
    ) -> None:
        """Splices `node` here, on the compiler's registers; its temporaries are declared with
        the kernel's registers. A refusal raises `atomir.RefusedError`."""
        use = AtomicUse(what, node, address, list(operands), result)
        self.atomics.append(use)
        fragment = self.target.splice(
            node,
            address=address,
            operands=use.operands,
            result=result,
            prefix=f"a{len(self.atomics) - 1}_",
        )
        # atomir says which type each register it reads or writes must have; the compiler's
        # own register classes must agree, or the module would not assemble.
        for name, required in fragment.types.items():
            declared = REGISTER_CLASSES[self.registers[f"%{name}"]][0]
            if declared != required:
                raise TypeError(f"{what}: atomir binds %{name} as {required}, declared {declared}")
        self.temporaries.extend(fragment.temporaries)
        self.emit(f"\t// {what}: {fragment.verdict.description} ({fragment.instructions} instructions)")
        self.lines.extend(fragment.code.rstrip("\n").split("\n"))

    def render(self) -> str:
        """The PTX module: header, entry, declarations, body."""
        params = ",\n".join(f"\t.param {ty} {self.name}_{name}" for name, ty in self.params)
        out = [
            f"//\n// {self.name}, compiled for {self.target} through atomir\n//",
            f".version {self.target.ptx_isa}",
            f".target {self.target.sm}",
            ".address_size 64",
            "",
            f".visible .entry {self.name}(\n{params}\n)",
            "{",
        ]
        out.extend(self.shared)
        for name, cls in self.registers.items():
            out.append(f"\t.reg {REGISTER_CLASSES[cls][0]} {name};")
        for name, ty in self.temporaries:
            out.append(f"\t.reg {ty} %{name};")
        out.extend(self.lines)
        out.append("\tret;")
        out.append("}")
        return "\n".join(out) + "\n"


def global_thread(kernel: PtxKernel) -> Tuple[str, str, str, str]:
    """(thread in block, block size, global index, grid stride) registers."""
    tid, ntid, ctaid, nctaid = (kernel.reg("b32") for _ in range(4))
    gid, stride = kernel.reg("b32"), kernel.reg("b32")
    kernel.emit(
        f"\tmov.u32 {tid}, %tid.x;",
        f"\tmov.u32 {ntid}, %ntid.x;",
        f"\tmov.u32 {ctaid}, %ctaid.x;",
        f"\tmov.u32 {nctaid}, %nctaid.x;",
        f"\tmad.lo.u32 {gid}, {ctaid}, {ntid}, {tid};",
        f"\tmul.lo.u32 {stride}, {ntid}, {nctaid};",
    )
    return tid, ntid, gid, stride


def histogram256(target: atomir.Target) -> PtxKernel:
    """bins[data[i]] += 1 for i < n: per block in shared memory, then into global memory."""
    k = PtxKernel("histogram256", target, [("data", ".u64"), ("n", ".u32"), ("bins", ".u64")])
    k.shared.append("\t.shared .align 4 .b32 histogram256_smem[256];")
    data, n, bins = k.param("data"), k.param("n", "b32"), k.param("bins")
    tid, ntid, gid, stride = global_thread(k)
    smem, i, bin_, one, p = k.reg("b64"), k.reg("b32"), k.reg("b32"), k.reg("b32"), k.reg("pred")
    k.emit(f"\tmov.u64 {smem}, histogram256_smem;", f"\tmov.u32 {one}, 1;", f"\tmov.u32 {i}, {tid};")
    k.label("zero")
    k.emit(f"\tsetp.ge.u32 {p}, {i}, 256;", f"\t@{p} bra $zeroed;")
    slot = k.element_address(smem, i, 4)
    k.emit(f"\tst.shared.u32 [{slot}], 0;", f"\tadd.u32 {i}, {i}, {ntid};", "\tbra $zero;")
    k.label("zeroed")
    k.emit("\tbar.sync 0;", f"\tmov.u32 {i}, {gid};")
    k.label("count")
    k.emit(f"\tsetp.ge.u32 {p}, {i}, {n};", f"\t@{p} bra $counted;")
    byte = k.element_address(data, i, 1)
    k.emit(f"\tld.global.u8 {bin_}, [{byte}];")
    block_bin = k.element_address(smem, bin_, 4)
    k.atomic(
        "block bin += 1",
        atomir.Atomic("add", "u32", scope="block", space="shared"),
        block_bin,
        [one],
    )
    k.emit(f"\tadd.u32 {i}, {i}, {stride};", "\tbra $count;")
    k.label("counted")
    k.emit("\tbar.sync 0;", f"\tmov.u32 {i}, {tid};")
    count = k.reg("b32")
    k.label("merge")
    k.emit(f"\tsetp.ge.u32 {p}, {i}, 256;", f"\t@{p} bra $merged;")
    block_slot = k.element_address(smem, i, 4)
    k.emit(f"\tld.shared.u32 {count}, [{block_slot}];", f"\tsetp.eq.u32 {p}, {count}, 0;")
    k.emit(f"\t@{p} bra $next_bin;")
    global_bin = k.element_address(bins, i, 4)
    k.atomic(
        "global bin += block count",
        atomir.Atomic("add", "u32", scope="device", space="global"),
        global_bin,
        [count],
    )
    k.label("next_bin")
    k.emit(f"\tadd.u32 {i}, {i}, {ntid};", "\tbra $merge;")
    k.label("merged")
    return k


def max_reduce(target: atomir.Target) -> PtxKernel:
    """out[0] = max(out[0], x[0..n]): per block in shared memory, then one global max."""
    k = PtxKernel("max_reduce", target, [("x", ".u64"), ("n", ".u32"), ("out", ".u64")])
    k.shared.append("\t.shared .align 4 .b32 max_reduce_smem;")
    x, n, out = k.param("x"), k.param("n", "b32"), k.param("out")
    tid, _, gid, stride = global_thread(k)
    smem, i, value, p = k.reg("b64"), k.reg("b32"), k.reg("b32"), k.reg("pred")
    k.emit(f"\tmov.u64 {smem}, max_reduce_smem;", f"\tsetp.ne.u32 {p}, {tid}, 0;")
    # -inf, the identity of max.
    k.emit(f"\t@!{p} st.shared.u32 [{smem}], 0xff800000;", "\tbar.sync 0;", f"\tmov.u32 {i}, {gid};")
    k.label("scan")
    k.emit(f"\tsetp.ge.u32 {p}, {i}, {n};", f"\t@{p} bra $scanned;")
    element = k.element_address(x, i, 4)
    k.emit(f"\tld.global.f32 {value}, [{element}];")
    k.atomic(
        "block max",
        atomir.Atomic("max", "f32", scope="block", space="shared"),
        smem,
        [value],
    )
    k.emit(f"\tadd.u32 {i}, {i}, {stride};", "\tbra $scan;")
    k.label("scanned")
    k.emit("\tbar.sync 0;", f"\tsetp.ne.u32 {p}, {tid}, 0;", f"\t@{p} bra $done;")
    k.emit(f"\tld.shared.f32 {value}, [{smem}];")
    k.atomic(
        "global max",
        atomir.Atomic("max", "f32", scope="device", space="global"),
        out,
        [value],
    )
    k.label("done")
    return k


def grad_accumulate(target: atomir.Target) -> PtxKernel:
    """grad[i % slots] += g[i] for i < n, in f16."""
    k = PtxKernel(
        "grad_accumulate", target, [("g", ".u64"), ("n", ".u32"), ("slots", ".u32"), ("grad", ".u64")]
    )
    g, n, slots, grad = k.param("g"), k.param("n", "b32"), k.param("slots", "b32"), k.param("grad")
    _, _, gid, stride = global_thread(k)
    i, slot, value, p = k.reg("b32"), k.reg("b32"), k.reg("b16"), k.reg("pred")
    k.emit(f"\tmov.u32 {i}, {gid};")
    k.label("loop")
    k.emit(f"\tsetp.ge.u32 {p}, {i}, {n};", f"\t@{p} bra $done;")
    element = k.element_address(g, i, 2)
    k.emit(f"\tld.global.b16 {value}, [{element}];", f"\trem.u32 {slot}, {i}, {slots};")
    target_slot = k.element_address(grad, slot, 2)
    k.atomic(
        "grad[slot] += g (f16)",
        atomir.Atomic("add", "f16", scope="device", space="global"),
        target_slot,
        [value],
    )
    k.emit(f"\tadd.u32 {i}, {i}, {stride};", "\tbra $loop;")
    k.label("done")
    return k


def ticket_lock(target: atomir.Target) -> PtxKernel:
    """Thread 0 of each block: take a ticket, wait for it, counter += 1 (plain load and
    store, so only the lock makes it exact), then serve the next ticket."""
    k = PtxKernel(
        "ticket_lock",
        target,
        [("next_ticket", ".u64"), ("now_serving", ".u64"), ("counter", ".u64"), ("order", ".u64")],
    )
    next_ticket, now_serving = k.param("next_ticket"), k.param("now_serving")
    counter, order = k.param("counter"), k.param("order")
    tid, _, _, _ = global_thread(k)
    ticket, serving, value, successor, one, p = (
        k.reg("b32"), k.reg("b32"), k.reg("b32"), k.reg("b32"), k.reg("b32"), k.reg("pred"),
    )
    k.emit(f"\tsetp.ne.u32 {p}, {tid}, 0;", f"\t@{p} bra $done;", f"\tmov.u32 {one}, 1;")
    k.atomic(
        "take a ticket",
        atomir.Atomic("add", "u32", scope="device", space="global", result=True),
        next_ticket,
        [one],
        result=ticket,
    )
    k.label("spin")
    k.atomic(
        "acquire: wait until served",
        atomir.Load("u32", order="acquire", scope="device", space="global"),
        now_serving,
        result=serving,
    )
    k.emit(f"\tsetp.ne.u32 {p}, {serving}, {ticket};", f"\t@{p} bra $spin;")
    # The critical section: a plain read-modify-write, and the ticket's turn recorded.
    k.emit(f"\tld.global.u32 {value}, [{counter}];", f"\tadd.u32 {value}, {value}, 1;")
    k.emit(f"\tst.global.u32 [{counter}], {value};")
    turn = k.element_address(order, ticket, 4)
    k.emit(f"\tst.global.u32 [{turn}], {value};", f"\tadd.u32 {successor}, {ticket}, 1;")
    k.atomic(
        "release: serve the next ticket",
        atomir.Store("u32", order="release", scope="device", space="global"),
        now_serving,
        [successor],
    )
    k.label("done")
    return k


KERNELS = [histogram256, max_reduce, grad_accumulate, ticket_lock]


def compile_ptx(target: atomir.Target) -> Dict[str, PtxKernel]:
    """Every kernel rendered for a PTX target."""
    return {build.__name__: build(target) for build in KERNELS}


def other_backend_fragments(target: atomir.Target) -> List[Tuple[str, Optional[atomir.Fragment]]]:
    """Each atomic of each kernel asked of `target` (any backend) on names of the compiler's
    own: a line with its fragment's verdict, or what the target refuses, and the fragment."""
    # The atomics as the PTX rendering made them: which nodes, with which roles.
    reference = compile_ptx(atomir.Target("ptx:sm_90"))
    answers: List[Tuple[str, Optional[atomir.Fragment]]] = []
    for kernel in reference.values():
        for number, use in enumerate(kernel.atomics):
            names = plain_names(use, target)
            what = f"{target}: {kernel.name}: {use.what} ({use.node})"
            try:
                fragment = target.splice(use.node, prefix=f"a{number}_", **names)  # type: ignore[arg-type]
            except atomir.RefusedError as refusal:
                smallest = refusal.smallest_target or "no target of this backend"
                line = f"{what}: refused [rule {refusal.rule}]: {refusal.reason}; smallest target that accepts it: {smallest}"
                answers.append((line, None))
                continue
            declared = ", ".join(f"{name}: {ty}" for name, ty in fragment.types.items())
            line = (
                f"{what}: {fragment.verdict.description}; {fragment.instructions} instructions, "
                f"{len(fragment.temporaries)} temporaries; binds {declared}"
            )
            answers.append((line, fragment))
    return answers


def fragments_for(target: atomir.Target) -> List[str]:
    """The lines of `other_backend_fragments`."""
    return [line for line, _ in other_backend_fragments(target)]


def llvm_module(target: atomir.Target, fragment: atomir.Fragment) -> str:
    """An LLVM fragment (spliced between the blocks `entry` and `next`) as a module the
    target's tools take: one function whose parameters are the values it reads, each of the
    type atomir says it must have."""
    params = ", ".join(
        f"{binding.type} %{binding.names[0]}" for binding in fragment.bindings if binding.role != "result"
    )
    return "".join(
        [
            f'target triple = "{target.triple}"\n\n',
            "".join(f"{declaration}\n" for declaration in fragment.declarations),
            f"define void @atomic({params}) {{\nentry:\n{fragment.code}next:\n  ret void\n}}\n",
        ]
    )


def visa_kernel(fragment: atomir.Fragment) -> str:
    """A vISA fragment as a kernel GenX_IR takes: the variables it binds declared with the
    types atomir says they must have, then its temporaries (views after the variables they
    alias), then the code."""
    lines = [".version 4.1", '.kernel "atomic"']
    lines += [f".decl {name} {ty}" for name, ty in fragment.types.items()]
    roots = [t for t in fragment.temporaries if "alias=" not in t[1]]
    views = [t for t in fragment.temporaries if "alias=" in t[1]]
    lines += [f".decl {name} {ty}" for name, ty in roots + views]
    lines += ['.kernel_attr Target="cm"', '.function "atomic_BB_0"', "", "atomic_BB_0:"]
    return "\n".join(lines) + "\n" + fragment.code + "    ret (M1, 1)\n"


def plain_names(use: AtomicUse, target: atomir.Target) -> Dict[str, object]:
    """The atomic's names for a backend without PTX's registers: vISA variables and LLVM SSA
    values (`addr`, `v0`, `old`), and the blocks around an LLVM fragment."""
    operands: List[Operand] = [f"v{index}" for index, _ in enumerate(use.operands)]
    names: Dict[str, object] = {"address": "addr", "operands": operands}
    if use.result is not None:
        names["result"] = "old"
    if target.backend == "llvm":
        names["blocks"] = ("entry", "next")
    return names


def main(argv: List[str]) -> int:
    names = argv or ["ptx:sm_70", "ptx:sm_90", "visa:PVC", "llvm:amdgcn"]
    for name in names:
        target = atomir.Target(name)
        if target.backend == "ptx":
            for kernel in compile_ptx(target).values():
                print(kernel.render())
        else:
            print("\n".join(fragments_for(target)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
