//! The PTX legality table: for one atomic node and one target, how it is carried out (one native
//! `atom`/`red`, after named rewrites, through a shared emulation) or why it cannot be.
//!
//! This module is the only place that knows what ptxas accepts. [`plan`] is asked by both
//! `legalize` and `lower`, so the verdict printed by the matrix is the code that is emitted.
//! Facts (measured with ptxas 12.9 and 13.5, see `shared/reference/ptx-ptxas-legality-table.md`):
//! - bitwise ops, `exch` and `cas` only spell `.b32/.b64` (`.b16` for cas, `.b128` for cas/exch);
//! - `add.s64` does not exist (`add.u64` is the same bits); `inc`/`dec` only `.u32`;
//! - no float `min`/`max` in scalar form; f16/bf16 min/max only as `.global` vectors, used for
//!   nodes of laxity `ieee2008` only: on an H100 two NaNs give a NaN other than the canonical
//!   one, so an exact min/max takes the software form;
//! - `add.f32` without `.noftz` flushes subnormals on `.global` (and generic addresses pointing
//!   there): printed there for an `ftz` node only; an exact f32 add or sub there is `.noftz`
//!   from sm_90 and PTX ISA 9.4 and a CAS loop (exact `add.rn.f32` in registers) before (rule
//!   `ptx.f32-add-flushes-without-noftz`); on `.shared` the plain form is exact and stays;
//! - no 8-bit atomics; 16-bit only `cas.b16` and `add.noftz.f16/.bf16`;
//! - vector forms only on `.global` or generic addresses; used on `.global` only, because the
//!   PTX ISA allows a generic one only where the address points to `.global` (through a shared
//!   one an H100 neither faults nor gives the right values);
//! - `red` only `.relaxed` / `.release`, and no `cas`/`exch`;
//! - `.sem` from sm_70, `.cluster` and `.shared::cluster` from sm_90;
//! - `.L2::cache_hint` from sm_80 and PTX 7.4 on `atom`/`red` except `cas`, and on the
//!   `ld.relaxed/.acquire` and `st.relaxed/.release` of atomic loads and stores, supported by the
//!   ISA on `.global` and on a generic address only where it points to `.global` (ptxas cannot
//!   know and accepts any generic one).
//!
//! By concern: [`rmw`] the read-modify-write forms and their emulations, [`ld_st`] atomic loads
//! and stores, [`fence`] how orders are carried and stand-alone fences, [`candidates`] the
//! targets a refusal's smallest target is searched among.

mod candidates;
mod fence;
mod ld_st;
mod rmw;

use atomir_ir::lower::{Access, FencePolicy, Plan};
use atomir_ir::{
    AddressSpace, AtomicNode, AtomicOp, ElemType, Fence, Legality, MemoryOrder, Refusal, Rewrite,
    Scope, ValueType,
};

pub use crate::spell::{PtxRmw, PtxType};
use crate::target::{Feature, PtxTarget};
pub(crate) use candidates::candidates;
pub(crate) use fence::{fence_policy, LOOP_FENCES};

/// What the PTX table decided for one node: the verdict and everything the printer needs to
/// honour it (the one decision `legalize` and `lower` share).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxPlan {
    /// The verdict: the lowering chosen (with the rewrites it made), or the refusal.
    pub legality: Legality,
    /// The scope printed (the node's, or a wider one where the node's cannot be expressed).
    pub scope: Scope,
    /// How the node is printed.
    pub form: Form,
    /// How fences carry the order (the same for every access of the target).
    pub fences: FencePolicy,
}

