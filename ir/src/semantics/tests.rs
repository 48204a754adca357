use super::*;
use AtomicOp::*;
use ElemType::*;
use FloatMode::*;

fn ap(op: AtomicOp, ty: ElemType, old: u128, operand: u128) -> u128 {
    apply(op, ty, old, operand, 0, Ieee)
}

#[test]
fn inc_bounds() {
    assert_eq!(ap(Inc, U32, 0, 5), 1);
    assert_eq!(ap(Inc, U32, 4, 5), 5);
    assert_eq!(ap(Inc, U32, 5, 5), 0);
    assert_eq!(ap(Inc, U32, 6, 5), 0);
    assert_eq!(ap(Inc, U32, 0xffff_ffff, 5), 0);
    assert_eq!(ap(Inc, U32, 0, 0), 0);
    assert_eq!(ap(Inc, U32, 7, 0), 0);
    assert_eq!(ap(Inc, U32, 0xffff_fffe, 0xffff_ffff), 0xffff_ffff);
    assert_eq!(ap(Inc, U32, 0xffff_ffff, 0xffff_ffff), 0);
    assert_eq!(ap(Inc, U8, 0xfe, 0xff), 0xff);
    assert_eq!(
        ap(Inc, U64, u64::MAX as u128 - 1, u64::MAX as u128),
        u64::MAX as u128
    );
    assert_eq!(ap(Inc, U64, u64::MAX as u128, u64::MAX as u128), 0);
}

#[test]
fn dec_bounds() {
    assert_eq!(ap(Dec, U32, 0, 5), 5);
    assert_eq!(ap(Dec, U32, 1, 5), 0);
    assert_eq!(ap(Dec, U32, 5, 5), 4);
    assert_eq!(ap(Dec, U32, 6, 5), 5);
    assert_eq!(ap(Dec, U32, 0xffff_ffff, 5), 5);
    assert_eq!(ap(Dec, U32, 0, 0), 0);
    assert_eq!(ap(Dec, U32, 3, 0), 0);
    assert_eq!(ap(Dec, U32, 0, 0xffff_ffff), 0xffff_ffff);
    assert_eq!(ap(Dec, U32, 0xffff_ffff, 0xffff_ffff), 0xffff_fffe);
    assert_eq!(ap(Dec, U16, 0, 0xffff), 0xffff);
    assert_eq!(ap(Dec, U64, 0, u64::MAX as u128), u64::MAX as u128);
}

#[test]
fn integer_wrap_and_signed_order() {
    let int_min_32 = 0x8000_0000u128;
    let int_max_32 = 0x7fff_ffffu128;
    assert_eq!(ap(Add, S32, int_max_32, 1), int_min_32);
    assert_eq!(ap(Sub, S32, int_min_32, 1), int_max_32);
    assert_eq!(ap(Add, U32, 0xffff_ffff, 1), 0);
    assert_eq!(ap(Sub, U8, 0, 1), 0xff);
    assert_eq!(ap(Min, S32, int_min_32, int_max_32), int_min_32);
    assert_eq!(ap(Max, S32, int_min_32, int_max_32), int_max_32);
    assert_eq!(ap(Min, S32, int_min_32, 0xffff_ffff), int_min_32);
    assert_eq!(ap(Max, S32, 0xffff_ffff, 0), 0);
    assert_eq!(ap(Min, U32, int_min_32, int_max_32), int_max_32);
    assert_eq!(ap(Max, U32, 0xffff_ffff, 0), 0xffff_ffff);
    let int_min_64 = 1u128 << 63;
    assert_eq!(ap(Min, S64, int_min_64, u64::MAX as u128), int_min_64);
    assert_eq!(ap(Max, S64, int_min_64, u64::MAX as u128), u64::MAX as u128);
    assert_eq!(ap(Add, S64, int_min_64 - 1, 1), int_min_64);
    assert_eq!(ap(Sub, S64, int_min_64, 1), int_min_64 - 1);
    assert_eq!(ap(Min, S8, 0x80, 0x7f), 0x80);
    assert_eq!(ap(Max, S8, 0x80, 0xff), 0xff);
    assert_eq!(ap(Min, S16, 0x8000, 0x0001), 0x8000);
}

