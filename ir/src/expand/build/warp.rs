//! Elements carried out once per address by a warp.

use super::{Builder, Carry};
use crate::expand::{BinaryOp, Block, CmpCond, Prim, PrimType, ScanSpan, UnaryOp, Var};
use crate::legal::Lowering;
use crate::node::AtomicNode;
use crate::types::{AtomicOp, ElemType, TypeClass};

// The folds are the expansion's: they live here, so the verdicts in `legal` need no expansion
// vocabulary.
impl Lowering {
    /// The integer op that folds a warp's operands of `op` on `ty` in
    /// [`WarpCombine::Fold`](crate::legal::WarpCombine::Fold) of a CAS loop (masked or not), where they are exact: wrapping add for 8/16-bit
    /// integer add and sub (a group's subtractions are one subtraction of the sum), integer
    /// min/max of the type's signedness. `None` for every other op and type.
    pub const fn warp_fold(op: AtomicOp, ty: ElemType) -> Option<BinaryOp> {
        if !matches!(ty.bits(), 8 | 16) {
            return None;
        }
        let signed = match ty.class() {
            TypeClass::Signed => true,
            TypeClass::Unsigned => false,
            _ => return None,
        };
        match op {
            AtomicOp::Add | AtomicOp::Sub => Some(BinaryOp::Add),
            AtomicOp::Min if signed => Some(BinaryOp::SMin),
            AtomicOp::Min => Some(BinaryOp::UMin),
            AtomicOp::Max if signed => Some(BinaryOp::SMax),
            AtomicOp::Max => Some(BinaryOp::UMax),
            _ => None,
        }
    }

    /// The fold of a native RMW ([`WarpCombine::Fold`](crate::legal::WarpCombine::Fold)) that is
    /// exact only up to rounding: float add for f32 add and sub (a group's subtractions are one
    /// subtraction of the sum). A group's old values and final value are then those of adding the
    /// operands in another order, rounded once per group rather than once per lane: a table uses it
    /// only where the client opted in.
    pub const fn warp_fold_reassociating(op: AtomicOp, ty: ElemType) -> Option<BinaryOp> {
        match (op, ty) {
            (AtomicOp::Add | AtomicOp::Sub, ElemType::F32) => Some(BinaryOp::FAdd),
            _ => None,
        }
    }
}

/// How the lanes of a group fold their operands, and how a lane's old value follows from the
/// group's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum WarpFold {
    /// An integer op on the operands' bits
    /// ([`Lowering::warp_fold`](crate::legal::Lowering::warp_fold)).
    Integer(BinaryOp),
    /// Float add, where the client opted into reassociation.
    FloatAdd,
    /// Float max (`max: true`) or min, folded as the unsigned max or min of [`WarpFold::key`]
    /// ([`WarpCombine::Fold`](crate::legal::WarpCombine::Fold) of
    /// [`ElementLowering::IntMinMax`](crate::legal::ElementLowering::IntMinMax)).
    FloatMinMax {
        /// Max, not min.
        max: bool,
    },
}

impl WarpFold {
    /// The fold by `op`, as [`Lowering::warp_fold`](crate::legal::Lowering::warp_fold) or
    /// [`Lowering::warp_fold_reassociating`](crate::legal::Lowering::warp_fold_reassociating)
    /// name it.
    pub(super) fn of(op: BinaryOp) -> WarpFold {
        if op == BinaryOp::FAdd {
            WarpFold::FloatAdd
        } else {
            WarpFold::Integer(op)
        }
    }

    /// The op [`Prim::WarpScan`] folds the contributions with.
    pub(super) fn scan_op(self) -> BinaryOp {
        match self {
            WarpFold::Integer(op) => op,
            WarpFold::FloatAdd => BinaryOp::FAdd,
            WarpFold::FloatMinMax { max: true } => BinaryOp::UMax,
            WarpFold::FloatMinMax { max: false } => BinaryOp::UMin,
        }
    }

    /// A lane's contribution to the scan: its operand's bits, its float, or its key.
    pub(super) fn contribution(self, b: &mut Builder, ty: ElemType, operand: Var) -> Var {
        match self {
            WarpFold::Integer(_) => b.bits_of(operand),
            WarpFold::FloatAdd => operand,
            WarpFold::FloatMinMax { .. } => self.key(b, ty, operand),
        }
    }

    /// The operand of the element a fold of contributions stands for, in the element's
    /// natural type.
    fn operand_of(self, b: &mut Builder, ty: ElemType, fold: Var) -> Var {
        let bits = match self {
            WarpFold::FloatMinMax { .. } => decode_key(b, ty, fold),
            _ => fold,
        };
        b.unary(UnaryOp::Bitcast, bits, PrimType::natural(ty))
    }

