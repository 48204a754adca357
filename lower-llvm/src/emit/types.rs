//! LLVM's first-class types as the printer spells them: scalars, vectors, and pointers that
//! carry their pointee only where the LLVM version still has typed pointers (14).
//!
//! They are values, not strings, so that a type is compared (an `addrspacecast` is needed only
//! where two differ) and spelled without allocating.

use atomir_ir::lower::Spell;
use atomir_ir::{spell, ElemType, ValueType};

/// A scalar LLVM type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scal {
    I(u32),
    Half,
    BFloat,
    F32,
    F64,
}

impl Scal {
    /// The type that holds a value of `ty` as the program sees it (see [`PrimType::natural`]).
    ///
    /// [`PrimType::natural`]: atomir_ir::expand::PrimType::natural
    pub(crate) const fn natural(ty: ElemType) -> Scal {
        match ty {
            ElemType::F16 => Scal::Half,
            ElemType::Bf16 => Scal::BFloat,
            ElemType::F32 => Scal::F32,
            ElemType::F64 => Scal::F64,
            other => Scal::I(other.bits()),
        }
    }
}

impl Spell for Scal {
    fn spell(&self, out: &mut String) {
        match self {
            Scal::I(bits) => spell!(out, 'i', bits),
            Scal::Half => out.push_str("half"),
            Scal::BFloat => out.push_str("bfloat"),
            Scal::F32 => out.push_str("float"),
            Scal::F64 => out.push_str("double"),
        }
    }
}

/// An LLVM first-class type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    S(Scal),
    /// `<len x scal>`.
    V(u32, Scal),
    /// A pointer into `space`; `pointee` is printed only with typed pointers (LLVM 14), as
    /// `(len, scal)` with len 1 for a scalar.
    Ptr {
        space: u32,
        pointee: Option<(u32, Scal)>,
    },
}

impl Spell for Ty {
    fn spell(&self, out: &mut String) {
        match *self {
            Ty::S(s) => s.spell(out),
            Ty::V(len, s) => spell!(out, '<', len, " x ", s, '>'),
            Ty::Ptr { space, pointee } => {
                match pointee {
                    None => out.push_str("ptr"),
                    Some((1, s)) => s.spell(out),
                    Some((len, s)) => spell!(out, '<', len, " x ", s, '>'),
                }
                if space != 0 {
                    spell!(out, " addrspace(", space, ')');
                }
                if pointee.is_some() {
                    out.push('*');
                }
            }
        }
    }
}

/// A kernel value's type as one word, compared in one step: for a template's shape, or a key.
pub(crate) fn type_word(ty: ValueType) -> u64 {
    match ty {
        ValueType::Ptr(space) => 1 << 16 | space as u64,
        ValueType::Pred => 2 << 16,
        ValueType::Data(elem, shape) => 3 << 16 | (elem as u64) << 8 | shape as u64,
    }
}
