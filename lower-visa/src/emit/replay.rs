//! The printer's side of text templates ([`atomir_ir::lower::Template`]): what an expansion's
//! steps depend on (its shape), the holes it marks while a template is recorded, and how a
//! replay fills them.
//!
//! Once an expansion's inputs are bound and its temporaries allocated
//! (`VisaPrinter::expansion_begin`, always run), its steps name registers only through
//! `VisaPrinter::name` and labels only through `write_label`. Every register they name is a
//! *local* of the expansion: a variable's register, the predicate's, a result lane's, or a
//! scratch temp a primitive takes. A hole names a local, so that a replay names the
//! instruction's own register; a label's number is a place of the instruction's number
//! ([`atomir_ir::lower::Recorder::number`]), which a replay rewrites in the text. The registers' equalities, storages and literal values are in
//! the shape, since the text depends on them. What a step does besides printing (taking and
//! freeing scratch temps, widening a message operand's declaration, marking the views
//! declared) is an empty hole that a replay does again, in the same order.
//!
//! A kernel parameter's register, and a temp the expansion holds from its beginning (a
//! variable's or a literal's), is in the shape itself rather than as a local's class: its
//! name is then text of the template, not a hole. Kernels repeat a kind of atomic with the
//! same parameters, and their temps come round in a few orders (see `ReplayedAllocation`),
//! so the temps cost a few more templates and save most of the holes: a CAS loop names its
//! temps a dozen times. Such a register's view marks and widening, done while the template
//! was recorded, hold for every replay.

use atomir_ir::expand::Expansion;
use atomir_ir::lower::{Expanding, Hole, Recorder, Replay, Unprintable};

use super::{write_view_name, EmitError, EmitPart, SlotName, Storage, View, VisaPrinter};
use crate::legal::VisaPlan;

/// The kind of a hole, in its low four bits; the rest is its operand.
const SLOT: u32 = 0;
const TAKE: u32 = 1;
const FREE: u32 = 2;
const COVER: u32 = 3;
const END: u32 = 4;

/// A local with no register (no predicate).
const NONE: usize = usize::MAX;

fn storage_code(storage: Storage) -> u32 {
    match storage {
        Storage::Dword => 0,
        Storage::Qword => 1,
        Storage::Pred => 2,
    }
}

fn storage_of_code(code: u32) -> Option<Storage> {
    match code {
        0 => Some(Storage::Dword),
        1 => Some(Storage::Qword),
        2 => Some(Storage::Pred),
        _ => None,
    }
}

fn view_of_code(code: u32) -> Option<View> {
    View::ALL.get(code as usize).copied()
}

impl<'m> VisaPrinter<'m> {
    /// Sets the expansion's locals and appends its shape: `false` where it is not replayed
    /// (a spliced fragment names the client's variables).
    pub(super) fn shape(
        &mut self,
        inst: &atomir_ir::AtomicInst,
        expansion: &Expansion,
        shape: &mut Vec<u64>,
    ) -> bool {
        if self.names.splice.is_some() {
            return false;
        }
        self.deferred_covers.clear();
        self.locals.clear();
        self.locals.extend_from_slice(&self.var_slots);
        self.locals.push(self.pred.map_or(NONE, |(slot, _)| slot));
        if let Some(result) = inst.result {
            // `expansion_begin` gave every lane a slot.
            let vector = inst.shape.is_vector();
            for i in 0..expansion.results.len() {
                let lane = vector.then_some(i as u8);
                let slot = self.value_slots.get(result, lane).unwrap_or(NONE);
                self.locals.push(slot);
            }
        }
        let locals = &self.locals;
        // Which locals are one register, and each one's storage. A kernel parameter's
        // register, and a temp's, is in the shape and its name in the template's text, not a
        // hole: `mark_slot` leaves it alone.
        for (index, &slot) in locals.iter().enumerate() {
            let word = match slot {
                NONE => u64::MAX,
                slot if self.is_param(slot) => 1 << 48 | slot as u64,
                slot if self.is_temp(slot) => 2 << 48 | slot as u64,
                slot => {
                    let first = locals.iter().position(|&other| other == slot);
                    let storage = storage_code(self.slots[slot].storage);
                    first.unwrap_or(index) as u64 | u64::from(storage) << 32
                }
            };
            shape.push(word);
        }
        let class = |slot: usize| locals.iter().position(|&other| other == slot);
        shape.push(u64::from(self.pred.is_some_and(|(_, negated)| negated)));
        shape.push(
            u64::from(self.single) | u64::from(self.surface == crate::legal::Surface::Slm) << 1,
        );
        for (list, tag) in [
            (&self.literals, 1u64 << 62),
            (&self.rematerialized, 1u64 << 63),
        ] {
            for &(slot, bits) in list {
                let Some(class) = class(slot) else {
                    return false;
                };
                shape.extend([tag | class as u64, bits as u64, (bits >> 64) as u64]);
            }
        }
        self.shaped_locals = self.locals.len();
        true
    }

