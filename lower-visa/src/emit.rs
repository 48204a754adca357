//! Printing vISA text.
//!
//! Execution model: the IR is per-thread (SIMT). A vISA kernel runs one hardware thread of `N`
//! channels (SIMD8 for SVM targets, SIMD16 for LSC targets, PVC included: GenX_IR accepts
//! SIMD32 there too, but SIMD16 keeps every 64-bit emulation op, done on dword halves, within
//! one 32-lane instruction). Each channel is one IR thread: every IR value is an `N`-element
//! variable (a vector value `k*N`, element `i` at row block `i`), every address an `N`-element
//! `uq` (global, `flat[..]:a64`) or `ud` (shared, `flat[..]:a32`) vector, every instruction
//! `(M1, N)`. Divergence (a CAS retry, a predicated expansion) is SIMD control flow: `goto`.
//!
//! Every node goes through [`atomir_ir::expand::expand`] (a native node as a one-element
//! native split), so the memory primitives ([`Printer::memory`], the one place natives are
//! spelled) and the ALU primitives ([`Printer::alu`]) are each printed in one place.
//!
//! Data layout: 8/16/32-bit data live in dwords (`ud`), zero-extended (16-bit atomics take
//! them unpacked, as `.16`/`d16c32` want); 64-bit data in `uq`. Typed views (`f`, `d`, `hf`,
//! `w`, `b`, dword halves of a qword, `q`, `df`) are `.decl … alias=<…>` of the same storage.
//! On platforms without 64-bit integer ALU, 64-bit data are only moved, compared for equality
//! and combined bitwise, on dword halves; the legality table refuses the rest there.

use cranelift_entity::EntityRef;
use std::collections::HashMap;
use std::fmt::Write;

use atomir_ir::expand::{
    BinaryOp, Block, CmpCond, Expansion, MemAttrs, Prim, PrimType, Terminator, UnaryOp, Var,
};
use atomir_ir::lower::{
    append_buffer, At, Expanding, Fence, FenceBracket, FenceSide, Label, NameRules, Namer, Params,
    Printer, Suffix, Unprintable,
};
use atomir_ir::{
    AddressSpace, AtomicOp, ElemType, Inst, Kernel, MemoryOrder, Module, Operand, Scalar, Scope,
    Value, ValueType,
};

use crate::legality::{input_layout, MsgOp, Surface, VisaPlan};
use crate::target::{Messages, VisaTarget};

/// Where a variable's bits live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Storage {
    Dword,
    Qword,
    Pred,
}

/// A typed view of a storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum View {
    /// The storage itself (`ud`, `uq` or the predicate).
    Base = 0,
    F,
    D,
    Hf,
    W,
    B,
    /// The dword halves of a qword.
    Halves,
    Q,
    Df,
}

impl View {
    const fn suffix(self) -> &'static str {
        match self {
            View::Base => "",
            View::F => "__f",
            View::D => "__d",
            View::Hf => "__hf",
            View::W => "__w",
            View::B => "__b",
            View::Halves => "__u",
            View::Q => "__q",
            View::Df => "__df",
        }
    }

    /// (vISA type, elements per channel).
    const fn decl(self, storage: Storage) -> (&'static str, u32) {
        match (self, storage) {
            (View::Base, Storage::Dword) => ("ud", 1),
            (View::Base, _) => ("uq", 1),
            (View::F, _) => ("f", 1),
            (View::D, _) => ("d", 1),
            (View::Hf, _) => ("hf", 2),
            (View::W, _) => ("w", 2),
            (View::B, _) => ("b", 4),
            (View::Halves, _) => ("ud", 2),
            (View::Q, _) => ("q", 1),
            (View::Df, _) => ("df", 1),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlotName {
    Value(Value),
    Elem(Value, u8),
    Temp(u32),
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    name: SlotName,
    storage: Storage,
    /// Channels × elements of the root declaration (roots only).
    elems: u32,
    /// The root slot and byte offset for an element of a vector value.
    root: Option<(usize, u32)>,
    views: u16,
}

/// The vISA printer of one lowering; keeps its buffers between kernels.
pub struct VisaPrinter<'m> {
    target: VisaTarget,
    /// Whether the output is a complete module (`.kernel`, inputs, `ret`) or a listing.
    complete: bool,
    /// The kernel being printed.
    kernel: Option<&'m Kernel>,
    n: u32,
    body: String,
    decls: String,
    slots: Vec<Slot>,
    value_slots: HashMap<(Value, u8), usize>,
    var_slots: Vec<usize>,
    temps: u32,
    /// The name of each value of the current kernel (after `v_`), by index.
    names: Vec<String>,
    /// The name of each kernel of the module, by index, and the current kernel's index.
    kernel_names: Vec<String>,
    kernel_index: usize,
    namer: Namer,
    /// Temps of earlier expansions, free to reuse: an expansion's temps die with it (its
    /// results are copied to the IR's values), and GenX_IR's PVC register allocator crashes on
    /// kernels with about a hundred distinct SIMD16 qword variables, however short-lived.
    free_temps: Vec<usize>,
    /// Temps of the current expansion, freed at its end.
    busy_temps: Vec<usize>,
    /// Per variable of the current expansion: whether anything reads it.
    used: Vec<bool>,
    /// The current node's predicate, and whether its expansion is one block.
    pred: Option<(usize, bool)>,
    single: bool,
    surface: Surface,
    /// Whether the expansion jumps to its end (which then needs a label).
    reached_done: bool,
}

/// Why printing failed (a legality/emitter disagreement, never user input).
pub type EmitError = String;

impl<'m> Printer<'m> for VisaPrinter<'m> {
    type Plan = VisaPlan;

    fn module_begin(&mut self, module: &'m Module, out: &mut String) {
        let kernels = module.kernels.iter().map(|kernel| kernel.name.as_str());
        Namer::new(&KERNEL_NAMES).assign(kernels, &mut self.kernel_names);
        if self.complete {
            out.push_str(".version 4.1\n");
        }
    }

    fn kernel_begin(&mut self, kernel: &'m Kernel, index: usize, _out: &mut String) {
        self.kernel = Some(kernel);
        self.kernel_index = index;
        self.body.clear();
        self.decls.clear();
        self.slots.clear();
        self.value_slots.clear();
        self.temps = 0;
        let values = kernel.values.values().map(|data| &data.name[..]);
        self.namer.assign(values, &mut self.names);
        self.free_temps.clear();
        self.busy_temps.clear();
        let n = self.n;
        // Parameters first, so that their inputs lie in order.
        for param in &kernel.params {
            self.value_slot(kernel, param.value, None);
        }
        if self.complete {
            // Predicates cannot be kernel inputs: they arrive as dwords.
            for param in &kernel.params {
                if param.ty == ValueType::Pred {
                    let slot = self.value_slot(kernel, param.value, None);
                    let _ = write!(self.body, "    cmp.ne (M1, {n}) ");
                    self.name(slot, View::Base);
                    self.body.push(' ');
                    write_value_name(&mut self.body, &self.names, param.value);
                    let _ = writeln!(self.body, "{PREDICATE_INPUT}(0,0)<1;1,0> 0x0:ud");
                }
            }
        }
    }

    fn whole(
        &mut self,
        _at: At<'_>,
        _plan: &VisaPlan,
        _bracket: FenceBracket,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        Err(Unprintable(
            "vISA prints every node through its expansion".into(),
        ))
    }

    fn fence(
        &mut self,
        _inst: Inst,
        fence: &atomir_ir::Fence,
        _plan: &VisaPlan,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        self.current()?;
        let bracket = crate::memory::standalone_bracket(fence);
        let mem = MemAttrs {
            order: fence.order,
            scope: fence.scope,
            space: AddressSpace::Global,
            hint: None,
        };
        let start = self.body.len();
        self.fence(bracket.leading, mem);
        let middle = self.body.len();
        self.fence(bracket.trailing, mem);
        // Where both halves spell the same fence, one does.
        if self.body[middle..] == self.body[start..middle] {
            self.body.truncate(middle);
        }
        Ok(())
    }

    const PARAMS: Params = Params::Copies;

    fn expansion_begin(
        &mut self,
        x: &Expanding<'_, VisaPlan>,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        let kernel = self.current()?;
        self.expansion_begin(kernel, x.inst, x.atomic, x.expansion)
            .map_err(Unprintable)
    }

    fn block(&mut self, x: &Expanding<'_, VisaPlan>, block: Block, entry: bool, _out: &mut String) {
        if !entry {
            self.label(x.inst, Label::Block(block));
            self.body.push_str(":\n");
        }
    }

    fn prim(
        &mut self,
        x: &Expanding<'_, VisaPlan>,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        self.current()?;
        self.step(x.plan, x.expansion, prim, bracket)
            .map_err(Unprintable)
    }

    fn copy(&mut self, _x: &Expanding<'_, VisaPlan>, dst: Var, src: Var, _out: &mut String) {
        let (to, from) = (self.var_slots[dst.index()], self.var_slots[src.index()]);
        if self.kernel.is_some() && to != from {
            self.copy(None, to, from);
        }
    }

    fn branch(
        &mut self,
        x: &Expanding<'_, VisaPlan>,
        cond: Var,
        negated: bool,
        to: Label,
        _out: &mut String,
    ) {
        if self.kernel.is_some() {
            self.goto(x.inst, Some((cond, negated)), to);
        }
    }

    fn jump(&mut self, x: &Expanding<'_, VisaPlan>, to: Label, _out: &mut String) {
        if self.kernel.is_some() {
            self.goto(x.inst, None, to);
        }
    }

    fn label(&mut self, x: &Expanding<'_, VisaPlan>, label: Label, _out: &mut String) {
        self.label(x.inst, label);
        self.body.push_str(":\n");
    }

    fn expansion_end(
        &mut self,
        x: &Expanding<'_, VisaPlan>,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        let kernel = self.current()?;
        self.expansion_end(kernel, x.inst, x.atomic, x.expansion);
        Ok(())
    }

    fn kernel_end(&mut self, out: &mut String) {
        let Some(kernel) = self.kernel.take() else {
            return;
        };
        let name = self.kernel_names.get(self.kernel_index);
        let name = name.cloned().unwrap_or_default();
        let complete = self.complete;
        if complete {
            let _ = writeln!(out, ".kernel \"{name}\"");
        } else {
            let _ = writeln!(out, "// kernel {}", kernel.name);
        }
        self.write_decls(kernel);
        out.push_str(&self.decls);
        if complete {
            let layout = input_layout(self.target, &kernel.params);
            for (param, (offset, size)) in kernel.params.iter().zip(layout) {
                out.push_str(".input ");
                write_value_name(out, &self.names, param.value);
                if param.ty == ValueType::Pred {
                    out.push_str(PREDICATE_INPUT);
                }
                let _ = writeln!(out, " offset={offset} size={size}");
            }
            let _ = writeln!(out, ".kernel_attr Target=\"cm\"");
            let _ = writeln!(out, ".function \"{name}_BB_0\"\n\n{name}_BB_0:");
        }
        append_buffer(out, &mut self.body);
        if complete {
            out.push_str("    ret (M1, 1)\n");
        }
    }

    fn module_end(&mut self, _out: &mut String) {}
}