    /// The key of a float min/max operand: for a non-NaN float, its bits with the sign bit set
    /// where it was clear and every bit flipped where it was set, so that the keys' unsigned
    /// order is the floats' order with -0 below +0 (-inf is `0x007f_ffff` for f32, +inf
    /// `0xff80_0000`); for a NaN, the scan's identity (0 for max, all ones for min), below
    /// (above) every non-NaN's key, so that it changes no fold and a fold of NaNs alone decodes
    /// to a NaN.
    fn key(self, b: &mut Builder, ty: ElemType, operand: Var) -> Var {
        let bits = ty.bits();
        let int = PrimType::int(bits);
        let sign = 1u128 << (bits - 1);
        let operand_bits = b.bits_of(operand);
        let sign_bit = b.constant(int, sign);
        let all_ones = b.constant(int, (sign << 1).wrapping_sub(1));
        let negative = b.cmp(CmpCond::Uge, operand_bits, sign_bit);
        let flip = b.select(negative, all_ones, sign_bit);
        let key = b.binary(BinaryOp::Xor, operand_bits, flip);
        let magnitude_mask = b.constant(int, sign - 1);
        let magnitude = b.binary(BinaryOp::And, operand_bits, magnitude_mask);
        let infinity = b.constant(int, super::float_infinity_bits(ty));
        let is_nan = b.cmp(CmpCond::Ugt, magnitude, infinity);
        // The identity of the unsigned max is 0, of the unsigned min all ones.
        let identity = match self {
            WarpFold::FloatMinMax { max: true } => 0,
            _ => (sign << 1).wrapping_sub(1),
        };
        let identity = b.constant(int, identity);
        b.select(is_nan, identity, key)
    }

    /// This lane's old value in the lane-order linearization (the element's bits), from the
    /// group's old value (its bits) and the scan of the lanes below this one.
    pub(super) fn old_in_group(
        self,
        b: &mut Builder,
        node: &AtomicNode,
        ty: ElemType,
        peers: Var,
        group_old_bits: Var,
        below: Var,
    ) -> Var {
        let natural = PrimType::natural(ty);
        let (combine, below) = match self {
            WarpFold::Integer(fold) => {
                let combine = if node.op == AtomicOp::Sub {
                    BinaryOp::Sub
                } else {
                    fold
                };
                return b.binary(combine, group_old_bits, below);
            }
            WarpFold::FloatAdd if node.op == AtomicOp::Sub => (BinaryOp::FSub, below),
            WarpFold::FloatAdd => (BinaryOp::FAdd, below),
            WarpFold::FloatMinMax { max } => {
                let below = self.operand_of(b, ty, below);
                (if max { BinaryOp::FMax } else { BinaryOp::FMin }, below)
            }
        };
        // No float is an identity of add for every value (a NaN plus -0.0 may change its
        // payload), nor of min/max (a NaN min/max a NaN is the canonical NaN), so the lowest
        // lane takes the group's old value as it is.
        let group_old = b.unary(UnaryOp::Bitcast, group_old_bits, natural);
        let folded = b.binary(combine, group_old, below);
        let first = b.var(PrimType::Pred);
        b.push(Prim::WarpFirst { dst: first, peers });
        let old = b.select(first, group_old, folded);
        b.bits_of(old)
    }
}

/// A key of [`WarpFold::key`] back to the float's bits: a key with the top bit set is a
/// non-negative float with that bit cleared, the others a negative one with every bit flipped
/// (the identities decode to NaNs: all ones, and all ones but the sign bit).
fn decode_key(b: &mut Builder, ty: ElemType, key: Var) -> Var {
    let bits = ty.bits();
    let int = PrimType::int(bits);
    let sign = 1u128 << (bits - 1);
    let sign_bit = b.constant(int, sign);
    let all_ones = b.constant(int, (sign << 1).wrapping_sub(1));
    let non_negative = b.cmp(CmpCond::Uge, key, sign_bit);
    let flip = b.select(non_negative, sign_bit, all_ones);
    b.binary(BinaryOp::Xor, key, flip)
}

/// Emits one element carried out once per address by a warp
/// ([`WarpCombine::Fold`](crate::legal::WarpCombine::Fold) of a masked CAS loop, a CAS loop, a
/// native RMW or an integer min/max): the lanes with the
/// same address fold their operands by `fold`
/// ([`Lowering::warp_fold`](crate::legal::Lowering::warp_fold), float add where the client
/// opted into reassociation, or float min/max), the highest of them carries out the element
/// with the fold of all of them (`carry`: the masked CAS loop, the native RMW, or the integer
/// trick), and every lane gets the old value of the linearization in which the group's
/// operations follow each other in lane order: the old value the group's operation replaced,
/// folded with the operands of the lanes below it (for sub, minus their sum). A lane alone at
/// its address carries out its own operation at once. Leaves the builder in the exit block and
/// returns this lane's old value.
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
    fold: WarpFold,
    carry: Carry,
) -> Var {
    let element_ty = PrimType::int(ty.bits());
    let split = PeerSplit::emit(b, addr, ty.bytes(), |b| {
        carry(b, node, ty, addr, operand, None)
    });
    let (peers, members) = (split.peers, split.members);
    let contribution = fold.contribution(b, ty, operand);
    let below = b.var(b.ty(contribution));
    b.push(Prim::WarpScan {
        dst: below,
        op: fold.scan_op(),
        peers,
        members,
        value: contribution,
        span: ScanSpan::Below,
        max_peers: 32,
    });
    let leads = b.var(PrimType::Pred);
    b.push(Prim::WarpLeads { dst: leads, peers });
    b.push(Prim::WarpSync { members });
    let nothing = b.constant(element_ty, 0);
    let group_entry = b.current;

    // The highest lane folds its own operand into the lanes' below it: the whole group's.
    let (leader, _) = b.block(&[]);
    b.switch_to(leader);
    let whole = b.binary(fold.scan_op(), below, contribution);
    let group_operand = fold.operand_of(b, ty, whole);
    let replaced = carry(b, node, ty, addr, group_operand, None);
    let replaced_bits = b.bits_of(replaced);
    let (shared, shared_params) = b.block(&[element_ty]);
    b.jump(shared, &[replaced_bits]);
    b.branch_from(group_entry, leads, (leader, &[]), (shared, &[nothing]));

    b.switch_to(shared);
    let group_old_bits = b.var(element_ty);
    b.push(Prim::WarpBroadcast {
        dst: group_old_bits,
        peers,
        members,
        value: shared_params[0],
    });
    b.push(Prim::WarpSync { members });
    let old_in_group = fold.old_in_group(b, node, ty, peers, group_old_bits, below);
    split.join(b, ty, old_in_group)
}

