//! Registers: temporaries by class, the registers of values and their lanes, constants,
//! operands, moves and one instruction line, and the declarations of what a kernel used.

use std::fmt::Write;

use atomir_ir::expand::{Expansion, PrimType, Var};
use atomir_ir::{ElemType, Kernel, Scalar, ValueType};

use atomir_ir::lower::Namer;

use super::prim::float_sign_mask;
use super::{mask, write_value, Class, KernelEmitter, Src, Temp, REGISTER_NAMES};
use crate::target::PtxTarget;

impl<'k> KernelEmitter<'k> {
    pub fn new(target: PtxTarget, kernel: &'k Kernel) -> Self {
        let mut names = Vec::new();
        let values = kernel.values.values().map(|data| &data.name[..]);
        Namer::new(&REGISTER_NAMES).assign(values, &mut names);
        KernelEmitter {
            target,
            kernel,
            counts: [0; 5],
            zero_extended: Vec::new(),
            masked: Vec::new(),
            vars: Vec::new(),
            element: None,
            names,
        }
    }

    pub(super) fn temp(&mut self, class: Class) -> Temp {
        let number = self.counts[class.index()];
        self.counts[class.index()] += 1;
        Temp { class, number }
    }

    pub(super) fn put_temp(out: &mut String, temp: Temp) {
        out.push_str(temp.class.prefix());
        let _ = write!(out, "{}", temp.number);
    }
}

impl<'k> KernelEmitter<'k> {
    pub(super) fn put(&self, out: &mut String, src: Src) {
        match src {
            Src::Temp(temp) => Self::put_temp(out, temp),
            Src::Value(value, lane) => write_value(out, &self.names, value, lane),
        }
    }

    /// `mov` of a constant into a fresh temporary of `bits` width.
    pub(super) fn constant(&mut self, out: &mut String, bits: u32, value: u128) -> Temp {
        let temp = self.temp(Class::of_bits(bits));
        self.mov_const(out, temp, bits, value);
        temp
    }

    pub(super) fn mov_const(&mut self, out: &mut String, temp: Temp, bits: u32, value: u128) {
        let value = value & mask(bits);
        match temp.class {
            Class::B128 => {
                let low = self.constant(out, 64, value);
                let high = self.constant(out, 64, value >> 64);
                out.push_str("\tmov.b128 ");
                Self::put_temp(out, temp);
                out.push_str(", {");
                Self::put_temp(out, low);
                out.push_str(", ");
                Self::put_temp(out, high);
                out.push_str("};\n");
            }
            class => {
                let _ = write!(out, "\tmov.b{} ", class.bits());
                Self::put_temp(out, temp);
                let _ = writeln!(out, ", {value:#x};");
            }
        }
    }

    /// The source of element `lane` of an operand; constants are materialized, and negated
    /// first when `negate` (in registers or at compile time, never as text).
    pub(super) fn operand(
        &mut self,
        out: &mut String,
        operand: atomir_ir::Operand,
        lane: usize,
        ty: ElemType,
        negate: bool,
    ) -> Src {
        let scalar = self
            .kernel
            .operand_element(operand, lane)
            .expect("verified operand");
        let bits = ty.bits();
        match scalar {
            Scalar::Const(constant) => {
                let raw = self.kernel.constants[constant];
                let value = if negate {
                    match float_sign_mask(ty) {
                        Some(sign) => raw ^ sign,
                        None => raw.wrapping_neg(),
                    }
                } else {
                    raw
                };
                Src::Temp(self.constant(out, bits, value))
            }
            Scalar::Value(value) => {
                let lane = match self.kernel.value_type(value) {
                    ValueType::Data(_, shape) if shape.is_vector() => Some(lane),
                    _ => None,
                };
                let src = Src::Value(value, lane);
                if negate {
                    Src::Temp(self.negate(out, src, ty))
                } else {
                    src
                }
            }
        }
    }
}

impl<'k> KernelEmitter<'k> {
    pub(super) fn mov(&self, out: &mut String, dst: Src, src: Src, bits: u32) {
        let class = Class::of_bits(bits);
        if class == Class::Pred {
            out.push_str("\tmov.pred ");
        } else {
            let _ = write!(out, "\tmov.b{} ", class.bits());
        }
        self.put(out, dst);
        out.push_str(", ");
        self.put(out, src);
        out.push_str(";\n");
    }

    /// `op.type d, a, b;` on temporaries and immediates.
    pub(super) fn line(&self, out: &mut String, opcode: &str, operands: &[Operand]) {
        out.push('\t');
        out.push_str(opcode);
        for (index, operand) in operands.iter().enumerate() {
            out.push_str(if index == 0 { " " } else { ", " });
            match *operand {
                Operand::T(temp) => Self::put_temp(out, temp),
                Operand::Imm(value) => {
                    let _ = write!(out, "{value:#x}");
                }
            }
        }
        out.push_str(";\n");
    }

    /// The register of `v` for an operation that reads all of it: an `I8` whose high byte may
    /// be set is masked once per block (its copy reused); any other variable as is.
    pub(super) fn zero_extended(
        &mut self,
        out: &mut String,
        v: Var,
        vars: &[Temp],
        expansion: &Expansion,
    ) -> Temp {
        let index = v.as_u32() as usize;
        if expansion.vars[v] != PrimType::I8 || self.zero_extended[index] {
            return vars[index];
        }
        if let Some(masked) = self.masked[index] {
            return masked;
        }
        let masked = self.temp(Class::B16);
        self.line(
            out,
            "and.b16",
            &[
                Operand::T(masked),
                Operand::T(vars[index]),
                Operand::Imm(0xff),
            ],
        );
        self.masked[index] = Some(masked);
        masked
    }
}

impl<'k> KernelEmitter<'k> {
    /// Register declarations of the temporaries used so far.
    pub fn declare_temps(&self, out: &mut String) {
        for class in Class::ALL {
            let count = self.counts[class.index()];
            if count > 0 {
                let _ = writeln!(out, "\t.reg {} {}<{count}>;", class.decl(), class.prefix());
            }
        }
    }
}

pub(super) fn format_op(name: &str, ty: &str) -> String {
    format!("{name}.rn.{ty}")
}

#[derive(Clone, Copy)]
pub(super) enum Operand {
    T(Temp),
    Imm(u128),
}

/// The register class of a value's type (one register per lane for vectors).
pub(super) fn value_class(ty: ValueType) -> (Class, usize) {
    match ty {
        ValueType::Ptr(_) => (Class::B64, 1),
        ValueType::Pred => (Class::Pred, 1),
        ValueType::Data(elem, shape) => (Class::of_bits(elem.bits()), shape.len()),
    }
}
