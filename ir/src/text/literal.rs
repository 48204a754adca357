//! Literals: from their spelling to the raw bits of an element type, and back to the canonical
//! spelling. Both directions live here so the printer's output always parses to the same bits.

use std::fmt::Write;

use crate::types::{ElemType, TypeClass};

/// All ones in the low `bits` bits.
pub(crate) const fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// The shape of a literal's spelling, before a type gives it meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spelling {
    /// Decimal digits; the magnitude is `None` when it does not fit 128 bits.
    Decimal(Option<u128>),
    /// `0x…`: raw bits.
    Hex(Option<u128>),
    /// A decimal with `.` or an exponent.
    Float,
    Inf,
    Nan,
}

fn classify(text: &str) -> Result<(bool, Spelling), String> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let malformed = || format!("malformed number `{text}`");
    if body == "inf" {
        return Ok((negative, Spelling::Inf));
    }
    if body == "nan" {
        return Ok((negative, Spelling::Nan));
    }
    if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(malformed());
        }
        let value = hex.bytes().try_fold(0u128, |acc, digit| {
            let digit = (digit as char).to_digit(16)? as u128;
            acc.checked_mul(16)?.checked_add(digit)
        });
        return Ok((negative, Spelling::Hex(value)));
    }
    if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) {
        let value = body.bytes().try_fold(0u128, |acc, digit| {
            acc.checked_mul(10)?.checked_add((digit - b'0') as u128)
        });
        return Ok((negative, Spelling::Decimal(value)));
    }
    if is_decimal_float(body) {
        return Ok((negative, Spelling::Float));
    }
    Err(malformed())
}

/// `digits [. digits] [e [+-] digits]`, with at least one digit before the exponent.
fn is_decimal_float(body: &str) -> bool {
    let bytes = body.as_bytes();
    let mut i = 0;
    let int_digits = count_digits(&bytes[i..]);
    i += int_digits;
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        i += count_digits(&bytes[i..]);
    }
    if int_digits == 0 {
        return false;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp_digits = count_digits(&bytes[i..]);
        if exp_digits == 0 {
            return false;
        }
        i += exp_digits;
    }
    i == bytes.len()
}

fn count_digits(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|b| b.is_ascii_digit()).count()
}

fn range_text(ty: ElemType) -> String {
    let bits = ty.bits();
    match ty.class() {
        TypeClass::Unsigned => format!("0..={}", mask(bits)),
        TypeClass::Signed => format!("-{}..={}", 1u128 << (bits - 1), mask(bits - 1)),
        TypeClass::Bits => format!("-{}..={}", 1u128 << (bits - 1), mask(bits)),
        TypeClass::Float | TypeClass::PackedFloat => format!("0x0..={:#x}", mask(bits)),
    }
}

/// The raw bits (zero-extended to 128) of literal `text` read as element type `ty`.
pub(crate) fn literal_bits(text: &str, ty: ElemType) -> Result<u128, String> {
    let (negative, spelling) = classify(text)?;
    let bits = ty.bits();
    let no_fit = || {
        format!(
            "literal {text} does not fit {ty} (range {})",
            range_text(ty)
        )
    };
    match ty.class() {
        TypeClass::Unsigned | TypeClass::Signed | TypeClass::Bits => {
            let (magnitude, hex) = match spelling {
                Spelling::Decimal(m) => (m, false),
                Spelling::Hex(m) => (m, true),
                Spelling::Float | Spelling::Inf | Spelling::Nan => {
                    return Err(format!(
                    "float literal {text} is not valid for {ty}; float literals need a float type"
                ))
                }
            };
            let magnitude = magnitude.ok_or_else(no_fit)?;
            let fits = match (ty.class(), negative) {
                (TypeClass::Unsigned, false) => magnitude <= mask(bits),
                (TypeClass::Unsigned, true) => magnitude == 0,
                // Hex spells raw bits, so it may reach the sign bit.
                (TypeClass::Signed, false) if hex => magnitude <= mask(bits),
                (TypeClass::Signed, false) => magnitude <= mask(bits - 1),
                (_, true) => magnitude <= 1u128 << (bits - 1),
                (_, false) => magnitude <= mask(bits),
            };
            if !fits {
                return Err(no_fit());
            }
            let value = if negative {
                magnitude.wrapping_neg()
            } else {
                magnitude
            };
            Ok(value & mask(bits))
        }
        TypeClass::PackedFloat => match spelling {
            Spelling::Hex(Some(m)) if !negative && m <= mask(bits) => Ok(m),
            Spelling::Hex(_) => Err(no_fit()),
            _ => Err(format!(
                "literal {text} is not valid for {ty}: packed literals are written as hex bits, \
                 e.g. 0x3c003c00"
            )),
        },
        TypeClass::Float => match spelling {
            Spelling::Hex(Some(m)) if !negative && m <= mask(bits) => Ok(m),
            Spelling::Hex(_) if negative => Err(format!(
                "hex literal {text} spells raw {ty} bits and cannot be negative"
            )),
            Spelling::Hex(_) => Err(no_fit()),
            Spelling::Nan => Ok(quiet_nan(ty) | sign_bit(ty, negative)),
            Spelling::Inf => Ok(infinity(ty) | sign_bit(ty, negative)),
            Spelling::Decimal(_) | Spelling::Float => {
                let bits = decimal_float_bits(text, ty);
                if (bits & !sign_bit(ty, true)) == infinity(ty) {
                    Err(format!(
                        "literal {text} does not fit {ty} (overflows to infinity)"
                    ))
                } else {
                    Ok(bits)
                }
            }
        },
    }
}

