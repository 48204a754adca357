//! The verdicts of a legality table: what every backend answers with, and nothing else (the
//! options, errors, report and the [`Backend`](crate::lower::Backend) entry are the lowering's,
//! in [`crate::lower`]).
//!
//! Before anything is printed, a backend's legality table answers, per atomic node, with a
//! [`Verdict`]: the node is emitted natively, after named rewrites, through one of the shared
//! emulations of [`crate::expand`], or it is refused with a [`Refusal`] that names the rule and the
//! smallest target that would accept it. The verdict is data, so the lowering matrix can print it
//! and tests can count it.

use smallvec::SmallVec;
use std::any::Any;
use std::fmt;
use std::sync::Arc;

use crate::rule::RuleId;
use crate::types::{AtomicOp, ElemType, TypeClass, VectorShape};

mod rewrite;

pub use rewrite::Rewrite;

/// The headline of a verdict, used for counting and colouring the lowering matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Strategy {
    /// One native instruction of the target, as the node says.
    Native,
    /// Native after one or more meaning-preserving [`Rewrite`]s.
    Rewrite,
    /// An 8/16-bit access carried out on the containing 32-bit word with a mask.
    Widen,
    /// A compare-and-swap loop.
    CasLoop,
    /// A vector or packed access split into per-element atomics.
    Split,
    /// Nothing the target has can do it.
    Illegal,
}

impl Strategy {
    /// Every strategy, in the order reports list them.
    pub const ALL: [Strategy; 6] = [
        Strategy::Native,
        Strategy::Rewrite,
        Strategy::Widen,
        Strategy::CasLoop,
        Strategy::Split,
        Strategy::Illegal,
    ];

