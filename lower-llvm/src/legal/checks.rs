//! The rules that hold whatever a node's op: the triple's backend, address spaces, scopes,
//! `bfloat` values, 128-bit accesses, parameters and ordered loads per processor.

use atomir_ir::{
    AddressSpace, AtomicNode, ElemType, Legality, MemoryOrder, Refusal, Rewrite, Scope, ValueType,
};

use super::rules::LlvmRule;
use crate::target::{LlvmTarget, Triple};

pub(super) fn spirv_backend_needs_22(target: &LlvmTarget) -> Refusal {
    Refusal::new(
        LlvmRule::SpirvBackendNeeds22,
        format!(
            "the llc of LLVM {} measured here has no {} target (the SPIR-V backend is built by \
             default in the LLVM 22 used here)",
            target.major,
            target.triple.name()
        ),
    )
}

/// The rule that refuses every node, fences included, where the triple has no backend.
pub(crate) fn check_backend(target: &LlvmTarget) -> Result<(), Refusal> {
    if target.triple.is_spirv() && target.major < 22 {
        return Err(spirv_backend_needs_22(target));
    }
    Ok(())
}

/// Rules that refuse a node whatever its op.
pub(crate) fn check_target_wide(target: &LlvmTarget, node: &AtomicNode) -> Result<(), Refusal> {
    check_backend(target)?;
    if target.address_space(node.space).is_none() {
        let rule = match target.triple {
            Triple::Amdgcn => LlvmRule::AmdgcnNoSharedCluster,
            _ => LlvmRule::SpirvNoSharedCluster,
        };
        return Err(Refusal::new(
            rule,
            format!(
                "{} has no address space for another block's shared memory (shared_cluster); \
                 widening it to generic would change which memory the address names",
                target.triple.name()
            ),
        ));
    }
    let cluster_memory = node.space == AddressSpace::SharedCluster
        || node.pointer_space == AddressSpace::SharedCluster;
    let nvptx_22 = target.triple == Triple::Nvptx64 && target.major >= 22;
    if cluster_memory && nvptx_22 && !nvptx_has_clusters(target) {
        // Measured: llc 22 aborts "Cannot select … addrspace 7" below sm_90, and llc 23's
        // `::cluster` is rejected by ptxas there.
        return Err(Refusal::new(
            LlvmRule::NvptxSharedClusterNeedsSm90,
            format!(
                "{} has no shared memory of another block (`.shared::cluster` needs sm_90)",
                target.cpu.map_or("the processor", crate::Cpu::name)
            ),
        ));
    }
    if target.triple == Triple::Nvptx64 && target.major < 22 {
        // A generic node through a `ptr.shared_cluster` pointer casts addrspace(7) to generic,
        // which llc before 22 cannot select either (14-16: `Cannot select`, 19: `Bad address
        // space in addrspacecast`).
        if node.space == AddressSpace::SharedCluster
            || node.pointer_space == AddressSpace::SharedCluster
        {
            return Err(Refusal::new(
                LlvmRule::NvptxSharedClusterNeeds22,
                format!(
                    "the NVPTX backend of LLVM {} cannot select atomics on addrspace(7)",
                    target.major
                ),
            ));
        }
        if node.order != MemoryOrder::Relaxed {
            return Err(Refusal::new(
                LlvmRule::NvptxOrderedNeeds22,
                format!(
                    "the NVPTX backend of LLVM {} drops the order of atomicrmw and cmpxchg and \
                     cannot select a fence, so a {} order cannot survive llc",
                    target.major, node.order
                ),
            ));
        }
        if node.scope == Scope::System {
            return Err(Refusal::new(
                LlvmRule::NvptxSystemScopeNeeds22,
                format!(
                    "the NVPTX backend of LLVM {} emits every atomic at gpu scope, narrower \
                     than system",
                    target.major
                ),
            ));
        }
    }
    let bf16_values =
        node.ty == ElemType::Bf16 || (node.ty == ElemType::Bf16x2 && !node.op.is_move());
    if bf16_values {
        check_bfloat_values(target)?;
    }
    if node.ty == ElemType::B128 && !cas128_native(target) && !node.op.is_read_modify_write() {
        // Measured: amdgcn and spirv64 reject a 16-byte `load/store atomic` ("target supports
        // atomics up to 8 bytes"); NVPTX before 22 calls a missing `__atomic_load_16`.
        return Err(Refusal::new(
            LlvmRule::No128BitLoadStore,
            format!(
                "{} at LLVM {} has no 128-bit atomic load or store",
                processor(target),
                target.major
            ),
        ));
    }
    if node.ty == ElemType::B128 && !cas128_native(target) {
        return Err(Refusal::new(
            LlvmRule::No128BitCas,
            format!(
                "{} at LLVM {} has no 128-bit atomic compare-and-swap",
                processor(target),
                target.major
            ),
        ));
    }
    Ok(())
}

