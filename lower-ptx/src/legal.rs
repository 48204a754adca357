//! The PTX legality table: for one atomic node and one target, how it is carried out (one native
//! `atom`/`red`, after named rewrites, through a shared emulation) or why it cannot be.
//!
//! This module is the only place that knows what ptxas accepts. [`plan`] is asked by both
//! `legalize` and `lower`, so the verdict printed by the matrix is the code that is emitted.
//! Facts (measured with ptxas 12.9 and 13.5, see `shared/reference/ptx-ptxas-legality-table.md`):
//! - bitwise ops, `exch` and `cas` only spell `.b32/.b64` (`.b16` for cas, `.b128` for cas/exch);
//! - `add.s64` does not exist (`add.u64` is the same bits); `inc`/`dec` only `.u32`;
//! - no float `min`/`max` in scalar form; f16/bf16 min/max only as `.global` vectors, which
//!   are not used: on an H100 two NaNs give a NaN other than the canonical one;
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

use atomir_ir::lower::{Access, FencePolicy, Plan};
use atomir_ir::{
    AddressSpace, AtomicNode, AtomicOp, ElemType, Fence, Legality, Lowering, MemoryOrder, Refusal,
    Rewrite, Scope, TypeClass, ValueType, VectorShape,
};

pub use crate::spell::{PtxRmw, PtxType};
use crate::target::{Feature, PtxIsa, PtxKnob, PtxTarget, Sm};

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
    /// Float min/max by integer min/max ([`Lowering::IntMinMax`]): `signed` for the primitive
    /// on a signed integer type (the operand's sign bit clear), `unsigned` for the other.
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
                    _ => false,
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

/// How every PTX CAS retry loop (and float min/max by integer atomics, whose NaN path is one)
/// carries its order: relaxed accesses between a leading fence
/// (`fence.sc` for seq_cst, `fence.release` for a release part; `membar` before sm_70) before the
/// loop's first load and a trailing `fence.acquire` (`membar`) after its exit, so no retry runs
/// a fence; `fence.acq_rel`, stronger than either, stands for both where the target lacks them
/// (before sm_90 or PTX ISA 8.6). Sound under the PTX memory model: the leading fence followed in program order by the
/// loop's strong writes at the node's scope (the successful `atom.cas` among them) is a release
/// pattern, and the loop's strong reads (the one the result comes from among them) followed by
/// the trailing fence an acquire pattern, each morally strong with its peers at the node's scope;
/// a release (acquire) pattern synchronizes as a release (acquire) `atom` does, and only the
/// loop's own accesses of the same word lie between pattern and loop. seq_cst keeps the leading
/// `fence.sc` of the mapping it has on a native RMW (`fence.sc; atom.acquire`), its acquire part
/// the acquire pattern the PTX atomics ABI also allows a seq_cst load (`fence.sc; ld.relaxed;
/// fence.acquire`); `fence.acq_rel` is stronger than `fence.acquire`. Before sm_70 a `membar` is
/// a full fence (`fence.sc` from sm_70) on each side.
pub(crate) const LOOP_FENCES: FencePolicy = FencePolicy::RelaxedBetweenFences;

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

/// How PTX carries a memory order: `.sem` qualifiers and `fence.sc` from sm_70, `membar`s
/// around a relaxed-form op before (a membar is sequentially consistent).
pub(crate) fn fence_policy(target: PtxTarget) -> FencePolicy {
    if target.has(Feature::Sem) {
        FencePolicy::SeqCstFenceThenAcquire
    } else {
        FencePolicy::RelaxedBetweenFences
    }
}

/// Whether `red` may stand for the node: result unused, and an order without an acquire part.
pub(crate) fn reduction_allowed(node: &AtomicNode) -> bool {
    !node.result_used() && matches!(node.order, MemoryOrder::Relaxed | MemoryOrder::Release)
}