    /// The name reports and the JSON matrix use (`cas-loop`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Strategy::Native => "native",
            Strategy::Rewrite => "rewrite",
            Strategy::Widen => "widen",
            Strategy::CasLoop => "cas-loop",
            Strategy::Split => "split",
            Strategy::Illegal => "illegal",
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a node is carried out: one flat answer per node, in the spirit of LLVM's
/// `AtomicExpansionKind`. Widths and element counts are not repeated here: they follow from the
/// node (its type and shape), which is what [`crate::expand`] builds from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Lowering {
    /// The target's own instruction for the whole node (its vector form for a vector node).
    #[default]
    Native,
    /// A CAS loop on the element's width.
    CasLoop,
    /// An 8/16-bit element inside its aligned 32-bit word, by a masked 32-bit CAS loop.
    MaskedCasLoop,
    /// An 8/16-bit and/or/xor inside its aligned 32-bit word: one widened native op whose
    /// operand leaves the other bits unchanged; or a vector's f16/bf16 add/sub as one packed
    /// f16x2/bf16x2 add per word, each half its own element's operand (the vector fills its
    /// words, so no half belongs to other data).
    MaskedOp,
    /// A vector node as per-element atomics, each native (a backend may carry several elements
    /// in one of its vector accesses, as a vector access still makes each element its own
    /// atomic access).
    SplitNative,
    /// A vector node as per-element CAS loops.
    SplitCasLoop,
    /// A vector node of 8/16-bit elements as one masked CAS loop per aligned 32-bit word, each
    /// loop applying the op to every element of its word.
    SplitMaskedCasLoop,
    /// A vector node of 8/16-bit and/or/xor (or loads), or of f16/bf16 add/sub where the target
    /// has the packed add, as one widened op per aligned 32-bit word, each element's operand in
    /// place.
    SplitMaskedOp,
    /// A 32/64-bit float `min`/`max`/`fminimumnum`/`fmaximumnum` by the integer min/max atomic
    /// of its width on the operand's bits (signed or unsigned by the operand's sign), with a CAS
    /// loop only where the operand is a NaN or memory held the NaN the integer op leaves in
    /// place ([`crate::expand`] proves the conditions).
    IntMinMax,
    /// A vector node as per-element [`Lowering::IntMinMax`].
    SplitIntMinMax,
    /// A relaxed 8/16-bit integer add/sub/min/max as [`Lowering::MaskedCasLoop`] carried out
    /// once per address by a warp: the lanes with the same address fold their operands, the
    /// highest of them runs the loop with the fold, and each lane gets the old value of the
    /// linearization in which the group's operations are consecutive, in lane order (the old
    /// value the loop replaced, folded with the operands of the lanes below it). Exact: the
    /// fold is wrapping add or integer min/max, associative and commutative. Relaxed only: the
    /// other lanes' operations are carried out by another thread, which a relaxed atomic
    /// allows (it orders nothing but the location's own modification order, which the group's
    /// consecutive operations respect); the lanes wait for each other with ordering
    /// ([`crate::expand::Prim::WarpSync`]) before and after the loop, so each lane's own
    /// accesses to the location stay ordered with its operation. Scalar nodes on targets with
    /// warp vote and shuffle instructions only.
    WarpMaskedCasLoop,
    /// A relaxed 16-bit integer add/sub/min/max as [`Lowering::CasLoop`] on the element's own
    /// width, carried out once per address by a warp as [`Lowering::WarpMaskedCasLoop`] carries
    /// out its loop (same fold, same linearization, relaxed only). For targets whose 16-bit CAS
    /// retries faster than a masked 32-bit loop.
    WarpCasLoop,
    /// A relaxed scalar RMW the target has natively, carried out once per address by a warp as
    /// [`Lowering::WarpMaskedCasLoop`] carries out its loop: the lanes with the same address fold
    /// their operands and the highest of them runs the native RMW with the fold. For the exact
    /// folds of [`Lowering::warp_fold`], and for f32 add/sub only where the client opted into
    /// reassociation ([`Lowering::warp_fold_reassociating`], [`Rewrite::FloatAddReassociated`]).
    WarpNative,
    /// A relaxed scalar f32/f64 [`Lowering::IntMinMax`] carried out once per address by a warp
    /// as [`Lowering::WarpMaskedCasLoop`] carries out its loop: the lanes with the same address
    /// fold their operands by the node's float min/max and the highest of them runs the integer
    /// trick with the fold. Exact: float min/max (minimumNumber/maximumNumber) is commutative
    /// and associative bit for bit, since a NaN is the other operand's identity and any two NaNs
    /// give the canonical NaN whatever their payloads; so the group's one operation stores what
    /// its lanes' operations in lane order store, and a lane's lane-order old value is the
    /// group's old value min/max the fold of the operands below it, except the lowest lane's,
    /// which is the group's old value as it is (a NaN in memory keeps its payload there). The
    /// fold runs as an unsigned integer max (min) on a key that orders the non-NaN floats as the
    /// semantics do (-0 below +0) and maps each to one key, a NaN operand contributing the
    /// fold's identity, which decodes to a NaN: the fold is the largest (smallest) non-NaN
    /// operand, or a NaN where all are NaNs, and the integer trick sends a NaN to its CAS loop.
    /// Relaxed only, as [`Lowering::WarpMaskedCasLoop`]. Scalar nodes on targets with warp vote
    /// and shuffle instructions only.
    WarpIntMinMax,
    /// A relaxed scalar RMW as a CAS loop on the element (of 32 or 64 bits) or on the aligned
    /// 32-bit word of an 8/16-bit element, carried out once per such location by a warp whose
    /// lanes' operations are applied one after another: in each CAS attempt of the highest lane
    /// of the group at a location, every lane in lane order applies its own operation (rounded
    /// as its own atomic would be) to its own bits of the value the lane below it left, and
    /// keeps the element it found as its old value. Exact for any op,
    /// float add included: the results are those of the group's operations following each other
    /// in lane order. Relaxed only, as [`Lowering::WarpMaskedCasLoop`]. Scalar nodes on targets
    /// with warp vote and shuffle instructions only.
    WarpSerialFold,
    /// A relaxed scalar 8/16-bit integer add/sub/min/max as one masked CAS loop per aligned
    /// 32-bit word, carried out once per word by a warp: the lanes whose elements lie in one
    /// word form a group; the lanes of each address fold their operands as
    /// [`Lowering::WarpMaskedCasLoop`] does (same exact fold), and the highest lane of the group
    /// applies every address's fold (at most four for 8-bit elements, two for 16-bit) to its own
    /// bits in each attempt of one loop. Each lane gets the old value of the linearization in
    /// which the group's operations are consecutive, those at one address in lane order. So
    /// lanes at different addresses of one word share one loop (where
    /// [`Lowering::WarpMaskedCasLoop`] runs one per address, all retrying on the same word),
    /// and the lanes at one address are folded, not applied one by one
    /// ([`Lowering::WarpSerialFold`]). Relaxed only, as [`Lowering::WarpMaskedCasLoop`]. Scalar
    /// nodes on targets with warp vote and shuffle instructions only.
    WarpWordFold,
}