    /// The local a name of `slot` stands for: the latest with that register, since a later
    /// step's scratch temp may be a register an earlier step's scratch temp had (locals that
    /// are one register otherwise are one in every instruction of the shape).
    fn local_of(&self, slot: usize) -> Option<usize> {
        self.locals.iter().rposition(|&local| local == slot)
    }

    /// Whether `slot` is a kernel parameter's register, or a lane of one.
    fn is_param(&self, slot: usize) -> bool {
        self.slots[slot].root.map_or(slot, |(root, _)| root) < self.param_slots
    }

    /// Whether `slot` is a temp.
    fn is_temp(&self, slot: usize) -> bool {
        matches!(self.slots[slot].name, SlotName::Temp(_))
    }

    /// Whether the shape holds `slot` itself (so its name is text, not a hole): a parameter's
    /// register, or a temp held since the expansion began (a scratch temp a step takes is a
    /// later local, and a replay may take another).
    fn is_in_shape(&self, slot: usize) -> bool {
        self.is_param(slot)
            || self.is_temp(slot)
                && self
                    .local_of(slot)
                    .is_some_and(|local| local < self.shaped_locals)
    }

    /// Marks the name of `slot` (`view`), written into the body from `at` on, while a
    /// template is recorded.
    pub(super) fn mark_slot(&self, slot: usize, view: View, at: usize) {
        if !self.recorder.is_recording() || self.is_in_shape(slot) {
            return;
        }
        match self.local_of(slot) {
            Some(local) => self.recorder.hole(
                at,
                self.body.len(),
                SLOT | (view as u32) << 4 | (local as u32) << 8,
            ),
            None => self.recorder.spoil(),
        }
    }

    /// Marks the instruction's number in a label, written into the body from `at` on: a
    /// place of the number rather than a hole, so that a replay rewrites the digits that
    /// differ in the template's text and the text around it stays one piece.
    pub(super) fn mark_inst(&self, at: usize) {
        self.recorder.number(at, self.body.len());
    }

    /// Marks a scratch temp of `storage` taken (its `lifetime.start` written from `at` on) as
    /// the next local.
    pub(super) fn mark_take(&mut self, slot: usize, storage: Storage, at: usize) {
        if self.recorder.is_recording() {
            self.recorder
                .hole(at, self.body.len(), TAKE | storage_code(storage) << 4);
            self.locals.push(slot);
        }
    }

    /// Marks the `count` scratch temps of a step freed at its end.
    pub(super) fn mark_free(&self, count: usize) {
        let at = self.body.len();
        self.recorder.hole(at, at, FREE | (count as u32) << 8);
    }

