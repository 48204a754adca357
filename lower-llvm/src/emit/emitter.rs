//! The per-kernel state of printing: value names, where each atomic result lives, the
//! instruction and block being printed, and the helpers every printing module shares (types of
//! kernel values, addresses, operand elements, an instruction's entry and end blocks).
//!
//! [`super::native`], [`super::expansion`], [`super::ldst`] and [`super::vulkan`] all print
//! through one [`Emitter`], so a value is named, cast and extracted the same way everywhere.

use std::borrow::Cow;
use std::fmt;

use atomir_ir::expand::{PrimType, Var};
use atomir_ir::lower::{Hole, Namer, Recorder, Spell, SpliceNames, Unprintable};
use atomir_ir::spelling::Displayed;
use atomir_ir::{
    spell, AddressSpace, AtomicInst, Constant, Inst, Kernel, Operand, Scalar, Value, ValueDef,
    ValueType,
};
use cranelift_entity::SecondaryMap;

use crate::target::LlvmTarget;

use super::types::{access_scal, type_word};
use super::values::{write_ident, write_literal, Decimal, VALUE_NAMES};
use super::{Label, Ref, Scal, Ty};

/// Prints one kernel's instructions; holds the per-kernel naming state.
pub(crate) struct Emitter<'a> {
    pub target: LlvmTarget,
    pub kernel: &'a Kernel,
    /// Where each atomic result lives once printed.
    pub results: SecondaryMap<Value, Option<Ref>>,
    /// The instruction being printed (names its temporaries and blocks).
    pub inst: u32,
    next_tmp: u32,
    /// The label of the block being printed.
    pub label: Label,
    /// The label of the block before the current instruction.
    before: Label,
    /// The current expansion's registers, by variable.
    pub(crate) refs: Vec<Ref>,
    /// The current expansion's old value, once its return block is printed.
    pub(crate) result: Option<Ref>,
    /// The number of the node's address space.
    pub(crate) space: u32,
    /// The name of each value, by index; empty where every value of the kernel that is
    /// printed by name keeps its own.
    names: Vec<Cow<'a, str>>,
    /// The kernel's index in the module.
    pub(crate) kernel_index: usize,
    /// Whether addresses are the views a Vulkan frame binds (a complete Vulkan module).
    pub(crate) bound: bool,
    /// The names of a spliced fragment: every value is the client's, what the printer makes up
    /// carries the prefix.
    pub(super) splice: Option<&'a SpliceNames>,
    /// The instruction a spliced fragment holds.
    pub(super) spliced_inst: Option<Inst>,
    /// In a fragment, its result where the client left it unbound, with the fragment's name.
    unbound_result: Option<(Value, String)>,
    /// Marks the holes of an expansion's text while a template of it is recorded.
    pub(crate) recorder: Recorder,
    /// The number of the last instruction printed afresh in decimal, spelled once per such
    /// instruction for its registers and labels; a name is spelled with it only where its
    /// instruction is the one these digits spell.
    inst_digits: Decimal,
    /// Where the current instruction's inputs are (see [`Emitter::shape`]), so that a name
    /// spelled from one while a template is recorded is marked as that input, and a replay
    /// spells the input of its own instruction there.
    inputs: Vec<Ref>,
}

// The kind of a hole, in its low four bits; the rest is its operand. The instruction's number,
// in its registers and labels, is no hole: the template writes it (`Recorder::number`).

/// Where input number `operand` is ([`Emitter::inputs`]).
const INPUT: Hole = 1;
/// The label of the block before the instruction.
const BEFORE: Hole = 2;
/// The end of the instruction: the block it ends in, and where its result is (bits 4 to 7:
/// [`NO_RESULT`], [`OWN_VAR`], [`OWN_TMP`] or [`AN_INPUT`]; bits 8 on: its number).
const END: Hole = 3;
/// The beginning of the instruction: its number, and the block before it.
const BEGIN: Hole = 4;