/// Whether the node is a 64-bit `exch` on `.shared::cluster`, whose order is carried as llc
/// carries it: a relaxed `atom` between one-direction fences. ptxas 13.5 (sm_90) carries such
/// an `atom` as a generic `ATOM` with a fallback store; with the acquire on the `atom` it
/// branches around the fallback, with a trailing `fence.acquire` it predicates it: an acquire
/// exch of u64 at `.gpu` scope, result unused, 11 SASS instructions, 10 so (llc 10); a v2.u64,
/// result used, 26 and 23 (llc 23); as many or fewer in every order, scope and shape measured.
/// A relaxed `atom` followed by `fence.acquire` is an acquire pattern, and `fence.release`
/// followed by it a release pattern: at least as strong as the order on the `atom`.
fn exch_b64_on_cluster_shared(node: &AtomicNode, target: PtxTarget) -> bool {
    node.op == AtomicOp::Exch
        && node.ty.bits() == 64
        && node.space == AddressSpace::SharedCluster
        && target.has(Feature::SplitFences)
}

/// A native form of an operation, and whether it names the type differently (a rewrite).
struct Native {
    op: PtxOp,
    retyped: bool,
}

/// The native scalar form of `op` on `ty`, if the target has one (not yet a reduction, no hint).
fn scalar_native(op: AtomicOp, ty: ElemType, target: PtxTarget) -> Option<Native> {
    use ElemType::*;
    let native = |op, ty, noftz, retyped| {
        Some(Native {
            op: PtxOp {
                op,
                ty,
                noftz,
                negate: false,
                reduction: false,
                hint: false,
            },
            retyped,
        })
    };
    match op {
        AtomicOp::Add | AtomicOp::Sub => {
            let add = |ty, noftz, retyped| native(PtxRmw::Add, ty, noftz, retyped);
            let add = match ty {
                U32 => add(PtxType::U32, false, false),
                S32 => add(PtxType::S32, false, false),
                U64 => add(PtxType::U64, false, false),
                S64 => add(PtxType::U64, false, true),
                F32 => add(PtxType::F32, target.has(Feature::NoftzF32), false),
                F64 => add(PtxType::F64, false, false),
                F16 if target.has(Feature::F16Add) => add(PtxType::F16, true, false),
                F16x2 if target.has(Feature::F16x2Add) => add(PtxType::F16x2, true, false),
                Bf16 if target.has(Feature::Bf16Add) => add(PtxType::Bf16, true, false),
                Bf16x2 if target.has(Feature::Bf16Add) => add(PtxType::Bf16x2, true, false),
                _ => None,
            };
            add.map(|mut native| {
                native.op.negate = op == AtomicOp::Sub;
                native
            })
        }
        AtomicOp::Inc | AtomicOp::Dec if ty == U32 => native(
            if op == AtomicOp::Inc {
                PtxRmw::Inc
            } else {
                PtxRmw::Dec
            },
            PtxType::U32,
            false,
            false,
        ),
        AtomicOp::Min | AtomicOp::Max if matches!(ty, U32 | S32 | U64 | S64) => native(
            if op == AtomicOp::Min {
                PtxRmw::Min
            } else {
                PtxRmw::Max
            },
            match ty {
                U32 => PtxType::U32,
                S32 => PtxType::S32,
                U64 => PtxType::U64,
                _ => PtxType::S64,
            },
            false,
            false,
        ),
        AtomicOp::And | AtomicOp::Or | AtomicOp::Xor | AtomicOp::Exch
            if matches!(ty.bits(), 32 | 64) =>
        {
            let name = match op {
                AtomicOp::And => PtxRmw::And,
                AtomicOp::Or => PtxRmw::Or,
                AtomicOp::Xor => PtxRmw::Xor,
                _ => PtxRmw::Exch,
            };
            native(
                name,
                PtxType::of_bits(ty.bits()),
                false,
                ty.class() != TypeClass::Bits,
            )
        }
        AtomicOp::Exch if ty == B128 => native(PtxRmw::Exch, PtxType::B128, false, false),
        AtomicOp::Cas => match ty.bits() {
            32 | 64 | 128 => native(
                PtxRmw::Cas,
                PtxType::of_bits(ty.bits()),
                false,
                ty.class() != TypeClass::Bits,
            ),
            16 if target.has(Feature::CasB16) => native(
                PtxRmw::Cas,
                PtxType::B16,
                false,
                ty.class() != TypeClass::Bits,
            ),
            _ => None,
        },
        _ => None,
    }
}

