//! The PTX that carries one IR atomic: the shapes an atomic takes in PTX, matched in order.
//!
//! An IR fence is one PTX `fence`/`membar`. An IR access is its leading fences, then its
//! carriers in one of these shapes, then the trailing fences that give it its acquire:
//!
//! - one `atom`/`red`/`ld`/`st` of the IR op, width and element count (`sub` may be an `add`
//!   of the negated operand; an 8- or 16-bit `and`/`or`/`xor` one masked op on its word);
//! - a per-element split: one such access per element (per 32-bit word of 16-bit elements);
//! - a CAS loop: an optional ordered `ld` and one `atom.cas` per element (a masked loop on the
//!   containing word for 8- and 16-bit elements);
//! - float min/max by integer atomics: `atom.min`/`atom.max` on the float's bits (up to two),
//!   and the CAS loop of their NaN case.

use atomir_ir::{AtomicNode, AtomicOp, MemoryOrder, Node};

/// One PTX atomic as the matcher sees it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PtxPart {
    /// 1-based line.
    pub line: u32,
    /// The instruction as written.
    pub text: String,
    /// What it means.
    pub node: Node,
    /// Whether it may flush subnormals: an `atom.add.f32` without `.noftz` on global memory
    /// or a generic address (which may point there), as the reader reads it (laxity `ftz`).
    pub flushes: bool,
}

impl PtxPart {
    fn access(&self) -> Option<&AtomicNode> {
        match &self.node {
            Node::Atomic(node) => Some(node),
            Node::Fence(_) => None,
        }
    }

    pub(crate) fn is_fence(&self) -> bool {
        matches!(self.node, Node::Fence(_))
    }

    /// The order and scope it carries.
    pub(crate) fn order_scope(&self) -> (MemoryOrder, atomir_ir::Scope) {
        match &self.node {
            Node::Atomic(node) => (node.order, node.scope),
            Node::Fence(fence) => (fence.order, fence.scope),
        }
    }
}

/// How an IR access is carried out in PTX.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// One instruction.
    Single,
    /// One instruction per element or word.
    Split,
    /// A CAS loop (per element).
    CasLoop,
    /// Integer min/max on a float's bits, with a CAS loop for NaNs.
    IntMinMax,
}

/// The PTX parts of one IR atomic: indices into the function's parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Group {
    pub shape: Shape,
    /// Fences before the carriers.
    pub leading: Vec<usize>,
    /// The accesses that carry the atomic's write or read (for a loop, its CAS; its first
    /// `ld` is in `loads`).
    pub carriers: Vec<usize>,
    /// A loop's first loads.
    pub loads: Vec<usize>,
    /// Fences after the carriers.
    pub trailing: Vec<usize>,
}

impl Group {
    /// Every part, in order.
    pub(crate) fn parts(&self) -> Vec<usize> {
        let mut all: Vec<usize> = self
            .leading
            .iter()
            .chain(&self.carriers)
            .chain(&self.loads)
            .chain(&self.trailing)
            .copied()
            .collect();
        all.sort_unstable();
        all
    }
}

fn bits_of(node: &AtomicNode) -> u32 {
    node.ty.bits() * node.shape.len() as u32
}

/// Whether PTX op `ptx` carries IR op `ir` (`sub` as an `add` of the negated operand;
/// `fminimumnum`/`fmaximumnum` are float `min`/`max`, the function PTX's float min/max read as).
fn same_op(ir: AtomicOp, ptx: AtomicOp) -> bool {
    ir == ptx
        || matches!(
            (ir, ptx),
            (AtomicOp::Sub, AtomicOp::Add)
                | (AtomicOp::FMinimumNum, AtomicOp::Min)
                | (AtomicOp::FMaximumNum, AtomicOp::Max)
        )
}

