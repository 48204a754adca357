//! Control flow of an expansion: binding its inputs, giving its variables temporaries by
//! live range, labels, `goto`s, the copies on edges and the results copied out.

use cranelift_entity::EntityRef;

use atomir_ir::expand::{Expansion, Prim, PrimType, Terminator, Var};
use atomir_ir::lower::{FenceBracket, Hex, Label, Spell};
use atomir_ir::{spell, AddressSpace, Inst, Kernel, Scalar, ValueType};

use super::{operand_scalar, storage_of, EmitError, EmitPart, Storage, View, VisaPrinter};
use crate::legal::{Surface, VisaPlan};

impl<'m> VisaPrinter<'m> {
    /// Binds an expansion's inputs to the IR's variables; everything else is a temp.
    pub(super) fn expansion_begin(
        &mut self,
        kernel: &Kernel,
        inst_id: Inst,
        inst: &atomir_ir::AtomicInst,
        expansion: &Expansion,
        key: Option<usize>,
    ) -> Result<(), EmitError> {
        self.reached_done = false;
        self.derive(expansion, key);
        let surface = match inst.space {
            AddressSpace::Shared => Surface::Slm,
            _ => Surface::Global,
        };
        // Bind the expansion's inputs to the IR's variables; everything else is a temp.
        self.var_slots.clear();
        self.var_slots.resize(expansion.vars.len(), usize::MAX);
        self.var_slots[expansion.addr.index()] = self.value_slot(kernel, inst.addr, None);
        self.literals.clear();
        // Each pair read from where it lies: a small array of the pairs would be stored and
        // read back at once, which stalled on the store.
        for new_value in [false, true] {
            let (inputs, operand) = match new_value {
                false => (&expansion.operands, &inst.operand),
                true => (&expansion.new_values, &inst.new_value),
            };
            let Some(operand) = *operand else { continue };
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
                        match self.literals.iter().find(|&&(slot, value)| {
                            value == bits && self.slots[slot].storage == storage
                        }) {
                            Some(&(slot, _)) => slot,
                            None => {
                                let slot = self.temp(storage);
                                self.literals.push((slot, bits));
                                slot
                            }
                        }
                    }
                    None => {
                        return Err(EmitError::new(
                            EmitPart::Inputs,
                            format!("operand {i} of {inst_id} has no element"),
                        ))
                    }
                };
                self.var_slots[var.index()] = slot;
            }
        }
        self.rematerialize_literals(expansion);
        if let Some(result) = inst.result {
            let vector = inst.shape.is_vector();
            for (i, var) in expansion.results.iter().enumerate() {
                let slot = self.value_slot(kernel, result, vector.then_some(i as u8));
                if self.var_slots[var.index()] == usize::MAX {
                    self.var_slots[var.index()] = slot;
                }
            }
        }
        self.allocate_temps(expansion, key, surface, inst.predicate.is_some());

        // A predicated node: a one-block expansion predicates its memory ops; a loop is skipped
        // by SIMD control flow in the channels where the predicate fails.
        self.pred = inst
            .predicate
            .map(|p| (self.value_slot(kernel, p.value, None), p.negated));
        self.single = expansion.blocks.len() == 1;
        self.surface = surface;
        // The result of a predicated node is 0 where the predicate fails (the IR defines it
        // so). It is zeroed before the node's messages: a one-block expansion writes it under
        // the predicate (zeroed with the literals, after the leading fence); a longer one is
        // skipped in those channels (zeroed before the skip, which the fence follows) and then
        // copies its result variables, which are zeroed too. The operand literals are all
        // bound above, so none of them takes a zeroed result's register.
        if let (Some(_), Some(result)) = (self.pred, inst.result) {
            let vector = inst.shape.is_vector();
            for (i, var) in expansion.results.iter().enumerate() {
                let slot = self.value_slot(kernel, result, vector.then_some(i as u8));
                let from = self.var_slots[var.index()];
                if self.single {
                    self.literals.push((slot, 0));
                } else {
                    self.constant(slot, 0);
                    if from != slot {
                        self.constant(from, 0);
                    }
                }
            }
        }
        if let (Some((slot, negated)), false) = (self.pred, self.single) {
            self.op_start(Some((slot, !negated)), "goto", self.n);
            self.write_label(inst_id, "skip", None);
            self.body.push('\n');
        }
        Ok(())
    }

    /// Sets the registers of the expansion's literal operands (and of a one-block expansion's
    /// zeroed results). Called at its entry block, so after its leading fence: GenX_IR
    /// -platform PVC crashes (SIGSEGV in its local def-hoisting, which `-nodefhoist` avoids)
    /// where a register that a message reads (a data operand, or the old value of a predicated
    /// destination) is set in the same block before an `lsc_fence` that precedes the message,
    /// as the literal operands and zeroed results of a fenced vector CAS on shared memory
    /// were. Registers are no memory access, so their place around the fence changes nothing
    /// that the fence orders.
    pub(super) fn set_literals(&mut self) {
        for index in 0..self.literals.len() {
            let (slot, bits) = self.literals[index];
            self.constant(slot, bits);
        }
        self.literals.clear();
    }

    /// Moves the literal registers that only ALU primitives outside the entry block read from
    /// `literals` (set once at the entry) to `rematerialized` (set before each such read). A
    /// literal set at the entry stays live through the whole expansion, as GenX_IR sees it, so
    /// a split vector atomic's literal lanes (read by one element's CAS loop each) all held a
    /// register through every element's loop: with a v8.u64 nand of four distinct 64-bit
    /// literals beside a v8.u64 result and operand, GenX_IR -platform DG2 spilled and exited 1
    /// and MTL failed to re-encode. Set inside the loop that reads it, a literal lives only
    /// there. Memory messages keep reading registers set at the entry (after the leading
    /// fence: see `set_literals`).
    fn rematerialize_literals(&mut self, expansion: &Expansion) {
        self.rematerialized.clear();
        if self.literals.is_empty() {
            return;
        }
        let later_alu_only = read_only_by_later_alu(expansion);
        let inputs = expansion.operands.iter().chain(&expansion.new_values);
        let mut entry_read: smallvec::SmallVec<[usize; 8]> = smallvec::SmallVec::new();
        for var in inputs {
            if !later_alu_only[var.index()] {
                entry_read.push(self.var_slots[var.index()]);
            }
        }
        let mut index = 0;
        while index < self.literals.len() {
            let (slot, bits) = self.literals[index];
            if entry_read.contains(&slot) {
                index += 1;
            } else {
                self.literals.swap_remove(index);
                self.rematerialized.push((slot, bits));
            }
        }
    }

    /// Sets the rematerialized literal registers that `prim` reads, right before it.
    fn set_rematerialized(&mut self, prim: &Prim) {
        let mut set: smallvec::SmallVec<[usize; 4]> = smallvec::SmallVec::new();
        for var in prim.uses() {
            let slot = self.var_slots[var.index()];
            if set.contains(&slot) {
                continue;
            }
            if let Some(&(_, bits)) = self.rematerialized.iter().find(|&&(s, _)| s == slot) {
                self.constant(slot, bits);
                set.push(slot);
            }
        }
    }

    /// Gives every variable not bound to an IR value a temp, two variables sharing one where
    /// their live ranges do not meet (linear scan over the layout order): a split's elements
    /// are independent loops, and GenX_IR spills (DG2), fails to re-encode (MTL) or crashes
    /// (PVC) when each keeps its own SIMD16 temporaries.
    ///
    /// An expansion with a key replays an earlier allocation of its own where it finds the
    /// same temps free ([`ReplayedAllocation`]), instead of deciding each temp again.
    pub(super) fn allocate_temps(
        &mut self,
        expansion: &Expansion,
        key: Option<usize>,
        surface: Surface,
        predicated: bool,
    ) {
        let situation = key.and_then(|key| {
            let unbound = self.unbound_vars(expansion)?;
            Some((key, unbound))
        });
        let Some((key, unbound)) = situation else {
            self.allocate_afresh(expansion, key, surface, predicated);
            return;
        };
        let slm = surface == Surface::Slm;
        let replays = match self.derived.get(key) {
            Some(Some(derived)) => &derived.replays,
            _ => &[][..],
        };
        let found = replays.iter().find(|replay| {
            replay.predicated == predicated
                && replay.slm == slm
                && replay.unbound == unbound
                && replay.free_before.len() == self.free_temps.len()
                && (self.free_temps.iter().zip(&replay.free_before))
                    .all(|(&slot, &(was, wide))| slot == was && self.is_wide(slot) == wide)
        });
        if let Some(replay) = found {
            for &(var, slot) in &replay.assigned {
                self.var_slots[var as usize] = slot;
            }
            self.body.push_str(&replay.lifetimes);
            self.busy_temps.extend_from_slice(&replay.taken);
            self.free_temps.clone_from(&replay.free_after);
            return;
        }
        let kept = replays.len();
        let free_before: Vec<(usize, bool)> = (self.free_temps.iter())
            .map(|&slot| (slot, self.is_wide(slot)))
            .collect();
        let (temps, busy, body) = (self.temps, self.busy_temps.len(), self.body.len());
        self.allocate_afresh(expansion, Some(key), surface, predicated);
        // An allocation that made a temp is not met again: the next one finds it free.
        if self.temps != temps || kept >= ReplayedAllocation::PER_EXPANSION {
            return;
        }
        let assigned = (0..expansion.vars.len())
            .filter(|&var| unbound >> var & 1 == 1)
            .map(|var| (var as u32, self.var_slots[var]))
            .collect();
        let replay = ReplayedAllocation {
            predicated,
            slm,
            unbound,
            free_before,
            assigned,
            taken: self.busy_temps[busy..].to_vec(),
            lifetimes: self.body[body..].to_owned(),
            free_after: self.free_temps.clone(),
        };
        if let Some(Some(derived)) = self.derived.get_mut(key) {
            derived.replays.push(replay);
        }
    }

    /// One bit per variable of the expansion that no IR value is bound to (which get temps);
    /// `None` past 64 variables.
    fn unbound_vars(&self, expansion: &Expansion) -> Option<u64> {
        if expansion.vars.len() > 64 {
            return None;
        }
        let unbound = (self.var_slots.iter().enumerate())
            .filter(|&(_, &slot)| slot == usize::MAX)
            .fold(0u64, |bits, (var, _)| bits | 1 << var);
        Some(unbound)
    }

    /// [`VisaPrinter::allocate_temps`], deciding each temp.
    fn allocate_afresh(
        &mut self,
        expansion: &Expansion,
        key: Option<usize>,
        surface: Surface,
        predicated: bool,
    ) {
        // Taken for the call (moving the buffers costs nothing), so `self` stays free to borrow.
        let mut allocation = std::mem::take(&mut self.allocation);
        let Allocation {
            ranges,
            order,
            active,
            released,
            message_operands,
        } = &mut allocation;
        // Copies: the allocation changes its ranges, and the kept ones stay as derived.
        let derived = self.derived_under(key);
        ranges.clone_from(&derived.ranges);
        message_operands.clone_from(&derived.message_operands);
        let widened = self.target.message_channels() > self.n;
        let end = ranges.end;
        order.clear();
        order.extend(
            expansion
                .vars
                .keys()
                .filter(|var| self.var_slots[var.index()] == usize::MAX),
        );
        for &var in &expansion.results {
            let range = &mut ranges.of[var.index()];
            // A predicated loop's result temps are zeroed before it and copied after it.
            if predicated {
                range.0 = 0;
            }
            range.1 = end;
        }
        // A variable the layout never names (a copy cycle's saved register) lives throughout.
        for &var in order.iter() {
            let range = &mut ranges.of[var.index()];
            if range.0 > range.1 {
                *range = (0, end);
            }
        }
        // Ties in program order, as `order` is built: unstable sorting sorts in place.
        order.sort_unstable_by_key(|var| (ranges.of[var.index()], var.index()));
        active.clear();
        released.clear();
        for &var in order.iter() {
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
            // Where messages take wider variables than their operands, a message operand goes
            // to a temp widened before and the rest to narrow ones, so that the widening does
            // not spread over every temp that the expansions share.
            let wide = widened && message_operands[var.index()];
            let fits = |slot: usize| self.slots[slot].storage == storage;
            let slot = match released
                .iter()
                .position(|&slot| fits(slot) && self.is_wide(slot) == wide)
                .or_else(|| released.iter().position(|&slot| fits(slot)))
            {
                Some(index) => released.swap_remove(index),
                None => self.temp_of_width(storage, wide),
            };
            active.push((last, slot));
            self.var_slots[var.index()] = slot;
        }
        self.allocation = allocation;
    }

    /// Derives what the printer needs of `expansion` alone (its live ranges, the variables
    /// read, the message operands where messages are widened) for the expansion to print:
    /// kept under `key` from the first expansion printed with it, derived afresh without one.
    fn derive(&mut self, expansion: &Expansion, key: Option<usize>) {
        let widened = self.target.message_channels() > self.n;
        self.expansion_key = key;
        match key {
            Some(key) => {
                if self.derived.len() <= key {
                    self.derived.resize_with(key + 1, || None);
                }
                self.derived[key].get_or_insert_with(|| Derived::of(expansion, widened));
            }
            None => self.fresh = Derived::of(expansion, widened),
        }
    }

    /// What [`VisaPrinter::derive`] keeps for an expansion under `key`, or derived afresh for
    /// one without.
    fn derived_under(&self, key: Option<usize>) -> &Derived {
        match key.and_then(|key| self.derived.get(key)) {
            Some(Some(derived)) => derived,
            _ => &self.fresh,
        }
    }

    /// Whether anything reads variable `var` of the current expansion.
    pub(super) fn is_used(&self, var: Var) -> bool {
        self.derived_under(self.expansion_key).used[var.index()]
    }

    /// The predicate of a memory message: the node's, in a one-block expansion.
    pub(super) fn line_pred(&self) -> Option<(usize, bool)> {
        if self.single {
            self.pred
        } else {
            None
        }
    }

    pub(super) fn step(
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
            None if prim.def().is_some_and(|d| !self.is_used(d)) => Ok(()),
            None => {
                if !self.in_entry {
                    self.set_rematerialized(prim);
                }
                self.alu(expansion, prim)
            }
        };
        let taken = self.busy_temps.len() - scratch_from;
        if taken > 0 {
            self.mark_free(taken);
        }
        self.free_temps
            .extend(self.busy_temps.drain(scratch_from..));
        printed
    }

    pub(super) fn label(&mut self, inst: Inst, label: Label) {
        let (kind, number) = match label {
            Label::Block(block) => ("", Some(block.as_u32())),
            Label::Edge(edge) => ("e", Some(edge)),
            Label::Done => ("done", None),
        };
        // A kernel's block labels are `L<inst>_<block>`; a fragment's `<prefix>b<block>`.
        let kind = match (kind, &self.names.splice) {
            ("", Some(_)) => "b",
            (kind, _) => kind,
        };
        self.write_label(inst, kind, number);
    }

    /// Writes a label the printer makes up for instruction `inst`: `L<inst>_<kind>[<number>]`
    /// in a kernel, `<prefix><kind>[<number>]` in a fragment.
    fn write_label(&mut self, inst: Inst, kind: &str, number: Option<u32>) {
        match self.names.splice {
            Some((splice, _)) => {
                splice.write_made(&mut self.body, kind, number);
            }
            None => {
                self.body.push('L');
                let at = self.body.len();
                inst.index().spell(&mut self.body);
                self.mark_inst(at);
                spell!(&mut self.body, '_', kind);
                if let Some(number) = number {
                    number.spell(&mut self.body);
                }
            }
        }
    }

    /// `[(P)] goto (M1, N) label`.
    pub(super) fn goto(&mut self, inst: Inst, guard: Option<(Var, bool)>, to: Label) {
        let pred = guard.map(|(cond, negated)| (self.var_slots[cond.index()], negated));
        self.op_start(pred, "goto", self.n);
        self.label(inst, to);
        self.body.push('\n');
        self.reached_done |= to == Label::Done;
    }

    /// Moves the old values to the instruction's result.
    pub(super) fn expansion_end(
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
            self.write_label(inst_id, "skip", None);
            self.body.push_str(":\n");
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
        self.mark_end();
    }

    /// `to = from`, bit for bit.
    pub(super) fn copy(&mut self, pred: Option<(usize, bool)>, to: usize, from: usize) {
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

    pub(super) fn constant(&mut self, slot: usize, bits: u128) {
        let n = self.n;
        match self.slots[slot].storage {
            Storage::Qword => {
                for (col, half) in [(0, bits as u32), (1, (bits >> 32) as u32)] {
                    self.op_start(None, "mov", n);
                    self.dst(slot, View::Halves, col, 2);
                    spell!(&mut self.body, ' ', Hex::prefixed(half), ":ud\n");
                }
            }
            _ => {
                self.op_start(None, "mov", n);
                self.dst(slot, View::Base, 0, 1);
                spell!(&mut self.body, ' ', Hex::prefixed(bits as u32), ":ud\n");
            }
        }
    }
}