/// The native vector form of `op` on `shape × ty` (sm_90, PTX 8.1, `.global`).
///
/// Not on generic addresses: a generic vector `atom` is defined only where the address points
/// to `.global`, and a generic address may point to shared memory. Not for float min/max: the
/// native f16/bf16 vector min/max give a NaN other than `semantics::canonical_nan` for two
/// NaNs, so it is not exact; the elements take the software min/max instead.
fn vector_native(node: &AtomicNode, target: PtxTarget) -> Option<Native> {
    use ElemType::*;
    use VectorShape::*;
    if !target.has(Feature::Vector) || node.space != AddressSpace::Global {
        return None;
    }
    let op = match node.op {
        AtomicOp::Add | AtomicOp::Sub => PtxRmw::Add,
        _ => return None,
    };
    let allowed = match (node.ty, node.shape) {
        (F16 | Bf16, V2 | V4 | V8) => true,
        (F16x2 | Bf16x2, V2 | V4) => true,
        (F32, V2 | V4) => op == PtxRmw::Add,
        _ => false,
    };
    let ty = match node.ty {
        F16 => PtxType::F16,
        Bf16 => PtxType::Bf16,
        F16x2 => PtxType::F16x2,
        Bf16x2 => PtxType::Bf16x2,
        _ => PtxType::F32,
    };
    allowed.then_some(Native {
        op: PtxOp {
            op,
            ty,
            noftz: node.ty != F32 || target.has(Feature::NoftzF32),
            negate: node.op == AtomicOp::Sub,
            reduction: false,
            hint: false,
        },
        retyped: false,
    })
}

/// The packed form of a scalar f16/bf16 add or sub where the client opted into it and the
/// target has the packed atom (`.f16x2` from sm_60 and PTX 6.2, `.bf16x2` with scalar `.bf16`
/// from sm_90 and PTX 7.8, in every space ptxas takes the scalar one). ptxas carries out the
/// scalar `atom.add.noftz.f16`/`.bf16` as a CAS loop of its own (H100 SASS), the packed one is
/// the hardware's: 74x (f16) and 16x (bf16) faster at one contended address. Sub is the add of
/// the negated operand, exact as in the scalar form; the other half adds -0.0 either way.
fn packed_half_native(node: &AtomicNode, target: PtxTarget) -> Option<Native> {
    let packed = match node.ty {
        ElemType::F16 if target.has(Feature::F16x2Add) => PtxType::F16x2,
        ElemType::Bf16 if target.has(Feature::Bf16Add) => PtxType::Bf16x2,
        _ => return None,
    };
    let wanted = target.packed_half_add
        && !node.shape.is_vector()
        && matches!(node.op, AtomicOp::Add | AtomicOp::Sub);
    wanted.then_some(Native {
        op: PtxOp {
            op: PtxRmw::Add,
            ty: packed,
            noftz: true,
            negate: node.op == AtomicOp::Sub,
            reduction: false,
            hint: false,
        },
        retyped: false,
    })
}