/// Rules on `bfloat` values, whether an atomic computes on them or a parameter passes them.
pub(super) fn check_bfloat_values(target: &LlvmTarget) -> Result<(), Refusal> {
    if target.major < 15 {
        return Err(Refusal::new(
            LlvmRule::Bf16Needs15,
            "the backends of LLVM 14 can neither pass nor compute `bfloat` values",
        ));
    }
    let gpu = matches!(target.triple, Triple::Nvptx64 | Triple::Amdgcn);
    if gpu && target.major < 19 {
        // Measured: llc 15 and 16 cannot select `bfloat` parameters, conversions or arithmetic
        // on nvptx64 (sm_86/sm_90) and amdgcn (gfx90a/gfx940); 19 can. 17 and 18 are unmeasured.
        return Err(Refusal::new(
            LlvmRule::GpuBf16Needs19,
            format!(
                "the {} backend of LLVM {} cannot select `bfloat` values and arithmetic",
                target.triple.name(),
                target.major
            ),
        ));
    }
    if target.triple == Triple::X86_64 {
        // Measured with llc 22: x86-64 legalises `bfloat` through `float`, so a signalling NaN
        // comes back quieted (0x7f81 becomes 0x7fc1) from a parameter, an old value or an
        // exchange, and the CAS loop llc expands for `atomicrmw fadd bfloat` compares against
        // the quieted value and never ends. Carrying the bits as `i16` would avoid it; until
        // then every `bfloat` value is refused there.
        return Err(Refusal::new(
            LlvmRule::X86Bf16QuietsSnan,
            format!(
                "the x86-64 backend of LLVM {} moves `bfloat` values through `float`, which \
                 quiets a signalling NaN (0x7f81 would become 0x7fc1)",
                target.major
            ),
        ));
    }
    if target.triple.is_spirv() {
        // Measured with llc 22: a `bfloat` value needs SPV_KHR_bfloat16 and any arithmetic on it
        // SPV_INTEL_bfloat16_arithmetic, a vendor extension a portable consumer may lack.
        return Err(Refusal::new(
            LlvmRule::SpirvNoBfloat16,
            "SPIR-V has bfloat16 values and arithmetic only through extensions \
             (SPV_KHR_bfloat16, SPV_INTEL_bfloat16_arithmetic) that a consumer may not support",
        ));
    }
    Ok(())
}

/// The table's answer for a kernel parameter: its LLVM type must be one the triple can pass,
/// used or not (a parameter is part of the function's type).
pub(crate) fn param(target: &LlvmTarget, ty: ValueType) -> Result<(), Refusal> {
    if target.triple == Triple::SpirvVulkan {
        // A Vulkan entry point has no parameters: each becomes a binding of its own type.
        match ty {
            ValueType::Ptr(AddressSpace::Generic) => return Err(vulkan_no_generic()),
            ValueType::Ptr(AddressSpace::SharedCluster) => {
                return Err(Refusal::new(
                    LlvmRule::SpirvNoSharedCluster,
                    "spirv-vulkan has no address space for another block's shared memory",
                ))
            }
            ValueType::Data(_, shape) if shape.is_vector() => {
                return Err(Refusal::new(
                    LlvmRule::VulkanNoVector,
                    format!("a {shape} parameter: Vulkan atomics are scalar"),
                ))
            }
            _ => {}
        }
    }
    match ty {
        // A `bf16` parameter is a `bfloat` (vector) argument.
        ValueType::Data(ElemType::Bf16, shape) => {
            check_bfloat_values(target)?;
            if shape.is_vector() && target.triple == Triple::X86_64 && target.major < 16 {
                // Measured: llc 15 crashes on a `<4 x bfloat>` argument; 16 passes it.
                return Err(Refusal::new(
                    LlvmRule::X86BfloatVectorArgNeeds16,
                    format!(
                        "the x86-64 backend of LLVM {} cannot pass a `bfloat` vector argument",
                        target.major
                    ),
                ));
            }
            Ok(())
        }
        // A `b128` parameter is an `i128` argument.
        ValueType::Data(ElemType::B128, _) if target.triple.is_spirv() => {
            // Measured with llc 22: OpTypeInt of 128 bits needs
            // SPV_ALTERA_arbitrary_precision_integers.
            Err(Refusal::new(
                LlvmRule::SpirvNoI128,
                "SPIR-V has integers of 8, 16, 32 and 64 bits only; an `i128` argument needs \
                 an arbitrary-precision extension a consumer may not support",
            ))
        }
        _ => Ok(()),
    }
}

