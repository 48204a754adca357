"""Turns the PTX kernel of one matrix cell, `(ptr a, T b[, T c][, ptr out])` as `atomir lower
--module` writes it (and llc and nvcc write the same signature), into the harness's per-thread
form `(ptr a, ptr b, [ptr out,] u32 n)`.

Thread t (global id) takes its operands from the operand array (`b` at `t * k * size`, a cas's
`c` right after it, k = 2 for a cas and 1 otherwise) and stores its old value to `out + t *
size`. Where it acts:
- global (and generic, which a kernel parameter points to global memory): element `t % n` of
  the array `a`;
- shared: element `tid.x % n` of a `.shared` copy of the block's slot of `a` (slot `ctaid.x`,
  `slot_bytes(n, size)` bytes: the elements, padded to 16 bytes, then 16 guard bytes), copied in
  before the atomic and back after every thread of the block is done;
- shared_cluster: the same, on the shared memory of the next block of its cluster of two
  (`mapa`), so every atomic is on another block's shared memory; the kernel requires clusters of
  two (`.reqnctapercluster`) and a block's copy goes back to the slot of the block that acted
  on it.

`size` is the bytes of one element, a vector cell's element being the whole vector (its
operand, its old value and the memory it acts on: `v4.f32` is 16 bytes); a vector parameter's
loads, one per element at its offset or one vector load, read the thread's operand at the same
offsets.

Only parameter loads and `ret` change, so the atomic's code is exactly what the compiler
emitted; anything else naming a parameter is refused rather than guessed at.
"""
import os
import re
import sys

# The entry-patching pieces shared with the contention benchmark's patcher: beside this file on
# the GPU machine (prepare copies it there), one folder up in the repository.
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from ptxpatch import PatchError, _matching, _param_name  # noqa: E402

CLUSTER = 2
# The largest shared copy: 32 KiB of elements (4096 of 8 bytes; fewer of a wider vector, see
# `shared_addresses_fit`), then the guard.
SHARED_ELEMENT_BYTES = 4096 * 8
SHARED_BYTES = SHARED_ELEMENT_BYTES + 16
# A vector atomic's address is aligned to the whole vector (up to 8 x 8 bytes).
SHARED_ALIGN = 64

GLOBAL_PROLOGUE = """
\t.reg .b32 %bench_r<8>;
\t.reg .b64 %bench_d<8>;
\t.reg .pred %bench_p<2>;
\tmov.u32 %bench_r0, %ctaid.x;
\tmov.u32 %bench_r1, %ntid.x;
\tmov.u32 %bench_r2, %tid.x;
\tmad.lo.u32 %bench_r0, %bench_r0, %bench_r1, %bench_r2;
\tld.param.u32 %bench_r3, [{n}];
\trem.u32 %bench_r3, %bench_r0, %bench_r3;
\tmul.wide.u32 %bench_d0, %bench_r3, {size};
\tmul.wide.u32 %bench_d1, %bench_r0, {size};
\tmul.wide.u32 %bench_d3, %bench_r0, {stride};"""

# %bench_d0 becomes the shared address of the thread's element (%bench_d6 the block's copy),
# %bench_d5 the global address of the slot the copy comes from and goes back to.
SHARED_PROLOGUE = GLOBAL_PROLOGUE + """
\tld.param.u32 %bench_r4, [{n}];
\trem.u32 %bench_r3, %bench_r2, %bench_r4;
\tmul.lo.u32 %bench_r4, %bench_r4, {size};
\tadd.u32 %bench_r4, %bench_r4, 15;
\tand.b32 %bench_r4, %bench_r4, -16;
\tadd.u32 %bench_r4, %bench_r4, 16;
\tmov.u32 %bench_r5, %ctaid.x;
{actor}
\tmul.wide.u32 %bench_d5, %bench_r5, %bench_r4;
\tld.param.u64 %bench_d4, [{a}];
\tcvta.to.global.u64 %bench_d4, %bench_d4;
\tadd.s64 %bench_d5, %bench_d5, %bench_d4;
\tmov.u64 %bench_d6, {smem};
\tmul.lo.u32 %bench_r6, %bench_r2, 4;
bench_copy_in:
\tsetp.ge.u32 %bench_p0, %bench_r6, %bench_r4;
\t@%bench_p0 bra bench_copied_in;
\tcvt.u64.u32 %bench_d7, %bench_r6;
\tadd.s64 %bench_d2, %bench_d5, %bench_d7;
\tld.global.u32 %bench_r7, [%bench_d2];
\tadd.s64 %bench_d2, %bench_d6, %bench_d7;
\tst.shared.u32 [%bench_d2], %bench_r7;
\tmad.lo.u32 %bench_r6, %bench_r1, 4, %bench_r6;
\tbra bench_copy_in;
bench_copied_in:
{barrier}
\tmul.wide.u32 %bench_d0, %bench_r3, {size};
\tadd.s64 %bench_d0, %bench_d0, %bench_d6;
{remote}"""