/// The packed add of a vector of f16/bf16 add or sub without a vector form (outside `.global`,
/// or before sm_90): one `atom.add.noftz.f16x2`/`.bf16x2` per 32-bit word, each half with its
/// own element's operand (sub: negated), where the target has the packed atom. Every element
/// is added exactly as the scalar atom adds it, and the word holds no other data: a vector is
/// aligned to its size. The scalar atoms were each a CAS loop of ptxas's own (v2.f16 add,
/// acquire, `.shared`, sm_90: 33 SASS instructions, against 10 this way).
fn packed_half_words(node: &AtomicNode, target: PtxTarget) -> Option<PtxOp> {
    let ty = match node.ty {
        ElemType::F16 if target.has(Feature::F16x2Add) => PtxType::F16x2,
        ElemType::Bf16 if target.has(Feature::Bf16Add) => PtxType::Bf16x2,
        _ => return None,
    };
    let wanted = node.shape.is_vector() && matches!(node.op, AtomicOp::Add | AtomicOp::Sub);
    wanted.then_some(PtxOp {
        op: PtxRmw::Add,
        ty,
        noftz: true,
        negate: node.op == AtomicOp::Sub,
        reduction: false,
        hint: false,
    })
}

/// How one element of `node` is emulated when the target has no native form for it.
fn element_emulation(node: &AtomicNode, target: PtxTarget) -> Lowering {
    match node.ty.bits() {
        8 => Lowering::masked(node.op),
        16 if Lowering::masked(node.op) == Lowering::MaskedOp => Lowering::MaskedOp,
        // A scalar's loop on `cas.b16` where the target has it. ptxas carries out `cas.b16` as
        // a 32-bit CAS loop of its own, so this is a loop inside a loop and more instructions
        // than a masked 32-bit loop (u16 sub on sm_90: 41 SASS against 30), but it retries
        // faster: on an H100, u16 add with 256 threads per address took 0.79-0.81 ms this way
        // against 0.91-1.02 ms by the masked loop (nvcc's `atomicCAS` loop on `unsigned short`
        // is this loop). A vector's 16-bit elements share one masked loop per word instead.
        16 if !node.shape.is_vector() && target.has(Feature::CasB16) => Lowering::CasLoop,
        16 => Lowering::MaskedCasLoop,
        _ => Lowering::CasLoop,
    }
}

/// The element lowering of a node whose emulation is `element`: a relaxed scalar 8/16-bit
/// add/sub/min/max's CAS loop (masked or on `cas.b16`) is run by one lane for all the lanes of
/// its warp with the same address ([`Lowering::WarpMaskedCasLoop`],
/// [`Lowering::WarpCasLoop`]) where the target has the warp instructions. A CAS loop retried by
/// every lane of a warp on one word is what makes an 8-bit add slow (45 s for 2^20 threads on
/// one address on an H200); a group of lanes retries once.
fn warp_combined(node: &AtomicNode, target: PtxTarget, element: Lowering) -> Lowering {
    let combines = node.order == MemoryOrder::Relaxed
        && !node.shape.is_vector()
        && target.has(Feature::WarpCombine)
        && !target.plain_loops
        && Lowering::warp_fold(node.op, node.ty).is_some();
    match element {
        Lowering::MaskedCasLoop if combines => Lowering::WarpMaskedCasLoop,
        Lowering::CasLoop if combines => Lowering::WarpCasLoop,
        _ => element,
    }
}

/// Only with `+serial-fold`: a relaxed scalar f16/bf16 or 8/16-bit integer add or sub carried
/// out once per 32-bit word by a warp's lanes, their operations applied one after another in
/// lane order ([`Lowering::WarpSerialFold`]), instead of the scalar `atom` (which ptxas makes a
/// CAS loop per lane), a CAS loop per lane, or the warp-combined loop per address.
fn serial_folded(node: &AtomicNode, target: PtxTarget) -> bool {
    target.serial_fold
        && node.order == MemoryOrder::Relaxed
        && !node.shape.is_vector()
        && target.has(Feature::WarpCombine)
        && target.has(Feature::CasB16)
        && matches!(node.op, AtomicOp::Add | AtomicOp::Sub)
        && matches!(
            node.ty,
            ElemType::F16
                | ElemType::Bf16
                | ElemType::U8
                | ElemType::S8
                | ElemType::U16
                | ElemType::S16
        )
}