/// Whether the types agree: bits only for ops that move bits, otherwise float-ness, width and
/// (for min/max) signedness.
fn same_type(ir: &AtomicNode, ptx: &AtomicNode, element: bool) -> bool {
    let ir_bits = if element { ir.ty.bits() } else { bits_of(ir) };
    let moves_bits = matches!(
        ir.op,
        AtomicOp::Exch | AtomicOp::Cas | AtomicOp::Load | AtomicOp::Store
    );
    if moves_bits {
        return ir_bits == bits_of(ptx) || (element && ir.ty.bits() < 32 && bits_of(ptx) == 32);
    }
    // An 8- or 16-bit bitwise op is one masked op on its 32-bit word.
    let bitwise = matches!(ir.op, AtomicOp::And | AtomicOp::Or | AtomicOp::Xor);
    if bitwise && ir.ty.bits() < 32 && bits_of(ptx) == 32 && !ir.shape.is_vector() {
        return true;
    }
    let ptx_lane_bits = if element { ptx.ty.bits() } else { bits_of(ptx) };
    ir.ty.is_float() == ptx.ty.is_float()
        && ir_bits == ptx_lane_bits
        && (!matches!(ir.op, AtomicOp::Min | AtomicOp::Max) || ir.ty.class() == ptx.ty.class())
}

fn is_float_min_max(node: &AtomicNode) -> bool {
    node.ty.is_float()
        && matches!(
            node.op,
            AtomicOp::Min
                | AtomicOp::Max
                | AtomicOp::FMinimumNum
                | AtomicOp::FMaximumNum
                | AtomicOp::FMinimum
                | AtomicOp::FMaximum
        )
}

/// The number of element accesses a split of `ir` takes: one per element, 16-bit elements by
/// their 32-bit words where the first carrier is a word.
fn split_count(ir: &AtomicNode, first: &AtomicNode) -> usize {
    let len = ir.shape.len();
    if bits_of(first) > ir.ty.bits() {
        (bits_of(ir) / bits_of(first).max(1)).max(1) as usize
    } else {
        len
    }
}

/// Matches the parts of the IR access `ir` from `parts[at..]`; `None` where the parts there do
/// not take any shape of it.
/// With `loops` false, the CAS-loop shape is left out (any 32- or 64-bit RMW may be a CAS loop;
/// the op of one instruction says more).
pub(crate) fn match_access(
    ir: &AtomicNode,
    parts: &[PtxPart],
    at: usize,
    loops: bool,
) -> Option<Group> {
    let mut next = at;
    let mut leading = Vec::new();
    while parts.get(next).is_some_and(PtxPart::is_fence) {
        leading.push(next);
        next += 1;
    }
    let first = parts.get(next)?.access()?;
    let mut group = Group {
        shape: Shape::Single,
        leading,
        carriers: Vec::new(),
        loads: Vec::new(),
        trailing: Vec::new(),
    };
    let is_rmw = !matches!(ir.op, AtomicOp::Load | AtomicOp::Store);
    if same_op(ir.op, first.op) && same_type(ir, first, false) && first.shape == ir.shape {
        group.carriers.push(next);
        next += 1;
    } else if same_op(ir.op, first.op) && same_type(ir, first, true) && ir.shape.is_vector() {
        group.shape = Shape::Split;
        for _ in 0..split_count(ir, first) {
            match parts.get(next).and_then(PtxPart::access) {
                Some(part) if same_op(ir.op, part.op) => {
                    group.carriers.push(next);
                    next += 1;
                }
                _ => return None,
            }
        }
    } else if is_float_min_max(ir)
        && matches!(first.op, AtomicOp::Min | AtomicOp::Max)
        && !first.ty.is_float()
    {
        group.shape = Shape::IntMinMax;
        // Up to two integer min/max (the two signs' alternatives), each with its fences.
        while group.carriers.len() < 2 {
            let fences = fences_from(parts, next);
            match parts.get(fences.end).and_then(PtxPart::access) {
                Some(part)
                    if matches!(part.op, AtomicOp::Min | AtomicOp::Max) && !part.ty.is_float() =>
                {
                    group.leading.extend(fences.clone());
                    group.carriers.push(fences.end);
                    next = fences.end + 1;
                }
                _ => break,
            }
            // The acquire fence after an alternative, where another alternative or the NaN
            // loop follows.
            let after = fences_from(parts, next);
            let follows = parts
                .get(after.end)
                .and_then(PtxPart::access)
                .is_some_and(|p| {
                    matches!(
                        p.op,
                        AtomicOp::Min | AtomicOp::Max | AtomicOp::Load | AtomicOp::Cas
                    ) && !p.ty.is_float()
                });
            if follows && !after.is_empty() {
                group.trailing.push(after.start);
                next = after.start + 1;
            }
        }
        next = take_loops(ir, parts, next, &mut group, 1, true);
    } else if loops && is_rmw && matches!(first.op, AtomicOp::Cas | AtomicOp::Load) {
        group.shape = Shape::CasLoop;
        let loops = if ir.shape.is_vector() {
            ir.shape.len()
        } else {
            1
        };
        next = take_loops(ir, parts, next, &mut group, loops, false);
        if group.carriers.is_empty() {
            return None;
        }
    } else {
        return None;
    }
    // One fence after the carriers gives the acquire they lack; a fence after carriers that
    // carry their acquire (or a node without one) is the next atomic's leading fence.
    // A carrier that an acquire fence of the group follows already (an integer min/max
    // alternative's) lacks nothing.
    let acquired_after = |carrier: usize| {
        group
            .trailing
            .iter()
            .any(|&f| f > carrier && parts[f].order_scope().0.has_acquire())
    };
    let lacks_acquire = group
        .carriers
        .iter()
        .any(|&i| !parts[i].order_scope().0.has_acquire() && !acquired_after(i));
    if ir.order.has_acquire() && ir.op != AtomicOp::Store && lacks_acquire {
        if let Some(fence) = parts.get(next).filter(|p| p.is_fence()) {
            if fence.order_scope().0.has_acquire() {
                group.trailing.push(next);
            }
        }
    }
    Some(group)
}

