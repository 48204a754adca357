//! The table's answer for a node: loads and stores go to [`super::ld_st`], every other op is
//! one native `atomicrmw`/`cmpxchg`, an FP-vector `atomicrmw` or an expansion of its elements
//! (as [`super::element`] decides one), with the fences and scope that carry its order.

use atomir_ir::lower::FencePolicy;
use atomir_ir::{
    AtomicNode, AtomicOp, ElementLowering, Legality, Lowering, MemoryOrder, Refusal, Rewrite, Scope,
};

use super::checks::{check_target_wide, nvptx_ordered_load, nvptx_rmw_keeps_order, printed_scope};
use super::element::{element_lowering, vector_rmw_native};
use super::plan::{Form, LlvmPlan};
use super::rules::LlvmRule;
use super::vulkan::vulkan_node;
use crate::target::{LlvmTarget, Triple};

/// The refusal of the nodes this table does not cover yet.
fn unsupported_node() -> Refusal {
    Refusal::new(
        LlvmRule::UnsupportedNode,
        LlvmRule::UnsupportedNode.summary(),
    )
}

pub(crate) fn plan(target: &LlvmTarget, node: &AtomicNode) -> Result<LlvmPlan, Refusal> {
    use AtomicOp::*;
    let vulkan = target.triple == Triple::SpirvVulkan;
    if vulkan {
        vulkan_node(target, node)?;
        if matches!(node.op, Load | Store) {
            // llc 23 keeps a Vulkan atomic load or store atomic, but which semantics bits
            // spirv-val accepts on each order is not measured yet.
            return Err(unsupported_node());
        }
    }
    if matches!(node.op, Load | Store) {
        return super::ld_st::plan(target, node);
    }
    check_target_wide(target, node)?;
    let mut legality = Legality::native();
    let scope = printed_scope(target, node.scope, &mut legality);

    let element = element_lowering(target, node)?;
    let vector_native = node.shape.is_vector() && vector_rmw_native(target, node);
    let form = if vector_native {
        Form::VectorRmw
    } else {
        Form::Expand(Lowering::per_element(element, node.shape))
    };
    if let Form::Expand(lowering) = form {
        legality.lowering = lowering;
    }
    if vulkan
        && (legality.lowering != Lowering::whole(ElementLowering::Native)
            || node.op == AtomicOp::Cas)
    {
        return Err(Refusal::new(
            LlvmRule::VulkanNoCmpxchg,
            format!(
                "llc cannot compile cmpxchg for Vulkan, so {} of {} cannot be {}",
                node.op,
                node.ty,
                if node.op == AtomicOp::Cas {
                    "printed".to_string()
                } else {
                    format!("emulated (a {})", legality.strategy())
                }
            ),
        ));
    }
    // llc 23 puts a storage-class bit on every Vulkan atomic, which a relaxed order must not
    // have (VUID 10871): relaxed is printed with the weakest order that may carry it, release
    // for a store (which has no acquire part), acquire otherwise.
    let weakest_ordered = if node.op == AtomicOp::Store {
        MemoryOrder::Release
    } else {
        MemoryOrder::Acquire
    };
    let relaxed_as = (vulkan && target.major >= 23 && node.order == MemoryOrder::Relaxed)
        .then_some(weakest_ordered);
    if let Some(to) = relaxed_as {
        legality.rewrites.push(Rewrite::OrderStrengthened {
            from: MemoryOrder::Relaxed,
            to,
        });
    }

    let uses_rmw = match form {
        Form::Expand(_) => match element {
            ElementLowering::Native => node.op != AtomicOp::Cas,
            ElementLowering::MaskedOp | ElementLowering::IntMinMax => true,
            ElementLowering::CasLoop
            | ElementLowering::CasThenMaskedLoop
            | ElementLowering::MaskedCasLoop => false,
        },
        Form::VectorRmw => true,
        Form::LoadStore { .. } | Form::Fence(_) => false,
    };
    let fenced_rmw = uses_rmw && target.triple == Triple::Nvptx64 && !nvptx_rmw_keeps_order(target);
    if fenced_rmw {
        legality
            .rewrites
            .extend(FencePolicy::RelaxedBetweenFences.rewrite(node.order));
    }
    let fenced_loop = fenced_loop(target, node, legality.lowering);
    if fenced_loop {
        legality
            .rewrites
            .extend(FencePolicy::RelaxedBetweenFences.rewrite(node.order));
    }
    if legality.lowering.has_retry_loop() && !fenced_loop {
        // The loop's first load carries the node's order.
        nvptx_ordered_load(target, node)?;
    }
    // LLVM IR has no L2 eviction policy on atomicrmw/cmpxchg.
    if node.hint.is_some() {
        legality.rewrites.push(Rewrite::CacheHintDropped);
    }
    if fenced_rmw && node.scope < Scope::Device {
        // NVPTX's atom for a plain atomicrmw runs at gpu scope: wider than asked, never narrower.
        legality.rewrites.push(Rewrite::ScopeWidened {
            from: node.scope,
            to: Scope::Device,
        });
    }
    Ok(LlvmPlan {
        legality,
        form,
        scope,
        fenced_rmw,
        fenced_loop,
        relaxed_as,
    })
}

/// Whether a CAS retry loop carries its order by fences around it ([`LlvmPlan::fenced_loop`]):
/// on NVPTX from LLVM 22 (the first whose llc selects a fence) for release, acquire and
/// acq_rel. Sound under LLVM's (C++'s) model: a release fence sequenced before the loop
/// synchronizes with every acquire that reads the successful `cmpxchg`'s value or a later one
/// of its (hypothetical) release sequence, as a release `cmpxchg` would ([atomics.fences]
/// p2-p3), and a relaxed `cmpxchg` whose read an acquire fence follows synchronizes with the
/// release it reads from, as an acquire one would (p4); between fence and `cmpxchg` lie only the
/// loop's own reads and failed `cmpxchg`s of the same location, which coherence orders alone.
/// llc prints them `fence.acq_rel` around relaxed `ld`/`atom.cas`, the PTX form of a lean loop.
/// Elsewhere the ordered `cmpxchg` stays: seq_cst, because a seq_cst fence, a monotonic loop and
/// an acquire fence are not shown to be a seq_cst `cmpxchg` under C++'s single total order;
/// x86-64, whose `lock cmpxchg` carries every order at no cost; amdgcn and SPIR-V, whose fence
/// form is not judged here (SPIR-V's fences are builtin calls with storage classes).
fn fenced_loop(target: &LlvmTarget, node: &AtomicNode, lowering: Lowering) -> bool {
    lowering.retries()
        && target.triple == Triple::Nvptx64
        && target.major >= 22
        && matches!(
            node.order,
            MemoryOrder::Release | MemoryOrder::Acquire | MemoryOrder::AcqRel
        )
}
