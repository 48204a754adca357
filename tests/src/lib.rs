//! Shared helpers for atomir's integration tests: finding the external tools that judge our
//! output, and running them over many cells at once.
//!
//! A test that needs a tool calls [`require`]. Where the tool is missing, the test is skipped
//! with a printed reason, unless `ATOMIR_REQUIRE_TOOLS=1` (set by CI) makes that an error.

pub mod accesses;
pub mod cases;
pub mod cell_bench;
pub mod contention;
pub mod gpu_kernels;
pub mod judge;
pub mod linearize;
pub mod litmus;
pub mod llvm;
pub mod loops;
pub mod per_thread;
pub mod ptx;
pub mod random;
pub mod specials;
pub mod tools;
pub mod visa;

pub use tools::{require, Tool};
