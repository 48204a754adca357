//! Atomic loads and stores: `ld`/`st` with the order's qualifiers.

use atomir_ir::lower::FencePolicy;
use atomir_ir::{AtomicNode, AtomicOp, ElemType, ElementLowering, Legality, Lowering, Scope};

use super::{hint_allowed, printed_scope, Form, LdStForm, PtxPlan, PtxRule, RuleFailure};
use crate::target::{Feature, PtxTarget};

/// An atomic load or store. From sm_70 the PTX memory model's mapping (Lustig et al.,
/// ASPLOS'19, as nvcc and libcu++ emit it): `ld.relaxed`/`ld.acquire`, `st.relaxed`/
/// `st.release`, and seq_cst as the same leading `fence.sc` a seq_cst RMW has, then
/// `ld.acquire` or `st.relaxed`. Before sm_70, `ld.volatile`/`st.volatile` between the `membar`s
/// the RMWs of those targets have.
pub(super) fn plan(node: &AtomicNode, target: PtxTarget) -> Result<PtxPlan, RuleFailure> {
    if node.ty == ElemType::B128 {
        if node.scope == Scope::System && !target.has(Feature::LdStB128System) {
            return Err((
                PtxRule::LdStB128SysNeedsPtx84,
                "a 128-bit load or store with system scope needs sm_70 and PTX ISA 8.4".into(),
            ));
        }
        if !target.has(Feature::LdStB128) {
            return Err((
                PtxRule::LdStB128NeedsPtx83,
                "a 128-bit load or store needs sm_70 and PTX ISA 8.3".into(),
            ));
        }
    }
    let mut legality = Legality::native();
    let scope = printed_scope(node.scope, target, &mut legality);
    let fences = if !target.has(Feature::Sem) {
        FencePolicy::RelaxedBetweenFences
    } else if node.op == AtomicOp::Store {
        FencePolicy::SeqCstFenceThenRelaxed
    } else {
        FencePolicy::SeqCstFenceThenAcquire
    };
    legality.rewrites.extend(fences.rewrite(node.order));
    // `.v2/.v4` of 8 to 32-bit elements and `.v2` of 64-bit ones exist everywhere; wider
    // vectors only on sm_100 global memory (and `.v8` of 8/16 bits crashes ptxas): a wider
    // node is split into accesses of the widest of those, each element still its own atomic
    // access as in any vector access.
    let widest = match node.ty.bits() {
        8..=32 => 4,
        64 => 2,
        _ => 1,
    };
    // A vector of 16-bit elements is aligned to its whole size, so the 32-bit words that
    // hold its elements, two to a word, are a vector half as long: a v8 is one `.v4.b32`
    // access where it would be two `.v4.b16` (ptxas packs and unpacks a word's halves either
    // way). A word read or written whole is one order in which its two elements take effect,
    // as for any vector access.
    let words = node.ty.bits() == 16 && node.shape.len() >= 2;
    let elements = if words {
        node.shape.len() / 2
    } else {
        node.shape.len()
    };
    let lanes = elements.min(widest);
    if lanes < elements {
        legality.lowering = Lowering::per_element(ElementLowering::Native, node.shape);
    }
    // `ld.relaxed/.acquire` and `st.relaxed/.release` take `.L2::cache_hint` where an `atom`
    // does (`ld.volatile`, before sm_70, has none: no target has both).
    let form = Form::LdSt(LdStForm {
        lanes: lanes as u8,
        words,
        hint: node.hint.is_some() && hint_allowed(node, target),
    });
    Ok(PtxPlan::of_access(node, legality, scope, form, fences))
}
