//! The LLVM legality table: the one place that decides, per node and target, whether it is
//! printed as one native `atomicrmw`/`cmpxchg`, through the shared expansions, or refused.
//!
//! Every refusal and every non-obvious emulation names a rule id (`llvm.*`). The printer follows
//! the [`Plan`] it is given and decides nothing itself, so `legalize` and `lower` cannot disagree.
//! How one element is carried out (natively, by a CAS loop, masked) is decided in `element`.
//!
//! Measured facts behind the rules (llc of each version, see `tests/tests/llvm_matrix.rs`):
//! - NVPTX's llc (22 and older) drops the order and scope of a plain `atomicrmw` (it always emits
//!   `atom.relaxed.gpu`), while `cmpxchg` and `fence syncscope(…)` keep theirs (22). Before 22 the
//!   NVPTX backend cannot select a fence at all and drops the order of `cmpxchg` as well.
//!   LLVM 23 keeps order and scope on `atomicrmw` (`atom.acquire.cta…`, seq_cst as
//!   `fence.sc; atom.acquire`), so from 23 the order is printed on the instruction itself.
//! - f32 `atomicrmw fadd` on NVPTX: LLVM 23 selects the native `atom.add.f32` on global and
//!   generic memory only when the function's f32 denormal mode flushes (the instruction flushes
//!   subnormals there); otherwise it expands its own CAS loop, which is exact. atomir prints a
//!   plain `atomicrmw fadd` with no denormal attribute, so at 23 the exact CAS loop is what runs
//!   on global/generic memory, and the native instruction only on shared memory (where it does
//!   not flush). Getting the native global form would need `denormal_fpenv(float: preservesign)`,
//!   a flushing float mode that is never a default.
//! - llc 14 to 22 select `atom.add.f32` for an f32 `atomicrmw fadd` on global and generic
//!   memory at every scope and on every SM, so the exact add is atomir's CAS loop there (rule
//!   `llvm.nvptx-f32-add-flushes-before-23`); on shared memory the instruction is exact and
//!   stays.
//! - NVPTX's llc (19, 22, 23; sm_60 to sm_100) selects no `atom.add.noftz.f16x2`/`.bf16x2`:
//!   `atomicrmw fadd/fsub` on `<2 x half>`/`<2 x bfloat>` becomes a CAS loop of llc's own, so
//!   packed adds are atomir's loop and vectors of f16/bf16 a split (rule
//!   `llvm.nvptx-packed-half-add-by-cas`).
//! - The SPIR-V backend has no CAS expansion of its own; only ops with a SPIR-V instruction are
//!   left to it.
//! - Vulkan (`spirv-vulkan`, llc's `spirv1.6-unknown-vulkan1.3-compute`), judged by
//!   `spirv-val --target-env vulkan1.3` (SPIRV-Tools 2025.5, which knows the 2025 atomic VUIDs):
//!   - `SequentiallyConsistent` semantics are rejected in every Vulkan environment (VUID 10866),
//!     and no weaker order may stand in for it: seq_cst is refused.
//!   - Memory scope `CrossDevice` (llc's system scope) is not a Vulkan scope (VUID 04638), and
//!     device would be narrower: system scope is refused; cluster is widened to device.
//!   - A non-relaxed order needs the storage-class bit of the memory (VUID 10870) and a relaxed
//!     one must have none (VUID 10871). llc 22 prints the order bit alone (so only relaxed is
//!     valid there); llc 23 adds the pointer's storage-class bit to every order, relaxed too (so
//!     only acquire/release/acq_rel are valid there, and a relaxed RMW is printed acquire, a
//!     recorded strengthening).
//!   - Device scope: the Vulkan rule that Device scope needs `vulkanMemoryModelDeviceScope`
//!     applies under the Vulkan memory model only. llc declares `OpMemoryModel Logical GLSL450`
//!     in every module (also with `SPV_KHR_vulkan_memory_model`), where Device scope needs no
//!     feature; `tests/tests/llvm_matrix.rs` checks that the model is GLSL450.
//!   - llc crashes on `cmpxchg` for Vulkan (StorageBuffer at 22 and 23, Workgroup at 23) and
//!     22's Workgroup `cmpxchg` is invalid, so cas and every CAS-loop emulation are refused.
//!   - Fences: both versions print `OpMemoryBarrier` with the order bit only (VUID 10870).
//!   - llc 22 turns `load atomic`/`store atomic` into a plain `OpLoad`/`OpStore` (not atomic).
//!   - A shared parameter is one Workgroup variable of one type, and llc crashes on a pointer
//!     cast under logical addressing: a kernel accesses one shared parameter as one element
//!     type, and a later access as another is refused (`beside`).
//!   - llc 22 cannot meet the Int64Atomics requirement in the Vulkan environment ("Unable to
//!     meet SPIR-V requirements"); 23 can.
//! - `atomicrmw fmin/fmax` mean `llvm.minnum/maxnum`, whose order of -0.0 and +0.0 LangRef has
//!   left unspecified; atomir's min/max order -0.0 < +0.0, so float min/max is our own CAS loop.

