//! What the printed code refers to, and how each is spelled: values ([`Ref`]), block labels
//! ([`Label`]), literals, and identifiers, with the naming rules for parameters and functions.
//!
//! The spelling is apart from the [`Emitter`](super::Emitter) that tracks them so that every
//! name the printer makes up follows one scheme (`%.<inst>.<n>`, `.<inst>.b<k>`), which the
//! naming rules keep clear of the program's own names.

use std::fmt::{self, Write};

use atomir_ir::expand::Var;
use atomir_ir::lower::NameRules;
use atomir_ir::Value;

use super::Scal;

/// A reference to an LLVM value, printed without allocating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ref {
    /// A kernel parameter, printed by its own name.
    Param(Value),
    /// The `n`-th temporary of instruction `inst`: `%.<inst>.<n>`.
    Tmp(u32, u32),
    /// Variable `var` of instruction `inst`'s expansion.
    Var(u32, Var),
    /// A literal of a scalar type, from raw bits.
    Lit(u128, Scal),
    /// `zeroinitializer`.
    Zero,
    /// A pointer parameter of a Vulkan frame, viewed as the element type accessed through it
    /// (see [`crate::vulkan`]).
    Bound(Value, Scal),
}

/// Where the numbers of expansion variables start: an instruction prints far fewer temporaries.
pub(super) const VAR_NUMBERS: u32 = 1_000_000;

/// Parameter names: any string, quoted where needed, but none starting with `.`, which every
/// name the printer makes up does (`%.<inst>.<n>`, `%.out<i>`, `.entry`, `.<inst>.b<k>`).
pub(super) static VALUE_NAMES: NameRules = NameRules {
    char_ok: |_| true,
    well_formed: |name| !name.is_empty(),
    lead: "v",
    keywords: &[],
    prefixes: &["."],
    suffixes: &[],
};

/// Function names: any string, quoted where needed, but not LLVM's own `llvm.` namespace, which
/// llvm-as keeps for intrinsics. NVPTX function names become PTX symbols:
/// [`PTX_ENTRY_NAMES`] there.
///
/// [`PTX_ENTRY_NAMES`]: atomir_ir::lower::PTX_ENTRY_NAMES
pub(super) static FUNCTION_NAMES: NameRules = NameRules {
    char_ok: |_| true,
    well_formed: |name| !name.is_empty(),
    lead: "k",
    keywords: &[],
    prefixes: &["llvm."],
    suffixes: &[],
};

/// Writes `name` as an LLVM identifier after `sigil`, quoting it where it has other characters.
/// Generic over the sink so that a [`Shown`] reference prints without a scratch string.
///
/// [`Shown`]: super::emitter::Shown
pub(crate) fn write_ident<W: Write + ?Sized>(out: &mut W, sigil: char, name: &str) -> fmt::Result {
    let plain = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '$' | '.' | '_'));
    out.write_char(sigil)?;
    if plain {
        return out.write_str(name);
    }
    out.write_char('"')?;
    for c in name.chars() {
        if c == '"' || c == '\\' || !c.is_ascii() || c.is_ascii_control() {
            let mut buf = [0u8; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                write!(out, "\\{byte:02X}")?;
            }
        } else {
            out.write_char(c)?;
        }
    }
    out.write_char('"')
}

/// A block label: the entry, or block `k` / the end of instruction `inst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Label {
    Entry,
    Block(u32, u32),
    End(u32),
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Label::Entry => f.write_str(".entry"),
            Label::Block(inst, k) => write!(f, ".{inst}.b{k}"),
            Label::End(inst) => write!(f, ".{inst}.end"),
        }
    }
}

pub(super) fn write_literal(f: &mut fmt::Formatter<'_>, bits: u128, scal: Scal) -> fmt::Result {
    match scal {
        Scal::I(width) => {
            let mask = if width >= 128 {
                u128::MAX
            } else {
                (1u128 << width) - 1
            };
            write!(f, "{}", bits & mask)
        }
        Scal::Half => write!(f, "0xH{:04X}", bits as u16),
        Scal::BFloat => write!(f, "0xR{:04X}", bits as u16),
        Scal::F32 => write!(f, "0x{:016X}", f32_bits_as_f64_bits(bits as u32)),
        Scal::F64 => write!(f, "0x{:016X}", bits as u64),
    }
}

/// LLVM writes `float` literals in `double` format; the conversion is exact and keeps NaN
/// payloads (a hardware conversion would quiet a signalling NaN).
fn f32_bits_as_f64_bits(bits: u32) -> u64 {
    let value = f32::from_bits(bits);
    if value.is_nan() {
        let sign = u64::from(bits >> 31) << 63;
        let mantissa = u64::from(bits & 0x7F_FFFF) << 29;
        sign | (0x7FFu64 << 52) | mantissa
    } else {
        f64::from(value).to_bits()
    }
}