/// Where an [`END`] hole's result is: nowhere, the instruction's variable or temporary, or an
/// input.
const NO_RESULT: u32 = 0;
const OWN_VAR: u32 = 1;
const OWN_TMP: u32 = 2;
const AN_INPUT: u32 = 3;

/// Spells a [`Label`] with the emitter's names: a kernel's (`.3.b1`), or in a spliced
/// fragment the client's blocks around it and `<prefix>b1`, `<prefix>end` inside.
pub(crate) struct ShownLabel<'e, 'a>(&'e Emitter<'a>, Label);

impl Spell for ShownLabel<'_, '_> {
    fn spell(&self, out: &mut String) {
        let Some(splice) = self.0.splice else {
            let inst = match self.1 {
                Label::Block(inst, _) | Label::End(inst) => inst,
                Label::Entry => return self.1.spell(out),
            };
            if inst != self.0.inst_digits.value() {
                return self.1.spell(out);
            }
            out.push('.');
            let at = out.len();
            self.0.inst_digits.spell(out);
            self.0.recorder.number(at, out.len());
            return match self.1 {
                Label::Block(_, k) => spell!(out, ".b", k),
                _ => out.push_str(".end"),
            };
        };
        match (self.1, splice.blocks()) {
            // A plain identifier: the driver checked.
            (Label::Entry, Some((predecessor, _))) => out.push_str(predecessor),
            (Label::Entry, None) => splice.write_made(out, "entry", None),
            (Label::Block(_, k), _) => splice.write_made(out, "b", Some(k)),
            (Label::End(_), _) => splice.write_made(out, "end", None),
        }
    }
}

/// Spells a [`Ref`] with the emitter's names.
pub(crate) struct Shown<'e, 'a>(&'e Emitter<'a>, Ref);

impl Spell for Shown<'_, '_> {
    fn spell(&self, out: &mut String) {
        let made = match (self.1, self.0.splice) {
            (Ref::Tmp(_, n), Some(splice)) => Some((splice, "t", n)),
            (Ref::Var(_, var), Some(splice)) => Some((splice, "v", var.as_u32())),
            _ => None,
        };
        if let Some((splice, kind, number)) = made {
            out.push('%');
            splice.write_made(out, kind, Some(number));
            return;
        }
        if self.0.recorder.is_recording() {
            return self.0.spell_recorded(self.1, out);
        }
        let digits = &self.0.inst_digits;
        self.0.spell_numbered(self.1, digits.value(), digits, out);
    }
}

impl<'a> Emitter<'a> {
    pub(crate) fn new(target: LlvmTarget, kernel: &'a Kernel) -> Self {
        // A kernel prints only its parameters by name (results are numbered registers). A
        // parameter whose name the rules allow keeps it whatever the other names are; only
        // where one is escaped do all the kernel's names, results' too, decide its escape.
        let params = kernel
            .params
            .iter()
            .map(|param| &kernel.values[param.value].name);
        let mut names = Vec::new();
        if !params.into_iter().all(|name| VALUE_NAMES.allows(name)) {
            let values = kernel.values.values().map(|data| &data.name[..]);
            Namer::new(&VALUE_NAMES).assign_distinct(values, &mut names);
        }
        // Every slot at once: a replay stores each result in order, and a map grown one slot
        // at a time pays a call per result.
        let mut results = SecondaryMap::with_capacity(kernel.values.len());
        results.resize(kernel.values.len());
        Emitter {
            results,
            names,
            ..Emitter::new_unnamed(target, kernel)
        }
    }

    /// An emitter for one instruction of `kernel` spliced into the client's function: every
    /// value is the client's SSA value, an unbound result is `%<prefix>result`.
    pub(crate) fn spliced(
        target: LlvmTarget,
        kernel: &'a Kernel,
        inst: Inst,
        splice: &'a SpliceNames,
    ) -> Self {
        let result = kernel.atomic(inst).and_then(|atomic| atomic.result);
        let unbound = result.filter(|&value| splice.name(value).is_none());
        Emitter {
            splice: Some(splice),
            spliced_inst: Some(inst),
            unbound_result: unbound.map(|value| (value, splice.made("result", None))),
            ..Emitter::new_unnamed(target, kernel)
        }
    }