mod element;

use atomir_ir::lower::{Access, Displayed, FencePolicy, Plan};
use atomir_ir::{
    AddressSpace, AtomicNode, AtomicOp, ElemType, Legality, Lowering, MemoryOrder, Refusal,
    Rewrite, Scope, TypeClass, ValueType,
};

use crate::target::{LlvmTarget, Triple};
use crate::vulkan::access_scal;
use element::{element_lowering, vector_rmw_native};

atomir_ir::rules! {
    /// The rules of the LLVM table: refusals, and the reasons behind non-obvious emulations.
    pub enum LlvmRule {
        SpirvBackendNeeds22 = "llvm.spirv-backend-needs-22":
            "the llc versions before 22 measured here have no spirv64 target",
        AmdgcnNoSharedCluster = "llvm.amdgcn-no-shared-cluster":
            "amdgcn has no address space for another block's shared memory",
        SpirvNoSharedCluster = "llvm.spirv-no-shared-cluster":
            "the triple has no address space for another block's shared memory",
        NvptxSharedClusterNeeds22 = "llvm.nvptx-shared-cluster-needs-22":
            "NVPTX before LLVM 22 cannot select atomics on addrspace(7)",
        NvptxOrderedLoadNeedsSm70 = "llvm.nvptx-ordered-load-needs-sm70":
            "below sm_70 llc selects no ordered atomic load or store (no PTX memory model): an \
             ordered load, store, or CAS loop whose order is not on fences is refused",
        NvptxSharedClusterNeedsSm90 = "llvm.nvptx-shared-cluster-needs-sm90":
            "another block's shared memory (addrspace(7), `.shared::cluster`) exists from sm_90",
        NvptxOrderedNeeds22 = "llvm.nvptx-ordered-needs-22":
            "NVPTX before LLVM 22 drops the order of atomicrmw and cmpxchg and selects no fence",
        NvptxSystemScopeNeeds22 = "llvm.nvptx-system-scope-needs-22":
            "NVPTX before LLVM 22 emits every atomic at gpu scope",
        Bf16Needs15 = "llvm.bf16-needs-15": "LLVM 14 can neither pass nor compute `bfloat` values",
        GpuBf16Needs19 = "llvm.gpu-bf16-needs-19":
            "the GPU backends before LLVM 19 cannot select `bfloat` values and arithmetic",
        SpirvNoBfloat16 = "llvm.spirv-no-bfloat16":
            "SPIR-V has bfloat16 only through extensions a consumer may lack",
        No128BitCas = "llvm.no-128-bit-cas":
            "the triple (NVPTX: below sm_90 or LLVM 22) has no 128-bit compare-and-swap",
        X86Bf16QuietsSnan = "llvm.x86-bf16-quiets-snan":
            "x86-64 moves `bfloat` values through `float`, which quiets a signalling NaN",
        X86BfloatVectorArgNeeds16 = "llvm.x86-bfloat-vector-arg-needs-16":
            "x86-64 before LLVM 16 cannot pass a `bfloat` vector argument",
        SpirvNoI128 = "llvm.spirv-no-i128":
            "SPIR-V has no 128-bit integer type without an extension",
        FminmaxSignedZero = "llvm.fminmax-signed-zero":
            "atomicrmw fmin/fmax leave -0.0 and +0.0 unordered: float min/max is a CAS loop",
        NoUincWrapBefore16 = "llvm.no-uinc-wrap-before-16":
            "atomicrmw uinc_wrap/udec_wrap exist from LLVM 16: inc/dec is a CAS loop before",
        AmdgcnUincWrapNeeds19 = "llvm.amdgcn-uinc-wrap-needs-19":
            "amdgcn selects uinc_wrap/udec_wrap from LLVM 19 (16 cannot): inc/dec is a CAS loop before",
        SpirvNoIncDec = "llvm.spirv-no-inc-dec":
            "SPIR-V has no bounded increment or decrement: inc/dec is a CAS loop",
        SpirvNoNand = "llvm.spirv-no-nand":
            "SPIR-V has no nand and its backend no expansion: nand is a CAS loop",
        NvptxOldNoExpansion = "llvm.nvptx-old-no-expansion":
            "NVPTX before LLVM 22 neither selects nor expands nand and fsub: a CAS loop",
        SpirvFloatAddOnly = "llvm.spirv-float-add-only":
            "SPIR-V has float atomic add (not sub, not bf16) only: the rest is a CAS loop",
        SmallFloatNeeds22 = "llvm.x86-small-float-needs-22":
            "x86-64 selects half/bfloat arithmetic in every version from LLVM 22 only",
        FpVectorRmwNeeds19 = "llvm.fp-vector-rmw-needs-19":
            "llvm-as accepts atomicrmw on FP vectors from LLVM 19: packed add before is a CAS loop",
        NvptxPackedHalfAddByCas = "llvm.nvptx-packed-half-add-by-cas":
            "NVPTX's llc (19 to 23, every SM) expands atomicrmw fadd/fsub on <2 x half> and \
             <2 x bfloat> into a CAS loop of its own: packed f16x2/bf16x2 add and sub are \
             atomir's CAS loop, a vector of them a per-element split",
        NvptxF32AddFlushesBefore23 = "llvm.nvptx-f32-add-flushes-before-23":
            "llc before 23 selects atomicrmw fadd float on global and generic memory as \
             atom.add.f32, which flushes subnormals on global memory: the exact f32 add is a \
             CAS loop there",
        NvptxSystemScopeByCas = "llvm.nvptx-system-scope-by-cas":
            "NVPTX keeps `.sys` on cmpxchg only: a system-scope RMW is a CAS loop",
        PartWordCas = "llvm.part-word-cas":
            "the triple's smallest CAS is 32 bits: an 8/16-bit element lives in its 32-bit word",
        VulkanNoSeqCst = "llvm.vulkan-no-seq-cst":
            "Vulkan forbids sequentially consistent memory semantics (VUID 10866)",
        VulkanNoSystemScope = "llvm.vulkan-no-system-scope":
            "Vulkan has no scope wider than device (CrossDevice: VUID 04638)",
        VulkanNoGeneric = "llvm.vulkan-no-generic":
            "Vulkan's logical addressing has no generic pointers",
        VulkanOrderedNeeds23 = "llvm.vulkan-ordered-needs-23":
            "llc before 23 omits the storage-class bit of a non-relaxed order (VUID 10870)",
        VulkanNoCmpxchg = "llvm.vulkan-no-cmpxchg":
            "llc cannot compile cmpxchg for Vulkan: no cas and no CAS-loop emulation",
        VulkanNoVector = "llvm.vulkan-no-vector":
            "Vulkan atomics are scalar and logical addressing has no pointer arithmetic to split a vector",
        VulkanNoFence = "llvm.vulkan-no-fence":
            "llc's OpMemoryBarrier for Vulkan lacks the storage-class bit its order needs (VUID 10870)",
        VulkanLoadStoreNeeds23 = "llvm.vulkan-load-store-needs-23":
            "llc before 23 turns an atomic load or store into a plain, non-atomic one",
        VulkanInt64Needs23 = "llvm.vulkan-int64-needs-23":
            "llc before 23 cannot meet the Int64Atomics requirement for Vulkan",
        NvptxFenceNeeds22 = "llvm.nvptx-fence-needs-22":
            "NVPTX before LLVM 22 cannot select a fence",
        No128BitLoadStore = "llvm.no-128-bit-load-store":
            "the triple (NVPTX: below sm_90 or LLVM 22) has no 128-bit atomic load or store",
        NvptxB128SeqCstByFence = "llvm.nvptx-b128-seq-cst-by-fence":
            "NVPTX's llc cannot print a seq_cst 128-bit access: a seq_cst fence, then an acquire \
             load or a relaxed store",
        SpirvNo16BitIntAtomics = "llvm.spirv-no-16-bit-int-atomics":
            "SPIR-V has 16-bit integer atomics only through SPV_INTEL_16bit_atomics",
        AmdgcnSmallLoadStoreNeeds15 = "llvm.amdgcn-small-load-store-needs-15":
            "amdgcn before LLVM 15 cannot select an 8- or 16-bit atomic load or store",
        SpirvLoadStoreByBuiltin = "llvm.spirv-load-store-by-builtin":
            "LLVM 22's SPIR-V backend prints `load/store atomic` as plain OpLoad/OpStore: loads, \
             stores and fences call the __spirv_AtomicLoad/AtomicStore/MemoryBarrier builtins",
        VulkanSharedOneType = "llvm.vulkan-shared-one-type":
            "a Vulkan Workgroup variable has one type, and logical addressing cannot view it as \
             another: one shared parameter is accessed as one type",
        UnsupportedNode = "llvm.unsupported-node":
            "the LLVM backend does not lower this node yet (atomic loads and stores for Vulkan)",
    }
}

