//! The PTX legality table: for one atomic node and one target, how it is carried out (one native
//! `atom`/`red`, after named rewrites, through a shared emulation) or why it cannot be.
//!
//! This module is the only place that knows what ptxas accepts. [`plan`] is asked by both
//! `legalize` and `lower`, so the verdict printed by the matrix is the code that is emitted.
//! Facts (measured with ptxas 12.9 and 13.5, see `shared/reference/ptx-ptxas-legality-table.md`):
//! - bitwise ops, `exch` and `cas` only spell `.b32/.b64` (`.b16` for cas, `.b128` for cas/exch);
//! - `add.s64` does not exist (`add.u64` is the same bits); `inc`/`dec` only `.u32`;
//! - no float `min`/`max` in scalar form; f16/bf16 min/max only as `.global` vectors;
//! - no 8-bit atomics; 16-bit only `cas.b16` and `add.noftz.f16/.bf16`;
//! - vector forms only on `.global` or generic addresses;
//! - `red` only `.relaxed` / `.release`, and no `cas`/`exch`;
//! - `.sem` from sm_70, `.cluster` and `.shared::cluster` from sm_90.

use atomir_ir::expand::part_word_needs_loop;
use atomir_ir::{
    AddressSpace, AtomicInst, AtomicOp, ElemType, ElementLowering, Emulation, Legality,
    MemoryOrder, Refusal, Rewrite, Scope, TypeClass, VectorShape,
};

use crate::target::{Feature, PtxIsa, PtxTarget, Sm};

/// The atomic node of `data`, or a refusal for the nodes this table does not cover yet: fences,
/// loads, stores and the RMW ops that came with them.
pub(crate) fn supported_node(data: &atomir_ir::InstData) -> Result<&AtomicInst, Refusal> {
    use AtomicOp::*;
    match data {
        atomir_ir::InstData::Atomic(inst)
            if !matches!(
                inst.op,
                Load | Store | UsubCond | UsubSat | FMinimum | FMaximum | FMinimumNum | FMaximumNum
            ) =>
        {
            Ok(inst)
        }
        _ => Err(Refusal::new(
            "ptx.unsupported-node",
            "the PTX backend does not lower this node yet (fences, loads, stores, usub_cond, \
             usub_sat, fminimum, fmaximum, fminimumnum, fmaximumnum)",
        )),
    }
}

/// Everything of a node that [`plan`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PlanKey {
    op: AtomicOp,
    ty: ElemType,
    shape: VectorShape,
    order: MemoryOrder,
    scope: Scope,
    space: AddressSpace,
    hint: bool,
    result_used: bool,
}

impl PlanKey {
    pub fn of(inst: &AtomicInst) -> Self {
        PlanKey {
            op: inst.op,
            ty: inst.ty,
            shape: inst.shape,
            order: inst.order,
            scope: inst.scope,
            space: inst.space,
            hint: inst.hint.is_some(),
            result_used: inst.result_used(),
        }
    }
}

/// How an emulated or native node is emitted; the one decision `legalize` and `lower` share.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub legality: Legality,
    /// The scope printed (the node's, or a wider one where the node's cannot be expressed).
    pub scope: Scope,
    pub form: Form,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// One native instruction (scalar or vector).
    Native(Spelling),
    /// The shared expansion ([`atomir_ir::expand::expand`]).
    Expand(Emulation),
}

/// The spelling of one native `atom`/`red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Spelling {
    pub op: &'static str,
    pub noftz: bool,
    pub ty: &'static str,
    /// The operand is negated first (`sub` as `add` of the negation).
    pub negate: bool,
    /// Printed as `red` (the result is unused and the order allows it).
    pub reduction: bool,
    /// `.L2::cache_hint` with a `createpolicy` operand.
    pub hint: bool,
}

/// How the memory order is spelled on the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OrderForm {
    /// The `.sem` qualifier (none before sm_70).
    pub sem: Option<&'static str>,
    pub before: Option<Fence>,
    pub after: Option<Fence>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fence {
    /// `fence.sc.<scope>` (sm_70+).
    Sc,
    /// `membar.<level>` (before sm_70; a membar is sequentially consistent).
    Membar,
}

