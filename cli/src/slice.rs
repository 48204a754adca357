//! One instruction of a kernel as a kernel of its own, so that two targets' code for it can be
//! compared side by side.

use atomir_ir::{Inst, Kernel};

/// A well-formed kernel holding only `inst`: every parameter of `kernel`, plus one parameter for
/// each result of another instruction that `inst` reads (it is an input once the instruction
/// stands alone). Names, locations and constants are kept.
pub fn single_instruction(kernel: &Kernel, inst: Inst) -> Kernel {
    kernel.slice(|kept| kept == inst)
}

#[cfg(test)]
mod tests {
    use super::*;
    use atomir_ir::{AtomicInst, AtomicOp, ElemType, ValueType};
    use atomir_ir::{Operand, Scalar};

    #[test]
    fn a_read_result_becomes_a_parameter() {
        let mut kernel = Kernel::new("k");
        let addr = kernel.add_param("a", ValueType::Ptr(atomir_ir::AddressSpace::Global));
        let x = kernel.add_param("x", ValueType::scalar(ElemType::U32));
        let first = kernel.push(
            AtomicInst::new(AtomicOp::Add, ElemType::U32, addr, x.into()),
            Some("old"),
        );
        let old = kernel.insts[first].result().unwrap();
        let seven = kernel.constant(7);
        let mut cas = AtomicInst::new(AtomicOp::Cas, ElemType::U32, addr, old.into());
        cas.new_value = Some(seven.into());
        let second = kernel.push(cas, Some("r"));

        let sliced = single_instruction(&kernel, second);
        assert_eq!(sliced.insts.len(), 1);
        let names: Vec<&str> = sliced
            .params
            .iter()
            .map(|p| sliced.value_name(p.value))
            .collect();
        assert_eq!(names, ["a", "x", "old"]);
        let node = sliced.insts.values().next().unwrap().as_atomic().unwrap();
        assert_eq!(node.op, AtomicOp::Cas);
        let Some(Operand::Scalar(Scalar::Const(c))) = node.new_value else {
            panic!("{node:?}")
        };
        assert_eq!(sliced.constants[c], 7);
        assert_eq!(sliced.value_name(node.result.unwrap()), "r");
    }
}