impl<'m> VisaPrinter<'m> {
    fn current(&self) -> Result<&'m Kernel, Unprintable> {
        self.kernel
            .ok_or_else(|| Unprintable("an instruction outside a kernel".into()))
    }

    pub(crate) fn new(target: VisaTarget, complete: bool) -> Self {
        VisaPrinter {
            target,
            complete,
            kernel: None,
            n: target.simd(),
            body: String::new(),
            decls: String::new(),
            slots: Vec::new(),
            value_slots: HashMap::new(),
            var_slots: Vec::new(),
            temps: 0,
            names: Vec::new(),
            kernel_names: Vec::new(),
            kernel_index: 0,
            namer: Namer::new(&VALUE_NAMES),
            free_temps: Vec::new(),
            busy_temps: Vec::new(),
            used: Vec::new(),
            pred: None,
            single: true,
            surface: Surface::Global,
            reached_done: false,
        }
    }

    fn write_decls(&mut self, kernel: &Kernel) {
        let n = self.n;
        let decls = &mut self.decls;
        // The dwords a predicate parameter arrives as (predicates cannot be kernel inputs).
        if self.complete {
            for param in &kernel.params {
                if param.ty == ValueType::Pred {
                    decls.push_str(".decl ");
                    write_value_name(decls, &self.names, param.value);
                    decls.push_str(PREDICATE_INPUT);
                    let _ = writeln!(decls, " v_type=G type=ud num_elts={n} align=GRF");
                }
            }
        }
        // Roots, then aliases of them.
        for slot in &self.slots {
            if slot.root.is_some() {
                continue;
            }
            decls.push_str(".decl ");
            write_slot_name(decls, &self.names, slot.name);
            match slot.storage {
                Storage::Pred => {
                    let _ = writeln!(decls, " v_type=P num_elts={n}");
                }
                storage => {
                    let ty = if storage == Storage::Dword {
                        "ud"
                    } else {
                        "uq"
                    };
                    let _ = writeln!(
                        decls,
                        " v_type=G type={ty} num_elts={} align=GRF",
                        slot.elems
                    );
                }
            }
        }
        for slot in &self.slots {
            if slot.storage == Storage::Pred {
                continue;
            }
            let (root_name, offset, elems) = match slot.root {
                Some((root, offset)) => (self.slots[root].name, offset, n),
                None => (slot.name, 0, slot.elems),
            };
            for view in [
                View::Base,
                View::F,
                View::D,
                View::Hf,
                View::W,
                View::B,
                View::Halves,
                View::Q,
                View::Df,
            ] {
                if slot.views & (1 << view as u8) == 0
                    || (view == View::Base && slot.root.is_none())
                {
                    continue;
                }
                let (ty, per) = view.decl(slot.storage);
                decls.push_str(".decl ");
                write_slot_name(decls, &self.names, slot.name);
                decls.push_str(view.suffix());
                let _ = write!(
                    decls,
                    " v_type=G type={ty} num_elts={} alias=<",
                    elems * per
                );
                write_slot_name(decls, &self.names, root_name);
                let _ = writeln!(decls, ", {offset}>");
            }
        }
    }

    /// The slot of an IR value, or of element `elem` of a vector value.
    fn value_slot(&mut self, kernel: &Kernel, value: Value, elem: Option<u8>) -> usize {
        let key = (value, elem.unwrap_or(u8::MAX));
        if let Some(slot) = self.value_slots.get(&key) {
            return *slot;
        }
        let ty = kernel.value_type(value);
        let (storage, count) = value_storage(ty);
        let slot = match elem {
            // With 32-byte registers (a 4 KiB file), a lane of a vector that is not a parameter
            // is a variable of its own: only inputs must be contiguous (the payload), and a
            // 1 KiB v8.u64 result declared whole must find 1 KiB free at once (DG2 spilled where
            // its lanes fit one by one). PVC keeps vectors whole: its register file has room,
            // and its allocator crashes on many distinct qword variables.
            Some(i)
                if count > 1
                    && self.target.platform.grf_bytes() < 64
                    && !kernel.params.iter().any(|p| p.value == value) =>
            {
                self.slots.push(Slot {
                    name: SlotName::Elem(value, i),
                    storage,
                    elems: self.n,
                    root: None,
                    views: 0,
                });
                self.slots.len() - 1
            }
            Some(i) if count > 1 => {
                let root = self.value_slot(kernel, value, None);
                let stride = self.lane_bytes(storage);
                self.slots.push(Slot {
                    name: SlotName::Elem(value, i),
                    storage,
                    elems: self.n,
                    root: Some((root, u32::from(i) * stride)),
                    views: 1,
                });
                self.slots.len() - 1
            }
            Some(_) => self.value_slot(kernel, value, None),
            None => {
                let bytes = if storage == Storage::Qword { 8 } else { 4 };
                let elems = if count > 1 {
                    count * self.lane_bytes(storage) / bytes
                } else {
                    self.n
                };
                self.slots.push(Slot {
                    name: SlotName::Value(value),
                    storage,
                    elems,
                    root: None,
                    views: 0,
                });
                self.slots.len() - 1
            }
        };
        self.value_slots.insert(key, slot);
        slot
    }

    /// The bytes between two lanes of a vector value (`Raw operand should be GRF-aligned`
    /// otherwise on PVC+svm).
    fn lane_bytes(&self, storage: Storage) -> u32 {
        self.target
            .lane_bytes(if storage == Storage::Qword { 8 } else { 4 })
    }

    fn temp(&mut self, storage: Storage) -> usize {
        let slot = match self
            .free_temps
            .iter()
            .position(|&slot| self.slots[slot].storage == storage)
        {
            Some(index) => self.free_temps.swap_remove(index),
            None => {
                self.temps += 1;
                self.slots.push(Slot {
                    name: SlotName::Temp(self.temps),
                    storage,
                    elems: self.n,
                    root: None,
                    views: 0,
                });
                self.slots.len() - 1
            }
        };
        self.busy_temps.push(slot);
        slot
    }

    /// Writes a slot's (view's) name into the body.
    fn name(&mut self, slot: usize, view: View) {
        self.slots[slot].views |= 1 << view as u8;
        write_slot_name(&mut self.body, &self.names, self.slots[slot].name);
        self.body.push_str(view.suffix());
    }

    fn src(&mut self, slot: usize, view: View, col: u32, stride: u32) {
        self.name(slot, view);
        if self.slots[slot].storage == Storage::Pred {
            return;
        }
        let _ = write!(self.body, "(0,{col})<{stride};1,0>");
    }

    fn neg_src(&mut self, slot: usize, view: View, col: u32, stride: u32) {
        self.body.push_str("(-)");
        self.src(slot, view, col, stride);
    }

    fn dst(&mut self, slot: usize, view: View, col: u32, stride: u32) {
        self.name(slot, view);
        if self.slots[slot].storage == Storage::Pred {
            return;
        }
        let _ = write!(self.body, "(0,{col})<{stride}>");
    }

    /// `    [(P)] op (M1, N) `
    fn op_start(&mut self, pred: Option<(usize, bool)>, op: &str, exec: u32) {
        self.body.push_str("    ");
        if let Some((slot, negated)) = pred {
            self.body.push('(');
            if negated {
                self.body.push('!');
            }
            self.name(slot, View::Base);
            self.body.push_str(") ");
        }
        let _ = write!(self.body, "{op} (M1, {exec}) ");
    }

    /// Binds an expansion's inputs to the IR's variables; everything else is a temp.
    fn expansion_begin(
        &mut self,
        kernel: &Kernel,
        inst_id: Inst,
        inst: &atomir_ir::AtomicInst,
        expansion: &Expansion,
    ) -> Result<(), EmitError> {
        self.reached_done = false;
        let surface = match inst.space {
            AddressSpace::Shared => Surface::Slm,
            _ => Surface::Global,
        };
        // Bind the expansion's inputs to the IR's variables; everything else is a temp.
        self.var_slots.clear();
        self.var_slots.resize(expansion.vars.len(), usize::MAX);
        self.var_slots[expansion.addr.index()] = self.value_slot(kernel, inst.addr, None);
        let mut pending_consts: smallvec::SmallVec<[(usize, u128); 4]> = smallvec::SmallVec::new();
        for (inputs, operand) in [
            (&expansion.operands, inst.operand),
            (&expansion.new_values, inst.new_value),
        ] {
            let Some(operand) = operand else { continue };
            for (i, var) in inputs.iter().enumerate() {
                let slot = match operand_scalar(kernel, operand, i) {
                    Some(Scalar::Value(v)) => {
                        let elem = match kernel.value_type(v) {
                            ValueType::Data(_, shape) if shape.is_vector() => Some(i as u8),
                            _ => None,
                        };
                        self.value_slot(kernel, v, elem)
                    }
                    Some(Scalar::Const(c)) => {
                        // One register per distinct literal: inputs are never written.
                        let (bits, storage) =
                            (kernel.constants[c], storage_of(expansion.vars[*var]));
                        match pending_consts.iter().find(|&&(slot, value)| {
                            value == bits && self.slots[slot].storage == storage
                        }) {
                            Some(&(slot, _)) => slot,
                            None => {
                                let slot = self.temp(storage);
                                pending_consts.push((slot, bits));
                                slot
                            }
                        }
                    }
                    None => return Err(format!("operand {i} of {inst_id} has no element")),
                };
                self.var_slots[var.index()] = slot;
            }
        }
        if let Some(result) = inst.result {
            let vector = inst.shape.is_vector();
            for (i, var) in expansion.results.iter().enumerate() {
                let slot = self.value_slot(kernel, result, vector.then_some(i as u8));
                if self.var_slots[var.index()] == usize::MAX {
                    self.var_slots[var.index()] = slot;
                }
            }
        }
        self.allocate_temps(expansion, surface, inst.predicate.is_some());
        self.used = used_vars(expansion);

        // A predicated node: a one-block expansion predicates its memory ops; a loop is skipped
        // by SIMD control flow in the channels where the predicate fails.
        self.pred = inst
            .predicate
            .map(|p| (self.value_slot(kernel, p.value, None), p.negated));
        self.single = expansion.blocks.len() == 1;
        self.surface = surface;
        // The result of a predicated node is 0 where the predicate fails (the IR defines it
        // so). It is zeroed before the node: a one-block expansion writes it under the
        // predicate; a longer one is skipped in those channels and then copies its result
        // variables, which are zeroed too.
        if let (Some(_), Some(result)) = (self.pred, inst.result) {
            let vector = inst.shape.is_vector();
            for (i, var) in expansion.results.iter().enumerate() {
                let slot = self.value_slot(kernel, result, vector.then_some(i as u8));
                self.constant(slot, 0);
                let from = self.var_slots[var.index()];
                if !self.single && from != slot {
                    self.constant(from, 0);
                }
            }
        }
        if let (Some((slot, negated)), false) = (self.pred, self.single) {
            self.op_start(Some((slot, !negated)), "goto", self.n);
            let _ = writeln!(self.body, "L{}_skip", inst_id.index());
        }
        for (slot, bits) in pending_consts {
            self.constant(slot, bits);
        }
        Ok(())
    }

    /// Gives every variable not bound to an IR value a temp, two variables sharing one where
    /// their live ranges do not meet (linear scan over the layout order): a split's elements
    /// are independent loops, and GenX_IR spills (DG2), fails to re-encode (MTL) or crashes
    /// (PVC) when each keeps its own SIMD16 temporaries.
    fn allocate_temps(&mut self, expansion: &Expansion, surface: Surface, predicated: bool) {
        let mut ranges = live_ranges(expansion);
        let end = ranges.end;
        let mut order: Vec<Var> = expansion
            .vars
            .keys()
            .filter(|var| self.var_slots[var.index()] == usize::MAX)
            .collect();
        for &var in &expansion.results {
            let range = &mut ranges.of[var.index()];
            // A predicated loop's result temps are zeroed before it and copied after it.
            if predicated {
                range.0 = 0;
            }
            range.1 = end;
        }
        // A variable the layout never names (a copy cycle's saved register) lives throughout.
        for &var in &order {
            let range = &mut ranges.of[var.index()];
            if range.0 > range.1 {
                *range = (0, end);
            }
        }
        order.sort_by_key(|var| ranges.of[var.index()]);
        // (last position, slot) of the temps in use; slots whose range ended.
        let mut active: Vec<(u32, usize)> = Vec::new();
        let mut released: Vec<usize> = Vec::new();
        for var in order {
            let (start, last) = ranges.of[var.index()];
            active.retain(|&(until, slot)| {
                let live = until >= start;
                if !live {
                    released.push(slot);
                }
                live
            });
            // Shared addresses are 32-bit SLM offsets.
            let storage = match (expansion.vars[var], surface) {
                (PrimType::Ptr, Surface::Slm) => Storage::Dword,
                (ty, _) => storage_of(ty),
            };
            let slot = match released
                .iter()
                .position(|&slot| self.slots[slot].storage == storage)
            {
                Some(index) => released.swap_remove(index),
                None => self.temp(storage),
            };
            active.push((last, slot));
            self.var_slots[var.index()] = slot;
        }
    }

    /// The predicate of a memory message: the node's, in a one-block expansion.
    fn line_pred(&self) -> Option<(usize, bool)> {
        if self.single {
            self.pred
        } else {
            None
        }
    }

    fn step(
        &mut self,
        plan: &VisaPlan,
        expansion: &Expansion,
        prim: &Prim,
        bracket: Option<FenceBracket>,
    ) -> Result<(), EmitError> {
        // Scratch temps a primitive takes die with it.
        let scratch_from = self.busy_temps.len();
        let printed = match prim.mem() {
            Some(mem) => {
                let bracket = bracket.unwrap_or(FenceBracket::bare(mem.order));
                self.memory(expansion, plan, prim, mem, bracket)
            }
            None if prim.def().is_some_and(|d| !self.used[d.index()]) => Ok(()),
            None => self.alu(expansion, prim),
        };
        self.free_temps
            .extend(self.busy_temps.drain(scratch_from..));
        printed
    }

    fn label(&mut self, inst: Inst, label: Label) {
        let _ = match label {
            Label::Block(block) => write!(self.body, "L{}_{}", inst.index(), block.index()),
            Label::Edge(edge) => write!(self.body, "L{}_e{edge}", inst.index()),
            Label::Done => write!(self.body, "L{}_done", inst.index()),
        };
    }

    /// `[(P)] goto (M1, N) label`.
    fn goto(&mut self, inst: Inst, guard: Option<(Var, bool)>, to: Label) {
        let pred = guard.map(|(cond, negated)| (self.var_slots[cond.index()], negated));
        self.op_start(pred, "goto", self.n);
        self.label(inst, to);
        self.body.push('\n');
        self.reached_done |= to == Label::Done;
    }

    /// Moves the old values to the instruction's result.
    fn expansion_end(
        &mut self,
        kernel: &Kernel,
        inst_id: Inst,
        inst: &atomir_ir::AtomicInst,
        expansion: &Expansion,
    ) {
        if self.reached_done {
            self.label(inst_id, Label::Done);
            self.body.push_str(":\n");
        }
        if self.pred.is_some() && !self.single {
            let _ = writeln!(self.body, "L{}_skip:", inst_id.index());
        }
        // Results computed in temps move to the IR's result.
        if let Some(result) = inst.result {
            let vector = inst.shape.is_vector();
            let line_pred = self.line_pred();
            for (i, var) in expansion.results.iter().enumerate() {
                let slot = self.value_slot(kernel, result, vector.then_some(i as u8));
                let from = self.var_slots[var.index()];
                if from != slot {
                    self.copy(line_pred, slot, from);
                }
            }
        }
        self.free_temps.append(&mut self.busy_temps);
    }

    /// `to = from`, bit for bit.
    fn copy(&mut self, pred: Option<(usize, bool)>, to: usize, from: usize) {
        let n = self.n;
        match self.slots[to].storage {
            Storage::Qword => {
                self.op_start(pred, "mov", 2 * n);
                self.dst(to, View::Halves, 0, 1);
                self.body.push(' ');
                self.src(from, View::Halves, 0, 1);
            }
            _ => {
                self.op_start(pred, "mov", n);
                self.dst(to, View::Base, 0, 1);
                self.body.push(' ');
                self.src(from, View::Base, 0, 1);
            }
        }
        self.body.push('\n');
    }

    fn constant(&mut self, slot: usize, bits: u128) {
        let n = self.n;
        match self.slots[slot].storage {
            Storage::Qword => {
                for (col, half) in [(0, bits as u32), (1, (bits >> 32) as u32)] {
                    self.op_start(None, "mov", n);
                    self.dst(slot, View::Halves, col, 2);
                    let _ = writeln!(self.body, " 0x{half:x}:ud");
                }
            }
            _ => {
                self.op_start(None, "mov", n);
                self.dst(slot, View::Base, 0, 1);
                let _ = writeln!(self.body, " 0x{:x}:ud", bits as u32);
            }
        }
    }

    /// Spells a fence of the bracket around a message (messages carry no order themselves).
    fn fence(&mut self, fence: Option<Fence>, mem: MemAttrs) {
        let Some(fence) = fence else { return };
        let after = fence.side == FenceSide::Trailing;
        match self.target.messages {
            Messages::Lsc => {
                let op = match (mem.order, after) {
                    (MemoryOrder::Acquire, _) => "invalidate",
                    (MemoryOrder::Release, _) => "clean",
                    _ => "evict",
                };
                let scope = match mem.scope {
                    Scope::Block => "group",
                    Scope::Cluster | Scope::Device => "gpu",
                    Scope::System if after => "sysacq",
                    Scope::System => "sysrel",
                };
                // Orders the thread's global and shared accesses alike; SLM is only ever
                // visible to the work-group, so its fence is `.group` at any scope.
                let _ = writeln!(self.body, "    lsc_fence.ugm.{op}.{scope}");
                self.body.push_str("    lsc_fence.slm.none.group\n");
            }
            Messages::Svm => {
                // E = commit; R = flush the L3 read/write data (host visibility); L1 =
                // invalidate the L1 data cache so that later loads see other agents' writes.
                let flags = match (mem.scope, after) {
                    (Scope::Block, _) => "E",
                    (Scope::System, false) => "ER",
                    (Scope::System, true) => "ERL1",
                    (_, false) => "E",
                    (_, true) => "EL1",
                };
                let _ = writeln!(self.body, "    fence_global.{flags}");
                self.body.push_str("    fence_local.E\n");
            }
        }
    }

    /// The one place that prints native atomic messages.
    #[allow(clippy::too_many_arguments)]
    fn memory(
        &mut self,
        expansion: &Expansion,
        plan: &VisaPlan,
        prim: &Prim,
        mem: MemAttrs,
        bracket: FenceBracket,
    ) -> Result<(), EmitError> {
        let (surface, pred) = (self.surface, self.line_pred());
        let (dst, op, ty_bits, addr, src0, src1, view) = match *prim {
            Prim::Load { dst, addr, .. } => {
                let bits = expansion.vars[dst].bits();
                (Some(dst), MsgOp::Load, bits, addr, None, None, View::Base)
            }
            Prim::Cas {
                dst,
                addr,
                expected,
                new,
                ..
            } => {
                let bits = expansion.vars[dst].bits();
                (
                    Some(dst),
                    MsgOp::Cas,
                    bits,
                    addr,
                    Some(expected),
                    Some(new),
                    View::Base,
                )
            }
            Prim::Rmw {
                dst,
                op,
                ty,
                addr,
                value,
                ..
            } => {
                let message = plan
                    .message
                    .ok_or_else(|| format!("the plan names no message for {op}.{ty}"))?;
                let view = match (message, ty.bits()) {
                    (MsgOp::SMin | MsgOp::SMax, 64) => View::Q,
                    (MsgOp::SMin | MsgOp::SMax, _) => View::D,
                    (MsgOp::FAdd | MsgOp::FSub | MsgOp::FMin | MsgOp::FMax, 64) => View::Df,
                    (MsgOp::FAdd | MsgOp::FSub | MsgOp::FMin | MsgOp::FMax, 32) => View::F,
                    _ => View::Base,
                };
                let src = (!message.takes_no_source()).then_some(value);
                (dst, message, ty.bits(), addr, src, None, view)
            }
            _ => return Err("not a memory primitive".into()),
        };
        let bits = if ty_bits == 8 { 32 } else { ty_bits };
        let dst = dst.filter(|d| self.used[d.index()]);
        let dst_slot = dst.map(|d| self.var_slots[d.index()]);
        let addr_slot = self.var_slots[addr.index()];
        let n = self.n;
        self.fence(bracket.leading, mem);
        let (src0, src1) = match (op, self.target.messages, surface, bits) {
            // SVM has no atomic load: `or` with zero.
            (MsgOp::Load, Messages::Svm, _, _) => {
                let zero = self.temp(if bits == 64 {
                    Storage::Qword
                } else {
                    Storage::Dword
                });
                self.constant(zero, 0);
                (Some(zero), None)
            }
            // SLM has no 64-bit load: `icas` of zero with zero.
            (MsgOp::Load, Messages::Lsc, Surface::Slm, 64) => {
                let zero = self.temp(Storage::Qword);
                self.constant(zero, 0);
                (Some(zero), Some(zero))
            }
            _ => (
                src0.map(|v| self.var_slots[v.index()]),
                src1.map(|v| self.var_slots[v.index()]),
            ),
        };
        let op = if matches!(
            (op, self.target.messages, surface, bits),
            (MsgOp::Load, Messages::Lsc, Surface::Slm, 64)
        ) {
            MsgOp::Cas
        } else {
            op
        };
        self.body.push_str("    ");
        if let Some((slot, negated)) = pred {
            self.body.push_str(if negated { "(!" } else { "(" });
            self.name(slot, View::Base);
            self.body.push_str(") ");
        }
        match self.target.messages {
            Messages::Svm => {
                let width = match bits {
                    16 => ".16",
                    64 => ".64",
                    _ => "",
                };
                let _ = write!(self.body, "svm_atomic.{}{width} (M1, {n}) ", op.svm_name());
                self.name(addr_slot, View::Base);
                self.body.push_str(".0 ");
                self.raw_or_null(dst_slot, view, ".0");
                // Text order: NEW then EXPECTED for cmpxchg (the expansion's src0 is expected).
                let (first, second) = if op == MsgOp::Cas {
                    (src1, src0)
                } else {
                    (src0, src1)
                };
                self.body.push(' ');
                self.raw_or_null(first, view, ".0");
                self.body.push(' ');
                self.raw_or_null(second, view, ".0");
            }
            Messages::Lsc => {
                let sfid = if surface == Surface::Slm {
                    "slm"
                } else {
                    "ugm"
                };
                let _ = write!(self.body, "lsc_atomic_{}.{sfid} (M1, {n}) ", op.lsc_name());
                self.raw_or_null(dst_slot, view, "");
                let size = match bits {
                    16 => ":d16c32",
                    64 => ":d64",
                    _ => ":d32",
                };
                self.body.push_str(size);
                self.body.push_str(" flat[");
                self.name(addr_slot, View::Base);
                self.body.push_str(if surface == Surface::Slm {
                    "]:a32 "
                } else {
                    "]:a64 "
                });
                // Text order: EXPECTED then NEW for icas.
                self.raw_or_null(src0, view, "");
                self.body.push(' ');
                self.raw_or_null(src1, view, "");
            }
        }
        self.body.push('\n');
        // 16-bit write-backs are unpacked; keep the upper half zero.
        if let (Some(slot), 16) = (dst_slot, bits) {
            self.op_start(pred, "and", n);
            self.dst(slot, View::Base, 0, 1);
            self.body.push(' ');
            self.src(slot, View::Base, 0, 1);
            self.body.push_str(" 0xffff:ud\n");
        }
        self.fence(bracket.trailing, mem);
        Ok(())
    }

    fn raw_or_null(&mut self, slot: Option<usize>, view: View, suffix: &str) {
        match slot {
            Some(slot) => {
                self.name(slot, view);
                self.body.push_str(suffix);
            }
            None => {
                self.body.push_str("%null");
                self.body.push_str(suffix);
            }
        }
    }

    /// `op (M1, exec) dst src0 [src1]` over the given views/columns/strides.
    #[allow(clippy::too_many_arguments)]
    fn line(
        &mut self,
        op: &str,
        exec: u32,
        dst: (usize, View, u32, u32),
        a: (usize, View, u32, u32),
        b: Option<(usize, View, u32, u32, bool)>,
        imm: Option<u32>,
    ) {
        self.op_start(None, op, exec);
        self.dst(dst.0, dst.1, dst.2, dst.3);
        self.body.push(' ');
        self.src(a.0, a.1, a.2, a.3);
        if let Some((slot, view, col, stride, negate)) = b {
            self.body.push(' ');
            if negate {
                self.neg_src(slot, view, col, stride);
            } else {
                self.src(slot, view, col, stride);
            }
        }
        if let Some(imm) = imm {
            let _ = write!(self.body, " 0x{imm:x}:ud");
        }
        self.body.push('\n');
    }

    fn mask(&mut self, slot: usize, bits: u32) {
        if bits < 32 {
            let n = self.n;
            self.line(
                "and",
                n,
                (slot, View::Base, 0, 1),
                (slot, View::Base, 0, 1),
                None,
                Some((1u32 << bits) - 1),
            );
        }
    }

    /// The one place that prints the expansion's ALU primitives.
    fn alu(&mut self, expansion: &Expansion, prim: &Prim) -> Result<(), EmitError> {
        let n = self.n;
        let s = |v: Var| self.var_slots[v.index()];
        let ty = |v: Var| expansion.vars[v];
        let has64 = self.target.platform.has_64bit_alu();
        match *prim {
            Prim::Const { dst, bits } => {
                let bits = if ty(dst).bits() >= 128 {
                    bits
                } else {
                    bits & ((1u128 << ty(dst).bits()) - 1)
                };
                self.constant(s(dst), bits);
            }
            Prim::Unary { dst, op, src } => {
                let (d, a, from, to) = (s(dst), s(src), ty(src), ty(dst));
                match op {
                    UnaryOp::Not if to == PrimType::Pred => {
                        self.line(
                            "not",
                            n,
                            (d, View::Base, 0, 1),
                            (a, View::Base, 0, 1),
                            None,
                            None,
                        );
                    }
                    UnaryOp::Not if to.bits() == 64 => {
                        self.line(
                            "not",
                            2 * n,
                            (d, View::Halves, 0, 1),
                            (a, View::Halves, 0, 1),
                            None,
                            None,
                        );
                    }
                    UnaryOp::Not => {
                        self.line(
                            "not",
                            n,
                            (d, View::Base, 0, 1),
                            (a, View::Base, 0, 1),
                            None,
                            None,
                        );
                        self.mask(d, to.bits());
                    }
                    UnaryOp::Bitcast | UnaryOp::Copy => {
                        if d != a {
                            self.copy(None, d, a);
                        }
                    }
                    UnaryOp::Zext if to.bits() == 64 => {
                        if from.bits() == 64 {
                            self.copy(None, d, a);
                        } else {
                            self.line(
                                "mov",
                                n,
                                (d, View::Halves, 0, 2),
                                (a, View::Base, 0, 1),
                                None,
                                None,
                            );
                            self.op_start(None, "mov", n);
                            self.dst(d, View::Halves, 1, 2);
                            self.body.push_str(" 0x0:ud\n");
                        }
                    }
                    UnaryOp::Zext => {
                        self.line(
                            "mov",
                            n,
                            (d, View::Base, 0, 1),
                            (a, View::Base, 0, 1),
                            None,
                            None,
                        );
                    }
                    UnaryOp::Trunc => {
                        if from.bits() == 64 {
                            self.line(
                                "mov",
                                n,
                                (d, View::Base, 0, 1),
                                (a, View::Halves, 0, 2),
                                None,
                                None,
                            );
                            self.mask(d, to.bits());
                        } else {
                            self.line(
                                "and",
                                n,
                                (d, View::Base, 0, 1),
                                (a, View::Base, 0, 1),
                                None,
                                Some(low_mask(to.bits())),
                            );
                        }
                    }
                }
            }
            Prim::Binary { dst, op, a, b } => {
                let (d, x, y, t) = (s(dst), s(a), s(b), ty(a));
                let bits = t.bits();
                let opname = match op {
                    BinaryOp::Add | BinaryOp::Sub | BinaryOp::FAdd | BinaryOp::FSub => "add",
                    BinaryOp::And => "and",
                    BinaryOp::Or => "or",
                    BinaryOp::Xor => "xor",
                    BinaryOp::Shl => "shl",
                    BinaryOp::LShr => "shr",
                    BinaryOp::SMin | BinaryOp::UMin | BinaryOp::FMin => "min",
                    BinaryOp::SMax | BinaryOp::UMax | BinaryOp::FMax => "max",
                };
                let negate = matches!(op, BinaryOp::Sub | BinaryOp::FSub);
                let bitwise = matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor);
                match t {
                    PrimType::Pred => {
                        if !bitwise {
                            return Err(format!("{op:?} on predicates"));
                        }
                        self.line(
                            opname,
                            n,
                            (d, View::Base, 0, 1),
                            (x, View::Base, 0, 1),
                            Some((y, View::Base, 0, 1, false)),
                            None,
                        );
                    }
                    PrimType::F32 => self.line(
                        opname,
                        n,
                        (d, View::F, 0, 1),
                        (x, View::F, 0, 1),
                        Some((y, View::F, 0, 1, negate)),
                        None,
                    ),
                    PrimType::F16 => {
                        self.line(
                            opname,
                            n,
                            (d, View::Hf, 0, 2),
                            (x, View::Hf, 0, 2),
                            Some((y, View::Hf, 0, 2, negate)),
                            None,
                        );
                        self.mask(d, 16);
                    }
                    PrimType::Bf16 => self.bf16(opname, negate, d, x, y),
                    PrimType::F64 | PrimType::I64 | PrimType::Ptr if bitwise => {
                        self.line(
                            opname,
                            2 * n,
                            (d, View::Halves, 0, 1),
                            (x, View::Halves, 0, 1),
                            Some((y, View::Halves, 0, 1, false)),
                            None,
                        );
                    }
                    PrimType::F64 | PrimType::I64 if !has64 => {
                        return Err(format!("64-bit {op:?} on a platform without a 64-bit ALU"));
                    }
                    PrimType::F64 => self.line(
                        opname,
                        n,
                        (d, View::Df, 0, 1),
                        (x, View::Df, 0, 1),
                        Some((y, View::Df, 0, 1, negate)),
                        None,
                    ),
                    PrimType::I64 => {
                        let view = if matches!(op, BinaryOp::SMin | BinaryOp::SMax) {
                            View::Q
                        } else {
                            View::Base
                        };
                        self.line(
                            opname,
                            n,
                            (d, view, 0, 1),
                            (x, view, 0, 1),
                            Some((y, view, 0, 1, negate)),
                            None,
                        );
                    }
                    _ if matches!(op, BinaryOp::SMin | BinaryOp::SMax) && bits < 32 => {
                        // Sign-extend the low bits into dword temps.
                        let view = if bits == 16 { View::W } else { View::B };
                        let stride = 32 / bits;
                        let (ex, ey) = (self.temp(Storage::Dword), self.temp(Storage::Dword));
                        self.line(
                            "mov",
                            n,
                            (ex, View::D, 0, 1),
                            (x, view, 0, stride),
                            None,
                            None,
                        );
                        self.line(
                            "mov",
                            n,
                            (ey, View::D, 0, 1),
                            (y, view, 0, stride),
                            None,
                            None,
                        );
                        self.line(
                            opname,
                            n,
                            (d, View::D, 0, 1),
                            (ex, View::D, 0, 1),
                            Some((ey, View::D, 0, 1, false)),
                            None,
                        );
                        self.mask(d, bits);
                    }
                    _ => {
                        let view = if matches!(op, BinaryOp::SMin | BinaryOp::SMax) {
                            View::D
                        } else {
                            View::Base
                        };
                        self.line(
                            opname,
                            n,
                            (d, view, 0, 1),
                            (x, view, 0, 1),
                            Some((y, view, 0, 1, negate)),
                            None,
                        );
                        if matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Shl) {
                            self.mask(d, bits);
                        }
                    }
                }
            }
            Prim::Cmp { dst, cond, a, b } => {
                let (d, x, y) = (s(dst), s(a), s(b));
                let c = match cond {
                    CmpCond::Eq => "cmp.eq",
                    CmpCond::Ne => "cmp.ne",
                    CmpCond::Ult => "cmp.lt",
                    CmpCond::Ule => "cmp.le",
                    CmpCond::Ugt => "cmp.gt",
                    CmpCond::Uge => "cmp.ge",
                };
                if ty(a).bits() == 64 {
                    if matches!(cond, CmpCond::Eq | CmpCond::Ne) {
                        let diff = self.temp(Storage::Qword);
                        let any = self.temp(Storage::Dword);
                        self.line(
                            "xor",
                            2 * n,
                            (diff, View::Halves, 0, 1),
                            (x, View::Halves, 0, 1),
                            Some((y, View::Halves, 0, 1, false)),
                            None,
                        );
                        self.line(
                            "or",
                            n,
                            (any, View::Base, 0, 1),
                            (diff, View::Halves, 0, 2),
                            Some((diff, View::Halves, 1, 2, false)),
                            None,
                        );
                        self.op_start(None, c, n);
                        self.name(d, View::Base);
                        self.body.push(' ');
                        self.src(any, View::Base, 0, 1);
                        self.body.push_str(" 0x0:ud\n");
                        return Ok(());
                    }
                    if !has64 {
                        return Err(
                            "64-bit ordered compare on a platform without a 64-bit ALU".into()
                        );
                    }
                }
                self.op_start(None, c, n);
                self.name(d, View::Base);
                self.body.push(' ');
                self.src(x, View::Base, 0, 1);
                self.body.push(' ');
                self.src(y, View::Base, 0, 1);
                self.body.push('\n');
            }
            Prim::Select {
                dst,
                cond,
                if_true,
                if_false,
            } => {
                let (d, p, x, y) = (s(dst), s(cond), s(if_true), s(if_false));
                let cols: &[u32] = if ty(dst).bits() == 64 { &[0, 1] } else { &[0] };
                for &col in cols {
                    let (view, stride) = if cols.len() == 2 {
                        (View::Halves, 2)
                    } else {
                        (View::Base, 1)
                    };
                    self.op_start(Some((p, false)), "sel", n);
                    self.dst(d, view, col, stride);
                    self.body.push(' ');
                    self.src(x, view, col, stride);
                    self.body.push(' ');
                    self.src(y, view, col, stride);
                    self.body.push('\n');
                }
            }
            Prim::PtrAlignDown { dst, ptr, align } => {
                let (d, p) = (s(dst), s(ptr));
                if self.slots[p].storage == Storage::Qword {
                    self.line(
                        "and",
                        n,
                        (d, View::Halves, 0, 2),
                        (p, View::Halves, 0, 2),
                        None,
                        Some(!(align - 1)),
                    );
                    self.line(
                        "mov",
                        n,
                        (d, View::Halves, 1, 2),
                        (p, View::Halves, 1, 2),
                        None,
                        None,
                    );
                } else {
                    self.line(
                        "and",
                        n,
                        (d, View::Base, 0, 1),
                        (p, View::Base, 0, 1),
                        None,
                        Some(!(align - 1)),
                    );
                }
            }
            Prim::PtrLowBits { dst, ptr, align } => {
                let (d, p) = (s(dst), s(ptr));
                let (view, stride) = if self.slots[p].storage == Storage::Qword {
                    (View::Halves, 2)
                } else {
                    (View::Base, 1)
                };
                self.line(
                    "and",
                    n,
                    (d, View::Base, 0, 1),
                    (p, view, 0, stride),
                    None,
                    Some(align - 1),
                );
            }
            Prim::PtrAdd { dst, ptr, bytes } => {
                let (d, p) = (s(dst), s(ptr));
                if self.slots[p].storage == Storage::Qword {
                    // 64-bit add on dword halves: low + bytes, carry into the high half.
                    let carry = self.temp(Storage::Pred);
                    self.line(
                        "add",
                        n,
                        (d, View::Halves, 0, 2),
                        (p, View::Halves, 0, 2),
                        None,
                        Some(bytes),
                    );
                    self.op_start(None, "cmp.lt", n);
                    self.name(carry, View::Base);
                    self.body.push(' ');
                    self.src(d, View::Halves, 0, 2);
                    let _ = writeln!(self.body, " 0x{bytes:x}:ud");
                    self.line(
                        "mov",
                        n,
                        (d, View::Halves, 1, 2),
                        (p, View::Halves, 1, 2),
                        None,
                        None,
                    );
                    self.op_start(Some((carry, false)), "add", n);
                    self.dst(d, View::Halves, 1, 2);
                    self.body.push(' ');
                    self.src(d, View::Halves, 1, 2);
                    self.body.push_str(" 0x1:ud\n");
                } else {
                    self.line(
                        "add",
                        n,
                        (d, View::Base, 0, 1),
                        (p, View::Base, 0, 1),
                        None,
                        Some(bytes),
                    );
                }
            }
            Prim::Load { .. } | Prim::Cas { .. } | Prim::Rmw { .. } => {
                return Err("memory primitive printed as ALU".into());
            }
        }
        Ok(())
    }

    /// A bf16 operation, computed in f32 (exact for min/max; for add/sub, f32 has more than
    /// 2p+2 bits of a bf16's p, so rounding twice equals rounding once) and rounded to
    /// nearest even back to bf16, NaNs quieted.
    fn bf16(&mut self, opname: &str, negate: bool, d: usize, x: usize, y: usize) {
        let n = self.n;
        let (fx, fy, r, t) = (
            self.temp(Storage::Dword),
            self.temp(Storage::Dword),
            self.temp(Storage::Dword),
            self.temp(Storage::Dword),
        );
        let nan = self.temp(Storage::Pred);
        self.line(
            "shl",
            n,
            (fx, View::Base, 0, 1),
            (x, View::Base, 0, 1),
            None,
            Some(16),
        );
        self.line(
            "shl",
            n,
            (fy, View::Base, 0, 1),
            (y, View::Base, 0, 1),
            None,
            Some(16),
        );
        self.line(
            opname,
            n,
            (r, View::F, 0, 1),
            (fx, View::F, 0, 1),
            Some((fy, View::F, 0, 1, negate)),
            None,
        );
        // t = r + 0x7fff + ((r >> 16) & 1); d = t >> 16
        self.line(
            "shr",
            n,
            (t, View::Base, 0, 1),
            (r, View::Base, 0, 1),
            None,
            Some(16),
        );
        self.line(
            "and",
            n,
            (t, View::Base, 0, 1),
            (t, View::Base, 0, 1),
            None,
            Some(1),
        );
        self.line(
            "add",
            n,
            (t, View::Base, 0, 1),
            (t, View::Base, 0, 1),
            None,
            Some(0x7fff),
        );
        self.line(
            "add",
            n,
            (t, View::Base, 0, 1),
            (t, View::Base, 0, 1),
            Some((r, View::Base, 0, 1, false)),
            None,
        );
        self.line(
            "shr",
            n,
            (d, View::Base, 0, 1),
            (t, View::Base, 0, 1),
            None,
            Some(16),
        );
        // NaN: keep the sign and payload's top bits, set the quiet bit.
        self.line(
            "and",
            n,
            (t, View::Base, 0, 1),
            (r, View::Base, 0, 1),
            None,
            Some(0x7fff_ffff),
        );
        self.op_start(None, "cmp.gt", n);
        self.name(nan, View::Base);
        self.body.push(' ');
        self.src(t, View::Base, 0, 1);
        self.body.push_str(" 0x7f800000:ud\n");
        self.line(
            "shr",
            n,
            (t, View::Base, 0, 1),
            (r, View::Base, 0, 1),
            None,
            Some(16),
        );
        self.line(
            "or",
            n,
            (t, View::Base, 0, 1),
            (t, View::Base, 0, 1),
            None,
            Some(0x40),
        );
        self.op_start(Some((nan, false)), "mov", n);
        self.dst(d, View::Base, 0, 1);
        self.body.push(' ');
        self.src(t, View::Base, 0, 1);
        self.body.push('\n');
        self.mask(d, 16);
    }
}