#[test]
fn results_masked_to_width() {
    assert_eq!(ap(Nand, B32, 0, 0), 0xffff_ffff);
    assert_eq!(ap(Nand, U8, 0xf0, 0xff), 0x0f);
    assert_eq!(ap(Nand, B64, 0, 0), u64::MAX as u128);
    assert_eq!(ap(Xor, U16, 0xffff, 0x1_0000), 0xffff);
    // Bits above the width are ignored on input.
    assert_eq!(ap(Add, U8, 0x1ff, 0x101), 0);
    assert_eq!(ap(Exch, B128, 0, u128::MAX), u128::MAX);
    assert_eq!(apply(Cas, B128, u128::MAX, u128::MAX, 7, Ieee), 7);
    assert_eq!(ap(Exch, U8, 0, 0xabcd), 0xcd);
}

#[test]
fn cas_compares_bits() {
    // -0.0 and +0.0 are equal numbers but different bits.
    assert_eq!(
        apply(Cas, F32, 0x8000_0000, 0, 0x3f80_0000, Ieee),
        0x8000_0000
    );
    assert_eq!(apply(Cas, F32, 0, 0, 0x3f80_0000, Ieee), 0x3f80_0000);
    // A NaN matches an identical NaN.
    assert_eq!(apply(Cas, F32, 0x7fc0_0001, 0x7fc0_0001, 1, Ieee), 1);
    assert_eq!(
        apply(Cas, F32, 0x7fc0_0001, 0x7fc0_0000, 1, Ieee),
        0x7fc0_0001
    );
    // Packed: the whole 32-bit pattern is compared and swapped.
    assert_eq!(
        apply(Cas, F16x2, 0x3c00_0000, 0x3c00_8000, 5, Ieee),
        0x3c00_0000
    );
    assert_eq!(apply(Cas, F16x2, 0x3c00_8000, 0x3c00_8000, 5, Ieee), 5);
    assert_eq!(apply(Cas, U32, 3, 4, 5, Ieee), 3);
}

const F32_NEG_ZERO: u128 = 0x8000_0000;
const F32_ONE: u128 = 0x3f80_0000;
const F32_SNAN: u128 = 0x7f80_0001;
const F32_QNAN: u128 = 0x7fc0_1234;

#[test]
fn float_min_max_zeros_and_nans() {
    assert_eq!(ap(Min, F32, F32_NEG_ZERO, 0), F32_NEG_ZERO);
    assert_eq!(ap(Min, F32, 0, F32_NEG_ZERO), F32_NEG_ZERO);
    assert_eq!(ap(Max, F32, F32_NEG_ZERO, 0), 0);
    assert_eq!(ap(Max, F32, 0, F32_NEG_ZERO), 0);
    assert_eq!(ap(Min, F32, F32_QNAN, F32_ONE), F32_ONE);
    assert_eq!(ap(Min, F32, F32_ONE, F32_SNAN), F32_ONE);
    assert_eq!(ap(Max, F32, F32_SNAN, F32_NEG_ZERO), F32_NEG_ZERO);
    assert_eq!(ap(Min, F32, F32_QNAN, F32_SNAN), 0x7fc0_0000);
    assert_eq!(
        ap(Max, F64, 0x7ff8_0000_0000_0001, 0xfff0_0000_0000_0001),
        0x7ff8_0000_0000_0000
    );
    assert_eq!(ap(Max, F16, 0x7c01, 0xfe00), 0x7e00);
    assert_eq!(ap(Min, Bf16, 0xffc1, 0x7f81), 0x7fc0);
    // Ordering across signs and infinities.
    assert_eq!(ap(Min, F32, 0xff80_0000, 0x7f80_0000), 0xff80_0000);
    assert_eq!(ap(Max, F32, 0xbf80_0000, 0x3f80_0000), 0x3f80_0000);
    assert_eq!(ap(Min, F32, 0xbf80_0000, 0xc000_0000), 0xc000_0000);
    assert_eq!(ap(Max, F64, 0x8000_0000_0000_0000, 0), 0);
    assert_eq!(ap(Min, F16, 0x8000, 0x0000), 0x8000);
    assert_eq!(ap(Max, Bf16, 0x8000, 0x0000), 0x0000);
}

