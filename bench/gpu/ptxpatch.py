"""Turns a `--module` PTX kernel `(ptr a, T b[, ptr out])` into the benchmark's per-thread form
`(ptr a, ptr b, [ptr out,] u32 n)`: thread t (global id) acts on `a + (t % n) * size`, takes its
operand from `b + t * size` and stores its old value to `out + t * size`.

Only parameter loads change, so the atomic's code is exactly what the compiler emitted. Works
on atomir's PTX and on llc's (their parameter declarations and loads are spelled differently);
anything else that names a parameter is refused rather than guessed at.
"""
import re

ENTRY = re.compile(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\(")
PROLOGUE = """
\t.reg .b32 %bench_r<4>;
\t.reg .b64 %bench_d<3>;
\tmov.u32 %bench_r0, %ctaid.x;
\tmov.u32 %bench_r1, %ntid.x;
\tmov.u32 %bench_r2, %tid.x;
\tmad.lo.u32 %bench_r0, %bench_r0, %bench_r1, %bench_r2;
\tld.param.u32 %bench_r3, [{n}];
\trem.u32 %bench_r3, %bench_r0, %bench_r3;
\tmul.wide.u32 %bench_d0, %bench_r3, {size};
\tmul.wide.u32 %bench_d1, %bench_r0, {size};"""


class PatchError(Exception):
    pass


def _matching(text, open_index, open_char, close_char):
    depth = 0
    for index in range(open_index, len(text)):
        if text[index] == open_char:
            depth += 1
        elif text[index] == close_char:
            depth -= 1
            if depth == 0:
                return index
    raise PatchError(f"unbalanced {open_char}{close_char}")


def _param_name(declaration):
    return re.sub(r"\[\d+\]$", "", declaration.split()[-1])


def patch_entry(ptx, name, size, used):
    """Returns `ptx` with kernel `name` in per-thread form (elements of `size` bytes)."""
    match = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\(", ptx)
    if not match:
        raise PatchError(f"{name}: no such entry")
    params_open = match.end() - 1
    params_close = _matching(ptx, params_open, "(", ")")
    declarations = [d.strip() for d in ptx[params_open + 1:params_close].split(",") if d.strip()]
    expected = 3 if used else 2
    if len(declarations) != expected:
        raise PatchError(f"{name}: {len(declarations)} parameters, expected {expected}")
    names = [_param_name(d) for d in declarations]
    n_param = f"{name}_bench_n"
    declarations[1] = f".param .u64 {names[1]}"
    declarations.append(f".param .u32 {n_param}")
    body_open = ptx.index("{", params_close)
    body_close = _matching(ptx, body_open, "{", "}")
    body = ptx[body_open + 1:body_close]

    def load(param):
        return re.compile(r"ld\.param\.(\w+)\s+(%[\w$]+),\s*\[" + re.escape(param) + r"(?:\+0)?\];")

    def patch_pointer(text, param, offset):
        def add(m):
            if m.group(1) not in ("u64", "b64", "s64"):
                raise PatchError(f"{name}: {param} loaded as .{m.group(1)}")
            return f"{m.group(0)}\n\tadd.s64 {m.group(2)}, {m.group(2)}, {offset};"
        text, count = load(param).subn(add, text)
        if count == 0:
            raise PatchError(f"{name}: {param} is never loaded")
        return text

    def patch_operand(text, param):
        # The operand array is read-only while the kernel runs: fetched through the
        # non-coherent cache, as nvcc fetches `b[t]` of its own kernels (`ld.global.nc`), so
        # that no contender's operand fetch is slower than another's.
        def fetch(m):
            return (
                f"ld.param.u64 %bench_d2, [{param}];\n"
                f"\tadd.s64 %bench_d2, %bench_d2, %bench_d1;\n"
                f"\tld.global.nc.{m.group(1)} {m.group(2)}, [%bench_d2];"
            )
        text, count = load(param).subn(fetch, text)
        if count == 0:
            raise PatchError(f"{name}: {param} is never loaded")
        return text

    body = patch_pointer(body, names[0], "%bench_d0")
    body = patch_operand(body, names[1])
    if used:
        body = patch_pointer(body, names[2], "%bench_d1")
    for param in names:
        # Every load was rewritten to name the parameter once more (operand) or kept; any other
        # mention (taking its address, say) would escape the rewrite.
        loads = len(load(param).findall(body))
        mentions = len(re.findall(r"(?<![\w$])" + re.escape(param) + r"(?![\w$])", body))
        if param == names[1]:
            loads = len(re.findall(r"ld\.param\.u64 %bench_d2, \[" + re.escape(param) + r"\];", body))
        if mentions != loads:
            raise PatchError(f"{name}: {param} is used other than by a parameter load")
    prologue = PROLOGUE.format(n=n_param, size=size)
    return (
        ptx[:params_open + 1]
        + "\n\t" + ",\n\t".join(declarations) + "\n"
        + ptx[params_close:body_open + 1]
        + prologue
        + body
        + ptx[body_close:]
    )


def patch_module(ptx, cases):
    """Patches the entry of every case in `cases`; other entries are left as they are."""
    for case in cases:
        ptx = patch_entry(ptx, case.name, case.size, case.used)
    return ptx


def entries(ptx):
    return ENTRY.findall(ptx)
