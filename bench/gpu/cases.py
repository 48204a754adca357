"""What the GPU contention benchmark runs: kernels, operand patterns, address counts.

One place for the list, read by `prepare` (which writes the atomir source and lowers it) and by
`contention.py` on the GPU machine (which makes the operands and the initial memory). Pure
Python: no numpy here, so `prepare` runs with a plain python3.

Every kernel performs one scalar relaxed device-scope atomic on global memory; thread t acts on
element t % n of an array of n elements packed at their own size (so 8- and 16-bit elements
share 32-bit words, as in a histogram of bytes), with operand t of an operand array; with the
result used, thread t stores the old value to element t of a result array.
"""

# The contender label of atomir's default lowering; variants are labelled "ours:<name>".
DEFAULT = "ours"
THREADS = 1 << 20
BLOCK = 256
ADDRESSES = (1, 32, 4096, 1 << 20)
PATTERNS = ("constant", "increasing", "random")
# Bytes after the n elements (to the next 16, then 16 more) start with this value and must keep it.
GUARD_BYTE = 0xA5

SIZE = {
    "u8": 1, "u16": 2, "u32": 4, "u64": 8,
    "f16": 2, "bf16": 2, "f32": 4, "f64": 8, "f16x2": 4, "bf16x2": 4,
}

# (op, type), in the order they run: the rows the targets are about first, then the quick
# native ones, so that what a time budget cuts is the least needed.
OPS = (
    ("max", "f32"), ("min", "f32"),
    ("add", "u8"),
    ("add", "f16"), ("add", "bf16"), ("add", "f16x2"), ("add", "bf16x2"),
    ("add", "f32"), ("add", "u32"), ("add", "u64"),
    ("max", "f64"), ("min", "f64"),
    ("add", "u16"),
)
RESULTS = ("used", "unused")

# Operands, per pattern (the semantics checker gets the actual values, so these are free to
# change):
# - constant: 1 for adds, 3.5 for max/min (memory starts at -inf for max, +inf for min, so the
#   first atomic changes it and no later one does);
# - increasing: every later thread moves memory on: the thread id as the value for int add and
#   f32/f64 add and max, minus the thread id for min; for 16-bit floats the thread id over 2^20
#   (in [0, 1); thread ids themselves would overflow f16 to infinity);
# - random: random bits for integers; for max/min normal deviates times 1000; for float adds
#   integers in [-15, 15], whose f32 sums are exact in every order (so the final memory of an f32
#   reduction is checked exactly).


class Case:
    """One kernel: `op` on `type`, with the old value stored (`used`) or not (a reduction)."""

    def __init__(self, op, type_, used):
        self.op, self.type, self.used = op, type_, used

    @property
    def name(self):
        return f"{self.op}_{self.type}_{'used' if self.used else 'unused'}"

    @property
    def group(self):
        """The op and type without the result use: what variants are selected by."""
        return f"{self.op}_{self.type}"

    @property
    def size(self):
        return SIZE[self.type]

    @property
    def result(self):
        return "used" if self.used else "unused"

    def atom(self):
        """The kernel in atomir's text form."""
        inst = f"atomic.{self.op}.relaxed.device.global.{self.type} [%a], %b"
        body = f"%old = {inst}" if self.used else inst
        return f"kernel {self.name}(%a: ptr.global, %b: {self.type}) {{\n  {body}\n}}\n"

    def __repr__(self):
        return self.name


def all_cases():
    return [Case(op, ty, used == "used") for op, ty in OPS for used in RESULTS]


def atom_source(cases):
    header = (
        "# GPU contention benchmark kernels (generated from bench/gpu/cases.py): each thread\n"
        "# performs one atomic; the runner gives every thread its own element, operand and\n"
        "# result slot.\n\n"
    )
    return header + "\n".join(case.atom() for case in cases)


def select(cases, names):
    """The cases whose name or group (`op_type`) is in `names`; all for None."""
    if not names:
        return list(cases)
    wanted = set(names)
    known = {c.name for c in cases} | {c.group for c in cases}
    unknown = wanted - known
    if unknown:
        raise SystemExit(f"unknown cases: {', '.join(sorted(unknown))}; known: {', '.join(sorted(known))}")
    return [c for c in cases if c.name in wanted or c.group in wanted]
