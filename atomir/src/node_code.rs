//! The code of one node on its own: the one-instruction kernel a node describes, and the size
//! of the code a target emits for it, which a verdict's size is.

use crate::ir::rule::KitRule;
use crate::{
    verify, AsNode, Inst, Kernel, LowerOptions, Module, Node, Operand, Refusal, Scalar, Target,
    ValueType,
};

/// The kernel of one instruction that `node` describes, and that instruction: an atomic's
/// address, operands (cas: the expected value, then the new one) and result are its values, a
/// parameter of the node's type each (the address a pointer of the node's pointer space), and
/// a node's literal operand is a constant (every element of a vector); a fence is the fence.
/// [`Node::of_data`] of the instruction is `node`.
pub fn node_kernel(node: &impl AsNode) -> (Kernel, Inst) {
    let mut kernel = Kernel::new("node");
    let node = match node.as_node() {
        Node::Fence(fence) => {
            let inst = kernel.push_fence(fence);
            return (kernel, inst);
        }
        Node::Atomic(node) => node,
    };
    let addr = kernel.add_param("addr", ValueType::Ptr(node.pointer_space));
    let operand = |kernel: &mut Kernel, name: &str| -> Operand {
        let Some(bits) = node.literal else {
            return kernel
                .add_param(name, ValueType::Data(node.ty, node.shape))
                .into();
        };
        let element = Scalar::Const(kernel.constant(bits));
        if node.shape.is_vector() {
            kernel.vector(&vec![element; node.shape.len()])
        } else {
            Operand::Scalar(element)
        }
    };
    let mut inst = node.instruction(addr);
    if node.op.operand_count() >= 1 {
        inst.operand = Some(operand(&mut kernel, "operand"));
    }
    if node.op.operand_count() >= 2 {
        inst.new_value = Some(
            kernel
                .add_param("new", ValueType::Data(node.ty, node.shape))
                .into(),
        );
    }
    let inst = kernel.push(inst, node.result_used.then_some("old"));
    (kernel, inst)
}

impl Target {
    /// The number of instructions of the code this target emits for `node`, an atomic access
    /// or a fence, or the refusal [`Target::legalize`] gives: the size a lowering
    /// ([`crate::LowerReport::instructions`], [`crate::InstLowering::instructions`]) and a
    /// splice ([`crate::Fragment::instructions`]) of the node count, lines less labels and
    /// comments. It lowers the node's one-instruction kernel ([`node_kernel`]), so it costs a
    /// lowering where [`Target::legalize`] costs a table look-up.
    pub fn instructions(&self, node: &impl AsNode) -> Result<u32, Refusal> {
        let node = node.as_node();
        self.legalize(&node)?;
        let (kernel, _) = node_kernel(&node);
        let module = Module {
            kernels: vec![kernel],
        };
        let verified = verify::verify(&module).map_err(|diagnostics| {
            let reason = diagnostics
                .first()
                .map_or_else(String::new, ToString::to_string);
            Refusal::new(KitRule::Unverified, reason)
        })?;
        let options = LowerOptions::fragment().with_count_instructions(true);
        let report = self
            .lower(&verified, &options, &mut String::new())
            .map_err(|error| error.refusal)?;
        Ok(report.instructions().first().copied().unwrap_or(0))
    }
}

/// Every target of [`Target::all`] that accepts `node`, an atomic access
/// ([`crate::AtomicNode`]) or a fence ([`crate::Fence`]), in that order.
pub fn supported_targets(node: &impl AsNode) -> Vec<Target> {
    let node = node.as_node();
    Target::all()
        .into_iter()
        .filter(|target| target.legalize(&node).is_ok())
        .collect()
}
