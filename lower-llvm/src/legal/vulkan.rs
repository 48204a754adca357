//! The Vulkan rows of the table (`spirv-vulkan`): the rules a node, a fence or a second access
//! of a shared parameter must pass (the measured facts are in the [table's docs](super)).

use atomir_ir::expand::PrimType;
use atomir_ir::{
    AddressSpace, AtomicNode, AtomicOp, ElemType, MemoryOrder, Refusal, Scope, TypeClass,
};

use super::checks::{spirv_backend_needs_22, vulkan_no_generic};
use super::rules::LlvmRule;
use crate::target::{LlvmTarget, Triple};

/// The Vulkan rules on any order and scope: no seq_cst, nothing wider than device.
fn vulkan_order_and_scope(order: MemoryOrder, scope: Scope) -> Result<(), Refusal> {
    if order == MemoryOrder::SeqCst {
        return Err(Refusal::new(
            LlvmRule::VulkanNoSeqCst,
            "Vulkan forbids SequentiallyConsistent memory semantics (VUID 10866), and no weaker \
             order may stand in for seq_cst",
        ));
    }
    if scope == Scope::System {
        return Err(Refusal::new(
            LlvmRule::VulkanNoSystemScope,
            "Vulkan has no memory scope wider than device (CrossDevice is invalid, VUID 04638); \
             device scope would be narrower than system",
        ));
    }
    Ok(())
}

/// The table's answer for `node` beside an earlier access of its pointer parameter as
/// `earlier`: for Vulkan, a shared parameter is one Workgroup variable of one type (see
/// `vulkan`), and logical addressing has no pointer cast to view it as another (llc crashes on
/// one), so a second type is refused. Elsewhere any mix goes.
pub(crate) fn beside(
    target: &LlvmTarget,
    node: &AtomicNode,
    earlier: ElemType,
) -> Result<(), Refusal> {
    // Asked for every atomic after the first through its pointer: the target and space
    // first, which rule out most before the types are looked at.
    if target.triple != Triple::SpirvVulkan || node.pointer_space != AddressSpace::Shared {
        return Ok(());
    }
    // The element type an access holds as the program sees it (`PrimType::natural`, which the
    // printer's binding of the Workgroup variable follows too).
    if PrimType::natural(earlier) == PrimType::natural(node.ty) {
        return Ok(());
    }
    Err(Refusal::new(
        LlvmRule::VulkanSharedOneType,
        format!(
            "the shared parameter is accessed as {} by an earlier atomic and as {} here; a \
             Vulkan Workgroup variable has one type, a second variable would be other memory, \
             and logical addressing has no pointer cast",
            PrimType::natural(earlier),
            PrimType::natural(node.ty)
        ),
    ))
}

/// The Vulkan rules a node must pass before its op is considered.
/// The refusal of a fence (rule `llvm.vulkan-no-fence`, or the order and scope rules first).
pub(super) fn fence(fence: &atomir_ir::Fence) -> Refusal {
    if let Err(refusal) = vulkan_order_and_scope(fence.order, fence.scope) {
        return refusal;
    }
    Refusal::new(
        LlvmRule::VulkanNoFence,
        format!(
            "llc prints the fence {} for Vulkan as OpMemoryBarrier with the order bit only; \
             Vulkan requires a storage-class bit with a non-relaxed order (VUID 10870)",
            fence.order
        ),
    )
}

pub(super) fn vulkan_node(target: &LlvmTarget, node: &AtomicNode) -> Result<(), Refusal> {
    if target.major < 22 {
        return Err(spirv_backend_needs_22(target));
    }
    vulkan_order_and_scope(node.order, node.scope)?;
    if node.space == AddressSpace::Generic || node.pointer_space == AddressSpace::Generic {
        return Err(vulkan_no_generic());
    }
    if node.shape.is_vector() {
        return Err(Refusal::new(
            LlvmRule::VulkanNoVector,
            format!(
                "Vulkan atomics are scalar, and splitting a {} node needs pointer arithmetic that \
                 logical addressing lacks",
                node.shape
            ),
        ));
    }
    let old = target.major < 23;
    if old && matches!(node.op, AtomicOp::Load | AtomicOp::Store) {
        return Err(Refusal::new(
            LlvmRule::VulkanLoadStoreNeeds23,
            format!(
                "llc {} turns an atomic {} into a plain, non-atomic OpLoad/OpStore for Vulkan",
                target.major, node.op
            ),
        ));
    }
    if old && node.order != MemoryOrder::Relaxed {
        return Err(Refusal::new(
            LlvmRule::VulkanOrderedNeeds23,
            format!(
                "llc {} prints the order {} for Vulkan without the storage-class bit Vulkan \
                 requires (VUID 10870)",
                target.major, node.order
            ),
        ));
    }
    if old && node.ty.bits() == 64 && node.ty.class() != TypeClass::Float {
        return Err(Refusal::new(
            LlvmRule::VulkanInt64Needs23,
            format!(
                "llc {} cannot meet the Int64Atomics requirement of a 64-bit integer atomic for \
                 Vulkan",
                target.major
            ),
        ));
    }
    Ok(())
}
