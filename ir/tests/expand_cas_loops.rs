//! Property proofs of the CAS-loop, 16-bit part-word and split expansions against the reference
//! semantics, with and without another thread disturbing the CAS. Float values are drawn half
//! from the edges (NaN, ±0, ±inf, subnormals, extremes, ties) and half at random. Results are
//! compared bit for bit: the interpreter computes float ops with the reference functions, so
//! even NaN payloads must agree.

mod expand_common;

use atomir_ir::expand::{skips_unchanged, Prim};
use atomir_ir::interp::{CasSite, Interpreter, Memory};
use atomir_ir::semantics::{self, width_mask, FloatMode};
use atomir_ir::{
    AtomicNode, AtomicOp, ElemType, ElementLowering, Lowering, MemoryOrder, VectorShape,
};
use expand_common::{
    check, check_with, expand_valid, node, specials, supported_ops, Case, BASE, MEMORY_BYTES,
    WORD_OFFSET,
};
use proptest::prelude::*;
use proptest::sample::select;

/// Every (op, type) pair of the given widths.
fn combos(widths: &[u32]) -> Vec<(AtomicOp, ElemType)> {
    ElemType::ALL
        .iter()
        .filter(|ty| widths.contains(&ty.bits()))
        .flat_map(|&ty| supported_ops(ty).into_iter().map(move |op| (op, ty)))
        .collect()
}

/// A value of `ty`: an edge value or random bits, chosen by `pick`.
fn value(ty: ElemType, pick: (bool, usize, u128)) -> u128 {
    let (edge, index, random) = pick;
    let specials = specials(ty);
    if edge {
        specials[index % specials.len()]
    } else {
        random & width_mask(ty.bits())
    }
}

fn pick() -> impl Strategy<Value = (bool, usize, u128)> {
    (any::<bool>(), any::<usize>(), any::<u128>())
}

fn picks() -> impl Strategy<Value = Vec<(bool, usize, u128)>> {
    prop::collection::vec(pick(), 8)
}

struct Run {
    op: AtomicOp,
    ty: ElemType,
    shape: VectorShape,
    lowering: Lowering,
    offset: u64,
    result_used: bool,
    interference: u32,
    /// The node's order, where the op admits it (else the one [`node`] picks).
    order: MemoryOrder,
}

/// [`node`] with `order` where the op admits it.
fn ordered_node(
    op: AtomicOp,
    ty: ElemType,
    shape: VectorShape,
    result_used: bool,
    order: MemoryOrder,
) -> AtomicNode {
    let node = node(op, ty, shape, result_used);
    if op.admits_order(order) {
        AtomicNode { order, ..node }
    } else {
        node
    }
}

/// Whether `inst` by `lowering` is the cas of one element inside its word whose compare, when it
/// fails, leaves on the failed CAS (release, acq_rel and seq_cst; a relaxed or acquire loop
/// leaves before any CAS).
fn leaves_on_failed_compare(inst: &AtomicNode, lowering: Lowering) -> bool {
    inst.op == AtomicOp::Cas
        && inst.shape == VectorShape::Scalar
        && lowering.element() == ElementLowering::MaskedCasLoop
        && !skips_unchanged(inst.op, inst.order)
}