/// How a load, store or fence is spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemSpelling {
    /// LLVM's own `load atomic`, `store atomic` and `fence`.
    Instruction,
    /// Calls of the SPIR-V builtins `__spirv_AtomicLoad`, `__spirv_AtomicStore` and
    /// `__spirv_MemoryBarrier`, whose semantics operand names the order and the storage classes
    /// (rule `llvm.spirv-load-store-by-builtin`).
    SpirvBuiltin,
}

/// How the printer emits a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Through [`atomir_ir::expand::expand`] with this lowering. A natively lowered scalar node
    /// expands to its one native element: one `atomicrmw` or `cmpxchg`.
    Expand(Lowering),
    /// One `atomicrmw` on an LLVM floating-point vector (`<2 x half>`, `<2 x float>`).
    VectorRmw,
    /// An atomic load or store: one access per element (a vector is split), its order carried
    /// as `fences` says.
    LoadStore {
        /// Whether the order is on the access itself or on fences around a monotonic one.
        fences: FencePolicy,
        /// LLVM instructions, or SPIR-V builtin calls.
        spelling: MemSpelling,
    },
    /// A stand-alone fence.
    Fence(MemSpelling),
}

/// The legality table's full answer: the verdict, and what the printer needs to honour it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LlvmPlan {
    /// The verdict: the lowering chosen (with the rewrites it made), or the refusal.
    pub legality: Legality,
    /// How the printer emits the node.
    pub form: Form,
    /// The scope printed (equal to the node's, or a wider one recorded as a rewrite).
    pub scope: Scope,
    /// Whether each `atomicrmw` is printed monotonic between fences that carry the node's order
    /// (NVPTX, whose llc drops the order of a plain `atomicrmw`).
    pub fenced_rmw: bool,
    /// Whether a CAS retry loop is printed with a monotonic load and `cmpxchg` between one
    /// leading and one trailing fence that carry the node's order ([`Access::Loop`]), rather
    /// than with the order on its `cmpxchg`, which llc then fences on every retry.
    pub fenced_loop: bool,
    /// The order a relaxed access is printed with, where the target cannot print relaxed (a
    /// strengthening recorded as a rewrite; Vulkan at LLVM 23).
    pub relaxed_as: Option<MemoryOrder>,
}

