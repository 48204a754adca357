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
use crate::types::{ElemType, VectorShape};

mod lowering;
mod rewrite;

pub use lowering::{ElementLowering, InvalidLowering, Lowering, Split, WarpCombine};
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
        if self.lowering.is_split() {
            return Strategy::Split;
        }
        match self.lowering.element() {
            // An integer min/max keeps a CAS loop, for NaNs.
            ElementLowering::CasLoop
            | ElementLowering::CasThenMaskedLoop
            | ElementLowering::IntMinMax => Strategy::CasLoop,
            ElementLowering::MaskedCasLoop | ElementLowering::MaskedOp => Strategy::Widen,
            ElementLowering::Native if self.rewrites.is_empty() => Strategy::Native,
            ElementLowering::Native => Strategy::Rewrite,
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
        let element = self.lowering.element();
        if self.lowering.is_split() {
            let each = match element {
                ElementLowering::Native => "native".to_string(),
                ElementLowering::CasLoop => format!("{bits}-bit CAS loop"),
                ElementLowering::CasThenMaskedLoop => {
                    format!("{bits}-bit CAS, then a masked CAS loop on its 32-bit word")
                }
                ElementLowering::IntMinMax => format!("{bits}-bit integer min/max"),
                ElementLowering::MaskedCasLoop | ElementLowering::MaskedOp => {
                    format!("{bits}-bit in a 32-bit word")
                }
            };
            text.push_str(&format!(" into {} elements, each {each}", shape.len()));
            self.push_rewrites(&mut text);
            return text;
        }
        match (self.lowering.warp(), element) {
            (WarpCombine::PerLane, ElementLowering::Native) => {}
            (WarpCombine::PerLane, ElementLowering::CasLoop) => {
                text.push_str(&format!(" on a {bits}-bit CAS"))
            }
            (WarpCombine::PerLane, ElementLowering::CasThenMaskedLoop) => {
                text.push_str(&contended_word(bits))
            }
            (_, ElementLowering::MaskedOp) => text.push_str(&masked(false)),
            (WarpCombine::PerLane, ElementLowering::MaskedCasLoop) => text.push_str(&masked(true)),
            (WarpCombine::PerLane, ElementLowering::IntMinMax) => text.push_str(&format!(
                " only for NaNs, {bits}-bit integer min/max otherwise"
            )),
            (WarpCombine::Fold, ElementLowering::Native) => {
                text.push_str(" (native, once per address by the warp's lanes combined)")
            }
            (WarpCombine::Fold, ElementLowering::MaskedCasLoop) => text.push_str(&format!(
                " ({bits}-bit in a 32-bit word, masked CAS loop run once per address by the \
                 warp's lanes combined)"
            )),
            (WarpCombine::Fold, ElementLowering::CasLoop) => text.push_str(&format!(
                " on a {bits}-bit CAS, run once per address by the warp's lanes combined"
            )),
            (WarpCombine::Fold, ElementLowering::CasThenMaskedLoop) => text.push_str(&format!(
                "{}, run once per address by the warp's lanes combined",
                contended_word(bits)
            )),
            (WarpCombine::Fold, ElementLowering::IntMinMax) => text.push_str(&format!(
                " only for NaNs, {bits}-bit integer min/max otherwise, run once per address by \
                 the warp's lanes combined"
            )),
            (WarpCombine::WordFold, _) => text.push_str(&format!(
                " ({bits}-bit in a 32-bit word, masked CAS loop run once per word by the \
                 warp's lanes, those of each address combined)"
            )),
            (WarpCombine::SerialFold, _) if bits < 32 => text.push_str(&format!(
                " ({bits}-bit in a 32-bit word, CAS loop run once per word by the warp's \
                 lanes, their operations applied one after another in lane order)"
            )),
            (WarpCombine::SerialFold, _) => text.push_str(&format!(
                " on a {bits}-bit CAS, run once per address by the warp's lanes, their \
                 operations applied one after another in lane order"
            )),
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

/// [`ElementLowering::CasThenMaskedLoop`] in words, after the strategy.
fn contended_word(bits: u32) -> String {
    format!(
        " on a {bits}-bit CAS, then, once a CAS fails, {bits}-bit in a 32-bit word by a masked \
         CAS loop"
    )
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
