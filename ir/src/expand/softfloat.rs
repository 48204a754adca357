//! Soft-float legalization: float primitives a target cannot spell, rewritten into integer,
//! compare and select primitives with exactly the meaning [`crate::semantics`] gives them.
//!
//! - [`BinaryOp::FMin`]/[`BinaryOp::FMax`]: -0 < +0, one NaN gives the other operand, two NaNs
//!   give [`canonical_nan`] (hardware min/max differ on the last two). On a type whose target
//!   min/max is exact on every other pair ([`SoftFloatNeeds::exact_min_max`]) the target's
//!   [`BinaryOp::FMinAnyNan`]/[`BinaryOp::FMaxAnyNan`] plus one fix-up that turns its NaN into
//!   the canonical one; elsewhere integer compare and select on a total-order key of the bits.
//! - bf16 [`BinaryOp::FAdd`]/[`BinaryOp::FSub`] computed exactly in f32 and narrowed once to
//!   nearest even on the integer bits (innocuous double rounding: 24 >= 2 * 8 + 2), for targets
//!   without a bf16 conversion.
//!
//! Every rewritten primitive keeps its destination, so the rest of the expansion is untouched
//! and the validator and the interpreter check the result like any other expansion.

use super::{BinaryOp, CmpCond, Expansion, Prim, PrimType, UnaryOp, Var};
use crate::semantics::canonical_nan;
use crate::types::ElemType;

/// Which soft-float rewrites to run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SoftFloatNeeds {
    /// Float min/max rewritten: no [`BinaryOp::FMin`]/[`BinaryOp::FMax`] is left.
    pub min_max: bool,
    /// The float types whose target min/max is exact ([`BinaryOp::FMin`]/[`BinaryOp::FMax`],
    /// -0 < +0 and one NaN giving the other operand included) on every pair but two NaNs, so
    /// that [`BinaryOp::FMinAnyNan`]/[`BinaryOp::FMaxAnyNan`] plus a NaN fix-up are exact.
    /// Only a documented or measured instruction belongs here.
    pub exact_min_max: FloatTypes,
    /// bf16 add/sub as f32 arithmetic narrowed to bf16 on the integer bits.
    pub bf16_narrowing: bool,
}

/// A set of float register types.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FloatTypes {
    /// IEEE binary16.
    pub f16: bool,
    /// bfloat16.
    pub bf16: bool,
    /// IEEE binary32.
    pub f32: bool,
    /// IEEE binary64.
    pub f64: bool,
}

impl FloatTypes {
    /// No type.
    pub const NONE: FloatTypes = FloatTypes {
        f16: false,
        bf16: false,
        f32: false,
        f64: false,
    };

    /// Whether `ty` is in the set (never for a non-float type).
    pub const fn contains(self, ty: PrimType) -> bool {
        match ty {
            PrimType::F16 => self.f16,
            PrimType::Bf16 => self.bf16,
            PrimType::F32 => self.f32,
            PrimType::F64 => self.f64,
            _ => false,
        }
    }
}

impl SoftFloatNeeds {
    /// Whether the pass has anything to rewrite.
    pub const fn any(self) -> bool {
        self.min_max || self.bf16_narrowing
    }
}

/// The soft-float pass, with storage kept from one expansion to the next.
#[derive(Default)]
pub struct SoftFloat {
    prims: Vec<Prim>,
}

impl SoftFloat {
    /// A pass with empty buffers.
    pub fn new() -> Self {
        SoftFloat::default()
    }

    /// Rewrites every float primitive `needs` names; returns how many it rewrote.
    pub fn run(&mut self, expansion: &mut Expansion, needs: SoftFloatNeeds) -> usize {
        if !needs.any() {
            return 0;
        }
        let mut rewritten = 0;
        for index in 0..expansion.blocks.len() {
            let block = super::Block::from_u32(index as u32);
            let wanted = |prim: &Prim, vars: &cranelift_entity::PrimaryMap<Var, PrimType>| {
                rewrite_of(prim, vars, needs).is_some()
            };
            if !expansion.blocks[block]
                .prims
                .iter()
                .any(|p| wanted(p, &expansion.vars))
            {
                continue;
            }
            self.prims.clear();
            let original = std::mem::take(&mut expansion.blocks[block].prims);
            for prim in &original {
                match rewrite_of(prim, &expansion.vars, needs) {
                    Some(Rewrite::MinMax { dst, op, a, b, ty }) => {
                        let mut out = Out {
                            expansion: &mut *expansion,
                            prims: &mut self.prims,
                        };
                        if needs.exact_min_max.contains(ty) {
                            out.target_min_max(dst, op, a, b, ty);
                        } else {
                            out.min_max(dst, op, a, b, ty);
                        }
                        rewritten += 1;
                    }
                    Some(Rewrite::Bf16 { dst, op, a, b }) => {
                        let mut out = Out {
                            expansion: &mut *expansion,
                            prims: &mut self.prims,
                        };
                        out.bf16_arith(dst, op, a, b);
                        rewritten += 1;
                    }
                    None => self.prims.push(*prim),
                }
            }
            let mut prims = original;
            prims.clear();
            prims.extend_from_slice(&self.prims);
            expansion.blocks[block].prims = prims;
        }
        rewritten
    }
}