impl Lowering {
    /// How one element is carried out: the lowering without its split.
    pub const fn element(self) -> Lowering {
        match self {
            Lowering::Native | Lowering::SplitNative => Lowering::Native,
            Lowering::CasLoop | Lowering::SplitCasLoop => Lowering::CasLoop,
            Lowering::MaskedCasLoop | Lowering::SplitMaskedCasLoop => Lowering::MaskedCasLoop,
            Lowering::MaskedOp | Lowering::SplitMaskedOp => Lowering::MaskedOp,
            Lowering::IntMinMax | Lowering::SplitIntMinMax => Lowering::IntMinMax,
            Lowering::WarpMaskedCasLoop => Lowering::WarpMaskedCasLoop,
            Lowering::WarpCasLoop => Lowering::WarpCasLoop,
            Lowering::WarpNative => Lowering::WarpNative,
            Lowering::WarpIntMinMax => Lowering::WarpIntMinMax,
            Lowering::WarpSerialFold => Lowering::WarpSerialFold,
            Lowering::WarpWordFold => Lowering::WarpWordFold,
        }
    }

    /// Whether an element is a CAS retry loop (a masked one included): the lowerings whose
    /// order a target may carry by one fence before the loop and one after it
    /// ([`crate::lower::Access::Loop`]).
    pub const fn retries(self) -> bool {
        matches!(
            self.element(),
            Lowering::CasLoop
                | Lowering::MaskedCasLoop
                | Lowering::WarpMaskedCasLoop
                | Lowering::WarpCasLoop
                | Lowering::WarpSerialFold
                | Lowering::WarpWordFold
        )
    }

    /// Whether an element contains a CAS retry loop: a retrying lowering, or
    /// [`Lowering::IntMinMax`] (warp-combined or not), whose NaN path is one. Where the target carries a loop's order by
    /// one fence before and one after it ([`crate::lower::Access::Loop`]), the whole element is
    /// bracketed so (its integer atomic relaxed between the same fences), and no retry runs a
    /// fence.
    pub const fn has_retry_loop(self) -> bool {
        self.retries()
            || matches!(
                self.element(),
                Lowering::IntMinMax | Lowering::WarpIntMinMax
            )
    }

    /// The two integer atomics of [`Lowering::IntMinMax`] for float `op` on `ty`: `[signed,
    /// unsigned]`, the first (on the signed integer of the width) for an operand whose sign bit
    /// is clear, the second (on the unsigned one) for the others: max is a signed max or an
    /// unsigned min, min mirrored. `None` where `op` on `ty` is not a float min/max that
    /// lowering computes (`fminimumnum`/`fmaximumnum` are the same functions as `min`/`max`;
    /// `fminimum`/`fmaximum` propagate NaNs).
    pub const fn int_min_max_atomics(
        op: AtomicOp,
        ty: ElemType,
    ) -> Option<[(AtomicOp, ElemType); 2]> {
        if !matches!(ty.class(), TypeClass::Float) {
            return None;
        }
        let (signed, unsigned) = match ty.bits() {
            16 => (ElemType::S16, ElemType::U16),
            32 => (ElemType::S32, ElemType::U32),
            64 => (ElemType::S64, ElemType::U64),
            _ => return None,
        };
        match op {
            AtomicOp::Max | AtomicOp::FMaximumNum => {
                Some([(AtomicOp::Max, signed), (AtomicOp::Min, unsigned)])
            }
            AtomicOp::Min | AtomicOp::FMinimumNum => {
                Some([(AtomicOp::Min, signed), (AtomicOp::Max, unsigned)])
            }
            _ => None,
        }
    }

    /// Whether the node is split into per-element atomics.
    pub const fn is_split(self) -> bool {
        matches!(
            self,
            Lowering::SplitNative
                | Lowering::SplitCasLoop
                | Lowering::SplitMaskedCasLoop
                | Lowering::SplitMaskedOp
                | Lowering::SplitIntMinMax
        )
    }

