//! atomir-ir: the vendor-neutral atomic IR every backend stands on.
//!
//! - [`types`]: the typed vocabulary of an atomic node.
//! - [`kernel`]: kernels, values and the atomic node ([`AtomicInst`]).
//! - [`legal`]: the verdicts of a legality table ([`Verdict`], [`Legality`], [`Refusal`]).
//! - [`lower`]: the lowering kit every backend shares ([`Backend`], [`LowerOptions`],
//!   [`LowerError`], [`LowerReport`]).
//! - [`spelling`]: the spelling vocabulary, a leaf every layer may use.
//! - [`expand`]: the target-independent emulations (CAS loop, part-word, split).
//! - [`matrix`]: the lowering matrix's cells.
//! - [`text`]: the text form (parser and canonical printer); [`verify`]: the verifier;
//!   [`diag`]: diagnostics with line and column.
//! - [`semantics`]: reference semantics; [`interp`]: an interpreter of expansions.
//!
//! # Example
//!
//! A kernel built in code, verified, printed in the text form and parsed back; a malformed one
//! (a u32 operand to an f32 add) is a diagnostic, never a panic.
//!
//! ```
//! use atomir_ir::{text, verify, AddressSpace, AtomicInst, AtomicOp, ElemType, Kernel, Module,
//!     ValueType};
//!
//! let mut kernel = Kernel::new("accumulate");
//! let sum = kernel.add_param("sum", ValueType::Ptr(AddressSpace::Global));
//! let x = kernel.add_param("x", ValueType::scalar(ElemType::F32));
//! let mut add = AtomicInst::new(AtomicOp::Add, ElemType::F32, sum, x.into());
//! add.space = AddressSpace::Global;
//! kernel.push(add, None);
//! let module = Module { kernels: vec![kernel] };
//! assert!(verify::verify(&module).is_ok());
//!
//! let source = text::print(&module);
//! assert!(source.contains("atomic.add.relaxed.device.global.f32 [%sum], %x"));
//! let parsed = text::parse(&source).expect("the printer's output parses");
//! assert_eq!(text::print(&parsed), source);
//!
//! let mut bad = Kernel::new("bad");
//! let sum = bad.add_param("sum", ValueType::Ptr(AddressSpace::Global));
//! let n = bad.add_param("n", ValueType::scalar(ElemType::U32));
//! bad.push(AtomicInst::new(AtomicOp::Add, ElemType::F32, sum, n.into()), None);
//! let bad = Module { kernels: vec![bad] };
//! let diagnostics = verify::verify(&bad).unwrap_err();
//! assert!(!diagnostics.is_empty());
//! ```
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
mod name_index;
pub mod node;
pub mod rule;
pub mod semantics;
mod slice;
pub mod spelling;
pub mod text;
pub mod types;
pub mod verify;

pub use diag::{Diagnostic, Diagnostics};

pub use kernel::{
    AtomicInst, Constant, Fence, Inst, InstData, Kernel, KernelTag, Module, Name, Operand, Param,
    Predicate, Scalar, SourceLoc, Value, ValueData, ValueDef, VectorList,
};
pub use legal::{
    ElementLowering, InvalidLowering, Legality, Lowering, Refusal, Rewrite, Split, Strategy,
    TargetId, Verdict, WarpCombine,
};
pub use lower::{
    Backend, GenericParams, InstLowering, LowerError, LowerOptions, LowerReport, OnRefusal,
    ParseTargetError, Site, WriteError,
};
pub use node::{AsNode, AtomicNode, Node};
pub use rule::RuleId;
pub use types::{
    AddressSpace, AtomicOp, CacheHint, ElemType, FloatLaxity, MemoryOrder, Scope, TypeClass,
    ValueType, VectorShape,
};
