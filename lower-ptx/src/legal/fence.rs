//! How PTX carries a memory order, and stand-alone fences.

use atomir_ir::lower::FencePolicy;
use atomir_ir::{Fence, Legality, MemoryOrder, Rewrite};

use super::{printed_scope, Form, PtxPlan};
use crate::target::{Feature, PtxTarget};

/// How every PTX CAS retry loop (and float min/max by integer atomics, whose NaN path is one)
/// carries its order: relaxed accesses between a leading fence
/// (`fence.sc` for seq_cst, `fence.release` for a release part; `membar` before sm_70) before the
/// loop's first load and a trailing `fence.acquire` (`membar`) after its exit, so no retry runs
/// a fence; `fence.acq_rel`, stronger than either, stands for both where the target lacks them
/// (before sm_90 or PTX ISA 8.6). Sound under the PTX memory model: the leading fence followed in program order by the
/// loop's strong writes at the node's scope (the successful `atom.cas` among them) is a release
/// pattern, and the loop's strong reads (the one the result comes from among them) followed by
/// the trailing fence an acquire pattern, each morally strong with its peers at the node's scope;
/// a release (acquire) pattern synchronizes as a release (acquire) `atom` does, and only the
/// loop's own accesses of the same word lie between pattern and loop. seq_cst keeps the leading
/// `fence.sc` of the mapping it has on a native RMW (`fence.sc; atom.acquire`), its acquire part
/// the acquire pattern the PTX atomics ABI also allows a seq_cst load (`fence.sc; ld.relaxed;
/// fence.acquire`); `fence.acq_rel` is stronger than `fence.acquire`. Before sm_70 a `membar` is
/// a full fence (`fence.sc` from sm_70) on each side.
pub(crate) const LOOP_FENCES: FencePolicy = FencePolicy::RelaxedBetweenFences;

/// How PTX carries a memory order: `.sem` qualifiers and `fence.sc` from sm_70, `membar`s
/// around a relaxed-form op before (a membar is sequentially consistent).
pub(crate) fn fence_policy(target: PtxTarget) -> FencePolicy {
    if target.has(Feature::Sem) {
        FencePolicy::SeqCstFenceThenAcquire
    } else {
        FencePolicy::RelaxedBetweenFences
    }
}

/// A stand-alone fence: `fence.sc` for seq_cst, `fence.acquire`/`fence.release`/`fence.acq_rel`
/// for the other orders where the target has the first two (sm_90, PTX ISA 8.6), `fence.acq_rel`
/// for all three before (an acquire or release fence strengthened), a `membar` of the scope's
/// level before sm_70 (sequentially consistent).
pub(super) fn plan(fence: &Fence, target: PtxTarget) -> PtxPlan {
    let mut legality = Legality::native();
    let scope = printed_scope(fence.scope, target, &mut legality);
    let printed = if !target.has(Feature::Sem) || fence.order == MemoryOrder::SeqCst {
        MemoryOrder::SeqCst
    } else if target.has(Feature::SplitFences) {
        fence.order
    } else {
        MemoryOrder::AcqRel
    };
    if printed != fence.order {
        legality.rewrites.push(Rewrite::OrderStrengthened {
            from: fence.order,
            to: printed,
        });
    }
    PtxPlan {
        legality,
        scope,
        form: Form::Fence,
        fences: FencePolicy::OnAccess,
    }
}