/// Opt-in only (`+reassociate-float-add`): a relaxed scalar f32 add or sub whose lanes of a
/// warp at one address sum their operands first, one of them adding the sum
/// ([`Lowering::WarpNative`]). At one contended address a warp's 32 atomics become one.
fn reassociated_float_add(node: &AtomicNode, target: PtxTarget) -> bool {
    target.reassociate_float_add
        && node.order == MemoryOrder::Relaxed
        && !node.shape.is_vector()
        && target.has(Feature::WarpCombine)
        && Lowering::warp_fold_reassociating(node.op, node.ty).is_some()
}

/// The element lowering of a float min/max by the integer `atom`s ([`int_min_max`]): a relaxed
/// scalar one is run by one lane for all the lanes of its warp with the same address
/// ([`Lowering::WarpIntMinMax`]) where the target has the warp instructions. At one contended
/// address with increasing operands (f32 max, 2^20 threads) an H100 took 0.036 ms this way
/// against 0.780 ms with one `atom` per lane.
fn warp_int_min_max(node: &AtomicNode, target: PtxTarget) -> Lowering {
    let combines = node.order == MemoryOrder::Relaxed
        && !node.shape.is_vector()
        && target.has(Feature::WarpCombine)
        && !target.plain_loops;
    if combines {
        Lowering::WarpIntMinMax
    } else {
        Lowering::IntMinMax
    }
}