EPILOGUE = """
bench_exit:
{barrier}
\tmul.lo.u32 %bench_r6, %bench_r2, 4;
bench_copy_out:
\tsetp.ge.u32 %bench_p0, %bench_r6, %bench_r4;
\t@%bench_p0 bra bench_copied_out;
\tcvt.u64.u32 %bench_d7, %bench_r6;
\tadd.s64 %bench_d2, %bench_d6, %bench_d7;
\tld.shared.u32 %bench_r7, [%bench_d2];
\tadd.s64 %bench_d2, %bench_d5, %bench_d7;
\tst.global.u32 [%bench_d2], %bench_r7;
\tmad.lo.u32 %bench_r6, %bench_r1, 4, %bench_r6;
\tbra bench_copy_out;
bench_copied_out:
\tret;
"""

BLOCK_BARRIER = "\tbar.sync 0;"
CLUSTER_BARRIER = "\tbarrier.cluster.arrive;\n\tbarrier.cluster.wait;"
# The block whose threads act on this block's copy: the previous one of the cluster.
CLUSTER_ACTOR = f"""\tmov.u32 %bench_r6, %cluster_ctarank;
\tsub.u32 %bench_r5, %bench_r5, %bench_r6;
\tadd.u32 %bench_r6, %bench_r6, {CLUSTER - 1};
\trem.u32 %bench_r6, %bench_r6, {CLUSTER};
\tadd.u32 %bench_r5, %bench_r5, %bench_r6;"""
# The address of the thread's element in the next block's copy.
CLUSTER_REMOTE = f"""\tmov.u32 %bench_r6, %cluster_ctarank;
\tadd.u32 %bench_r6, %bench_r6, 1;
\trem.u32 %bench_r6, %bench_r6, {CLUSTER};
\tmapa.shared::cluster.u64 %bench_d0, %bench_d0, %bench_r6;"""


