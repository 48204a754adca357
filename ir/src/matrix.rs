//! The lowering matrix: every target-independently valid combination of op × type × shape ×
//! order × scope × space × result-used (loads and stores among the ops), each as a
//! one-instruction kernel, and every fence (order × scope).
//!
//! [`cells`] enumerates the atomic accesses ([`Cell`]), [`fence_cells`] the fences, and
//! [`all_cells`] both ([`AnyCell`]): that is the whole matrix, what reports show.

use std::fmt;

use crate::kernel::{AtomicInst, Fence, Kernel, Module, Operand, Scalar};
use crate::legal::{Refusal, Strategy, Verdict};
use crate::lower::{Backend, LowerOptions};
use crate::node::{AtomicNode, Node};
use crate::types::{
    AddressSpace, AtomicOp, ElemType, FloatLaxity, MemoryOrder, Scope, ValueType, VectorShape,
};

/// One cell of the lowering matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    /// The operation.
    pub op: AtomicOp,
    /// The element type.
    pub ty: ElemType,
    /// Scalar or vector.
    pub shape: VectorShape,
    /// The memory order.
    pub order: MemoryOrder,
    /// The scope.
    pub scope: Scope,
    /// The address space, of the node and of its pointer parameter.
    pub space: AddressSpace,
    /// Whether the kernel uses the old value (`false`: a reduction).
    pub result_used: bool,
    /// The looser float results the node allows; `None` in every cell of [`cells`], set in
    /// those of [`lax_cells`].
    pub laxity: Option<FloatLaxity>,
}

impl Cell {
    /// Whether the verifier accepts this combination (target-independent rules only).
    pub fn is_valid(&self) -> bool {
        self.ty.supports(self.op)
            && self.op.admits_order(self.order)
            && (self.result_used || !self.op.requires_result())
            && !(self.result_used && self.op.has_no_result())
            && self
                .laxity
                .is_none_or(|laxity| laxity.admits(self.op, self.ty))
    }

    /// The cell's node: the pointer is in the cell's own space and the operand a parameter.
    pub const fn node(&self) -> AtomicNode {
        AtomicNode {
            op: self.op,
            ty: self.ty,
            shape: self.shape,
            order: self.order,
            scope: self.scope,
            space: self.space,
            hint: None,
            laxity: self.laxity,
            result_used: self.result_used,
            pointer_space: self.space,
            literal: None,
        }
    }

    /// A stable identifier, also used as the kernel name.
    pub fn name(&self) -> String {
        let laxity = self
            .laxity
            .map_or(String::new(), |laxity| format!("_{laxity}"));
        format!(
            "{}_{}_{}_{}_{}_{}{laxity}_{}",
            self.op,
            self.order,
            self.scope,
            self.space,
            self.shape,
            self.ty,
            if self.result_used { "used" } else { "dead" }
        )
    }

    /// The one-instruction kernel for this cell: `%a` is the pointer, `%b*` the operand (one
    /// parameter per vector element), `%c*` the new value of a cas, `%r` the result.
    pub fn kernel(&self) -> Kernel {
        let mut kernel = Kernel::new(self.name());
        let addr = kernel.add_param("a", ValueType::Ptr(self.space));
        let mut inst = if self.op == AtomicOp::Load {
            AtomicInst::load(self.ty, addr)
        } else {
            let operand = element_params(&mut kernel, "b", self.ty, self.shape);
            AtomicInst::new(self.op, self.ty, addr, operand)
        };
        let new_value = (self.op == AtomicOp::Cas)
            .then(|| element_params(&mut kernel, "c", self.ty, self.shape));
        inst.shape = self.shape;
        inst.order = self.order;
        inst.scope = self.scope;
        inst.space = self.space;
        inst.laxity = self.laxity;
        inst.new_value = new_value;
        kernel.push(inst, self.result_used.then_some("r"));
        kernel
    }
}

fn element_params(kernel: &mut Kernel, prefix: &str, ty: ElemType, shape: VectorShape) -> Operand {
    if !shape.is_vector() {
        return kernel.add_param(prefix, ValueType::scalar(ty)).into();
    }
    let elements: Vec<Scalar> = (0..shape.len())
        .map(|i| Scalar::Value(kernel.add_param(&format!("{prefix}{i}"), ValueType::scalar(ty))))
        .collect();
    kernel.vector(&elements)
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// A fence of the matrix: an order that orders something, at a scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FenceCell {
    /// The order (never relaxed).
    pub order: MemoryOrder,
    /// The scope.
    pub scope: Scope,
}

impl FenceCell {
    /// `fence_acq_rel_device`: a stable identifier, also the kernel name.
    pub fn name(&self) -> String {
        format!("fence_{}_{}", self.order, self.scope)
    }

    /// The cell's fence.
    pub const fn fence(&self) -> Fence {
        Fence {
            order: self.order,
            scope: self.scope,
        }
    }

    /// A kernel of this one fence and no parameters.
    pub fn kernel(&self) -> Kernel {
        let mut kernel = Kernel::new(self.name());
        kernel.push_fence(self.fence());
        kernel
    }
}

