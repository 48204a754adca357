//! Proof of the per-word warp fold (`WarpCombine::WordFold`) on the interpreter's model of a
//! warp (`Interpreter::run_warp`, in lockstep: every lane loads before any lane CASes): relaxed
//! u8, s8, u16 and s16 add, sub, min and max, the result used and unused, warps of 1 to 32 lanes
//! laid out on one address, on the addresses of one 32-bit word, and over two words (both at
//! random and with every address of both taken), operands and memory drawn from the types'
//! extremes, small values and random bits, with and without another thread storing to the word
//! of the warp's first CAS. A 16-bit lane first makes one attempt of its own, and those whose
//! CAS failed fold; 8-bit lanes fold at once. Each lane's old value and the final memory must
//! be those of the linearization that implies (`warp_common::LockstepWarp`: for 16 bits, the
//! lanes that leave their word as loaded, then the first lane per word whose CAS finds it as
//! loaded, then the others consecutively; for 8 bits, every lane of a word consecutively; those
//! at one address in lane order; `semantics::apply` is each step); and without another
//! thread's store, the fold must take at most one CAS attempt per word beyond the lanes' own,
//! however many addresses of it the warp's lanes act on.

mod expand_common;
mod warp_common;

use atomir_ir::expand::expand;
use atomir_ir::interp::{Interpreter, Memory};
use atomir_ir::{AtomicNode, AtomicOp, ElemType, ElementLowering, Lowering, WarpCombine};
use expand_common::{expand_valid, XorShift};
use warp_common::{
    assert_relaxed_only, relaxed, run_undisturbed, LockstepWarp, BASE, MEMORY_BYTES,
};

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

/// One warp run; returns (CAS attempts beyond the lanes' own first ones, words the lanes act on).
fn check_warp(
    interp: &mut Interpreter,
    inst: &AtomicNode,
    rng: &mut XorShift,
    layout: Layout,
    interfere: bool,
) -> (u32, usize) {
    let expansion = expand_valid(inst, word_fold());
    let bytes = inst.ty.bytes() as usize;
    let lanes = 1 + rng.next() as usize % 32;
    let slot_of = slots_of(rng, layout, lanes, bytes);
    let (attempts, first_attempts) = LockstepWarp {
        inst,
        slot_of: &slot_of,
        memory_bytes: MEMORY_BYTES,
        interfere,
        // 8-bit lanes combine at once.
        own_first_attempt: bytes == 2,
    }
    .check(interp, &expansion, rng);
    let mut words: Vec<usize> = slot_of.iter().map(|slot| slot * bytes / 4).collect();
    words.sort_unstable();
    words.dedup();
    (attempts - first_attempts, words.len())
}

/// The lowering proved here.
fn word_fold() -> Lowering {
    Lowering::whole(ElementLowering::MaskedCasLoop)
        .with_warp(WarpCombine::WordFold)
        .unwrap()
}

#[test]
fn word_folds_are_the_consecutive_linearization_with_one_cas_per_word() {
    let mut interp = Interpreter::new();
    interp.lockstep = true;
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
/// what the per-word form is for: on every address of one word, a full warp of u8 adds in
/// lockstep takes one attempt this way (8-bit lanes combine at once), and more than one by
/// `WarpCombine::Fold` of a masked CAS loop (whose four groups' leaders collide on the word).
#[test]
fn one_word_of_many_addresses_takes_one_attempt() {
    let mut interp = Interpreter::new();
    interp.lockstep = true;
    let inst = relaxed(AtomicOp::Add, ElemType::U8, true);
    let operands: Vec<[u128; 1]> = (0..32u128).map(|lane| [lane + 1]).collect();
    let slot_of: Vec<usize> = (0..32).map(|lane| lane % 4).collect();
    let attempts = |lowering: Lowering, interp: &mut Interpreter| {
        let expansion = expand(&inst, lowering);
        let mut memory = Memory::new(BASE, MEMORY_BYTES);
        let outcomes = run_undisturbed(interp, &expansion, &mut memory, &slot_of, &operands, 1);
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
    assert_eq!(attempts(word_fold(), &mut interp), 1);
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
    assert_relaxed_only(AtomicOp::Add, &[ElemType::U8, ElemType::S16], word_fold());
}