    /// `element` carried out on each element of a node of `shape`: split for a vector.
    pub const fn per_element(element: Lowering, shape: VectorShape) -> Lowering {
        if !shape.is_vector() {
            return element.element();
        }
        match element.element() {
            Lowering::Native | Lowering::WarpNative => Lowering::SplitNative,
            Lowering::CasLoop | Lowering::WarpCasLoop | Lowering::WarpSerialFold => {
                Lowering::SplitCasLoop
            }
            Lowering::MaskedCasLoop | Lowering::WarpMaskedCasLoop | Lowering::WarpWordFold => {
                Lowering::SplitMaskedCasLoop
            }
            Lowering::IntMinMax | Lowering::WarpIntMinMax => Lowering::SplitIntMinMax,
            _ => Lowering::SplitMaskedOp,
        }
    }

    /// The masked lowering of an 8/16-bit element of `op`: one widened op for the bitwise ops
    /// whose other bits a neutral mask keeps (and/or/xor), a masked CAS loop for the rest.
    pub const fn masked(op: AtomicOp) -> Lowering {
        match op {
            AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => Lowering::MaskedOp,
            _ => Lowering::MaskedCasLoop,
        }
    }
}

/// A legality table's positive answer for one node.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Legality {
    /// The meaning-preserving changes made to the node, in the order they apply.
    pub rewrites: SmallVec<[Rewrite; 3]>,
    /// How the (rewritten) node is carried out: natively, or by which emulation.
    pub lowering: Lowering,
}

impl Legality {
    /// One native instruction, no rewrite.
    pub fn native() -> Self {
        Legality::default()
    }

    /// The given lowering, no rewrite yet.
    pub fn emulated(lowering: Lowering) -> Self {
        Legality {
            rewrites: SmallVec::new(),
            lowering,
        }
    }

    /// This answer with `rewrite` recorded after the others.
    pub fn with(mut self, rewrite: Rewrite) -> Self {
        self.rewrites.push(rewrite);
        self
    }

    /// The headline strategy, derived from what the verdict contains.
    pub fn strategy(&self) -> Strategy {
        match self.lowering {
            lowering if lowering.is_split() => Strategy::Split,
            // A CAS loop remains, for NaNs.
            Lowering::CasLoop
            | Lowering::IntMinMax
            | Lowering::WarpCasLoop
            | Lowering::WarpSerialFold
            | Lowering::WarpIntMinMax => Strategy::CasLoop,
            Lowering::MaskedCasLoop
            | Lowering::MaskedOp
            | Lowering::WarpMaskedCasLoop
            | Lowering::WarpWordFold => Strategy::Widen,
            _ if self.rewrites.is_empty() => Strategy::Native,
            _ => Strategy::Rewrite,
        }
    }

    /// A one-line human description of the verdict for a node of `ty` and `shape`: the
    /// strategy, the emulation and every rewrite.
    pub fn describe(&self, ty: ElemType, shape: VectorShape) -> String {
        let mut text = String::from(self.strategy().as_str());
        let bits = ty.bits();
        let masked = |needs_loop: bool| {
            format!(
                " ({bits}-bit in a 32-bit word, {})",
                if needs_loop {
                    "masked CAS loop"
                } else {
                    "single masked op"
                }
            )
        };
        match self.lowering {
            Lowering::Native => {}
            Lowering::CasLoop => text.push_str(&format!(" on a {bits}-bit CAS")),
            Lowering::MaskedCasLoop => text.push_str(&masked(true)),
            Lowering::MaskedOp => text.push_str(&masked(false)),
            Lowering::WarpNative => {
                text.push_str(" (native, once per address by the warp's lanes combined)")
            }
            Lowering::WarpMaskedCasLoop => text.push_str(&format!(
                " ({bits}-bit in a 32-bit word, masked CAS loop run once per address by the \
                 warp's lanes combined)"
            )),
            Lowering::WarpCasLoop => text.push_str(&format!(
                " on a {bits}-bit CAS, run once per address by the warp's lanes combined"
            )),
            Lowering::WarpWordFold => text.push_str(&format!(
                " ({bits}-bit in a 32-bit word, masked CAS loop run once per word by the \
                 warp's lanes, those of each address combined)"
            )),
            Lowering::WarpSerialFold if bits < 32 => text.push_str(&format!(
                " ({bits}-bit in a 32-bit word, CAS loop run once per word by the warp's \
                 lanes, their operations applied one after another in lane order)"
            )),
            Lowering::WarpSerialFold => text.push_str(&format!(
                " on a {bits}-bit CAS, run once per address by the warp's lanes, their \
                 operations applied one after another in lane order"
            )),
            Lowering::IntMinMax => text.push_str(&format!(
                " only for NaNs, {bits}-bit integer min/max otherwise"
            )),
            Lowering::WarpIntMinMax => text.push_str(&format!(
                " only for NaNs, {bits}-bit integer min/max otherwise, run once per address by \
                 the warp's lanes combined"
            )),
            split => {
                let each = match split.element() {
                    Lowering::Native => "native".to_string(),
                    Lowering::CasLoop => format!("{bits}-bit CAS loop"),
                    Lowering::IntMinMax => format!("{bits}-bit integer min/max"),
                    _ => format!("{bits}-bit in a 32-bit word"),
                };
                text.push_str(&format!(" into {} elements, each {each}", shape.len()));
            }
        }
        self.push_rewrites(&mut text);
        text
    }

