//! What was read, as atomir kernels: one kernel per function with atomics, one instruction per
//! atomic, its pointer and every value operand a parameter of the kernel (an integer literal a
//! literal), so that a table can judge it and a fragment can be spliced in its place.

use atomir_ir::{AtomicInst, Inst, Kernel, Module, Operand, Scalar, Value, ValueType};

use super::{LlAtomic, LlKind, LlModule};

/// A parameter made for one value of an atomic: which kernel value, and the bytes of the
/// module it stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadParam {
    /// The kernel's parameter.
    pub value: Value,
    /// Its type in the kernel.
    pub ty: ValueType,
    /// The bytes of the value in the module (a name or a constant).
    pub source: std::ops::Range<usize>,
}

/// The module's atomics as atomir kernels, and where each atomic went.
#[derive(Clone, Debug, Default)]
pub struct ReadKernels {
    /// One kernel per function that has atomics, named as the function.
    pub module: Module,
    /// Per atomic of [`LlModule::atomics`]: its kernel (an index into `module.kernels`) and
    /// instruction.
    pub insts: Vec<(usize, Inst)>,
    /// Per atomic: the parameters made for its pointer (first) and value operands, in the
    /// order of [`super::LlAccess::operands`] (a literal operand has none).
    pub params: Vec<Vec<ReadParam>>,
}

/// An integer literal's bits, masked to `bits`.
fn integer_literal(text: &str, bits: u32) -> Option<u128> {
    let value: i128 = match text {
        "true" => 1,
        "false" => 0,
        _ => text.parse().ok()?,
    };
    let mask = if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    };
    Some(value as u128 & mask)
}

/// Makes the kernels of `read` (atomics of `source`). Each atomic with a result that the
/// function reads, or every atomic with a result where `keep_results` is set, defines a
/// result value in its kernel.
pub fn to_module(source: &str, read: &LlModule, keep_results: bool) -> ReadKernels {
    let mut out = ReadKernels::default();
    let mut kernel_of_function = vec![None; read.functions.len()];
    for (index, atomic) in read.atomics.iter().enumerate() {
        let kernel = *kernel_of_function[atomic.function].get_or_insert_with(|| {
            let name = &read.functions[atomic.function].name;
            out.module.kernels.push(Kernel::new(name.trim_matches('"')));
            out.module.kernels.len() - 1
        });
        let (inst, params) = push(
            &mut out.module.kernels[kernel],
            source,
            atomic,
            index,
            keep_results,
        );
        out.insts.push((kernel, inst));
        out.params.push(params);
    }
    out
}

fn push(
    kernel: &mut Kernel,
    source: &str,
    atomic: &LlAtomic,
    index: usize,
    keep_results: bool,
) -> (Inst, Vec<ReadParam>) {
    let mut params = Vec::new();
    let Some(access) = atomic.access.as_ref() else {
        let inst = kernel.push_fence(atomir_ir::Fence {
            order: atomic.order,
            scope: atomic.scope.scope,
        });
        kernel.inst_locs[inst] = atomic.loc;
        return (inst, params);
    };
    let pointer_ty = ValueType::Ptr(access.space);
    let pointer = kernel.add_param(&format!("p{index}"), pointer_ty);
    kernel.values[pointer].loc = atomic.loc;
    params.push(ReadParam {
        value: pointer,
        ty: pointer_ty,
        source: access.pointer.clone(),
    });
    let operand_ty = ValueType::Data(access.ty, access.shape);
    let mut operands = access.operands.iter().enumerate().map(|(n, range)| {
        let text = &source[range.clone()];
        if !access.shape.is_vector() && !access.ty.is_float() {
            if let Some(bits) = integer_literal(text, access.ty.bits()) {
                return Operand::Scalar(Scalar::Const(kernel.constant(bits)));
            }
        }
        let value = kernel.add_param(&format!("v{index}_{n}"), operand_ty);
        kernel.values[value].loc = atomic.loc;
        params.push(ReadParam {
            value,
            ty: operand_ty,
            source: range.clone(),
        });
        Operand::Scalar(Scalar::Value(value))
    });
    let first = operands.next();
    let second = operands.next();
    drop(operands);
    let mut inst = AtomicInst::load(access.ty, pointer);
    inst.op = super::inst::op_of(atomic.kind);
    inst.shape = access.shape;
    inst.order = atomic.node_order();
    inst.scope = atomic.scope.scope;
    inst.space = access.space;
    inst.laxity = access.laxity;
    inst.operand = first;
    inst.new_value = second;
    let has_result = match atomic.kind {
        LlKind::Store => false,
        LlKind::Load => true,
        _ => atomic.result.is_some() && (keep_results || atomic.result_used),
    };
    let result_name = format!("r{index}");
    let inst = kernel.push(inst, has_result.then_some(result_name.as_str()));
    kernel.inst_locs[inst] = atomic.loc;
    (inst, params)
}

/// Atomic number `index` of `read` alone, as a module of one kernel (named as its function)
/// of one instruction, with the parameters made for its values; its result is kept wherever
/// the instruction has one. For a client that replaces atomics one at a time.
pub fn atomic_module(
    source: &str,
    read: &LlModule,
    index: usize,
) -> Option<(Module, Inst, Vec<ReadParam>)> {
    let atomic = read.atomics.get(index)?;
    let name = read.functions.get(atomic.function)?.name.trim_matches('"');
    let mut kernel = Kernel::new(name);
    let (inst, params) = push(&mut kernel, source, atomic, index, true);
    let mut module = Module::default();
    module.kernels.push(kernel);
    Some((module, inst, params))
}
