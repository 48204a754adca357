//! The rewrites a verdict records.

use std::fmt;

use crate::rule::RuleId;
use crate::types::{MemoryOrder, Scope};

/// A meaning-preserving change of the node before it is emitted. Every rewrite keeps or
/// strengthens order and scope; one that strengthens says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rewrite {
    /// `sub x` as `add (-x)`, negated in the IR (never as text).
    SubAsAddOfNegation,
    /// A relaxed or release RMW whose result is unused, as a reduction (`red`). Never for an
    /// order with an acquire part.
    DeadResultAsReduction,
    /// `seq_cst` as a sequentially consistent fence followed by an acquire RMW.
    SeqCstAsFenceThenAcquire,
    /// `seq_cst` as a sequentially consistent fence followed by a relaxed access (a store).
    SeqCstAsFenceThenRelaxed,
    /// The order expressed by fences around a relaxed operation (targets without ordered atomics).
    OrderAsFences,
    /// `inc`/`dec` whose bound is all ones, as the target's unbounded wrapping increment/decrement.
    UnboundedIncDec,
    /// The target names the op on a type of the same width and class (e.g. `add.s32` as `add.u32`,
    /// bitwise ops on the untyped spelling).
    RetypedSameBits,
    /// The scope widened because the narrower one cannot be expressed on the target.
    ScopeWidened {
        /// The node's scope.
        from: Scope,
        /// The wider scope emitted.
        to: Scope,
    },
    /// The order strengthened because the weaker one cannot be expressed on the target.
    OrderStrengthened {
        /// The node's order.
        from: MemoryOrder,
        /// The stronger order emitted (`to.implies(from)` holds).
        to: MemoryOrder,
    },
    /// The node's cache hint left out: the target has no form of this node with a hint (a hint
    /// is a performance hint only and never changes a result, so it is never a refusal).
    CacheHintDropped,
    /// Opt-in only (the client asserted it, e.g. PTX's `+packed-half-add`): a scalar 16-bit
    /// float add as the packed two-lane add on the aligned 32-bit word that contains it, the
    /// operand in the addressed half and -0.0 in the other, which `x + -0.0` leaves bit for
    /// bit unchanged unless `x` is a NaN (a NaN there may come back as another NaN). Not a
    /// meaning-preserving rewrite without the client's assertion, so never a default.
    HalfAddOnPackedWord,
    /// Opt-in only (the client asserted it, e.g. PTX's `+reassociate-float-add`): a relaxed f32
    /// add/sub carried out once per address by a warp
    /// ([`WarpCombine::Fold`](super::WarpCombine::Fold) of a native RMW), the lanes' operands
    /// summed first: each lane's old value and the final value are those of another order of the
    /// additions, rounded differently. Never a default.
    FloatAddReassociated,
    /// The node is emulated although the target has an instruction of its op and type: that
    /// instruction's results are weaker than the node's where the node is (e.g. it flushes
    /// subnormals on global memory), as `rule` says. The emulation is exact.
    ExactForWeakerNative {
        /// The rule naming what the native instruction would weaken.
        rule: RuleId,
    },
}

impl fmt::Display for Rewrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rewrite::SubAsAddOfNegation => f.write_str("sub as add of the negation"),
            Rewrite::DeadResultAsReduction => f.write_str("unused result as a reduction"),
            Rewrite::SeqCstAsFenceThenAcquire => f.write_str("seq_cst as fence + acquire"),
            Rewrite::SeqCstAsFenceThenRelaxed => f.write_str("seq_cst as fence + relaxed"),
            Rewrite::OrderAsFences => f.write_str("order as fences around a relaxed op"),
            Rewrite::UnboundedIncDec => f.write_str("all-ones bound as unbounded inc/dec"),
            Rewrite::RetypedSameBits => f.write_str("same bits, target's type spelling"),
            Rewrite::ScopeWidened { from, to } => write!(f, "scope widened {from} -> {to}"),
            Rewrite::OrderStrengthened { from, to } => {
                write!(f, "order strengthened {from} -> {to}")
            }
            Rewrite::CacheHintDropped => f.write_str("cache hint left out: no form with a hint"),
            Rewrite::FloatAddReassociated => f.write_str(
                "opt-in: f32 adds of a warp's lanes at one address summed first (rounded as \
                 another order of the additions)",
            ),
            Rewrite::ExactForWeakerNative { rule } => write!(
                f,
                "emulated exactly: the native instruction is weaker here [rule {rule}]"
            ),
            Rewrite::HalfAddOnPackedWord => f.write_str(
                "opt-in: packed add on the 32-bit word, -0.0 in the other half (a NaN there \
                 may change)",
            ),
        }
    }
}