    /// How a fence is lowered, in words: it touches no memory, so nothing is split or widened.
    pub fn describe_fence(&self) -> String {
        let mut text = String::from(self.strategy().as_str());
        self.push_rewrites(&mut text);
        text
    }

    fn push_rewrites(&self, text: &mut String) {
        for rewrite in &self.rewrites {
            text.push_str("; ");
            text.push_str(&rewrite.to_string());
        }
    }
}

/// Why a node cannot be lowered for a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The rule that refuses, e.g. `ptx.b128-needs-sm90`.
    pub rule: RuleId,
    /// What the rule says, in words.
    pub reason: String,
    /// The smallest target of the same backend that accepts the node, if any does: the
    /// backend's own target, typed ([`TargetId::get`]; the `atomir` crate hands it out as its
    /// `Target`).
    pub smallest_target: Option<TargetId>,
}

impl Refusal {
    /// A refusal by `rule`, with the reason in words; no smallest target yet.
    pub fn new(rule: impl Into<RuleId>, reason: impl Into<String>) -> Self {
        Refusal {
            rule: rule.into(),
            reason: reason.into(),
            smallest_target: None,
        }
    }

    /// This refusal, naming the smallest target that accepts the node.
    pub fn accepted_by(mut self, target: TargetId) -> Self {
        self.smallest_target = Some(target);
        self
    }
}

/// A target of one backend as a refusal names it: the backend's own target value (a
/// `PtxTarget`, `VisaTarget`, `LlvmTarget`), kept typed so that no client parses a name back,
/// with the canonical name its `Display` prints. Two ids are equal where their names are: a
/// canonical name denotes one target.
#[derive(Clone)]
pub struct TargetId(Arc<Named<dyn Any + Send + Sync>>);

/// A target beside its canonical name, shared: a refusal stays small.
struct Named<T: ?Sized> {
    name: String,
    target: T,
}

impl TargetId {
    /// The id of `target`, whose canonical name is `name`.
    pub fn new<T: Any + Send + Sync>(target: T, name: impl Into<String>) -> Self {
        TargetId(Arc::new(Named {
            name: name.into(),
            target,
        }))
    }

    /// The canonical name, e.g. `ptx:sm_90@8.3`.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The target, where it is a `T` (the backend's own target type).
    pub fn get<T: Any + Copy>(&self) -> Option<T> {
        self.0.target.downcast_ref::<T>().copied()
    }
}

impl PartialEq for TargetId {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for TargetId {}

impl fmt::Debug for TargetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("TargetId").field(&self.name()).finish()
    }
}

impl fmt::Display for TargetId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [rule {}]", self.reason, self.rule)?;
        if self.rule.blames_caller() {
            return f.write_str("; the call's input is at fault, not the target");
        }
        match &self.smallest_target {
            Some(target) => write!(f, "; smallest target that accepts it: {target}"),
            None => write!(f, "; no target of this backend accepts it"),
        }
    }
}

/// The legality table's answer.
pub type Verdict = Result<Legality, Refusal>;

impl std::error::Error for Refusal {}
