//! Fence bracketing, decided once (LLVM's `bracketInstWithFences` with its
//! `emitLeadingFence`/`emitTrailingFence` split): from an access's memory order and the target's
//! [`FencePolicy`], the fences before and after it and the order left on the access itself.
//! Printers only spell the [`Fence`]s they are given.

use crate::legal::Rewrite;
use crate::types::MemoryOrder;

/// The kind of atomic access a memory order is carried on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// A read-modify-write (`atom`, `atomicrmw`, an atomic message).
    Rmw,
    /// A compare-and-swap.
    Cas,
    /// An atomic load.
    Load,
    /// An atomic store.
    Store,
    /// A CAS retry loop as a whole (an expansion whose
    /// [`crate::legal::Lowering::has_retry_loop`], the integer atomic of
    /// [`crate::legal::ElementLowering::IntMinMax`] before its NaN loop included):
    /// under [`FencePolicy::RelaxedBetweenFences`] its order is one fence before the loop's
    /// first load and one after its exit, every access inside relaxed, so that a retry runs no
    /// fence (LLVM AtomicExpand's `emitLeadingFence`/`emitTrailingFence` around
    /// `insertRMWCmpXchgLoop`); under any other policy each access of the loop keeps its own
    /// bracket, the CAS its full order on every retry.
    Loop,
}

/// How a target carries a memory order on an atomic access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FencePolicy {
    /// The order is spelled on the access itself.
    OnAccess,
    /// `seq_cst` is a leading sequentially consistent fence and an acquire access; every other
    /// order is spelled on the access (PTX from sm_70).
    SeqCstFenceThenAcquire,
    /// `seq_cst` is a leading sequentially consistent fence and a relaxed access; every other
    /// order is spelled on the access (PTX stores from sm_70: a store has no acquire part, and
    /// the leading `fence.sc` is the same one a seq_cst load or RMW has).
    SeqCstFenceThenRelaxed,
    /// The access is relaxed, between a leading fence for the order's release part and a
    /// trailing fence for its acquire part (PTX before sm_70, vISA messages, LLVM's NVPTX
    /// `atomicrmw`, whose order llc drops).
    RelaxedBetweenFences,
}

impl FencePolicy {
    /// The rewrite a verdict records for an access of `order` under this policy, if the order is
    /// not simply spelled on the access.
    pub const fn rewrite(self, order: MemoryOrder) -> Option<Rewrite> {
        match (self, order) {
            (FencePolicy::SeqCstFenceThenAcquire, MemoryOrder::SeqCst) => {
                Some(Rewrite::SeqCstAsFenceThenAcquire)
            }
            (FencePolicy::SeqCstFenceThenRelaxed, MemoryOrder::SeqCst) => {
                Some(Rewrite::SeqCstAsFenceThenRelaxed)
            }
            (FencePolicy::RelaxedBetweenFences, order)
                if !matches!(order, MemoryOrder::Relaxed) =>
            {
                Some(Rewrite::OrderAsFences)
            }
            _ => None,
        }
    }
}

/// Which side of its access a fence stands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FenceSide {
    /// Before the access (its release part).
    Leading,
    /// After the access (its acquire part).
    Trailing,
}

/// One fence for a printer to spell: its side and the order it must provide (`seq_cst` or
/// `release` before the access, `acquire` after it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fence {
    /// Before or after the access.
    pub side: FenceSide,
    /// The order the fence must provide.
    pub order: MemoryOrder,
}

impl Fence {
    const fn leading(order: MemoryOrder) -> Option<Fence> {
        Some(Fence {
            side: FenceSide::Leading,
            order,
        })
    }
}

/// The fences around one access and the order left on the access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FenceBracket {
    /// The fence before the access, if the order needs one.
    pub leading: Option<Fence>,
    /// The order spelled on the access itself.
    pub order: MemoryOrder,
    /// The fence after the access, if the order needs one.
    pub trailing: Option<Fence>,
}

impl FenceBracket {
    /// The bracket of an access of `order` under `policy`. Together, the fences and the
    /// access's own order give at least `order`: never weaker.
    pub const fn around(order: MemoryOrder, policy: FencePolicy) -> Self {
        match policy {
            FencePolicy::OnAccess => FenceBracket::bare(order),
            FencePolicy::SeqCstFenceThenAcquire => match order {
                MemoryOrder::SeqCst => FenceBracket {
                    leading: Fence::leading(MemoryOrder::SeqCst),
                    order: MemoryOrder::Acquire,
                    trailing: None,
                },
                order => FenceBracket::bare(order),
            },
            FencePolicy::SeqCstFenceThenRelaxed => match order {
                MemoryOrder::SeqCst => FenceBracket {
                    leading: Fence::leading(MemoryOrder::SeqCst),
                    order: MemoryOrder::Relaxed,
                    trailing: None,
                },
                order => FenceBracket::bare(order),
            },
            FencePolicy::RelaxedBetweenFences => FenceBracket {
                leading: if !order.has_release() {
                    None
                } else if matches!(order, MemoryOrder::SeqCst) {
                    Fence::leading(MemoryOrder::SeqCst)
                } else {
                    Fence::leading(MemoryOrder::Release)
                },
                order: MemoryOrder::Relaxed,
                trailing: if order.has_acquire() {
                    Some(Fence {
                        side: FenceSide::Trailing,
                        order: MemoryOrder::Acquire,
                    })
                } else {
                    None
                },
            },
        }
    }

    /// An access that carries `order` itself, without fences.
    pub const fn bare(order: MemoryOrder) -> Self {
        FenceBracket {
            leading: None,
            order,
            trailing: None,
        }
    }

    /// Whether the access needs no fence.
    pub const fn is_bare(&self) -> bool {
        self.leading.is_none() && self.trailing.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fences and the access together never weaken the order: each fence orders what its side
    /// asks for, and the access keeps the rest.
    #[test]
    fn brackets_never_weaken() {
        for &policy in &[
            FencePolicy::OnAccess,
            FencePolicy::SeqCstFenceThenAcquire,
            FencePolicy::SeqCstFenceThenRelaxed,
            FencePolicy::RelaxedBetweenFences,
        ] {
            for &order in MemoryOrder::ALL {
                let bracket = FenceBracket::around(order, policy);
                let release = bracket.order.has_release()
                    || bracket.leading.is_some_and(|f| f.order.has_release());
                let acquire = bracket.order.has_acquire()
                    || bracket.trailing.is_some_and(|f| f.order.has_acquire())
                    || bracket
                        .leading
                        .is_some_and(|f| f.order == MemoryOrder::SeqCst);
                let seq_cst = bracket.order == MemoryOrder::SeqCst
                    || bracket
                        .leading
                        .is_some_and(|f| f.order == MemoryOrder::SeqCst);
                assert!(!order.has_release() || release, "{policy:?} {order}");
                assert!(!order.has_acquire() || acquire, "{policy:?} {order}");
                assert!(
                    order != MemoryOrder::SeqCst || seq_cst,
                    "{policy:?} {order}"
                );
                assert_eq!(
                    policy.rewrite(order).is_none(),
                    bracket == FenceBracket::bare(order),
                    "{policy:?} {order}"
                );
            }
        }
    }
}
