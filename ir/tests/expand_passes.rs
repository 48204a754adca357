//! The expansion passes keep an expansion's meaning: every op and type, by every lowering,
//! passed and then validated and run in the interpreter against the reference semantics, with
//! another thread interfering, on the special values of each type.

mod expand_common;

use atomir_ir::expand::{
    expand, BinaryOp, Expansion, FloatTypes, Prim, PrimType, Reuse, SoftFloat, SoftFloatNeeds,
    UnaryOp,
};
use atomir_ir::interp::{Interpreter, Memory};
use atomir_ir::{ElemType, ElementLowering, Lowering, VectorShape};
use expand_common::{
    check, element_lowerings, node, specials, supported_ops, Case, BASE, MEMORY_BYTES,
};

/// Runs `pass` over every expansion, proves each passed one, and returns how many primitives
/// the pass changed in all.
fn prove_pass(mut pass: impl FnMut(&mut Expansion)) -> usize {
    let mut interp = Interpreter::new();
    let mut memory = Memory::new(BASE, MEMORY_BYTES);
    let mut changed = 0;
    for &ty in ElemType::ALL.iter().filter(|ty| ty.bits() <= 64) {
        for op in supported_ops(ty) {
            for shape in [VectorShape::Scalar, VectorShape::V2] {
                for result_used in [true, false] {
                    let inst = node(op, ty, shape, result_used);
                    for element in element_lowerings(op, ty) {
                        let lowering = Lowering::per_element(element, shape);
                        let original = expand(&inst, lowering);
                        let mut passed = original.clone();
                        pass(&mut passed);
                        changed += count_changes(&original, &passed);
                        if let Err(error) = passed.validate(&inst) {
                            panic!("{op} {ty} {lowering:?}: {error}\n{passed}");
                        }
                        let values = specials(ty);
                        for (round, window) in values.windows(3).enumerate() {
                            let lanes = shape.len();
                            let pick = |k: usize| window[k % window.len()];
                            let old: Vec<u128> = (0..lanes).map(pick).collect();
                            let operands: Vec<u128> = (0..lanes).map(|e| pick(e + 1)).collect();
                            let new_values: Vec<u128> = if op == atomir_ir::AtomicOp::Cas {
                                (0..lanes).map(|e| pick(e + 2)).collect()
                            } else {
                                Vec::new()
                            };
                            // The node is aligned to its whole size.
                            let offset = if ty.bits() < 32 {
                                (round as u64 % 2) * u64::from(ty.bytes()) * lanes as u64
                            } else {
                                0
                            };
                            check(
                                &mut interp,
                                &mut memory,
                                &Case {
                                    inst: &inst,
                                    expansion: &passed,
                                    offset,
                                    old: &old,
                                    operands: &operands,
                                    new_values: &new_values,
                                    seed: round as u64 * 77 + 5,
                                    interference: (round % 3) as u32,
                                },
                            );
                        }
                    }
                }
            }
        }
    }
    changed
}

/// Primitives that differ between two expansions of the same node, plus the added ones.
fn count_changes(before: &Expansion, after: &Expansion) -> usize {
    let prims =
        |e: &Expansion| -> Vec<Prim> { e.blocks.values().flat_map(|b| b.prims.clone()).collect() };
    let (a, b) = (prims(before), prims(after));
    a.iter().zip(&b).filter(|(x, y)| x != y).count() + a.len().abs_diff(b.len())
}

#[test]
fn reuse_keeps_every_expansion_meaning() {
    let mut reuse = Reuse::new();
    let changed = prove_pass(|expansion| reuse.run(expansion));
    // Not a vacuous pass: every masked CAS loop's exit reuses the old element's extraction.
    assert!(changed > 100, "reuse changed {changed} primitives");
}

/// A v4.u8 fills its word, whose old elements the exit takes apart (a narrower node's leave the
/// loop with it instead).
#[test]
fn reuse_turns_the_exit_extraction_into_copies() {
    let inst = node(
        atomir_ir::AtomicOp::Add,
        ElemType::U8,
        VectorShape::V4,
        true,
    );
    let mut expansion = expand(&inst, ElementLowering::MaskedCasLoop.into());
    Reuse::new().run(&mut expansion);
    let exit = expansion.blocks.values().last().expect("an exit block");
    assert!(
        exit.prims.iter().any(|p| matches!(
            p,
            Prim::Unary {
                op: UnaryOp::Copy,
                ..
            }
        )),
        "{expansion}"
    );
}

