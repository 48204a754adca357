//! The backends the benchmarks compare, by target name, through the registry.

use atomir::Target;

/// One representative target per backend.
pub const BENCH_TARGETS: &[&str] = &["ptx:sm_90", "visa:PVC", "llvm:nvptx64@22"];

/// The target for a full target name such as `ptx:sm_90`.
pub fn backend(target: &str) -> Result<Target, String> {
    target
        .parse()
        .map_err(|error: atomir::ParseTargetError| error.to_string())
}