/// The order spelling on `target`. seq_cst: `fence.sc` then `.acquire`; before sm_70: membars
/// around a relaxed op (release part before, acquire part after).
pub(crate) fn order_form(target: PtxTarget, order: MemoryOrder) -> OrderForm {
    if target.has(Feature::Sem) {
        let (sem, before) = match order {
            MemoryOrder::Relaxed => ("relaxed", None),
            MemoryOrder::Acquire => ("acquire", None),
            MemoryOrder::Release => ("release", None),
            MemoryOrder::AcqRel => ("acq_rel", None),
            MemoryOrder::SeqCst => ("acquire", Some(Fence::Sc)),
        };
        OrderForm {
            sem: Some(sem),
            before,
            after: None,
        }
    } else {
        OrderForm {
            sem: None,
            before: order.has_release().then_some(Fence::Membar),
            after: order.has_acquire().then_some(Fence::Membar),
        }
    }
}

fn order_rewrites(target: PtxTarget, order: MemoryOrder, legality: &mut Legality) {
    if !target.has(Feature::Sem) {
        if order != MemoryOrder::Relaxed {
            legality.rewrites.push(Rewrite::OrderAsFences);
        }
    } else if order == MemoryOrder::SeqCst {
        legality.rewrites.push(Rewrite::SeqCstAsFenceThenAcquire);
    }
}

/// The PTX spelling of a scope.
pub(crate) const fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Block => "cta",
        Scope::Cluster => "cluster",
        Scope::Device => "gpu",
        Scope::System => "sys",
    }
}

/// The `membar` level of a scope (pre-sm_70 targets have no cluster).
pub(crate) const fn membar_level(scope: Scope) -> &'static str {
    match scope {
        Scope::Block => "cta",
        Scope::Cluster | Scope::Device => "gl",
        Scope::System => "sys",
    }
}

/// Whether `red` may stand for the node: result unused, and an order without an acquire part.
pub(crate) fn reduction_allowed(inst: &AtomicInst) -> bool {
    !inst.result_used() && matches!(inst.order, MemoryOrder::Relaxed | MemoryOrder::Release)
}

/// A scalar native spelling of `op` on `ty`, with the rewrites it needs.
pub(crate) struct Native {
    pub op: &'static str,
    pub noftz: bool,
    pub ty: &'static str,
    pub negate: bool,
    pub retyped: bool,
}

/// The spelling of a native element inside an expansion (`expand::Prim::Rmw`).
pub(crate) fn rmw_spelling(op: AtomicOp, ty: ElemType, target: PtxTarget) -> Option<Native> {
    scalar_native(op, ty, target)
}

fn bits_name(bits: u32) -> &'static str {
    match bits {
        16 => "b16",
        32 => "b32",
        64 => "b64",
        _ => "b128",
    }
}