/// Checks one run; a loop must retry exactly once per disturbance.
fn prove(
    run: &Run,
    old: &[(bool, usize, u128)],
    operands: &[(bool, usize, u128)],
    new: &[(bool, usize, u128)],
    seed: u64,
) {
    let inst = ordered_node(run.op, run.ty, run.shape, run.result_used, run.order);
    let expansion = expand_valid(&inst, run.lowering);
    let elements = run.shape.len();
    let values = |picks: &[(bool, usize, u128)]| -> Vec<u128> {
        picks
            .iter()
            .take(elements)
            .map(|&p| value(run.ty, p))
            .collect()
    };
    let old = values(old);
    let mut operands = values(operands);
    let new_values = if run.op == AtomicOp::Cas {
        values(new)
    } else {
        Vec::new()
    };
    if run.op == AtomicOp::Cas && seed & 1 == 0 {
        // Half of the cas runs expect the value that is there.
        operands.copy_from_slice(&old);
    }
    let mut interp = Interpreter::new();
    let mut memory = Memory::new(BASE, MEMORY_BYTES);
    let checked = check(
        &mut interp,
        &mut memory,
        &Case {
            inst: &inst,
            expansion: &expansion,
            offset: run.offset,
            old: &old,
            operands: &operands,
            new_values: &new_values,
            seed,
            interference: run.interference,
        },
    );
    if leaves_on_failed_compare(&inst, run.lowering) {
        // Every retry follows a disturbance, and only the last CAS may fail without one: the
        // one whose compare failed, after which the loop leaves.
        assert!(
            checked.cas_attempts <= checked.interfered + 1
                && checked.cas_failures + 1 >= checked.cas_attempts,
            "{} {}: {checked:?}",
            run.op,
            run.ty
        );
    } else if expansion.has_loop() {
        // Every disturbance makes exactly one CAS of the loop fail and retry.
        assert_eq!(
            checked.cas_failures, checked.interfered,
            "{} {}",
            run.op, run.ty
        );
        // A relaxed or acquire loop whose op changes nothing leaves before its first CAS, where
        // no disturbance can come.
        let attempted = checked.cas_attempts > 0 || !skips_unchanged(inst.op, inst.order);
        if run.interference > 0 && attempted {
            assert!(
                checked.interfered > 0,
                "{} {}: no retry exercised",
                run.op,
                run.ty
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// 8/16/32/64-bit CAS loops for every op and type, floats and packed floats included.
    #[test]
    fn cas_loop_every_op_and_type(
        (op, ty) in select(combos(&[8, 16, 32, 64])),
        old in picks(), operands in picks(), new in picks(),
        interference in 0u32..4, result_used in any::<bool>(), seed in any::<u64>(),
        order in select(MemoryOrder::ALL),
    ) {
        let run = Run {
            op, ty, shape: VectorShape::Scalar,
            lowering: Lowering::whole(ElementLowering::CasLoop),
            offset: 0, result_used, interference, order,
        };
        prove(&run, &old, &operands, &new, seed);
    }

    /// 16-bit elements inside a 32-bit word, at both halves, with the masked CAS loop and the
    /// widened RMW.
    #[test]
    fn part_word_16_bit(
        (op, ty) in select(combos(&[16])),
        high_half in any::<bool>(), widened in any::<bool>(),
        old in picks(), operands in picks(), new in picks(),
        interference in 0u32..4, result_used in any::<bool>(), seed in any::<u64>(),
        order in select(MemoryOrder::ALL),
    ) {
        let lowering = if widened { ElementLowering::masked(op) } else { ElementLowering::MaskedCasLoop };
        let run = Run {
            op, ty, shape: VectorShape::Scalar,
            lowering: Lowering::whole(lowering),
            offset: if high_half { 2 } else { 0 }, result_used, interference, order,
        };
        prove(&run, &old, &operands, &new, seed);
    }

    /// 8-bit elements with interference on the element byte and its neighbours.
    #[test]
    fn part_word_8_bit_interfered(
        (op, ty) in select(combos(&[8])),
        offset in 0u64..4,
        old in picks(), operands in picks(), new in picks(),
        interference in 1u32..5, seed in any::<u64>(), order in select(MemoryOrder::ALL),
    ) {
        let run = Run {
            op, ty, shape: VectorShape::Scalar,
            lowering: Lowering::whole(ElementLowering::MaskedCasLoop),
            offset, result_used: true, interference, order,
        };
        prove(&run, &old, &operands, &new, seed);
    }

    /// An 8/16-bit element's CAS on its own width that turns into the masked loop on its word
    /// once a CAS fails, at every place in the word, with up to four disturbances: each retry
    /// follows one, and results and memory are the reference semantics'.
    #[test]
    fn cas_then_masked_loop_8_and_16_bit(
        (op, ty) in select(combos(&[8, 16])),
        slot in 0u64..4,
        old in picks(), operands in picks(), new in picks(),
        interference in 0u32..5, result_used in any::<bool>(), seed in any::<u64>(),
        order in select(MemoryOrder::ALL),
    ) {
        let run = Run {
            op, ty, shape: VectorShape::Scalar,
            lowering: Lowering::whole(ElementLowering::CasThenMaskedLoop),
            offset: (slot * u64::from(ty.bytes())) % 4, result_used, interference, order,
        };
        prove(&run, &old, &operands, &new, seed);
    }

    /// v2/v4/v8 split into native, CAS-loop or part-word elements.
    #[test]
    fn split_vectors(
        (op, ty) in select(combos(&[8, 16, 32, 64])),
        shape in select(vec![VectorShape::V2, VectorShape::V4, VectorShape::V8]),
        element_kind in 0u8..3, element_offset in 0u64..4,
        old in picks(), operands in picks(), new in picks(),
        interference in 0u32..6, result_used in any::<bool>(), seed in any::<u64>(),
        order in select(MemoryOrder::ALL),
    ) {
        let element = match element_kind {
            0 => ElementLowering::Native,
            1 => ElementLowering::CasLoop,
            _ if ty.bits() <= 16 && seed & 3 == 0 => ElementLowering::MaskedCasLoop,
            _ if ty.bits() <= 16 => ElementLowering::masked(op),
            _ => ElementLowering::CasLoop,
        };
        // The vector is aligned to its whole size.
        let offset = (element_offset * u64::from(ty.bytes()) * shape.len() as u64) % 16;
        let run = Run {
            op, ty, shape,
            lowering: Lowering::per_element(element, shape),
            offset, result_used, interference, order,
        };
        prove(&run, &old, &operands, &new, seed);
    }

    /// v2/v4/v8 of 8/16-bit elements by one masked CAS loop (or widened op) per word, at every
    /// place of a 16-byte window the vector's alignment allows, with up to five disturbances of
    /// the words' bytes, this node's elements included.
    #[test]
    fn part_word_vectors(
        (op, ty) in select(combos(&[8, 16])),
        shape in select(vec![VectorShape::V2, VectorShape::V4, VectorShape::V8]),
        widened in any::<bool>(), slot in 0u64..8,
        old in picks(), operands in picks(), new in picks(),
        interference in 0u32..6, result_used in any::<bool>(), seed in any::<u64>(),
        order in select(MemoryOrder::ALL),
    ) {
        let element = if widened { ElementLowering::masked(op) } else { ElementLowering::MaskedCasLoop };
        let whole = shape.len() as u64 * u64::from(ty.bytes());
        let run = Run {
            op, ty, shape,
            lowering: Lowering::per_element(element, shape),
            offset: (slot * whole) % 16, result_used, interference, order,
        };
        prove(&run, &old, &operands, &new, seed);
    }
}

/// The retry path, pinned: another thread changes the value before each of the first three
/// CAS attempts; the loop must retry three times and store op(last value it saw, operand).
/// seq_cst, so that every attempt writes (a relaxed or acquire loop may leave without one).
#[test]
fn interference_forces_retries_and_lands_on_the_interfered_value() {
    for (op, ty) in combos(&[16, 32, 64]) {
        let inst = ordered_node(op, ty, VectorShape::Scalar, true, MemoryOrder::SeqCst);
        let expansion = expand_valid(&inst, ElementLowering::CasLoop);
        let specials = specials(ty);
        let mut interp = Interpreter::new();
        let mut memory = Memory::new(BASE, MEMORY_BYTES);
        for (index, &old) in specials.iter().enumerate() {
            let operand = specials[(index * 7 + 3) % specials.len()];
            let new_values = [specials[(index * 5 + 1) % specials.len()]];
            let checked = check(
                &mut interp,
                &mut memory,
                &Case {
                    inst: &inst,
                    expansion: &expansion,
                    offset: 0,
                    old: &[old],
                    operands: &[operand],
                    new_values: if op == AtomicOp::Cas {
                        &new_values
                    } else {
                        &[]
                    },
                    seed: index as u64 * 0x1234_5678 + 1,
                    interference: 3,
                },
            );
            assert_eq!(
                (checked.interfered, checked.cas_failures),
                (3, 3),
                "{op} {ty}"
            );
        }
    }
}

/// The loop's exits, pinned for every op, type and order: where the op leaves the value's bits
/// unchanged, a relaxed or acquire loop returns the value it read without any CAS, and its first
/// load carries the node's order; a release, acq_rel or seq_cst loop always runs its CAS (which
/// stores), and its first load is relaxed. Where the bits change, every loop runs one CAS.
#[test]
fn unchanged_value_skips_the_cas_only_for_relaxed_and_acquire() {
    let mut skipped = 0;
    let mut written = 0;
    for (op, ty) in combos(&[8, 16, 32, 64]) {
        // A cas by the element's CAS first is that one CAS (pinned below), never a loop.
        let lowerings: &[ElementLowering] = if ty.bits() <= 16 && !ty.is_packed() {
            if op == AtomicOp::Cas {
                &[ElementLowering::CasLoop, ElementLowering::MaskedCasLoop]
            } else {
                &[
                    ElementLowering::CasLoop,
                    ElementLowering::MaskedCasLoop,
                    ElementLowering::CasThenMaskedLoop,
                ]
            }
        } else {
            &[ElementLowering::CasLoop]
        };
        for &order in MemoryOrder::ALL {
            if !op.admits_order(order) {
                continue;
            }
            let inst = ordered_node(op, ty, VectorShape::Scalar, true, order);
            for &lowering in lowerings {
                let expansion = expand_valid(&inst, lowering);
                let first_load = expansion
                    .memory_prims()
                    .find_map(|prim| match prim {
                        Prim::Load { mem, .. } => Some(mem.order),
                        _ => None,
                    })
                    .expect("a CAS loop starts with a load");
                let skips = skips_unchanged(op, order);
                assert_eq!(
                    skips,
                    matches!(order, MemoryOrder::Relaxed | MemoryOrder::Acquire)
                        && !matches!(op, AtomicOp::Nand | AtomicOp::Inc | AtomicOp::Dec),
                    "{op} {order}: only a loop whose write promises nothing may leave without \
                     writing, and nand, inc and dec always write"
                );
                let expected_load = if skips { order } else { MemoryOrder::Relaxed };
                assert_eq!(first_load, expected_load, "{op} {ty} {order} {lowering:?}");
                let mut interp = Interpreter::new();
                let mut memory = Memory::new(BASE, MEMORY_BYTES);
                let specials = specials(ty);
                for (index, &old) in specials.iter().enumerate() {
                    for &operand in specials.iter().step_by(3) {
                        let new_value = specials[(index * 5 + 1) % specials.len()];
                        let new_values = [new_value];
                        let bits =
                            semantics::apply(op, ty, old, operand, new_value, FloatMode::Ieee);
                        let checked = check(
                            &mut interp,
                            &mut memory,
                            &Case {
                                inst: &inst,
                                expansion: &expansion,
                                offset: 0,
                                old: &[old],
                                operands: &[operand],
                                new_values: if op == AtomicOp::Cas {
                                    &new_values
                                } else {
                                    &[]
                                },
                                seed: index as u64 + 7,
                                interference: 0,
                            },
                        );
                        let what = format!(
                            "{op} {ty} {order} {lowering:?} old {old:x} operand {operand:x}"
                        );
                        if bits == old && skips {
                            assert_eq!(checked.cas_attempts, 0, "{what}");
                            skipped += 1;
                        } else if leaves_on_failed_compare(&inst, Lowering::whole(lowering))
                            && old != operand
                        {
                            // The compare fails: one CAS, which fails and leaves.
                            assert_eq!(
                                (checked.cas_attempts, checked.cas_failures),
                                (1, 1),
                                "{what}"
                            );
                            written += 1;
                        } else {
                            assert_eq!(
                                (checked.cas_attempts, checked.cas_failures),
                                (1, 0),
                                "{what}"
                            );
                            written += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(
        skipped > 1000 && written > 1000,
        "skipped {skipped}, written {written}"
    );
}

/// The exact f32 add and sub by CAS loop (how the PTX backend carries an exact f32 add where
/// the native one flushes), on every pair of edge values: subnormal operands and results are
/// kept, a zero keeps the sign IEEE 754 gives it, a NaN stays a NaN. Checked against the
/// reference semantics by [`check`], and the stored value against the host's own IEEE f32
/// arithmetic, which keeps subnormals.
#[test]
fn exact_f32_add_keeps_subnormals_signed_zeros_and_nans() {
    let specials = specials(ElemType::F32);
    let mut subnormal_results = 0;
    let mut interp = Interpreter::new();
    let mut memory = Memory::new(BASE, MEMORY_BYTES);
    for op in [AtomicOp::Add, AtomicOp::Sub] {
        for order in [MemoryOrder::Relaxed, MemoryOrder::SeqCst] {
            let inst = ordered_node(op, ElemType::F32, VectorShape::Scalar, true, order);
            let expansion = expand_valid(&inst, ElementLowering::CasLoop);
            for &old in &specials {
                for &operand in &specials {
                    check(
                        &mut interp,
                        &mut memory,
                        &Case {
                            inst: &inst,
                            expansion: &expansion,
                            offset: 0,
                            old: &[old],
                            operands: &[operand],
                            new_values: &[],
                            seed: (old as u64) << 32 | operand as u64,
                            interference: 0,
                        },
                    );
                    let at = expand_common::WORD_OFFSET as usize;
                    let stored = expand_common::read_le(&memory.bytes()[at..at + 4]) as u32;
                    let (a, b) = (f32::from_bits(old as u32), f32::from_bits(operand as u32));
                    let host = if op == AtomicOp::Add { a + b } else { a - b };
                    if host.is_nan() {
                        assert!(
                            f32::from_bits(stored).is_nan(),
                            "{op} {old:#x} {operand:#x}"
                        );
                    } else {
                        assert_eq!(stored, host.to_bits(), "{op} {old:#x} {operand:#x}");
                    }
                    subnormal_results += usize::from(host.is_subnormal());
                }
            }
        }
    }
    // Subnormal sums do occur among the pairs (1 + 1, 0x7fffff - 1, ...), so keeping them is
    // what the comparison above checked.
    assert!(subnormal_results > 0);
}

/// Where the other thread writes before a CAS of [`cas_then_masked_loop_switches_once_contended`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Disturbance {
    Nothing,
    /// The element's own bytes.
    Element,
    /// The word's other bytes alone (a neighbour element).
    Neighbours,
    /// Every byte of the word.
    Word,
}

/// Every sequence of three disturbances, one before each of the first three CASes.
fn disturbance_patterns() -> Vec<[Disturbance; 3]> {
    use Disturbance::*;
    let all = [Nothing, Element, Neighbours, Word];
    let mut patterns = Vec::new();
    for a in all {
        for b in all {
            for c in all {
                patterns.push([a, b, c]);
            }
        }
    }
    patterns
}

/// `ElementLowering::CasThenMaskedLoop` pinned under every pattern of three disturbances of the
/// element, its neighbours in the word, or both, for every 8/16-bit op and type at every place in
/// the word, in a relaxed and a seq_cst order: the first CAS is on the element's own width and
/// fails exactly where the element changed (a neighbour changing does not disturb it); every
/// later CAS is on the aligned word, after a fresh load of it, and fails exactly where a byte of
/// the word changed; so the CASes are one more than the failures (or as many, where a relaxed
/// loop left without writing), and results and memory are the reference semantics' of the
/// value the last CAS saw. A cas is the element's one CAS, nothing after it.
#[test]
fn cas_then_masked_loop_switches_once_contended() {
    let mut interp = Interpreter::new();
    let mut memory = Memory::new(BASE, MEMORY_BYTES);
    let (mut word_retries_after_neighbours, mut element_cas_beside_neighbours) = (0, 0);
    let (mut switched, mut runs) = (0, 0);
    for (op, ty) in combos(&[8, 16]) {
        let size = ty.bytes() as usize;
        let specials = specials(ty);
        for offset in (0..4).step_by(size) {
            for order in [MemoryOrder::Relaxed, MemoryOrder::SeqCst] {
                let inst = ordered_node(op, ty, VectorShape::Scalar, true, order);
                let expansion = expand_valid(&inst, ElementLowering::CasThenMaskedLoop);
                for (index, pattern) in disturbance_patterns().into_iter().enumerate() {
                    let element_at = (WORD_OFFSET + offset) as usize;
                    let element: Vec<usize> = (element_at..element_at + size).collect();
                    let word_at = WORD_OFFSET as usize;
                    let neighbours: Vec<usize> = (word_at..word_at + 4)
                        .filter(|byte| !element.contains(byte))
                        .collect();
                    let mut sites: Vec<CasSite> = Vec::new();
                    let mut hit = 0u32;
                    let disturb = |site: CasSite| {
                        let at = sites.len();
                        sites.push(site);
                        let bytes = match pattern.get(at).copied().unwrap_or(Disturbance::Nothing) {
                            Disturbance::Nothing => Vec::new(),
                            Disturbance::Element => element.clone(),
                            Disturbance::Neighbours => neighbours.clone(),
                            Disturbance::Word => (word_at..word_at + 4).collect(),
                        };
                        let lo = (site.addr - BASE) as usize;
                        let range = lo..lo + site.bytes as usize;
                        hit += u32::from(bytes.iter().any(|byte| range.contains(byte)));
                        bytes
                    };
                    let old = specials[index % specials.len()];
                    let operand = specials[(index * 7 + 3) % specials.len()];
                    let new_values = [specials[(index * 5 + 1) % specials.len()]];
                    let checked = check_with(
                        &mut interp,
                        &mut memory,
                        &Case {
                            inst: &inst,
                            expansion: &expansion,
                            offset,
                            old: &[old],
                            operands: &[if index % 2 == 0 { old } else { operand }],
                            new_values: if op == AtomicOp::Cas {
                                &new_values
                            } else {
                                &[]
                            },
                            seed: index as u64 * 0x9e37_79b9 + offset,
                            interference: 0,
                        },
                        disturb,
                    );
                    let what = format!("{op} {ty} {order} offset {offset} {pattern:?}");
                    runs += 1;
                    let element_addr = BASE + WORD_OFFSET + offset;
                    if let Some(first) = sites.first() {
                        assert_eq!(
                            (first.addr, first.bytes),
                            (element_addr, size as u32),
                            "{what}: the first CAS is the element's"
                        );
                    }
                    for site in sites.iter().skip(1) {
                        assert_eq!(
                            (site.addr, site.bytes),
                            (BASE + WORD_OFFSET, 4),
                            "{what}: after the first, every CAS is the word's"
                        );
                    }
                    if op == AtomicOp::Cas {
                        // Its CAS fails where the compare does, disturbed or not.
                        assert_eq!(checked.cas_attempts, 1, "{what}: a cas is one CAS");
                        continue;
                    }
                    assert_eq!(checked.cas_failures, hit, "{what}: {checked:?}");
                    let attempts = checked.cas_attempts;
                    if skips_unchanged(op, order) {
                        assert!(
                            attempts == hit || attempts == hit + 1,
                            "{what}: {checked:?}"
                        );
                    } else {
                        assert_eq!(attempts, hit + 1, "{what}: {checked:?}");
                    }
                    if sites.len() > 1 {
                        switched += 1;
                        assert!(
                            matches!(pattern[0], Disturbance::Element | Disturbance::Word),
                            "{what}: only a failed CAS turns to the word"
                        );
                        if pattern[1] == Disturbance::Neighbours {
                            word_retries_after_neighbours += 1;
                        }
                    } else if pattern[0] == Disturbance::Neighbours && attempts == 1 {
                        element_cas_beside_neighbours += 1;
                    }
                }
            }
        }
    }
    // The interleavings that tell the forms apart came up: a neighbour changing beside the
    // element's CAS, which then stores, and beside the word's, which then retries.
    assert!(
        element_cas_beside_neighbours > 100
            && word_retries_after_neighbours > 100
            && switched > 1000,
        "{element_cas_beside_neighbours} {word_retries_after_neighbours} {switched} of {runs}"
    );
}
