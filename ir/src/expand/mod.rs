//! Edge-independent emulations, written once: CAS loops, part-word (8/16-bit inside a 32-bit
//! word) access and per-element splitting.
//!
//! An [`Expansion`] is a small control-flow graph of primitive operations ([`Prim`]) over typed
//! virtual registers ([`Var`]), with block parameters in place of phis (as in cranelift). Every
//! backend prints the same primitives in its own syntax, so the algorithm lives here and only
//! here. Memory primitives carry the node's scope and space, and the instruction that makes the
//! node atomic (the CAS, or the native RMW) carries the node's full memory order: an expansion
//! never weakens either. The first load of a CAS loop is relaxed on purpose (its value is only a
//! guess that the CAS validates), except in a relaxed or acquire loop, which leaves without a CAS
//! when nothing changes: there the load may be the whole operation and carries the node's order.
//!
//! - register types and primitives, with their typing rules: [`PrimType`], [`Prim`];
//! - the expansions themselves: [`expand`] and the [`Expander`];
//! - the checks every expansion passes: [`Expansion::validate`].

mod build;
mod prim;
mod reuse;
mod softfloat;
mod typing;
mod validate;

use cranelift_entity::{entity_impl, PrimaryMap};
use petgraph::graphmap::DiGraphMap;
use smallvec::{smallvec, SmallVec};
use std::fmt;

pub use build::{expand, mem_attrs, skips_unchanged, Expander};
pub use prim::{BinaryOp, CmpCond, MemAttrs, Prim, PrimType, ScanSpan, UnaryOp};
pub use reuse::Reuse;
pub use softfloat::{FloatTypes, SoftFloat, SoftFloatNeeds};
pub use typing::TypeError;

/// A basic block of an expansion.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "bb");

/// A typed virtual register of an expansion.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(u32);
entity_impl!(Var, "t");

/// An edge into a block, with the values bound to the block's parameters (cranelift's
/// `BlockCall`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The block entered.
    pub block: Block,
    /// One register per parameter of `block`, in order.
    pub args: SmallVec<[Var; 2]>,
}

/// How a block ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Terminator {
    /// An unconditional jump.
    Jump(Edge),
    /// `if cond { then } else { otherwise }`.
    Branch {
        /// A [`PrimType::Pred`].
        cond: Var,
        /// The edge taken where `cond` holds.
        then: Edge,
        /// The edge taken where it does not.
        otherwise: Edge,
    },
    /// The end of the expansion: [`Expansion::results`] hold the old values.
    Return,
}

impl Terminator {
    /// The outgoing edges: one for a jump, `[then, otherwise]` for a branch, none for return.
    pub fn successors(&self) -> SmallVec<[&Edge; 2]> {
        match self {
            Terminator::Jump(target) => smallvec![target],
            Terminator::Branch {
                then, otherwise, ..
            } => smallvec![then, otherwise],
            Terminator::Return => smallvec![],
        }
    }

    /// The registers it reads: a branch's condition, then every edge's arguments.
    pub fn uses(&self) -> impl Iterator<Item = Var> + '_ {
        let cond = match *self {
            Terminator::Branch { cond, .. } => Some(cond),
            _ => None,
        };
        let args = self
            .successors()
            .into_iter()
            .flat_map(|edge| edge.args.iter().copied());
        cond.into_iter().chain(args)
    }
}

/// A basic block: parameters (cranelift-style block arguments instead of phis), straight-line
/// primitives, one terminator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockData {
    /// Registers defined on entry by the arguments of the edge taken.
    pub params: SmallVec<[Var; 2]>,
    /// The primitives, in execution order.
    pub prims: Vec<Prim>,
    /// How the block ends.
    pub terminator: Terminator,
}

/// The expansion of one atomic node.
///
/// Inputs are registers the backend binds before the entry block: `addr` (the node's address),
/// one `operands` register per element (the `b` operand, in [`PrimType::natural`] type) and, for
/// `cas`, one `new_values` register per element. After `Return`, `results` hold the old value of
/// each element (empty when the node's result is unused). Blocks are in layout order; the first
/// is the entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expansion {
    /// Every register and its type.
    pub vars: PrimaryMap<Var, PrimType>,
    /// The blocks, in layout order; the first is the entry.
    pub blocks: PrimaryMap<Block, BlockData>,
    /// Input: the node's address, a [`PrimType::Ptr`].
    pub addr: Var,
    /// Inputs: the `b` operand of each element.
    pub operands: SmallVec<[Var; 8]>,
    /// Inputs: the new value of each element of a `cas` (empty otherwise).
    pub new_values: SmallVec<[Var; 8]>,
    /// Outputs after `Return`: the old value of each element (empty when unused).
    pub results: SmallVec<[Var; 8]>,
}