#[test]
fn subnormals_by_mode() {
    let smallest = 1u128; // f32 smallest positive subnormal
    let neg_smallest = 0x8000_0001u128;
    assert_eq!(ap(Add, F32, smallest, smallest), 2);
    assert_eq!(apply(Add, F32, smallest, smallest, 0, FlushSubnormals), 0);
    // Sign-preserving flush of inputs and result.
    assert_eq!(
        apply(Add, F32, neg_smallest, neg_smallest, 0, FlushSubnormals),
        F32_NEG_ZERO
    );
    assert_eq!(
        apply(Add, F32, neg_smallest, F32_ONE, 0, FlushSubnormals),
        F32_ONE
    );
    // A normal result that would be subnormal is flushed.
    let min_normal = 0x0080_0000u128;
    assert_eq!(ap(Sub, F32, min_normal + 1, min_normal), 1);
    assert_eq!(
        apply(Sub, F32, min_normal + 1, min_normal, 0, FlushSubnormals),
        0
    );
    assert_eq!(
        apply(Min, F32, neg_smallest, smallest, 0, FlushSubnormals),
        F32_NEG_ZERO
    );
    assert_eq!(ap(Min, F32, neg_smallest, smallest), neg_smallest);
    assert_eq!(ap(Add, F16, 1, 1), 2);
    assert_eq!(apply(Add, F16, 1, 1, 0, FlushSubnormals), 0);
    assert_eq!(ap(Add, F64, 1, 1), 2);
    // -0 + +0 = +0 in round to nearest; -0 + -0 = -0.
    assert_eq!(apply(Add, F64, 1 << 63 | 1, 0, 0, FlushSubnormals), 0);
    assert_eq!(
        apply(Add, F64, 1 << 63 | 1, 1 << 63, 0, FlushSubnormals),
        1 << 63
    );
    // Moves never interpret the bits.
    assert_eq!(apply(Exch, F32, 0, smallest, 0, FlushSubnormals), smallest);
    assert_eq!(
        apply(Cas, F32, smallest, smallest, neg_smallest, FlushSubnormals),
        neg_smallest
    );
}

#[test]
fn f16_bf16_rounding_ties_to_even() {
    // f16: 1.0 + 2^-11 is exactly halfway between 1.0 and 1.0 + 2^-10: ties to even (1.0).
    let f16_one = 0x3c00u128;
    let f16_half_ulp = 0x1000u128; // 2^-11
    assert_eq!(ap(Add, F16, f16_one, f16_half_ulp), f16_one);
    // 1.0 + 2^-10 (odd significand 1) + 2^-11: ties to even rounds up to 1.0 + 2^-9.
    assert_eq!(ap(Add, F16, 0x3c01, f16_half_ulp), 0x3c02);
    // Just above the tie rounds up.
    assert_eq!(ap(Add, F16, f16_one, 0x1001), 0x3c01);
    let bf16_one = 0x3f80u128;
    let bf16_half_ulp = 0x3b80u128; // 2^-8
    assert_eq!(ap(Add, Bf16, bf16_one, bf16_half_ulp), bf16_one);
    assert_eq!(ap(Add, Bf16, 0x3f81, bf16_half_ulp), 0x3f82);
    // Overflow rounds to infinity.
    assert_eq!(ap(Add, F16, 0x7bff, 0x7bff), 0x7c00);
    assert_eq!(ap(Sub, F16, 0xfbff, 0x7bff), 0xfc00);
    // Exact cancellation gives +0 in round to nearest.
    assert_eq!(ap(Sub, F16, f16_one, f16_one), 0);
    assert_eq!(ap(Sub, Bf16, bf16_one, bf16_one), 0);
}

/// f16 add done in f64 (exact for any two f16 values) and rounded by hand to nearest even.
fn f16_add_exact(a: u16, b: u16) -> u16 {
    let sum = f16::from_bits(a).to_f64() + f16::from_bits(b).to_f64();
    f16::from_f64(sum).to_bits()
}