    fn new_unnamed(target: LlvmTarget, kernel: &'a Kernel) -> Self {
        Emitter {
            target,
            kernel,
            results: SecondaryMap::new(),
            inst: 0,
            next_tmp: 0,
            label: Label::Entry,
            before: Label::Entry,
            refs: Vec::new(),
            result: None,
            space: 0,
            names: Vec::new(),
            kernel_index: 0,
            bound: false,
            splice: None,
            spliced_inst: None,
            unbound_result: None,
            recorder: Recorder::new(),
            inst_digits: Decimal::default(),
            inputs: Vec::new(),
        }
    }

    pub(crate) fn show_label(&self, label: Label) -> ShownLabel<'_, 'a> {
        ShownLabel(self, label)
    }

    /// A value's name in the function.
    pub(crate) fn name(&self, value: Value) -> &str {
        match (self.splice, &self.unbound_result) {
            (_, Some((result, name))) if *result == value => name,
            (Some(splice), _) => splice.name(value).unwrap_or(""),
            (None, _) => match self.names.get(value.as_u32() as usize) {
                Some(name) => name,
                None => &self.kernel.values[value].name,
            },
        }
    }

    pub(crate) fn show(&self, r: Ref) -> Shown<'_, 'a> {
        Shown(self, r)
    }

    /// Spells `r` in a kernel (not a fragment, not while a template is recorded), where
    /// instruction `inst`'s number is spelled `digits` already.
    pub(crate) fn spell_numbered(&self, r: Ref, inst: u32, digits: &Decimal, out: &mut String) {
        match r.register() {
            Some((of, number)) if of == inst => spell!(out, "%.", digits, '.', number),
            _ => self.spell_plain(r, out),
        }
    }

    /// Spells `r` in a kernel, a register's instruction number spelled afresh.
    fn spell_plain(&self, r: Ref, out: &mut String) {
        if let Some((inst, number)) = r.register() {
            return spell!(out, "%.", inst, '.', number);
        }
        match r {
            Ref::Param(value) => write_ident(out, '%', self.name(value)),
            Ref::Lit(bits, scal) => write_literal(out, bits, scal),
            Ref::Zero => out.push_str("zeroinitializer"),
            Ref::Bound(value, scal) => self.spell_bound(out, value, scal),
            // Spelled above.
            Ref::Tmp(..) | Ref::Var(..) => {}
        }
    }

    /// Spells the address an atomic through parameter `addr` uses in a Vulkan frame
    /// (`vulkan.rs` declares both): its binding's view of the accessed type, or the Workgroup
    /// variable.
    fn spell_bound(&self, out: &mut String, addr: Value, scal: Scal) {
        let kernel = self.kernel;
        match kernel.value_type(addr) {
            ValueType::Ptr(AddressSpace::Shared) => {
                spell!(
                    out,
                    "@.k",
                    self.kernel_index,
                    ".s",
                    addr.as_u32(),
                    '.',
                    scal
                );
            }
            _ => {
                let binding = kernel
                    .params
                    .iter()
                    .position(|p| p.value == addr)
                    .unwrap_or_default();
                spell!(out, "%.a", binding, '.', scal);
            }
        }
    }

    pub(crate) fn fresh(&mut self) -> Ref {
        self.next_tmp += 1;
        Ref::Tmp(self.inst, self.next_tmp)
    }

    /// The raw pointer type (`ptr addrspace(N)`, or `i8 addrspace(N)*` with typed pointers).
    pub(crate) fn raw_ptr(&self, space: u32) -> Ty {
        Ty::Ptr {
            space,
            pointee: self.target.typed_pointers().then_some((1, Scal::I(8))),
        }
    }

