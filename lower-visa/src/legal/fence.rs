//! How orders are carried on vISA, and stand-alone fences.
//!
//! Messages carry no order: the fences of the shared [`FenceBracket`] under the
//! table's [`FencePolicy::RelaxedBetweenFences`] surround them, as for every RMW (an acquire
//! load has its fence after it, a release store before it, a seq_cst access both), so loads,
//! stores and RMWs of one order agree. A stand-alone fence is spelled as those fences: the
//! leading one for its release part, the trailing one for its acquire part (one of them where
//! both spell the same, as `evict` below system scope does).

use atomir_ir::lower::{FenceBracket, FencePolicy};
use atomir_ir::{Fence, Legality, Refusal, Rewrite, Scope};

use super::VisaPlan;
use crate::target::VisaTarget;

/// Messages carry no order: fences before and after them do.
pub(crate) const FENCES: FencePolicy = FencePolicy::RelaxedBetweenFences;

/// The table's answer for a stand-alone fence: every order at every scope, `cluster` widened to
/// the device as for accesses.
pub(crate) fn fence_plan(_target: VisaTarget, fence: &Fence) -> Result<VisaPlan, Refusal> {
    let mut legality = Legality::native();
    if fence.scope == Scope::Cluster {
        legality.rewrites.push(Rewrite::ScopeWidened {
            from: Scope::Cluster,
            to: Scope::Device,
        });
    }
    Ok(VisaPlan {
        legality,
        message: None,
    })
}

/// The fences that spell a stand-alone fence: those around an access of the fence's order.
pub(crate) const fn standalone_bracket(fence: &Fence) -> FenceBracket {
    const _: () = assert!(matches!(FENCES, FencePolicy::RelaxedBetweenFences));
    FenceBracket::around(fence.order, FENCES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use atomir_ir::lower::FenceSide;
    use atomir_ir::MemoryOrder;

    /// A fence's bracket orders what the fence orders: a release part before, an acquire part
    /// after, never neither.
    #[test]
    fn standalone_fences_keep_their_order() {
        for &order in MemoryOrder::ALL.iter().filter(|o| o.is_fence_order()) {
            let bracket = standalone_bracket(&Fence {
                order,
                scope: Scope::Device,
            });
            assert_eq!(
                bracket.leading.is_some(),
                order.has_release(),
                "{order}: {bracket:?}"
            );
            assert_eq!(
                bracket.trailing.map(|f| f.side),
                order.has_acquire().then_some(FenceSide::Trailing),
                "{order}: {bracket:?}"
            );
        }
    }
}
