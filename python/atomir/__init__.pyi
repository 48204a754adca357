"""Type stubs of atomir: GPU atomics as a vendor-neutral IR, lowered to PTX, vISA and LLVM IR."""

import enum
from typing import Literal, Optional, Sequence, Tuple, Union, final

__version__: str

__all__ = [
    "__version__",
    "Atomic",
    "AuditEntry",
    "AuditReport",
    "Binding",
    "Error",
    "Fence",
    "Fixed",
    "Fragment",
    "Hint",
    "InstLowering",
    "Instruction",
    "InternalError",
    "InvalidError",
    "LlvmAtomic",
    "LlvmModule",
    "Load",
    "Lowered",
    "Module",
    "Node",
    "Op",
    "PtxAtomic",
    "PtxModule",
    "Order",
    "RefusedError",
    "Refusal",
    "Scope",
    "Shape",
    "Space",
    "Store",
    "Strategy",
    "Target",
    "Type",
    "Verdict",
    "audit",
    "fix_llvm",
    "parse",
    "read_llvm",
    "read_ptx",
    "read_ptx_instruction",
    "supported_targets",
    "targets",
    "targets_help",
]

class Error(Exception):
    rule: Optional[str]
    reason: str
    smallest_target: Optional["Target"]
    kernel: Optional[str]
    line: Optional[int]
    col: Optional[int]
    diagnostics: Sequence[Tuple[int, int, str]]

class RefusedError(Error): ...
class InvalidError(Error): ...
class InternalError(Error): ...

class Op(str, enum.Enum):
    ADD = "add"
    SUB = "sub"
    INC = "inc"
    DEC = "dec"
    MIN = "min"
    MAX = "max"
    AND = "and"
    OR = "or"
    XOR = "xor"
    NAND = "nand"
    EXCH = "exch"
    CAS = "cas"
    USUB_COND = "usub_cond"
    USUB_SAT = "usub_sat"
    FMINIMUM = "fminimum"
    FMAXIMUM = "fmaximum"
    FMINIMUMNUM = "fminimumnum"
    FMAXIMUMNUM = "fmaximumnum"
    LOAD = "load"
    STORE = "store"

class Type(str, enum.Enum):
    U8 = "u8"
    U16 = "u16"
    U32 = "u32"
    U64 = "u64"
    S8 = "s8"
    S16 = "s16"
    S32 = "s32"
    S64 = "s64"
    B8 = "b8"
    B16 = "b16"
    B32 = "b32"
    B64 = "b64"
    B128 = "b128"
    F16 = "f16"
    BF16 = "bf16"
    F32 = "f32"
    F64 = "f64"
    F16X2 = "f16x2"
    BF16X2 = "bf16x2"

class Shape(str, enum.Enum):
    SCALAR = "scalar"
    V2 = "v2"
    V4 = "v4"
    V8 = "v8"

class Order(str, enum.Enum):
    RELAXED = "relaxed"
    ACQUIRE = "acquire"
    RELEASE = "release"
    ACQ_REL = "acq_rel"
    SEQ_CST = "seq_cst"

class Scope(str, enum.Enum):
    BLOCK = "block"
    CLUSTER = "cluster"
    DEVICE = "device"
    SYSTEM = "system"

class Space(str, enum.Enum):
    GENERIC = "generic"
    GLOBAL = "global"
    SHARED = "shared"
    SHARED_CLUSTER = "shared_cluster"

class Hint(str, enum.Enum):
    EVICT_FIRST = "evict_first"
    EVICT_LAST = "evict_last"
    EVICT_NORMAL = "evict_normal"
    NO_ALLOCATE = "no_allocate"

class Strategy(str, enum.Enum):
    NATIVE = "native"
    REWRITE = "rewrite"
    WIDEN = "widen"
    CAS_LOOP = "cas-loop"
    SPLIT = "split"
    ILLEGAL = "illegal"

