//! The `.entry` around a kernel's body: its signature, the loads of its parameters, and the
//! stores of its results (at the addresses a caller's [`EntryHook`] gives, where it gives one).

use std::collections::HashMap;

use atomir_ir::expand::{Expansion, Terminator, Var};
use atomir_ir::{AddressSpace, AtomicInst, Kernel, Value, ValueDef, ValueType};

use atomir_ir::lower::{append_buffer, Facts};
use atomir_ir::spell;
use atomir_ir::spelling::Spell;
use smallvec::SmallVec;

use super::hook::{EntryHook, EntryRegister, EntryRegisters};
use super::native::memory_type;
use super::regs::value_class;
use super::{write_value, Class, KernelEmitter, KernelState, Src, Temp};
use crate::target::Feature;

/// What the `.entry` around a kernel's body asks of the body's expansions, so that it reads the
/// parameters and stores the results as llc does: the lanes of 16-bit parameters it can also
/// read zero-extended, and the results it can store as the words that hold their lanes.
#[derive(Default)]
pub(super) struct EntryIo {
    /// The results whose 8/16-bit lanes are the parts of 32-bit registers at their places
    /// ([`atomir_ir::lower::Facts::part`]), with those registers, lane 0 in the low bits of the
    /// first: the entry stores such a result as the words, as llc stores it (a v8.u8 xor's
    /// result on sm_90: one `STG.E.64` where storing the lanes takes 13 more instructions to
    /// repack them).
    result_words: HashMap<Value, SmallVec<[Temp; 4]>>,
    /// The lanes of the entry's 16-bit parameters, which it also reads zero-extended into
    /// 32-bit registers, as llc reads them, where the body reads those: the zero extension of
    /// such a lane is its register, and a word stored from two of them is packed from those.
    /// ptxas then loads them as the words it combines, where it keeps a 16-bit load and a
    /// `cvt` apart (an and of v4.u16, release, on `.shared::cluster`, sm_90: 30 SASS
    /// instructions, llc's count, where it was 31). An 8-bit parameter read so is one
    /// instruction longer (a 32-bit load and a mask).
    wide_params: Vec<WideParam>,
    /// Per variable of the current expansion: for an operand bound from a lane of
    /// `wide_params`, that lane's index there.
    wide_copies: Vec<Option<usize>>,
}

/// A lane of an entry's 16-bit parameter, which it reads zero-extended into a 32-bit register
/// where the body reads that ([`EntryIo::wide_params`]).
pub(super) struct WideParam {
    value: Value,
    lane: usize,
    /// Where the lane is: the parameter's index, the register holding the value's address
    /// where an [`EntryHook`] gives one, and the lane's offset.
    param: usize,
    slot: Option<Temp>,
    offset: usize,
    /// The register, made when the body first reads it.
    register: Option<Temp>,
}

impl<'k> KernelEmitter<'k> {
    /// Forgets the wide operands of the previous expansion: `vars` variables now.
    pub(super) fn entry_expansion_begin(&mut self, vars: usize) {
        if let Some(entry) = &mut self.entry {
            entry.wide_copies.clear();
            entry.wide_copies.resize(vars, None);
        }
    }

    /// The index in [`EntryIo::wide_params`] of `src`, where it is a lane of a 16-bit
    /// parameter the entry can read zero-extended.
    pub(super) fn entry_wide_index(&self, src: Src) -> Option<usize> {
        let Src::Value(value, lane) = src else {
            return None;
        };
        let lane = lane.unwrap_or(0);
        self.entry
            .as_ref()?
            .wide_params
            .iter()
            .position(|wide| wide.value == value && wide.lane == lane)
    }

    /// The 32-bit register of [`EntryIo::wide_params`]`[index]`, which the entry then loads.
    pub(super) fn entry_wide_register(&mut self, index: usize) -> Option<Temp> {
        if let Some(register) = self.entry.as_ref()?.wide_params[index].register {
            return Some(register);
        }
        let register = self.temp(Class::B32);
        self.entry.as_mut()?.wide_params[index].register = Some(register);
        Some(register)
    }