    /// A pointer to `(len, scal)` in `space`, for a memory instruction.
    pub(crate) fn elem_ptr(&self, space: u32, len: u32, scal: Scal) -> Ty {
        Ty::Ptr {
            space,
            pointee: self.target.typed_pointers().then_some((len, scal)),
        }
    }

    /// The LLVM type of a kernel value.
    pub(crate) fn value_ty(&self, ty: ValueType) -> Ty {
        super::types::value_ty(&self.target, ty)
    }

    pub(crate) fn prim_ty(&self, ty: PrimType, space: u32) -> Ty {
        match ty {
            PrimType::Pred => Ty::S(Scal::I(1)),
            PrimType::Ptr => self.raw_ptr(space),
            PrimType::F16 => Ty::S(Scal::Half),
            PrimType::Bf16 => Ty::S(Scal::BFloat),
            PrimType::F32 => Ty::S(Scal::F32),
            PrimType::F64 => Ty::S(Scal::F64),
            int => Ty::S(Scal::I(int.bits())),
        }
    }

    /// Where a kernel value lives.
    pub(crate) fn value_ref(&self, value: Value) -> Ref {
        if self.splice.is_some() {
            return Ref::Param(value);
        }
        match self.kernel.values[value].def {
            ValueDef::Param(_) => Ref::Param(value),
            ValueDef::Result(_) => self.results[value].unwrap_or(Ref::Zero),
        }
    }

    /// The node's address in the node's own space (an `addrspacecast` when the pointer's differs).
    pub(crate) fn node_addr(&mut self, out: &mut String, inst: &AtomicInst, space: u32) -> Ref {
        if self.bound {
            return Ref::Bound(inst.addr, access_scal(inst.ty));
        }
        let addr = self.value_ref(inst.addr);
        let from = self.value_ty(self.kernel.value_type(inst.addr));
        let to = self.raw_ptr(space);
        if from == to {
            return addr;
        }
        let dst = self.fresh();
        spell!(
            out,
            "  ",
            self.show(dst),
            " = addrspacecast ",
            from,
            ' ',
            self.show(addr),
            " to ",
            to,
            '\n'
        );
        dst
    }

    /// Element `index` of an operand, as a scalar of `want` (bitcast where a `bN` node takes
    /// another type of the same width; extracted where the operand is a vector value).
    pub(crate) fn operand_element(
        &mut self,
        out: &mut String,
        operand: Operand,
        index: usize,
        want: Scal,
    ) -> Ref {
        let scalar = match operand {
            Operand::Scalar(scalar) => scalar,
            Operand::Vector(list) => self.kernel.vector_elements(list)[index],
        };
        let value = match scalar {
            Scalar::Const(constant) => return Ref::Lit(self.constant(constant), want),
            Scalar::Value(value) => value,
        };
        let mut current = self.value_ref(value);
        let (elem, shape) = match self.kernel.value_type(value) {
            ValueType::Data(elem, shape) => (elem, shape),
            _ => return current,
        };
        let have = Scal::natural(elem);
        if shape.is_vector() {
            let dst = self.fresh();
            spell!(
                out,
                "  ",
                self.show(dst),
                " = extractelement <",
                shape.len(),
                " x ",
                have,
                "> ",
                self.show(current),
                ", i32 ",
                index,
                '\n'
            );
            current = dst;
        }
        if have != want {
            let dst = self.fresh();
            spell!(
                out,
                "  ",
                self.show(dst),
                " = bitcast ",
                have,
                ' ',
                self.show(current),
                " to ",
                want,
                '\n'
            );
            current = dst;
        }
        current
    }