const fn low_mask(bits: u32) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}

fn storage_of(ty: PrimType) -> Storage {
    match ty {
        PrimType::Pred => Storage::Pred,
        t if t.bits() == 64 => Storage::Qword,
        _ => Storage::Dword,
    }
}

/// The storage and element count of an IR value. Shared pointers are 32-bit SLM offsets.
fn value_storage(ty: ValueType) -> (Storage, u32) {
    match ty {
        ValueType::Pred => (Storage::Pred, 1),
        ValueType::Ptr(AddressSpace::Shared) => (Storage::Dword, 1),
        ValueType::Ptr(_) => (Storage::Qword, 1),
        ValueType::Data(ty, shape) => (
            if ty.bits() == 64 {
                Storage::Qword
            } else {
                Storage::Dword
            },
            shape.len() as u32,
        ),
    }
}

fn operand_scalar(kernel: &Kernel, operand: Operand, index: usize) -> Option<Scalar> {
    kernel.operand_element(operand, index)
}

/// Value names after `v_`: the printer's own suffixes (vector lanes `__e<i>`, typed views, a
/// predicate's dword input) never end one, so a name and its suffixed forms are all distinct.
/// Temporaries (`t<k>`) and labels (`L…`, `<kernel>_BB_0`) do not start with `v_`.
static VALUE_NAMES: NameRules = NameRules {
    char_ok: |c| c.is_ascii_alphanumeric() || c == '_',
    well_formed: |name| !name.is_empty(),
    lead: "n",
    keywords: &[],
    prefixes: &[],
    suffixes: &[
        Suffix::numbered(LANE),
        Suffix::exact(View::F.suffix()),
        Suffix::exact(View::D.suffix()),
        Suffix::exact(View::Hf.suffix()),
        Suffix::exact(View::W.suffix()),
        Suffix::exact(View::B.suffix()),
        Suffix::exact(View::Halves.suffix()),
        Suffix::exact(View::Q.suffix()),
        Suffix::exact(View::Df.suffix()),
        Suffix::exact(PREDICATE_INPUT),
    ],
};

