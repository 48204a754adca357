//! Part of a kernel as a kernel of its own: one instruction to lower alone, or the instructions
//! a target accepts.

use cranelift_entity::SecondaryMap;

use crate::kernel::{Inst, InstData, Kernel, Operand, Scalar, Value};

impl Kernel {
    /// A kernel holding the instructions of this one that `keep` selects, in program order:
    /// every parameter, and one parameter more for each result of a left-out instruction that a
    /// kept one reads (an input once the instruction stands without it). Names, source
    /// locations, literals and vector lists are kept; ids are new.
    ///
    /// A slice of a verified kernel verifies. An id this kernel does not hold (a kernel that
    /// would not verify) is carried over unchanged rather than panicking.
    pub fn slice(&self, mut keep: impl FnMut(Inst) -> bool) -> Kernel {
        let mut sliced = Kernel::new(self.name.clone());
        sliced.loc = self.loc;
        let mut values: SecondaryMap<Value, Option<Value>> = SecondaryMap::new();
        for param in &self.params {
            let new = self.import(&mut sliced, param.value);
            values[param.value] = Some(new);
        }
        for (inst, data) in self.insts.iter() {
            if !keep(inst) {
                continue;
            }
            let new_inst = match *data {
                InstData::Fence(fence) => sliced.push_fence(fence),
                InstData::Atomic(original) => {
                    let mut value = |sliced: &mut Kernel, value: Value| match values.get(value) {
                        Some(Some(new)) => *new,
                        _ => {
                            let new = self.import(sliced, value);
                            values[value] = Some(new);
                            new
                        }
                    };
                    let mut atomic = original;
                    atomic.addr = value(&mut sliced, original.addr);
                    if let Some(predicate) = &mut atomic.predicate {
                        predicate.value = value(&mut sliced, predicate.value);
                    }
                    let mut operand = |sliced: &mut Kernel, operand: Operand| {
                        let mut scalar = |sliced: &mut Kernel, s: Scalar| match s {
                            Scalar::Value(v) => Scalar::Value(value(sliced, v)),
                            Scalar::Const(c) => match self.constants.get(c) {
                                Some(&bits) => Scalar::Const(sliced.constant(bits)),
                                None => s,
                            },
                        };
                        match operand {
                            Operand::Scalar(s) => Operand::Scalar(scalar(sliced, s)),
                            Operand::Vector(list) => match self.checked_vector_elements(list) {
                                Some(elements) => {
                                    let start = sliced.vector_pool.len();
                                    for &element in elements {
                                        let element = scalar(sliced, element);
                                        sliced.vector_pool.push(element);
                                    }
                                    Operand::Vector(crate::kernel::VectorList::new(
                                        start as u32,
                                        elements.len() as u32,
                                    ))
                                }
                                None => operand,
                            },
                        }
                    };
                    atomic.operand = original.operand.map(|o| operand(&mut sliced, o));
                    atomic.new_value = original.new_value.map(|o| operand(&mut sliced, o));
                    let result = original.result.and_then(|old| self.values.get(old));
                    let new_inst = sliced.push(atomic, result.map(|data| &*data.name));
                    if let (Some(old), Some(new)) =
                        (original.result, sliced.insts[new_inst].result())
                    {
                        if let Some(data) = self.values.get(old) {
                            sliced.values[new].loc = data.loc;
                        }
                        values[old] = Some(new);
                    }
                    new_inst
                }
            };
            sliced.inst_locs[new_inst] = self.inst_locs[inst];
        }
        sliced
    }

    /// `value` of this kernel as a new parameter of `sliced`, with its name, type and location.
    fn import(&self, sliced: &mut Kernel, value: Value) -> Value {
        match self.values.get(value) {
            Some(data) => {
                let new = sliced.add_param(&data.name, data.ty);
                sliced.values[new].loc = data.loc;
                new
            }
            None => value,
        }
    }
}
