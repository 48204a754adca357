//! The vISA legality table: the one place that decides, per node and target, what is native,
//! rewritten, emulated or refused. Every refusal names a rule id (`visa.*`).
//!
//! Stricter than GenX_IR on purpose: its release build accepts `svm_atomic.fadd` on TGLLP, float
//! ops with `.64`, `cmpxchg` with a `%null` src1 and 64-bit integer ALU ops on TGLLP/DG2/MTL,
//! none of which the hardware has. This table never asks for them.

//!
//! By concern: [`rmw`] the message that carries each read-modify-write and the emulations where
//! none does, [`ld_st`] atomic loads and stores, [`fence`] how orders are carried and stand-alone
//! fences, [`inputs`] a kernel's parameters, [`candidates`] the platforms a refusal's smallest
//! target is searched among.

mod candidates;
mod fence;
mod inputs;
mod ld_st;
mod rmw;
use atomir_ir::lower::{Access, FencePolicy, Plan};
use atomir_ir::{
    AddressSpace, AtomicNode, ElemType, ElementLowering, Legality, Lowering, Refusal, Rewrite,
    Scope, Verdict,
};

use crate::target::{Messages, VisaTarget};

pub(crate) use candidates::candidates;
pub(crate) use fence::{fence_plan, standalone_bracket, FENCES};
pub(crate) use inputs::{input_layout, signature};
pub(crate) use rmw::msg_op;
pub use rmw::MsgOp;

atomir_ir::rules! {
    /// The rules of the vISA table.
    pub enum VisaRule {
        No128Bit = "visa.no-128-bit": "no vISA message is atomic on more than 64 bits",
        NoSharedCluster = "visa.no-shared-cluster":
            "vISA has no distributed shared memory (shared_cluster)",
        GenericSpaceUnresolved = "visa.generic-space-unresolved":
            "vISA atomics name their surface; a generic pointer must be resolved first",
        SvmNoSlm = "visa.svm-no-slm": "SVM messages address global memory only",
        NoF64Alu = "visa.no-f64-alu": "a CAS loop on f64 needs an f64 ALU the platform lacks",
        InputsBeyondRegisters = "visa.inputs-beyond-registers":
            "a kernel's inputs (one lane per SIMD channel) must fit the registers they are bound to",
        NoInt64Alu = "visa.no-int64-alu":
            "a CAS loop on 64-bit integers needs a 64-bit integer ALU the platform lacks",
    }
}

/// The memory a node's messages address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Surface {
    /// Global memory: SVM A64 or LSC `ugm` with `flat[..]:a64`.
    Global,
    /// Shared local memory: LSC `slm` with `flat[..]:a32`.
    Slm,
}

/// The surface a node's space maps to, or the refusal.
pub(crate) fn surface(target: VisaTarget, space: AddressSpace) -> Result<Surface, Refusal> {
    match space {
        AddressSpace::Global => Ok(Surface::Global),
        AddressSpace::Shared if target.messages == Messages::Svm => Err(Refusal::new(
            VisaRule::SvmNoSlm,
            "SVM messages address global memory only; shared atomics need LSC `slm` messages",
        )),
        AddressSpace::Shared => Ok(Surface::Slm),
        AddressSpace::SharedCluster => Err(Refusal::new(
            VisaRule::NoSharedCluster,
            "vISA has no distributed shared memory (shared_cluster)",
        )),
        AddressSpace::Generic => Err(Refusal::new(
            VisaRule::GenericSpaceUnresolved,
            "vISA atomics name their surface (ugm or slm); resolve the generic pointer to global \
             or shared before lowering",
        )),
    }
}

/// What the vISA table decided for one node: the verdict, and the message that carries each
/// native element (a split element, or the widened op of a masked op).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VisaPlan {
    /// The verdict: the lowering chosen, or the refusal.
    pub legality: Legality,
    /// The message op of each native element (the node's op, or for a masked op its op on the
    /// containing 32-bit word); `None` for CAS loops, whose `Cas` is the expansion's, and for
    /// stand-alone fences.
    pub message: Option<MsgOp>,
}

impl Plan for VisaPlan {
    fn legality(&self) -> &Legality {
        &self.legality
    }

    /// vISA prints every node through its expansion (a native one as its one message).
    fn is_whole(&self) -> bool {
        false
    }

    fn fences(&self, _access: Access) -> FencePolicy {
        FENCES
    }
}

/// The one legality table.
pub(crate) fn plan(target: VisaTarget, node: &AtomicNode) -> Result<VisaPlan, Refusal> {
    let legality = table(target, node)?;
    let message = match legality.lowering.element() {
        ElementLowering::Native => msg_op(node.op, node.ty),
        ElementLowering::MaskedOp => msg_op(node.op, ElemType::B32),
        ElementLowering::CasLoop
        | ElementLowering::CasThenMaskedLoop
        | ElementLowering::MaskedCasLoop
        | ElementLowering::IntMinMax => None,
    };
    Ok(VisaPlan { legality, message })
}

fn table(target: VisaTarget, node: &AtomicNode) -> Verdict {
    let ty = node.ty;
    if ty.bits() > 64 {
        return Err(Refusal::new(
            VisaRule::No128Bit,
            format!(
                "no vISA message is atomic on {} bits; a {ty} access cannot be made atomic",
                ty.bits()
            ),
        ));
    }
    let surface = surface(target, node.space)?;
    let mut rewrites = smallvec::SmallVec::<[Rewrite; 3]>::new();
    if node.scope == Scope::Cluster {
        rewrites.push(Rewrite::ScopeWidened {
            from: Scope::Cluster,
            to: Scope::Device,
        });
    }
    rewrites.extend(FENCES.rewrite(node.order));
    // No vISA message here carries an L2 eviction policy.
    if node.hint.is_some() {
        rewrites.push(Rewrite::CacheHintDropped);
    }

    let element = match rmw::element_lowering(target, node, surface, &mut rewrites)? {
        ElementLowering::CasLoop if rmw::int_min_max_messages(target, node, surface) => {
            ElementLowering::IntMinMax
        }
        element => element,
    };
    Ok(Legality {
        rewrites,
        lowering: Lowering::per_element(element, node.shape),
    })
}
