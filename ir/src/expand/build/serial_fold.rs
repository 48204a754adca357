//! Elements carried out once per address by a warp whose lanes' operations are applied one
//! after another, in lane order, inside one CAS attempt ([`Lowering::WarpSerialFold`]).
//!
//! [`Lowering::WarpSerialFold`]: crate::legal::Lowering::WarpSerialFold

use smallvec::SmallVec;

use super::{apply_op, cas_loop_element, masked_cas_loop_element, mem_attrs, Builder};
use crate::expand::{
    BinaryOp, Block, CmpCond, Edge, MemAttrs, Prim, PrimType, Terminator, UnaryOp, Var,
};
use crate::node::AtomicNode;
use crate::types::{ElemType, MemoryOrder};

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
    let natural = PrimType::natural(ty);
    let bits_ty = PrimType::int(ty.bits());
    let unit = Unit::of(b, ty, addr);
    let peers = b.var(PrimType::I32);
    b.push(Prim::WarpPeers {
        dst: peers,
        key: unit.addr,
        key_stride: unit.ty.bits() / 8,
    });
    let one = b.constant(PrimType::I32, 1);
    let zero = b.constant(PrimType::I32, 0);
    let below_own_bit = b.binary(BinaryOp::Sub, peers, one);
    let others = b.binary(BinaryOp::And, peers, below_own_bit);
    let alone = b.cmp(CmpCond::Eq, others, zero);
    let entry = b.current;

    let (solo, _) = b.block(&[]);
    b.switch_to(solo);
    let own_old = if unit.shift.is_some() {
        masked_cas_loop_element(b, node, ty, addr, operand, None)
    } else {
        cas_loop_element(b, node, ty, addr, operand, None)
    };
    let own_old_bits = b.bits_of(own_old);
    let solo_end = b.current;

    let (group, _) = b.block(&[]);
    branch(b, entry, alone, solo, group);
    b.switch_to(group);
    let rank = b.var(PrimType::I32);
    b.push(Prim::WarpScan {
        dst: rank,
        op: BinaryOp::Add,
        peers,
        value: one,
        inclusive: false,
    });
    let leads = b.var(PrimType::Pred);
    b.push(Prim::WarpLeads { dst: leads, peers });
    // The highest lane's rank plus one: the group's size.
    let rank_plus_one = b.binary(BinaryOp::Add, rank, one);
    let size = b.var(PrimType::I32);
    b.push(Prim::WarpBroadcast {
        dst: size,
        peers,
        value: rank_plus_one,
    });
    b.push(Prim::WarpSync { peers });
    let no_unit = b.constant(unit.ty, 0);
    let no_bits = b.constant(bits_ty, 0);
    let group_entry = b.current;

    // The leader reads the first expected value; every lane of the group receives it.
    let (load, _) = b.block(&[]);
    b.switch_to(load);
    let mem = mem_attrs(node);
    let loaded = b.var(unit.ty);
    b.push(Prim::Load {
        dst: loaded,
        addr: unit.addr,
        mem: MemAttrs {
            order: MemoryOrder::Relaxed,
            ..mem
        },
    });
    let (first_guess, first_guess_params) = b.block(&[unit.ty]);
    b.jump(first_guess, &[loaded]);
    branch_with(b, group_entry, leads, load, &[], first_guess, &[no_unit]);
    b.switch_to(first_guess);
    let guess0 = b.var(unit.ty);
    b.push(Prim::WarpBroadcast {
        dst: guess0,
        peers,
        value: first_guess_params[0],
    });
    let (attempt, attempt_params) = b.block(&[unit.ty]);
    b.jump(attempt, &[guess0]);

    // One attempt: the steps, in rank order, from the expected value.
    b.switch_to(attempt);
    let expected = attempt_params[0];
    let (step, step_params) = b.block(&[unit.ty, PrimType::I32, bits_ty]);
    b.jump(step, &[expected, zero, no_bits]);
    b.switch_to(step);
    let (running, turn, kept) = (step_params[0], step_params[1], step_params[2]);
    let mine = b.cmp(CmpCond::Eq, rank, turn);
    let element = unit.extract(b, running, bits_ty);
    let kept = b.select(mine, element, kept);
    let applied = apply_op(b, node.op, ty, element, operand, None);
    let applied = unit.insert(b, running, applied);
    let received = b.var(unit.ty);
    b.push(Prim::WarpFromRank {
        dst: received,
        peers,
        value: applied,
        rank: turn,
    });
    let next_turn = b.binary(BinaryOp::Add, turn, one);
    let more = b.cmp(CmpCond::Ult, next_turn, size);
    let (stepped, stepped_params) = b.block(&[unit.ty]);
    b.terminate(Terminator::Branch {
        cond: more,
        then: Edge {
            block: step,
            args: SmallVec::from_slice(&[received, next_turn, kept]),
        },
        otherwise: Edge {
            block: stepped,
            args: SmallVec::from_slice(&[received]),
        },
    });

    // The leader's value after every step is the group's: it tries to store it.
    b.switch_to(stepped);
    let group_new = stepped_params[0];
    let (swap, _) = b.block(&[]);
    b.switch_to(swap);
    let seen = b.var(unit.ty);
    b.push(Prim::Cas {
        dst: seen,
        addr: unit.addr,
        expected,
        new: group_new,
        mem,
    });
    let (settled, settled_params) = b.block(&[unit.ty]);
    b.jump(settled, &[seen]);
    branch_with(b, stepped, leads, swap, &[], settled, &[no_unit]);
    b.switch_to(settled);
    let found = b.var(unit.ty);
    b.push(Prim::WarpBroadcast {
        dst: found,
        peers,
        value: settled_params[0],
    });
    let stored = b.cmp(CmpCond::Eq, found, expected);
    let (grouped, grouped_params) = b.block(&[bits_ty]);
    b.terminate(Terminator::Branch {
        cond: stored,
        then: Edge {
            block: grouped,
            args: SmallVec::from_slice(&[kept]),
        },
        otherwise: Edge {
            block: attempt,
            args: SmallVec::from_slice(&[found]),
        },
    });
    b.switch_to(grouped);
    b.push(Prim::WarpSync { peers });
    let (done, done_params) = b.block(&[bits_ty]);
    b.jump(done, &[grouped_params[0]]);
    b.switch_to(solo_end);
    b.jump(done, &[own_old_bits]);

    b.switch_to(done);
    b.unary(UnaryOp::Bitcast, done_params[0], natural)
}

/// What one CAS of a group covers: the element itself, or for an 8/16-bit element its aligned
/// 32-bit word, with the element's bit offset inside it. Lanes whose elements share a word form
/// one group, and each applies its operation to its own bits of the word.
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

/// Ends `from` with a branch on `cond` to two blocks without arguments.
fn branch(b: &mut Builder, from: Block, cond: Var, then: Block, otherwise: Block) {
    branch_with(b, from, cond, then, &[], otherwise, &[]);
}

/// Ends `from` with a branch on `cond` to `then` and `otherwise` with their arguments.
pub(super) fn branch_with(
    b: &mut Builder,
    from: Block,
    cond: Var,
    then: Block,
    then_args: &[Var],
    otherwise: Block,
    otherwise_args: &[Var],
) {
    b.expansion.blocks[from].terminator = Terminator::Branch {
        cond,
        then: Edge {
            block: then,
            args: SmallVec::from_slice(then_args),
        },
        otherwise: Edge {
            block: otherwise,
            args: SmallVec::from_slice(otherwise_args),
        },
    };
}
