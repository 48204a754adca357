//! The operands of a memory instruction: its guard, data lanes (registers checked against
//! their declarations, literals), address forms and cache policy.

use atomir_ir::{AddressSpace, CacheHint, ElemType, VectorShape};

use super::decl::RegisterType;
use super::meaning::Reader;
use super::syntax;
use super::{Bindings, PtxAddress, PtxScalar, ReadError};
use crate::spell::{PtxEviction, PtxType};

impl Reader<'_, '_, '_> {
    pub(super) fn guard(&self) -> Result<Option<(String, bool)>, ReadError> {
        let Some((name, negated)) = self.syntax.guard else {
            return Ok(None);
        };
        match self.cx.decls.register(name) {
            Some(RegisterType::Pred) => {}
            None if !self.cx.decls.is_strict() && name.starts_with('%') => {}
            Some(RegisterType::Data(ty)) => {
                return Err(self.error(
                    self.syntax.start,
                    format!("the guard `{name}` is a `.{ty}` register; expected a `.pred`"),
                ));
            }
            None => {
                return Err(self.error(
                    self.syntax.start,
                    format!("the guard `{name}` is not a declared register"),
                ))
            }
        }
        Ok(Some((name.to_string(), negated)))
    }

    /// The lanes of a data operand (`%r1` or `{%f1, %f2}`), each checked against `elem`.
    pub(super) fn lanes(
        &self,
        (text, at): (&str, usize),
        shape: VectorShape,
        elem: ElemType,
        destination: bool,
    ) -> Result<Vec<PtxScalar>, ReadError> {
        let parts = syntax::elements(text, at);
        let braced = text.starts_with('{');
        if braced != shape.is_vector() || parts.len() != shape.len() {
            let expected = if shape.is_vector() {
                format!("{{…}} of {} registers", shape.len())
            } else {
                "one register".to_string()
            };
            return Err(self.error(at, format!("`{text}`: expected {expected}")));
        }
        parts
            .into_iter()
            .map(|(part, part_at)| self.scalar(part, part_at, elem, destination))
            .collect()
    }

    pub(super) fn scalar(
        &self,
        text: &str,
        at: usize,
        elem: ElemType,
        destination: bool,
    ) -> Result<PtxScalar, ReadError> {
        if destination && text == "_" {
            return Ok(PtxScalar::Register("_".into()));
        }
        if text.starts_with('%') {
            self.check_register(text, at, elem)?;
            return Ok(PtxScalar::Register(text.to_string()));
        }
        if destination {
            return Err(self.error(at, format!("`{text}`: expected a destination register")));
        }
        match literal_bits(text, elem) {
            Some(bits) => Ok(PtxScalar::Literal {
                text: text.to_string(),
                bits,
            }),
            None => Err(self.error(
                at,
                format!("`{text}`: expected a register or a literal of type {elem}"),
            )),
        }
    }

    pub(super) fn check_register(
        &self,
        name: &str,
        at: usize,
        elem: ElemType,
    ) -> Result<(), ReadError> {
        match self.cx.decls.register(name) {
            Some(RegisterType::Data(ty)) if register_fits(ty, elem) => Ok(()),
            Some(RegisterType::Data(ty)) => Err(self.error(
                at,
                format!(
                    "`{name}` is a `.{ty}` register; expected a {}-bit register for {elem}{}",
                    elem.bits(),
                    if elem.is_float() {
                        " (a float or .b type)"
                    } else {
                        " (an integer or .b type)"
                    }
                ),
            )),
            Some(RegisterType::Pred) => Err(self.error(
                at,
                format!(
                    "`{name}` is a `.pred` register; expected a {}-bit register for {elem}",
                    elem.bits()
                ),
            )),
            None if !self.cx.decls.is_strict() => Ok(()),
            None => Err(self.error(at, format!("`{name}` is not a declared register"))),
        }
    }

    /// `[reg]`, `[reg+imm]`, `[var]`, `[var+imm]`.
    pub(super) fn address(
        &self,
        (text, at): (&str, usize),
        space: AddressSpace,
    ) -> Result<PtxAddress, ReadError> {
        let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) else {
            return Err(self.error(
                at,
                format!(
                    "`{text}`: expected an address `[reg]`, `[reg+imm]`, `[var]` or `[var+imm]`"
                ),
            ));
        };
        let inner = inner.trim();
        let split = inner.find(['+', '-']).filter(|&i| i > 0);
        let (base, offset) = match split {
            Some(i) => {
                let sign = if inner.as_bytes()[i] == b'-' { -1 } else { 1 };
                let number = inner[i + 1..].trim();
                let value = parse_int(number)
                    .and_then(|v| i64::try_from(v).ok())
                    .ok_or_else(|| {
                        self.error(
                            at,
                            format!("`{text}`: expected an integer offset after the base"),
                        )
                    })?;
                (inner[..i].trim(), sign * value)
            }
            None => (inner, 0),
        };
        if base.is_empty() || parse_int(base).is_some() {
            return Err(self.error(at, format!("`{text}`: an absolute address is not modelled; expected a register or a variable")));
        }
        if base.starts_with('%') {
            let bits = match self.cx.decls.register(base) {
                Some(RegisterType::Data(ty)) if !is_float(ty) && matches!(ty.width(), 32 | 64) => ty.width(),
                None if !self.cx.decls.is_strict() => 64,
                Some(RegisterType::Data(ty)) => return Err(self.error(at, format!("the address register `{base}` is `.{ty}`; expected a 32- or 64-bit integer or .b register"))),
                Some(RegisterType::Pred) => return Err(self.error(at, format!("the address register `{base}` is a `.pred`"))),
                None => return Err(self.error(at, format!("`{base}` is not a declared register"))),
            };
            return Ok(PtxAddress {
                base: base.to_string(),
                variable: false,
                offset,
                bits,
            });
        }
        if let Some(var_space) = self.cx.decls.variable(base) {
            let fits = match (var_space.space(), space) {
                (_, AddressSpace::Generic) => true,
                (Some(AddressSpace::Shared), AddressSpace::Shared) => true,
                (Some(var), node) => var == node,
                (None, _) => false,
            };
            if !fits {
                return Err(self.error(
                    at,
                    format!(
                        "`{base}` is a `.{var_space}` variable; the instruction addresses {space}"
                    ),
                ));
            }
        } else if self.cx.decls.is_strict() {
            return Err(self.error(at, format!("`{base}` is not a declared variable")));
        }
        Ok(PtxAddress {
            base: base.to_string(),
            variable: true,
            offset,
            bits: 64,
        })
    }

    /// The eviction policy of a `.L2::cache_hint` form's policy register.
    pub(super) fn policy(
        &self,
        (text, at): (&str, usize),
        values: &mut Bindings,
    ) -> Result<CacheHint, ReadError> {
        values.policy = Some(text.to_string());
        let hint = self.cx.decls.policy(text).and_then(PtxEviction::hint);
        hint.ok_or_else(|| self.error(at, format!(
            "the cache policy `{text}` is not modelled: atomir reads a policy made in the same function by `createpolicy.fractional.L2::evict_first|evict_last|evict_normal.b64` with fraction 1.0"
        )))
    }
}