#[test]
fn f16_add_matches_exact_rounding_on_a_grid() {
    for a in (0u16..=0xffff).step_by(97) {
        for b in (0u16..=0xffff).step_by(89) {
            let expected = f16_add_exact(a, b) as u128;
            let got = ap(Add, F16, a as u128, b as u128);
            assert!(
                same_value(F16, got, expected),
                "{a:#x} + {b:#x}: {got:#x} vs {expected:#x}"
            );
        }
    }
}

#[test]
fn packed_halves_are_independent() {
    // low lane: 1.0 + 1.0 = 2.0; high lane: 65504 + 65504 = inf.
    let old = 0x7bff_3c00u128;
    assert_eq!(ap(Add, F16x2, old, old), 0x7c00_4000);
    // A NaN in one lane leaves the other lane's min alone.
    let got = ap(Min, F16x2, 0x7e00_3c00, 0x4000_4000);
    assert_eq!(got, 0x4000_3c00);
    let got = ap(Max, Bf16x2, 0x3f80_ffc0, 0x4000_ffc1);
    assert_eq!(got, 0x4000_7fc0);
    // A carry out of the low lane does not reach the high lane.
    assert_eq!(ap(Add, Bf16x2, 0x0000_7f7f, 0x0000_7f7f), 0x0000_7f80);
    assert_eq!(
        apply(Add, F16x2, 0x0001_0001, 0x0001_0001, 0, FlushSubnormals),
        0
    );
    assert_eq!(ap(Add, F16x2, 0x0001_0001, 0x0001_0001), 0x0002_0002);
}

#[test]
fn vector_applies_per_element() {
    let got = apply_vector(Cas, U32, &[1, 2, 3], &[1, 0, 3], &[9, 9, 9], Ieee);
    assert_eq!(got.as_slice(), &[9, 2, 9]);
    let got = apply_vector(Add, U8, &[0xff, 1], &[1, 1], &[], Ieee);
    assert_eq!(got.as_slice(), &[0, 2]);
}

#[test]
fn same_value_compares_nans_by_class() {
    assert!(same_value(F32, 0x7fc0_0000, 0xffc0_0001));
    assert!(!same_value(F32, 0, F32_NEG_ZERO));
    assert!(same_value(F16x2, 0x7e00_3c00, 0x7c01_3c00));
    assert!(!same_value(F16x2, 0x7e00_3c00, 0x7e00_3c01));
    assert!(!same_value(U32, 0x7fc0_0000, 0xffc0_0001));
}

#[test]
// The expected values spell the definitions out, not the implementation's saturating_sub.
#[allow(clippy::implicit_saturating_sub)]
fn usub_cond_and_usub_sat_at_the_wrap_boundary() {
    // Subtracting down to zero, one past it, and the largest operand.
    assert_eq!(ap(UsubCond, U32, 5, 5), 0);
    assert_eq!(ap(UsubSat, U32, 5, 5), 0);
    assert_eq!(ap(UsubCond, U32, 5, 6), 5);
    assert_eq!(ap(UsubSat, U32, 5, 6), 0);
    assert_eq!(ap(UsubCond, U32, 0, 0), 0);
    assert_eq!(ap(UsubCond, U32, 0, 1), 0);
    assert_eq!(ap(UsubSat, U32, 0, 0xffff_ffff), 0);
    assert_eq!(ap(UsubCond, U32, 0xffff_ffff, 0xffff_ffff), 0);
    assert_eq!(ap(UsubCond, U32, 0xffff_fffe, 0xffff_ffff), 0xffff_fffe);
    assert_eq!(ap(UsubSat, U32, 0xffff_ffff, 1), 0xffff_fffe);
    // Unsigned, whatever the top bit: 0x80 is 128, not -128.
    assert_eq!(ap(UsubCond, U8, 0x80, 0x7f), 1);
    assert_eq!(ap(UsubSat, U8, 0x7f, 0x80), 0);
    assert_eq!(ap(UsubCond, U8, 0x7f, 0x80), 0x7f);
    assert_eq!(ap(UsubSat, U16, 0x1234, 0x0234), 0x1000);
    assert_eq!(ap(UsubCond, U64, u64::MAX as u128, 1), u64::MAX as u128 - 1);
    assert_eq!(ap(UsubSat, U64, 1, u64::MAX as u128), 0);
    // Bits above the width are ignored: 0x1_0005 is 5 as u16.
    assert_eq!(ap(UsubCond, U16, 0x1_0005, 6), 5);
    // Exhaustively on u8 against the definitions.
    for r in 0u128..256 {
        for v in 0u128..256 {
            assert_eq!(ap(UsubCond, U8, r, v), if r >= v { r - v } else { r });
            let saturated = if r >= v { r - v } else { 0 };
            assert_eq!(ap(UsubSat, U8, r, v), saturated);
        }
    }
}

