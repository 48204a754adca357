//! Float min/max by integer atomics (`ElementLowering::IntMinMax`): the conditions proven by a
//! direct model on every memory value of the 16-bit float layouts against sampled operands (on
//! every pair by the bench binary `prove_int_min_max`, whose run is recorded), and the expansion
//! itself run in the interpreter against the semantics, with another thread changing memory before
//! the integer atomic and before every CAS, at every order and scope.

mod expand_common;

use atomir_ir::expand::{mem_attrs, Prim};
use atomir_ir::interp::{Interpreter, Memory};
use atomir_ir::semantics::{apply, is_nan, width_mask, FloatMode};
use atomir_ir::{
    AtomicNode, AtomicOp, ElemType, ElementLowering, Lowering, MemoryOrder, Scope, VectorShape,
};
use expand_common::{check, expand_valid, node, specials, Case, XorShift, BASE, MEMORY_BYTES};

mod int_min_max_model;

use int_min_max_model::{integer_step, left_in_place, prove_parallel, Counts, OPS, TYPES_16};

/// The number of NaNs of one sign in a 16-bit layout: every pattern with the exponent all ones
/// but infinity.
fn nans_of_one_sign(ty: ElemType) -> u64 {
    (0..0x8000u128).filter(|&x| is_nan(ty, x)).count() as u64
}

/// The model's conditions on every memory value against a stride of operands with every special
/// one, for f16 and bf16 and each op; every pair is counted where the layout says it goes. The
/// same proof on all 2^32 pairs of each is the bench binary `prove_int_min_max`, whose run is
/// recorded in `bench/results/`.
#[test]
fn conditions_hold_on_every_memory_value_and_sampled_operands() {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
    for ty in TYPES_16 {
        let mut operands: Vec<u128> = (0..=0xffffu128).step_by(257).collect();
        operands.extend(specials(ty));
        let nan_operands = operands.iter().filter(|&&b| is_nan(ty, b)).count() as u64;
        let others = operands.len() as u64 - nan_operands;
        for op in OPS {
            let counts =
                prove_parallel(op, ty, &operands, threads).unwrap_or_else(|e| panic!("{e}"));
            // Each pair where the layout says: a NaN operand to the loop, the NaN of the op's
            // direction left in place, every other pair by the integer op.
            let want = Counts {
                nan_operand: nan_operands * 0x1_0000,
                left_for_the_loop: others * nans_of_one_sign(ty),
                by_integer_op: others * (0x1_0000 - nans_of_one_sign(ty)),
            };
            assert_eq!(counts, want, "{op} {ty}");
            assert!(nan_operands > 0 && others > 200, "{ty}: {operands:?}");
        }
    }
}

/// fminimum/fmaximum cannot use the trick: some memory NaN is replaced by the operand, which
/// the semantics turn into the canonical NaN instead (so the model must find a counterexample).
#[test]
fn nan_propagating_ops_would_break() {
    let ty = ElemType::F32;
    let negative_nan = 0xffc0_0001u128;
    let b = 0x3f80_0000u128; // 1.0
    let stored = integer_step(AtomicOp::FMaximumNum, ty, negative_nan, b).unwrap();
    assert!(!left_in_place(true, ty, negative_nan));
    assert_ne!(
        stored,
        apply(AtomicOp::FMaximum, ty, negative_nan, b, 0, FloatMode::Ieee)
    );
}

/// A value of `ty`'s width: half the time a special one, else random bits (of which a NaN now
/// and then, both signs).
fn value(rng: &mut XorShift, ty: ElemType, specials: &[u128]) -> u128 {
    let r = rng.next();
    if r & 1 == 0 {
        specials[(r >> 1) as usize % specials.len()]
    } else {
        u128::from(rng.next()) & width_mask(ty.bits())
    }
}

