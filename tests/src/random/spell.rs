//! Varied text spellings of a built kernel: literals in every form, omitted default
//! qualifiers, comments and odd spacing.

use std::fmt::Write as _;

use half::{bf16, f16};

use super::Rng;
use atomir_ir::semantics::width_mask;
use atomir_ir::{
    AddressSpace, ElemType, InstData, Kernel, MemoryOrder, Operand, Scalar, Scope, TypeClass, Value,
};

// ---- literals ----------------------------------------------------------------------------------

/// A literal of element type `ty`: its bits and one spelling of them the parser accepts.
pub fn literal(rng: &mut Rng, ty: ElemType) -> (u128, String) {
    let bits = ty.bits();
    let mask = width_mask(bits);
    match ty.class() {
        TypeClass::Unsigned | TypeClass::Signed | TypeClass::Bits => {
            let value = match rng.below(8) {
                0 => 0,
                1 => 1,
                2 => mask,
                3 => 1u128 << (bits - 1),
                4 => mask >> 1,
                5 => rng.below(300) as u128 & mask,
                _ => rng.wide() & mask,
            };
            (value, int_spelling(rng, value, ty))
        }
        TypeClass::PackedFloat => {
            let lane = ty.lane_type();
            let low = float_value(rng, lane).0;
            let high = float_value(rng, lane).0;
            let value = low | (high << 16);
            (value, hex_spelling(rng, value, bits, false))
        }
        TypeClass::Float => float_value(rng, ty),
    }
}

pub(super) fn hex_spelling(rng: &mut Rng, value: u128, bits: u32, negative: bool) -> String {
    let mut digits = if rng.percent(50) {
        format!("{value:x}")
    } else {
        format!("{value:X}")
    };
    if rng.percent(30) {
        let width = (bits / 4) as usize;
        while digits.len() < width {
            digits.insert(0, '0');
        }
    }
    let prefix = if rng.percent(80) { "0x" } else { "0X" };
    format!("{}{prefix}{digits}", if negative { "-" } else { "" })
}

pub(super) fn int_spelling(rng: &mut Rng, value: u128, ty: ElemType) -> String {
    let bits = ty.bits();
    let sign_bit = 1u128 << (bits - 1);
    let negative_magnitude = value.wrapping_neg() & width_mask(bits);
    let can_be_negative = value & sign_bit != 0 && ty.class() != TypeClass::Unsigned;
    match rng.below(4) {
        // Raw bits in hex: valid for every integer class.
        0 => hex_spelling(rng, value, bits, false),
        // A negative hex magnitude, where the class allows a negative literal.
        1 if can_be_negative && negative_magnitude != 0 => {
            hex_spelling(rng, negative_magnitude, bits, true)
        }
        _ if ty.class() == TypeClass::Signed && can_be_negative => {
            format!("-{negative_magnitude}")
        }
        2 if can_be_negative && ty.class() == TypeClass::Bits => format!("-{negative_magnitude}"),
        _ => format!("{value}"),
    }
}

/// Decimal spellings whose bits come from the same conversions the parser documents: f32 parses
/// directly (correctly rounded), f16/bf16/f64 through f64.
pub(super) const FLOAT_DECIMALS: &[&str] = &[
    "0.0",
    "-0.0",
    "1.0",
    "-1.5",
    "0.1",
    "1e-3",
    "1E+2",
    "2.5e-40",
    "1.0e-45",
    "-3.4028235e38",
    "6.1e-5",
    "5.96e-8",
    "65504.0",
    "1e-310",
    "5e-324",
    "123456789.125",
    "0.333",
    "7",
    "-8",
    "1e0",
    "9.2E-41",
];

pub(super) fn decimal_bits(text: &str, ty: ElemType) -> Option<u128> {
    let bits = match ty {
        ElemType::F32 => u128::from(text.parse::<f32>().ok()?.to_bits()),
        ElemType::F16 => u128::from(f16::from_f64(text.parse().ok()?).to_bits()),
        ElemType::Bf16 => u128::from(bf16::from_f64(text.parse().ok()?).to_bits()),
        _ => u128::from(text.parse::<f64>().ok()?.to_bits()),
    };
    let (inf, _) = float_specials(ty);
    // A decimal that overflows is an error in the text form.
    (bits & !(1u128 << (ty.bits() - 1)) != inf).then_some(bits)
}

/// (positive infinity, canonical quiet NaN) of a scalar float type.
pub(super) fn float_specials(ty: ElemType) -> (u128, u128) {
    match ty {
        ElemType::F16 => (0x7c00, 0x7e00),
        ElemType::Bf16 => (0x7f80, 0x7fc0),
        ElemType::F32 => (0x7f80_0000, 0x7fc0_0000),
        _ => (0x7ff0_0000_0000_0000, 0x7ff8_0000_0000_0000),
    }
}

/// The shortest decimal Rust gives for the value of `bits` (exact for every f16/bf16/f32/f64),
/// when it spells a finite number.
pub(super) fn shortest_decimal(bits: u128, ty: ElemType) -> Option<String> {
    let text = match ty {
        ElemType::F32 => format!("{:?}", f32::from_bits(bits as u32)),
        ElemType::F16 => format!("{:?}", f16::from_bits(bits as u16).to_f64()),
        ElemType::Bf16 => format!("{:?}", bf16::from_bits(bits as u16).to_f64()),
        _ => format!("{:?}", f64::from_bits(bits as u64)),
    };
    (decimal_bits(&text, ty) == Some(bits)).then_some(text)
}

