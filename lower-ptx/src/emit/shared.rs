//! Code shared by the instructions of one expansion: a warp-combined form (its vote, scan,
//! fold and CAS loop take 100 to 250 PTX instructions) is printed once per lowering as a
//! `.func`, and every instruction of that form calls it.
//!
//! Why: a kernel that repeats such an atomic held the whole form at each instruction, so the
//! text, and the time to print it, grew with the form's length (an exact f32 add on `sm_90`:
//! 127 instructions per add, one in eight atomics of a mix printing 40 times the text of the
//! rest). A call is a dozen lines. ptxas keeps the call (`CALL.REL.NOINC`), and the GPU time
//! of a serially folded f32 add called so was that of the form printed in place at 1, 32,
//! 4096 and 2^20 addresses (`bench/RESULTS.md`, "Shared warp-combined forms").
//!
//! What is shared: the expansion of one plan (one distinct node, [`Expanding::expansion_key`])
//! depends on nothing but its node, so its function is the same for every instruction of it;
//! what belongs to an instruction (its registers, a constant operand, its predicate, the
//! conversion of a shared-window pointer to a generic address) stays at the call. The function
//! takes the address and each operand as `.param`s and returns each old value the node's
//! result uses. Not shared: a spliced fragment (no module to hold a function) and a lowering
//! that counts each instruction's code ([`atomir_ir::LowerOptions::count_instructions`]),
//! which counts the form where the instruction stands.

use std::collections::HashMap;

use atomir_ir::expand::{Expansion, PrimType};
use atomir_ir::legal::WarpCombine;
use atomir_ir::lower::{Expanding, Label, Plan, Unprintable};
use atomir_ir::{spell, AtomicInst, Inst, Kernel};

use super::{write_value, Class, KernelEmitter};
use crate::legal::PtxPlan;
use crate::target::PtxTarget;

/// The shared functions of one lowering.
pub(super) struct SharedBodies<'m> {
    /// Whether forms are shared at all in this lowering.
    enabled: bool,
    /// By expansion key: the function's index in `names`.
    by_key: Vec<Option<u32>>,
    /// Each function's name.
    names: Vec<String>,
    /// Definitions printed since the printer last wrote them out.
    pending: String,
    /// Each function's definition without its name (its signature up to the name, and the
    /// rest), to print a function the same as an earlier one once.
    definitions: HashMap<(String, String), u32>,
    /// The function being printed, from the first instruction of its expansion.
    recording: Option<Recording<'m>>,
    /// Whether the current expansion was carried out by a call in `expansion_begin`.
    called: bool,
}

/// A function being printed: its own registers and labels, and its body so far.
pub(super) struct Recording<'m> {
    pub(super) emitter: KernelEmitter<'m>,
    pub(super) body: String,
    function: u32,
}

/// How the printer carries out an expansion.
pub(super) enum Sharing {
    /// Where the instruction stands.
    InPlace,
    /// By a call of a function printed for an earlier instruction.
    Call(u32),
    /// By a call of a function printed now, from this instruction's steps.
    Record,
}

impl<'m> SharedBodies<'m> {
    pub(super) fn new(enabled: bool) -> Self {
        SharedBodies {
            enabled,
            by_key: Vec::new(),
            names: Vec::new(),
            pending: String::new(),
            definitions: HashMap::new(),
            recording: None,
            called: false,
        }
    }

    /// How `x` is carried out: warp-combined scalar forms of a kept expansion are shared.
    pub(super) fn sharing(&self, x: &Expanding<'_, PtxPlan>) -> Sharing {
        let Some(key) = x.expansion_key.filter(|_| self.enabled) else {
            return Sharing::InPlace;
        };
        let lowering = x.plan.legality().lowering;
        if lowering.warp() == WarpCombine::PerLane || x.atomic.shape.is_vector() {
            return Sharing::InPlace;
        }
        match self.by_key.get(key).copied().flatten() {
            Some(function) => Sharing::Call(function),
            None => Sharing::Record,
        }
    }

