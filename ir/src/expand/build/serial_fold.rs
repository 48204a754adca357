//! Elements carried out once per address by a warp whose lanes' operations are applied one
//! after another, in lane order, inside one CAS attempt ([`WarpCombine::SerialFold`]).
//!
//! [`WarpCombine::SerialFold`]: crate::legal::WarpCombine::SerialFold

use super::attempt::OneAttempt;
use super::warp::PeerSplit;
use super::{apply_op, cas_retry_loop, mem_attrs, Builder, LoopStart};
use crate::expand::{BinaryOp, Block, CmpCond, Prim, PrimType, ScanSpan, UnaryOp, Var};
use crate::node::AtomicNode;
use crate::types::ElemType;

/// Emits one element carried out once per address by a warp, exactly for any op: the lanes
/// whose CAS covers the same location (a group: the same address, or for 8/16-bit elements the
/// same aligned 32-bit word, each lane acting on its own bits of it) take turns inside each CAS
/// attempt of the highest of them. From the attempt's expected value, the lane of rank 0 (the lowest) applies its operation,
/// rounded as its own atomic would be, and passes the result on; the lane of rank 1 applies its
/// own to that, and so on; the highest lane's result is what the CAS stores. Each lane keeps
/// the value it applied its operation to: after the CAS that succeeds, that is its old value in
/// the linearization in which the group's operations follow each other in lane order, and the
/// stored value is theirs applied in that order. So the results are those of a burst of
/// separate atomics, with one CAS per address and attempt instead of one per lane.
///
/// Only the lanes whose own first attempt failed combine ([`after_own_attempt`]): an uncontended
/// lane is done after one CAS, as in a loop of its own.
///
/// Every lane of the group runs every step, so that the warp primitives stay collective: each
/// applies its operation to the running value, and all take the result of the lane whose turn
/// it is ([`Prim::WarpFromRank`]). A lane alone at its location runs its own CAS loop (masked in
/// its word for an 8/16-bit element). The lanes wait for each other with ordering before the
/// first load and after the last CAS, as the other warp-combined elements do. Leaves the builder in the exit block and returns this
/// lane's old value in the element's natural type.
pub(super) fn serial_fold_element(
    b: &mut Builder,
    node: &AtomicNode,
    ty: ElemType,
    addr: Var,
    operand: Var,
) -> Var {
    let unit = Unit::of(b, ty, addr);
    after_own_attempt(b, node, ty, unit, operand, |b, seen| {
        fold_after_contention(b, node, ty, operand, unit, seen)
    })
}

/// Each lane's own first attempt on `unit` ([`OneAttempt`]: its load, its operation applied
/// to its element, one CAS), then `combine` (given the unit the failed CAS found; it returns
/// the old value in the element's natural type) for the lanes whose CAS failed: only lanes
/// that met contention combine.
/// Without it, lanes at distinct addresses that merely share a 32-bit word (f16 elements at
/// 2^20 addresses, two lanes a word) paid for the whole fold: 0.056 ms against 0.016 ms for
/// ptxas's loop per lane on an H200 (bench/RESULTS.md). Leaves the builder in the exit block and
/// returns this lane's old value in the element's natural type.
pub(super) fn after_own_attempt(
    b: &mut Builder,
    node: &AtomicNode,
    ty: ElemType,
    unit: Unit,
    operand: Var,
    combine: impl FnOnce(&mut Builder, Var) -> Var,
) -> Var {
    let attempt = OneAttempt::emit(b, node, unit.addr, unit.ty, |b, loaded| {
        unit.step(b, node, ty, operand, loaded)
    });
    attempt.or_else(b, ty, combine)
}

/// A lane's own CAS loop on `unit`, its operation applied to its element, from `seen`, a value
/// of the unit read with the node's attributes (what a failed CAS found, or a first load): a
/// trip to memory fewer than a fresh load. Returns the old value in the element's natural type.
pub(super) fn own_loop_from(
    b: &mut Builder,
    node: &AtomicNode,
    ty: ElemType,
    unit: Unit,
    operand: Var,
    seen: Var,
) -> Var {
    let start = LoopStart::From(seen);
    let replaced = cas_retry_loop(b, node.op, mem_attrs(node), unit.addr, start, |b, word| {
        unit.step(b, node, ty, operand, word).0
    });
    let bits = unit.extract(b, replaced, PrimType::int(ty.bits()));
    b.unary(UnaryOp::Bitcast, bits, PrimType::natural(ty))
}