/// How a PTX node is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// One native `atom`/`red` for the whole node (scalar or vector).
    Native(PtxOp),
    /// A scalar f16/bf16 add or sub as one packed `atom`/`red` (`.f16x2`/`.bf16x2`, the
    /// `PtxOp`) on the aligned 32-bit word that contains the address: the operand in the
    /// addressed half, -0.0 in the other, the old value taken from the addressed half. Only
    /// with the client's opt-in ([`PtxTarget::packed_half_add`]).
    PackedHalf(PtxOp),
    /// The shared expansion by [`Legality::lowering`], its `Rmw` primitives printed as `rmw`
    /// says.
    Expand {
        /// The native forms of the expansion's `Rmw` primitives.
        rmw: RmwForms,
    },
    /// An atomic load or store: `ld`/`st` with `.relaxed/.acquire/.release` and a scope from
    /// sm_70, `.volatile` before; one `.v2/.v4` instruction where `vector`, else one per element
    /// at its offset.
    LdSt(LdStForm),
    /// A stand-alone fence: `fence.sc`/`fence.acq_rel` from sm_70, `membar` before.
    Fence,
}

/// The `ld`/`st` of an atomic load or store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LdStForm {
    /// The elements each access reads or writes: 1 (a scalar node, or one access per
    /// element), or the `.v2`/`.v4` width of the vector accesses that carry the node, one
    /// after the other at increasing offsets. An element is a 32-bit word where `words`.
    pub lanes: u8,
    /// Whether a vector of 16-bit elements is accessed as the 32-bit words that hold them,
    /// two to a word.
    pub words: bool,
    /// `.L2::cache_hint` with a `createpolicy` operand on each access.
    pub hint: bool,
}

impl Form {
    /// Whether the node's `atom`/`red` is printed with `.L2::cache_hint`: a native or packed
    /// one, or an expansion's `Rmw` primitives (the integer `atom`s of a float min/max, an
    /// element's or a word's).
    fn prints_hint(self) -> bool {
        match self {
            Form::Native(op) | Form::PackedHalf(op) => op.hint,
            Form::Expand { rmw } => rmw.hint(),
            Form::LdSt(ld_st) => ld_st.hint,
            Form::Fence => false,
        }
    }
}

impl PtxPlan {
    /// The plan of an access: where `node` asks for a cache hint that `form` does not print,
    /// the verdict says it is dropped.
    fn of_access(
        node: &AtomicNode,
        mut legality: Legality,
        scope: Scope,
        form: Form,
        fences: FencePolicy,
    ) -> Self {
        if node.hint.is_some() && !form.prints_hint() {
            legality.rewrites.push(Rewrite::CacheHintDropped);
        }
        PtxPlan {
            legality,
            scope,
            form,
            fences,
        }
    }
}

impl Plan for PtxPlan {
    fn legality(&self) -> &Legality {
        &self.legality
    }

    fn is_whole(&self) -> bool {
        matches!(
            self.form,
            Form::Native(_) | Form::PackedHalf(_) | Form::LdSt(_) | Form::Fence
        )
    }

    /// Every access carries the order as the target's policy says; a CAS retry loop carries it
    /// by one fence before the loop and one after it (`LOOP_FENCES`).
    fn fences(&self, access: Access) -> FencePolicy {
        match access {
            Access::Loop => LOOP_FENCES,
            _ => self.fences,
        }
    }
}

/// The native forms of an expansion's `Rmw` primitives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmwForms {
    /// The expansion has no `Rmw` primitive.
    None,
    /// Every `Rmw` primitive is this form: a split element, or the widened op of a masked op.
    Each(PtxOp),
    /// Float min/max by integer min/max
    /// ([`ElementLowering::IntMinMax`](atomir_ir::ElementLowering::IntMinMax)): `signed` for the
    /// primitive on a signed integer type (the operand's sign bit clear), `unsigned` for the other.
    IntMinMax {
        /// `min`/`max` on `.s32`/`.s64`.
        signed: PtxOp,
        /// The other of `min`/`max` on `.u32`/`.u64`.
        unsigned: PtxOp,
    },
}

impl RmwForms {
    /// The forms with `.L2::cache_hint` where `hint`: every `Rmw` primitive of an expansion is
    /// an `atom`/`red` that has the qualifier (the `cas` of a loop has none and goes without).
    fn hinted(self, hint: bool) -> RmwForms {
        let with = |op: PtxOp| op.hinted(hint);
        match self {
            RmwForms::None => RmwForms::None,
            RmwForms::Each(op) => RmwForms::Each(with(op)),
            RmwForms::IntMinMax { signed, unsigned } => RmwForms::IntMinMax {
                signed: with(signed),
                unsigned: with(unsigned),
            },
        }
    }