/// The expansion in the interpreter: f16, bf16, f32 and f64, scalar and v2, used and unused
/// results, every order and scope, against the semantics, with interference before the integer
/// atomic and every CAS.
#[test]
fn expansion_agrees_with_the_semantics_under_interference() {
    let mut interp = Interpreter::new();
    interp.interfere_before_rmw = true;
    let mut memory = Memory::new(BASE, MEMORY_BYTES);
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let (mut runs, mut interfered, mut retries) = (0u64, 0u64, 0u64);
    for ty in [ElemType::F16, ElemType::Bf16, ElemType::F32, ElemType::F64] {
        let specials = specials(ty);
        for op in OPS {
            for shape in [VectorShape::Scalar, VectorShape::V2] {
                for result_used in [true, false] {
                    for &order in MemoryOrder::ALL {
                        for &scope in Scope::ALL {
                            let inst = AtomicNode {
                                order,
                                scope,
                                ..node(op, ty, shape, result_used)
                            };
                            let lowering = Lowering::per_element(ElementLowering::IntMinMax, shape);
                            let expansion = expand_valid(&inst, lowering);
                            // The integer atomic carries the node's order, scope, space and
                            // hint, unchanged.
                            let rmws: Vec<_> = expansion
                                .memory_prims()
                                .filter_map(|p| match p {
                                    Prim::Rmw { mem, .. } => Some(*mem),
                                    _ => None,
                                })
                                .collect();
                            assert_eq!(rmws.len(), 2 * shape.len(), "{op} {ty}");
                            assert!(rmws.iter().all(|mem| *mem == mem_attrs(&inst)));
                            for round in 0..24 {
                                let lanes = shape.len();
                                let old: Vec<u128> =
                                    (0..lanes).map(|_| value(&mut rng, ty, &specials)).collect();
                                let operands: Vec<u128> =
                                    (0..lanes).map(|_| value(&mut rng, ty, &specials)).collect();
                                let checked = check(
                                    &mut interp,
                                    &mut memory,
                                    &Case {
                                        inst: &inst,
                                        expansion: &expansion,
                                        offset: 0,
                                        old: &old,
                                        operands: &operands,
                                        new_values: &[],
                                        seed: rng.next(),
                                        interference: round % 4,
                                    },
                                );
                                runs += 1;
                                interfered += u64::from(checked.interfered);
                                retries += u64::from(checked.cas_failures);
                            }
                        }
                    }
                }
            }
        }
    }
    // Not vacuous: other threads did change memory, and CAS loops did retry.
    assert!(runs > 10_000, "{runs} runs");
    assert!(interfered > 5_000, "{interfered} disturbances");
    assert!(retries > 100, "{retries} CAS retries");
}

/// Every 16-bit memory value against every special operand and a stride of all operands,
/// through the f16 and bf16 expansions themselves (the model above covers every pair).
#[test]
fn expansion_agrees_on_every_16_bit_memory_value() {
    use atomir_ir::interp::Inputs;
    let mut interp = Interpreter::new();
    let mut memory = Memory::new(BASE, MEMORY_BYTES);
    for ty in [ElemType::F16, ElemType::Bf16] {
        let mut operands: Vec<u128> = (0..=0xffffu128).step_by(1021).collect();
        operands.extend(specials(ty));
        for op in [AtomicOp::Min, AtomicOp::Max] {
            let inst = node(op, ty, VectorShape::Scalar, true);
            let expansion = expand_valid(&inst, ElementLowering::IntMinMax);
            for &b in &operands {
                for old in 0..=0xffffu128 {
                    memory.write(BASE, 2, old).expect("in memory");
                    let outcome = interp
                        .run(
                            &expansion,
                            &mut memory,
                            Inputs {
                                addr: BASE,
                                operands: &[b],
                                new_values: &[],
                            },
                        )
                        .unwrap_or_else(|e| panic!("{op} {ty}: {e}"));
                    let want = apply(op, ty, old, b, 0, FloatMode::Ieee);
                    let stored = memory.read(BASE, 2).expect("in memory");
                    assert!(
                        stored == want && outcome.results.as_slice() == [old],
                        "{op} {ty} old {old:#x} b {b:#x}: stored {stored:#x}, want {want:#x}"
                    );
                }
            }
        }
    }
}