fn sign_bit(ty: ElemType, negative: bool) -> u128 {
    if negative {
        1u128 << (ty.bits() - 1)
    } else {
        0
    }
}

fn infinity(ty: ElemType) -> u128 {
    match ty {
        ElemType::F16 => 0x7c00,
        ElemType::Bf16 => 0x7f80,
        ElemType::F32 => 0x7f80_0000,
        _ => 0x7ff0_0000_0000_0000,
    }
}

fn quiet_nan(ty: ElemType) -> u128 {
    match ty {
        ElemType::F16 => 0x7e00,
        ElemType::Bf16 => 0x7fc0,
        ElemType::F32 => 0x7fc0_0000,
        _ => 0x7ff8_0000_0000_0000,
    }
}

/// Correctly rounded for f32 and f64; f16 and bf16 go through f64, as their printer does.
fn decimal_float_bits(text: &str, ty: ElemType) -> u128 {
    match ty {
        ElemType::F32 => text
            .parse::<f32>()
            .map(|v| v.to_bits() as u128)
            .unwrap_or(0),
        other => {
            let value = text.parse::<f64>().unwrap_or(0.0);
            match other {
                ElemType::F16 => round_f64_to_16(value, F16_EXPONENT_BITS) as u128,
                ElemType::Bf16 => round_f64_to_16(value, BF16_EXPONENT_BITS) as u128,
                _ => value.to_bits() as u128,
            }
        }
    }
}

/// Writes the canonical spelling of `bits` as element type `ty`: unsigned decimal for `uN` and
/// `bN`, signed decimal for `sN`, the shortest round-trip decimal (with `.` or `e`) for finite
/// floats, and hex bits for non-finite floats, packed types and out-of-range constants.
pub(crate) fn write_literal(out: &mut String, bits: u128, ty: ElemType) {
    let width = ty.bits();
    if bits & !mask(width) != 0 {
        let _ = write!(out, "{bits:#x}");
        return;
    }
    match ty.class() {
        TypeClass::Unsigned | TypeClass::Bits => {
            let _ = write!(out, "{bits}");
        }
        TypeClass::Signed => {
            let shift = 128 - width;
            let value = ((bits << shift) as i128) >> shift;
            let _ = write!(out, "{value}");
        }
        TypeClass::PackedFloat => write_hex_bits(out, bits, width),
        TypeClass::Float => {
            let exponent_all_ones = (bits & infinity(ty)) == infinity(ty);
            if exponent_all_ones {
                write_hex_bits(out, bits, width);
                return;
            }
            match ty {
                ElemType::F64 => {
                    let _ = write!(out, "{:?}", f64::from_bits(bits as u64));
                }
                ElemType::F32 => {
                    let _ = write!(out, "{:?}", f32::from_bits(bits as u32));
                }
                _ => write_short_float(out, bits, ty),
            }
        }
    }
}

fn write_hex_bits(out: &mut String, bits: u128, width: u32) {
    let digits = (width / 4) as usize;
    let _ = write!(out, "0x{bits:0digits$x}");
}

/// The shortest decimal that parses back (through [`literal_bits`]) to the same 16-bit float,
/// spelled as Rust spells the nearest f64 (which keeps those digits and always has `.` or `e`).
fn write_short_float(out: &mut String, bits: u128, ty: ElemType) {
    let exponent_bits = match ty {
        ElemType::F16 => F16_EXPONENT_BITS,
        _ => BF16_EXPONENT_BITS,
    };
    let value = widen_16_to_f64(bits as u16, exponent_bits);
    for precision in 0..17 {
        let candidate = format!("{value:.precision$e}");
        let reparsed: f64 = candidate.parse().unwrap_or(f64::NAN);
        if decimal_float_bits(&candidate, ty) == bits {
            let _ = write!(out, "{reparsed:?}");
            return;
        }
    }
    let _ = write!(out, "{value:?}");
}