/// Kernel names (in `.kernel`, `.function` and the label `<name>_BB_0`): GenX_IR rejects a
/// label that starts with a digit or holds a `.` or a space; `$` it accepts.
static KERNEL_NAMES: NameRules = NameRules {
    char_ok: |c| c.is_ascii_alphanumeric() || c == '_' || c == '$',
    well_formed: |name| name.starts_with(|c: char| !c.is_ascii_digit()),
    lead: "k",
    keywords: &[],
    prefixes: &[],
    suffixes: &[],
};

/// The suffix of a vector value's lane slot, before the lane's number.
const LANE: &str = "__e";
/// The suffix of a predicate parameter's dword input.
const PREDICATE_INPUT: &str = "__in";

fn write_value_name(out: &mut String, names: &[String], value: Value) {
    out.push_str("v_");
    out.push_str(&names[value.index()]);
}

fn write_slot_name(out: &mut String, names: &[String], name: SlotName) {
    match name {
        SlotName::Value(v) => write_value_name(out, names, v),
        SlotName::Elem(v, i) => {
            write_value_name(out, names, v);
            let _ = write!(out, "{LANE}{i}");
        }
        SlotName::Temp(k) => {
            let _ = write!(out, "t{k}");
        }
    }
}

/// The positions at which each variable of an expansion is live, in layout order.
struct LiveRanges {
    /// Per variable: (first, last) position; first > last where the layout never names it.
    of: Vec<(u32, u32)>,
    /// The position after the last block (the results are copied out there).
    end: u32,
}

