//! Registers: temporaries by class, the registers of values and their lanes, constants,
//! operands, moves and one instruction line, and the declarations of what a kernel used.

use atomir_ir::expand::{Block, PrimType, Var};
use atomir_ir::{ElemType, Kernel, Scalar, ValueType};

use atomir_ir::lower::{Fragment, FragmentResult, Namer, SpliceNames};
use atomir_ir::spelling::{Hex, Spell};
use atomir_ir::{spell, Inst};
use smallvec::smallvec;

use super::{
    mask, write_value, Class, KernelEmitter, MadeNames, Src, Temp, ValueNames, Walk, REGISTER_NAMES,
};
use crate::legal::RmwForms;
use crate::target::PtxTarget;

/// A memory operand: a register plus a constant number of bytes.
#[derive(Clone, Copy, Debug)]
pub(super) struct Address {
    base: Temp,
    bytes: u32,
}

impl<'k> KernelEmitter<'k> {
    pub fn new(target: PtxTarget, kernel: &'k Kernel) -> Self {
        let mut names = Vec::new();
        let values = kernel.values.values().map(|data| &data.name[..]);
        Namer::new(&REGISTER_NAMES).assign_distinct(values, &mut names);
        KernelEmitter {
            names: ValueNames::Kernel(names),
            ..KernelEmitter::new_unnamed(target, kernel)
        }
    }

    /// An emitter for instruction `inst` of `kernel` spliced into the client's code: the
    /// values are the client's registers, an unbound result is the fragment's
    /// `<prefix>result` (per lane `<prefix>result<i>`), and what the printer makes up carries
    /// the prefix.
    pub fn spliced(
        target: PtxTarget,
        kernel: &'k Kernel,
        inst: Inst,
        splice: &'k SpliceNames,
    ) -> Self {
        let result = kernel.atomic(inst).and_then(|atomic| atomic.result);
        let unbound = result.filter(|&value| splice.binding(value).is_none());
        let result = unbound.map(|value| {
            let names = match kernel.value_type(value) {
                ValueType::Data(_, shape) if shape.is_vector() => (0..shape.len())
                    .map(|lane| splice.made("result", Some(lane as u32)))
                    .collect(),
                _ => smallvec![splice.made("result", None)],
            };
            (value, names)
        });
        KernelEmitter {
            names: ValueNames::Spliced { splice, result },
            made: MadeNames::Spliced(splice),
            spliced_result: kernel.atomic(inst).and_then(|atomic| atomic.result),
            ..KernelEmitter::new_unnamed(target, kernel)
        }
    }

    /// An emitter for the body of a shared function ([`super::shared`]): its own registers,
    /// and labels that name no instruction; it names no value of `kernel`.
    pub(super) fn shared(target: PtxTarget, kernel: &'k Kernel) -> Self {
        KernelEmitter {
            made: MadeNames::Shared,
            ..KernelEmitter::new_unnamed(target, kernel)
        }
    }

    fn new_unnamed(target: PtxTarget, kernel: &'k Kernel) -> Self {
        KernelEmitter {
            target,
            kernel,
            counts: [0; 5],
            block: Block::from_u32(0),
            masked: Vec::new(),
            vars: Vec::new(),
            rmw: RmwForms::None,
            rmw_policy: None,
            names: ValueNames::Kernel(Vec::new()),
            made: MadeNames::Kernel,
            spliced_result: None,
            entry: None,
            unpack_float_halves: false,
        }
    }

    /// A fragment's temporaries (its own result registers among them) and where its result is.
    pub fn splice_parts(&self, fragment: &mut Fragment) {
        let MadeNames::Spliced(splice) = self.made else {
            return;
        };
        for class in Class::ALL {
            for number in 0..self.counts[class.index()] {
                fragment.temp(splice.made(class.letter(), Some(number)), class.decl());
            }
        }
        let Some(value) = self.spliced_result else {
            return;
        };
        let bound = splice.binding(value).is_some();
        let names = self.names.of(value).to_binding();
        if !bound {
            let (class, _) = value_class(self.kernel.value_type(value));
            for name in &names {
                fragment.temp(name.clone(), class.decl());
            }
        }
        fragment.results.push(FragmentResult {
            value,
            names,
            bound,
        });
    }

    pub(super) fn temp(&mut self, class: Class) -> Temp {
        let number = self.counts[class.index()];
        self.counts[class.index()] += 1;
        Temp { class, number }
    }

    /// The memory operand of the address in `addr`.
    pub(super) fn memory_operand(&self, addr: Var, walk: Walk<'_>) -> Address {
        let vars = walk.vars;
        match walk.facts.folded_address(addr) {
            Some((base, bytes)) => Address {
                base: vars[base.as_u32() as usize],
                bytes,
            },
            None => Address {
                base: vars[addr.as_u32() as usize],
                bytes: 0,
            },
        }
    }

    /// `[base]` or `[base+bytes]`.
    pub(super) fn put_address(&self, out: &mut String, address: Address) {
        out.push('[');
        self.put_temp(out, address.base);
        if address.bytes != 0 {
            spell!(out, '+', address.bytes);
        }
        out.push(']');
    }

    pub(super) fn put_temp(&self, out: &mut String, temp: Temp) {
        out.push('%');
        match self.made {
            MadeNames::Kernel | MadeNames::Shared => {
                spell!(out, '_', temp.class.letter(), temp.number);
            }
            MadeNames::Spliced(splice) => {
                splice.write_made(out, temp.class.letter(), Some(temp.number));
            }
        }
    }