/// What the printer derives from an expansion alone, which every instruction printed from that
/// expansion shares.
#[derive(Debug, Default)]
pub(super) struct Derived {
    ranges: LiveRanges,
    /// Per variable: whether anything reads it ([`used_vars`]).
    used: Vec<bool>,
    /// Per variable: whether a message takes it ([`mark_message_operands`]), where messages
    /// are widened.
    message_operands: Vec<bool>,
    /// Allocations of the expansion's temps to replay.
    replays: Vec<ReplayedAllocation>,
}

/// An allocation of an expansion's temps ([`VisaPrinter::allocate_temps`]), replayed where a
/// later instruction of the expansion finds the same temps free, in the same order and of
/// the same widths, and the same variables to give temps: the allocation depends on nothing
/// else (their live ranges and storages are the expansion's and the node's), and a kernel
/// that repeats a kind of atomic finds its free temps in a few orders only.
#[derive(Debug)]
struct ReplayedAllocation {
    predicated: bool,
    slm: bool,
    /// One bit per variable given a temp ([`VisaPrinter::unbound_vars`]).
    unbound: u64,
    /// The free temps before, in order, and whether each was widened for a message.
    free_before: Vec<(usize, bool)>,
    /// Each variable given a temp, and its temp.
    assigned: Vec<(u32, usize)>,
    /// The free temps taken over, in order: each is busy.
    taken: Vec<usize>,
    /// The `lifetime.start` line of each (the temps' views were marked as it was printed).
    lifetimes: String,
    /// The free temps after.
    free_after: Vec<usize>,
}

