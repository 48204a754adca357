//! The frame of the output: LLVM types and value names, functions, kernels and modules. Atomic
//! instructions are printed by [`crate::native`] (the one place that spells `atomicrmw`,
//! `cmpxchg`, atomic loads and fences) and [`crate::expansion`] (the shared expansions' CFGs).
//!
//! One module per concern: `types` (LLVM types), `values` (references, labels, literals and
//! identifiers, and their spelling), `emitter` (the per-kernel state every printing module
//! shares) and `printer` (the backend's [`Printer`](atomir_ir::lower::Printer): functions,
//! kernels, modules and fragments).

mod emitter;
mod printer;
mod types;
mod values;

pub(crate) use emitter::Emitter;
pub use printer::LlvmPrinter;
pub use types::value_type_spelling;
pub(crate) use types::{Scal, Ty};
pub(crate) use values::{write_ident, Label, Ref};