    /// Notes that the expansion's input `var` is bound from `src`, which may be a lane of a
    /// 16-bit parameter the entry can read zero-extended.
    pub(super) fn entry_binds(&mut self, var: Var, src: Src) {
        let index = self.entry_wide_index(src);
        if let Some(entry) = &mut self.entry {
            entry.wide_copies[var.as_u32() as usize] = index;
        }
    }

    /// The 32-bit register holding the zero extension of `var`, where `var` is bound from a
    /// lane of a 16-bit parameter the entry reads so; the entry then loads it.
    pub(super) fn entry_wide_read(&mut self, var: Var) -> Option<Temp> {
        let index = self.entry.as_ref()?.wide_copies[var.as_u32() as usize]?;
        self.entry_wide_register(index)
    }

    /// Where `result` is stored by the entry, and a load that is not skipped left its lanes in
    /// `words`, two to a word: the entry stores the words.
    pub(super) fn entry_result_words(&mut self, result: Value, words: SmallVec<[Temp; 4]>) {
        if let Some(entry) = &mut self.entry {
            entry.result_words.insert(result, words);
        }
    }

    /// Records the words `result` is made of where its 8/16-bit lanes fill words and each is
    /// the part of a word at its place, known in `block`, the last block printed
    /// ([`atomir_ir::lower::Facts::part`]). The parts hold to the end of the kernel where that
    /// block returns (no edge copy follows them). A predicated instruction is left out: where
    /// it is skipped, its result is zero and the words never written.
    pub(super) fn entry_result(
        &mut self,
        result: Value,
        inst: &AtomicInst,
        expansion: &Expansion,
        facts: &Facts,
    ) {
        if self.entry.is_none() || inst.predicate.is_some() {
            return;
        }
        let last_returns = expansion
            .blocks
            .values()
            .last()
            .is_some_and(|block| matches!(block.terminator, Terminator::Return));
        let bits = inst.ty.bits();
        let lanes = expansion.results.len();
        if !last_returns || !matches!(bits, 8 | 16) || !(lanes * bits as usize).is_multiple_of(32) {
            return;
        }
        let part = |var: &Var| facts.part(*var, self.block);
        let words = expansion
            .results
            .chunks((32 / bits) as usize)
            .map(|parts| {
                let (word, 0) = part(&parts[0])? else {
                    return None;
                };
                let whole = (0u32..)
                    .zip(parts)
                    .all(|(k, lane)| part(lane) == Some((word, k * bits)));
                whole.then(|| self.vars[word.as_u32() as usize])
            })
            .collect::<Option<SmallVec<[Temp; 4]>>>();
        if let Some(words) = words {
            self.entry_result_words(result, words);
        }
    }
}

