//! The canonical printer: every qualifier spelled out, one instruction per line.

use std::fmt::Write;

use crate::kernel::{AtomicInst, InstData, Kernel, Module, Operand, Scalar};
use crate::types::ElemType;

use super::literal::write_literal;

pub(crate) fn print_module(module: &Module) -> String {
    let mut out = String::new();
    for (index, kernel) in module.kernels.iter().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        print_kernel(&mut out, kernel);
    }
    out
}

/// Writes one kernel in canonical form.
pub fn print_kernel(out: &mut String, kernel: &Kernel) {
    let _ = write!(out, "kernel {}(", kernel.name);
    for (index, param) in kernel.params.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        out.push('%');
        write_value_name(out, kernel, param.value);
        let _ = write!(out, ": {}", param.ty);
    }
    out.push_str(") {\n");
    for inst in kernel.insts.values() {
        out.push_str("  ");
        write_inst(out, kernel, inst);
        out.push('\n');
    }
    out.push_str("}\n");
}

fn write_value_name(out: &mut String, kernel: &Kernel, value: crate::kernel::Value) {
    match kernel.values.get(value) {
        Some(data) => out.push_str(&data.name),
        // A dangling id (the verifier rejects it) still prints as something recognisable.
        None => {
            let _ = write!(out, "{value}");
        }
    }
}

/// Writes one instruction in canonical form, without indentation or newline.
pub fn write_inst(out: &mut String, kernel: &Kernel, inst: &InstData) {
    match inst {
        InstData::Atomic(inst) => write_atomic(out, kernel, inst),
        InstData::Fence(fence) => {
            let _ = write!(out, "fence.{}.{}", fence.order, fence.scope);
        }
    }
}

fn write_atomic(out: &mut String, kernel: &Kernel, inst: &AtomicInst) {
    if let Some(predicate) = inst.predicate {
        out.push_str(if predicate.negated { "@!%" } else { "@%" });
        write_value_name(out, kernel, predicate.value);
        out.push(' ');
    }
    if let Some(result) = inst.result {
        out.push('%');
        write_value_name(out, kernel, result);
        out.push_str(" = ");
    }
    let _ = write!(
        out,
        "atomic.{}.{}.{}.{}.",
        inst.op, inst.order, inst.scope, inst.space
    );
    if inst.shape.is_vector() {
        let _ = write!(out, "{}.", inst.shape);
    }
    out.push_str(inst.ty.as_str());
    if let Some(laxity) = inst.laxity {
        let _ = write!(out, ".{laxity}");
    }
    if let Some(hint) = inst.hint {
        let _ = write!(out, ".{hint}");
    }
    out.push_str(" [%");
    write_value_name(out, kernel, inst.addr);
    out.push(']');
    if let Some(operand) = inst.operand {
        out.push_str(", ");
        write_operand(out, kernel, operand, inst.ty);
    }
    if let Some(new_value) = inst.new_value {
        out.push_str(", ");
        write_operand(out, kernel, new_value, inst.ty);
    }
}

fn write_operand(out: &mut String, kernel: &Kernel, operand: Operand, ty: ElemType) {
    match operand {
        Operand::Scalar(scalar) => write_scalar(out, kernel, scalar, ty),
        Operand::Vector(list) => {
            out.push('{');
            let elements = kernel.checked_vector_elements(list).unwrap_or_default();
            for (index, &scalar) in elements.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                write_scalar(out, kernel, scalar, ty);
            }
            out.push('}');
        }
    }
}

fn write_scalar(out: &mut String, kernel: &Kernel, scalar: Scalar, ty: ElemType) {
    match scalar {
        Scalar::Value(value) => {
            out.push('%');
            write_value_name(out, kernel, value);
        }
        Scalar::Const(constant) => match kernel.constants.get(constant) {
            Some(&bits) => write_literal(out, bits, ty),
            None => {
                let _ = write!(out, "{constant}");
            }
        },
    }
}
