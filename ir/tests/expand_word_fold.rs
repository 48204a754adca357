//! Proof of the per-word warp fold (`WarpCombine::WordFold`) on the interpreter's model of a
//! warp (`Interpreter::run_warp`): relaxed u8, s8, u16 and s16 add, sub, min and max, the result
//! used and unused, warps of 1 to 32 lanes laid out on one address, on the addresses of one
//! 32-bit word, and over two words (both at random and with every address of both taken),
//! operands and memory drawn from the types' extremes, small values and random bits, with and
//! without another thread storing to the word between the group's first read and its CAS. Each
//! lane's old value and the final memory must be those of the group's operations applied
//! consecutively, those at one address in lane order (`semantics::apply` is each step), from
//! the word the group's successful CAS replaced; and without another thread's store, each word
//! must take at most one CAS attempt, however many addresses of it the warp's lanes act on.

mod expand_common;

use atomir_ir::expand::{expand, Prim};
use atomir_ir::interp::{CasSite, Inputs, Interpreter, Memory};
use atomir_ir::semantics::{apply, width_mask, FloatMode};
use atomir_ir::{
    AtomicNode, AtomicOp, ElemType, ElementLowering, Lowering, MemoryOrder, VectorShape,
    WarpCombine,
};
use expand_common::{node, read_le, specials, XorShift};

const BASE: u64 = 0x4000;
/// Two 32-bit words.
const MEMORY_BYTES: usize = 8;

const TYPES: [ElemType; 4] = [ElemType::U8, ElemType::S8, ElemType::U16, ElemType::S16];
const OPS: [AtomicOp; 4] = [AtomicOp::Add, AtomicOp::Sub, AtomicOp::Min, AtomicOp::Max];

/// Where a warp's lanes act.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// Every lane on one address.
    OneAddress,
    /// Each lane on a random address of one word.
    OneWord,
    /// Each lane on a random address of either word.
    TwoWords,
    /// Lane `i` on address `i` modulo the number of addresses: every address of both words.
    EveryAddress,
}

const LAYOUTS: [Layout; 4] = [
    Layout::OneAddress,
    Layout::OneWord,
    Layout::TwoWords,
    Layout::EveryAddress,
];

fn relaxed(op: AtomicOp, ty: ElemType, result_used: bool) -> AtomicNode {
    AtomicNode {
        order: MemoryOrder::Relaxed,
        ..node(op, ty, VectorShape::Scalar, result_used)
    }
}

fn value(rng: &mut XorShift, ty: ElemType) -> u128 {
    let special = specials(ty);
    let bits = if rng.next().is_multiple_of(3) {
        special[rng.next() as usize % special.len()]
    } else if rng.next().is_multiple_of(3) {
        u128::from(rng.next() % 4)
    } else {
        u128::from(rng.next())
    };
    bits & width_mask(ty.bits())
}

/// Each lane's slot (an element of `bytes` bytes among `slots`) under `layout`.
fn slots_of(rng: &mut XorShift, layout: Layout, lanes: usize, bytes: usize) -> Vec<usize> {
    let slots = MEMORY_BYTES / bytes;
    let per_word = 4 / bytes;
    let word = rng.next() as usize % 2;
    let pick = |rng: &mut XorShift, count: usize| rng.next() as usize % count;
    match layout {
        Layout::OneAddress => vec![pick(rng, slots); lanes],
        Layout::OneWord => (0..lanes)
            .map(|_| word * per_word + pick(rng, per_word))
            .collect(),
        Layout::TwoWords => (0..lanes).map(|_| pick(rng, slots)).collect(),
        Layout::EveryAddress => (0..lanes).map(|lane| lane % slots).collect(),
    }
}

/// One warp run; returns (CAS attempts, words the lanes act on).
fn check_warp(
    interp: &mut Interpreter,
    inst: &AtomicNode,
    rng: &mut XorShift,
    layout: Layout,
    interfere: bool,
) -> (u32, usize) {
    let expansion = expand(
        inst,
        Lowering::whole(ElementLowering::MaskedCasLoop)
            .with_warp(WarpCombine::WordFold)
            .unwrap(),
    );
    expansion
        .validate(inst)
        .unwrap_or_else(|error| panic!("{} {}: {error}\n{expansion}", inst.op, inst.ty));
    let bytes = inst.ty.bytes() as usize;
    let slots = MEMORY_BYTES / bytes;
    let lanes = 1 + rng.next() as usize % 32;
    let slot_of = slots_of(rng, layout, lanes, bytes);
    let operands: Vec<[u128; 1]> = (0..lanes).map(|_| [value(rng, inst.ty)]).collect();
    let mut memory = Memory::new(BASE, MEMORY_BYTES);
    for slot in 0..slots {
        let at = BASE + (slot * bytes) as u64;
        memory
            .write(at, inst.ty.bytes(), value(rng, inst.ty))
            .unwrap();
    }
    let initial = memory.bytes().to_vec();
    let inputs: Vec<Inputs<'_>> = (0..lanes)
        .map(|lane| Inputs {
            addr: BASE + (slot_of[lane] * bytes) as u64,
            operands: &operands[lane],
            new_values: &[],
        })
        .collect();
    // Only where every lane is in one word: its one group's CAS then comes after the store.
    let interfere = interfere && matches!(layout, Layout::OneAddress | Layout::OneWord);
    let mut after_store = initial.clone();
    let mut stored = false;
    let mut other_thread = |memory: &mut Memory, site: CasSite| {
        if interfere && !stored {
            memory
                .write(site.addr, site.bytes, u128::from(rng.next()))
                .unwrap();
            after_store.copy_from_slice(memory.bytes());
            stored = true;
        }
    };
    let outcomes = interp
        .run_warp(&expansion, &mut memory, &inputs, &mut other_thread)
        .unwrap_or_else(|error| panic!("{} {}: {error}\n{expansion}", inst.op, inst.ty));
    let start_bytes = if stored { &after_store } else { &initial };
    let read = |bytes_of: &[u8], slot: usize| read_le(&bytes_of[slot * bytes..(slot + 1) * bytes]);
    let step = |old: u128, operand: u128| apply(inst.op, inst.ty, old, operand, 0, FloatMode::Ieee);
    for slot in 0..slots {
        let group: Vec<usize> = (0..lanes).filter(|&lane| slot_of[lane] == slot).collect();
        let start = read(start_bytes, slot);
        let mut expected = start;
        for &lane in &group {
            if inst.result_used() {
                assert_eq!(
                    outcomes[lane].results[0], expected,
                    "{} {} {layout:?} slot {slot} lane {lane}: old value out of lane order \
                     (slots {slot_of:?}, operands {operands:x?}, start {start:#x})",
                    inst.op, inst.ty
                );
            }
            expected = step(expected, operands[lane][0]);
        }
        assert_eq!(
            read(memory.bytes(), slot),
            expected,
            "{} {} {layout:?} slot {slot}: final value (slots {slot_of:?}, operands \
             {operands:x?}, start {start:#x})",
            inst.op,
            inst.ty
        );
    }
    let mut words: Vec<usize> = slot_of.iter().map(|slot| slot * bytes / 4).collect();
    words.sort_unstable();
    words.dedup();
    let attempts = outcomes.iter().map(|outcome| outcome.cas_attempts).sum();
    (attempts, words.len())
}

