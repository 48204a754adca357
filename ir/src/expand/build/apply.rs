//! What an operation computes on the old value: the one place the CAS-loop expansions decide
//! what an operation means.

use super::Builder;
use crate::expand::{BinaryOp, CmpCond, PrimType, UnaryOp, Var};
use crate::types::{AtomicOp, ElemType, TypeClass};

/// Computes `op(old, operand[, new_value])` on the bit pattern `old` of type `ty`, returning the
/// new bit pattern (an integer of `ty`'s width). This is the one place where the CAS-loop
/// expansions decide what an operation means; [`crate::semantics`] is the specification it is
/// proven against.
pub(super) fn apply_op(
    b: &mut Builder,
    op: AtomicOp,
    ty: ElemType,
    old: Var,
    operand: Var,
    new_value: Option<Var>,
) -> Var {
    if ty.is_packed() && !op.is_move() {
        // Each 16-bit half is an independent element; exch and cas move and compare the whole
        // 32-bit pattern.
        let lane = ty.lane_type();
        let sixteen = b.constant(PrimType::I32, 16);
        let operand = b.bits_of(operand);
        let old_hi = b.binary(BinaryOp::LShr, old, sixteen);
        let operand_hi = b.binary(BinaryOp::LShr, operand, sixteen);
        let mut halves = [old; 2];
        for (half, (old_half, operand_half)) in [(old, operand), (old_hi, operand_hi)]
            .into_iter()
            .enumerate()
        {
            let old16 = b.unary(UnaryOp::Trunc, old_half, PrimType::I16);
            let operand16 = b.unary(UnaryOp::Trunc, operand_half, PrimType::I16);
            let operand_lane = b.unary(UnaryOp::Bitcast, operand16, PrimType::natural(lane));
            let new16 = apply_op(b, op, lane, old16, operand_lane, None);
            halves[half] = b.unary(UnaryOp::Zext, new16, PrimType::I32);
        }
        let hi = b.binary(BinaryOp::Shl, halves[1], sixteen);
        return b.binary(BinaryOp::Or, halves[0], hi);
    }

    let bits_ty = b.ty(old);
    match ty.class() {
        TypeClass::Float if !op.is_move() => {
            let float_ty = PrimType::natural(ty);
            let old_float = b.unary(UnaryOp::Bitcast, old, float_ty);
            let float_op = match op {
                AtomicOp::Add => BinaryOp::FAdd,
                AtomicOp::Sub => BinaryOp::FSub,
                // minimumNumber/maximumNumber are exactly atomir's float min/max, and
                // minimum/maximum are those unless a NaN is involved (below).
                AtomicOp::Min | AtomicOp::FMinimumNum | AtomicOp::FMinimum => BinaryOp::FMin,
                AtomicOp::Max | AtomicOp::FMaximumNum | AtomicOp::FMaximum => BinaryOp::FMax,
                other => unreachable!("verifier admits no float {other}"),
            };
            let new_float = b.binary(float_op, old_float, operand);
            let new_bits = b.bits_of(new_float);
            if !matches!(op, AtomicOp::FMinimum | AtomicOp::FMaximum) {
                return new_bits;
            }
            // minimum/maximum propagate NaNs: either operand a NaN (magnitude above infinity's
            // bits) gives the canonical quiet NaN.
            let operand_bits = b.bits_of(operand);
            let magnitude = b.constant(bits_ty, (1u128 << (ty.bits() - 1)) - 1);
            let infinity = b.constant(bits_ty, float_infinity_bits(ty));
            let old_magnitude = b.binary(BinaryOp::And, old, magnitude);
            let operand_magnitude = b.binary(BinaryOp::And, operand_bits, magnitude);
            let old_is_nan = b.cmp(CmpCond::Ugt, old_magnitude, infinity);
            let operand_is_nan = b.cmp(CmpCond::Ugt, operand_magnitude, infinity);
            let either_is_nan = b.binary(BinaryOp::Or, old_is_nan, operand_is_nan);
            let nan = b.constant(bits_ty, crate::semantics::canonical_nan(ty).unwrap_or(0));
            b.select(either_is_nan, nan, new_bits)
        }
        _ => {
            let value = b.bits_of(operand);
            let signed = ty.class() == TypeClass::Signed;
            match op {
                AtomicOp::Add => b.binary(BinaryOp::Add, old, value),
                AtomicOp::Sub => b.binary(BinaryOp::Sub, old, value),
                AtomicOp::And => b.binary(BinaryOp::And, old, value),
                AtomicOp::Or => b.binary(BinaryOp::Or, old, value),
                AtomicOp::Xor => b.binary(BinaryOp::Xor, old, value),
                AtomicOp::Nand => {
                    let and = b.binary(BinaryOp::And, old, value);
                    b.unary(UnaryOp::Not, and, bits_ty)
                }
                AtomicOp::Min if signed => b.binary(BinaryOp::SMin, old, value),
                AtomicOp::Max if signed => b.binary(BinaryOp::SMax, old, value),
                AtomicOp::Min => b.binary(BinaryOp::UMin, old, value),
                AtomicOp::Max => b.binary(BinaryOp::UMax, old, value),
                AtomicOp::Exch | AtomicOp::Store => value,
                AtomicOp::Load => old,
                AtomicOp::UsubCond | AtomicOp::UsubSat => {
                    // old >= b ? old - b : (usub_cond: old, usub_sat: 0)
                    let fits = b.cmp(CmpCond::Uge, old, value);
                    let difference = b.binary(BinaryOp::Sub, old, value);
                    let otherwise = if op == AtomicOp::UsubCond {
                        old
                    } else {
                        b.constant(bits_ty, 0)
                    };
                    b.select(fits, difference, otherwise)
                }
                AtomicOp::FMinimum
                | AtomicOp::FMaximum
                | AtomicOp::FMinimumNum
                | AtomicOp::FMaximumNum => unreachable!("verifier admits {op} on floats only"),
                AtomicOp::Inc => {
                    // old >= bound ? 0 : old + 1
                    let one = b.constant(bits_ty, 1);
                    let zero = b.constant(bits_ty, 0);
                    let wraps = b.cmp(CmpCond::Uge, old, value);
                    let next = b.binary(BinaryOp::Add, old, one);
                    b.select(wraps, zero, next)
                }
                AtomicOp::Dec => {
                    // (old == 0 || old > bound) ? bound : old - 1
                    let one = b.constant(bits_ty, 1);
                    let zero = b.constant(bits_ty, 0);
                    let is_zero = b.cmp(CmpCond::Eq, old, zero);
                    let above = b.cmp(CmpCond::Ugt, old, value);
                    let wraps = b.binary(BinaryOp::Or, is_zero, above);
                    let previous = b.binary(BinaryOp::Sub, old, one);
                    b.select(wraps, value, previous)
                }
                AtomicOp::Cas => {
                    let new_value = new_value.expect("cas has a new value");
                    let new_bits = b.bits_of(new_value);
                    let matches = b.cmp(CmpCond::Eq, old, value);
                    b.select(matches, new_bits, old)
                }
            }
        }
    }
}

/// The bits of +infinity of a scalar float type.
pub(super) const fn float_infinity_bits(ty: ElemType) -> u128 {
    match ty {
        ElemType::F16 => 0x7c00,
        ElemType::Bf16 => 0x7f80,
        ElemType::F32 => 0x7f80_0000,
        _ => 0x7ff0_0000_0000_0000,
    }
}