pub(super) const fn is_float(ty: PtxType) -> bool {
    matches!(
        ty,
        PtxType::F16
            | PtxType::F16x2
            | PtxType::Bf16
            | PtxType::Bf16x2
            | PtxType::F32
            | PtxType::F64
    )
}

/// Whether a register of type `ty` may hold an element of `elem`: the same width, and not a
/// float register for integer data nor an integer register for float data (`.bN` holds
/// either).
fn register_fits(ty: PtxType, elem: ElemType) -> bool {
    let bits_register = matches!(
        ty,
        PtxType::B8 | PtxType::B16 | PtxType::B32 | PtxType::B64 | PtxType::B128
    );
    let same_width = ty.width() == elem.bits() || (elem.bits() == 8 && ty.width() == 16);
    let kind_fits = bits_register
        || match elem.class() {
            atomir_ir::TypeClass::Float | atomir_ir::TypeClass::PackedFloat => is_float(ty),
            _ => !is_float(ty),
        };
    same_width && kind_fits
}

/// The bits of a literal for an element of `elem` (integer literals in decimal, hex, octal or
/// binary; `0fXXXXXXXX`/`0dXXXXXXXXXXXXXXXX` floats; a decimal float for f32/f64), masked to
/// its width.
fn literal_bits(text: &str, elem: ElemType) -> Option<u128> {
    let mask = if elem.bits() >= 128 {
        u128::MAX
    } else {
        (1u128 << elem.bits()) - 1
    };
    let bits = if let Some(hex) = text.strip_prefix("0f").or_else(|| text.strip_prefix("0F")) {
        (hex.len() == 8).then(|| u128::from_str_radix(hex, 16).ok())??
    } else if let Some(hex) = text.strip_prefix("0d").or_else(|| text.strip_prefix("0D")) {
        (hex.len() == 16).then(|| u128::from_str_radix(hex, 16).ok())??
    } else if let Some(value) = parse_int(text) {
        value as u128
    } else if text.contains(['.', 'e', 'E']) && matches!(elem, ElemType::F32 | ElemType::F64) {
        let value: f64 = text.parse().ok()?;
        if elem == ElemType::F32 {
            u128::from((value as f32).to_bits())
        } else {
            u128::from(value.to_bits())
        }
    } else {
        return None;
    };
    Some(bits & mask)
}

/// A PTX integer literal (optionally negative, with a `U` suffix): its two's-complement bits.
fn parse_int(text: &str) -> Option<i128> {
    let text = text.trim();
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let body = body.strip_suffix(['U', 'u']).unwrap_or(body);
    let value = if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()?
    } else if let Some(bin) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
        u64::from_str_radix(bin, 2).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        u64::from_str_radix(&body[1..], 8).ok()?
    } else if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) {
        body.parse::<u64>().ok()?
    } else {
        return None;
    };
    let value = i128::from(value);
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals() {
        assert_eq!(literal_bits("1", ElemType::U32), Some(1));
        assert_eq!(literal_bits("-1", ElemType::U32), Some(0xffff_ffff));
        assert_eq!(literal_bits("0x10", ElemType::U64), Some(16));
        assert_eq!(literal_bits("0f3F800000", ElemType::F32), Some(0x3f80_0000));
        assert_eq!(literal_bits("1.0", ElemType::F32), Some(0x3f80_0000));
        assert_eq!(literal_bits("%r1", ElemType::U32), None);
    }
}