#[test]
fn word_folds_are_the_consecutive_linearization_with_one_cas_per_word() {
    let mut interp = Interpreter::new();
    let mut rng = XorShift(0x304d_f01d);
    let mut warps = 0;
    for ty in TYPES {
        for op in OPS {
            for result_used in [true, false] {
                let inst = relaxed(op, ty, result_used);
                for layout in LAYOUTS {
                    for trial in 0..60 {
                        let interfere = trial % 4 == 3;
                        let (attempts, words) =
                            check_warp(&mut interp, &inst, &mut rng, layout, interfere);
                        if !interfere {
                            assert!(
                                attempts as usize <= words,
                                "{op} {ty} {layout:?}: {attempts} CAS attempts on {words} words"
                            );
                        }
                        warps += 1;
                    }
                }
            }
        }
    }
    assert_eq!(warps, TYPES.len() * OPS.len() * 2 * LAYOUTS.len() * 60);
}

/// The per-address form retries on a word whose addresses several groups act on, which is
/// what the per-word form is for: on every address of one word, a full warp of u8 adds takes
/// one attempt this way and more than one by `WarpCombine::Fold` of a masked CAS loop.
#[test]
fn one_word_of_many_addresses_takes_one_attempt() {
    let mut interp = Interpreter::new();
    let inst = relaxed(AtomicOp::Add, ElemType::U8, true);
    let operands: Vec<[u128; 1]> = (0..32u128).map(|lane| [lane + 1]).collect();
    let inputs: Vec<Inputs<'_>> = (0..32)
        .map(|lane| Inputs {
            addr: BASE + (lane % 4) as u64,
            operands: &operands[lane],
            new_values: &[],
        })
        .collect();
    let attempts = |lowering: Lowering, interp: &mut Interpreter| {
        let expansion = expand(&inst, lowering);
        let mut memory = Memory::new(BASE, MEMORY_BYTES);
        let outcomes = interp
            .run_warp(
                &expansion,
                &mut memory,
                &inputs,
                &mut |_: &mut Memory, _| {},
            )
            .unwrap();
        // Lane i adds i + 1 to byte i % 4: byte k gets the sum over lanes k, k + 4, ...
        for byte in 0..4u128 {
            let sum: u128 = (0..8).map(|round| 4 * round + byte + 1).sum();
            assert_eq!(u128::from(memory.bytes()[byte as usize]), sum & 0xff);
        }
        outcomes
            .iter()
            .map(|outcome| outcome.cas_attempts)
            .sum::<u32>()
    };
    assert_eq!(
        attempts(
            Lowering::whole(ElementLowering::MaskedCasLoop)
                .with_warp(WarpCombine::WordFold)
                .unwrap(),
            &mut interp
        ),
        1
    );
    assert!(
        attempts(
            Lowering::whole(ElementLowering::MaskedCasLoop)
                .with_warp(WarpCombine::Fold)
                .unwrap(),
            &mut interp
        ) > 1
    );
}

/// Relaxed only: the validator refuses the warp primitives in any other order.
#[test]
fn word_folds_are_relaxed_only() {
    for order in [
        MemoryOrder::Acquire,
        MemoryOrder::Release,
        MemoryOrder::AcqRel,
        MemoryOrder::SeqCst,
    ] {
        for ty in [ElemType::U8, ElemType::S16] {
            let inst = AtomicNode {
                order,
                ..relaxed(AtomicOp::Add, ty, true)
            };
            let expansion = expand(
                &inst,
                Lowering::whole(ElementLowering::MaskedCasLoop)
                    .with_warp(WarpCombine::WordFold)
                    .unwrap(),
            );
            assert!(expansion
                .blocks
                .values()
                .any(|block| block.prims.iter().any(Prim::is_warp)));
            let error = expansion.validate(&inst).unwrap_err();
            assert!(error.contains("only a relaxed atomic"), "{order}: {error}");
        }
    }
}
