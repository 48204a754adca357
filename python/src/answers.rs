//! The classes a target answers with: `atomir.Target` itself (its methods are in `target`),
//! `atomir.Verdict` and `atomir.Refusal`, and the exception of a refusal. Below every module
//! that returns them, so that none of those needs the methods' module.

use atomir::ir::Node;
use atomir::{Legality, Refusal as IrRefusal, SourceLoc, Target as IrTarget, Verdict as IrVerdict};
use pyo3::prelude::*;

use crate::errors::{raise, Details, InvalidError, RefusedError};

/// One target of one backend, by its name: `Target("ptx:sm_90")`, `Target("visa:PVC")`,
/// `Target("llvm:amdgcn@22")`. `str(target)` is the canonical name (defaults spelled out,
/// e.g. `ptx:sm_90@8.8`), which names the same target. A name that names no target raises
/// `atomir.InvalidError` saying what is expected; `atomir.targets_help()` lists them all.
#[pyclass(module = "atomir", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Target {
    pub(crate) target: IrTarget,
}

/// Why a target refuses a node: the rule, the reason, the smallest target of the backend
/// that accepts it, and where (for a node of a module's text). `str(refusal)` is the
/// library's own one-line message.
#[pyclass(module = "atomir", frozen)]
#[derive(Clone)]
pub struct Refusal {
    /// The rule id, e.g. `ptx.b128-needs-sm90`.
    #[pyo3(get)]
    pub rule: String,
    /// What the rule says, in words.
    #[pyo3(get)]
    pub reason: String,
    /// The smallest target of the same backend that accepts the node, or None where none
    /// does (or the call's input is at fault).
    #[pyo3(get)]
    pub smallest_target: Option<Target>,
    /// The kernel, for a node of a module; else None.
    #[pyo3(get)]
    pub kernel: Option<String>,
    /// The line of the text form, or None.
    #[pyo3(get)]
    pub line: Option<u32>,
    /// The column of the text form, or None.
    #[pyo3(get)]
    pub col: Option<u32>,
    /// The library's message.
    text: String,
    /// The library's refusal.
    refusal: IrRefusal,
}

impl Refusal {
    pub(crate) fn of(refusal: &IrRefusal) -> Self {
        Refusal {
            rule: refusal.rule.to_string(),
            reason: refusal.reason.clone(),
            smallest_target: IrTarget::smallest_accepting(refusal).map(|target| Target { target }),
            kernel: None,
            line: None,
            col: None,
            text: refusal.to_string(),
            refusal: refusal.clone(),
        }
    }

    pub(crate) fn of_error(error: &atomir::LowerError) -> Self {
        let known = error.loc.is_known();
        Refusal {
            kernel: Some(error.kernel.clone()),
            line: known.then_some(error.loc.line),
            col: known.then_some(error.loc.col),
            text: if known {
                error.to_string()
            } else {
                error.refusal.to_string()
            },
            ..Refusal::of(&error.refusal)
        }
    }

    /// The exception of this refusal: `atomir.RefusedError`, or `atomir.InvalidError` where
    /// the rule blames the call's input.
    pub(crate) fn to_error(&self) -> PyErr {
        let loc = self
            .line
            .zip(self.col)
            .map(|(line, col)| SourceLoc::new(line, col));
        let details = Details {
            rule: Some(self.rule.clone()),
            reason: self.reason.clone(),
            kernel: self.kernel.clone(),
            loc,
            diagnostics: Vec::new(),
        };
        let error = if self.refusal.rule.blames_caller() {
            raise::<InvalidError>(self.text.clone(), details)
        } else {
            raise::<RefusedError>(self.text.clone(), details)
        };
        Python::attach(|py| {
            // Setting an attribute on a fresh exception instance cannot fail.
            let _ = error
                .value(py)
                .setattr("smallest_target", self.smallest_target);
        });
        error
    }
}

#[pymethods]
impl Refusal {
    fn __str__(&self) -> String {
        self.text.clone()
    }

    fn __repr__(&self) -> String {
        let smallest = match &self.smallest_target {
            Some(target) => format!("Target('{}')", target.target),
            None => "None".to_string(),
        };
        format!("Refusal(rule='{}', smallest_target={smallest})", self.rule)
    }
}

