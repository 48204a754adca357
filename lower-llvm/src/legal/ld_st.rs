//! The legality table's rows for atomic loads and stores, and the facts behind them and behind
//! stand-alone fences ([`super::fence`]).
//!
//! Measured with llvm-as, opt and llc of each version (see `tests/tests/llvm_matrix.rs` and
//! `tests/tests/llvm_nvptx_order.rs`):
//! - llvm-as accepts `load/store atomic` of vectors from LLVM 22 only, and llc 22 cannot split a
//!   `<4 x float>` one on NVPTX: a vector node is one access per element, in every version.
//! - NVPTX before 22 prints a monotonic load or store as `ld.volatile`/`st.volatile` and aborts
//!   ("Cannot select") on every other order and on every fence. From 22 the order and scope
//!   survive: `ld.relaxed/ld.acquire/st.relaxed/st.release.<scope>`, seq_cst as `fence.sc`
//!   then the access, fences as `fence.<sem>.<scope>` (unlike a plain `atomicrmw` in 22).
//! - NVPTX 22 and 23 print a 128-bit load as `atom.cas.b128` and a store as `atom.exch.b128`
//!   (sm_90, PTX ISA 8.3), but abort on a seq_cst one ("AtomicCode Printer does not support
//!   seq_cst"): that is a seq_cst fence, then an acquire load or a relaxed store, the mapping
//!   llc itself uses for the narrower seq_cst accesses.
//! - LLVM 22's SPIR-V backend prints `load/store atomic` as a plain `OpLoad`/`OpStore` (the
//!   atomicity and order are gone), and both 22 and 23 print a fence with the order bit only;
//!   the `__spirv_AtomicLoad/AtomicStore/MemoryBarrier` builtins print the real instructions
//!   with the semantics atomir chooses (the order and the storage classes). llc 23 refuses
//!   16-bit integer atomics without SPV_INTEL_16bit_atomics.
//! - amdgcn and x86-64 take every order and scope; amdgcn has no 16-byte atomic load or store
//!   (x86-64 calls `__atomic_load_16`/`__atomic_store_16`), and before 15 selects no 8- or
//!   16-bit one (gfx90a, every order and address space).
//!
//! Cache hints have no LLVM IR spelling: like an RMW's, a load's or store's hint is not printed.

use atomir_ir::lower::FencePolicy;
use atomir_ir::{
    AtomicNode, AtomicOp, ElemType, ElementLowering, Legality, Lowering, Refusal, Scope,
};

use super::checks::{check_target_wide, nvptx_ordered_load, printed_scope};
use super::plan::{Form, LlvmPlan, MemSpelling};
use super::rules::LlvmRule;
use crate::target::{LlvmTarget, Triple};

/// The spelling of loads, stores and fences on a target.
pub(super) fn spelling(target: &LlvmTarget) -> MemSpelling {
    match target.triple {
        Triple::Spirv64 => MemSpelling::SpirvBuiltin,
        _ => MemSpelling::Instruction,
    }
}

/// The plan of an atomic load or store.
pub(super) fn plan(target: &LlvmTarget, node: &AtomicNode) -> Result<LlvmPlan, Refusal> {
    check_target_wide(target, node)?;
    nvptx_ordered_load(target, node)?;
    let sixteen_bit_int = matches!(node.ty, ElemType::U16 | ElemType::S16 | ElemType::B16);
    if target.triple == Triple::Spirv64 && sixteen_bit_int {
        return Err(Refusal::new(
            LlvmRule::SpirvNo16BitIntAtomics,
            "a 16-bit integer atomic load or store needs SPV_INTEL_16bit_atomics, a vendor \
             extension a SPIR-V consumer may not support",
        ));
    }
    if target.triple == Triple::Amdgcn && target.major < 15 && node.ty.bits() < 32 {
        return Err(Refusal::new(
            LlvmRule::AmdgcnSmallLoadStoreNeeds15,
            format!(
                "the amdgcn backend of LLVM {} cannot select an 8- or 16-bit atomic load or \
                 store (llc aborts: \"Cannot select: AtomicLoad\")",
                target.major
            ),
        ));
    }
    let mut legality = Legality::native();
    let scope = printed_scope(target, node.scope, &mut legality);
    let fences = if target.triple == Triple::Nvptx64 && node.ty == ElemType::B128 {
        if node.op == AtomicOp::Store {
            FencePolicy::SeqCstFenceThenRelaxed
        } else {
            FencePolicy::SeqCstFenceThenAcquire
        }
    } else {
        FencePolicy::OnAccess
    };
    legality.rewrites.extend(fences.rewrite(node.order));
    // LLVM IR has no L2 eviction policy on load/store atomic either.
    if node.hint.is_some() {
        legality.rewrites.push(atomir_ir::Rewrite::CacheHintDropped);
    }
    if target.triple == Triple::Nvptx64 && target.major < 22 && node.scope < Scope::System {
        // `ld.volatile`/`st.volatile` have the synchronizing semantics of `.relaxed.sys`.
        legality.rewrites.push(atomir_ir::Rewrite::ScopeWidened {
            from: node.scope,
            to: Scope::System,
        });
    }
    legality.lowering = Lowering::per_element(ElementLowering::Native, node.shape);
    Ok(LlvmPlan {
        legality,
        form: Form::LoadStore {
            fences,
            spelling: spelling(target),
        },
        scope,
        fenced_rmw: false,
        fenced_loop: false,
        // Vulkan's strengthened relaxed order: Vulkan refuses loads, stores and fences first.
        relaxed_as: None,
    })
}