impl Plan for LlvmPlan {
    fn legality(&self) -> &Legality {
        &self.legality
    }

    fn is_whole(&self) -> bool {
        !matches!(self.form, Form::Expand(_))
    }

    /// NVPTX's `atomicrmw` is monotonic between fences (`fenced_rmw`), and so is an NVPTX CAS
    /// loop that is not seq_cst (`fenced_loop`); a load or store carries its order as its plan
    /// says; everything else carries its order itself.
    fn fences(&self, access: Access) -> FencePolicy {
        match (access, self.form) {
            (Access::Rmw, _) if self.fenced_rmw => FencePolicy::RelaxedBetweenFences,
            (Access::Loop, _) if self.fenced_loop => FencePolicy::RelaxedBetweenFences,
            (Access::Load | Access::Store, Form::LoadStore { fences, .. }) => fences,
            _ => FencePolicy::OnAccess,
        }
    }
}

/// The refusal of the nodes this table does not cover yet.
fn unsupported_node() -> Refusal {
    Refusal::new(
        LlvmRule::UnsupportedNode,
        LlvmRule::UnsupportedNode.summary(),
    )
}

/// The table's answer for a fence.
pub(crate) fn fence_plan(
    target: &LlvmTarget,
    fence: &atomir_ir::Fence,
) -> Result<LlvmPlan, Refusal> {
    if target.triple == Triple::SpirvVulkan {
        vulkan_order_and_scope(fence.order, fence.scope)?;
        return Err(Refusal::new(
            LlvmRule::VulkanNoFence,
            format!(
                "llc prints the fence {} for Vulkan as OpMemoryBarrier with the order bit only; \
                 Vulkan requires a storage-class bit with a non-relaxed order (VUID 10870)",
                fence.order
            ),
        ));
    }
    crate::ldst::fence_plan(target, fence)
}

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
    let (first, this) = (access_scal(earlier), access_scal(node.ty));
    if first == this {
        return Ok(());
    }
    Err(Refusal::new(
        LlvmRule::VulkanSharedOneType,
        format!(
            "the shared parameter is accessed as {} by an earlier atomic and as {} here; a \
             Vulkan Workgroup variable has one type, a second variable would be other memory, \
             and logical addressing has no pointer cast",
            Displayed(first),
            Displayed(this)
        ),
    ))
}

