//! 8/16-bit elements inside their aligned 32-bit words: one masked access per word.

use smallvec::SmallVec;

use super::attempt::OneAttempt;
use super::{
    apply_op, cas_retry_loop, cas_retry_loop_carrying, masked_cas_loop_element, mem_attrs,
    native_element, skips_unchanged, Builder, LoopStart,
};
use crate::expand::{BinaryOp, CmpCond, MemAttrs, Prim, PrimType, UnaryOp, Var};
use crate::node::AtomicNode;
use crate::types::{AtomicOp, ElemType, MemoryOrder};

/// Where a node's 8/16-bit elements lie in 32-bit words. A vector's address is aligned to the
/// whole vector's size (`crate::semantics`, "Addresses"), so elements that fill a word or more
/// start at its first byte and fill every word they touch; only a node narrower than a word (a
/// scalar, a v2 of 8-bit elements) sits at an offset known at run time, inside one word.
///
/// The elements that share a word are its window: the whole word, or the node's bits inside
/// it. Windows are handled as 32-bit values, lane 0 in the low bits.
struct WordLayout {
    /// The address of each word, in order.
    words: SmallVec<[Var; 4]>,
    /// Where the window does not fill its word: the window's position, computed once.
    placed: Option<PlacedWindow>,
    /// `lane_shifts[k - 1]` moves lane `k` of a window to its bits; lane 0 is at bit 0.
    lane_shifts: SmallVec<[Var; 3]>,
}

/// A window narrower than its word, at an offset known at run time.
struct PlacedWindow {
    /// The window's lowest bit in the word.
    shift: Var,
    /// The window's bits in the word.
    mask: Var,
    /// The word's bits outside the window.
    keep: Var,
}

impl WordLayout {
    /// The layout of `elements` elements of `ty` at `addr`; emits the word addresses, the
    /// shift and mask of a window narrower than a word, and the lane shifts, once.
    fn new(b: &mut Builder, ty: ElemType, elements: usize, addr: Var) -> Self {
        let element_bits = ty.bits();
        let node_bits = element_bits * elements as u32;
        let mut words = SmallVec::new();
        if node_bits < 32 {
            let word = b.var(PrimType::Ptr);
            b.push(Prim::PtrAlignDown {
                dst: word,
                ptr: addr,
                align: 4,
            });
            words.push(word);
        } else {
            // Aligned to its whole size: the node's address is its first word's.
            words.push(addr);
            for index in 1..node_bits / 32 {
                let word = b.var(PrimType::Ptr);
                b.push(Prim::PtrAdd {
                    dst: word,
                    ptr: addr,
                    bytes: index * 4,
                });
                words.push(word);
            }
        }
        let placed = (node_bits < 32).then(|| {
            let byte = b.var(PrimType::I32);
            b.push(Prim::PtrLowBits {
                dst: byte,
                ptr: addr,
                align: 4,
            });
            let three = b.constant(PrimType::I32, 3);
            let shift = b.binary(BinaryOp::Shl, byte, three);
            let window_mask = b.constant(PrimType::I32, (1u128 << node_bits) - 1);
            let mask = b.binary(BinaryOp::Shl, window_mask, shift);
            let keep = b.unary(UnaryOp::Not, mask, PrimType::I32);
            PlacedWindow { shift, mask, keep }
        });
        let lanes = node_bits.min(32) / element_bits;
        let lane_shifts = (1..lanes)
            .map(|lane| b.constant(PrimType::I32, u128::from(lane * element_bits)))
            .collect();
        WordLayout {
            words,
            placed,
            lane_shifts,
        }
    }

    /// Elements per word.
    fn lanes(&self) -> usize {
        self.lane_shifts.len() + 1
    }

    /// The window of `word`, lane 0 in the low bits (the bits above the window are the
    /// word's, which [`WordLayout::lane_of`] drops).
    fn window_of(&self, b: &mut Builder, word: Var) -> Var {
        match &self.placed {
            Some(placed) => b.binary(BinaryOp::LShr, word, placed.shift),
            None => word,
        }
    }

