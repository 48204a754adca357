//! The errors of a lowering ([`LowerError`], [`WriteError`]), and the one place a
//! [`LowerError`] is built, so every refusal, of an instruction or of a parameter, carries its
//! kernel and source location the same way.

use std::fmt;

use crate::kernel::{Inst, Kernel, SourceLoc};
use crate::legal::Refusal;
use crate::rule::KitRule;

/// What a refusal is about: one instruction, or one parameter whose type the target cannot
/// carry (used or not: a kernel's signature is its interface).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Site {
    /// An instruction of the kernel.
    Inst(Inst),
    /// The parameter's position in the signature.
    Param(u32),
}

/// A refusal at a place in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerError {
    /// The name of the kernel refused.
    pub kernel: String,
    /// The instruction or parameter refused.
    pub site: Site,
    /// Where the text form writes it (unknown for a kernel built in code).
    pub loc: SourceLoc,
    /// The rule, the reason, and the smallest target that would accept it.
    pub refusal: Refusal,
}

impl fmt::Display for LowerError {
    /// `line:col: error: in kernel `k`: …` for a kernel read from text; for one built in code,
    /// which has no location, `error: in kernel `k`, instruction 3: …` (or `parameter 1`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.loc.is_known() {
            return write!(
                f,
                "{}: error: in kernel `{}`: {}",
                self.loc, self.kernel, self.refusal
            );
        }
        f.write_str("error: ")?;
        if !self.kernel.is_empty() {
            write!(f, "in kernel `{}`, ", self.kernel)?;
        }
        match self.site {
            Site::Inst(inst) => write!(f, "instruction {}", inst.as_u32())?,
            Site::Param(param) => write!(f, "parameter {param}")?,
        }
        write!(f, ": {}", self.refusal)
    }
}

impl std::error::Error for LowerError {}

/// Why a lowering into a writer failed: a refusal, or the writer's own error.
#[derive(Debug)]
#[non_exhaustive]
pub enum WriteError {
    /// The target refused an instruction or a parameter.
    Lower(LowerError),
    /// The writer failed.
    Io(std::io::Error),
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Lower(error) => error.fmt(f),
            WriteError::Io(error) => write!(f, "cannot write the code: {error}"),
        }
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WriteError::Lower(error) => Some(error),
            WriteError::Io(error) => Some(error),
        }
    }
}

impl From<LowerError> for WriteError {
    fn from(error: LowerError) -> Self {
        WriteError::Lower(error)
    }
}

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

/// The error of an id the module does not hold: instruction `inst` of `kernel`, or of no
/// kernel (`None`, a kernel number the module does not hold), at the kernel's location.
pub(super) fn not_held(kernel: Option<&Kernel>, inst: Inst, refusal: Refusal) -> LowerError {
    LowerError {
        kernel: kernel.map_or_else(String::new, |kernel| kernel.name.clone()),
        site: Site::Inst(inst),
        loc: kernel.map_or_else(SourceLoc::default, |kernel| kernel.loc),
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