def slot_bytes(addresses, size):
    """Bytes of one copy of the memory: the elements padded to 16 bytes, then 16 guard bytes."""
    return -(-addresses * size // 16) * 16 + 16


def shared_addresses_fit(addresses, size):
    """Whether `addresses` elements of `size` bytes fit the shared copy."""
    return addresses * size <= SHARED_ELEMENT_BYTES


def _load(param):
    """A load of `param` (a vector parameter's element or elements at an offset too): groups
    type (`b32`, `v2.b32`), destination (a register or a brace list) and offset."""
    return re.compile(r"ld\.param\.((?:v\d\.)?\w+)\s+(%[\w$]+|\{[^}]*\}),\s*\["
                      + re.escape(param) + r"(?:\+(\d+))?\];")


def patch_entry(ptx, name, size, operands, used, space):
    """`ptx` with kernel `name` in per-thread form. `operands`: 0 (load), 1, or 2 (cas);
    `space`: global, generic, shared or shared_cluster."""
    match = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\(", ptx)
    if not match:
        raise PatchError(f"{name}: no such entry")
    params_open = match.end() - 1
    params_close = _matching(ptx, params_open, "(", ")")
    declarations = [d.strip() for d in ptx[params_open + 1:params_close].split(",") if d.strip()]
    expected = 1 + operands + (1 if used else 0)
    if len(declarations) != expected:
        raise PatchError(f"{name}: {len(declarations)} parameters, expected {expected}")
    names = [_param_name(d) for d in declarations]
    address, values, out = names[0], names[1:1 + operands], names[1 + operands:]
    n_param = f"{name}_bench_n"
    stride = size * max(operands, 1)
    # A load has no operand, but the launch hands every kernel the operand array: the
    # parameter stands there unused, so that `out` and `n` are where the launch puts them.
    new_declarations = [f".param .u64 {address}",
                        f".param .u64 {values[0] if operands else name + '_bench_b'}"]
    new_declarations += [f".param .u64 {p}" for p in out] + [f".param .u32 {n_param}"]
    body_open = ptx.index("{", params_close)
    body_close = _matching(ptx, body_open, "{", "}")
    body = ptx[body_open + 1:body_close]
    shared = space in ("shared", "shared_cluster")

    def patch_address(text):
        def replace(m):
            if m.group(1) not in ("u64", "b64", "s64") or m.group(2).startswith("{") or m.group(3) not in (None, "0"):
                raise PatchError(f"{name}: {address} loaded as .{m.group(1)}")
            if shared:
                return f"mov.b64 {m.group(2)}, %bench_d0;"
            return f"{m.group(0)}\n\tadd.s64 {m.group(2)}, {m.group(2)}, %bench_d0;"
        text, count = _load(address).subn(replace, text)
        if count == 0:
            raise PatchError(f"{name}: {address} is never loaded")
        return text

    def patch_operand(text, param, offset):
        # Read-only while the kernel runs: fetched through the non-coherent cache, as nvcc
        # fetches `b[t]` of its own kernels.
        def fetch(m):
            at = offset + int(m.group(3) or 0)
            return (f"ld.param.u64 %bench_d2, [{values[0]}];\n"
                    f"\tadd.s64 %bench_d2, %bench_d2, %bench_d3;\n"
                    f"\tld.global.nc.{m.group(1)} {m.group(2)}, [%bench_d2+{at}];")
        text, count = _load(param).subn(fetch, text)
        if count == 0:
            raise PatchError(f"{name}: {param} is never loaded")
        return text

    def patch_out(text, param):
        def add(m):
            if m.group(2).startswith("{") or m.group(3) not in (None, "0"):
                raise PatchError(f"{name}: {param} loaded as .{m.group(1)} at +{m.group(3)}")
            return f"{m.group(0)}\n\tadd.s64 {m.group(2)}, {m.group(2)}, %bench_d1;"
        text, count = _load(param).subn(add, text)
        if count == 0:
            raise PatchError(f"{name}: {param} is never loaded")
        return text

    body = patch_address(body)
    for index, param in enumerate(values):
        body = patch_operand(body, param, index * size)
    for param in out:
        body = patch_out(body, param)
    _check_mentions(name, body, names, values, shared)
    smem = f"bench_smem_{name}"
    header = ""
    if shared:
        barrier = CLUSTER_BARRIER if space == "shared_cluster" else BLOCK_BARRIER
        prologue = SHARED_PROLOGUE.format(
            n=n_param, size=size, stride=stride, a=address, smem=smem, barrier=barrier,
            actor=CLUSTER_ACTOR if space == "shared_cluster" else "",
            remote=CLUSTER_REMOTE if space == "shared_cluster" else "")
        body, count = re.subn(r"(?<![\w$.])ret;", "bra bench_exit;", body)
        if count == 0:
            raise PatchError(f"{name}: no ret")
        body += EPILOGUE.format(barrier=barrier)
        header = f".shared .align {SHARED_ALIGN} .b8 {smem}[{SHARED_BYTES}];\n\n"
    else:
        prologue = GLOBAL_PROLOGUE.format(n=n_param, size=size, stride=stride)
    directives = ptx[params_close + 1:body_open]
    if space == "shared_cluster" and ".reqnctapercluster" not in directives:
        directives = f"\n.explicitcluster\n.reqnctapercluster {CLUSTER}, 1, 1\n" + directives.lstrip("\n")
    entry_start = ptx.rfind("\n", 0, match.start()) + 1
    return (ptx[:entry_start] + header + ptx[entry_start:params_open + 1]
            + "\n\t" + ",\n\t".join(new_declarations) + "\n)" + directives + "{"
            + prologue + body + ptx[body_close:])


def _check_mentions(name, body, names, values, shared):
    """Every mention of a parameter must be one of the loads the patch made or kept."""
    array_loads = re.compile(r"ld\.param\.u64 %bench_d2, \[(\S+)\];")
    for param in names:
        mentions = len(re.findall(r"(?<![\w$])" + re.escape(param) + r"(?![\w$])", body))
        if param == names[0]:
            loads = 0 if shared else len(_load(param).findall(body))
        elif param in values:
            loads = sum(1 for m in array_loads.finditer(body) if m.group(1) == param)
        else:
            loads = len(_load(param).findall(body))
        if mentions != loads:
            raise PatchError(f"{name}: {param} is used other than by a parameter load")