/// The lanes whose first attempt failed, combined: the lanes of a group take turns in each
/// attempt of the highest one's CAS loop; a lane alone at its unit loops on its own. Both
/// start from `seen`, what this lane's failed CAS found (the highest lane's, for a group).
fn fold_after_contention(
    b: &mut Builder,
    node: &AtomicNode,
    ty: ElemType,
    operand: Var,
    unit: Unit,
    seen: Var,
) -> Var {
    let split = PeerSplit::emit(b, unit.addr, unit.ty.bits() / 8, |b| {
        own_loop_from(b, node, ty, unit, operand, seen)
    });
    let group = Group::enter(b, node, ty, unit, &split);
    let no_unit = b.constant(unit.ty, 0);
    let no_bits = b.constant(group.bits_ty, 0);
    let (attempt, expected) = group.first_attempt(b, seen);
    let (group_new, kept) = group.steps(b, operand, expected, no_bits);
    let kept = group.store(b, attempt, expected, group_new, kept, no_unit);
    split.join(b, ty, kept)
}

/// The lanes of one group (two or more at one [`Unit`]) and what each knows of it.
struct Group<'a> {
    node: &'a AtomicNode,
    ty: ElemType,
    unit: Unit,
    /// The element's bits as an integer: what a lane keeps of the value it applied its op to.
    bits_ty: PrimType,
    /// The group's lanes, also the members of each warp primitive inside the group's loops:
    /// the groups of a warp take as many turns and attempts as each needs, so no primitive
    /// there has the lanes of two groups.
    peers: Var,
    /// The lanes of every group ([`PeerSplit::members`]): the members of each warp primitive
    /// outside the loops, which all of them reach.
    members: Var,
    one: Var,
    zero: Var,
    /// This lane's rank among its peers, 0 for the lowest.
    rank: Var,
    /// Whether this lane is the group's highest, the one that loads and CASes.
    leads: Var,
    /// The number of lanes in the group.
    size: Var,
}

impl<'a> Group<'a> {
    /// Ranks the lanes of the group and counts them; they then wait for each other.
    fn enter(
        b: &mut Builder,
        node: &'a AtomicNode,
        ty: ElemType,
        unit: Unit,
        split: &PeerSplit,
    ) -> Group<'a> {
        let (peers, members, one) = (split.peers, split.members, split.one);
        let rank = b.var(PrimType::I32);
        b.push(Prim::WarpScan {
            dst: rank,
            op: BinaryOp::Add,
            peers,
            members,
            value: one,
            span: ScanSpan::Below,
            max_peers: 32,
        });
        let leads = b.var(PrimType::Pred);
        b.push(Prim::WarpLeads { dst: leads, peers });
        // The highest lane's rank plus one: the group's size.
        let rank_plus_one = b.binary(BinaryOp::Add, rank, one);
        let size = b.var(PrimType::I32);
        b.push(Prim::WarpBroadcast {
            dst: size,
            peers,
            members,
            value: rank_plus_one,
        });
        b.push(Prim::WarpSync { members });
        Group {
            node,
            ty,
            unit,
            bits_ty: PrimType::int(ty.bits()),
            peers,
            members,
            one,
            zero: split.zero,
            rank,
            leads,
            size,
        }
    }

    /// Every lane of the group receives the first expected value, what the leader's failed CAS
    /// found (`seen`). Leaves the builder in the attempt block, which each retry enters again,
    /// and returns it with its expected value.
    fn first_attempt(&self, b: &mut Builder, seen: Var) -> (Block, Var) {
        let guess0 = b.var(self.unit.ty);
        b.push(Prim::WarpBroadcast {
            dst: guess0,
            peers: self.peers,
            members: self.members,
            value: seen,
        });
        let (attempt, attempt_params) = b.block(&[self.unit.ty]);
        b.jump(attempt, &[guess0]);
        b.switch_to(attempt);
        (attempt, attempt_params[0])
    }

    /// One attempt's steps, in rank order, from the `expected` value: at each, every lane
    /// applies its operation to the running value and all take the result of the lane whose
    /// turn it is. Returns the running value after the last step (the value the group stores)
    /// and the element this lane applied its operation to.
    fn steps(&self, b: &mut Builder, operand: Var, expected: Var, no_bits: Var) -> (Var, Var) {
        let unit = &self.unit;
        let (step, step_params) = b.block(&[unit.ty, PrimType::I32, self.bits_ty]);
        b.jump(step, &[expected, self.zero, no_bits]);
        b.switch_to(step);
        let (running, turn, kept) = (step_params[0], step_params[1], step_params[2]);
        let mine = b.cmp(CmpCond::Eq, self.rank, turn);
        let element = unit.extract(b, running, self.bits_ty);
        let kept = b.select(mine, element, kept);
        let applied = apply_op(b, self.node.op, self.ty, element, operand, None);
        let applied = unit.insert(b, running, applied);
        let received = b.var(unit.ty);
        b.push(Prim::WarpFromRank {
            dst: received,
            peers: self.peers,
            members: self.peers,
            value: applied,
            rank: turn,
        });
        let next_turn = b.binary(BinaryOp::Add, turn, self.one);
        let more = b.cmp(CmpCond::Ult, next_turn, self.size);
        let (stepped, stepped_params) = b.block(&[unit.ty]);
        b.branch(
            more,
            (step, &[received, next_turn, kept]),
            (stepped, &[received]),
        );
        b.switch_to(stepped);
        (stepped_params[0], kept)
    }

    /// The leader tries to store the group's value over `expected`; every lane learns what it
    /// found, and the group tries again from there (at `attempt`) unless it was `expected`.
    /// Once stored, the lanes wait for each other; returns this lane's kept element.
    fn store(
        &self,
        b: &mut Builder,
        attempt: Block,
        expected: Var,
        group_new: Var,
        kept: Var,
        no_unit: Var,
    ) -> Var {
        let stepped = b.current;
        let (swap, _) = b.block(&[]);
        b.switch_to(swap);
        let seen = b.cas(self.unit.addr, expected, group_new, mem_attrs(self.node));
        let (settled, settled_params) = b.block(&[self.unit.ty]);
        b.jump(settled, &[seen]);
        b.branch_from(stepped, self.leads, (swap, &[]), (settled, &[no_unit]));
        b.switch_to(settled);
        let found = b.var(self.unit.ty);
        b.push(Prim::WarpBroadcast {
            dst: found,
            peers: self.peers,
            members: self.peers,
            value: settled_params[0],
        });
        let stored = b.cmp(CmpCond::Eq, found, expected);
        let (grouped, grouped_params) = b.block(&[self.bits_ty]);
        b.branch(stored, (grouped, &[kept]), (attempt, &[found]));
        b.switch_to(grouped);
        b.push(Prim::WarpSync {
            members: self.members,
        });
        grouped_params[0]
    }
}

