//! The visa backend of atomir.

use atomir_ir::Backend;

/// Help text for this backend's target names, shown by `atomir lower --help`.
pub const TARGETS_HELP: &str = "visa: backend not built yet";

/// Parses the part of a target name after `visa:`.
pub fn parse_target(spec: &str) -> Result<Box<dyn Backend + Send + Sync>, String> {
    Err(format!(
        "the visa backend is not built yet (target `visa:{spec}`)"
    ))
}
