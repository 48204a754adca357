//! The library behind the `atomir` command: target names, cell filters, the lowering-matrix
//! reports (text, JSON, Markdown, HTML), the per-instruction diff of two targets, and the
//! commands on PTX input (the porting report, retargeting, fragments).
//!
//! Nothing here prints or exits; `main.rs` owns the process.

pub mod diff;
pub mod filter;
pub mod llvm_ir;
pub mod porting;
pub mod ptx;
pub mod report;
pub mod slice;
pub mod targets;
pub mod unified;