/// What one CAS of a group covers: the element itself, or for an 8/16-bit element its aligned
/// 32-bit word, with the element's bit offset inside it. Lanes whose elements share a word form
/// one group, and each applies its operation to its own bits of the word.
#[derive(Clone, Copy)]
pub(super) struct Unit {
    /// The address the CAS acts on: the element's, or its word's.
    pub(super) addr: Var,
    /// The type the CAS acts on.
    pub(super) ty: PrimType,
    /// The element's bit offset in the word (an `i32`), for an 8/16-bit element.
    pub(super) shift: Option<Var>,
}

impl Unit {
    /// The unit of an element of `ty` at `addr`; emits the word's address and the shift.
    pub(super) fn of(b: &mut Builder, ty: ElemType, addr: Var) -> Unit {
        if ty.bits() >= 32 {
            return Unit {
                addr,
                ty: PrimType::int(ty.bits()),
                shift: None,
            };
        }
        let word = b.var(PrimType::Ptr);
        b.push(Prim::PtrAlignDown {
            dst: word,
            ptr: addr,
            align: 4,
        });
        let byte = b.var(PrimType::I32);
        b.push(Prim::PtrLowBits {
            dst: byte,
            ptr: addr,
            align: 4,
        });
        let three = b.constant(PrimType::I32, 3);
        let shift = b.binary(BinaryOp::Shl, byte, three);
        Unit {
            addr: word,
            ty: PrimType::I32,
            shift: Some(shift),
        }
    }

    /// The element's bits in `unit` (a value of the unit's type).
    pub(super) fn extract(&self, b: &mut Builder, unit: Var, bits_ty: PrimType) -> Var {
        match self.shift {
            None => unit,
            Some(shift) => {
                let shifted = b.binary(BinaryOp::LShr, unit, shift);
                b.unary(UnaryOp::Trunc, shifted, bits_ty)
            }
        }
    }

    /// A lane's operation on its element of `word`: the word to store, and the element's bits
    /// as they were (the old value, where that word is stored).
    pub(super) fn step(
        &self,
        b: &mut Builder,
        node: &AtomicNode,
        ty: ElemType,
        operand: Var,
        word: Var,
    ) -> (Var, Var) {
        let element = self.extract(b, word, PrimType::int(ty.bits()));
        let applied = apply_op(b, node.op, ty, element, operand, None);
        (self.insert(b, word, applied), element)
    }

    /// `unit` with the element's bits replaced by `element`.
    pub(super) fn insert(&self, b: &mut Builder, unit: Var, element: Var) -> Var {
        match self.shift {
            None => element,
            Some(shift) => {
                let bits = b.ty(element).bits();
                let ones = b.constant(PrimType::I32, (1u128 << bits) - 1);
                let mask = b.binary(BinaryOp::Shl, ones, shift);
                let all = b.constant(PrimType::I32, u128::from(u32::MAX));
                let keep = b.binary(BinaryOp::Xor, mask, all);
                let others = b.binary(BinaryOp::And, unit, keep);
                let wide = b.unary(UnaryOp::Zext, element, PrimType::I32);
                let placed = b.binary(BinaryOp::Shl, wide, shift);
                b.binary(BinaryOp::Or, others, placed)
            }
        }
    }
}