    /// `<vector>` with `element` (a `scal`) at `index`, inserted into `previous` (`poison`
    /// where it is the first): the register that holds it.
    pub(crate) fn insert_element(
        &mut self,
        out: &mut String,
        vector: Ty,
        previous: Option<Ref>,
        scal: Scal,
        element: Ref,
        index: usize,
    ) -> Ref {
        let dst = self.fresh();
        spell!(out, "  ", self.show(dst), " = insertelement ", vector, ' ');
        match previous {
            Some(previous) => self.show(previous).spell(out),
            None => out.push_str("poison"),
        }
        spell!(
            out,
            ", ",
            scal,
            ' ',
            self.show(element),
            ", i32 ",
            index,
            '\n'
        );
        dst
    }

    fn constant(&self, constant: Constant) -> u128 {
        self.kernel.constants[constant]
    }

    /// Starts instruction `index`: a branch over it where it is predicated, and its first block.
    pub(crate) fn instruction_begin(&mut self, out: &mut String, index: u32, inst: &AtomicInst) {
        self.recorder.hole(out.len(), out.len(), BEGIN);
        self.enter(index);
        self.inst_digits.set(index);
        let first = Label::Block(index, 0);
        let end = Label::End(index);
        match inst.predicate {
            Some(predicate) => {
                let (then, otherwise) = if predicate.negated {
                    (end, first)
                } else {
                    (first, end)
                };
                let cond = self.value_ref(predicate.value);
                spell!(
                    out,
                    "  br i1 ",
                    self.show(cond),
                    ", label %",
                    self.show_label(then),
                    ", label %",
                    self.show_label(otherwise),
                    '\n'
                );
            }
            None => spell!(out, "  br label %", self.show_label(first), '\n'),
        }
        spell!(out, self.show_label(first), ":\n");
    }

    /// Enters instruction `index`, in its first block: what beginning it does but print. A
    /// replay writes the instruction's number itself, so only a beginning printed afresh
    /// spells it ([`Emitter::inst_digits`] says which number it holds).
    fn enter(&mut self, index: u32) {
        self.inst = index;
        self.next_tmp = 0;
        self.before = self.label;
        self.label = Label::Block(index, 0);
    }

    /// Ends the current instruction: its end block, where a predicated result meets zero.
    pub(crate) fn instruction_end(
        &mut self,
        out: &mut String,
        inst: &AtomicInst,
        result: Option<Ref>,
    ) {
        let index = self.inst;
        let end = Label::End(index);
        let end = self.show_label(end);
        spell!(out, "  br label %", end, '\n', end, ":\n");
        let from = self.label;
        self.label = Label::End(index);
        let (Some(value), Some(mut result)) = (inst.result, result) else {
            self.mark_end(out, None);
            return;
        };
        // A fragment defines the result under its name, which only a phi can do in SSA.
        if inst.predicate.is_some() || self.splice.is_some() {
            let ty = self.value_ty(inst.result_type());
            let dst = match self.splice {
                Some(_) => Ref::Param(value),
                None => self.fresh(),
            };
            spell!(
                out,
                "  ",
                self.show(dst),
                " = phi ",
                ty,
                " [ ",
                self.show(result),
                ", %",
                self.show_label(from),
                " ]"
            );
            if inst.predicate.is_some() {
                out.push_str(", [ zeroinitializer, %");
                let at = out.len();
                self.show_label(self.before).spell(out);
                if self.recorder.is_recording() {
                    self.recorder.hole(at, out.len(), BEFORE);
                }
                out.push_str(" ]");
            }
            out.push('\n');
            result = dst;
        }
        self.results[value] = Some(result);
        self.mark_end(out, Some(result));
    }

