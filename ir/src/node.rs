//! The value-free atomic node: what a legality table judges and what the shared expansions are
//! built from. It names no value of a kernel, so a table can be asked about a node that no kernel
//! holds (a matrix cell, or one instruction of an embedding compiler).

use crate::kernel::{AtomicInst, Fence, Inst, InstData, Kernel, Operand, Scalar, Value};
use crate::semantics::width_mask;
use crate::types::{
    AddressSpace, AtomicOp, CacheHint, ElemType, FloatLaxity, MemoryOrder, Scope, ValueType,
    VectorShape,
};

/// Everything a legality table may read about one atomic instruction, as typed values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AtomicNode {
    /// The operation on each element.
    pub op: AtomicOp,
    /// The element type.
    pub ty: ElemType,
    /// Scalar or vector; atomicity is per element.
    pub shape: VectorShape,
    /// The memory order; a table never weakens it.
    pub order: MemoryOrder,
    /// The scope; a table may only widen it, recorded as a rewrite.
    pub scope: Scope,
    /// The memory the access addresses (`generic` when not known).
    pub space: AddressSpace,
    /// A cache-eviction hint, which a target may drop (recorded as a rewrite).
    pub hint: Option<CacheHint>,
    /// The looser float results the node also allows (`None`: exactly its op's). A target
    /// carries a lax node by a native instruction with those results, or by the exact node's
    /// code.
    pub laxity: Option<FloatLaxity>,
    /// Whether the old value is used; `false` is a pure reduction.
    pub result_used: bool,
    /// The space of the pointer value the address comes from: the node's own space, or a more
    /// specific one for a generic node whose pointer is known to point into global or shared
    /// memory.
    pub pointer_space: AddressSpace,
    /// The operand's bits (masked to the element type) when every element of it is the same
    /// literal: a table may read a literal `inc`/`dec` bound.
    pub literal: Option<u128>,
}

impl AtomicNode {
    /// A relaxed, device-scope, generic, scalar node whose result is unused: the text form's
    /// defaults.
    pub const fn new(op: AtomicOp, ty: ElemType) -> Self {
        AtomicNode {
            op,
            ty,
            shape: VectorShape::Scalar,
            order: MemoryOrder::Relaxed,
            scope: Scope::Device,
            space: AddressSpace::Generic,
            hint: None,
            laxity: None,
            result_used: false,
            pointer_space: AddressSpace::Generic,
            literal: None,
        }
    }

    /// The node of the atomic access `inst` of `kernel`, with the facts of the kernel a table
    /// may need (the pointer's space, a uniform literal operand). Never panics, even on an
    /// unverified kernel: a fact it cannot read is left out.
    // Inline, as `Node::of_data`: built out of line, the node was stored field by field and read
    // back whole by planning, a load that waited on those stores (a sixth of planning's time).
    #[inline]
    pub fn of(kernel: &Kernel, inst: &AtomicInst) -> Self {
        let pointer_space = match kernel.values.get(inst.addr).map(|v| v.ty) {
            Some(ValueType::Ptr(space)) => space,
            _ => inst.space,
        };
        AtomicNode {
            pointer_space,
            literal: uniform_literal(kernel, inst),
            ..AtomicNode::of_inst(inst)
        }
    }

    /// The node of an instruction on its own, without the facts only its kernel knows (the
    /// pointer's space is taken to be the node's, no literal is known).
    pub const fn of_inst(inst: &AtomicInst) -> Self {
        AtomicNode {
            op: inst.op,
            ty: inst.ty,
            shape: inst.shape,
            order: inst.order,
            scope: inst.scope,
            space: inst.space,
            hint: inst.hint,
            laxity: inst.laxity,
            result_used: inst.result.is_some(),
            pointer_space: inst.space,
            literal: None,
        }
    }

    /// The instruction of this node at `addr`, with no operand, predicate or result yet: every
    /// field of the node that an instruction holds (the inverse of [`AtomicNode::of_inst`];
    /// the pointer's space and a literal are facts of the kernel, not of the instruction).
    pub const fn instruction(&self, addr: Value) -> AtomicInst {
        AtomicInst {
            op: self.op,
            ty: self.ty,
            shape: self.shape,
            order: self.order,
            scope: self.scope,
            space: self.space,
            hint: self.hint,
            laxity: self.laxity,
            predicate: None,
            addr,
            operand: None,
            new_value: None,
            result: None,
        }
    }

    /// This node in code whose kernel parameters of type `ptr.generic` can only hold addresses
    /// of `space` (a PTX `.entry`, which a launch can only hand a global address): a generic
    /// node whose pointer is such a parameter becomes a node of `space`. Every other node,
    /// among them a generic node through a pointer into a shared window, is returned as it is;
    /// `space` [`AddressSpace::Generic`] (nothing known) changes nothing.
    pub const fn with_generic_params_in(self, space: AddressSpace) -> Self {
        // Every address is a kernel parameter, so a generic pointer is a generic parameter.
        let through_generic_param = matches!(self.space, AddressSpace::Generic)
            && matches!(self.pointer_space, AddressSpace::Generic);
        if !through_generic_param {
            return self;
        }
        AtomicNode {
            space,
            pointer_space: space,
            ..self
        }
    }