enum Rewrite {
    MinMax {
        dst: Var,
        op: BinaryOp,
        a: Var,
        b: Var,
        ty: PrimType,
    },
    Bf16 {
        dst: Var,
        op: BinaryOp,
        a: Var,
        b: Var,
    },
}

fn rewrite_of(
    prim: &Prim,
    vars: &cranelift_entity::PrimaryMap<Var, PrimType>,
    needs: SoftFloatNeeds,
) -> Option<Rewrite> {
    let Prim::Binary { dst, op, a, b } = *prim else {
        return None;
    };
    let ty = *vars.get(dst)?;
    match op {
        BinaryOp::FMin | BinaryOp::FMax if needs.min_max && ty.is_float() => {
            Some(Rewrite::MinMax { dst, op, a, b, ty })
        }
        BinaryOp::FAdd | BinaryOp::FSub if needs.bf16_narrowing && ty == PrimType::Bf16 => {
            Some(Rewrite::Bf16 { dst, op, a, b })
        }
        _ => None,
    }
}

/// The integer type of a float register type's bits, its element type and +infinity's bits.
fn float_layout(ty: PrimType) -> (PrimType, ElemType, u128) {
    let int = PrimType::int(ty.bits());
    match ty {
        PrimType::F16 => (int, ElemType::F16, 0x7c00),
        PrimType::Bf16 => (int, ElemType::Bf16, 0x7f80),
        PrimType::F32 => (int, ElemType::F32, 0x7f80_0000),
        _ => (int, ElemType::F64, 0x7ff0_0000_0000_0000),
    }
}

/// Appends primitives, defining fresh registers of the expansion.
struct Out<'a> {
    expansion: &'a mut Expansion,
    prims: &'a mut Vec<Prim>,
}