/// The native scalar form of `op` on `ty`, if the target has one.
fn scalar_native(op: AtomicOp, ty: ElemType, target: PtxTarget) -> Option<Native> {
    use ElemType::*;
    let native = |op, ty, noftz, retyped| {
        Some(Native {
            op,
            noftz,
            ty,
            negate: false,
            retyped,
        })
    };
    match op {
        AtomicOp::Add | AtomicOp::Sub => {
            let add = match ty {
                U32 => native("add", "u32", false, false),
                S32 => native("add", "s32", false, false),
                U64 => native("add", "u64", false, false),
                S64 => native("add", "u64", false, true),
                F32 => native("add", "f32", false, false),
                F64 => native("add", "f64", false, false),
                F16 if target.has(Feature::F16Add) => native("add", "f16", true, false),
                F16x2 if target.has(Feature::F16x2Add) => native("add", "f16x2", true, false),
                Bf16 if target.has(Feature::Bf16Add) => native("add", "bf16", true, false),
                Bf16x2 if target.has(Feature::Bf16Add) => native("add", "bf16x2", true, false),
                _ => None,
            };
            add.map(|native| Native {
                negate: op == AtomicOp::Sub,
                ..native
            })
        }
        AtomicOp::Inc | AtomicOp::Dec if ty == U32 => native(
            if op == AtomicOp::Inc { "inc" } else { "dec" },
            "u32",
            false,
            false,
        ),
        AtomicOp::Min | AtomicOp::Max if matches!(ty, U32 | S32 | U64 | S64) => native(
            if op == AtomicOp::Min { "min" } else { "max" },
            ty.as_str(),
            false,
            false,
        ),
        AtomicOp::And | AtomicOp::Or | AtomicOp::Xor | AtomicOp::Exch
            if matches!(ty.bits(), 32 | 64) =>
        {
            let name = match op {
                AtomicOp::And => "and",
                AtomicOp::Or => "or",
                AtomicOp::Xor => "xor",
                _ => "exch",
            };
            native(
                name,
                bits_name(ty.bits()),
                false,
                ty.class() != TypeClass::Bits,
            )
        }
        AtomicOp::Exch if ty == B128 => native("exch", "b128", false, false),
        AtomicOp::Cas => match ty.bits() {
            32 | 64 | 128 => native(
                "cas",
                bits_name(ty.bits()),
                false,
                ty.class() != TypeClass::Bits,
            ),
            16 if target.has(Feature::CasB16) => {
                native("cas", "b16", false, ty.class() != TypeClass::Bits)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The native vector form of `op` on `shape × ty` (sm_90, PTX 8.1, `.global` or generic).
fn vector_native(inst: &AtomicInst, target: PtxTarget) -> Option<Native> {
    use ElemType::*;
    use VectorShape::*;
    if !target.has(Feature::Vector)
        || !matches!(inst.space, AddressSpace::Global | AddressSpace::Generic)
    {
        return None;
    }
    let negate = inst.op == AtomicOp::Sub;
    let op = match inst.op {
        AtomicOp::Add | AtomicOp::Sub => "add",
        AtomicOp::Min => "min",
        AtomicOp::Max => "max",
        _ => return None,
    };
    let allowed = match (inst.ty, inst.shape) {
        (F16 | Bf16, V2 | V4 | V8) => true,
        (F16x2 | Bf16x2, V2 | V4) => true,
        (F32, V2 | V4) => op == "add",
        _ => false,
    };
    allowed.then(|| Native {
        op,
        noftz: inst.ty != F32,
        ty: inst.ty.as_str(),
        negate,
        retyped: false,
    })
}

/// How one element is emulated when the target has no native form for it.
fn element_emulation(op: AtomicOp, ty: ElemType) -> ElementLowering {
    match ty.bits() {
        8 => ElementLowering::PartWord {
            element_bits: 8,
            needs_loop: part_word_needs_loop(op),
        },
        16 if !part_word_needs_loop(op) => ElementLowering::PartWord {
            element_bits: 16,
            needs_loop: false,
        },
        // Not a loop on `cas.b16`: ptxas carries out `cas.b16` itself as a 32-bit CAS loop, so
        // a loop on it is a loop inside a loop (u16 sub on sm_90: 41 SASS instructions against
        // 30 for the masked 32-bit loop; `bench/src/bin/sass_table.rs` measures every cell).
        16 => ElementLowering::PartWord {
            element_bits: 16,
            needs_loop: true,
        },
        bits => ElementLowering::CasLoop { bits },
    }
}

/// A rule that refuses a node: its id and its words.
pub(crate) type RuleFailure = (&'static str, String);

/// The decision for one node on one target.
pub(crate) fn plan(inst: &AtomicInst, target: PtxTarget) -> Result<Plan, RuleFailure> {
    if inst.space == AddressSpace::SharedCluster && !target.has(Feature::Cluster) {
        return Err((
            "ptx.shared-cluster-needs-sm90",
            "`.shared::cluster` needs sm_90 and PTX ISA 7.8".into(),
        ));
    }
    if inst.ty == ElemType::B128 {
        if !target.has(Feature::B128) {
            return Err((
                "ptx.b128-needs-sm90",
                "a 128-bit atomic (cas/exch .b128) needs sm_90 and PTX ISA 8.3; no narrower \
                 operation can make 128 bits atomic"
                    .into(),
            ));
        }
        if inst.scope == Scope::System && !target.has(Feature::B128System) {
            return Err((
                "ptx.b128-sys-needs-ptx84",
                "a 128-bit atomic with system scope needs PTX ISA 8.4".into(),
            ));
        }
    }

    let mut legality = Legality::native();
    let mut scope = inst.scope;
    if scope == Scope::Cluster && !target.has(Feature::Cluster) {
        scope = Scope::Device;
        legality.rewrites.push(Rewrite::ScopeWidened {
            from: Scope::Cluster,
            to: Scope::Device,
        });
    }
    order_rewrites(target, inst.order, &mut legality);

    let hint = inst.hint.is_some()
        && target.has(Feature::CacheHint)
        && matches!(inst.space, AddressSpace::Global | AddressSpace::Generic);

    let native = if inst.shape.is_vector() {
        vector_native(inst, target)
    } else {
        scalar_native(inst.op, inst.ty, target)
    };
    let form = match native {
        Some(native) => {
            if native.negate {
                legality.rewrites.push(Rewrite::SubAsAddOfNegation);
            }
            if native.retyped {
                legality.rewrites.push(Rewrite::RetypedSameBits);
            }
            let reduction = reduction_allowed(inst) && native.op != "cas" && native.op != "exch";
            if reduction {
                legality.rewrites.push(Rewrite::DeadResultAsReduction);
            }
            Form::Native(Spelling {
                op: native.op,
                noftz: native.noftz,
                ty: native.ty,
                negate: native.negate,
                reduction,
                hint: hint && native.op != "cas",
            })
        }
        None => {
            let element = match scalar_native(inst.op, inst.ty, target) {
                Some(native) => {
                    if native.negate {
                        legality.rewrites.push(Rewrite::SubAsAddOfNegation);
                    }
                    if native.retyped {
                        legality.rewrites.push(Rewrite::RetypedSameBits);
                    }
                    if reduction_allowed(inst) && native.op != "cas" && native.op != "exch" {
                        legality.rewrites.push(Rewrite::DeadResultAsReduction);
                    }
                    ElementLowering::Native
                }
                None => {
                    let element = element_emulation(inst.op, inst.ty);
                    let widened_op = matches!(
                        element,
                        ElementLowering::PartWord {
                            needs_loop: false,
                            ..
                        }
                    );
                    if widened_op && reduction_allowed(inst) {
                        legality.rewrites.push(Rewrite::DeadResultAsReduction);
                    }
                    element
                }
            };
            let emulation = if inst.shape.is_vector() {
                Emulation::Split {
                    elements: inst.shape.len() as u32,
                    element,
                }
            } else {
                match element {
                    ElementLowering::CasLoop { bits } => Emulation::CasLoop { bits },
                    ElementLowering::PartWord {
                        element_bits,
                        needs_loop,
                    } => Emulation::PartWord {
                        element_bits,
                        needs_loop,
                    },
                    ElementLowering::Native => unreachable!("scalar native handled above"),
                }
            };
            legality.emulation = Some(emulation);
            Form::Expand(emulation)
        }
    };
    Ok(Plan {
        legality,
        scope,
        form,
    })
}

/// The targets tried, oldest first, when looking for the smallest one that accepts a node: each
/// architecture with its oldest ISA and every ISA version that introduced an atomic feature.
fn candidate_targets() -> impl Iterator<Item = PtxTarget> {
    const FEATURE_ISAS: [PtxIsa; 8] = [
        PtxIsa::new(6, 2),
        PtxIsa::new(6, 3),
        PtxIsa::new(7, 4),
        PtxIsa::new(7, 8),
        PtxIsa::new(8, 1),
        PtxIsa::new(8, 3),
        PtxIsa::new(8, 4),
        PtxIsa::DEFAULT,
    ];
    Sm::ALL.into_iter().flat_map(|sm| {
        std::iter::once(sm.min_isa())
            .chain(
                FEATURE_ISAS
                    .into_iter()
                    .filter(move |isa| *isa > sm.min_isa()),
            )
            .map(move |isa| PtxTarget::new(sm, isa))
    })
}

/// The verdict: the plan, or a refusal naming the rule and the smallest target that accepts it.
pub(crate) fn verdict(inst: &AtomicInst, target: PtxTarget) -> Result<Plan, Refusal> {
    plan(inst, target).map_err(|(rule, reason)| {
        let refusal = Refusal::new(rule, format!("{reason} (target ptx:{target})"));
        match candidate_targets().find(|candidate| plan(inst, *candidate).is_ok()) {
            Some(smallest) => refusal.accepted_by(format!("ptx:{smallest}")),
            None => refusal,
        }
    })
}