/// The `.entry` signature (into `out`) and the loads of its parameters (into `body`), from
/// where `hook` says if there is one; a `ptr.generic` parameter points into `generic_space`.
/// Returns the used results.
pub(super) fn entry_begin(
    emitter: &mut KernelEmitter<'_>,
    name: &str,
    (mut hook, generic_space): (Option<&mut dyn EntryHook>, AddressSpace),
    body: &mut String,
    out: &mut String,
) -> Vec<Value> {
    let kernel = emitter.kernel;
    let results = write_signature(kernel, name, hook.as_deref(), out);

    // Prologue: parameters into value registers.
    if let Some(hook) = hook.as_deref_mut() {
        hook.prologue(&mut EntryRegisters { emitter }, body);
    }
    for (index, p) in kernel.params.iter().enumerate() {
        let (class, lanes) = value_class(p.ty);
        let elem_bits = match p.ty {
            ValueType::Data(elem, _) => elem.bits(),
            ValueType::Ptr(_) => 64,
            ValueType::Pred => 32,
        };
        let stride = (elem_bits.max(8) / 8) as usize * lanes;
        // The address the value is read from: the parameter itself, or where the hook says.
        let slot = hook.as_deref_mut().and_then(|hook| {
            let mut param = String::new();
            spell!(&mut param, ParamBase::Param(name, index));
            let registers = &mut EntryRegisters {
                emitter: &mut *emitter,
            };
            hook.param_address(registers, &param, stride, body)
                .map(|EntryRegister(slot)| slot)
        });
        let base = ParamBase::of(name, index, slot);
        let space = base.space();
        for lane in 0..lanes {
            let offset = lane * (elem_bits.max(8) / 8) as usize;
            let lane_index = (lanes > 1).then_some(lane);
            match class {
                Class::Pred => {
                    let raw = emitter.temp(Class::B32);
                    let raw = EntryRegister(raw);
                    spell!(body, "\tld.", space, ".u32 ", raw, ", [", base, "];\n");
                    body.push_str("\tsetp.ne.u32 ");
                    write_value(body, &emitter.names, p.value, None);
                    spell!(body, ", ", raw, ", 0;\n");
                }
                // Never read where the target has no `.b128` registers: nothing there can read
                // a 128-bit value (see `legal::param`).
                Class::B128 if !emitter.target.has(Feature::B128Register) => {}
                Class::B128 => {
                    let (low, high) = (emitter.temp(Class::B64), emitter.temp(Class::B64));
                    let (low, high) = (EntryRegister(low), EntryRegister(high));
                    spell!(body, "\tld.", space, ".v2.b64 {", low, ", ", high, "}, [");
                    spell!(body, base, '+', offset, "];\n\tmov.b128 ");
                    write_value(body, &emitter.names, p.value, lane_index);
                    spell!(body, ", {", low, ", ", high, "};\n");
                }
                _ => {
                    spell!(body, "\tld.", space, '.', memory_type(elem_bits), ' ');
                    write_value(body, &emitter.names, p.value, lane_index);
                    spell!(body, ", [", base, '+', offset, "];\n");
                    if let (16, Some(entry)) = (elem_bits, &mut emitter.entry) {
                        entry.wide_params.push(WideParam {
                            value: p.value,
                            lane,
                            param: index,
                            slot,
                            offset,
                            register: None,
                        });
                    }
                }
            }
        }
        let points_to_global = match p.ty {
            ValueType::Ptr(AddressSpace::Global) => true,
            ValueType::Ptr(AddressSpace::Generic) => generic_space == AddressSpace::Global,
            _ => false,
        };
        if points_to_global {
            body.push_str("\tcvta.to.global.u64 ");
            write_value(body, &emitter.names, p.value, None);
            body.push_str(", ");
            write_value(body, &emitter.names, p.value, None);
            body.push_str(";\n");
        }
    }
    results
}

/// Where an entry reads a parameter's value: the parameter itself (`<kernel>_param_<index>`),
/// or the global address the entry's hook gave for it, in a register.
#[derive(Clone, Copy, Debug)]
enum ParamBase<'n> {
    Param(&'n str, usize),
    Global(EntryRegister),
}

impl<'n> ParamBase<'n> {
    fn of(kernel: &'n str, index: usize, slot: Option<Temp>) -> Self {
        match slot {
            Some(slot) => ParamBase::Global(EntryRegister(slot)),
            None => ParamBase::Param(kernel, index),
        }
    }

    /// The state space the value is read from.
    fn space(self) -> &'static str {
        match self {
            ParamBase::Param(..) => "param",
            ParamBase::Global(_) => "global",
        }
    }
}

impl Spell for ParamBase<'_> {
    fn spell(&self, out: &mut String) {
        match *self {
            ParamBase::Param(kernel, index) => spell!(out, kernel, "_param_", index),
            ParamBase::Global(register) => register.spell(out),
        }
    }
}

/// The widest store PTX has before sm_100's 256-bit forms.
const MAX_VECTOR_STORE_BYTES: usize = 16;