/// The run of fences from `at`.
fn fences_from(parts: &[PtxPart], at: usize) -> std::ops::Range<usize> {
    let end = (at..parts.len())
        .find(|&i| !parts[i].is_fence())
        .unwrap_or(parts.len());
    at..end
}

/// Takes up to `loops` CAS loops (an optional first `ld`, then an `atom.cas`) from `next`; with
/// `optional`, none need be there.
fn take_loops(
    ir: &AtomicNode,
    parts: &[PtxPart],
    mut next: usize,
    group: &mut Group,
    loops: usize,
    optional: bool,
) -> usize {
    for _ in 0..loops {
        // Fences before the loop's first load.
        let before = fences_from(parts, next);
        let start = before.end;
        let first = next;
        next = before.end;
        if let Some(load) = parts.get(next).and_then(PtxPart::access) {
            if load.op == AtomicOp::Load && bits_of(load) >= ir.ty.bits().min(32) {
                next += 1;
            }
        }
        // Fences inside the loop, before its CAS (llc's seq_cst cmpxchg: `fence.sc; atom.cas`).
        let mut inner = Vec::new();
        while parts.get(next).is_some_and(PtxPart::is_fence) {
            inner.push(next);
            next += 1;
        }
        match parts.get(next).and_then(PtxPart::access) {
            Some(cas) if cas.op == AtomicOp::Cas && loop_width(ir, cas) => {
                group.leading.extend(before);
                group.leading.extend(inner);
                group
                    .loads
                    .extend((start..next).filter(|i| !parts[*i].is_fence()));
                group.carriers.push(next);
                next += 1;
            }
            _ => {
                let _ = optional;
                next = first;
                break;
            }
        }
    }
    next
}

/// Whether a CAS of `cas`'s width can carry a loop of `ir`: on the element (an 8- or 16-bit one
/// in its 32-bit word), or on the whole vector at once.
fn loop_width(ir: &AtomicNode, cas: &AtomicNode) -> bool {
    let width = bits_of(cas);
    width == ir.ty.bits().max(32) || width == bits_of(ir)
}
