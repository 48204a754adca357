//! What the table answers for a node: the verdict and the form the printer follows.

use atomir_ir::lower::{Access, FencePolicy, Plan};
use atomir_ir::{Legality, Lowering, MemoryOrder, Scope};

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
