//! The library behind the `atomir` command: target names, cell filters, the lowering-matrix
//! reports (text, JSON, Markdown, HTML) and the per-instruction diff of two targets.
//!
//! Nothing here prints or exits; `main.rs` owns the process.

pub mod diff;
pub mod filter;
pub mod llvm_ir;
pub mod report;
pub mod slice;
pub mod targets;
pub mod unified;