    /// Marks a message operand's declaration widened. The widening of a value's register
    /// (not a temp's) is marked at the expansion's end rather than where it happens, so that
    /// it does not split the text around it: only the choice of a free temp reads a
    /// register's width, and a value's is read at the kernel's end.
    pub(super) fn mark_cover(&mut self, slot: usize, per_channel: u32) {
        // A parameter's declaration keeps its payload's size, and a temp in the shape was
        // widened as the template was recorded: nothing to do again.
        if !self.recorder.is_recording() || self.is_in_shape(slot) {
            return;
        }
        match self.local_of(slot) {
            Some(local) => {
                let hole = COVER | per_channel << 4 | (local as u32) << 8;
                let root = self.slots[slot].root.map_or(slot, |(root, _)| root);
                if self.is_temp(root) {
                    let at = self.body.len();
                    self.recorder.hole(at, at, hole);
                } else {
                    self.deferred_covers.push(hole);
                }
            }
            None => self.recorder.spoil(),
        }
    }

    /// Marks the widenings of values' registers left for the end, and the expansion's temps
    /// freed at its end.
    pub(super) fn mark_end(&mut self) {
        let at = self.body.len();
        for hole in self.deferred_covers.drain(..) {
            self.recorder.hole(at, at, hole);
        }
        self.recorder.hole(at, at, END);
    }

    /// Writes hole `hole` into `out` and does what it stands for.
    #[inline]
    pub(super) fn fill(&mut self, hole: Hole, out: &mut String) -> Result<(), EmitError> {
        let operand = hole >> 8;
        let local = |printer: &Self| {
            printer
                .locals
                .get(operand as usize)
                .copied()
                .filter(|&slot| slot != NONE)
                .ok_or_else(|| {
                    EmitError::new(
                        EmitPart::Template,
                        format!("a template names local {operand}, which has no register"),
                    )
                })
        };
        match hole & 0xf {
            SLOT => {
                let slot = local(self)?;
                let view = view_of_code(hole >> 4 & 0xf).ok_or_else(|| {
                    EmitError::new(
                        EmitPart::Template,
                        format!("a template names view {}", hole >> 4 & 0xf),
                    )
                })?;
                let data = &mut self.slots[slot];
                data.views |= 1 << view as u8;
                write_view_name(out, &self.names, slot, data.name, view);
            }
            TAKE => {
                let storage = storage_of_code(hole >> 4 & 0xf).ok_or_else(|| {
                    EmitError::new(
                        EmitPart::Template,
                        format!("a template takes storage {}", hole >> 4 & 0xf),
                    )
                })?;
                let slot = self.writing(out, |printer| printer.temp(storage));
                self.locals.push(slot);
            }
            FREE => {
                let from = self.busy_temps.len().saturating_sub(operand as usize);
                self.free_temps.extend(self.busy_temps.drain(from..));
            }
            COVER => {
                let slot = local(self)?;
                self.widen_for_message(slot, hole >> 4 & 0xf);
            }
            END => self.free_temps.append(&mut self.busy_temps),
            kind => {
                return Err(EmitError::new(
                    EmitPart::Template,
                    format!("a template holds a hole of kind {kind}"),
                ))
            }
        }
        Ok(())
    }
}

/// vISA replays its templates: binding an expansion's registers is most of its printing time
/// (`replay.rs` keeps the contract: a replay prints what printing afresh would).
impl Replay<VisaPlan> for VisaPrinter<'_> {
    fn recorder(&mut self) -> Option<&Recorder> {
        Some(&self.recorder)
    }

    fn shape(&mut self, x: &Expanding<'_, VisaPlan>, shape: &mut Vec<u64>) -> bool {
        self.kernel.is_some() && VisaPrinter::shape(self, x.atomic, x.expansion, shape)
    }

    #[inline]
    fn fill(
        &mut self,
        _x: &Expanding<'_, VisaPlan>,
        hole: Hole,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        VisaPrinter::fill(self, hole, out).map_err(Unprintable::from)
    }
}
