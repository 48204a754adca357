//! The expansion passes keep an expansion's meaning: every op and type, by every lowering,
//! passed and then validated and run in the interpreter against the reference semantics, with
//! another thread interfering, on the special values of each type.

mod expand_common;

use atomir_ir::expand::{
    expand, BinaryOp, Expansion, Prim, PrimType, Reuse, SoftFloat, SoftFloatNeeds, UnaryOp,
};
use atomir_ir::interp::{Interpreter, Memory};
use atomir_ir::{ElemType, Lowering, VectorShape};
use expand_common::{check, node, specials, supported_ops, Case, BASE, MEMORY_BYTES};

/// Every lowering a node of `ty` can be given.
fn lowerings(ty: ElemType) -> Vec<Lowering> {
    let mut list = vec![Lowering::Native, Lowering::CasLoop];
    if ty.bits() <= 16 && !ty.is_packed() {
        list.push(Lowering::MaskedCasLoop);
    }
    list
}

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
                    let element_lowerings = lowerings(ty);
                    let mut all = element_lowerings.clone();
                    if ty.bits() <= 16 && !ty.is_packed() {
                        all.push(Lowering::masked(op));
                        // A load of the containing word (vISA's 8-bit loads).
                        if op == atomir_ir::AtomicOp::Load {
                            all.push(Lowering::MaskedOp);
                        }
                    }
                    for element in all {
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
                            let offset = if ty.bits() < 32 {
                                (round as u64 % 2) * u64::from(ty.bytes())
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

#[test]
fn reuse_turns_the_exit_extraction_into_copies() {
    let inst = node(
        atomir_ir::AtomicOp::Add,
        ElemType::U8,
        VectorShape::Scalar,
        true,
    );
    let mut expansion = expand(&inst, Lowering::MaskedCasLoop);
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

#[test]
fn soft_float_keeps_every_expansion_meaning() {
    let mut soft = SoftFloat::new();
    let needs = SoftFloatNeeds {
        min_max: true,
        bf16_narrowing: true,
    };
    let mut rewritten = 0;
    let changed = prove_pass(|expansion| rewritten += soft.run(expansion, needs));
    // Not a vacuous pass: every float min/max and bf16 add/sub expansion is rewritten.
    assert!(rewritten > 50, "soft float rewrote {rewritten} primitives");
    assert!(
        changed > rewritten,
        "soft float changed {changed} primitives"
    );
}

#[test]
fn soft_float_leaves_no_float_min_max_or_bf16_arithmetic() {
    let needs = SoftFloatNeeds {
        min_max: true,
        bf16_narrowing: true,
    };
    for (op, ty) in [
        (atomir_ir::AtomicOp::Min, ElemType::F16),
        (atomir_ir::AtomicOp::Max, ElemType::F64),
        (atomir_ir::AtomicOp::Add, ElemType::Bf16),
    ] {
        let mut expansion = expand(&node(op, ty, VectorShape::Scalar, true), Lowering::CasLoop);
        SoftFloat::new().run(&mut expansion, needs);
        let float_left = expansion.blocks.values().flat_map(|b| &b.prims).any(|p| {
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
    }
}

/// Every 16-bit value against every special value, both ways round, through the soft-float
/// CAS loop in the interpreter: float min/max of f16 and bf16, bf16 add and sub.
#[test]
fn soft_float_is_exact_on_every_16_bit_value() {
    use atomir_ir::interp::Inputs;
    use atomir_ir::semantics::{apply, FloatMode};
    let needs = SoftFloatNeeds {
        min_max: true,
        bf16_narrowing: true,
    };
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
        let mut expansion = expand(&inst, Lowering::CasLoop);
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