    /// Lane `lane`'s bits in `window`, an integer of `element`'s width.
    fn lane_of(&self, b: &mut Builder, window: Var, lane: usize, element: PrimType) -> Var {
        let shifted = match lane {
            0 => window,
            _ => b.binary(BinaryOp::LShr, window, self.lane_shifts[lane - 1]),
        };
        b.unary(UnaryOp::Trunc, shifted, element)
    }

    /// Appends the first `count` elements of `word` (of type `ty`) to `olds`.
    fn take_apart(
        &self,
        b: &mut Builder,
        word: Var,
        count: usize,
        ty: ElemType,
        olds: &mut SmallVec<[Var; 8]>,
    ) {
        let window = self.window_of(b, word);
        for lane in 0..count {
            let bits = self.lane_of(b, window, lane, PrimType::int(ty.bits()));
            olds.push(b.unary(UnaryOp::Bitcast, bits, PrimType::natural(ty)));
        }
    }

    /// The window with `lanes` (integer bits of the elements, lane 0 first) in place and zeros
    /// elsewhere, joined by `join` (an or, or an add: the lanes' bits are disjoint).
    fn window_with(&self, b: &mut Builder, lanes: &[Var], join: BinaryOp) -> Var {
        let mut window = None;
        for (lane, &bits) in lanes.iter().enumerate() {
            let wide = b.unary(UnaryOp::Zext, bits, PrimType::I32);
            let placed = match lane {
                0 => wide,
                _ => b.binary(BinaryOp::Shl, wide, self.lane_shifts[lane - 1]),
            };
            window = Some(match window {
                Some(others) => b.binary(join, others, placed),
                None => placed,
            });
        }
        window.expect("a word holds at least one element")
    }

    /// The window of the node's `operands` (of any element type), built once, before any loop.
    /// Bytes are joined by adds: ptxas fuses a byte's shift and add into one `LEA` where it
    /// keeps a shift and an or (a v8.u8 `and`, release, on sm_90: 4 SASS instructions fewer).
    /// Halves are joined by ors, which ptxas packs into one `PRMT`; so are the new lanes of a
    /// loop's step, where adds made byte min/max loops longer.
    fn operand_window(&self, b: &mut Builder, operands: &[Var]) -> Var {
        let bits: SmallVec<[Var; 4]> = operands.iter().map(|&v| b.bits_of(v)).collect();
        let join = match b.ty(bits[0]) {
            PrimType::I8 => BinaryOp::Add,
            _ => BinaryOp::Or,
        };
        self.window_with(b, &bits, join)
    }

    /// `window` as its word: in place, with zeros (`rest` `None`) or `rest`'s bits (a word) around
    /// it.
    fn word_with(&self, b: &mut Builder, window: Var, rest: Option<Var>) -> Var {
        let Some(placed) = &self.placed else {
            return window;
        };
        let in_place = b.binary(BinaryOp::Shl, window, placed.shift);
        match rest {
            Some(word) => {
                let rest = b.binary(BinaryOp::And, word, placed.keep);
                b.binary(BinaryOp::Or, rest, in_place)
            }
            None => in_place,
        }
    }

    /// The word's bits outside the window; `None` where the window fills its word.
    fn keep(&self) -> Option<Var> {
        self.placed.as_ref().map(|placed| placed.keep)
    }

    /// One step of a word's masked CAS loop: `old_word` with the op applied to each element of
    /// the window, each with its own operand (and new value, for cas), wrapping within its own
    /// bits. Returns the new word and, where `carry` asks, the old elements' bits.
    fn step(
        &self,
        b: &mut Builder,
        node: &AtomicNode,
        old_word: Var,
        operands: &[Var],
        new_values: Option<&[Var]>,
        carry: bool,
    ) -> (Var, SmallVec<[Var; 2]>) {
        let element_ty = PrimType::int(node.ty.bits());
        let window = self.window_of(b, old_word);
        let mut new_lanes: SmallVec<[Var; 4]> = SmallVec::new();
        let mut old_lanes: SmallVec<[Var; 2]> = SmallVec::new();
        for (lane, &operand) in operands.iter().enumerate() {
            let old = self.lane_of(b, window, lane, element_ty);
            if carry {
                old_lanes.push(old);
            }
            let new_value = new_values.map(|values| values[lane]);
            new_lanes.push(apply_op(b, node.op, node.ty, old, operand, new_value));
        }
        let new_window = self.window_with(b, &new_lanes, BinaryOp::Or);
        (self.word_with(b, new_window, Some(old_word)), old_lanes)
    }