@final
class Atomic:
    def __new__(
        cls,
        op: Union[Op, str],
        type: Union[Type, str],
        *,
        shape: Union[Shape, str] = "scalar",
        order: Union[Order, str] = "relaxed",
        scope: Union[Scope, str] = "device",
        space: Union[Space, str] = "generic",
        result: bool = False,
        hint: Optional[Union[Hint, str]] = None,
        pointer_space: Optional[Union[Space, str]] = None,
        laxity: Optional[str] = None,
    ) -> "Atomic": ...
    @property
    def op(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def shape(self) -> str: ...
    @property
    def lanes(self) -> int: ...
    @property
    def order(self) -> str: ...
    @property
    def scope(self) -> str: ...
    @property
    def space(self) -> str: ...
    @property
    def pointer_space(self) -> str: ...
    @property
    def hint(self) -> Optional[str]: ...
    @property
    def laxity(self) -> Optional[str]: ...
    @property
    def result(self) -> bool: ...
    @property
    def operand_count(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Fence:
    def __new__(cls, order: Union[Order, str], scope: Union[Scope, str] = "device") -> "Fence": ...
    @property
    def order(self) -> str: ...
    @property
    def scope(self) -> str: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

Node = Union[Atomic, Fence]

def Load(
    type: Union[Type, str],
    *,
    order: Union[Order, str] = "relaxed",
    scope: Union[Scope, str] = "device",
    space: Union[Space, str] = "generic",
    shape: Union[Shape, str] = "scalar",
    hint: Optional[Union[Hint, str]] = None,
    pointer_space: Optional[Union[Space, str]] = None,
) -> Atomic: ...
def Store(
    type: Union[Type, str],
    *,
    order: Union[Order, str] = "relaxed",
    scope: Union[Scope, str] = "device",
    space: Union[Space, str] = "generic",
    shape: Union[Shape, str] = "scalar",
    hint: Optional[Union[Hint, str]] = None,
    pointer_space: Optional[Union[Space, str]] = None,
) -> Atomic: ...

@final
class Refusal:
    @property
    def rule(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def smallest_target(self) -> Optional["Target"]: ...
    @property
    def kernel(self) -> Optional[str]: ...
    @property
    def line(self) -> Optional[int]: ...
    @property
    def col(self) -> Optional[int]: ...

@final
class Verdict:
    @property
    def target(self) -> str: ...
    @property
    def accepted(self) -> bool: ...
    @property
    def strategy(self) -> str: ...
    @property
    def rewrites(self) -> list[str]: ...
    @property
    def emulation(self) -> Optional[str]: ...
    @property
    def description(self) -> str: ...
    @property
    def refusal(self) -> Optional[Refusal]: ...
    @property
    def instructions(self) -> Optional[int]: ...
    def raise_if_refused(self) -> None: ...
    def __bool__(self) -> bool: ...

_Name = Union[str, int]
_Operand = Union[_Name, Sequence[_Name]]

@final
class Binding:
    @property
    def role(self) -> str: ...
    @property
    def names(self) -> list[str]: ...
    @property
    def type(self) -> str: ...
    @property
    def count(self) -> int: ...
    @property
    def space(self) -> Optional[str]: ...
    @property
    def required(self) -> bool: ...

@final
class Fragment:
    @property
    def code(self) -> str: ...
    @property
    def temporaries(self) -> list[Tuple[str, str]]: ...
    @property
    def results(self) -> list[str]: ...
    @property
    def result_bound(self) -> bool: ...
    @property
    def declarations(self) -> list[str]: ...
    @property
    def instructions(self) -> int: ...
    @property
    def verdict(self) -> Verdict: ...
    @property
    def bindings(self) -> list[Binding]: ...
    @property
    def types(self) -> dict[str, str]: ...

@final
class Instruction:
    @property
    def kernel(self) -> str: ...
    @property
    def index(self) -> int: ...
    @property
    def node(self) -> Node: ...
    @property
    def line(self) -> Optional[int]: ...
    @property
    def col(self) -> Optional[int]: ...

@final
class Module:
    @property
    def kernels(self) -> list[str]: ...
    def instructions(self) -> list[Instruction]: ...

@final
class Lowered:
    @property
    def code(self) -> str: ...
    @property
    def verdicts(self) -> list[Tuple[str, int, Verdict]]: ...
    @property
    def refusals(self) -> list[Refusal]: ...

@final
class InstLowering:
    @property
    def kernel(self) -> str: ...
    @property
    def index(self) -> int: ...
    @property
    def code(self) -> Optional[str]: ...
    @property
    def verdict(self) -> Verdict: ...

@final
class Target:
    def __new__(cls, name: str) -> "Target": ...
    @property
    def name(self) -> str: ...
    @property
    def backend(self) -> str: ...
    @property
    def sm(self) -> Optional[str]: ...
    @property
    def ptx_isa(self) -> Optional[str]: ...
    @property
    def triple(self) -> Optional[str]: ...
    @property
    def llvm_version(self) -> Optional[int]: ...
    @property
    def platform(self) -> Optional[str]: ...
    def legalize(self, node: Node) -> Verdict: ...
    def splice(
        self,
        node: Node,
        *,
        address: Optional[str] = None,
        operands: Sequence[_Operand] = (),
        result: Optional[Union[str, Sequence[str]]] = None,
        predicate: Optional[str] = None,
        prefix: str = "m",
        blocks: Optional[Tuple[str, str]] = None,
    ) -> Fragment: ...
    def binding_types(
        self,
        node: Node,
        *,
        address: Optional[str] = None,
        operands: Sequence[_Operand] = (),
        result: Optional[Union[str, Sequence[str]]] = None,
        predicate: Optional[str] = None,
        prefix: str = "m",
        blocks: Optional[Tuple[str, str]] = None,
    ) -> list[Binding]: ...
    def lower(
        self,
        module: Union[Module, str],
        *,
        complete_module: bool = False,
        skip_refusals: bool = False,
        plain_loops: bool = False,
        generic_params: str = "global",
    ) -> Lowered: ...
    def lower_each(self, module: Union[Module, str], *, plain_loops: bool = False) -> list[InstLowering]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class PtxAtomic:
    @property
    def line(self) -> int: ...
    @property
    def col(self) -> int: ...
    @property
    def function(self) -> str: ...
    @property
    def node(self) -> Node: ...
    @property
    def opcode(self) -> str: ...
    @property
    def guard(self) -> Optional[str]: ...
    @property
    def result(self) -> list[str]: ...
    @property
    def address(self) -> Optional[str]: ...
    @property
    def operands(self) -> list[str]: ...
    @property
    def new_value(self) -> list[str]: ...
    @property
    def policy(self) -> Optional[str]: ...
    @property
    def raw(self) -> str: ...
    @property
    def text(self) -> str: ...

@final
class PtxModule:
    @property
    def version(self) -> Optional[str]: ...
    @property
    def sm(self) -> Optional[str]: ...
    @property
    def atomics(self) -> list[PtxAtomic]: ...
    @property
    def errors(self) -> list[Tuple[int, int, str]]: ...

@final
class LlvmAtomic:
    @property
    def line(self) -> int: ...
    @property
    def col(self) -> int: ...
    @property
    def function(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def node(self) -> Optional[Node]: ...
    @property
    def raw(self) -> str: ...

@final
class LlvmModule:
    @property
    def triple(self) -> Optional[str]: ...
    @property
    def atomics(self) -> list[LlvmAtomic]: ...
    @property
    def errors(self) -> list[Tuple[int, int, str]]: ...

@final
class Fixed:
    @property
    def text(self) -> str: ...
    @property
    def replaced(self) -> int: ...
    @property
    def diagnostics(self) -> list[Tuple[int, int, str]]: ...

@final
class AuditEntry:
    @property
    def function(self) -> str: ...
    @property
    def ir_line(self) -> int: ...
    @property
    def ir_text(self) -> str: ...
    @property
    def ptx(self) -> list[Tuple[int, str]]: ...
    @property
    def verdict(self) -> Literal["kept", "strengthened", "weakened", "unmatched"]: ...
    @property
    def details(self) -> list[str]: ...

@final
class AuditReport:
    @property
    def entries(self) -> list[AuditEntry]: ...
    @property
    def unclaimed(self) -> list[Tuple[str, int, str]]: ...
    @property
    def ir_errors(self) -> list[Tuple[int, int, str]]: ...
    @property
    def ptx_errors(self) -> list[str]: ...
    @property
    def weakened(self) -> int: ...
    @property
    def unmatched(self) -> int: ...
    @property
    def is_clean(self) -> bool: ...
    def render(self, ir_name: str = "<ir>", ptx_name: str = "<ptx>") -> str: ...

def parse(text: str) -> Module: ...
def read_llvm(text: str, triple: Optional[str] = None) -> LlvmModule: ...
def fix_llvm(text: str, target: Union[Target, str]) -> Fixed: ...
def audit(ir: str, ptx: str, triple: Optional[str] = None) -> AuditReport: ...
def read_ptx(text: str) -> PtxModule: ...
def read_ptx_instruction(text: str) -> PtxAtomic: ...
def targets() -> list[Target]: ...
def supported_targets(node: Node) -> list[Target]: ...
def targets_help() -> str: ...