/// The stores of the used results (into `body`), where `hook` says if there is one, the
/// declarations (into `out`), then the body.
pub(super) fn entry_end(
    state: &mut KernelState<'_>,
    mut hook: Option<&mut dyn EntryHook>,
    body: &mut String,
    out: &mut String,
) {
    let emitter = &mut state.emitter;
    let kernel = emitter.kernel;
    let name = &state.name;
    let results = &state.results;
    for (index, result) in results.iter().enumerate() {
        let ty = kernel.value_type(*result);
        let (class, lanes) = value_class(ty);
        let ValueType::Data(elem, _) = ty else {
            continue;
        };
        let bytes = elem.bytes().max(1) as usize;
        let slot = emitter.temp(Class::B64);
        let address = EntryRegister(slot);
        spell!(
            body,
            "\tld.param.u64 ",
            address,
            ", [",
            name,
            "_out_",
            index,
            "];\n"
        );
        spell!(body, "\tcvta.to.global.u64 ", address, ", ", address, ";\n");
        if let Some(hook) = hook.as_deref_mut() {
            hook.result_address(address, bytes * lanes, body);
        }
        if class == Class::B128 {
            store_b128(emitter, body, slot, (*result, lanes));
            continue;
        }
        let words = emitter
            .entry
            .as_ref()
            .and_then(|entry| entry.result_words.get(result));
        if let Some(words) = words {
            for (n, four) in words.chunks(4).enumerate() {
                let vector = match four.len() {
                    1 => "",
                    2 => ".v2",
                    _ => ".v4",
                };
                spell!(
                    body,
                    "\tst.global",
                    vector,
                    ".b32 [",
                    address,
                    '+',
                    n * 16,
                    "], "
                );
                if four.len() > 1 {
                    body.push('{');
                }
                for (k, word) in four.iter().enumerate() {
                    if k > 0 {
                        body.push_str(", ");
                    }
                    emitter.put_temp(body, *word);
                }
                if four.len() > 1 {
                    body.push('}');
                }
                body.push_str(";\n");
            }
            continue;
        }
        // More than four 16-bit lanes are stored as packed 32-bit words, four to a store, as
        // llc stores them: a v8 result is then one STG on sm_90, not two.
        if elem.bits() == 16 && lanes > 4 && lanes % 2 == 0 {
            let mut words = Vec::with_capacity(lanes / 2);
            for pair in 0..lanes / 2 {
                let word = emitter.temp(Class::B32);
                body.push_str("\tmov.b32 ");
                emitter.put_temp(body, word);
                body.push_str(", {");
                write_value(body, &emitter.names, *result, Some(2 * pair));
                body.push_str(", ");
                write_value(body, &emitter.names, *result, Some(2 * pair + 1));
                body.push_str("};\n");
                words.push(word);
            }
            for (n, four) in words.chunks(4).enumerate() {
                spell!(body, "\tst.global.v4.b32 [", address, '+', n * 16, "], {");
                for (k, word) in four.iter().enumerate() {
                    if k > 0 {
                        body.push_str(", ");
                    }
                    emitter.put_temp(body, *word);
                }
                body.push_str("};\n");
            }
            continue;
        }
        // One vector store per 16 bytes (at most four lanes, PTX's widest vector before
        // sm_100): the result slot has the natural alignment of the whole vector, which is
        // also what the LLVM backend's `store <N x T>` of the same result assumes.
        let per_store = lanes.min(MAX_VECTOR_STORE_BYTES / bytes).clamp(1, 4);
        for first in (0..lanes).step_by(per_store) {
            let count = per_store.min(lanes - first);
            let vector = match count {
                1 => "",
                2 => ".v2",
                _ => ".v4",
            };
            let ty = memory_type(elem.bits());
            spell!(
                body,
                "\tst.global",
                vector,
                '.',
                ty,
                " [",
                address,
                '+',
                first * bytes,
                "], "
            );
            if count > 1 {
                body.push('{');
            }
            for lane in first..first + count {
                if lane > first {
                    body.push_str(", ");
                }
                write_value(body, &emitter.names, *result, (lanes > 1).then_some(lane));
            }
            if count > 1 {
                body.push('}');
            }
            body.push_str(";\n");
        }
    }
    declare_and_close(state, body, out);
}