    /// Starts the function of `x`'s expansion, named after its lowering and distinct from
    /// every entry of the module (`entries`).
    pub(super) fn record(
        &mut self,
        target: PtxTarget,
        kernel: &'m Kernel,
        x: &Expanding<'_, PtxPlan>,
        entries: &[impl AsRef<str>],
    ) -> Result<(), Unprintable> {
        let key = x.expansion_key.unwrap_or_default();
        let lowering = x.plan.legality().lowering.name();
        let mut number = self.names.len();
        let name = loop {
            let name = format!("__atomir_{lowering}_{number}");
            let taken =
                entries.iter().any(|entry| entry.as_ref() == name) || self.names.contains(&name);
            if !taken {
                break name;
            }
            number += 1;
        };
        let function = self.names.len() as u32;
        self.names.push(name);
        if self.by_key.len() <= key {
            self.by_key.resize(key + 1, None);
        }
        self.by_key[key] = Some(function);
        let mut emitter = KernelEmitter::shared(target, kernel);
        let mut body = String::new();
        emitter.shared_begin(&mut body, x.atomic, x.plan, x.expansion)?;
        self.recording = Some(Recording {
            emitter,
            body,
            function,
        });
        Ok(())
    }

    /// Whether a function is being printed.
    pub(super) fn is_recording(&self) -> bool {
        self.recording.is_some()
    }

    /// The function being printed, if one is.
    pub(super) fn recording(&mut self) -> Option<&mut Recording<'m>> {
        self.recording.as_mut()
    }

    /// Ends the function being printed: its signature, registers and body into the pending
    /// definitions. Returns its index.
    pub(super) fn finish(&mut self, x: &Expanding<'_, PtxPlan>) -> Result<u32, Unprintable> {
        let Recording {
            mut emitter,
            mut body,
            function,
        } = self
            .recording
            .take()
            .ok_or_else(|| Unprintable("the end of a shared function never begun".into()))?;
        emitter.shared_end(&mut body, x.atomic, x.expansion);
        // The definition without its name: two plans whose nodes differ only where the form
        // does not look (a constant operand's value, say) print the same function.
        let mut signature = String::from(".func ");
        let params = Params::of(x.atomic, x.expansion);
        let bits = params.bits;
        if params.results > 0 {
            let out = &mut signature;
            out.push('(');
            for lane in 0..params.results {
                let comma = if lane > 0 { ", " } else { "" };
                spell!(out, comma, ".param .b", bits, " _old", lane);
            }
            out.push_str(") ");
        }
        let mut parameters = String::new();
        let out = &mut parameters;
        out.push_str("(.param .b64 _addr");
        for (input, lane) in params.inputs() {
            spell!(out, ", .param .b", bits, ' ', input.name(), lane);
        }
        out.push_str(")\n{\n");
        emitter.declare_temps(out);
        out.push_str(&body);
        out.push_str("}\n\n");
        let key = x.expansion_key.unwrap_or_default();
        let definition = (signature, parameters);
        if let Some(&same) = self.definitions.get(&definition) {
            self.names.pop();
            self.by_key[key] = Some(same);
            return Ok(same);
        }
        let name = &self.names[function as usize];
        spell!(&mut self.pending, definition.0, name, definition.1);
        self.definitions.insert(definition, function);
        Ok(function)
    }

    /// Marks the current expansion as carried out by a call (or not).
    pub(super) fn set_called(&mut self, called: bool) {
        self.called = called;
    }

    /// Whether the current expansion was carried out by a call and the driver has not yet
    /// asked [`SharedBodies::take_called`].
    pub(super) fn is_called(&self) -> bool {
        self.called
    }

    /// Whether the current expansion was carried out by a call in `expansion_begin`; asked
    /// once per expansion.
    pub(super) fn take_called(&mut self) -> bool {
        std::mem::take(&mut self.called)
    }

    /// The name of function `function`.
    pub(super) fn name(&self, function: u32) -> &str {
        &self.names[function as usize]
    }

    /// Moves the definitions printed since the last call into `out` at byte `at` (the end of
    /// a listing, the head of a module's entry).
    pub(super) fn insert_pending(&mut self, out: &mut String, at: usize) {
        if !self.pending.is_empty() {
            out.insert_str(at, &self.pending);
            self.pending.clear();
        }
    }
}

/// The `.param`s of a shared function: the address (`_addr`), each operand lane (`_op<i>`) and
/// new value lane (`_new<i>`) in that order, and the old values it returns (`_old<i>`). The one
/// place their names and order come from, so that a definition and its calls agree.
#[derive(Clone, Copy)]
struct Params {
    /// The bits of each value's `.param` (8-bit data travels in 16 bits, as it lives in 16-bit
    /// registers).
    bits: u32,
    operands: usize,
    new_values: usize,
    /// The old values returned: none where the node's result is unused.
    results: usize,
}

/// An input of a shared function after its address.
#[derive(Clone, Copy)]
enum Input {
    Operand,
    NewValue,
}

impl Input {
    const fn name(self) -> &'static str {
        match self {
            Input::Operand => "_op",
            Input::NewValue => "_new",
        }
    }
}