    /// The operand word of a bit-by-bit op (and, or, xor, nand) on a word: each element's
    /// operand in place, and around the window the bits that leave the word's other data
    /// unchanged under `op` (ones for and and nand, whose `and` must keep them; zeros
    /// otherwise).
    fn bitwise_operand(&self, b: &mut Builder, op: AtomicOp, operands: &[Var]) -> Var {
        let window = self.operand_window(b, operands);
        let placed = self.word_with(b, window, None);
        match (op, self.keep()) {
            (AtomicOp::And | AtomicOp::Nand, Some(keep)) => b.binary(BinaryOp::Or, placed, keep),
            _ => placed,
        }
    }
}

/// The type of a word's widened op: the packed half type for f16/bf16 add and sub (each half
/// the add of its own element; only where the node fills its words, so no half belongs to
/// other data), the word's bits otherwise.
fn word_type(node: &AtomicNode, layout: &WordLayout) -> ElemType {
    let fills_words = layout.keep().is_none();
    match node.ty {
        ElemType::F16 if fills_words && matches!(node.op, AtomicOp::Add | AtomicOp::Sub) => {
            ElemType::F16x2
        }
        ElemType::Bf16 if fills_words && matches!(node.op, AtomicOp::Add | AtomicOp::Sub) => {
            ElemType::Bf16x2
        }
        _ => ElemType::B32,
    }
}

