//! One instruction of a kernel as a kernel of its own, so that two targets' code for it can be
//! compared side by side.

use std::collections::HashMap;

use atomir_ir::{Inst, InstData, Kernel, Operand, Scalar, Value, ValueDef};

/// A well-formed kernel holding only `inst`: every parameter of `kernel`, plus one parameter for
/// each result of another instruction that `inst` reads (it is an input once the instruction
/// stands alone). Names, locations and constants are kept.
pub fn single_instruction(kernel: &Kernel, inst: Inst) -> Kernel {
    let mut sliced = Kernel::new(kernel.name.clone());
    sliced.loc = kernel.loc;
    let mut values: HashMap<Value, Value> = HashMap::new();
    for param in &kernel.params {
        let new = sliced.add_param(kernel.value_name(param.value), param.ty);
        sliced.values[new].loc = kernel.values[param.value].loc;
        values.insert(param.value, new);
    }
    let original = match kernel.insts[inst] {
        InstData::Atomic(original) => original,
        InstData::Fence(fence) => {
            // A fence reads no value: it stands alone as it is.
            let new_inst = sliced.push_fence(fence);
            sliced.inst_locs[new_inst] = kernel.inst_locs[inst];
            return sliced;
        }
    };
    let mut import = |sliced: &mut Kernel, value: Value| -> Value {
        *values.entry(value).or_insert_with(|| {
            let new = sliced.add_param(kernel.value_name(value), kernel.value_type(value));
            sliced.values[new].loc = kernel.values[value].loc;
            new
        })
    };

    let mut node = original;
    node.addr = import(&mut sliced, original.addr);
    if let Some(predicate) = &mut node.predicate {
        predicate.value = import(&mut sliced, predicate.value);
    }
    let mut remap_operand = |sliced: &mut Kernel, operand: Operand| -> Operand {
        let mut scalar = |sliced: &mut Kernel, s: Scalar| match s {
            Scalar::Value(v) => Scalar::Value(import(sliced, v)),
            Scalar::Const(c) => Scalar::Const(sliced.constant(kernel.constants[c])),
        };
        match operand {
            Operand::Scalar(s) => Operand::Scalar(scalar(sliced, s)),
            Operand::Vector(list) => {
                let elements: Vec<Scalar> = kernel
                    .vector_elements(list)
                    .iter()
                    .map(|&s| scalar(sliced, s))
                    .collect();
                sliced.vector(&elements)
            }
        }
    };
    node.operand = original
        .operand
        .map(|operand| remap_operand(&mut sliced, operand));
    node.new_value = original
        .new_value
        .map(|operand| remap_operand(&mut sliced, operand));

    let result_name = original
        .result
        .map(|value| kernel.value_name(value).to_string());
    let new_inst = sliced.push(node, result_name.as_deref());
    sliced.inst_locs[new_inst] = kernel.inst_locs[inst];
    if let (Some(old), Some(new)) = (original.result, sliced.insts[new_inst].result()) {
        sliced.values[new].loc = kernel.values[old].loc;
        debug_assert_eq!(sliced.values[new].def, ValueDef::Result(new_inst));
    }
    sliced
}

#[cfg(test)]
mod tests {
    use super::*;
    use atomir_ir::{AtomicInst, AtomicOp, ElemType, ValueType};

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
