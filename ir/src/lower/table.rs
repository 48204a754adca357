//! The legality side of a backend: the [`Plan`] a table answers with, the [`Table`] that answers,
//! and the queries that search a refusal's smallest target among the table's candidates.
//!
//! It is kept apart from the printing so that [`legalize`] (what the matrix, the reports and
//! the driver ask) reads nothing a printer holds: a verdict depends on the table alone.

use crate::expand::SoftFloatNeeds;
use crate::kernel::{self, Param};
use crate::legal::{Legality, Refusal, TargetId};
use crate::node::{AtomicNode, Node};
use crate::rule::KitRule;
use crate::types::ElemType;

use super::{Access, FencePolicy};

/// What a table decided for one node: everything the printer needs to honour the verdict.
pub trait Plan {
    /// The verdict, as the matrix and the reports show it.
    fn legality(&self) -> &Legality;

    /// Whether the printer prints the node whole, in the backend's native form; otherwise the
    /// driver expands it by [`Legality::lowering`] and the printer prints the expansion.
    fn is_whole(&self) -> bool;

    /// How the target carries the node's memory order on an access of `access` kind.
    fn fences(&self, access: Access) -> FencePolicy;
}

/// A backend's legality table for one target: the one place that decides.
pub trait Table: Sized + Copy + Send + Sync + 'static {
    /// The backend's plan: the verdict and its typed native form.
    type Plan: Plan;

    /// The canonical target name, e.g. `ptx:sm_90@8.8`.
    fn name(&self) -> String;

    /// The table's answer for one node. A refusal names its rule; the driver searches its
    /// smallest target among [`Table::candidates`].
    fn plan(&self, node: &AtomicNode) -> Result<Self::Plan, Refusal>;

    /// The table's answer for a kernel's parameters, used or not (a signature is the kernel's
    /// interface): the first parameter the target cannot carry (its type, or where it would
    /// lie) and why. The driver searches a refusal's smallest target as for a node.
    fn signature(&self, params: &[Param]) -> Result<(), (usize, Refusal)>;

    /// The table's answer for `node` beside an earlier access of the same kernel through the
    /// same pointer parameter whose element type was `earlier` (accepted alone too): what no
    /// node decides on its own, on a target that gives each pointer parameter one type for
    /// all its accesses. By default a pointer may be accessed as any type. The driver
    /// searches a refusal's smallest target as for a node.
    fn beside(&self, _node: &AtomicNode, _earlier: ElemType) -> Result<(), Refusal> {
        Ok(())
    }

    /// The table's answer for one fence.
    fn plan_fence(&self, fence: &kernel::Fence) -> Result<Self::Plan, Refusal>;

    /// The table's answer for an access or a fence.
    fn plan_node(&self, node: &Node) -> Result<Self::Plan, Refusal> {
        match node {
            Node::Atomic(node) => self.plan(node),
            Node::Fence(fence) => self.plan_fence(fence),
        }
    }

    /// The targets of this backend a refusal's smallest target is searched among, in the order
    /// that defines "smallest".
    fn candidates(&self) -> Vec<Self>;

    /// The passes the driver runs on every expansion before the printer sees it.
    fn passes(&self) -> Passes {
        Passes::default()
    }
}

/// The expansion passes a backend asks for, by what its printer can spell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Passes {
    /// Reuse pure results along single edges ([`Reuse`]).
    ///
    /// [`Reuse`]: crate::expand::Reuse
    pub reuse: bool,
    /// Float primitives the target cannot spell, rewritten in integers ([`SoftFloat`]); runs
    /// before reuse, so reuse sees the rewritten primitives.
    ///
    /// [`SoftFloat`]: crate::expand::SoftFloat
    pub soft_float: SoftFloatNeeds,
}

/// The smallest of `table`'s candidates that accepts `node`.
pub fn smallest_accepting<T: Table>(table: &T, node: &Node) -> Option<TargetId> {
    smallest_where(table, |candidate| candidate.plan_node(node).is_ok())
}

/// The smallest of `table`'s candidates for which `accepts` holds.
fn smallest_where<T: Table>(table: &T, accepts: impl Fn(&T) -> bool) -> Option<TargetId> {
    table
        .candidates()
        .into_iter()
        .find(|candidate| accepts(candidate))
        .map(|candidate| TargetId::new(candidate, candidate.name()))
}

/// Whether the target carries `node` beside an earlier access of its pointer parameter as
/// `earlier` ([`Table::beside`]), or the refusal with the smallest target that carries both.
pub fn legalize_beside<T: Table>(
    table: &T,
    node: &AtomicNode,
    earlier: ElemType,
) -> Result<(), Refusal> {
    table.beside(node, earlier).map_err(|mut refusal| {
        refusal.smallest_target = smallest_where(table, |candidate| {
            candidate.plan(node).is_ok() && candidate.beside(node, earlier).is_ok()
        });
        refusal
    })
}

/// Whether the target carries a kernel's parameters, or the first it cannot carry with the
/// refusal and the smallest target that carries them all.
pub fn legalize_signature<T: Table>(table: &T, params: &[Param]) -> Result<(), (usize, Refusal)> {
    table.signature(params).map_err(|(param, mut refusal)| {
        refusal.smallest_target =
            smallest_where(table, |candidate| candidate.signature(params).is_ok());
        (param, refusal)
    })
}

/// The plan for `node`, or the refusal with the smallest target that accepts the node. A node
/// the IR does not define ([`Node::undefined`]) is refused before the table is asked, and no
/// target accepts it.
pub fn legalize<T: Table>(table: &T, node: &Node) -> Result<T::Plan, Refusal> {
    if let Some(reason) = node.undefined() {
        return Err(Refusal::new(KitRule::UndefinedNode, reason));
    }
    table.plan_node(node).map_err(|mut refusal| {
        refusal.smallest_target = smallest_accepting(table, node);
        refusal
    })
}

/// Why a target name (the part after a backend's `<backend>:` prefix, or a whole name for the
/// facade that chains the backends) names no target: what was read and what was expected, in
/// words. A target name is not source text, so the error carries no location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseTargetError {
    message: String,
}

impl ParseTargetError {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> Self {
        ParseTargetError {
            message: message.into(),
        }
    }

    /// What is wrong with the name, in words.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl std::fmt::Display for ParseTargetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseTargetError {}