// The 16-bit float conversions are written out here rather than taken from a float crate so
// that the text form (which a lowering-only build keeps) does not pull in the dependencies of
// the reference semantics.

/// Exponent field width of `f16` (IEEE binary16); its significand field is `15 - 5 = 10` bits.
const F16_EXPONENT_BITS: u32 = 5;
/// Exponent field width of `bf16`; its significand field is `15 - 8 = 7` bits.
const BF16_EXPONENT_BITS: u32 = 8;

/// The 16-bit float (1 sign bit, `exponent_bits`, the rest significand) nearest to `value`,
/// ties to even; overflow gives infinity and a NaN gives the quiet NaN of the same sign.
fn round_f64_to_16(value: f64, exponent_bits: u32) -> u16 {
    let significand_bits = 15 - exponent_bits;
    let sign = ((value.to_bits() >> 63) as u16) << 15;
    let infinity = (mask(exponent_bits) as u16) << significand_bits;
    if value.is_nan() {
        return sign | infinity | (1 << (significand_bits - 1));
    }
    if value.is_infinite() {
        return sign | infinity;
    }
    if value == 0.0 {
        return sign;
    }
    // `value = m * 2^(e - 52)` with `m` holding its leading one (f64 subnormals are far below
    // both formats' range, so reading them as if normal only decides between 0 and 0).
    let raw = value.to_bits();
    let e = ((raw >> 52) & 0x7ff) as i32 - 1023;
    let m = (raw & ((1u64 << 52) - 1)) | (1u64 << 52);
    let bias = (1i32 << (exponent_bits - 1)) - 1;
    let min_exponent = 1 - bias;
    // Quantum of the result: 2^(max(e, min_exponent) - significand_bits).
    let target_exponent = e.max(min_exponent);
    let shift = (52 - significand_bits as i32 + (target_exponent - e)) as u32;
    let rounded = if shift >= 64 {
        0
    } else {
        let kept = m >> shift;
        let rest = m & ((1u64 << shift) - 1);
        let halfway = 1u64 << (shift - 1);
        if rest > halfway || (rest == halfway && kept & 1 == 1) {
            kept + 1
        } else {
            kept
        }
    };
    // `rounded` carries the leading one (for normals), which lands in the exponent field as
    // its `+ 1`; a significand that rounds up to the next power of two carries into the
    // exponent the same way, and past the largest finite value into infinity.
    let biased = (target_exponent + bias - 1).max(0) as u64;
    let magnitude = (biased << significand_bits) + rounded;
    if magnitude >= infinity as u64 {
        sign | infinity
    } else {
        sign | magnitude as u16
    }
}

