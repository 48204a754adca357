//! One attempt of a CAS loop without its retry ([`OneAttempt`]), and the first load every CAS
//! loop starts from ([`first_load`]).

use super::{mem_attrs, skips_unchanged, Builder};
use crate::expand::{Block, CmpCond, MemAttrs, Prim, PrimType, UnaryOp, Var};
use crate::node::AtomicNode;
use crate::types::{ElemType, MemoryOrder};

/// The first load of a CAS loop: of the `bits_ty` word at `addr`, relaxed (only a guess, which
/// the CAS validates), or with the node's order (`mem`) where the loop may leave without a CAS
/// (`skip`, [`skips_unchanged`]): the read is then the whole operation.
pub(super) fn first_load(
    b: &mut Builder,
    addr: Var,
    bits_ty: PrimType,
    mem: MemAttrs,
    skip: bool,
) -> Var {
    let loaded = b.var(bits_ty);
    b.push(Prim::Load {
        dst: loaded,
        addr,
        mem: MemAttrs {
            order: if skip {
                mem.order
            } else {
                MemoryOrder::Relaxed
            },
            ..mem
        },
    });
    loaded
}

/// The first attempt of a CAS loop on the `bits_ty` word at `addr`, alone: the first load,
/// `new = compute(loaded)` and one CAS with the node's memory attributes; where
/// [`skips_unchanged`] allows it, a `new` equal to what was loaded leaves without the CAS, as
/// the loop would. [`OneAttempt::or_else`] sends the lanes whose CAS failed on to what copes
/// with contention.
pub(super) struct OneAttempt {
    /// The block that loaded and computed, and its test that `new` is what it loaded, where the
    /// attempt may leave without a CAS.
    unchanged: Option<(Block, Var)>,
    /// The block of the CAS, whether it stored, and the unit it found there.
    cas: Block,
    stored: Var,
    seen: Var,
    /// The element's old value (its bits) where the attempt succeeds.
    old: Var,
}

impl OneAttempt {
    /// Emits the attempt; `compute` returns the word to store and the element's bits in the
    /// word it is given (the old value where the attempt succeeds).
    pub(super) fn emit(
        b: &mut Builder,
        node: &AtomicNode,
        addr: Var,
        bits_ty: PrimType,
        compute: impl FnOnce(&mut Builder, Var) -> (Var, Var),
    ) -> Self {
        let mem = mem_attrs(node);
        let skip = skips_unchanged(node.op, mem.order);
        let loaded = first_load(b, addr, bits_ty, mem, skip);
        let (new, old) = compute(b, loaded);
        let unchanged = skip.then(|| (b.current, b.cmp(CmpCond::Eq, new, loaded)));
        // Blocks in layout order, the exit last; branches to it are set once it exists.
        let cas = match unchanged {
            Some(_) => {
                let (cas, _) = b.block(&[]);
                b.switch_to(cas);
                cas
            }
            None => b.current,
        };
        let seen = b.cas(addr, loaded, new, mem);
        let stored = b.cmp(CmpCond::Eq, seen, loaded);
        OneAttempt {
            unchanged,
            cas,
            stored,
            seen,
            old,
        }
    }

    /// Leaves with the attempt's old value where it succeeded; where its CAS failed, runs
    /// `contended`, given the unit the failed CAS found (a read with the node's attributes, as
    /// good a start for a loop as a fresh load), which returns the old value in the element's
    /// natural type. Leaves the builder in the exit block and returns this lane's old value in
    /// `ty`'s natural type.
    pub(super) fn or_else(
        self,
        b: &mut Builder,
        ty: ElemType,
        contended: impl FnOnce(&mut Builder, Var) -> Var,
    ) -> Var {
        let (contended_block, _) = b.block(&[]);
        b.switch_to(contended_block);
        let replaced = contended(b, self.seen);
        let replaced_bits = b.bits_of(replaced);
        let (done, done_params) = b.block(&[PrimType::int(ty.bits())]);
        b.jump(done, &[replaced_bits]);
        let old = [self.old];
        b.branch_from(self.cas, self.stored, (done, &old), (contended_block, &[]));
        if let Some((entry, unchanged)) = self.unchanged {
            b.branch_from(entry, unchanged, (done, &old), (self.cas, &[]));
        }
        b.switch_to(done);
        b.unary(UnaryOp::Bitcast, done_params[0], PrimType::natural(ty))
    }
}
