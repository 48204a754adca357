//! Stand-alone fences: `fence [syncscope] <order>`, or SPIR-V's `__spirv_MemoryBarrier` (the
//! facts behind them are listed with loads and stores, [`super::ld_st`]); refused on Vulkan
//! ([`super::vulkan`]) and on NVPTX before 22.

use atomir_ir::{Legality, Refusal};

use super::checks::{check_backend, printed_scope};
use super::ld_st::spelling;
use super::plan::{Form, LlvmPlan};
use super::rules::LlvmRule;
use super::vulkan;
use crate::target::{LlvmTarget, Triple};

/// The table's answer for a fence.
pub(crate) fn fence_plan(
    target: &LlvmTarget,
    fence: &atomir_ir::Fence,
) -> Result<LlvmPlan, Refusal> {
    if target.triple == Triple::SpirvVulkan {
        return Err(vulkan::fence(fence));
    }
    native_fence_plan(target, fence)
}

/// The plan of a stand-alone fence: `fence [syncscope] <order>`, or the SPIR-V builtin.
fn native_fence_plan(target: &LlvmTarget, fence: &atomir_ir::Fence) -> Result<LlvmPlan, Refusal> {
    check_backend(target)?;
    if target.triple == Triple::Nvptx64 && target.major < 22 {
        return Err(Refusal::new(
            LlvmRule::NvptxFenceNeeds22,
            format!(
                "the NVPTX backend of LLVM {} cannot select a fence (llc aborts), so a {} \
                 fence cannot survive llc",
                target.major, fence.order
            ),
        ));
    }
    let mut legality = Legality::native();
    let scope = printed_scope(target, fence.scope, &mut legality);
    Ok(LlvmPlan {
        legality,
        form: Form::Fence(spelling(target)),
        scope,
        fenced_rmw: false,
        fenced_loop: false,
        // Vulkan's strengthened relaxed order: Vulkan refuses loads, stores and fences first.
        relaxed_as: None,
    })
}