/// The declarations of the kernel's registers (into `out`), the entry's zero-extended reads
/// of its 16-bit parameters (into `body`, after its other reads), then the body and `ret`.
fn declare_and_close(state: &mut KernelState<'_>, body: &mut String, out: &mut String) {
    let emitter = &mut state.emitter;
    let kernel = emitter.kernel;
    let name = &state.name;
    // Declarations, then the body.
    for (value, data) in kernel.values.iter() {
        let (class, lanes) = value_class(data.ty);
        if class == Class::B128 && !emitter.target.has(Feature::B128Register) {
            continue;
        }
        for lane in 0..lanes {
            spell!(out, "\t.reg ", class.decl(), ' ');
            write_value(out, &emitter.names, value, (lanes > 1).then_some(lane));
            out.push_str(";\n");
        }
    }
    emitter.declare_temps(out);
    // The zero-extended reads the body reads, after the entry's other reads.
    let mut loads = String::new();
    let wide_params = emitter.entry.iter().flat_map(|entry| &entry.wide_params);
    for wide in wide_params {
        if let Some(register) = wide.register {
            let base = ParamBase::of(name, wide.param, wide.slot);
            let register = EntryRegister(register);
            spell!(
                &mut loads,
                "\tld.",
                base.space(),
                ".u16 ",
                register,
                ", [",
                base,
                '+'
            );
            spell!(&mut loads, wide.offset, "];\n");
        }
    }
    if !loads.is_empty() {
        body.insert_str(state.prologue_end, &loads);
    }
    append_buffer(out, body);
    out.push_str("\tret;\n}\n");
}

/// The `.entry`'s signature, each parameter declared as `hook` says if there is one, and the
/// opening of its body (into `out`); returns the used results, which the entry stores through
/// trailing pointers.
fn write_signature(
    kernel: &Kernel,
    name: &str,
    hook: Option<&dyn EntryHook>,
    out: &mut String,
) -> Vec<Value> {
    spell!(out, ".visible .entry ", name, '(');
    let mut first = true;
    let mut param = |out: &mut String, decl: &str, index: usize, suffix: &str| {
        out.push_str(if first { "\n\t" } else { ",\n\t" });
        first = false;
        spell!(out, ".param ", decl, ' ', name, '_', suffix, index);
    };
    let results: Vec<Value> = kernel
        .values
        .iter()
        .filter(|(_, data)| matches!(data.def, ValueDef::Result(_)))
        .map(|(value, _)| value)
        .collect();
    for (index, p) in kernel.params.iter().enumerate() {
        match hook.and_then(|hook| hook.declare_param(index, p.ty)) {
            Some(decl) => param(out, decl, index, "param_"),
            None => match p.ty {
                ValueType::Ptr(_) => param(out, ".u64", index, "param_"),
                ValueType::Pred => param(out, ".u32", index, "param_"),
                ValueType::Data(elem, shape) if shape.is_vector() || elem.bits() == 128 => {
                    let bytes = elem.bytes() as usize * shape.len();
                    param(out, ".align 16 .b8", index, "param_");
                    spell!(out, '[', bytes, ']');
                }
                ValueType::Data(elem, _) => {
                    let decl = match elem.bits() {
                        8 => ".u8",
                        16 => ".b16",
                        32 => ".b32",
                        _ => ".b64",
                    };
                    param(out, decl, index, "param_");
                }
            },
        }
    }
    // Every used result is stored through a trailing pointer, so that it is observable.
    for index in 0..results.len() {
        param(out, ".u64", index, "out_");
    }
    out.push_str("\n)\n{\n");
    results
}

/// The stores of a 128-bit result's lanes to `slot`, each as the two 64-bit halves of its
/// register.
fn store_b128(
    emitter: &mut KernelEmitter<'_>,
    body: &mut String,
    slot: Temp,
    (result, lanes): (Value, usize),
) {
    let bytes = 16;
    for lane in 0..lanes {
        let (low, high) = (emitter.temp(Class::B64), emitter.temp(Class::B64));
        let (low, high) = (EntryRegister(low), EntryRegister(high));
        spell!(body, "\tmov.b128 {", low, ", ", high, "}, ");
        write_value(body, &emitter.names, result, (lanes > 1).then_some(lane));
        body.push_str(";\n");
        spell!(
            body,
            "\tst.global.v2.b64 [",
            EntryRegister(slot),
            '+',
            lane * bytes
        );
        spell!(body, "], {", low, ", ", high, "};\n");
    }
}