    /// Whether the old value is used ([`AtomicNode::result_used`], as a method for symmetry
    /// with [`crate::AtomicInst::result_used`]).
    pub const fn result_used(&self) -> bool {
        self.result_used
    }

    /// The number of elements (atomicity is per element).
    pub const fn elements(&self) -> usize {
        self.shape.len()
    }
}

/// What a legality table judges: an atomic access or a fence (a fence has no value either, so
/// it is its own node).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// An atomic read-modify-write, load or store.
    Atomic(AtomicNode),
    /// A stand-alone fence.
    Fence(Fence),
}

impl Node {
    /// The node of instruction `inst` of `kernel`, with the kernel's facts, or `None` when the
    /// kernel holds no instruction `inst` (an id of another kernel).
    pub fn of(kernel: &Kernel, inst: Inst) -> Option<Self> {
        kernel
            .insts
            .get(inst)
            .map(|data| Node::of_data(kernel, data))
    }

    /// The node of `data`, an instruction of `kernel`, with the kernel's facts.
    // Inline: planning builds one per instruction (see `AtomicNode::of`).
    #[inline]
    pub fn of_data(kernel: &Kernel, data: &InstData) -> Self {
        match data {
            InstData::Atomic(atomic) => Node::Atomic(AtomicNode::of(kernel, atomic)),
            InstData::Fence(fence) => Node::Fence(*fence),
        }
    }

    /// This node in code whose `ptr.generic` kernel parameters can only hold addresses of
    /// `space` ([`AtomicNode::with_generic_params_in`]); a fence is returned as it is.
    pub const fn with_generic_params_in(self, space: AddressSpace) -> Self {
        match self {
            Node::Atomic(node) => Node::Atomic(node.with_generic_params_in(space)),
            Node::Fence(_) => self,
        }
    }

    /// Why the IR gives this node no meaning, whatever the target: an op its element type has
    /// no meaning for, an order its op has no part for, a load whose value is not used, a store
    /// with a result, a relaxed fence. `None` for a node the IR defines. The verifier states
    /// the same rules for instructions; this is their node-level form, for a node built in
    /// code and asked about without a kernel.
    pub fn undefined(&self) -> Option<String> {
        match self {
            Node::Atomic(node) => {
                let (op, ty) = (node.op, node.ty);
                if !ty.supports(op) {
                    Some(format!("`{op}` is not defined on {ty}"))
                } else if !op.admits_order(node.order) {
                    Some(format!("a {op} cannot be {}", node.order))
                } else if op.requires_result() && !node.result_used {
                    Some(format!(
                        "a {op} returns the value it reads, which must be used"
                    ))
                } else if op.has_no_result() && node.result_used {
                    Some(format!("a {op} returns nothing"))
                } else {
                    node.laxity
                        .filter(|lax| !lax.admits(op, ty))
                        .map(|laxity| format!("`{laxity}` is not defined on {op}.{ty}"))
                }
            }
            Node::Fence(fence) if !fence.order.is_fence_order() => {
                Some(format!("a {} fence orders nothing", fence.order))
            }
            Node::Fence(_) => None,
        }
    }

    /// The atomic access, or `None` for a fence.
    pub const fn as_atomic(&self) -> Option<&AtomicNode> {
        match self {
            Node::Atomic(node) => Some(node),
            Node::Fence(_) => None,
        }
    }
}

impl From<AtomicNode> for Node {
    fn from(node: AtomicNode) -> Self {
        Node::Atomic(node)
    }
}

impl From<Fence> for Node {
    fn from(fence: Fence) -> Self {
        Node::Fence(fence)
    }
}

/// What a target answers for without a kernel: an atomic access ([`AtomicNode`]), a fence
/// ([`Fence`]), or either ([`Node`]).
pub trait AsNode {
    /// The node, as a table judges it.
    fn as_node(&self) -> Node;
}

impl AsNode for AtomicNode {
    fn as_node(&self) -> Node {
        Node::Atomic(*self)
    }
}

impl AsNode for Fence {
    fn as_node(&self) -> Node {
        Node::Fence(*self)
    }
}

impl AsNode for Node {
    fn as_node(&self) -> Node {
        *self
    }
}

impl From<&AtomicNode> for Node {
    fn from(node: &AtomicNode) -> Self {
        Node::Atomic(*node)
    }
}

impl From<&Fence> for Node {
    fn from(fence: &Fence) -> Self {
        Node::Fence(*fence)
    }
}

impl From<&Node> for Node {
    fn from(node: &Node) -> Self {
        *node
    }
}

/// The operand's bits when every element is the same literal.
fn uniform_literal(kernel: &Kernel, inst: &AtomicInst) -> Option<u128> {
    let mask = width_mask(inst.ty.bits());
    let literal = |scalar: Scalar| match scalar {
        Scalar::Const(constant) => kernel.constants.get(constant).map(|bits| bits & mask),
        Scalar::Value(_) => None,
    };
    match inst.operand? {
        Operand::Scalar(scalar) => literal(scalar),
        Operand::Vector(list) => {
            let elements = kernel.checked_vector_elements(list)?;
            let first = literal(*elements.first()?)?;
            elements
                .iter()
                .all(|scalar| literal(*scalar) == Some(first))
                .then_some(first)
        }
    }
}