const F32_INF: u128 = 0x7f80_0000;
const F32_NEG_INF: u128 = 0xff80_0000;
const F32_NEG_SNAN: u128 = 0xff80_0001;
const F32_CANONICAL: u128 = 0x7fc0_0000;

#[test]
fn fminimum_fmaximum_propagate_nans_as_the_canonical_nan() {
    for nan in [F32_QNAN, F32_SNAN, F32_NEG_SNAN, 0xffc0_0000, 0x7fff_ffff] {
        for other in [
            0,
            F32_NEG_ZERO,
            F32_ONE,
            F32_INF,
            F32_NEG_INF,
            nan,
            F32_QNAN,
        ] {
            for op in [FMinimum, FMaximum] {
                assert_eq!(
                    ap(op, F32, nan, other),
                    F32_CANONICAL,
                    "{op} {nan:#x} {other:#x}"
                );
                assert_eq!(
                    ap(op, F32, other, nan),
                    F32_CANONICAL,
                    "{op} {other:#x} {nan:#x}"
                );
            }
        }
    }
    // Each type's own canonical NaN.
    assert_eq!(ap(FMinimum, F16, 0x7c01, 0x3c00), 0x7e00);
    assert_eq!(ap(FMaximum, Bf16, 0x3f80, 0xff81), 0x7fc0);
    assert_eq!(
        ap(FMaximum, F64, 0x7ff0_0000_0000_0001, 0),
        0x7ff8_0000_0000_0000
    );
    // Signed zeros: -0 < +0, either order of operands.
    assert_eq!(ap(FMinimum, F32, 0, F32_NEG_ZERO), F32_NEG_ZERO);
    assert_eq!(ap(FMinimum, F32, F32_NEG_ZERO, 0), F32_NEG_ZERO);
    assert_eq!(ap(FMaximum, F32, F32_NEG_ZERO, 0), 0);
    assert_eq!(ap(FMaximum, F32, 0, F32_NEG_ZERO), 0);
    assert_eq!(ap(FMinimum, F16, 0x0000, 0x8000), 0x8000);
    assert_eq!(ap(FMaximum, Bf16, 0x8000, 0x0000), 0x0000);
    // Ordinary ordering, infinities included.
    assert_eq!(ap(FMinimum, F32, F32_NEG_INF, F32_INF), F32_NEG_INF);
    assert_eq!(ap(FMaximum, F32, 0xbf80_0000, F32_ONE), F32_ONE);
    assert_eq!(
        ap(FMinimum, F64, 0xc000_0000_0000_0000, 0xbff0_0000_0000_0000),
        0xc000_0000_0000_0000
    );
}

#[test]
fn fminimum_fmaximum_on_subnormals_by_mode() {
    let smallest = 1u128;
    let neg_smallest = 0x8000_0001u128;
    assert_eq!(ap(FMinimum, F32, neg_smallest, smallest), neg_smallest);
    assert_eq!(ap(FMaximum, F32, neg_smallest, smallest), smallest);
    // Flushed inputs are signed zeros, then -0 < +0 decides.
    assert_eq!(
        apply(FMinimum, F32, neg_smallest, smallest, 0, FlushSubnormals),
        F32_NEG_ZERO
    );
    assert_eq!(
        apply(FMaximum, F32, neg_smallest, smallest, 0, FlushSubnormals),
        0
    );
    // A NaN is still a NaN when subnormals are flushed.
    assert_eq!(
        apply(FMinimum, F32, smallest, F32_SNAN, 0, FlushSubnormals),
        F32_CANONICAL
    );
    assert_eq!(ap(FMaximum, F16, 0x0001, 0x8001), 0x0001);
}