/// The scope that is printed: the node's, or the narrowest wider one the triple names.
pub(crate) fn printed_scope(target: &LlvmTarget, scope: Scope, legality: &mut Legality) -> Scope {
    let printed = match (target.triple, scope) {
        // A CPU has one coherence domain: every GPU scope is the whole system.
        (Triple::X86_64, _) => Scope::System,
        (Triple::Spirv64 | Triple::SpirvVulkan, Scope::Cluster) => Scope::Device,
        (Triple::Amdgcn, Scope::Cluster) if target.major < 22 => Scope::Device,
        // Measured: llc 22 aborts on cluster scope below sm_90 ("do not support cluster
        // scope"); device scope is the narrowest wider one. Older versions, whose llc the
        // NVPTX rules before 22 cover, are left as they were judged.
        (Triple::Nvptx64, Scope::Cluster) if target.major >= 22 && !nvptx_has_clusters(target) => {
            Scope::Device
        }
        (_, scope) => scope,
    };
    if printed != scope {
        legality.rewrites.push(Rewrite::ScopeWidened {
            from: scope,
            to: printed,
        });
    }
    printed
}

/// Whether NVPTX's llc keeps the order and scope of a plain `atomicrmw` (from LLVM 23).
pub(super) fn nvptx_rmw_keeps_order(target: &LlvmTarget) -> bool {
    target.triple == Triple::Nvptx64 && target.major >= 23
}

/// The refusal of an ordered atomic load or store where the processor has none (NVPTX below
/// sm_70, from LLVM 22: older versions refuse every ordered node already).
pub(crate) fn nvptx_ordered_load(target: &LlvmTarget, node: &AtomicNode) -> Result<(), Refusal> {
    let ordered_loads = target.cpu.is_none_or(crate::Cpu::has_ordered_loads);
    if target.triple != Triple::Nvptx64 || ordered_loads || node.order == MemoryOrder::Relaxed {
        return Ok(());
    }
    Err(Refusal::new(
        LlvmRule::NvptxOrderedLoadNeedsSm70,
        format!(
            "{} has no {} atomic load or store (PTX's memory model starts at sm_70), and llc \
             aborts on one",
            processor(target),
            node.order
        ),
    ))
}

/// The triple, and on a GPU the processor, as a refusal names them.
pub(super) fn processor(target: &LlvmTarget) -> String {
    match target.cpu {
        Some(cpu) => format!("{} {}", target.triple.name(), cpu.name()),
        None => target.triple.name().to_string(),
    }
}

/// NVPTX with cluster scope and `.shared::cluster` (sm_90 and later); false elsewhere.
pub(super) fn nvptx_has_clusters(target: &LlvmTarget) -> bool {
    target.triple == Triple::Nvptx64 && target.cpu.is_some_and(crate::Cpu::has_clusters)
}

pub(super) fn cas128_native(target: &LlvmTarget) -> bool {
    match target.triple {
        // sm_90 with PTX 8.3+ has atom.cas.b128 (the target's flags name the PTX version).
        Triple::Nvptx64 => target.major >= 22 && target.cpu.is_some_and(crate::Cpu::has_cas128),
        // cmpxchg16b, or libatomic's __atomic_compare_exchange_16.
        Triple::X86_64 => true,
        Triple::Amdgcn | Triple::Spirv64 | Triple::SpirvVulkan => false,
    }
}

pub(super) fn vulkan_no_generic() -> Refusal {
    Refusal::new(
        LlvmRule::VulkanNoGeneric,
        "Vulkan's logical addressing has no generic pointers: name the global or shared space",
    )
}
