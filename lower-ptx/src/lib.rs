//! The ptx backend of atomir.

use atomir_ir::Backend;

/// Help text for this backend's target names, shown by `atomir lower --help`.
pub const TARGETS_HELP: &str = "ptx: backend not built yet";

/// Parses the part of a target name after `ptx:`.
pub fn parse_target(spec: &str) -> Result<Box<dyn Backend + Send + Sync>, String> {
    Err(format!(
        "the ptx backend is not built yet (target `ptx:{spec}`)"
    ))
}