/// Live ranges over the layout order: position 0 is before the entry (inputs bound, literals
/// set), then each block's start, primitives and terminator (which reads its condition and
/// arguments and writes its targets' parameters, as the edge copies do). A range that meets a
/// loop (a backward edge) without lying inside it covers the whole loop: the value crosses the
/// backward edge. A range inside a loop is defined before it is read in each iteration (one
/// definition each, dominating its uses).
fn live_ranges(expansion: &Expansion) -> LiveRanges {
    let mut of = vec![(u32::MAX, 0u32); expansion.vars.len()];
    let mut touch = |var: Var, at: u32| {
        let range = &mut of[var.index()];
        range.0 = range.0.min(at);
        range.1 = range.1.max(at);
    };
    let mut starts = Vec::with_capacity(expansion.blocks.len());
    let mut at = 0u32;
    for data in expansion.blocks.values() {
        at += 1;
        starts.push(at);
        for prim in &data.prims {
            at += 1;
            for var in prim.uses().into_iter().chain(prim.def()) {
                touch(var, at);
            }
        }
        at += 1;
        if let Terminator::Branch { cond, .. } = &data.terminator {
            touch(*cond, at);
        }
        for edge in data.terminator.successors() {
            let params = &expansion.blocks[edge.block].params;
            for &var in edge.args.iter().chain(params) {
                touch(var, at);
            }
        }
    }
    let mut loops: smallvec::SmallVec<[(u32, u32); 8]> = smallvec::SmallVec::new();
    let mut at_end = 0u32;
    for (index, data) in expansion.blocks.values().enumerate() {
        at_end = starts[index] + data.prims.len() as u32 + 1;
        for edge in data.terminator.successors() {
            let head = starts[edge.block.index()];
            if head <= at_end {
                loops.push((head, at_end));
            }
        }
    }
    loop {
        let mut changed = false;
        for range in of.iter_mut().filter(|range| range.0 <= range.1) {
            for &(head, latch) in &loops {
                let meets = range.0 <= latch && range.1 >= head;
                let inside = range.0 >= head && range.1 <= latch;
                let covered = (range.0.min(head), range.1.max(latch));
                if meets && !inside && covered != *range {
                    *range = covered;
                    changed = true;
                }
            }
        }
        if !changed {
            return LiveRanges {
                of,
                end: at_end + 1,
            };
        }
    }
}