/// The exact value of a 16-bit float (1 sign bit, `exponent_bits`, the rest significand).
fn widen_16_to_f64(bits: u16, exponent_bits: u32) -> f64 {
    let significand_bits = 15 - exponent_bits;
    let negative = bits >> 15 == 1;
    let exponent = ((bits >> significand_bits) as u32 & mask(exponent_bits) as u32) as i32;
    let significand = (bits as u64) & mask(significand_bits) as u64;
    let bias = (1i32 << (exponent_bits - 1)) - 1;
    let magnitude = if exponent == mask(exponent_bits) as i32 {
        if significand == 0 {
            f64::INFINITY
        } else {
            f64::NAN
        }
    } else if exponent == 0 {
        significand as f64 * 2f64.powi(1 - bias - significand_bits as i32)
    } else {
        (significand | 1 << significand_bits) as f64
            * 2f64.powi(exponent - bias - significand_bits as i32)
    };
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spell(bits: u128, ty: ElemType) -> String {
        let mut s = String::new();
        write_literal(&mut s, bits, ty);
        s
    }

    #[test]
    fn every_f16_and_bf16_round_trips() {
        for ty in [ElemType::F16, ElemType::Bf16] {
            for raw in 0..=u16::MAX as u128 {
                let text = spell(raw, ty);
                assert_eq!(
                    literal_bits(&text, ty),
                    Ok(raw),
                    "{ty} {raw:#x} spelled {text}"
                );
                assert!(text.contains(['.', 'e', 'x']), "{text}");
            }
        }
    }

    /// Widening agrees with the `half` crate on every 16-bit pattern; rounding is checked
    /// exactly at every boundary: each finite pattern maps to itself, and at every midpoint
    /// between neighbours the f64 just below goes down, the one just above goes up and the
    /// midpoint itself goes to the even pattern (the largest finite value's upper neighbour
    /// being infinity). Every midpoint is exact in f64, so this is the whole of round to
    /// nearest even. (`half`'s own `from_f64` keeps only the high 32 bits of the f64 as its
    /// sticky bits, and so is not an oracle for rounding: 2^-25 * (1 + 2^-52) must give
    /// the smallest f16 subnormal, where it gives zero.)
    #[test]
    fn sixteen_bit_conversions_round_to_nearest_even() {
        use half::{bf16, f16};
        for exponent_bits in [F16_EXPONENT_BITS, BF16_EXPONENT_BITS] {
            let theirs = |bits: u16| match exponent_bits {
                F16_EXPONENT_BITS => f16::from_bits(bits).to_f64(),
                _ => bf16::from_bits(bits).to_f64(),
            };
            let infinity = (mask(exponent_bits) as u16) << (15 - exponent_bits);
            for bits in 0..=u16::MAX {
                let ours = widen_16_to_f64(bits, exponent_bits);
                let reference = theirs(bits);
                assert!(
                    ours.to_bits() == reference.to_bits() || (ours.is_nan() && reference.is_nan()),
                    "{bits:#06x}: {ours:e}, half gives {reference:e}"
                );
            }
            let round = |value: f64| round_f64_to_16(value, exponent_bits);
            assert_eq!(round(f64::INFINITY), infinity);
            assert_eq!(round(f64::NEG_INFINITY), infinity | 0x8000);
            assert!(widen_16_to_f64(round(f64::NAN), exponent_bits).is_nan());
            for bits in 0..infinity {
                let value = widen_16_to_f64(bits, exponent_bits);
                assert_eq!(round(value), bits, "{value:e}");
                assert_eq!(round(-value), bits | 0x8000, "{:e}", -value);
                let next = if bits + 1 == infinity {
                    // Where the next binade would start: the overflow threshold's other end.
                    2f64.powi(1 << (exponent_bits - 1))
                } else {
                    widen_16_to_f64(bits + 1, exponent_bits)
                };
                let mid = (value + next) / 2.0;
                let even = if bits % 2 == 0 { bits } else { bits + 1 };
                let cases = [
                    (f64::from_bits(mid.to_bits() - 1), bits),
                    (mid, even),
                    (f64::from_bits(mid.to_bits() + 1), bits + 1),
                ];
                for (input, expected) in cases {
                    assert_eq!(round(input), expected, "{input:e}");
                    assert_eq!(round(-input), expected | 0x8000, "{:e}", -input);
                }
            }
        }
    }

    /// The smallest f64 above half the smallest f16 subnormal rounds up to that subnormal; a
    /// converter that drops the low sticky bits (as `half`'s `from_f64` does) gives zero.
    #[test]
    fn just_above_a_tie_rounds_up() {
        let just_above = f64::from_bits(2f64.powi(-25).to_bits() + 1);
        assert_eq!(just_above.to_string(), "0.00000002980232238769532");
        assert_eq!(
            literal_bits("2.980232238769532e-8", ElemType::F16),
            Ok(0x0001)
        );
        assert_eq!(
            literal_bits("2.9802322387695312e-8", ElemType::F16),
            Ok(0x0000)
        );
    }

    #[test]
    fn float_spellings() {
        assert_eq!(spell(1.0f32.to_bits() as u128, ElemType::F32), "1.0");
        assert_eq!(spell((-0.0f64).to_bits() as u128, ElemType::F64), "-0.0");
        assert_eq!(spell(0x7fc0_0000, ElemType::F32), "0x7fc00000");
        assert_eq!(spell(0x3c00, ElemType::F16), "1.0");
        assert_eq!(spell(0x2e66, ElemType::F16), "0.1");
        assert_eq!(
            literal_bits("1e-3", ElemType::F32),
            Ok(1e-3f32.to_bits() as u128)
        );
        assert_eq!(literal_bits("-inf", ElemType::F32), Ok(0xff80_0000));
        assert!(literal_bits("1e39", ElemType::F32).is_err());
        assert!(literal_bits("70000", ElemType::F16).is_err());
    }

    #[test]
    fn integer_spellings() {
        assert_eq!(spell(0xff, ElemType::S8), "-1");
        assert_eq!(spell(0xff, ElemType::B8), "255");
        assert_eq!(literal_bits("0xff", ElemType::S8), Ok(0xff));
        assert_eq!(literal_bits("-128", ElemType::S8), Ok(0x80));
        assert!(literal_bits("128", ElemType::S8).is_err());
        assert!(literal_bits("1.5", ElemType::U32).is_err());
        assert!(literal_bits("1x", ElemType::U32).is_err());
        assert!(literal_bits("-0x1", ElemType::F32).is_err());
    }
}