/// The Vulkan rules a node must pass before its op is considered.
fn vulkan_node(target: &LlvmTarget, node: &AtomicNode) -> Result<(), Refusal> {
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

fn vulkan_no_generic() -> Refusal {
    Refusal::new(
        LlvmRule::VulkanNoGeneric,
        "Vulkan's logical addressing has no generic pointers: name the global or shared space",
    )
}

fn spirv_backend_needs_22(target: &LlvmTarget) -> Refusal {
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
        return crate::ldst::plan(target, node);
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
    if vulkan && (legality.lowering != Lowering::Native || node.op == AtomicOp::Cas) {
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
            Lowering::Native => node.op != AtomicOp::Cas,
            Lowering::MaskedOp | Lowering::IntMinMax => true,
            _ => false,
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
fn check_bfloat_values(target: &LlvmTarget) -> Result<(), Refusal> {
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
fn nvptx_rmw_keeps_order(target: &LlvmTarget) -> bool {
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
fn processor(target: &LlvmTarget) -> String {
    match target.cpu {
        Some(cpu) => format!("{} {}", target.triple.name(), cpu.name()),
        None => target.triple.name().to_string(),
    }
}

/// NVPTX with cluster scope and `.shared::cluster` (sm_90 and later); false elsewhere.
fn nvptx_has_clusters(target: &LlvmTarget) -> bool {
    target.triple == Triple::Nvptx64 && target.cpu.is_some_and(crate::Cpu::has_clusters)
}

fn cas128_native(target: &LlvmTarget) -> bool {
    match target.triple {
        // sm_90 with PTX 8.3+ has atom.cas.b128 (the target's flags name the PTX version).
        Triple::Nvptx64 => target.major >= 22 && target.cpu.is_some_and(crate::Cpu::has_cas128),
        // cmpxchg16b, or libatomic's __atomic_compare_exchange_16.
        Triple::X86_64 => true,
        Triple::Amdgcn | Triple::Spirv64 | Triple::SpirvVulkan => false,
    }
}