#[test]
fn fminimumnum_fmaximumnum_ignore_one_nan_and_equal_min_max() {
    assert_eq!(ap(FMinimumNum, F32, F32_SNAN, F32_ONE), F32_ONE);
    assert_eq!(ap(FMaximumNum, F32, F32_NEG_ZERO, F32_QNAN), F32_NEG_ZERO);
    assert_eq!(ap(FMinimumNum, F32, F32_QNAN, F32_SNAN), F32_CANONICAL);
    assert_eq!(ap(FMinimumNum, F32, 0, F32_NEG_ZERO), F32_NEG_ZERO);
    assert_eq!(ap(FMaximumNum, F32, F32_NEG_ZERO, 0), 0);
    assert_eq!(ap(FMaximumNum, Bf16, 0xff81, 0xffc1), 0x7fc0);
    // minimumNumber is atomir's float min and maximumNumber its max, bit for bit, in both
    // modes: every f16 special against a grid of f16 values, and the same for bf16.
    let specials = [
        0u128, 0x8000, 0x0001, 0x8001, 0x03ff, 0x3c00, 0xbc00, 0x7bff, 0x7c00, 0xfc00, 0x7c01,
        0x7e00, 0xfe00, 0xffff,
    ];
    for ty in [F16, Bf16] {
        for a in specials
            .iter()
            .copied()
            .chain((0u128..=0xffff).step_by(251))
        {
            for b in specials
                .iter()
                .copied()
                .chain((0u128..=0xffff).step_by(241))
            {
                for mode in [Ieee, FlushSubnormals] {
                    assert_eq!(
                        apply(FMinimumNum, ty, a, b, 0, mode),
                        apply(Min, ty, a, b, 0, mode)
                    );
                    assert_eq!(
                        apply(FMaximumNum, ty, a, b, 0, mode),
                        apply(Max, ty, a, b, 0, mode)
                    );
                }
            }
        }
    }
    // And where no NaN is involved, minimum/maximum agree with them too.
    for a in (0u128..=0xffff).step_by(257) {
        for b in (0u128..=0xffff).step_by(263) {
            if !is_nan(F16, a) && !is_nan(F16, b) {
                assert_eq!(ap(FMinimum, F16, a, b), ap(Min, F16, a, b));
                assert_eq!(ap(FMaximum, F16, a, b), ap(Max, F16, a, b));
            }
        }
    }
}

#[test]
fn new_float_ops_act_per_lane_on_packed_types() {
    // Low lane: min(1.0, NaN); high lane: min(2.0, -0.0).
    let old = 0x4000_3c00u128;
    let operand = 0x8000_7e01u128;
    assert_eq!(ap(FMinimum, F16x2, old, operand), 0x8000_7e00);
    assert_eq!(ap(FMinimumNum, F16x2, old, operand), 0x8000_3c00);
    assert_eq!(ap(FMaximum, Bf16x2, 0x3f80_ffc1, 0x4000_3f80), 0x4000_7fc0);
    assert_eq!(
        ap(FMaximumNum, Bf16x2, 0x3f80_ffc1, 0x4000_3f80),
        0x4000_3f80
    );
}

#[test]
fn loads_read_and_stores_write_every_bit() {
    for ty in ElemType::ALL {
        let mask = width_mask(ty.bits());
        for (memory, value) in [
            (0x7fc0_0001u128, 0xdead_beefu128),
            (u128::MAX, 0),
            (F32_SNAN, 0x8000),
        ] {
            // A load leaves memory as it was (the result is the old value itself).
            assert_eq!(
                apply(Load, *ty, memory, value, 0, FlushSubnormals),
                memory & mask,
                "{ty}"
            );
            // A store writes the operand's bits, NaN payloads and subnormals untouched.
            assert_eq!(
                apply(Store, *ty, memory, value, 0, FlushSubnormals),
                value & mask,
                "{ty}"
            );
        }
    }
    let got = apply_vector(Store, F32, &[1, 2], &[F32_SNAN, 1], &[], FlushSubnormals);
    assert_eq!(got.as_slice(), &[F32_SNAN, 1]);
    let got = apply_vector(Load, U8, &[0xff, 1], &[0, 0], &[], Ieee);
    assert_eq!(got.as_slice(), &[0xff, 1]);
}