/// The integer `atom`s of a 32/64-bit float min/max (`fminimumnum`/`fmaximumnum` are the same
/// function) without a native form, where the target has them: [`Lowering::IntMinMax`], exact
/// (proven in `atomir_ir::expand`), a CAS loop only for NaNs. `atom.min/max` on `.s32/.u32`
/// exist on every target, on `.s64/.u64` from sm_32 (PTX ISA, `atom`), below every target here,
/// with every `.sem`, scope and space an integer min/max has; each is asked of
/// [`scalar_native`], so a target without one keeps the CAS loop. At one contended address with
/// increasing operands an H100 runs f32 max 510x faster this way than by nvcc's CAS loop.
fn int_min_max(node: &AtomicNode, target: PtxTarget) -> Option<RmwForms> {
    if !matches!(node.ty, ElemType::F32 | ElemType::F64) {
        return None;
    }
    let [(signed_op, signed), (unsigned_op, unsigned)] =
        Lowering::int_min_max_atomics(node.op, node.ty)?;
    Some(RmwForms::IntMinMax {
        signed: scalar_native(signed_op, signed, target)?.op,
        unsigned: scalar_native(unsigned_op, unsigned, target)?.op,
    })
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
        return ld_st_plan(node, target);
    }
    // The system-scope rule is asked first: its requirement includes the other's, so the
    // message names the same ISA as the smallest target (ptxas 13.5: "Feature '.b128 with
    // .sys' requires PTX ISA .version 8.4", in every space).
    if node.ty == ElemType::B128 {
        if node.scope == Scope::System && !target.has(Feature::B128System) {
            return Err((
                PtxRule::B128SysNeedsPtx84,
                "a 128-bit atomic (cas/exch .b128) with system scope needs sm_90 and PTX ISA \
                 8.4; no narrower operation can make 128 bits atomic"
                    .into(),
            ));
        }
        if !target.has(Feature::B128) {
            return Err((
                PtxRule::B128NeedsSm90,
                "a 128-bit atomic (cas/exch .b128) needs sm_90 and PTX ISA 8.3; no narrower \
                 operation can make 128 bits atomic"
                    .into(),
            ));
        }
    }

    let mut legality = Legality::native();
    let scope = printed_scope(node.scope, target, &mut legality);
    let fences = if exch_b64_on_cluster_shared(node, target) {
        FencePolicy::RelaxedBetweenFences
    } else {
        fence_policy(target)
    };
    legality.rewrites.extend(fences.rewrite(node.order));

    let hint = node.hint.is_some() && hint_allowed(node, target);

    let packed = packed_half_native(node, target);
    let native = if packed.is_some() {
        packed
    } else if serial_folded(node, target) {
        None
    } else if node.shape.is_vector() {
        vector_native(node, target)
    } else {
        scalar_native(node.op, node.ty, target)
    };
    let form = match native {
        Some(Native { mut op, retyped }) => {
            note_native(&mut legality, node, op, retyped);
            op.reduction = reduction_allowed(node) && op.op.has_reduction();
            op = op.hinted(hint);
            if matches!(op.ty, PtxType::F16x2 | PtxType::Bf16x2) && !node.ty.is_packed() {
                legality.rewrites.push(Rewrite::HalfAddOnPackedWord);
                Form::PackedHalf(op)
            } else if reassociated_float_add(node, target) {
                legality.rewrites.push(Rewrite::FloatAddReassociated);
                legality.lowering = Lowering::WarpNative;
                Form::Expand {
                    rmw: RmwForms::Each(op),
                }
            } else {
                Form::Native(op)
            }
        }
        None => {
            // A vector's 16-bit cas shares one masked loop per word as its other ops do: each
            // `atom.cas.b16` is a 32-bit loop of ptxas's own, one per element (v2.u16 cas on
            // sm_90, release: 55 SASS instructions against 32).
            let per_element =
                !(node.op == AtomicOp::Cas && node.shape.is_vector() && node.ty.bits() == 16);
            let native = (per_element && !serial_folded(node, target))
                .then(|| scalar_native(node.op, node.ty, target))
                .flatten();
            let (element, op) = match (packed_half_words(node, target), native) {
                (Some(op), _) => {
                    note_native(&mut legality, node, op, false);
                    (Lowering::MaskedOp, Some(op))
                }
                (None, Some(Native { op, retyped })) => {
                    note_native(&mut legality, node, op, retyped);
                    (Lowering::Native, Some(op))
                }
                _ if serial_folded(node, target) => (Lowering::WarpSerialFold, None),
                (None, None) => {
                    let element = warp_combined(node, target, element_emulation(node, target));
                    if element == Lowering::MaskedOp && reduction_allowed(node) {
                        legality.rewrites.push(Rewrite::DeadResultAsReduction);
                    }
                    // A masked op is the node's bitwise op on the containing 32-bit word.
                    let widened = (element == Lowering::MaskedOp)
                        .then(|| scalar_native(node.op, ElemType::B32, target))
                        .flatten()
                        .map(|native| native.op);
                    (element, widened)
                }
            };
            let (element, rmw) = match int_min_max(node, target) {
                Some(forms) => (warp_int_min_max(node, target), forms),
                None => (
                    element,
                    op.map_or(RmwForms::None, |op| {
                        RmwForms::Each(PtxOp {
                            reduction: reduction_allowed(node) && op.op.has_reduction(),
                            ..op
                        })
                    }),
                ),
            };
            legality.lowering = Lowering::per_element(element, node.shape);
            Form::Expand {
                rmw: rmw.hinted(hint),
            }
        }
    };
    if legality.lowering.has_retry_loop() && fences != LOOP_FENCES {
        // The verdict names how the loop carries its order, not how a single access would.
        let per_access = fences.rewrite(node.order);
        legality
            .rewrites
            .retain(|rewrite| Some(*rewrite) != per_access);
        legality.rewrites.extend(LOOP_FENCES.rewrite(node.order));
    }
    if node.hint.is_some() && !form.prints_hint() {
        legality.rewrites.push(Rewrite::CacheHintDropped);
    }
    Ok(PtxPlan {
        legality,
        scope,
        form,
        fences,
    })
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