/// A target's answer for one node: accepted (how it is carried out) or refused (why).
///
/// `strategy` is one of `atomir.Strategy` (`"illegal"` for a refusal); `rewrites` the
/// meaning-preserving changes made, in words; `emulation` how the node is carried out
/// (`"native"`, `"cas_loop"`, `"masked_cas_loop"`, `"split_native"`, …; None for a refusal);
/// `description` all of it in one line; `refusal` the `atomir.Refusal`, or None;
/// `instructions` the size of the node's code in instructions (an int for an accepted node,
/// the same from `legalize` as from a fragment or a lowering of the node; None for a refusal).
/// `bool(verdict)` is whether the target accepts the node.
#[pyclass(module = "atomir", frozen, get_all)]
#[derive(Clone)]
pub struct Verdict {
    /// The canonical name of the target that answered.
    pub target: String,
    /// Whether the target accepts the node.
    pub accepted: bool,
    /// The headline strategy (`"native"`, `"rewrite"`, `"widen"`, `"cas-loop"`, `"split"`,
    /// `"illegal"`).
    pub strategy: &'static str,
    /// The rewrites, in words, in the order they apply.
    pub rewrites: Vec<String>,
    /// How the node is carried out, or None for a refusal.
    pub emulation: Option<String>,
    /// The verdict in one line.
    pub description: String,
    /// Why the target refuses the node, or None.
    pub refusal: Option<Refusal>,
    /// The number of instructions of the node's code (its lines less labels and comments),
    /// the same from `legalize`, a fragment, a lowering and `lower_each`; None for a refusal.
    pub instructions: Option<u32>,
}

impl Verdict {
    pub(crate) fn of(target: IrTarget, node: Node, verdict: &IrVerdict) -> Self {
        match verdict {
            Ok(legality) => Verdict::accepted(target, node, legality),
            Err(refusal) => Verdict::refused(target, Refusal::of(refusal)),
        }
    }

    pub(crate) fn accepted(target: IrTarget, node: Node, legality: &Legality) -> Self {
        let description = match node {
            Node::Atomic(atomic) => legality.describe(atomic.ty, atomic.shape),
            Node::Fence(_) => legality.describe_fence(),
        };
        Verdict {
            target: target.to_string(),
            accepted: true,
            strategy: legality.strategy().as_str(),
            rewrites: legality.rewrites.iter().map(ToString::to_string).collect(),
            emulation: Some(snake_case(&format!("{:?}", legality.lowering))),
            description,
            refusal: None,
            instructions: None,
        }
    }

    /// This verdict, with the instruction count of the code printed for the node.
    pub(crate) fn with_instructions(mut self, instructions: u32) -> Self {
        self.instructions = Some(instructions);
        self
    }

    pub(crate) fn refused(target: IrTarget, refusal: Refusal) -> Self {
        Verdict {
            target: target.to_string(),
            accepted: false,
            strategy: atomir::Strategy::Illegal.as_str(),
            rewrites: Vec::new(),
            emulation: None,
            description: refusal.text.clone(),
            refusal: Some(refusal),
            instructions: None,
        }
    }
}

/// `MaskedCasLoop` as `masked_cas_loop`: the Python spelling of a lowering's Rust name.
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (index, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if index > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[pymethods]
impl Verdict {
    fn __bool__(&self) -> bool {
        self.accepted
    }

    /// Raises `atomir.RefusedError` (rule, reason, smallest target) if the node is refused.
    fn raise_if_refused(&self) -> PyResult<()> {
        match &self.refusal {
            None => Ok(()),
            Some(refusal) => Err(refusal.to_error()),
        }
    }

    fn __str__(&self) -> String {
        self.description.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Verdict(target='{}', strategy='{}', description={:?})",
            self.target, self.strategy, self.description
        )
    }
}

/// The exception of a refusal at a place of a module (`atomir.RefusedError`, or
/// `atomir.InvalidError` where the rule blames the call's input), with its kernel and
/// location where the text form gives one.
pub(crate) fn lower_error(error: &atomir::LowerError) -> PyErr {
    Refusal::of_error(error).to_error()
}