/// A scalar float literal: specials (±0, ±inf, NaNs quiet and signalling with payloads,
/// subnormals, extremes), decimals, or random bits; spelled as decimal, `inf`/`nan` or hex bits.
pub(super) fn float_value(rng: &mut Rng, ty: ElemType) -> (u128, String) {
    let bits = ty.bits();
    let sign = 1u128 << (bits - 1);
    let (inf, qnan) = float_specials(ty);
    match rng.below(6) {
        0 => {
            let text = *rng.pick(FLOAT_DECIMALS);
            let value = decimal_bits(text, ty).unwrap_or(0);
            let text = if decimal_bits(text, ty).is_some() {
                text.to_string()
            } else {
                "0.0".into()
            };
            (value, text)
        }
        1 => {
            let negative = rng.percent(50);
            let value = inf | if negative { sign } else { 0 };
            let text = if rng.percent(70) {
                (if negative { "-inf" } else { "inf" }).to_string()
            } else {
                hex_spelling(rng, value, bits, false)
            };
            (value, text)
        }
        2 => {
            let negative = rng.percent(30);
            let value = qnan | if negative { sign } else { 0 };
            let text = if rng.percent(70) {
                (if negative { "-nan" } else { "nan" }).to_string()
            } else {
                hex_spelling(rng, value, bits, false)
            };
            (value, text)
        }
        3 => {
            // NaNs with payloads (signalling when the quiet bit is clear) and subnormals.
            let payload = (rng.wide() & (qnan - inf - 1)) | 1;
            let significand = (inf & inf.wrapping_neg()) - 1;
            let value = match rng.below(3) {
                0 => inf | payload,
                1 => qnan | payload,
                _ => (rng.wide() & significand) | 1,
            } | if rng.percent(50) { sign } else { 0 };
            (value, hex_spelling(rng, value, bits, false))
        }
        _ => {
            let value = rng.wide() & width_mask(bits);
            let text = match shortest_decimal(value, ty) {
                Some(text) if rng.percent(60) => text,
                _ => hex_spelling(rng, value, bits, false),
            };
            (value, text)
        }
    }
}

// ---- the varied text ----------------------------------------------------------------------------

pub(super) fn name_of(kernel: &Kernel, value: Value) -> &str {
    kernel.value_name(value)
}

/// Writes `kernel` with the given literal spellings (in creation order), omitting default
/// qualifiers at random, with comments, blank lines and odd spacing.
pub(super) fn write_varied(rng: &mut Rng, kernel: &Kernel, spellings: &[String], out: &mut String) {
    if rng.percent(30) {
        out.push_str("# generated\n\n");
    }
    let _ = write!(out, "kernel {}(", kernel.name);
    for (index, param) in kernel.params.iter().enumerate() {
        if index > 0 {
            out.push_str(if rng.percent(20) { ",\n    " } else { ", " });
        }
        let _ = write!(out, "%{}: {}", name_of(kernel, param.value), param.ty);
    }
    out.push_str(if rng.percent(20) { ")\n{\n" } else { ") {\n" });
    let mut next_literal = 0;
    for inst in kernel.insts.values() {
        out.push_str(if rng.percent(10) { "\t" } else { "  " });
        let inst = match inst {
            InstData::Atomic(inst) => inst,
            InstData::Fence(fence) => {
                let _ = write!(out, "fence.{}", fence.order);
                if !(rng.percent(40) && fence.scope == Scope::Device) {
                    let _ = write!(out, ".{}", fence.scope);
                }
                out.push('\n');
                continue;
            }
        };
        if let Some(predicate) = inst.predicate {
            let bang = if predicate.negated { "!" } else { "" };
            let _ = write!(out, "@{bang}%{} ", name_of(kernel, predicate.value));
        }
        if let Some(result) = inst.result {
            let _ = write!(out, "%{} = ", name_of(kernel, result));
        }
        let _ = write!(out, "atomic.{}", inst.op);
        let omit = rng.percent(40);
        if !(omit && inst.order == MemoryOrder::Relaxed) {
            let _ = write!(out, ".{}", inst.order);
        }
        if !(omit && inst.scope == Scope::Device) {
            let _ = write!(out, ".{}", inst.scope);
        }
        if !(omit && inst.space == AddressSpace::Generic) {
            let _ = write!(out, ".{}", inst.space);
        }
        if inst.shape.is_vector() {
            let _ = write!(out, ".{}", inst.shape);
        }
        let _ = write!(out, ".{}", inst.ty);
        if let Some(hint) = inst.hint {
            let _ = write!(out, ".{hint}");
        }
        let _ = write!(out, " [%{}]", name_of(kernel, inst.addr));
        if let Some(operand) = inst.operand {
            out.push_str(", ");
            write_operand(out, kernel, operand, spellings, &mut next_literal);
        }
        if let Some(new_value) = inst.new_value {
            out.push_str(if rng.percent(20) { " , " } else { ", " });
            write_operand(out, kernel, new_value, spellings, &mut next_literal);
        }
        if rng.percent(10) {
            out.push_str("   # a comment");
        }
        out.push('\n');
        if rng.percent(5) {
            out.push('\n');
        }
    }
    out.push_str("}\n\n");
}

pub(super) fn write_operand(
    out: &mut String,
    kernel: &Kernel,
    operand: Operand,
    spellings: &[String],
    next_literal: &mut usize,
) {
    let mut scalar = |out: &mut String, scalar: Scalar| match scalar {
        Scalar::Value(value) => {
            let _ = write!(out, "%{}", name_of(kernel, value));
        }
        Scalar::Const(_) => {
            out.push_str(&spellings[*next_literal]);
            *next_literal += 1;
        }
    };
    match operand {
        Operand::Scalar(s) => scalar(out, s),
        Operand::Vector(list) => {
            out.push('{');
            for (index, &element) in kernel.vector_elements(list).iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                scalar(out, element);
            }
            out.push('}');
        }
    }
}