/// Emits the 8/16-bit elements of `node`
/// ([`ElementLowering::MaskedCasLoop`](crate::legal::ElementLowering::MaskedCasLoop) and
/// [`ElementLowering::MaskedOp`](crate::legal::ElementLowering::MaskedOp)) by one access per aligned 32-bit word they lie in, leaving the
/// builder in the exit block and returning each element's old value (in its natural type)
/// where `old_values` asks for them, none otherwise: an unused result is not taken apart, as
/// its lanes would be dead code (after a reduction, reads of a word the `red` never writes).
///
/// With `needs_loop`, a word's elements share one masked CAS loop whose step applies the op to
/// every element of the word, each with its own operand and wrapping within its own bits;
/// otherwise (and/or/xor act bit by bit, a load reads) one widened op per word, each element's
/// operand in place and bits that leave the rest unchanged around it. One access for several
/// elements is a valid implementation of the vector: the semantics make each element an
/// independent atomic, and doing them at once is one order in which they take effect. Word
/// addresses, shifts and masks are computed once, before any loop ([`WordLayout`]).
pub(super) fn part_word(
    b: &mut Builder,
    node: &AtomicNode,
    addr: Var,
    operands: &[Var],
    new_values: &[Var],
    needs_loop: bool,
    old_values: bool,
) -> SmallVec<[Var; 8]> {
    let ty = node.ty;
    let element_ty = PrimType::int(ty.bits());
    let mem = mem_attrs(node);
    let layout = WordLayout::new(b, ty, operands.len(), addr);
    let lanes = layout.lanes();
    // Each word's elements are taken apart after the last word's access, in the one exit
    // block, where every word is still what its access returned: a backend then sees a result
    // made of whole words as those words (PTX stores them so, as llc does).
    let mut old_words: SmallVec<[(Var, usize); 4]> = SmallVec::new();
    let mut carried_olds: SmallVec<[Var; 8]> = SmallVec::new();
    for (word_index, word_operands) in operands.chunks(lanes).enumerate() {
        let first = word_index * lanes;
        let word = layout.words[word_index];
        let word_new_values = new_values.get(first..first + word_operands.len());
        if !needs_loop {
            let value = match node.op {
                AtomicOp::Load => b.constant(PrimType::I32, 0),
                op => layout.bitwise_operand(b, op, word_operands),
            };
            let old_word = b.var(PrimType::I32);
            b.push(Prim::Rmw {
                dst: Some(old_word),
                op: node.op,
                ty: word_type(node, &layout),
                addr: word,
                value,
                mem,
            });
            old_words.push((old_word, word_operands.len()));
            continue;
        }
        if node.op == AtomicOp::Nand {
            // Nand acts bit by bit, so the word's elements take it at once: the and with every
            // operand in place, then the window's bits inverted (the whole word's where the
            // window fills it), without taking the word apart in the loop.
            let operand = layout.bitwise_operand(b, AtomicOp::Nand, word_operands);
            let window_mask = layout.placed.as_ref().map(|placed| placed.mask);
            let replaced = cas_retry_loop(
                b,
                node.op,
                mem,
                word,
                LoopStart::Load(PrimType::I32),
                |b, old_word| {
                    let and = b.binary(BinaryOp::And, old_word, operand);
                    match window_mask {
                        Some(mask) => b.binary(BinaryOp::Xor, and, mask),
                        None => b.unary(UnaryOp::Not, and, PrimType::I32),
                    }
                },
            );
            old_words.push((replaced, word_operands.len()));
            continue;
        }
        // A relaxed or acquire loop already leaves a failed compare without a CAS.
        if node.op == AtomicOp::Cas
            && word_operands.len() == 1
            && !skips_unchanged(node.op, node.order)
        {
            if let (Some(keep), Some(new_values)) = (layout.keep(), word_new_values) {
                let seen =
                    single_element_cas(b, mem, word, &layout, keep, word_operands, new_values);
                old_words.push((seen, 1));
                continue;
            }
        }
        // A window narrower than its word is never stored as a word: its old elements, which
        // the step takes apart anyway, leave the loop with it.
        let carry = old_values && layout.keep().is_some();
        if matches!(node.op, AtomicOp::Exch | AtomicOp::Store) && !carry {
            // The new elements are the operands: their window is built once, the step does not
            // take the old word apart, and the old elements are taken apart once, after the
            // loop, where a backend sees them as the parts of the word the loop returns.
            let new_window = layout.operand_window(b, word_operands);
            let replaced = cas_retry_loop(
                b,
                node.op,
                mem,
                word,
                LoopStart::Load(PrimType::I32),
                |b, old_word| layout.word_with(b, new_window, Some(old_word)),
            );
            old_words.push((replaced, word_operands.len()));
            continue;
        }
        let carried_tys: SmallVec<[PrimType; 2]> = if carry {
            word_operands.iter().map(|_| element_ty).collect()
        } else {
            SmallVec::new()
        };
        let (replaced, carried) = cas_retry_loop_carrying(
            b,
            node.op,
            mem,
            word,
            LoopStart::Load(PrimType::I32),
            &carried_tys,
            |b, old_word| layout.step(b, node, old_word, word_operands, word_new_values, carry),
        );
        if carry {
            carried_olds.extend(
                carried
                    .into_iter()
                    .map(|bits| b.unary(UnaryOp::Bitcast, bits, PrimType::natural(ty))),
            );
            continue;
        }
        old_words.push((replaced, word_operands.len()));
    }
    let mut olds = carried_olds;
    if old_values {
        for (old_word, count) in old_words {
            layout.take_apart(b, old_word, count, ty, &mut olds);
        }
    }
    olds
}

/// The release, acq_rel or seq_cst cas of one element narrower than its word (`keep`: the
/// word's other bits), as LLVM's AtomicExpand does it: each attempt is a word CAS expecting the
/// element's compare value amid the other bits last seen, so a compare that fails leaves after
/// one failed CAS (a read, with the node's order) instead of retrying until a CAS that changes
/// nothing succeeds, which under contention every failing lane would have to win. A failed CAS
/// whose other bits are those expected failed on the element: the loop leaves with that word;
/// otherwise the other bits changed and it tries again with them. Returns the word the last CAS
/// saw (the element's old value in its window either way).
fn single_element_cas(
    b: &mut Builder,
    mem: MemAttrs,
    word: Var,
    layout: &WordLayout,
    keep: Var,
    compare: &[Var],
    new_values: &[Var],
) -> Var {
    let compare_window = layout.operand_window(b, compare);
    let compare_in_place = layout.word_with(b, compare_window, None);
    let new_window = layout.operand_window(b, new_values);
    let new_in_place = layout.word_with(b, new_window, None);
    // Only a guess at the other bits: every exit is a CAS's, which carries the order.
    let initial = b.var(PrimType::I32);
    b.push(Prim::Load {
        dst: initial,
        addr: word,
        mem: MemAttrs {
            order: MemoryOrder::Relaxed,
            ..mem
        },
    });
    let initial_rest = b.binary(BinaryOp::And, initial, keep);
    let (attempt, attempt_params) = b.block(&[PrimType::I32]);
    let (failed, _) = b.block(&[]);
    let (done, done_params) = b.block(&[PrimType::I32]);
    b.jump(attempt, &[initial_rest]);

    b.switch_to(attempt);
    let rest = attempt_params[0];
    let expected = b.binary(BinaryOp::Or, rest, compare_in_place);
    let new = b.binary(BinaryOp::Or, rest, new_in_place);
    let seen = b.cas(word, expected, new, mem);
    let stored = b.cmp(CmpCond::Eq, seen, expected);
    b.branch(stored, (done, &[seen]), (failed, &[]));

    b.switch_to(failed);
    let seen_rest = b.binary(BinaryOp::And, seen, keep);
    let failed_on_element = b.cmp(CmpCond::Eq, seen_rest, rest);
    b.branch(failed_on_element, (done, &[seen]), (attempt, &[seen_rest]));

    b.switch_to(done);
    done_params[0]
}