    /// Whether the `Rmw` primitives are printed with `.L2::cache_hint`.
    pub fn hint(self) -> bool {
        match self {
            RmwForms::None => false,
            RmwForms::Each(op) => op.hint,
            RmwForms::IntMinMax { signed, .. } => signed.hint,
        }
    }

    /// The form of an `Rmw` primitive of `op` on `ty`, if the plan names one for it.
    pub fn of(self, op: AtomicOp, ty: ElemType) -> Option<PtxOp> {
        match self {
            RmwForms::None => None,
            RmwForms::Each(form) => Some(form),
            RmwForms::IntMinMax { signed, unsigned } => {
                let form = match ty {
                    ElemType::S32 | ElemType::S64 => signed,
                    ElemType::U32 | ElemType::U64 => unsigned,
                    _ => return None,
                };
                let same_op = match op {
                    AtomicOp::Min => form.op == PtxRmw::Min,
                    AtomicOp::Max => form.op == PtxRmw::Max,
                    // Only a min or max is carried by the integer `atom`s of this plan.
                    AtomicOp::Add
                    | AtomicOp::Sub
                    | AtomicOp::Inc
                    | AtomicOp::Dec
                    | AtomicOp::And
                    | AtomicOp::Or
                    | AtomicOp::Xor
                    | AtomicOp::Nand
                    | AtomicOp::Exch
                    | AtomicOp::Cas
                    | AtomicOp::UsubCond
                    | AtomicOp::UsubSat
                    | AtomicOp::FMinimum
                    | AtomicOp::FMaximum
                    | AtomicOp::FMinimumNum
                    | AtomicOp::FMaximumNum
                    | AtomicOp::Load
                    | AtomicOp::Store => false,
                };
                (same_op && form.ty == integer_type(ty)?).then_some(form)
            }
        }
    }
}

/// The `atom` type qualifier of an integer element type.
const fn integer_type(ty: ElemType) -> Option<PtxType> {
    match ty {
        ElemType::U32 => Some(PtxType::U32),
        ElemType::S32 => Some(PtxType::S32),
        ElemType::U64 => Some(PtxType::U64),
        ElemType::S64 => Some(PtxType::S64),
        _ => None,
    }
}

/// One native `atom`/`red`: the PTX backend's typed native form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PtxOp {
    /// The operation (`atom.<op>`).
    pub op: PtxRmw,
    /// The type qualifier, which also decides signed or unsigned min/max.
    pub ty: PtxType,
    /// `.noftz` (the f16/bf16 forms, and f32 add where [`Feature::NoftzF32`] has it).
    pub noftz: bool,
    /// The operand is negated first (`sub` as `add` of the negation).
    pub negate: bool,
    /// Printed as `red` (the result is unused and the order allows it).
    pub reduction: bool,
    /// `.L2::cache_hint` with a `createpolicy` operand.
    pub hint: bool,
}

impl PtxOp {
    /// The form with `.L2::cache_hint` where `hint` and the operation has the qualifier.
    fn hinted(self, hint: bool) -> PtxOp {
        PtxOp {
            hint: hint && self.op.has_cache_hint(),
            ..self
        }
    }
}

/// Whether `red` may stand for the node: result unused, and an order without an acquire part.
pub(crate) fn reduction_allowed(node: &AtomicNode) -> bool {
    !node.result_used() && matches!(node.order, MemoryOrder::Relaxed | MemoryOrder::Release)
}