impl ReplayedAllocation {
    /// The most allocations kept for one expansion, so that a kernel whose free temps keep
    /// changing holds little memory.
    const PER_EXPANSION: usize = 8;
}

impl Derived {
    fn of(expansion: &Expansion, widened: bool) -> Derived {
        let mut derived = Derived::default();
        live_ranges(expansion, &mut derived.ranges);
        used_vars(expansion, &mut derived.used);
        if widened {
            mark_message_operands(expansion, &mut derived.message_operands);
        }
        derived
    }
}

/// The buffers of [`VisaPrinter::allocate_temps`], kept from one expansion to the next.
#[derive(Debug, Default)]
pub(super) struct Allocation {
    ranges: LiveRanges,
    /// The variables to give a temp, by live range.
    order: Vec<Var>,
    /// (last position, slot) of the temps in use.
    active: Vec<(u32, usize)>,
    /// Slots whose range ended.
    released: Vec<usize>,
    /// Per variable: whether a message takes it as its destination, address or data.
    message_operands: Vec<bool>,
}

/// Marks the variables that `VisaPrinter::cover_message_operand` may widen: a message's
/// destination, address and single data operand (not a CAS's two, which GenX_IR copies into a
/// payload of its own).
fn mark_message_operands(expansion: &Expansion, marked: &mut Vec<bool>) {
    marked.clear();
    marked.resize(expansion.vars.len(), false);
    for data in expansion.blocks.values() {
        for prim in &data.prims {
            let (dst, addr, value) = match *prim {
                Prim::Load { dst, addr, .. } | Prim::Cas { dst, addr, .. } => {
                    (Some(dst), addr, None)
                }
                Prim::Rmw {
                    dst, addr, value, ..
                } => (dst, addr, Some(value)),
                _ => continue,
            };
            for var in [dst, Some(addr), value].into_iter().flatten() {
                marked[var.index()] = true;
            }
        }
    }
}