/// One masked CAS loop on the aligned 32-bit word at `word` whose step applies `node.op` (an
/// 8/16-bit integer op other than cas) to every element of the word, each with its own operand:
/// the element of `operand_word` at the same bits, starting from `start`, a value of the word
/// read with the node's attributes (`LoopStart::From`). Returns the word the loop
/// replaced. The operands are taken apart once, before the loop.
pub(super) fn whole_word_loop(
    b: &mut Builder,
    node: &AtomicNode,
    word: Var,
    operand_word: Var,
    start: Var,
) -> Var {
    let lanes = (32 / node.ty.bits()) as usize;
    // A node of one word's elements at the word's own address: the window fills the word.
    let layout = WordLayout::new(b, node.ty, lanes, word);
    let element_ty = PrimType::int(node.ty.bits());
    let natural = PrimType::natural(node.ty);
    let operands: SmallVec<[Var; 4]> = (0..lanes)
        .map(|lane| {
            let bits = layout.lane_of(b, operand_word, lane, element_ty);
            b.unary(UnaryOp::Bitcast, bits, natural)
        })
        .collect();
    let mem = mem_attrs(node);
    cas_retry_loop(
        b,
        node.op,
        mem,
        word,
        LoopStart::From(start),
        |b, old_word| layout.step(b, node, old_word, &operands, None, false).0,
    )
}

/// One 8/16-bit element by
/// [`ElementLowering::CasThenMaskedLoop`](crate::legal::ElementLowering::CasThenMaskedLoop)
/// ([`Carry`](super::Carry)): the first attempt of a CAS loop on the element's own width and,
/// once its CAS fails, the masked CAS loop on the aligned 32-bit word, which starts from a
/// fresh load of the word (the failed CAS returned the element alone, not the bits around
/// it). Uncontended this is one load and one CAS of the element; under contention each
/// retry is one CAS of the word, whose failure returns the word to retry with (a CAS of the
/// element may itself be a loop on the word in the hardware: ptxas carries out `cas.b16` so,
/// a load and a CAS per attempt). Both phases place loads and CASes as [`cas_retry_loop`]
/// does: the CAS with the node's attributes, the first load of each phase relaxed, or with
/// the node's order where the phase may leave without a CAS ([`skips_unchanged`]). A cas is
/// the one CAS of the element, which never needs a retry.
pub(super) fn cas_then_masked_loop_element(
    b: &mut Builder,
    node: &AtomicNode,
    ty: ElemType,
    addr: Var,
    operand: Var,
    new_value: Option<Var>,
) -> Var {
    if new_value.is_some() {
        return native_element(b, node, ty, addr, operand, new_value);
    }
    let attempt = OneAttempt::emit(b, node, addr, PrimType::int(ty.bits()), |b, old| {
        (apply_op(b, node.op, ty, old, operand, None), old)
    });
    // The failed CAS found the element alone: the word loop loads the bits around it.
    attempt.or_else(b, ty, |b, _element| {
        masked_cas_loop_element(b, node, ty, addr, operand, None)
    })
}
