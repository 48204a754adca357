"""The independent baselines of one matrix cell: the plain LLVM IR of its node (LLVM's own
AtomicExpand lowers it in llc; never atomir's LLVM output), and the CUDA source where CUDA has
an atomic function for it. Both keep the signature `atomir lower --module` gives the cell,
`(ptr a, T b[, T c][, ptr out])`, so `cellpatch` makes every contender's per-thread form alike.

A cell is a dict with the fields of `atomir matrix --format json`: name, op, type, shape,
order, scope, space, result.

A vector cell's baseline is LLVM's instruction on the vector type where the LLVM IR has one and
that llc accepts (`atomicrmw fadd` on `<2 x float>`, which llc carries out as one CAS loop of the
whole vector: atomic as a whole, more than the node asks), else the node's elements one after
another, each the plain scalar instruction at its offset (`llvm_ir(..., per_element=True)`,
labelled as such): what a programmer writes where LLVM has no vector form.
"""

LLVM_TYPE = {"f16": "half", "bf16": "bfloat", "f32": "float", "f64": "double",
             "f16x2": "<2 x half>", "bf16x2": "<2 x bfloat>"}
LLVM_ORDER = {"relaxed": "monotonic", "acquire": "acquire", "release": "release",
              "acq_rel": "acq_rel", "seq_cst": "seq_cst"}
# A cmpxchg's failure order: its success order without the release part.
FAILURE_ORDER = {"relaxed": "monotonic", "acquire": "acquire", "release": "monotonic",
                 "acq_rel": "acquire", "seq_cst": "seq_cst"}
# nvptx64's sync scopes (system is LLVM's default, no syncscope).
LLVM_SCOPE = {"block": ' syncscope("block")', "cluster": ' syncscope("cluster")',
              "device": ' syncscope("device")', "system": ""}
LLVM_SPACE = {"generic": "ptr", "global": "ptr addrspace(1)", "shared": "ptr addrspace(3)",
              "shared_cluster": "ptr addrspace(7)"}
# LLVM versions whose IR has the IEEE 754-2019 maximumNumber/minimumNumber atomicrmw.
HAS_NUM_OPS = (23,)


class NoBaseline(Exception):
    """The baseline does not exist for this cell; the message says why."""


def size_of(type_):
    """Bytes of one element of `type_` (a packed pair counts as one element)."""
    bits = int("".join(ch for ch in type_.replace("x2", "") if ch.isdigit()))
    return bits // 8 * (2 if type_.endswith("x2") else 1)


def lanes_of(shape):
    """Elements of a vector shape (`scalar`: 1)."""
    return 1 if shape in (None, "scalar") else int(shape[1:])


def cell_size(cell):
    """Bytes of what one thread of the cell acts on: the whole vector."""
    return size_of(cell["type"]) * lanes_of(cell.get("shape"))


def is_float(type_):
    return type_[0] == "f" or type_.startswith("bf")


def llvm_type(type_):
    if type_ in LLVM_TYPE:
        return LLVM_TYPE[type_]
    return f"i{type_.lstrip('usb')}"


def _rmw_op(cell, version):
    op, type_ = cell["op"], cell["type"]
    floating = is_float(type_)
    if op in ("add", "sub"):
        return ("f" if floating else "") + op
    if op in ("min", "max", "fminimumnum", "fmaximumnum"):
        if floating:
            # atomir's float min/max is IEEE maximumNumber; LLVM before 23 has only maxnum
            # (fmax), which leaves the sign of a zero and signalling NaNs open.
            kind = "max" if "max" in op else "min"
            return f"f{kind}imumnum" if version in HAS_NUM_OPS else f"f{kind}"
        if op.startswith("f"):
            raise NoBaseline(f"{op} on {type_}")
        return op if type_.startswith("s") else f"u{op}"
    named = {"inc": "uinc_wrap", "dec": "udec_wrap", "exch": "xchg", "and": "and", "or": "or",
             "xor": "xor", "nand": "nand", "usub_cond": "usub_cond", "usub_sat": "usub_sat",
             "fminimum": "fminimum", "fmaximum": "fmaximum"}
    if op not in named:
        raise NoBaseline(f"no atomicrmw for {op}")
    return named[op]


def llvm_ir(cell, version, per_element=False):
    """The cell's node as plain LLVM IR for nvptx64: (text, the instruction it uses). A vector
    cell takes its vector type, or with `per_element` one scalar instruction per element."""
    name, op, type_ = cell["name"], cell["op"], cell["type"]
    lanes = lanes_of(cell.get("shape"))
    scalar, pointer = llvm_type(type_), LLVM_SPACE[cell["space"]]
    ty = scalar if lanes == 1 else f"<{lanes} x {scalar}>"
    size = size_of(type_)
    whole = size * lanes
    order, scope = cell["order"], LLVM_SCOPE[cell["scope"]]
    used = cell["result"] == "used"
    params = [f"{pointer} %a"] + {"load": [], "cas": [f"{ty} %b", f"{ty} %c"]}.get(op, [f"{ty} %b"])
    if lanes == 1 or not per_element:
        body, inst = _access(cell, version, ty, pointer, "%a", "%b", "%c", "%old", whole)
    else:
        body, parts = [], []
        for k in range(lanes):
            body.append(f"  %a{k} = getelementptr inbounds {scalar}, {pointer} %a, i32 {k}")
            if op != "load":
                body.append(f"  %b{k} = extractelement {ty} %b, i32 {k}")
            if op == "cas":
                body.append(f"  %c{k} = extractelement {ty} %c, i32 {k}")
            lines, inst = _access(cell, version, scalar, pointer, f"%a{k}", f"%b{k}", f"%c{k}", f"%old{k}", size)
            body += lines
            parts.append(f"%old{k}")
        inst = f"{lanes} x `{inst}`, one per element"
        if op != "store":
            previous = "poison"
            for k, part in enumerate(parts):
                body.append(f"  %vec{k} = insertelement {ty} {previous}, {scalar} {part}, i32 {k}")
                previous = f"%vec{k}"
            body.append(f"  %old = bitcast {ty} {previous} to {ty}")
    if used:
        params.append("ptr addrspace(1) %out")
        body.append(f"  store {ty} %old, ptr addrspace(1) %out, align {whole}")
    text = (f'target triple = "nvptx64-nvidia-cuda"\n\n'
            f"define ptx_kernel void @{name}({', '.join(params)}) {{\n"
            + "\n".join(body) + "\n  ret void\n}\n")
    return text, inst