/// An atomic load or store. From sm_70 the PTX memory model's mapping (Lustig et al.,
/// ASPLOS'19, as nvcc and libcu++ emit it): `ld.relaxed`/`ld.acquire`, `st.relaxed`/
/// `st.release`, and seq_cst as the same leading `fence.sc` a seq_cst RMW has, then
/// `ld.acquire` or `st.relaxed`. Before sm_70, `ld.volatile`/`st.volatile` between the `membar`s
/// the RMWs of those targets have.
fn ld_st_plan(node: &AtomicNode, target: PtxTarget) -> Result<PtxPlan, RuleFailure> {
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
        legality.lowering = Lowering::per_element(Lowering::Native, node.shape);
    }
    // `ld.relaxed/.acquire` and `st.relaxed/.release` take `.L2::cache_hint` where an `atom`
    // does (`ld.volatile`, before sm_70, has none: no target has both).
    let form = Form::LdSt(LdStForm {
        lanes: lanes as u8,
        words,
        hint: node.hint.is_some() && hint_allowed(node, target),
    });
    if node.hint.is_some() && !form.prints_hint() {
        legality.rewrites.push(Rewrite::CacheHintDropped);
    }
    Ok(PtxPlan {
        legality,
        scope,
        form,
        fences,
    })
}

/// A stand-alone fence: `fence.sc` for seq_cst, `fence.acquire`/`fence.release`/`fence.acq_rel`
/// for the other orders where the target has the first two (sm_90, PTX ISA 8.6), `fence.acq_rel`
/// for all three before (an acquire or release fence strengthened), a `membar` of the scope's
/// level before sm_70 (sequentially consistent).
fn fence_plan(fence: &Fence, target: PtxTarget) -> PtxPlan {
    let mut legality = Legality::native();
    let scope = printed_scope(fence.scope, target, &mut legality);
    let printed = if !target.has(Feature::Sem) || fence.order == MemoryOrder::SeqCst {
        MemoryOrder::SeqCst
    } else if target.has(Feature::SplitFences) {
        fence.order
    } else {
        MemoryOrder::AcqRel
    };
    if printed != fence.order {
        legality.rewrites.push(Rewrite::OrderStrengthened {
            from: fence.order,
            to: printed,
        });
    }
    PtxPlan {
        legality,
        scope,
        form: Form::Fence,
        fences: FencePolicy::OnAccess,
    }
}

/// The rewrites a native form stands for.
fn note_native(legality: &mut Legality, node: &AtomicNode, op: PtxOp, retyped: bool) {
    if op.negate {
        legality.rewrites.push(Rewrite::SubAsAddOfNegation);
    }
    if retyped {
        legality.rewrites.push(Rewrite::RetypedSameBits);
    }
    if reduction_allowed(node) && op.op.has_reduction() {
        legality.rewrites.push(Rewrite::DeadResultAsReduction);
    }
}

/// The targets a refusal's smallest target is searched among, oldest first: each architecture
/// with its oldest ISA, then every ISA version that introduced a feature ([`Feature::ALL`]) and
/// the default; with the client's policies where the candidate can have them.
pub(crate) fn candidates(policies: PtxTarget) -> Vec<PtxTarget> {
    let mut isas: Vec<PtxIsa> = Feature::ALL
        .iter()
        .map(|feature| feature.requires().1)
        .chain(Sm::ALL.iter().map(|sm| sm.default_isa()))
        .collect();
    isas.sort();
    isas.dedup();
    Sm::ALL
        .iter()
        .copied()
        .flat_map(|sm| {
            std::iter::once(sm.min_isa())
                .chain(
                    isas.clone()
                        .into_iter()
                        .filter(move |isa| *isa > sm.min_isa() && *isa <= sm.newest_isa()),
                )
                .map(move |isa| PtxTarget::new(sm, isa))
        })
        .map(|candidate| PtxTarget {
            packed_half_add: policies.packed_half_add
                && candidate.has(PtxKnob::PackedHalfAdd.needs()),
            reassociate_float_add: policies.reassociate_float_add
                && candidate.has(PtxKnob::ReassociateFloatAdd.needs()),
            plain_loops: policies.plain_loops && candidate.has(PtxKnob::PlainLoops.needs()),
            serial_fold: policies.serial_fold && candidate.has(PtxKnob::SerialFold.needs()),
            ..candidate
        })
        .collect()
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
    Ok(fence_plan(fence, target))
}

fn refusal((rule, reason): RuleFailure, target: PtxTarget) -> Refusal {
    Refusal::new(rule, format!("{reason} (target ptx:{target})"))
}