impl Out<'_> {
    fn var(&mut self, ty: PrimType) -> Var {
        self.expansion.vars.push(ty)
    }

    fn constant(&mut self, ty: PrimType, bits: u128) -> Var {
        let dst = self.var(ty);
        self.prims.push(Prim::Const { dst, bits });
        dst
    }

    fn unary(&mut self, op: UnaryOp, ty: PrimType, src: Var) -> Var {
        let dst = self.var(ty);
        self.prims.push(Prim::Unary { dst, op, src });
        dst
    }

    fn binary(&mut self, op: BinaryOp, ty: PrimType, a: Var, b: Var) -> Var {
        let dst = self.var(ty);
        self.prims.push(Prim::Binary { dst, op, a, b });
        dst
    }

    fn cmp(&mut self, cond: CmpCond, a: Var, b: Var) -> Var {
        let dst = self.var(PrimType::Pred);
        self.prims.push(Prim::Cmp { dst, cond, a, b });
        dst
    }

    fn select(&mut self, ty: PrimType, cond: Var, if_true: Var, if_false: Var) -> Var {
        let dst = self.var(ty);
        self.prims.push(Prim::Select {
            dst,
            cond,
            if_true,
            if_false,
        });
        dst
    }

    /// `dst = op(a, b)` for float min/max with the target's min/max, exact but for the NaN it
    /// gives for two NaNs, which becomes the canonical one (a NaN result means both were NaNs).
    fn target_min_max(&mut self, dst: Var, op: BinaryOp, a: Var, b: Var, ty: PrimType) {
        let (int, float, infinity) = float_layout(ty);
        let target_op = if op == BinaryOp::FMin {
            BinaryOp::FMinAnyNan
        } else {
            BinaryOp::FMaxAnyNan
        };
        let picked = self.binary(target_op, ty, a, b);
        let bits = self.unary(UnaryOp::Bitcast, int, picked);
        let magnitude_mask = self.constant(int, (1u128 << (ty.bits() - 1)) - 1);
        let infinity = self.constant(int, infinity);
        let magnitude = self.binary(BinaryOp::And, int, bits, magnitude_mask);
        let nan = self.cmp(CmpCond::Ugt, magnitude, infinity);
        let canonical = self.constant(int, canonical_nan(float).unwrap_or_default());
        let result = self.select(int, nan, canonical, bits);
        self.prims.push(Prim::Unary {
            dst,
            op: UnaryOp::Bitcast,
            src: result,
        });
    }

    /// `dst = op(a, b)` for float min/max, on the integer bits: each operand mapped to a key
    /// whose unsigned order is the float order with -0 < +0 (negatives inverted, positives
    /// with the sign bit set), NaNs picked out before the keys decide.
    fn min_max(&mut self, dst: Var, op: BinaryOp, a: Var, b: Var, ty: PrimType) {
        let bits = ty.bits();
        let (int, float, infinity) = float_layout(ty);
        let sign = 1u128 << (bits - 1);
        let magnitude_mask = self.constant(int, sign - 1);
        let infinity = self.constant(int, infinity);
        let top = self.constant(int, u128::from(bits - 1));
        let zero = self.constant(int, 0);
        let sign_bit = self.constant(int, sign);
        let mut ints = [a; 2];
        let mut nans = [a; 2];
        let mut keys = [a; 2];
        for (index, x) in [a, b].into_iter().enumerate() {
            let bits_of = self.unary(UnaryOp::Bitcast, int, x);
            let magnitude = self.binary(BinaryOp::And, int, bits_of, magnitude_mask);
            nans[index] = self.cmp(CmpCond::Ugt, magnitude, infinity);
            let negative = self.binary(BinaryOp::LShr, int, bits_of, top);
            let spread = self.binary(BinaryOp::Sub, int, zero, negative);
            let flip = self.binary(BinaryOp::Or, int, spread, sign_bit);
            keys[index] = self.binary(BinaryOp::Xor, int, bits_of, flip);
            ints[index] = bits_of;
        }
        let a_less = self.cmp(CmpCond::Ult, keys[0], keys[1]);
        let (first, second) = if op == BinaryOp::FMin {
            (ints[0], ints[1])
        } else {
            (ints[1], ints[0])
        };
        let ordered = self.select(int, a_less, first, second);
        let b_nan_gives_a = self.select(int, nans[1], ints[0], ordered);
        let a_nan_gives_b = self.select(int, nans[0], ints[1], b_nan_gives_a);
        let both = self.binary(BinaryOp::And, PrimType::Pred, nans[0], nans[1]);
        let canonical = self.constant(int, canonical_nan(float).unwrap_or_default());
        let result = self.select(int, both, canonical, a_nan_gives_b);
        self.prims.push(Prim::Unary {
            dst,
            op: UnaryOp::Bitcast,
            src: result,
        });
    }

    /// `dst = a op b` on bf16: both widened exactly to f32, the f32 result rounded to nearest
    /// even on its bits (a NaN keeps its top payload bits and is quieted).
    fn bf16_arith(&mut self, dst: Var, op: BinaryOp, a: Var, b: Var) {
        let sixteen = self.constant(PrimType::I32, 16);
        let mut wide = [a; 2];
        for (index, x) in [a, b].into_iter().enumerate() {
            let narrow = self.unary(UnaryOp::Bitcast, PrimType::I16, x);
            let extended = self.unary(UnaryOp::Zext, PrimType::I32, narrow);
            let shifted = self.binary(BinaryOp::Shl, PrimType::I32, extended, sixteen);
            wide[index] = self.unary(UnaryOp::Bitcast, PrimType::F32, shifted);
        }
        let exact = self.binary(op, PrimType::F32, wide[0], wide[1]);
        let word = self.unary(UnaryOp::Bitcast, PrimType::I32, exact);
        let magnitude_mask = self.constant(PrimType::I32, 0x7fff_ffff);
        let magnitude = self.binary(BinaryOp::And, PrimType::I32, word, magnitude_mask);
        let infinity = self.constant(PrimType::I32, 0x7f80_0000);
        let nan = self.cmp(CmpCond::Ugt, magnitude, infinity);
        let high = self.binary(BinaryOp::LShr, PrimType::I32, word, sixteen);
        let one = self.constant(PrimType::I32, 1);
        let lsb = self.binary(BinaryOp::And, PrimType::I32, high, one);
        let half = self.constant(PrimType::I32, 0x7fff);
        let bias = self.binary(BinaryOp::Add, PrimType::I32, lsb, half);
        let biased = self.binary(BinaryOp::Add, PrimType::I32, word, bias);
        let rounded = self.binary(BinaryOp::LShr, PrimType::I32, biased, sixteen);
        let quiet_bit = self.constant(PrimType::I32, 0x40);
        let quiet = self.binary(BinaryOp::Or, PrimType::I32, high, quiet_bit);
        let chosen = self.select(PrimType::I32, nan, quiet, rounded);
        let narrow = self.unary(UnaryOp::Trunc, PrimType::I16, chosen);
        self.prims.push(Prim::Unary {
            dst,
            op: UnaryOp::Bitcast,
            src: narrow,
        });
    }
}
