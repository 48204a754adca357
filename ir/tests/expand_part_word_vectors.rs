//! Vectors of 8/16-bit elements: one masked access per aligned 32-bit word, with the word's
//! address, shift and mask computed once, and elements of one word that never carry into each
//! other. Random vectors against the semantics, with another thread changing bytes of the word
//! (this node's elements included) between the loop's load and its CAS, are proven in
//! `expand_cas_loops.rs` (`part_word_vectors`).

mod expand_common;

use atomir_ir::expand::{Expansion, Prim};
use atomir_ir::interp::{Interpreter, Memory};
use atomir_ir::semantics::width_mask;
use atomir_ir::{
    AtomicNode, AtomicOp, ElemType, ElementLowering, Lowering, MemoryOrder, VectorShape,
};
use expand_common::{check, expand_valid, node, supported_ops, Case, BASE, MEMORY_BYTES};

const SHAPES: [VectorShape; 4] = [
    VectorShape::Scalar,
    VectorShape::V2,
    VectorShape::V4,
    VectorShape::V8,
];

/// Every (op, type) pair of the 8/16-bit element types a masked lowering serves.
fn combos() -> Vec<(AtomicOp, ElemType)> {
    ElemType::ALL
        .iter()
        .filter(|ty| ty.bits() <= 16 && !ty.is_packed())
        .flat_map(|&ty| supported_ops(ty).into_iter().map(move |op| (op, ty)))
        .collect()
}

/// The masked lowerings of `op`: the CAS loop always, the widened op where it is exact
/// (and/or/xor, and a load of the containing word).
fn element_lowerings(op: AtomicOp) -> Vec<ElementLowering> {
    let mut list = vec![ElementLowering::MaskedCasLoop];
    if ElementLowering::masked(op) == ElementLowering::MaskedOp || op == AtomicOp::Load {
        list.push(ElementLowering::MaskedOp);
    }
    list
}

/// The 32-bit words a node of `shape` and `ty` touches, aligned to its whole size.
fn words(ty: ElemType, shape: VectorShape) -> usize {
    (shape.len() * ty.bytes() as usize).div_ceil(4)
}

fn ordered(inst: AtomicNode, order: MemoryOrder) -> AtomicNode {
    if inst.op.admits_order(order) {
        AtomicNode { order, ..inst }
    } else {
        inst
    }
}

/// How many primitives of the expansion `matches` accepts.
fn count(expansion: &Expansion, matches: impl Fn(&Prim) -> bool) -> usize {
    expansion
        .blocks
        .values()
        .flat_map(|block| &block.prims)
        .filter(|prim| matches(prim))
        .count()
}

/// Pointer arithmetic: the word addresses and the shift of a window narrower than a word.
fn is_address_arithmetic(prim: &Prim) -> bool {
    matches!(
        prim,
        Prim::PtrAlignDown { .. } | Prim::PtrLowBits { .. } | Prim::PtrAdd { .. }
    )
}

