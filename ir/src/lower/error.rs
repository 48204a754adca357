//! The one place a [`LowerError`] is built, so every refusal, of an instruction or of a
//! parameter, carries its kernel and source location the same way.

use crate::kernel::{Inst, Kernel};
use crate::legal::{LowerError, Refusal, Site};
use crate::rule::KitRule;

/// The error of a printer that cannot print what its table accepted.
pub(super) fn unprintable(kernel: &Kernel, inst: Inst, message: String) -> LowerError {
    error(kernel, inst, Refusal::new(KitRule::Unprintable, message))
}

/// The one place a [`LowerError`] is built: the refusal at the instruction's source location.
pub fn error(kernel: &Kernel, inst: Inst, refusal: Refusal) -> LowerError {
    LowerError {
        kernel: kernel.name.clone(),
        site: Site::Inst(inst),
        loc: kernel.loc_of(inst),
        refusal,
    }
}

/// The one place a [`LowerError`] of a parameter is built: the refusal at the parameter's
/// source location, its reason naming the parameter.
pub fn param_error(kernel: &Kernel, param: usize, mut refusal: Refusal) -> LowerError {
    let (loc, name, ty) = match kernel.params.get(param) {
        Some(p) => {
            let data = kernel.values.get(p.value);
            (
                data.map_or(kernel.loc, |d| d.loc),
                data.map_or("", |d| &*d.name),
                p.ty.to_string(),
            )
        }
        None => (kernel.loc, "", String::new()),
    };
    let loc = if loc.is_known() { loc } else { kernel.loc };
    refusal.reason = format!("parameter `%{name}: {ty}`: {}", refusal.reason);
    LowerError {
        kernel: kernel.name.clone(),
        site: Site::Param(param as u32),
        loc,
        refusal,
    }
}