impl fmt::Display for FenceCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// Every fence with an order that orders something, order then scope.
pub fn fence_cells() -> impl Iterator<Item = FenceCell> {
    MemoryOrder::ALL
        .iter()
        .filter(|order| order.is_fence_order())
        .flat_map(|&order| {
            Scope::ALL
                .iter()
                .map(move |&scope| FenceCell { order, scope })
        })
}

/// A cell of the whole matrix: an atomic access or a fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AnyCell {
    /// An atomic read-modify-write, load or store.
    Access(Cell),
    /// A stand-alone fence.
    Fence(FenceCell),
}

impl AnyCell {
    /// The cell's stable identifier, also its kernel's name.
    pub fn name(&self) -> String {
        match self {
            AnyCell::Access(cell) => cell.name(),
            AnyCell::Fence(cell) => cell.name(),
        }
    }

    /// The cell's one-instruction kernel.
    pub fn kernel(&self) -> Kernel {
        match self {
            AnyCell::Access(cell) => cell.kernel(),
            AnyCell::Fence(cell) => cell.kernel(),
        }
    }

    /// The node a table judges.
    pub const fn node(&self) -> Node {
        match self {
            AnyCell::Access(cell) => Node::Atomic(cell.node()),
            AnyCell::Fence(cell) => Node::Fence(cell.fence()),
        }
    }

    /// The access, or `None` for a fence.
    pub fn access(&self) -> Option<&Cell> {
        match self {
            AnyCell::Access(cell) => Some(cell),
            AnyCell::Fence(_) => None,
        }
    }

    /// The op's spelling, or `fence`.
    pub fn op_name(&self) -> &'static str {
        match self {
            AnyCell::Access(cell) => cell.op.as_str(),
            AnyCell::Fence(_) => "fence",
        }
    }

    /// The order of the access or fence.
    pub fn order(&self) -> MemoryOrder {
        match self {
            AnyCell::Access(cell) => cell.order,
            AnyCell::Fence(cell) => cell.order,
        }
    }

    /// The scope of the access or fence.
    pub fn scope(&self) -> Scope {
        match self {
            AnyCell::Access(cell) => cell.scope,
            AnyCell::Fence(cell) => cell.scope,
        }
    }
}

impl From<Cell> for AnyCell {
    fn from(cell: Cell) -> Self {
        AnyCell::Access(cell)
    }
}

impl From<FenceCell> for AnyCell {
    fn from(cell: FenceCell) -> Self {
        AnyCell::Fence(cell)
    }
}

impl fmt::Display for AnyCell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// The whole matrix, in a stable order: every access cell ([`cells`]), then every fence.
pub fn all_cells() -> impl Iterator<Item = AnyCell> {
    cells()
        .map(AnyCell::Access)
        .chain(fence_cells().map(AnyCell::Fence))
}

/// Every valid access cell, in a stable order (op, type, shape, order, scope, space,
/// result-used).
pub fn cells() -> impl Iterator<Item = Cell> {
    AtomicOp::ALL
        .iter()
        .flat_map(|&op| {
            ElemType::ALL.iter().flat_map(move |&ty| {
                VectorShape::ALL.iter().flat_map(move |&shape| {
                    MemoryOrder::ALL.iter().flat_map(move |&order| {
                        Scope::ALL.iter().flat_map(move |&scope| {
                            AddressSpace::ALL.iter().flat_map(move |&space| {
                                [true, false].into_iter().map(move |result_used| Cell {
                                    op,
                                    ty,
                                    shape,
                                    order,
                                    scope,
                                    space,
                                    result_used,
                                    laxity: None,
                                })
                            })
                        })
                    })
                })
            })
        })
        .filter(Cell::is_valid)
}

/// Every valid cell of a lax node ([`FloatLaxity`]): each cell of [`cells`] whose op and type
/// a laxity is defined on, with that laxity. Not part of [`all_cells`], the matrix the reports
/// show (a lax node is carried as its exact form or by the native instruction with its
/// results); the read round trips cover them, since the native forms of a lax node are what
/// the readers read.
pub fn lax_cells() -> impl Iterator<Item = Cell> {
    cells().flat_map(|cell| {
        FloatLaxity::ALL
            .iter()
            .filter(move |laxity| laxity.admits(cell.op, cell.ty))
            .map(move |&laxity| Cell {
                laxity: Some(laxity),
                ..cell
            })
    })
}

/// What one target does with one cell: the legality table's verdict and, when it accepts the
/// cell, the code the backend emits for the one-instruction kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellOutcome {
    /// The cell judged.
    pub cell: AnyCell,
    /// The target's answer: the lowering, or the refusal.
    pub verdict: Verdict,
    /// The emitted code; empty when the cell is refused.
    pub code: String,
}

impl CellOutcome {
    /// The headline strategy; [`Strategy::Illegal`] for a refusal.
    pub fn strategy(&self) -> Strategy {
        match &self.verdict {
            Ok(legality) => legality.strategy(),
            Err(_) => Strategy::Illegal,
        }
    }