impl Params {
    fn of(inst: &AtomicInst, expansion: &Expansion) -> Self {
        Params {
            bits: Class::of_bits(PrimType::natural(inst.ty).bits()).bits(),
            operands: expansion.operands.len(),
            new_values: expansion.new_values.len(),
            results: match inst.result {
                Some(_) => expansion.results.len(),
                None => 0,
            },
        }
    }

    /// The inputs after the address, each with its lane, in the order of the signature.
    fn inputs(self) -> impl Iterator<Item = (Input, usize)> {
        let operands = (0..self.operands).map(|lane| (Input::Operand, lane));
        operands.chain((0..self.new_values).map(|lane| (Input::NewValue, lane)))
    }
}

impl<'k> KernelEmitter<'k> {
    /// A shared function's body begins: a register per variable, the address and operands
    /// loaded from the function's parameters.
    fn shared_begin(
        &mut self,
        out: &mut String,
        inst: &AtomicInst,
        plan: &PtxPlan,
        expansion: &Expansion,
    ) -> Result<(), Unprintable> {
        self.expansion_registers(inst, plan, expansion)?;
        self.rmw_policy = self.policy(out, inst, self.rmw.hint());
        let params = Params::of(inst, expansion);
        out.push_str("\tld.param.b64 ");
        self.put(out, self.var(expansion.addr));
        out.push_str(", [_addr];\n");
        let vars = expansion.operands.iter().chain(&expansion.new_values);
        for (var, (input, lane)) in vars.zip(params.inputs()) {
            spell!(out, "\tld.param.b", params.bits, ' ');
            self.put(out, self.var(*var));
            spell!(out, ", [", input.name(), lane, "];\n");
        }
        Ok(())
    }

    /// A shared function's body ends: each old value the result uses into its parameter.
    fn shared_end(&mut self, out: &mut String, inst: &AtomicInst, expansion: &Expansion) {
        if expansion.blocks.len() > 1 {
            self.label(out, Inst::from_u32(0), Label::Done);
            out.push_str(":\n");
        }
        let params = Params::of(inst, expansion);
        for (lane, old) in expansion.results.iter().take(params.results).enumerate() {
            spell!(out, "\tst.param.b", params.bits, " [_old", lane, "], ");
            self.put(out, self.var(*old));
            out.push_str(";\n");
        }
        out.push_str("\tret;\n");
    }

    /// An instruction carried out by shared function `name`: its operands stored to the
    /// call's parameters, the call, and the old values loaded into its result's registers.
    pub(super) fn call_shared(
        &mut self,
        out: &mut String,
        id: Inst,
        inst: &AtomicInst,
        expansion: &Expansion,
        name: &str,
    ) {
        self.zero_skipped_result(out, inst);
        self.guard_begin(out, inst, id);
        let params = Params::of(inst, expansion);
        let bits = params.bits;
        out.push_str("\t{\n\t.param .b64 _addr;\n");
        for (input, lane) in params.inputs() {
            spell!(out, "\t.param .b", bits, ' ', input.name(), lane, ";\n");
        }
        for lane in 0..params.results {
            spell!(out, "\t.param .b", bits, " _old", lane, ";\n");
        }
        let addr = self.address(out, inst);
        out.push_str("\tst.param.b64 [_addr], ");
        self.put(out, addr);
        out.push_str(";\n");
        for (input, lane) in params.inputs() {
            let operand = match input {
                Input::Operand => inst.operand,
                Input::NewValue => inst.new_value,
            };
            let Some(operand) = operand else {
                continue;
            };
            let src = self.operand(out, operand, lane, inst.ty, false);
            spell!(out, "\tst.param.b", bits, " [", input.name(), lane, "], ");
            self.put(out, src);
            out.push_str(";\n");
        }
        out.push_str("\tcall ");
        if params.results > 0 {
            out.push('(');
            for lane in 0..params.results {
                spell!(out, if lane > 0 { ", _old" } else { "_old" }, lane);
            }
            out.push_str("), ");
        }
        spell!(out, name, ", (_addr");
        for (input, lane) in params.inputs() {
            spell!(out, ", ", input.name(), lane);
        }
        out.push_str(");\n");
        if let Some(result) = inst.result {
            for lane in 0..params.results {
                let lane_index = inst.shape.is_vector().then_some(lane);
                spell!(out, "\tld.param.b", bits, ' ');
                write_value(out, &self.names, result, lane_index);
                spell!(out, ", [_old", lane, "];\n");
            }
        }
        out.push_str("\t}\n");
        self.guard_end(out, inst, id);
    }
}