/// Which vars are live: read by a memory op, a branch, the results, or a live ALU op (a memory
/// op whose old value nobody reads writes `%null`; a dead ALU op is not printed).
fn used_vars(expansion: &Expansion) -> Vec<bool> {
    let mut used = vec![false; expansion.vars.len()];
    for data in expansion.blocks.values() {
        match &data.terminator {
            Terminator::Branch {
                cond,
                then,
                otherwise,
            } => {
                used[cond.index()] = true;
                for var in then.args.iter().chain(&otherwise.args) {
                    used[var.index()] = true;
                }
            }
            Terminator::Jump(target) => {
                for var in &target.args {
                    used[var.index()] = true;
                }
            }
            Terminator::Return => {}
        }
    }
    for var in &expansion.results {
        used[var.index()] = true;
    }
    loop {
        let mut changed = false;
        for data in expansion.blocks.values() {
            for prim in &data.prims {
                let live = prim.mem().is_some() || prim.def().is_some_and(|d| used[d.index()]);
                if live {
                    for var in prim.uses() {
                        if !used[var.index()] {
                            used[var.index()] = true;
                            changed = true;
                        }
                    }
                }
            }
        }
        if !changed {
            return used;
        }
    }
}

/// Whether the node's type is one the printer can lay out (guards the legality table).
pub fn printable(ty: ElemType, op: AtomicOp) -> bool {
    ty.bits() <= 64 && ty.supports(op)
}
