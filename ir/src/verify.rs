//! The verifier: target-independent rules of the IR.

use crate::diag::Diagnostic;
use crate::kernel::Module;

/// Checks every target-independent rule, returning all violations found.
pub fn verify(_module: &Module) -> Result<(), Vec<Diagnostic>> {
    Ok(())
}