/// Whether this lane is alone in `peers` (a mask of [`Prim::WarpPeers`]): the mask has one bit,
/// `peers & (peers - 1) == 0`, with `one` and `zero` the `i32` constants. Every lane of a group
/// gets the same answer.
pub(super) fn alone_in(b: &mut Builder, peers: Var, one: Var, zero: Var) -> Var {
    let below_own_bit = b.binary(BinaryOp::Sub, peers, one);
    let others = b.binary(BinaryOp::And, peers, below_own_bit);
    b.cmp(CmpCond::Eq, others, zero)
}

/// The lanes of `members` for which `pred` does not hold: the members of a block that the
/// others branch around, made before the branch.
pub(super) fn members_unless(b: &mut Builder, pred: Var, members: Var) -> Var {
    let entering = b.unary(UnaryOp::Not, pred, PrimType::Pred);
    let dst = b.var(PrimType::I32);
    b.push(Prim::WarpBallot {
        dst,
        pred: entering,
        members,
    });
    dst
}

/// The start every warp-combined element shares: the lanes at one key (`key_stride` bytes
/// apart land in distinct groups) find each other, and a lane alone there carries out its own
/// element at once, in a block of its own. The builder is left at the start of the group's
/// block, which the lanes of a group of two or more reach.
pub(super) struct PeerSplit {
    /// The mask of the lanes at this lane's key, its own included.
    pub(super) peers: Var,
    /// The lanes that reach the group's block, every group of the warp's: the members of a
    /// primitive there that all of them execute.
    pub(super) members: Var,
    /// The `i32` constant 1, made once for the group's code too.
    pub(super) one: Var,
    /// The `i32` constant 0, made once for the group's code too.
    pub(super) zero: Var,
    /// Where the lone lane's code ends, and its old value's bits there.
    solo_end: Block,
    own_old_bits: Var,
}

impl PeerSplit {
    /// Emits the split; `solo` emits the lone lane's element and returns its old value.
    pub(super) fn emit(
        b: &mut Builder,
        key: Var,
        key_stride: u32,
        solo: impl FnOnce(&mut Builder) -> Var,
    ) -> PeerSplit {
        let active = b.var(PrimType::I32);
        b.push(Prim::WarpActive { dst: active });
        let peers = b.var(PrimType::I32);
        b.push(Prim::WarpPeers {
            dst: peers,
            key,
            key_stride,
            members: active,
        });
        let one = b.constant(PrimType::I32, 1);
        let zero = b.constant(PrimType::I32, 0);
        let alone = alone_in(b, peers, one, zero);
        let members = members_unless(b, alone, active);
        let entry = b.current;
        // Blocks in layout order, the exit last; branches to later blocks are set once they
        // exist.
        let (solo_block, _) = b.block(&[]);
        b.switch_to(solo_block);
        let own_old = solo(b);
        let own_old_bits = b.bits_of(own_old);
        let solo_end = b.current;

        let (group, _) = b.block(&[]);
        b.branch_from(entry, alone, (solo_block, &[]), (group, &[]));
        b.switch_to(group);
        PeerSplit {
            peers,
            members,
            one,
            zero,
            solo_end,
            own_old_bits,
        }
    }

    /// Joins the group's lanes, whose old value's bits are `group_old_bits`, with the lone
    /// lane in the exit block, where it leaves the builder; returns this lane's old value in
    /// the element's natural type.
    pub(super) fn join(self, b: &mut Builder, ty: ElemType, group_old_bits: Var) -> Var {
        let (done, done_params) = b.block(&[PrimType::int(ty.bits())]);
        b.jump(done, &[group_old_bits]);
        b.switch_to(self.solo_end);
        b.jump(done, &[self.own_old_bits]);

        b.switch_to(done);
        b.unary(UnaryOp::Bitcast, done_params[0], PrimType::natural(ty))
    }
}