/// Every float type's target min/max trusted: the interpreter gives a non-canonical NaN for two
/// NaNs, so only a fix-up that catches it passes.
const EVERY_FLOAT: FloatTypes = FloatTypes {
    f16: true,
    bf16: true,
    f32: true,
    f64: true,
};

/// The soft-float needs the tests run: integer keys everywhere, then the target's min/max with
/// the NaN fix-up everywhere.
fn soft_float_variants() -> [SoftFloatNeeds; 2] {
    let keys = SoftFloatNeeds {
        min_max: true,
        bf16_narrowing: true,
        ..SoftFloatNeeds::default()
    };
    let target = SoftFloatNeeds {
        exact_min_max: EVERY_FLOAT,
        ..keys
    };
    [keys, target]
}

#[test]
fn soft_float_keeps_every_expansion_meaning() {
    for needs in soft_float_variants() {
        let mut soft = SoftFloat::new();
        let mut rewritten = 0;
        let changed = prove_pass(|expansion| rewritten += soft.run(expansion, needs));
        // Not a vacuous pass: every float min/max and bf16 add/sub expansion is rewritten.
        assert!(rewritten > 50, "soft float rewrote {rewritten} primitives");
        assert!(
            changed > rewritten,
            "soft float changed {changed} primitives"
        );
    }
}

#[test]
fn soft_float_leaves_no_float_min_max_or_bf16_arithmetic() {
    for needs in soft_float_variants() {
        for (op, ty) in [
            (atomir_ir::AtomicOp::Min, ElemType::F16),
            (atomir_ir::AtomicOp::Max, ElemType::F64),
            (atomir_ir::AtomicOp::FMaximum, ElemType::F32),
            (atomir_ir::AtomicOp::Add, ElemType::Bf16),
        ] {
            let mut expansion = expand(
                &node(op, ty, VectorShape::Scalar, true),
                ElementLowering::CasLoop.into(),
            );
            SoftFloat::new().run(&mut expansion, needs);
            let prims = || expansion.blocks.values().flat_map(|b| &b.prims);
            let float_left = prims().any(|p| {
                matches!(
                    p,
                    Prim::Binary {
                        op: BinaryOp::FMin | BinaryOp::FMax,
                        ..
                    }
                ) || matches!(p, Prim::Binary { dst, op: BinaryOp::FAdd | BinaryOp::FSub, .. }
                    if expansion.vars[*dst] == PrimType::Bf16)
            });
            assert!(!float_left, "{op} {ty}:\n{expansion}");
            let target_ops = prims()
                .filter(|p| {
                    matches!(
                        p,
                        Prim::Binary {
                            op: BinaryOp::FMinAnyNan | BinaryOp::FMaxAnyNan,
                            ..
                        }
                    )
                })
                .count();
            let wanted = usize::from(op != atomir_ir::AtomicOp::Add && needs.exact_min_max.f16);
            assert_eq!(target_ops, wanted, "{op} {ty}:\n{expansion}");
        }
    }
}

/// Every STRIDE-th 16-bit value: coprime with every power of two, so the sample walks through
/// each exponent and each low significand bit.
const STRIDE: usize = 2503;

