//! Float min/max by integer atomics (`Lowering::IntMinMax`): the conditions proven on every
//! (memory, operand) pair of the 16-bit float layouts by a direct model, and the expansion
//! itself run in the interpreter against the semantics, with another thread changing memory
//! before the integer atomic and before every CAS, at every order and scope.

mod expand_common;

use atomir_ir::expand::{mem_attrs, Prim};
use atomir_ir::interp::{Interpreter, Memory};
use atomir_ir::semantics::{apply, is_nan, width_mask, FloatMode};
use atomir_ir::{AtomicNode, AtomicOp, ElemType, Lowering, MemoryOrder, Scope, VectorShape};
use expand_common::{check, expand_valid, node, specials, Case, XorShift, BASE, MEMORY_BYTES};

/// The ops the trick serves: the NaN-ignoring float min/max under both spellings.
const OPS: [AtomicOp; 4] = [
    AtomicOp::Min,
    AtomicOp::Max,
    AtomicOp::FMinimumNum,
    AtomicOp::FMaximumNum,
];

/// What the integer atomic does to `old` with operand `b` (both `bits` wide), as the expansion
/// chooses it: `None` for a NaN operand (straight to the CAS loop).
fn integer_step(want_max: bool, ty: ElemType, old: u128, b: u128) -> Option<u128> {
    let bits = ty.bits();
    if is_nan(ty, b) {
        return None;
    }
    let sign = 1u128 << (bits - 1);
    let signed = |x: u128| ((x << (128 - bits)) as i128) >> (128 - bits);
    let negative = b & sign != 0;
    Some(match (want_max, negative) {
        (true, false) => {
            if signed(old) >= signed(b) {
                old
            } else {
                b
            }
        }
        (true, true) => old.min(b),
        (false, false) => {
            if signed(old) <= signed(b) {
                old
            } else {
                b
            }
        }
        (false, true) => old.max(b),
    })
}

/// The NaN the integer op leaves in place, read from the old value alone (positive for max,
/// negative for min), as the expansion tests it.
fn left_in_place(want_max: bool, ty: ElemType, old: u128) -> bool {
    let sign = 1u128 << (ty.bits() - 1);
    is_nan(ty, old) && ((old & sign == 0) == want_max)
}

/// Every (memory, operand) pair of a 16-bit layout: where the integer op is taken and memory
/// holds no NaN left in place, it stores exactly what the semantics store; where memory holds
/// one, the integer op left memory unchanged (so the CAS loop that follows starts from a read).
fn prove_every_pair(ty: ElemType, want_max: bool) -> (u64, u64) {
    let op = if want_max {
        AtomicOp::Max
    } else {
        AtomicOp::Min
    };
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(2)) as u32;
    let chunk = 0x1_0000 / threads;
    let results: Vec<(u64, u64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let (mut by_int, mut fallbacks) = (0u64, 0u64);
                    for b in t * chunk..(t + 1) * chunk {
                        let b = u128::from(b);
                        for old in 0..=0xffffu128 {
                            let Some(stored) = integer_step(want_max, ty, old, b) else {
                                continue;
                            };
                            if left_in_place(want_max, ty, old) {
                                assert_eq!(
                                    stored, old,
                                    "{op} {ty} old {old:#x} b {b:#x}: changed memory"
                                );
                                fallbacks += 1;
                            } else {
                                let want = apply(op, ty, old, b, 0, FloatMode::Ieee);
                                assert_eq!(stored, want, "{op} {ty} old {old:#x} b {b:#x}");
                                by_int += 1;
                            }
                        }
                    }
                    (by_int, fallbacks)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    results
        .into_iter()
        .fold((0, 0), |(a, b), (c, d)| (a + c, b + d))
}

/// The f16 layout (bf16 is the same argument with another exponent width; the interpreter test
/// below runs its expansion on every memory value). 2^33 pairs: about a minute in a release
/// build, so it runs with `cargo test --release -p atomir-ir --test expand_int_min_max --
/// --ignored`.
#[test]
#[ignore = "2^33 pairs: run in a release build with --ignored"]
fn conditions_hold_on_every_16_bit_pair() {
    for ty in [ElemType::F16] {
        for want_max in [true, false] {
            let (by_int, fallbacks) = prove_every_pair(ty, want_max);
            // Every non-NaN operand (about 97% of the 2^16) against every memory value.
            assert!(
                by_int > 4_000_000_000,
                "{ty}: {by_int} pairs by the integer op"
            );
            assert!(fallbacks > 1_000_000, "{ty}: {fallbacks} fallbacks");
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
    let stored = integer_step(true, ty, negative_nan, b).unwrap();
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
                            let lowering = Lowering::per_element(Lowering::IntMinMax, shape);
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
            let expansion = expand_valid(&inst, Lowering::IntMinMax);
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