def _access(cell, version, ty, pointer, address, b, c, old, align):
    """The lines of one atomic access of type `ty` and the instruction."""
    op = cell["op"]
    order, scope = cell["order"], LLVM_SCOPE[cell["scope"]]
    if op == "load":
        inst = f"load atomic {ty}, {pointer} {address}{scope} {LLVM_ORDER[order]}, align {align}"
        return [f"  {old} = {inst}"], inst
    if op == "store":
        inst = f"store atomic {ty} {b}, {pointer} {address}{scope} {LLVM_ORDER[order]}, align {align}"
        return [f"  {inst}"], inst
    if op == "cas":
        inst = (f"cmpxchg {pointer} {address}, {ty} {b}, {ty} {c}{scope} {LLVM_ORDER[order]} "
                f"{FAILURE_ORDER[order]}, align {align}")
        pair = old.replace("%", "%pair_")
        return [f"  {pair} = {inst}", f"  {old} = extractvalue {{ {ty}, i1 }} {pair}, 0"], inst
    inst = f"atomicrmw {_rmw_op(cell, version)} {pointer} {address}, {ty} {b}{scope} {LLVM_ORDER[order]}, align {align}"
    return [f"  {old} = {inst}"], inst


CUDA_TYPE = {"u32": "unsigned int", "s32": "int", "b32": "unsigned int", "u64": "unsigned long long",
             "b64": "unsigned long long", "s64": "long long", "f32": "float", "f64": "double",
             "f16": "__half", "bf16": "__nv_bfloat16", "f16x2": "__half2", "bf16x2": "__nv_bfloat162",
             "u16": "unsigned short", "b16": "unsigned short", "u8": "uint8_t",
             "float2": "float2", "float4": "float4"}
CUDA_FUNCTION = {"add": "atomicAdd", "sub": "atomicSub", "exch": "atomicExch", "min": "atomicMin",
                 "max": "atomicMax", "inc": "atomicInc", "dec": "atomicDec", "and": "atomicAnd",
                 "or": "atomicOr", "xor": "atomicXor", "cas": "atomicCAS"}
CUDA_SUFFIX = {"device": "", "block": "_block", "system": "_system"}
# What CUDA programmers write where CUDA has no function (bench/gpu/nvcc_cases.cu, the
# programming guide's CAS loops), device scope only.
EMULATED = {("add", "u8"): "u8_add", ("add", "u16"): "u16_add", ("max", "f32"): "f32_max",
            ("min", "f32"): "f32_min", ("max", "f64"): "f64_max", ("min", "f64"): "f64_min"}


def cuda_source(cell):
    """The cell as a CUDA kernel of CUDA's atomic functions: (source, the call it makes).
    Relaxed global (or generic) cells only: CUDA's atomic functions are relaxed, and a kernel
    parameter points to global memory. Whether CUDA has the overload is nvcc's to say."""
    if cell["order"] != "relaxed" or cell["space"] not in ("global", "generic"):
        raise NoBaseline("CUDA's atomic functions are relaxed, on memory a kernel parameter points to")
    op, type_, scope = cell["op"], cell["type"], cell["scope"]
    if cell["shape"] != "scalar":
        # sm_90's atomicAdd on float2 and float4 (global memory, device scope).
        if (op, type_, cell["shape"], scope) not in (("add", "f32", "v2", "device"), ("add", "f32", "v4", "device")):
            raise NoBaseline("CUDA's vector atomic functions are float2/float4 atomicAdd at device scope")
        type_ = f"float{cell['shape'][1:]}"
    if scope not in CUDA_SUFFIX or type_ not in CUDA_TYPE:
        raise NoBaseline(f"no CUDA atomic function at {scope} scope on {type_}")
    if (op, type_) in EMULATED:
        if scope != "device":
            raise NoBaseline("the programming guide's CAS loop is device scope")
        function = EMULATED[(op, type_)]
    elif op in CUDA_FUNCTION:
        function = CUDA_FUNCTION[op] + CUDA_SUFFIX[scope]
    else:
        raise NoBaseline(f"CUDA has no atomic function for {op}")
    ty = CUDA_TYPE[type_]
    used = cell["result"] == "used"
    params = [f"{ty} *a", f"{ty} b"] + ([f"{ty} c"] if op == "cas" else []) + ([f"{ty} *out"] if used else [])
    call = f"{function}(a, b{', c' if op == 'cas' else ''})"
    statement = f"*out = {call};" if used else f"{call};"
    source = (f'#include "nvcc_cases.cu"\n\nextern "C" __global__ void {cell["name"]}({", ".join(params)}) {{\n'
              f"  {statement}\n}}\n")
    return source, call