atomir_ir::rules! {
    /// The rules of the PTX table.
    pub enum PtxRule {
        SharedClusterNeedsSm90 = "ptx.shared-cluster-needs-sm90":
            "`.shared::cluster` needs sm_90 and PTX ISA 7.8",
        B128NeedsSm90 = "ptx.b128-needs-sm90":
            "a 128-bit atomic needs sm_90 and PTX ISA 8.3; nothing narrower makes 128 bits atomic",
        B128SysNeedsPtx84 = "ptx.b128-sys-needs-ptx84":
            "a 128-bit atomic with system scope needs sm_90 and PTX ISA 8.4",
        LdStB128NeedsPtx83 = "ptx.ld-st-b128-needs-ptx83":
            "a 128-bit load or store needs sm_70 and PTX ISA 8.3",
        LdStB128SysNeedsPtx84 = "ptx.ld-st-b128-sys-needs-ptx84":
            "a 128-bit load or store with system scope needs sm_70 and PTX ISA 8.4",
        F32AddFlushesWithoutNoftz = "ptx.f32-add-flushes-without-noftz":
            "atom/red.add.f32 flushes subnormals on global memory, and `.noftz` needs sm_90 and \
             PTX ISA 9.4: an exact f32 add or sub on global or generic memory is a CAS loop \
             before (an `ftz` node, and shared memory, keep the native add)",
    }
}

/// A rule that refuses a node, and its words for this node.
pub(crate) type RuleFailure = (PtxRule, String);

/// The decision for one node on one target.
fn plan(node: &AtomicNode, target: PtxTarget) -> Result<PtxPlan, RuleFailure> {
    // A generic node through a `ptr.shared_cluster` pointer converts the address with
    // `cvta.shared::cluster`, which needs the same target.
    let cluster_address = node.space == AddressSpace::SharedCluster
        || node.pointer_space == AddressSpace::SharedCluster;
    if cluster_address && !target.has(Feature::Cluster) {
        return Err((
            PtxRule::SharedClusterNeedsSm90,
            "`.shared::cluster` needs sm_90 and PTX ISA 7.8".into(),
        ));
    }
    if matches!(node.op, AtomicOp::Load | AtomicOp::Store) {
        return ld_st::plan(node, target);
    }
    rmw::plan(node, target)
}

/// Whether `.L2::cache_hint` may be printed for the node's address: from sm_80 and PTX ISA 7.4,
/// on `.global`, or on a generic address known to point to global memory (a generic one made
/// from a `ptr.global`). The ISA supports the qualifier "only for .global state space and for
/// generic addressing where the address points to the .global state space", and a generic
/// pointer may point to shared memory.
fn hint_allowed(node: &AtomicNode, target: PtxTarget) -> bool {
    target.has(Feature::CacheHint)
        && match node.space {
            AddressSpace::Global => true,
            AddressSpace::Generic => node.pointer_space == AddressSpace::Global,
            _ => false,
        }
}

/// The scope printed: the node's, or `.gpu` where `.cluster` does not exist.
fn printed_scope(scope: Scope, target: PtxTarget, legality: &mut Legality) -> Scope {
    if scope == Scope::Cluster && !target.has(Feature::Cluster) {
        legality.rewrites.push(Rewrite::ScopeWidened {
            from: Scope::Cluster,
            to: Scope::Device,
        });
        return Scope::Device;
    }
    scope
}

/// The table's answer for a parameter: every type is carried. A `b128` parameter on a target
/// without the `.b128` register type (before sm_70 or PTX ISA 8.3) keeps its 16 bytes in the
/// signature and is never read into a register: nothing on such a target can read it, as every
/// 128-bit atomic needs [`Feature::B128`] (rule [`PtxRule::B128NeedsSm90`]).
pub(crate) fn param(_ty: ValueType, _target: PtxTarget) -> Result<(), Refusal> {
    Ok(())
}

/// The table's answer, its refusal naming the target it was asked for.
pub(crate) fn table(node: &AtomicNode, target: PtxTarget) -> Result<PtxPlan, Refusal> {
    plan(node, target).map_err(|failure| refusal(failure, target))
}

/// The table's answer for a fence.
pub(crate) fn fence_table(fence: &Fence, target: PtxTarget) -> Result<PtxPlan, Refusal> {
    Ok(fence::plan(fence, target))
}

fn refusal((rule, reason): RuleFailure, target: PtxTarget) -> Refusal {
    Refusal::new(rule, format!("{reason} (target ptx:{target})"))
}
