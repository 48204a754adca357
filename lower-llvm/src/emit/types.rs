//! LLVM's first-class types as the printer spells them: scalars, vectors, and pointers that
//! carry their pointee only where the LLVM version still has typed pointers (14).
//!
//! They are values, not strings, so that a type is compared (an `addrspacecast` is needed only
//! where two differ) and spelled without allocating.

use atomir_ir::lower::Spell;
use atomir_ir::{spell, ElemType, ValueType};

use crate::target::LlvmTarget;

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

/// The LLVM type of a kernel value of type `ty` on `target`: a pointer as the raw pointer of
/// its space (`i8 addrspace(N)*` with typed pointers), a packed float as the integer that holds
/// it, a vector as `<N x T>`.
pub(crate) fn value_ty(target: &LlvmTarget, ty: ValueType) -> Ty {
    match ty {
        ValueType::Ptr(space) => {
            let generic = target.address_space(atomir_ir::AddressSpace::Generic);
            Ty::Ptr {
                space: target.address_space(space).or(generic).unwrap_or(0),
                pointee: target.typed_pointers().then_some((1, Scal::I(8))),
            }
        }
        ValueType::Pred => Ty::S(Scal::I(1)),
        ValueType::Data(elem, shape) if shape.is_vector() => {
            Ty::V(shape.len() as u32, Scal::natural(elem))
        }
        ValueType::Data(elem, _) => Ty::S(Scal::natural(elem)),
    }
}

/// How `target` spells the LLVM type of a kernel value of type `ty`: what a client declares or
/// casts a value to before it binds it to a spliced fragment.
pub fn value_type_spelling(target: &LlvmTarget, ty: ValueType) -> String {
    let mut out = String::new();
    value_ty(target, ty).spell(&mut out);
    out
}

/// A kernel value's type as one word, compared in one step: for a template's shape, or a key.
pub(crate) fn type_word(ty: ValueType) -> u64 {
    match ty {
        ValueType::Ptr(space) => 1 << 16 | space as u64,
        ValueType::Pred => 2 << 16,
        ValueType::Data(elem, shape) => 3 << 16 | (elem as u64) << 8 | shape as u64,
    }
}

/// The element type an atomic of `ty` accesses (the one `native::rmw` prints), which the
/// table's one-type rule for shared parameters compares as `PrimType::natural`.
pub(crate) fn access_scal(ty: atomir_ir::ElemType) -> Scal {
    Scal::natural(ty)
}