    /// A label the printer makes up for instruction `id`: `$L<id>_<kind>[<number>]` in a
    /// kernel, `$L_<kind>[<number>]` in a shared function, `$<prefix><kind>[<number>]` in a
    /// fragment.
    pub(super) fn write_label(&self, out: &mut String, id: Inst, kind: &str, number: Option<u32>) {
        out.push('$');
        match self.made {
            MadeNames::Shared => {
                spell!(out, "L_", kind);
                if let Some(number) = number {
                    spell!(out, number);
                }
            }
            MadeNames::Kernel => {
                spell!(out, 'L', id.as_u32(), '_', kind);
                if let Some(number) = number {
                    spell!(out, number);
                }
            }
            MadeNames::Spliced(splice) => {
                splice.write_made(out, kind, number);
            }
        }
    }
}

impl<'k> KernelEmitter<'k> {
    pub(super) fn put(&self, out: &mut String, src: Src) {
        match src {
            Src::Temp(temp) => self.put_temp(out, temp),
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
                self.put_temp(out, temp);
                out.push_str(", {");
                self.put_temp(out, low);
                out.push_str(", ");
                self.put_temp(out, high);
                out.push_str("};\n");
            }
            class => {
                spell!(out, "\tmov.b", class.bits(), ' ');
                self.put_temp(out, temp);
                spell!(out, ", ", Hex::prefixed(value), ";\n");
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
            spell!(out, "\tmov.b", class.bits(), ' ');
        }
        self.put(out, dst);
        out.push_str(", ");
        self.put(out, src);
        out.push_str(";\n");
    }

    /// `op.type d, a, b;` on temporaries and immediates; the opcode may be a tuple of its
    /// parts (`("add.u", 32u32)`), so that spelling it allocates nothing.
    pub(super) fn line(&self, out: &mut String, opcode: impl Spell, operands: &[Operand]) {
        out.push('\t');
        self.operation(out, opcode, operands);
    }

    /// [`Self::line`] carried out only where the predicate `guard` holds.
    pub(super) fn guarded_line(
        &self,
        out: &mut String,
        guard: Temp,
        opcode: impl Spell,
        operands: &[Operand],
    ) {
        out.push_str("\t@");
        self.put_temp(out, guard);
        out.push(' ');
        self.operation(out, opcode, operands);
    }

    fn operation(&self, out: &mut String, opcode: impl Spell, operands: &[Operand]) {
        opcode.spell(out);
        for (index, operand) in operands.iter().enumerate() {
            out.push_str(if index == 0 { " " } else { ", " });
            match *operand {
                Operand::T(temp) => self.put_temp(out, temp),
                Operand::Imm(value) => spell!(out, Hex::prefixed(value)),
            }
        }
        out.push_str(";\n");
    }

    /// The register of `v` for an operation that reads all of it: an `I8` whose high byte may
    /// be set is masked once per block (its copy reused); any other variable as is.
    pub(super) fn zero_extended(&mut self, out: &mut String, v: Var, walk: Walk<'_>) -> Temp {
        let index = v.as_u32() as usize;
        if walk.expansion.vars[v] != PrimType::I8 || walk.facts.zero_extended(v) {
            return walk.vars[index];
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
                Operand::T(walk.vars[index]),
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
                spell!(
                    out,
                    "\t.reg ",
                    class.decl(),
                    " %_",
                    class.letter(),
                    '<',
                    count,
                    ">;\n"
                );
            }
        }
    }
}

#[derive(Clone, Copy)]
pub(super) enum Operand {
    T(Temp),
    Imm(u128),
}

/// The register class of a value's type (one register per lane for vectors).
pub(crate) fn value_class(ty: ValueType) -> (Class, usize) {
    match ty {
        ValueType::Ptr(_) => (Class::B64, 1),
        ValueType::Pred => (Class::Pred, 1),
        ValueType::Data(elem, shape) => (Class::of_bits(elem.bits()), shape.len()),
    }
}

/// The sign bits of a float or packed-float type, or `None` for integers.
fn float_sign_mask(ty: ElemType) -> Option<u128> {
    match ty {
        ElemType::F16 | ElemType::Bf16 => Some(0x8000),
        ElemType::F32 => Some(0x8000_0000),
        ElemType::F64 => Some(0x8000_0000_0000_0000),
        ElemType::F16x2 | ElemType::Bf16x2 => Some(0x8000_8000),
        _ => None,
    }
}

impl<'k> KernelEmitter<'k> {
    /// `-x` in a register: integer negation, or a flip of the sign bit(s) of a float.
    pub(super) fn negate(&mut self, out: &mut String, src: Src, ty: ElemType) -> Temp {
        let class = Class::of_bits(ty.bits());
        let temp = self.temp(class);
        match float_sign_mask(ty) {
            Some(sign) => {
                spell!(out, "\txor.b", class.bits(), ' ');
                self.put_temp(out, temp);
                out.push_str(", ");
                self.put(out, src);
                spell!(out, ", ", Hex::prefixed(sign), ";\n");
            }
            None => {
                spell!(out, "\tneg.s", class.bits(), ' ');
                self.put_temp(out, temp);
                out.push_str(", ");
                self.put(out, src);
                out.push_str(";\n");
            }
        }
        temp
    }
}
