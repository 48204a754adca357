//! atomir-ir: the vendor-neutral atomic IR every backend stands on.
//!
//! - [`types`]: the typed vocabulary of an atomic node.
//! - [`kernel`]: kernels, values and the atomic node ([`AtomicInst`]).
//! - [`legal`]: the legality framework ([`Backend`], [`Verdict`], [`Refusal`]).
//! - [`expand`]: the target-independent emulations (CAS loop, part-word, split).
//! - [`matrix`]: the lowering matrix's cells.
//! - [`text`]: the text form (parser and canonical printer); [`verify`]: the verifier;
//!   [`diag`]: diagnostics with line and column.
//! - [`semantics`]: reference semantics; [`interp`]: an interpreter of expansions.
//!
//! # Features
//!
//! - `semantics` (default): the reference semantics' evaluators ([`semantics::apply`]) and the
//!   interpreter ([`interp`]), which need the `half` crate. A client that only verifies,
//!   legalizes and lowers builds with `default-features = false` and never compiles `half`.

#![warn(missing_docs)]

pub mod diag;
pub mod expand;
#[cfg(feature = "semantics")]
pub mod interp;
pub mod kernel;
pub mod legal;
pub mod lower;
pub mod matrix;
pub mod node;
pub mod rule;
pub mod semantics;
mod slice;
pub mod text;
pub mod types;
pub mod verify;

pub use diag::{Diagnostic, Diagnostics};

pub use kernel::{
    AtomicInst, Constant, Fence, Inst, InstData, Kernel, Module, Operand, Param, Predicate, Scalar,
    SourceLoc, Value, ValueData, ValueDef, VectorList,
};
pub use legal::{
    Backend, Legality, LowerError, LowerOptions, LowerReport, Lowering, OnRefusal, Refusal,
    Rewrite, Site, Strategy, Verdict, WriteError,
};
pub use lower::InstLowering;
pub use node::{AtomicNode, Node};
pub use rule::RuleId;
pub use types::{
    AddressSpace, AtomicOp, CacheHint, ElemType, MemoryOrder, Scope, TypeClass, ValueType,
    VectorShape,
};