#[test]
fn one_access_per_word_and_the_word_arithmetic_once() {
    let mut checked = 0;
    for (op, ty) in combos() {
        for shape in SHAPES {
            for element in element_lowerings(op) {
                for result_used in [true, false] {
                    let inst = node(op, ty, shape, result_used);
                    let lowering = Lowering::per_element(element, shape);
                    let expansion = expand_valid(&inst, lowering);
                    let what = format!("{op} {shape:?} {ty} by {lowering:?}\n{expansion}");
                    let words = words(ty, shape);
                    let cas = count(&expansion, |p| matches!(p, Prim::Cas { .. }));
                    let rmw = count(&expansion, |p| matches!(p, Prim::Rmw { .. }));
                    let loads = count(&expansion, |p| matches!(p, Prim::Load { .. }));
                    if element == ElementLowering::MaskedCasLoop {
                        assert_eq!((cas, loads, rmw), (words, words, 0), "{what}");
                        assert!(expansion.has_loop(), "{what}");
                    } else {
                        assert_eq!((cas, loads, rmw), (0, 0, words), "{what}");
                    }
                    // A node narrower than a word finds its place in it once; a wider one is
                    // aligned to its size and needs no shift computed at run time.
                    let narrow = shape.len() * (ty.bytes() as usize) < 4;
                    let align_downs = count(&expansion, |p| matches!(p, Prim::PtrAlignDown { .. }));
                    let low_bits = count(&expansion, |p| matches!(p, Prim::PtrLowBits { .. }));
                    let adds = count(&expansion, |p| matches!(p, Prim::PtrAdd { .. }));
                    assert_eq!(align_downs, usize::from(narrow), "{what}");
                    assert_eq!(low_bits, usize::from(narrow), "{what}");
                    assert_eq!(adds, words - 1, "{what}");
                    // All of it before the first access: no loop recomputes an address or shift.
                    let entry = &expansion.blocks[expansion.entry()];
                    let first_access = entry
                        .prims
                        .iter()
                        .position(|p| p.mem().is_some())
                        .unwrap_or(entry.prims.len());
                    let up_front = entry.prims[..first_access]
                        .iter()
                        .filter(|p| is_address_arithmetic(p))
                        .count();
                    assert_eq!(up_front, align_downs + low_bits + adds, "{what}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 300, "checked {checked}");
}

/// Neighbouring elements of one word never carry into each other: every element of a v4.u8
/// and a v2.u16 wraps on its own, with a disturbance of the whole word before the first CAS.
#[test]
fn elements_of_one_word_wrap_on_their_own() {
    let mut interp = Interpreter::new();
    let mut memory = Memory::new(BASE, MEMORY_BYTES);
    for (ty, shape) in [
        (ElemType::U8, VectorShape::V4),
        (ElemType::U16, VectorShape::V2),
        (ElemType::S8, VectorShape::V8),
        (ElemType::U16, VectorShape::V8),
    ] {
        for op in [AtomicOp::Add, AtomicOp::Sub, AtomicOp::Inc, AtomicOp::Dec] {
            if !ty.supports(op) {
                continue;
            }
            let inst = ordered(node(op, ty, shape, true), MemoryOrder::SeqCst);
            let lowering = Lowering::per_element(ElementLowering::MaskedCasLoop, shape);
            let expansion = expand_valid(&inst, lowering);
            let mask = width_mask(ty.bits());
            // Alternate the edges that carry or borrow: all ones plus one, zero minus one.
            let old: Vec<u128> = (0..shape.len())
                .map(|i| if i % 2 == 0 { mask } else { 0 })
                .collect();
            let operands: Vec<u128> = (0..shape.len())
                .map(|i| if i % 3 == 0 { 1 } else { mask })
                .collect();
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
                    seed: 0x51ee_d000 + ty.bits() as u64,
                    interference: 1,
                },
            );
            assert_eq!(checked.interfered, 1, "{op} {shape:?} {ty}");
            assert_eq!(
                checked.cas_attempts as usize,
                words(ty, shape) + 1,
                "{op} {shape:?} {ty}: one CAS per word and one retry"
            );
        }
    }
}

/// A vector of f16/bf16 add or sub by one packed add per word (`MaskedOp`, the word's Rmw typed
/// `f16x2`/`bf16x2`): each half is its own element's add or sub, against the semantics, on
/// zeros of both signs, infinities, NaNs, subnormals and random bits.
#[test]
fn half_vectors_add_on_packed_words() {
    let mut interp = Interpreter::new();
    let mut memory = Memory::new(BASE, MEMORY_BYTES);
    let specials: [u128; 10] = [
        0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e01, 0x0001, 0x3c00, 0xbc00, 0x7f80, 0x7fc1,
    ];
    let mut checked = 0;
    for ty in [ElemType::F16, ElemType::Bf16] {
        for op in [AtomicOp::Add, AtomicOp::Sub] {
            for shape in [VectorShape::V2, VectorShape::V4, VectorShape::V8] {
                for result_used in [true, false] {
                    let inst = node(op, ty, shape, result_used);
                    let lowering = Lowering::per_element(ElementLowering::MaskedOp, shape);
                    let expansion = expand_valid(&inst, lowering);
                    let packed = if ty == ElemType::F16 {
                        ElemType::F16x2
                    } else {
                        ElemType::Bf16x2
                    };
                    let packed_rmws = count(
                        &expansion,
                        |p| matches!(p, Prim::Rmw { ty, .. } if *ty == packed),
                    );
                    assert_eq!(packed_rmws, words(ty, shape), "{op} {shape:?} {ty}");
                    let mut rng = expand_common::XorShift(0x4a1f_0000 + checked);
                    for round in 0..64 {
                        let mut pick = |k: usize| -> u128 {
                            if round < 16 {
                                specials[(k + round) % specials.len()]
                            } else {
                                u128::from(rng.next() as u16)
                            }
                        };
                        let old: Vec<u128> = (0..shape.len()).map(&mut pick).collect();
                        let operands: Vec<u128> =
                            (0..shape.len()).map(|k| pick(k * 7 + 3)).collect();
                        check(
                            &mut interp,
                            &mut memory,
                            &Case {
                                inst: &inst,
                                expansion: &expansion,
                                offset: 0,
                                old: &old,
                                operands: &operands,
                                new_values: &[],
                                seed: 0x4a1f_5eed + round as u64,
                                interference: 0,
                            },
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert_eq!(checked, 2 * 2 * 3 * 2 * 64);
}