    /// How the cell is lowered, in words, or why it is refused.
    pub fn description(&self) -> String {
        match &self.verdict {
            Ok(legality) => match &self.cell {
                AnyCell::Access(cell) => legality.describe(cell.ty, cell.shape),
                AnyCell::Fence(_) => legality.describe_fence(),
            },
            Err(refusal) => refusal.to_string(),
        }
    }

    /// The refusal, if the target refused the cell.
    pub fn refusal(&self) -> Option<&Refusal> {
        self.verdict.as_ref().err()
    }
}

/// Asks `backend` about every cell and lowers the ones it accepts.
///
/// The legality table is asked first; a cell it accepts is then lowered, and a refusal at that
/// point (a backend whose table and printer disagree) is recorded as the cell's verdict rather
/// than hidden.
pub fn run<C: Into<AnyCell>>(
    backend: &dyn Backend,
    cells: impl IntoIterator<Item = C>,
    options: &LowerOptions,
) -> Vec<CellOutcome> {
    let mut module = Module::default();
    cells
        .into_iter()
        .map(|cell| {
            let cell: AnyCell = cell.into();
            module.kernels.clear();
            module.kernels.push(cell.kernel());
            let verdict = backend.legalize_node(&cell.node());
            let mut code = String::new();
            let verdict = match verdict {
                Ok(legality) => match crate::verify::verify(&module) {
                    Ok(verified) => match backend.lower(&verified, options, &mut code) {
                        Ok(_) => Ok(legality),
                        Err(error) => {
                            code.clear();
                            Err(error.refusal)
                        }
                    },
                    Err(diagnostics) => Err(Refusal::new(
                        crate::rule::KitRule::Unverified,
                        diagnostics
                            .first()
                            .map_or_else(String::new, ToString::to_string),
                    )),
                },
                Err(refusal) => Err(refusal),
            };
            CellOutcome {
                cell,
                verdict,
                code,
            }
        })
        .collect()
}

/// Cells per strategy, indexed like [`Strategy::ALL`].
pub fn totals(outcomes: &[CellOutcome]) -> [usize; Strategy::ALL.len()] {
    let mut totals = [0; Strategy::ALL.len()];
    for outcome in outcomes {
        totals[outcome.strategy() as usize] += 1;
    }
    totals
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cell_is_distinct_and_valid() {
        let all: Vec<Cell> = cells().collect();
        let names: std::collections::HashSet<String> = all.iter().map(Cell::name).collect();
        assert_eq!(names.len(), all.len());
        assert!(all.len() > 10_000, "matrix has {} cells", all.len());
        assert!(all.iter().all(|c| c.ty.supports(c.op)));
        assert!(!all
            .iter()
            .any(|c| c.op == AtomicOp::And && c.ty == ElemType::F32));
    }

    #[test]
    fn cell_kernel_has_one_instruction() {
        let cell = cells()
            .find(|c| c.op == AtomicOp::Cas && c.shape == VectorShape::V2)
            .unwrap();
        let kernel = cell.kernel();
        assert_eq!(kernel.insts.len(), 1);
        let inst = kernel.insts.values().next().unwrap().as_atomic().unwrap();
        assert!(inst.new_value.is_some());
        assert_eq!(kernel.params.len(), 1 + 2 + 2);
    }

    #[test]
    fn loads_stores_and_fences_are_cells_only_in_their_valid_forms() {
        use MemoryOrder::*;
        let all: Vec<Cell> = cells().collect();
        let loads: Vec<&Cell> = all.iter().filter(|c| c.op == AtomicOp::Load).collect();
        let stores: Vec<&Cell> = all.iter().filter(|c| c.op == AtomicOp::Store).collect();
        // Every type, shape, space and scope; three orders each; a load always used, a store never.
        let per_order = ElemType::ALL.len() * 4 * Scope::ALL.len() * AddressSpace::ALL.len();
        assert_eq!(loads.len(), per_order * 3);
        assert_eq!(stores.len(), per_order * 3);
        assert!(loads
            .iter()
            .all(|c| c.result_used && matches!(c.order, Relaxed | Acquire | SeqCst)));
        assert!(stores
            .iter()
            .all(|c| !c.result_used && matches!(c.order, Relaxed | Release | SeqCst)));
        let load = loads[0].kernel();
        assert_eq!(load.params.len(), 1, "a load has only its address");
        assert!(load
            .insts
            .values()
            .next()
            .unwrap()
            .as_atomic()
            .unwrap()
            .operand
            .is_none());
        let fences: Vec<FenceCell> = fence_cells().collect();
        assert_eq!(fences.len(), 4 * Scope::ALL.len());
        assert!(fences.iter().all(|f| f.order != Relaxed));
        assert_eq!(all_cells().count(), all.len() + fences.len());
        let usub: Vec<&Cell> = all.iter().filter(|c| c.op == AtomicOp::UsubSat).collect();
        assert!(
            !usub.is_empty()
                && usub
                    .iter()
                    .all(|c| c.ty.class() == crate::types::TypeClass::Unsigned)
        );
    }
}
