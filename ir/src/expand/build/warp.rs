//! Elements carried out once per address by a warp.

use smallvec::{smallvec, SmallVec};

use super::{Builder, Carry};
use crate::expand::{BinaryOp, CmpCond, Edge, Prim, PrimType, Terminator, UnaryOp, Var};
use crate::node::AtomicNode;
use crate::types::{AtomicOp, ElemType};

/// Emits one element carried out once per address by a warp ([`Lowering::WarpMaskedCasLoop`](crate::legal::Lowering::WarpMaskedCasLoop),
/// [`Lowering::WarpNative`](crate::legal::Lowering::WarpNative)): the lanes with the same address fold their operands by `fold`
/// ([`Lowering::warp_fold`](crate::legal::Lowering::warp_fold), or float add where the client opted into reassociation), the
/// highest of them carries out the element with the fold of all of them (`carry`: the masked
/// CAS loop, or the native RMW), and every lane gets the old value of the linearization in
/// which the group's operations follow each other in lane order: the old value the group's
/// operation replaced, folded with the operands of the lanes below it (for sub, minus their
/// sum). A lane alone at its address carries out its own operation at once. Leaves the builder
/// in the exit block and returns this lane's old value.
///
/// The lanes of a group wait for each other, with ordering, before the operation (so each
/// lane's earlier accesses to the location come before the operation done for it) and after
/// the old value is shared (so its later accesses come after).
pub(super) fn warp_combined_element(
    b: &mut Builder,
    node: &AtomicNode,
    ty: ElemType,
    addr: Var,
    operand: Var,
    fold: BinaryOp,
    carry: Carry,
) -> Var {
    let natural = PrimType::natural(ty);
    let element_ty = PrimType::int(ty.bits());
    let peers = b.var(PrimType::I32);
    b.push(Prim::WarpPeers {
        dst: peers,
        key: addr,
        key_stride: ty.bytes(),
    });
    // Alone: the mask has one bit, `peers & (peers - 1) == 0`.
    let one = b.constant(PrimType::I32, 1);
    let zero = b.constant(PrimType::I32, 0);
    let below_own_bit = b.binary(BinaryOp::Sub, peers, one);
    let others = b.binary(BinaryOp::And, peers, below_own_bit);
    let alone = b.cmp(CmpCond::Eq, others, zero);
    let entry = b.current;
    // Blocks in layout order, the exit last; branches to later blocks are set once they exist.
    let (solo, _) = b.block(&[]);
    b.switch_to(solo);
    let own_old = carry(b, node, ty, addr, operand, None);
    let own_old_bits = b.bits_of(own_old);
    let solo_end = b.current;

    let (group, _) = b.block(&[]);
    b.expansion.blocks[entry].terminator = Terminator::Branch {
        cond: alone,
        then: Edge {
            block: solo,
            args: SmallVec::new(),
        },
        otherwise: Edge {
            block: group,
            args: SmallVec::new(),
        },
    };
    b.switch_to(group);
    // Integer folds run on the operands' bits, float add on the floats.
    let contribution = if fold.is_float() {
        operand
    } else {
        b.bits_of(operand)
    };
    let below = b.var(b.ty(contribution));
    b.push(Prim::WarpScan {
        dst: below,
        op: fold,
        peers,
        value: contribution,
        inclusive: false,
    });
    let leads = b.var(PrimType::Pred);
    b.push(Prim::WarpLeads { dst: leads, peers });
    b.push(Prim::WarpSync { peers });
    let nothing = b.constant(element_ty, 0);
    let group_entry = b.current;

    // The highest lane folds its own operand into the lanes' below it: the whole group's.
    let (leader, _) = b.block(&[]);
    b.switch_to(leader);
    let whole = b.binary(fold, below, contribution);
    let group_operand = b.unary(UnaryOp::Bitcast, whole, natural);
    let replaced = carry(b, node, ty, addr, group_operand, None);
    let replaced_bits = b.bits_of(replaced);
    let (shared, shared_params) = b.block(&[element_ty]);
    b.jump(shared, &[replaced_bits]);
    b.expansion.blocks[group_entry].terminator = Terminator::Branch {
        cond: leads,
        then: Edge {
            block: leader,
            args: SmallVec::new(),
        },
        otherwise: Edge {
            block: shared,
            args: smallvec![nothing],
        },
    };

    b.switch_to(shared);
    let group_old_bits = b.var(element_ty);
    b.push(Prim::WarpBroadcast {
        dst: group_old_bits,
        peers,
        value: shared_params[0],
    });
    b.push(Prim::WarpSync { peers });
    let old_in_group = if fold.is_float() {
        // No float is an identity of add for every value (a NaN plus -0.0 may change its
        // payload), so the lowest lane takes the group's old value as it is.
        let group_old = b.unary(UnaryOp::Bitcast, group_old_bits, natural);
        let combine = if node.op == AtomicOp::Sub {
            BinaryOp::FSub
        } else {
            BinaryOp::FAdd
        };
        let folded = b.binary(combine, group_old, below);
        let first = b.var(PrimType::Pred);
        b.push(Prim::WarpFirst { dst: first, peers });
        let old = b.select(first, group_old, folded);
        b.bits_of(old)
    } else {
        let combine = if node.op == AtomicOp::Sub {
            BinaryOp::Sub
        } else {
            fold
        };
        b.binary(combine, group_old_bits, below)
    };
    let (done, done_params) = b.block(&[element_ty]);
    b.jump(done, &[old_in_group]);
    b.switch_to(solo_end);
    b.jump(done, &[own_old_bits]);

    b.switch_to(done);
    b.unary(UnaryOp::Bitcast, done_params[0], natural)
}
