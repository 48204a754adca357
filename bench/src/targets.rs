//! The backends the benchmarks compare, by target name, through the registry.

use atomir::Target;

/// One representative target per backend, and `ptx:sm_90@9.4`: below PTX ISA 9.4 the mix's
/// exact f32 add on global memory is a serially folded CAS loop (`atom.add.f32` flushes
/// subnormals there), at 9.4 one `red.add.noftz.f32`, so the two PTX rows tell the lowering's
/// own speed from the cost of that one emulation.
pub const BENCH_TARGETS: &[&str] = &["ptx:sm_90", "ptx:sm_90@9.4", "visa:PVC", "llvm:nvptx64@22"];

/// The target for a full target name such as `ptx:sm_90`.
pub fn backend(target: &str) -> Result<Target, String> {
    target
        .parse()
        .map_err(|error: atomir::ParseTargetError| error.to_string())
}