    /// Finds where the inputs of `inst` are (its address, its operands' elements, its new
    /// values' elements, its predicate, in that order: [`Emitter::inputs`]) and appends the
    /// shape of its text ([`atomir_ir::lower::Replay::shape`]), beginning included: `false`
    /// where it is not replayed (a fragment's names are the client's).
    ///
    /// Beyond its plan, an instruction's text depends on what each input is: a parameter (its
    /// name, text), a constant (its bits, text), zero, or another instruction's result (a
    /// hole: the shape holds its type, which decides the casts of it, and the first input
    /// where it is the same register, so that a hole stands for the same input in each
    /// replay); and on its predicate and whether its result is used.
    pub(crate) fn shape(&mut self, inst: &AtomicInst, shape: &mut Vec<u64>) -> bool {
        if self.splice.is_some() {
            return false;
        }
        let mut inputs = std::mem::take(&mut self.inputs);
        inputs.clear();
        match self.bound {
            true => {
                let addr = Ref::Bound(inst.addr, access_scal(inst.ty));
                self.shape_input(&mut inputs, addr, Some(inst.addr), shape);
            }
            false => self.shape_value(&mut inputs, inst.addr, shape),
        }
        let natural = Scal::natural(inst.ty);
        for operand in [&inst.operand, &inst.new_value].into_iter().flatten() {
            let scalars = match operand {
                Operand::Scalar(scalar) => std::slice::from_ref(scalar),
                Operand::Vector(list) => self.kernel.vector_elements(*list),
            };
            for &scalar in scalars {
                match scalar {
                    Scalar::Const(constant) => {
                        let r = Ref::Lit(self.constant(constant), natural);
                        self.shape_input(&mut inputs, r, None, shape);
                    }
                    Scalar::Value(value) => self.shape_value(&mut inputs, value, shape),
                }
            }
        }
        if let Some(predicate) = inst.predicate {
            self.shape_value(&mut inputs, predicate.value, shape);
        }
        self.inputs = inputs;
        let predicate = inst.predicate.map_or(0, |p| 1 + u64::from(p.negated));
        shape.push(predicate | u64::from(inst.result.is_some()) << 2);
        true
    }

    /// [`Emitter::shape_input`] of kernel value `value` (outside a fragment): a parameter
    /// found as such once, rather than by [`Emitter::value_ref`] and again by the input.
    #[inline]
    fn shape_value(&self, inputs: &mut Vec<Ref>, value: Value, shape: &mut Vec<u64>) {
        match self.kernel.values[value].def {
            ValueDef::Param(_) => {
                shape.push(3 << 32 | u64::from(value.as_u32()));
                inputs.push(Ref::Param(value));
            }
            ValueDef::Result(_) => {
                let r = self.results[value].unwrap_or(Ref::Zero);
                self.shape_input(inputs, r, Some(value), shape);
            }
        }
    }

    /// Appends input `r` (the register of `value`, if it is not a constant) to `inputs` and
    /// what the text depends on of it to `shape`.
    fn shape_input(
        &self,
        inputs: &mut Vec<Ref>,
        r: Ref,
        value: Option<Value>,
        shape: &mut Vec<u64>,
    ) {
        match r {
            Ref::Lit(bits, scal) => {
                let scal = match scal {
                    Scal::I(width) => u64::from(width),
                    Scal::Half => 1 << 8,
                    Scal::BFloat => 2 << 8,
                    Scal::F32 => 3 << 8,
                    Scal::F64 => 4 << 8,
                };
                shape.extend([1 << 32 | scal, bits as u64, (bits >> 64) as u64]);
            }
            Ref::Zero => shape.push(2 << 32),
            // Named the same in every instruction: in the shape, so its name is in the text.
            Ref::Param(value) | Ref::Bound(value, _) if self.is_param(value) => {
                shape.push(3 << 32 | u64::from(value.as_u32()));
            }
            r => {
                let first = inputs.iter().position(|&other| other == r);
                let ty = value.map_or(0, |value| type_word(self.kernel.value_type(value)));
                shape.extend([4 << 32 | first.unwrap_or(inputs.len()) as u64, ty]);
            }
        }
        inputs.push(r);
    }