/// The target min/max body (`FMinAnyNan`/`FMaxAnyNan` and its NaN fix-up) in the interpreter,
/// f16 and bf16, min, max, fminimum and fmaximum: every memory value against every operand of
/// a sample that holds each sign, each exponent and every NaN kind (quiet, signalling, each
/// payload bit), memory and result checked against the semantics.
#[test]
fn target_min_max_is_exact_on_16_bit_values() {
    use atomir_ir::interp::Inputs;
    use atomir_ir::semantics::{apply, FloatMode};
    let needs = soft_float_variants()[1];
    let mut interp = Interpreter::new();
    let mut memory = Memory::new(BASE, MEMORY_BYTES);
    for ty in [ElemType::F16, ElemType::Bf16] {
        for op in [
            atomir_ir::AtomicOp::Min,
            atomir_ir::AtomicOp::Max,
            atomir_ir::AtomicOp::FMinimum,
            atomir_ir::AtomicOp::FMaximum,
        ] {
            let inst = node(op, ty, VectorShape::Scalar, true);
            let mut expansion = expand(&inst, ElementLowering::CasLoop.into());
            assert!(SoftFloat::new().run(&mut expansion, needs) > 0, "{op} {ty}");
            expansion
                .validate(&inst)
                .unwrap_or_else(|e| panic!("{op} {ty}: {e}"));
            let mut operands: Vec<u16> = (0..=u16::MAX).step_by(STRIDE).collect();
            let nan_kinds = (0..10).flat_map(|bit| {
                let payload = 1u16 << bit;
                let exponent = if ty == ElemType::F16 { 0x7c00 } else { 0x7f80 };
                [exponent | payload, 0x8000 | exponent | payload]
            });
            operands.extend(nan_kinds.filter(|b| atomir_ir::semantics::is_nan(ty, u128::from(*b))));
            operands.extend(specials(ty).into_iter().map(|b| b as u16));
            for &operand in &operands {
                for old in 0..=u16::MAX {
                    let (old, operand) = (u128::from(old), u128::from(operand));
                    memory.write(BASE, 2, old).expect("in memory");
                    let inputs = Inputs {
                        addr: BASE,
                        operands: &[operand],
                        new_values: &[],
                    };
                    let outcome = interp
                        .run(&expansion, &mut memory, inputs)
                        .unwrap_or_else(|e| panic!("{op} {ty}: {e}"));
                    let expected = apply(op, ty, old, operand, 0, FloatMode::Ieee);
                    let stored = memory.read(BASE, 2).expect("in memory");
                    assert!(
                        stored == expected && outcome.results.as_slice() == [old],
                        "{op} {ty} old {old:#x} operand {operand:#x}: stored {stored:#x}, \
                         expected {expected:#x}"
                    );
                }
            }
        }
    }
}

/// Every 16-bit value against every special value, both ways round, through the soft-float
/// CAS loop in the interpreter: float min/max of f16 and bf16, bf16 add and sub.
#[test]
fn soft_float_is_exact_on_every_16_bit_value() {
    use atomir_ir::interp::Inputs;
    use atomir_ir::semantics::{apply, FloatMode};
    let needs = soft_float_variants()[0];
    let cases = [
        (atomir_ir::AtomicOp::Min, ElemType::F16),
        (atomir_ir::AtomicOp::Max, ElemType::F16),
        (atomir_ir::AtomicOp::Min, ElemType::Bf16),
        (atomir_ir::AtomicOp::Max, ElemType::Bf16),
        (atomir_ir::AtomicOp::Add, ElemType::Bf16),
        (atomir_ir::AtomicOp::Sub, ElemType::Bf16),
    ];
    let mut interp = Interpreter::new();
    let mut memory = Memory::new(BASE, MEMORY_BYTES);
    for (op, ty) in cases {
        let inst = node(op, ty, VectorShape::Scalar, true);
        let mut expansion = expand(&inst, ElementLowering::CasLoop.into());
        assert!(SoftFloat::new().run(&mut expansion, needs) > 0, "{op} {ty}");
        expansion
            .validate(&inst)
            .unwrap_or_else(|e| panic!("{op} {ty}: {e}"));
        let specials = specials(ty);
        for every in 0..=u16::MAX {
            for &special in &specials {
                for (old, operand) in [(u128::from(every), special), (special, u128::from(every))] {
                    memory.write(BASE, 2, old).expect("in memory");
                    let inputs = Inputs {
                        addr: BASE,
                        operands: &[operand],
                        new_values: &[],
                    };
                    let outcome = interp
                        .run(&expansion, &mut memory, inputs)
                        .unwrap_or_else(|e| panic!("{op} {ty}: {e}"));
                    let expected = apply(op, ty, old, operand, 0, FloatMode::Ieee);
                    let stored = memory.read(BASE, 2).expect("in memory");
                    assert_eq!(
                        (stored, outcome.results.as_slice()),
                        (expected, &[old][..]),
                        "{op} {ty} old {old:#x} operand {operand:#x}"
                    );
                }
            }
        }
    }
}