impl Expansion {
    /// The entry block, always the first.
    pub fn entry(&self) -> Block {
        Block::from_u32(0)
    }

    /// The control-flow graph, for analyses and checks.
    pub fn cfg(&self) -> DiGraphMap<Block, ()> {
        let mut graph = DiGraphMap::new();
        for (block, data) in &self.blocks {
            graph.add_node(block);
            for target in data.terminator.successors() {
                graph.add_edge(block, target.block, ());
            }
        }
        graph
    }

    /// Whether the expansion contains a loop (a CAS retry).
    pub fn has_loop(&self) -> bool {
        petgraph::algo::is_cyclic_directed(&self.cfg())
    }

    /// Whether the two edges of `block`'s branch on `cond` can bind their parameters one after
    /// the other, before the branch: the targets differ; neither the condition nor any argument
    /// is a parameter either edge writes; and no parameter one edge writes is read where the
    /// other edge leads before an edge binds it again, unless that copy cannot change it there
    /// (the other edge is taken only where the parameter already holds the copied value, as a
    /// CAS loop's exit is taken only where the CAS returned what it expected).
    pub fn binds_independently(
        &self,
        block: Block,
        cond: Var,
        then: &Edge,
        otherwise: &Edge,
    ) -> bool {
        let params_of = |edge: &Edge| &self.blocks[edge.block].params;
        let written = || params_of(then).iter().chain(params_of(otherwise).iter());
        if then.block == otherwise.block
            || written().any(|param| *param == cond)
            || then
                .args
                .iter()
                .chain(otherwise.args.iter())
                .any(|arg| written().any(|param| param == arg))
        {
            return false;
        }
        let harmless_on = |copying: &Edge, other: &Edge, other_taken_where_equal: CmpCond| {
            params_of(copying)
                .iter()
                .zip(&copying.args)
                .all(|(&param, &arg)| {
                    self.compares(block, cond, other_taken_where_equal, param, arg)
                        || !self.read_before_bound(other.block, param)
                })
        };
        harmless_on(otherwise, then, CmpCond::Eq) && harmless_on(then, otherwise, CmpCond::Ne)
    }

    /// Whether `cond` is defined in `block` as `a <condition> b` or `b <condition> a`.
    fn compares(&self, block: Block, cond: Var, condition: CmpCond, a: Var, b: Var) -> bool {
        self.blocks[block].prims.iter().any(|prim| {
            matches!(*prim, Prim::Cmp { dst, cond: c, a: x, b: y }
                if dst == cond && c == condition && ((x == a && y == b) || (x == b && y == a)))
        })
    }

    /// Whether block parameter `param` is read on some path from the start of `from` before an
    /// edge into its block binds it again (at the end, [`Expansion::results`] are read).
    fn read_before_bound(&self, from: Block, param: Var) -> bool {
        let mut seen: SmallVec<[Block; 8]> = SmallVec::new();
        let mut stack: SmallVec<[Block; 8]> = smallvec![from];
        while let Some(block) = stack.pop() {
            if seen.contains(&block) {
                continue;
            }
            seen.push(block);
            let data = &self.blocks[block];
            let reads = data.prims.iter().any(|prim| prim.uses().contains(&param))
                || data.terminator.uses().any(|var| var == param)
                || (data.terminator == Terminator::Return && self.results.contains(&param));
            if reads {
                return true;
            }
            stack.extend(
                data.terminator
                    .successors()
                    .into_iter()
                    .filter(|edge| !self.blocks[edge.block].params.contains(&param))
                    .map(|edge| edge.block),
            );
        }
        false
    }

    /// Every memory primitive, in layout order.
    pub fn memory_prims(&self) -> impl Iterator<Item = &Prim> {
        self.blocks
            .values()
            .flat_map(|b| b.prims.iter())
            .filter(|p| p.mem().is_some())
    }
}

impl fmt::Display for Expansion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |v: Var| format!("{v}:{}", self.vars[v]);
        let list = |vars: &[Var]| vars.iter().map(|v| name(*v)).collect::<Vec<_>>().join(", ");
        writeln!(
            f,
            "inputs addr={} operands=[{}] new=[{}] results=[{}]",
            name(self.addr),
            list(&self.operands),
            list(&self.new_values),
            list(&self.results)
        )?;
        for (block, data) in &self.blocks {
            writeln!(f, "{block}({}):", list(&data.params))?;
            for prim in &data.prims {
                writeln!(f, "  {prim:?}")?;
            }
            writeln!(f, "  {:?}", data.terminator)?;
        }
        Ok(())
    }
}
