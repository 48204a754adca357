"""atomir: GPU atomics as a vendor-neutral IR, lowered to NVIDIA PTX, Intel vISA and LLVM IR.

Ask a target about one atomic node, splice a node onto your own registers, or lower a module
of atomir's text form::

    import atomir

    target = atomir.Target("ptx:sm_90")
    add = atomir.Atomic(op="add", type="f32", order="relaxed", scope="device",
                        space="global", result=True)
    print(target.legalize(add))            # how sm_90 carries it out
    fragment = target.splice(add, address="%rd1", operands=["%f1"], result="%f2")
    print(fragment.code)                   # atom.relaxed.gpu.global.add.f32 %f2, [%rd1], %f1;

Every failure is an exception under ``atomir.Error`` (``RefusedError`` for what a target
cannot do, with the rule and the smallest target that can; ``InvalidError`` for input atomir
cannot take; ``InternalError`` for a bug), never an abort.
"""

from __future__ import annotations

import enum
from typing import Optional, Union

from . import _atomir
from ._atomir import (
    __version__,
    Atomic,
    AuditEntry,
    AuditReport,
    Binding,
    Error,
    Fence,
    Fixed,
    Fragment,
    InstLowering,
    Instruction,
    InternalError,
    InvalidError,
    LlvmAtomic,
    LlvmModule,
    Lowered,
    Module,
    PtxAtomic,
    PtxModule,
    RefusedError,
    Refusal,
    Target,
    Verdict,
    audit,
    fix_llvm,
    parse,
    read_llvm,
    read_ptx,
    read_ptx_instruction,
    supported_targets,
    targets,
    targets_help,
)


#: What `Target.legalize`, `Target.splice` and `supported_targets` take.
Node = Union[Atomic, Fence]


def _member_name(spelling: str) -> str:
    return spelling.upper().replace("-", "_")


def _spelled_enum(name: str, doc: str) -> type:
    spellings = _atomir.vocabulary()[name]
    members = [(_member_name(spelling), spelling) for spelling in spellings]
    built = enum.Enum(name, members, type=str, module=__name__)  # type: ignore[misc]
    built.__doc__ = doc
    built.__str__ = lambda self: self.value  # type: ignore[method-assign]
    return built


Op = _spelled_enum("Op", "The operation of an atomic access; each member is its spelling (Op.ADD == 'add').")
Type = _spelled_enum("Type", "An element type (Type.F32 == 'f32').")
Shape = _spelled_enum("Shape", "Scalar or a vector of 2, 4 or 8 elements (Shape.V4 == 'v4').")
Order = _spelled_enum("Order", "A memory order (Order.ACQ_REL == 'acq_rel').")
Scope = _spelled_enum("Scope", "A scope (Scope.DEVICE == 'device').")
Space = _spelled_enum("Space", "An address space (Space.SHARED == 'shared').")
Hint = _spelled_enum("Hint", "An L2 cache hint (Hint.EVICT_LAST == 'evict_last').")
Strategy = _spelled_enum("Strategy", "The headline of a verdict (Strategy.CAS_LOOP == 'cas-loop').")


def Load(
    type: str,
    *,
    order: str = "relaxed",
    scope: str = "device",
    space: str = "generic",
    shape: str = "scalar",
    hint: Optional[str] = None,
    pointer_space: Optional[str] = None,
) -> Atomic:
    """An atomic load (relaxed, acquire or seq_cst): an ``Atomic`` with op "load", whose
    value is used."""
    return Atomic(
        "load",
        type,
        shape=shape,
        order=order,
        scope=scope,
        space=space,
        result=True,
        hint=hint,
        pointer_space=pointer_space,
    )


def Store(
    type: str,
    *,
    order: str = "relaxed",
    scope: str = "device",
    space: str = "generic",
    shape: str = "scalar",
    hint: Optional[str] = None,
    pointer_space: Optional[str] = None,
) -> Atomic:
    """An atomic store (relaxed, release or seq_cst): an ``Atomic`` with op "store" and no
    result; its one operand is the value stored."""
    return Atomic(
        "store",
        type,
        shape=shape,
        order=order,
        scope=scope,
        space=space,
        result=False,
        hint=hint,
        pointer_space=pointer_space,
    )


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
