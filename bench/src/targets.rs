//! The backends the benchmarks compare, by target name.

use atomir_ir::Backend;

/// One representative target per backend.
pub const BENCH_TARGETS: &[&str] = &["ptx:sm_90", "visa:PVC", "llvm:nvptx64@22"];

/// The backend for a full target name such as `ptx:sm_90`.
pub fn backend(target: &str) -> Result<Box<dyn Backend + Send + Sync>, String> {
    match target.split_once(':') {
        Some(("ptx", spec)) => atomir_ptx::parse_target(spec),
        Some(("visa", spec)) => atomir_visa::parse_target(spec),
        Some(("llvm", spec)) => atomir_llvm::parse_target(spec),
        _ => Err(format!("unknown target `{target}`")),
    }
}
