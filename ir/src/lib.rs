//! atomir-ir: the vendor-neutral atomic IR every backend stands on.
//!
//! - [`types`]: the typed vocabulary of an atomic node.
//! - [`kernel`]: kernels, values and the atomic node ([`AtomicInst`]).
//! - [`legal`]: the legality framework ([`Backend`], [`Verdict`], [`Refusal`]).
//! - [`expand`]: the target-independent emulations (CAS loop, part-word, split).
//! - [`matrix`]: the lowering matrix's cells.

pub mod expand;
pub mod kernel;
pub mod legal;
pub mod matrix;
pub mod types;

pub use kernel::{
    AtomicInst, Constant, Inst, Kernel, Module, Operand, Param, Predicate, Scalar, SourceLoc,
    Value, ValueData, ValueDef, VectorList,
};
pub use legal::{
    Backend, ElementLowering, Emulation, Legality, LowerError, LowerOptions, LowerReport, Refusal,
    Rewrite, Strategy, Verdict,
};
pub use types::{
    AddressSpace, AtomicOp, CacheHint, ElemType, MemoryOrder, Scope, TypeClass, ValueType,
    VectorShape,
};