/// The positions at which each variable of an expansion is live, in layout order.
#[derive(Debug, Default)]
pub(super) struct LiveRanges {
    /// Per variable: (first, last) position; first > last where the layout never names it.
    of: Vec<(u32, u32)>,
    /// The position after the last block (the results are copied out there).
    end: u32,
    /// The position of each block's start.
    starts: Vec<u32>,
}

impl Clone for LiveRanges {
    fn clone(&self) -> Self {
        LiveRanges {
            of: self.of.clone(),
            end: self.end,
            starts: self.starts.clone(),
        }
    }

    /// Field by field, so that the buffers are reused (the derived `clone_from` allocates).
    fn clone_from(&mut self, source: &Self) {
        self.of.clone_from(&source.of);
        self.end = source.end;
        self.starts.clone_from(&source.starts);
    }
}

/// Live ranges over the layout order: position 0 is before the entry (inputs bound, literals
/// set), then each block's start, primitives and terminator (which reads its condition and
/// arguments and writes its targets' parameters, as the edge copies do). A range that meets a
/// loop (a backward edge) without lying inside it covers the whole loop: the value crosses the
/// backward edge. A range inside a loop is defined before it is read in each iteration (one
/// definition each, dominating its uses).
pub(super) fn live_ranges(expansion: &Expansion, ranges: &mut LiveRanges) {
    let LiveRanges { of, end, starts } = ranges;
    of.clear();
    of.resize(expansion.vars.len(), (u32::MAX, 0u32));
    let mut touch = |var: Var, at: u32| {
        let range = &mut of[var.index()];
        range.0 = range.0.min(at);
        range.1 = range.1.max(at);
    };
    starts.clear();
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
            *end = at_end + 1;
            return;
        }
    }
}

/// Per variable: whether nothing but ALU primitives outside the entry block reads it (a memory
/// primitive, a branch condition or an edge argument anywhere, or any read in the entry
/// block, makes it false).
fn read_only_by_later_alu(expansion: &Expansion) -> Vec<bool> {
    let mut only = vec![true; expansion.vars.len()];
    for (block, data) in expansion.blocks.iter() {
        let entry = block == expansion.entry();
        for prim in &data.prims {
            if entry || prim.mem().is_some() {
                for var in prim.uses() {
                    only[var.index()] = false;
                }
            }
        }
        for var in data.terminator.uses() {
            only[var.index()] = false;
        }
    }
    only
}

/// Which vars are live: read by a memory op, a branch, the results, or a live ALU op (a memory
/// op whose old value nobody reads writes `%null`; a dead ALU op is not printed).
pub(super) fn used_vars(expansion: &Expansion, used: &mut Vec<bool>) {
    used.clear();
    used.resize(expansion.vars.len(), false);
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
            return;
        }
    }
}
