//! Registers: the declarations of a kernel's variables and their typed views, temporaries,
//! and the spelling of operands and of one instruction line.

use atomir_ir::lower::{Hex, Namer, Recorder, Unprintable};
use atomir_ir::{spell, Kernel, Value, ValueType};

use super::{
    value_storage, write_slot_name, write_value_name, write_view_name, Names, Slot, SlotName,
    Storage, ValueSlots, View, VisaPrinter, PREDICATE_INPUT, VALUE_NAMES,
};
use crate::legal::Surface;
use crate::target::VisaTarget;

impl<'m> VisaPrinter<'m> {
    pub(super) fn current(&self) -> Result<&'m Kernel, Unprintable> {
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
            kernel_start: 0,
            decls: String::new(),
            slots: Vec::new(),
            value_slots: ValueSlots::default(),
            var_slots: Vec::new(),
            param_slots: 0,
            temps: 0,
            names: Names::default(),
            kernel_names: Vec::new(),
            kernel_index: 0,
            namer: Namer::new(&VALUE_NAMES),
            free_temps: Vec::new(),
            busy_temps: Vec::new(),
            literals: Vec::new(),
            rematerialized: Vec::new(),
            in_entry: false,
            expansion_key: None,
            allocation: super::flow::Allocation::default(),
            derived: Vec::new(),
            fresh: super::flow::Derived::default(),
            pred: None,
            single: true,
            surface: Surface::Global,
            reached_done: false,
            spliced_result: None,
            recorder: Recorder::new(),
            locals: Vec::new(),
            shaped_locals: 0,
            deferred_covers: Vec::new(),
        }
    }

    /// Appends the declarations of the kernel's variables to `decls`.
    pub(super) fn write_decls(&self, kernel: &Kernel, decls: &mut String) {
        let n = self.n;
        // The dwords a predicate parameter arrives as (predicates cannot be kernel inputs).
        if self.complete {
            for param in &kernel.params {
                if param.ty == ValueType::Pred {
                    decls.push_str(".decl ");
                    write_value_name(decls, &self.names, param.value);
                    decls.push_str(PREDICATE_INPUT);
                    spell!(decls, " v_type=G type=ud num_elts=", n, " align=GRF\n");
                }
            }
        }
        // Roots, then aliases of them; a fragment declares none of the client's variables.
        // A root's declaration is most of a kernel's head (one a result), and what follows
        // its name depends only on its storage and size, of which a kernel has a few: each
        // such text is spelled once.
        let mut tails: Vec<(Storage, u32, String)> = Vec::new();
        for slot in &self.slots {
            if slot.root.is_some() || self.names.is_clients(slot.name) {
                continue;
            }
            decls.push_str(".decl ");
            write_slot_name(decls, &self.names, slot.name);
            let (storage, elems) = (slot.storage, slot.elems);
            let known = tails
                .iter()
                .position(|tail| tail.0 == storage && tail.1 == elems);
            let index = known.unwrap_or_else(|| {
                let mut text = String::new();
                match storage {
                    Storage::Pred => spell!(&mut text, " v_type=P num_elts=", n, '\n'),
                    Storage::Dword => {
                        spell!(
                            &mut text,
                            " v_type=G type=ud num_elts=",
                            elems,
                            " align=GRF\n"
                        );
                    }
                    Storage::Qword => {
                        spell!(
                            &mut text,
                            " v_type=G type=uq num_elts=",
                            elems,
                            " align=GRF\n"
                        );
                    }
                }
                tails.push((storage, elems, text));
                tails.len() - 1
            });
            decls.push_str(&tails[index].2);
        }
        for (index, slot) in self.slots.iter().enumerate() {
            if slot.storage == Storage::Pred {
                continue;
            }
            let (root_name, offset, elems) = match slot.root {
                Some((root, offset)) => (self.slots[root].name, offset, n),
                None => (slot.name, 0, slot.elems),
            };
            // A root's base view is its own declaration.
            let mut views = slot.views & if slot.root.is_none() { !1 } else { !0 };
            while views != 0 {
                let view = View::ALL[views.trailing_zeros() as usize];
                views &= views - 1;
                let (ty, per) = view.decl(slot.storage);
                decls.push_str(".decl ");
                write_view_name(decls, &self.names, index, slot.name, view);
                spell!(
                    decls,
                    " v_type=G type=",
                    ty,
                    " num_elts=",
                    elems * per,
                    " alias=<"
                );
                write_slot_name(decls, &self.names, root_name);
                spell!(decls, ", ", offset, ">\n");
            }
        }
    }

    /// The slot of an IR value, or of element `elem` of a vector value.
    #[inline]
    pub(super) fn value_slot(&mut self, kernel: &Kernel, value: Value, elem: Option<u8>) -> usize {
        match self.value_slots.get(value, elem) {
            Some(slot) => slot,
            None => self.new_value_slot(kernel, value, elem),
        }
    }

    /// [`VisaPrinter::value_slot`] of a value (or element) that has none yet.
    fn new_value_slot(&mut self, kernel: &Kernel, value: Value, elem: Option<u8>) -> usize {
        let ty = kernel.value_type(value);
        let (storage, count) = value_storage(ty);
        let slot = match elem {
            // With 32-byte registers (a 4 KiB file), a lane of a vector that is not a parameter
            // is a variable of its own: only inputs must be contiguous (the payload), and a
            // 1 KiB v8.u64 result declared whole must find 1 KiB free at once (DG2 spilled where
            // its lanes fit one by one). PVC keeps vectors whole: its register file has room,
            // and its allocator crashes on many distinct qword variables.
            // In a fragment each lane is a variable of the client's (or the fragment's result).
            Some(i)
                if count > 1
                    && (self.names.splice.is_some()
                        || self.target.platform.grf_bytes() < 64
                            && !kernel.params.iter().any(|p| p.value == value)) =>
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
        self.value_slots.insert(value, elem, slot);
        slot
    }

    /// Declares the variable under a message operand (`per_channel` bytes a channel) as wide
    /// as the registers GenX_IR's message reaches from it ([`VisaTarget::message_channels`]).
    /// GenX_IR allows a declaration narrower than the message there, and aligns one of a single
    /// register to an even one, which keeps the message's two registers in the file; a wider
    /// variable (a qword, or a lane at the end of a vector) it allocates by its declared size,
    /// so in the last registers the message reached past r127 and GenX_IR crashed. Inputs keep
    /// their payload's size (the signature keeps them clear of the file's end), and a
    /// fragment's client declares its own variables.
    pub(super) fn cover_message_operand(&mut self, slot: usize, per_channel: u32) {
        self.mark_cover(slot, per_channel);
        self.widen_for_message(slot, per_channel);
    }

    /// What [`VisaPrinter::cover_message_operand`] does to the declaration, without marking
    /// it: a replay's hole does it again, inlined there, since it comes about every other
    /// atomic and mostly finds the register's declaration wide enough.
    #[inline]
    pub(super) fn widen_for_message(&mut self, slot: usize, per_channel: u32) {
        let channels = self.target.message_channels();
        if channels <= self.n {
            return;
        }
        let (root, offset) = self.slots[slot].root.unwrap_or((slot, 0));
        if root < self.param_slots || self.names.is_clients(self.slots[root].name) {
            return;
        }
        let root = &mut self.slots[root];
        let elem_bytes = if root.storage == Storage::Qword { 8 } else { 4 };
        if root.elems * elem_bytes <= self.target.platform.grf_bytes() {
            return;
        }
        root.elems = root
            .elems
            .max((offset + channels * per_channel).div_ceil(elem_bytes));
    }

    /// Whether a slot's declaration was widened for a message.
    pub(super) fn is_wide(&self, slot: usize) -> bool {
        self.slots[slot].elems > self.n
    }

    /// The bytes between two lanes of a vector value (`Raw operand should be GRF-aligned`
    /// otherwise on PVC+svm).
    pub(super) fn lane_bytes(&self, storage: Storage) -> u32 {
        self.target
            .lane_bytes(if storage == Storage::Qword { 8 } else { 4 })
    }

    pub(super) fn temp(&mut self, storage: Storage) -> usize {
        let at = self.body.len();
        let slot = self.temp_of_width(storage, false);
        self.mark_take(slot, storage, at);
        slot
    }

    /// A temp of `storage`: a free one of the wanted width (widened for a message by
    /// [`VisaPrinter::cover_message_operand`] if `wide`, narrow if not), else any free one, else
    /// a new one.
    pub(super) fn temp_of_width(&mut self, storage: Storage, wide: bool) -> usize {
        let fits = |slot: usize| self.slots[slot].storage == storage;
        let free = &self.free_temps;
        let slot = match free
            .iter()
            .position(|&slot| fits(slot) && self.is_wide(slot) == wide)
            .or_else(|| free.iter().position(|&slot| fits(slot)))
        {
            Some(index) => {
                let slot = self.free_temps.swap_remove(index);
                self.lifetime_start(slot);
                slot
            }
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

    /// `lifetime.start` of a temp taken over from an earlier owner, before its first write.
    /// GenX_IR's liveness of a `cm` kernel lets no write under SIMD control flow (a CAS loop,
    /// a predicated node's skipped channels) end a live range, so without it a temp reused by
    /// a later expansion stays live from the earlier one through everything between: DG2
    /// spilled and MTL failed to re-encode for register pressure that was not there, and PVC
    /// crashed (SIGSEGV in its software scoreboarding). A lifetime start is a no-mask kill
    /// for the liveness; it sets no register.
    fn lifetime_start(&mut self, slot: usize) {
        self.body.push_str("    lifetime.start ");
        self.write_name(slot, View::Base);
        self.body.push('\n');
    }

    /// Writes a slot's (view's) name into the body.
    pub(super) fn name(&mut self, slot: usize, view: View) {
        let at = self.body.len();
        self.write_name(slot, view);
        self.mark_slot(slot, view, at);
    }

    /// Writes a slot's (view's) name into the body, marking no hole: for the name within a
    /// hole of its own (a temp's `lifetime.start`).
    fn write_name(&mut self, slot: usize, view: View) {
        self.slots[slot].views |= 1 << view as u8;
        write_view_name(
            &mut self.body,
            &self.names,
            slot,
            self.slots[slot].name,
            view,
        );
    }

    pub(super) fn src(&mut self, slot: usize, view: View, col: u32, stride: u32) {
        self.name(slot, view);
        if self.slots[slot].storage == Storage::Pred {
            return;
        }
        spell!(&mut self.body, "(0,", col, ")<", stride, ";1,0>");
    }

    pub(super) fn neg_src(&mut self, slot: usize, view: View, col: u32, stride: u32) {
        self.body.push_str("(-)");
        self.src(slot, view, col, stride);
    }

    pub(super) fn dst(&mut self, slot: usize, view: View, col: u32, stride: u32) {
        self.name(slot, view);
        if self.slots[slot].storage == Storage::Pred {
            return;
        }
        spell!(&mut self.body, "(0,", col, ")<", stride, '>');
    }

    /// `    [(P)] op (M1, N) `
    pub(super) fn op_start(&mut self, pred: Option<(usize, bool)>, op: &str, exec: u32) {
        self.body.push_str("    ");
        if let Some((slot, negated)) = pred {
            self.body.push('(');
            if negated {
                self.body.push('!');
            }
            self.name(slot, View::Base);
            self.body.push_str(") ");
        }
        spell!(&mut self.body, op, " (M1, ", exec, ") ");
    }
}

impl<'m> VisaPrinter<'m> {
    pub(super) fn raw_or_null(&mut self, slot: Option<usize>, view: View, suffix: &str) {
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
    pub(super) fn line(
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
            spell!(&mut self.body, ' ', Hex::prefixed(imm), ":ud");
        }
        self.body.push('\n');
    }

    /// `op (M1, exec) dst a [-]b`, all three whole registers in one view.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn binary_line(
        &mut self,
        op: &str,
        exec: u32,
        view: View,
        dst: usize,
        a: usize,
        b: usize,
        negate_b: bool,
    ) {
        self.line(
            op,
            exec,
            (dst, view, 0, 1),
            (a, view, 0, 1),
            Some((b, view, 0, 1, negate_b)),
            None,
        );
    }

    pub(super) fn mask(&mut self, slot: usize, bits: u32) {
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
}