    /// Spells `r` while a template is recorded: the instruction's number in its own registers
    /// as a hole, a literal or `zeroinitializer` as text, any other register as the hole of
    /// the variable bound to it.
    fn spell_recorded(&self, r: Ref, out: &mut String) {
        let text = match r {
            Ref::Param(value) | Ref::Bound(value, _) => self.is_param(value),
            Ref::Lit(..) | Ref::Zero => true,
            Ref::Tmp(..) | Ref::Var(..) => false,
        };
        if text {
            return self.spell_plain(r, out);
        }
        let own = self.inst_digits.value();
        if let Some((_, number)) = r.register().filter(|&(inst, _)| inst == own) {
            out.push_str("%.");
            let at = out.len();
            self.inst_digits.spell(out);
            self.recorder.number(at, out.len());
            spell!(out, '.', number);
            return;
        }
        let at = out.len();
        self.spell_plain(r, out);
        match self.inputs.iter().position(|&input| input == r) {
            Some(input) => self
                .recorder
                .hole(at, out.len(), INPUT | (input as u32) << 4),
            None => self.recorder.spoil(),
        }
    }

    /// Whether `value` is a parameter of the kernel (whose [`Ref::Param`] is the same in
    /// every instruction).
    fn is_param(&self, value: Value) -> bool {
        matches!(self.kernel.values[value].def, ValueDef::Param(_))
    }

    /// Marks the end of the instruction, whose result (if it has one) is `result`, while a
    /// template is recorded.
    fn mark_end(&self, out: &str, result: Option<Ref>) {
        if !self.recorder.is_recording() {
            return;
        }
        let (kind, number) = match result {
            None => (NO_RESULT, 0),
            Some(Ref::Var(inst, var)) if inst == self.inst => (OWN_VAR, var.as_u32()),
            Some(Ref::Tmp(inst, n)) if inst == self.inst => (OWN_TMP, n),
            Some(r) => match self.inputs.iter().position(|&input| input == r) {
                Some(input) => (AN_INPUT, input as u32),
                None => return self.recorder.spoil(),
            },
        };
        let hole = END | kind << 4 | number << 8;
        self.recorder.hole(out.len(), out.len(), hole);
    }

    /// Writes hole `hole` of a template replayed for instruction `index`, `inst`, and does
    /// what it stands for.
    pub(crate) fn fill(
        &mut self,
        index: u32,
        inst: &AtomicInst,
        hole: Hole,
        out: &mut String,
    ) -> Result<(), TemplateError> {
        let number = hole >> 8;
        let input = |em: &Self, input: u32| {
            em.inputs
                .get(input as usize)
                .copied()
                .ok_or(TemplateError::MissingInput(input))
        };
        match hole & 0xf {
            INPUT => {
                let r = input(self, hole >> 4)?;
                self.show(r).spell(out);
            }
            BEFORE => self.show_label(self.before).spell(out),
            BEGIN => self.enter(index),
            END => {
                self.label = Label::End(self.inst);
                let result = match hole >> 4 & 0xf {
                    NO_RESULT => None,
                    OWN_VAR => Some(Ref::Var(self.inst, Var::from_u32(number))),
                    OWN_TMP => Some(Ref::Tmp(self.inst, number)),
                    _ => Some(input(self, number)?),
                };
                if let (Some(value), Some(result)) = (inst.result, result) {
                    self.results[value] = Some(result);
                }
            }
            kind => return Err(TemplateError::UnknownHole(kind)),
        }
        Ok(())
    }
}

/// Why a recorded template could not be replayed: it holds a hole this printer never records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TemplateError {
    /// A hole names an input the replayed instruction does not have.
    MissingInput(u32),
    /// A hole of a kind this printer has no meaning for.
    UnknownHole(u32),
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TemplateError::MissingInput(input) => {
                let message = ("a template names input ", input, ", which is not there");
                fmt::Display::fmt(&Displayed(message), f)
            }
            TemplateError::UnknownHole(kind) => {
                fmt::Display::fmt(&Displayed(("a template holds a hole of kind ", kind)), f)
            }
        }
    }
}

impl From<TemplateError> for Unprintable {
    fn from(error: TemplateError) -> Self {
        Unprintable(error.to_string())
    }
}
