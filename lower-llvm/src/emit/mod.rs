//! The printer, whole: the frame of the output (LLVM types and value names, functions, kernels
//! and modules) and the atomic instructions.
//!
//! One module per concern: `types` (LLVM types), `values` (references, labels, literals and
//! identifiers, and their spelling), `emitter` (the per-kernel state every printing module
//! shares), `native` (the one place that spells `atomicrmw`, `cmpxchg`, atomic loads and
//! fences), `expansion` (the shared expansions' CFGs), `ldst` (stand-alone atomic loads, stores
//! and fences, and SPIR-V's built-ins for them), `vulkan` (a complete Vulkan module's frame:
//! bindings, shared variables, the entry point) and `printer` (the backend's
//! [`Printer`](atomir_ir::lower::Printer): functions, kernels, modules and fragments, routing
//! each plan to `native`, `expansion` or `ldst`).
//!
//! The dependencies run one way: `printer` on everything; `expansion` and `ldst` on `native`;
//! every part on `emitter`, `types` and `values`, which depend on no printing part.

mod emitter;
mod expansion;
mod ldst;
mod native;
mod printer;
mod types;
mod values;
mod vulkan;

pub(crate) use emitter::Emitter;
pub use printer::LlvmPrinter;
pub use types::value_type_spelling;
pub(crate) use types::{Scal, Ty};
pub(crate) use values::{write_ident, Label, Ref};