#[test]
fn unsupported_combinations_do_not_panic() {
    for op in AtomicOp::ALL {
        for ty in ElemType::ALL {
            let _ = apply(*op, *ty, u128::MAX, u128::MAX, u128::MAX, FlushSubnormals);
            let _ = apply(*op, *ty, 0, 0, 0, Ieee);
        }
    }
    assert_eq!(ap(And, F32, 0xffff_ffff, 0x3f80_0000), 0x3f80_0000);
}

#[test]
fn laxity_sets_of_results() {
    use crate::types::FloatLaxity::{Ieee2008MinMax, MayFlushSubnormals};
    let smallest = 1u128;
    let ftz = Some(MayFlushSubnormals);
    // Exact add keeps the subnormal sum; the flushing one may give zero, nothing else.
    assert!(allows(Add, F32, None, smallest, smallest, 0, Ieee, 2));
    assert!(!allows(Add, F32, None, smallest, smallest, 0, Ieee, 0));
    assert!(allows(Add, F32, ftz, smallest, smallest, 0, Ieee, 2));
    assert!(allows(Add, F32, ftz, smallest, smallest, 0, Ieee, 0));
    assert!(!allows(Add, F32, ftz, smallest, smallest, 0, Ieee, 1));
    // A laxity the op does not have adds nothing.
    assert!(!allows(Max, F32, ftz, smallest, smallest, 0, Ieee, 0));

    let loose = Some(Ieee2008MinMax);
    let (quiet, other_nan) = (F32_QNAN, F32_QNAN | 5);
    // Two NaNs: exact max gives the canonical NaN only, the 2008 max any NaN.
    assert!(allows(
        Max,
        F32,
        None,
        quiet,
        other_nan,
        0,
        Ieee,
        0x7fc0_0000
    ));
    assert!(!allows(
        Max, F32, None, quiet, other_nan, 0, Ieee, other_nan
    ));
    assert!(allows(
        Max, F32, loose, quiet, other_nan, 0, Ieee, other_nan
    ));
    assert!(!allows(Max, F32, loose, quiet, other_nan, 0, Ieee, F32_ONE));
    // One quiet NaN is ignored either way; a signalling one may give a NaN under 2008 rules.
    assert!(!allows(Max, F32, loose, quiet, F32_ONE, 0, Ieee, other_nan));
    assert!(allows(
        Max, F32, loose, F32_SNAN, F32_ONE, 0, Ieee, other_nan
    ));
    assert!(!allows(
        Max, F32, None, F32_SNAN, F32_ONE, 0, Ieee, other_nan
    ));
    // -0 and +0 unordered under 2008 rules only.
    let negative_zero = 0x8000_0000;
    assert!(!allows(
        Max,
        F32,
        None,
        negative_zero,
        0,
        0,
        Ieee,
        negative_zero
    ));
    assert!(allows(
        Max,
        F32,
        loose,
        negative_zero,
        0,
        0,
        Ieee,
        negative_zero
    ));
    assert!(allows(Min, F32, loose, negative_zero, 0, 0, Ieee, 0));
    // Packed: lane by lane (bf16x2 lanes: a two-NaN lane and an ordinary one).
    let lanes = |high: u128, low: u128| high << 16 | low;
    let (bf_one, bf_nan) = (0x3f80, 0x7fc1);
    let got = lanes(0x7fc5, bf_one);
    assert!(allows(
        Max,
        Bf16x2,
        loose,
        lanes(bf_nan, bf_one),
        lanes(0x7fc3, 0),
        0,
        Ieee,
        got
    ));
    assert!(!allows(
        Max,
        Bf16x2,
        None,
        lanes(bf_nan, bf_one),
        lanes(0x7fc3, 0),
        0,
        Ieee,
        got
    ));
}