#[cfg(test)]
mod tests {
    use crate::LlvmTarget;
    use atomir_ir::matrix::{Cell, FenceCell};
    use atomir_ir::{
        AddressSpace, AtomicOp, Backend, ElemType, LowerOptions, MemoryOrder, Module, Scope,
        VectorShape,
    };

    fn lowered(spec: &str, kernels: Vec<atomir_ir::Kernel>) -> Result<String, String> {
        let mut out = String::new();
        let module = Module { kernels };
        let verified = atomir_ir::verify::verify(&module).map_err(|d| d[0].to_string())?;
        LlvmTarget::parse(spec)
            .unwrap()
            .lower(&verified, &LowerOptions::default(), &mut out)
            .map_err(|e| e.to_string())?;
        Ok(out)
    }

    fn cell(op: AtomicOp, ty: ElemType, order: MemoryOrder) -> Cell {
        Cell {
            op,
            ty,
            shape: VectorShape::Scalar,
            order,
            scope: Scope::Block,
            space: AddressSpace::Global,
            result_used: op == AtomicOp::Load,
            laxity: None,
        }
    }

    /// NVPTX's llc cannot print a seq_cst 128-bit access: it becomes a seq_cst fence and an
    /// acquire load or a relaxed store, at the node's scope; narrower ones keep seq_cst.
    #[test]
    fn nvptx_b128_seq_cst_is_a_fence_then_the_access() {
        let load = cell(AtomicOp::Load, ElemType::B128, MemoryOrder::SeqCst).kernel();
        let store = cell(AtomicOp::Store, ElemType::B128, MemoryOrder::SeqCst).kernel();
        let narrow = cell(AtomicOp::Load, ElemType::U64, MemoryOrder::SeqCst).kernel();
        let out = lowered("nvptx64@22", vec![load, store, narrow]).unwrap();
        let lines: Vec<&str> = out.lines().map(str::trim).collect();
        let fence = "fence syncscope(\"block\") seq_cst";
        let at = |prefix: &str| lines.iter().position(|l| l.contains(prefix)).unwrap();
        let load_at = at("load atomic i128");
        assert_eq!(lines[load_at - 1], fence, "{out}");
        assert!(lines[load_at].ends_with("syncscope(\"block\") acquire, align 16"));
        let store_at = at("store atomic i128");
        assert_eq!(lines[store_at - 1], fence, "{out}");
        assert!(lines[store_at].ends_with("syncscope(\"block\") monotonic, align 16"));
        assert!(
            lines[at("load atomic i64")].ends_with("seq_cst, align 8"),
            "{out}"
        );
        assert_eq!(out.matches("fence").count(), 2, "{out}");
    }

    /// SPIR-V loads, stores and fences call the builtins, each declared once, with the order
    /// and the storage class in their semantics.
    #[test]
    fn spirv_calls_builtins_declared_once() {
        let load = cell(AtomicOp::Load, ElemType::U32, MemoryOrder::Acquire);
        let fence = FenceCell {
            order: MemoryOrder::Release,
            scope: Scope::Device,
        };
        let mut again = load.kernel();
        again.name.push_str("_again");
        let kernels = vec![load.kernel(), again, fence.kernel()];
        let out = lowered("spirv64@22", kernels).unwrap();
        let load_name = "@_Z18__spirv_AtomicLoadPU3AS1iii";
        assert_eq!(
            out.matches(&format!("declare spir_func i32 {load_name}"))
                .count(),
            1
        );
        // Workgroup scope (2); acquire (0x2) on CrossWorkgroupMemory (0x200).
        assert!(out.contains(&format!("{load_name}(ptr addrspace(1) %a, i32 2, i32 514)")));
        // Device scope (1); release (0x4) on Workgroup and CrossWorkgroup memory (0x300).
        assert!(
            out.contains("@_Z21__spirv_MemoryBarrierjj(i32 1, i32 772)"),
            "{out}"
        );
        assert!(!out.contains("load atomic"), "{out}");
    }

    /// NVPTX before 22 cannot select a fence or an ordered load: refused, naming 22.
    #[test]
    fn old_nvptx_refuses_fences_and_ordered_loads() {
        let fence = FenceCell {
            order: MemoryOrder::Acquire,
            scope: Scope::Device,
        };
        let error = lowered("nvptx64@19", vec![fence.kernel()]).unwrap_err();
        assert!(error.contains("llvm.nvptx-fence-needs-22"), "{error}");
        assert!(error.contains("llvm:nvptx64:sm_90@22"), "{error}");
        let load = cell(AtomicOp::Load, ElemType::U32, MemoryOrder::Acquire).kernel();
        let error = lowered("nvptx64@19", vec![load]).unwrap_err();
        assert!(error.contains("llvm.nvptx-ordered-needs-22"), "{error}");
        let relaxed = cell(AtomicOp::Load, ElemType::U32, MemoryOrder::Relaxed).kernel();
        let out = lowered("nvptx64@19", vec![relaxed]).unwrap();
        assert!(out.contains("load atomic i32"), "{out}");
    }
}
