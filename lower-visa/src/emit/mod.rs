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
//! native split), so the memory primitives (`VisaPrinter::memory`, the one place natives are
//! spelled) and the ALU primitives (`VisaPrinter::alu`) are each printed in one place.
//!
//! Data layout: 8/16/32-bit data live in dwords (`ud`), zero-extended (16-bit atomics take
//! them unpacked, as `.16`/`d16c32` want); 64-bit data in `uq`. Typed views (`f`, `d`, `hf`,
//! `w`, `b`, dword halves of a qword, `q`, `df`) are `.decl … alias=<…>` of the same storage.
//! On platforms without 64-bit integer ALU, 64-bit data are only moved, compared for equality
//! and combined bitwise, on dword halves; the legality table refuses the rest there.

use cranelift_entity::{EntityRef, SecondaryMap};
use std::borrow::Cow;
use std::collections::HashMap;

use atomir_ir::expand::{Block, Prim, PrimType, Var};
use atomir_ir::lower::{
    self, At, Binding, Expanding, FenceBracket, Fragment, FragmentResult, Hole, Label, NameRules,
    Namer, Params, Printer, Recorder, Replay, SpliceNames, Style, Suffix, Unprintable,
};
use atomir_ir::{spell, AddressSpace, Inst, Kernel, Module, Operand, Scalar, Value, ValueType};

use crate::legal::{input_layout, Surface, VisaPlan};
use crate::target::VisaTarget;
use error::{EmitError, EmitPart};

mod error;
mod flow;
mod native;
mod prim;
mod regs;
mod replay;

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
    /// Every view, in the order of their numbers.
    const ALL: [View; 9] = [
        View::Base,
        View::F,
        View::D,
        View::Hf,
        View::W,
        View::B,
        View::Halves,
        View::Q,
        View::Df,
    ];

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

/// The slot of each IR value, and of each lane of a vector value that has one of its own.
#[derive(Debug, Default)]
struct ValueSlots {
    /// By value: the slot of the whole value, [`ValueSlots::NONE`] until it has one. Dense,
    /// four bytes a value, sized once per kernel.
    whole: SecondaryMap<Value, u32>,
    /// By value and lane: the slots of lanes (vector values only).
    lanes: HashMap<(Value, u8), usize>,
}

impl ValueSlots {
    const NONE: u32 = u32::MAX;

    /// Forgets every slot, ready for the values of `kernel`.
    fn clear(&mut self, kernel: &Kernel) {
        self.whole = SecondaryMap::with_default(Self::NONE);
        self.whole.resize(kernel.values.len());
        self.lanes.clear();
    }

    #[inline]
    fn get(&self, value: Value, lane: Option<u8>) -> Option<usize> {
        match lane {
            None => Some(self.whole[value])
                .filter(|&slot| slot != Self::NONE)
                .map(|slot| slot as usize),
            Some(lane) => self.lanes.get(&(value, lane)).copied(),
        }
    }

    fn insert(&mut self, value: Value, lane: Option<u8>, slot: usize) {
        match lane {
            None => self.whole[value] = slot as u32,
            Some(lane) => {
                self.lanes.insert((value, lane), slot);
            }
        }
    }
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
    /// Where the code goes: while a hook runs, the output itself ([`VisaPrinter::writing`]),
    /// so that a kernel's code is written once, straight into it; between hooks, empty.
    body: String,
    /// Where the current kernel starts in the output: its head (declarations, inputs) goes
    /// there at its end, once every variable is known.
    kernel_start: usize,
    /// A spliced fragment's declarations, which it hands over line by line (a kernel's go
    /// straight into the output).
    decls: String,
    slots: Vec<Slot>,
    value_slots: ValueSlots,
    var_slots: Vec<usize>,
    /// The slots of the kernel's parameters (the first ones): inputs, laid out by the
    /// signature's rule, whose declarations keep the size of their payload.
    param_slots: usize,
    temps: u32,
    /// The name of each value of the current kernel, and how made-up names are spelled.
    names: Names<'m>,
    /// The name of each kernel of the module, by index, and the current kernel's index.
    kernel_names: Vec<Cow<'m, str>>,
    kernel_index: usize,
    namer: Namer,
    /// Temps of earlier expansions, free to reuse: an expansion's temps die with it (its
    /// results are copied to the IR's values), and GenX_IR's PVC register allocator crashes on
    /// kernels with about a hundred distinct SIMD16 qword variables, however short-lived.
    free_temps: Vec<usize>,
    /// Temps of the current expansion, freed at its end.
    busy_temps: Vec<usize>,
    /// The current expansion's key ([`Expanding::expansion_key`]): where what the printer
    /// derived from it is.
    expansion_key: Option<usize>,
    /// The buffers of the temporaries' allocation.
    allocation: flow::Allocation,
    /// By expansion key ([`Expanding::expansion_key`]): what the printer derives from that
    /// expansion alone, computed for its first instruction.
    derived: Vec<Option<flow::Derived>>,
    /// What the printer derives from an expansion without a key, for that expansion.
    fresh: flow::Derived,
    /// The registers of the current expansion's literal operands (and zeroed results) and
    /// their values, set at its entry block (after its leading fence).
    literals: Vec<(usize, u128)>,
    /// The literal registers that only ALU primitives outside the expansion's entry block
    /// read, and their values: set right before each such primitive instead (see
    /// `set_rematerialized`).
    rematerialized: Vec<(usize, u128)>,
    /// Whether the expansion's entry block is being printed.
    in_entry: bool,
    /// The current node's predicate, and whether its expansion is one block.
    pred: Option<(usize, bool)>,
    single: bool,
    surface: Surface,
    /// Whether the expansion jumps to its end (which then needs a label).
    reached_done: bool,
    /// The result of the instruction a spliced fragment holds.
    spliced_result: Option<Value>,
    /// Marks the holes of an expansion's text while a template of it is recorded.
    recorder: Recorder,
    /// The registers the current expansion's steps name, by local ([`replay`]): one per
    /// variable, then the predicate's, the result lanes', and the scratch temps taken.
    locals: Vec<usize>,
    /// How many of `locals` the shape names: the scratch temps taken after it are holes.
    shaped_locals: usize,
    /// The widenings of values' registers marked at the expansion's end (`mark_cover`).
    deferred_covers: Vec<Hole>,
}

impl<'m> Printer<'m> for VisaPrinter<'m> {
    type Plan = VisaPlan;
    const STYLE: Style = Style::new(Params::Copies)
        .bracketing_expansions()
        .heading_kernels_at_end();

    fn module_begin(&mut self, module: &'m Module, out: &mut String) {
        let kernels = module.kernels.iter().map(|kernel| kernel.name.as_str());
        Namer::new(&KERNEL_NAMES).assign_distinct(kernels, &mut self.kernel_names);
        if self.complete {
            out.push_str(".version 4.1\n");
        }
    }

    fn kernel_begin(&mut self, kernel: &'m Kernel, index: usize, out: &mut String) {
        self.kernel_start = out.len();
        self.writing(out, |printer| printer.kernel_begin(kernel, index));
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
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.current()?;
        self.writing(out, |printer| printer.standalone_fence(fence));
        Ok(())
    }

    fn expansion_begin(
        &mut self,
        x: &Expanding<'_, VisaPlan>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let kernel = self.current()?;
        self.writing(out, |printer| {
            printer.expansion_begin(kernel, x.inst, x.atomic, x.expansion, x.expansion_key)
        })
        .map_err(Unprintable::from)
    }

    fn block(&mut self, x: &Expanding<'_, VisaPlan>, block: Block, entry: bool, out: &mut String) {
        self.in_entry = entry;
        self.writing(out, |printer| {
            if entry {
                printer.set_literals();
            } else {
                printer.label(x.inst, Label::Block(block));
                printer.body.push_str(":\n");
            }
        });
    }

    fn prim(
        &mut self,
        x: &Expanding<'_, VisaPlan>,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.current()?;
        self.writing(out, |printer| {
            printer.step(x.plan, x.expansion, prim, bracket)
        })
        .map_err(Unprintable::from)
    }

    fn copy(
        &mut self,
        _x: &Expanding<'_, VisaPlan>,
        dst: Var,
        src: Var,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let (to, from) = (self.var_slots[dst.index()], self.var_slots[src.index()]);
        if self.kernel.is_some() && to != from {
            self.writing(out, |printer| printer.copy(None, to, from));
        }
        Ok(())
    }

    fn branch(
        &mut self,
        x: &Expanding<'_, VisaPlan>,
        cond: Var,
        negated: bool,
        to: Label,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        if self.kernel.is_some() {
            self.writing(out, |printer| {
                printer.goto(x.inst, Some((cond, negated)), to)
            });
        }
        Ok(())
    }

    fn jump(
        &mut self,
        x: &Expanding<'_, VisaPlan>,
        to: Label,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        if self.kernel.is_some() {
            self.writing(out, |printer| printer.goto(x.inst, None, to));
        }
        Ok(())
    }

    fn label(
        &mut self,
        x: &Expanding<'_, VisaPlan>,
        label: Label,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.writing(out, |printer| {
            printer.label(x.inst, label);
            printer.body.push_str(":\n");
        });
        Ok(())
    }

    fn expansion_fence(
        &mut self,
        x: &Expanding<'_, VisaPlan>,
        fence: atomir_ir::lower::Fence,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        self.current()?;
        self.writing(out, |printer| {
            printer.fence(Some(fence), atomir_ir::expand::mem_attrs(x.node))
        });
        Ok(())
    }

    fn expansion_end(
        &mut self,
        x: &Expanding<'_, VisaPlan>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let kernel = self.current()?;
        self.writing(out, |printer| {
            printer.expansion_end(kernel, x.inst, x.atomic, x.expansion)
        });
        Ok(())
    }

    fn replay(&mut self) -> Option<&mut dyn Replay<VisaPlan>> {
        Some(self)
    }

    fn kernel_end(&mut self, out: &mut String) {
        self.kernel_end(out);
    }

    fn module_end(&mut self, _out: &mut String) {}

    fn splice_begin(
        &mut self,
        kernel: &'m Kernel,
        inst: Inst,
        names: &'m SpliceNames,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        self.splice_begin(kernel, inst, names)
    }

    fn splice_end(
        &mut self,
        _out: &mut String,
        fragment: &mut Fragment,
    ) -> Result<(), Unprintable> {
        self.splice_end(fragment)
    }
}

impl<'m> VisaPrinter<'m> {
    /// Runs `print` with the output as the printer's body, so that what it prints goes
    /// straight into the output; the body is empty again afterwards.
    fn writing<R>(&mut self, out: &mut String, print: impl FnOnce(&mut Self) -> R) -> R {
        std::mem::swap(&mut self.body, out);
        let result = print(self);
        std::mem::swap(&mut self.body, out);
        result
    }

    fn kernel_begin(&mut self, kernel: &'m Kernel, index: usize) {
        self.kernel = Some(kernel);
        self.kernel_index = index;
        self.slots.clear();
        // A slot per value and a few temporaries: grown once, not doubled along the kernel.
        self.slots.reserve(kernel.values.len() + 16);
        self.value_slots.clear(kernel);
        self.temps = 0;
        let values = kernel.values.values().map(|data| &data.name[..]);
        self.namer.assign_distinct(values, &mut self.names.kernel);
        self.names.splice = None;
        self.free_temps.clear();
        self.busy_temps.clear();
        let n = self.n;
        // Parameters first, so that their inputs lie in order.
        for param in &kernel.params {
            self.value_slot(kernel, param.value, None);
        }
        self.param_slots = self.slots.len();
        if self.complete {
            // Predicates cannot be kernel inputs: they arrive as dwords.
            for param in &kernel.params {
                if param.ty == ValueType::Pred {
                    let slot = self.value_slot(kernel, param.value, None);
                    spell!(&mut self.body, "    cmp.ne (M1, ", n, ") ");
                    self.name(slot, View::Base);
                    self.body.push(' ');
                    write_value_name(&mut self.body, &self.names, param.value);
                    spell!(&mut self.body, PREDICATE_INPUT, "(0,0)<1;1,0> 0x0:ud\n");
                }
            }
        }
    }

    /// Puts the kernel's head (its name, declarations and inputs) before its code, which the
    /// hooks wrote into `out` from [`VisaPrinter::kernel_start`] on: printed after the code,
    /// once every variable is known, then moved in front of it, so that no buffer holds it.
    fn kernel_end(&mut self, out: &mut String) {
        let Some(kernel) = self.kernel.take() else {
            return;
        };
        let name = self.kernel_names.get(self.kernel_index);
        let name = name.cloned().unwrap_or_default();
        let complete = self.complete;
        let code_end = out.len();
        let head = &mut *out;
        if complete {
            spell!(head, ".kernel \"", name, "\"\n");
        } else {
            spell!(head, "// kernel ", kernel.name, '\n');
        }
        self.write_decls(kernel, head);
        if complete {
            let layout = input_layout(self.target, &kernel.params);
            for (param, (offset, size)) in kernel.params.iter().zip(layout) {
                head.push_str(".input ");
                write_value_name(head, &self.names, param.value);
                if param.ty == ValueType::Pred {
                    head.push_str(PREDICATE_INPUT);
                }
                spell!(head, " offset=", offset, " size=", size, '\n');
            }
            head.push_str(".kernel_attr Target=\"cm\"\n");
            spell!(head, ".function \"", name, "_BB_0\"\n\n", name, "_BB_0:\n");
        }
        // Where `out` ended at the kernel's beginning, so a character boundary.
        let start = self.kernel_start.min(code_end);
        lower::move_to_front(out, start, code_end);
        if complete {
            out.push_str("    ret (M1, 1)\n");
        }
    }

    fn splice_begin(
        &mut self,
        kernel: &'m Kernel,
        inst: Inst,
        names: &'m SpliceNames,
    ) -> Result<(), Unprintable> {
        if self.complete {
            return Err(Unprintable(
                "a spliced fragment in a complete module".into(),
            ));
        }
        self.kernel = Some(kernel);
        self.decls.clear();
        self.slots.clear();
        self.param_slots = 0;
        self.value_slots.clear(kernel);
        self.temps = 0;
        self.free_temps.clear();
        self.busy_temps.clear();
        let result = kernel.atomic(inst).and_then(|atomic| atomic.result);
        let unbound = result
            .filter(|&value| names.binding(value).is_none())
            .map(|value| {
                let lanes: Binding = match kernel.value_type(value) {
                    ValueType::Data(_, shape) if shape.is_vector() => (0..shape.len())
                        .map(|lane| names.made("result", Some(lane as u32)))
                        .collect(),
                    _ => smallvec::smallvec![names.made("result", None)],
                };
                (value, lanes)
            });
        self.names.splice = Some((names, unbound));
        self.spliced_result = result;
        Ok(())
    }

    /// Hands the fragment its temporaries and result; the hooks wrote its code into `out`.
    fn splice_end(&mut self, fragment: &mut Fragment) -> Result<(), Unprintable> {
        let kernel = self
            .kernel
            .take()
            .ok_or_else(|| Unprintable("a fragment's end outside a fragment".into()))?;
        let mut decls = std::mem::take(&mut self.decls);
        decls.clear();
        self.write_decls(kernel, &mut decls);
        self.decls = decls;
        for line in self.decls.lines() {
            let declared = line
                .strip_prefix(".decl ")
                .and_then(|decl| decl.split_once(' '));
            let Some((name, ty)) = declared else {
                return Err(Unprintable(format!(
                    "a declaration the printer cannot read: {line}"
                )));
            };
            fragment.temp(name.to_owned(), ty);
        }
        if let (Some(value), Some((splice, _))) = (self.spliced_result, &self.names.splice) {
            fragment.results.push(FragmentResult {
                value,
                names: self.names.spliced(value).iter().cloned().collect(),
                bound: splice.binding(value).is_some(),
            });
        }
        self.names.splice = None;
        Ok(())
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

/// How a spliced fragment takes a value of type `ty`: one variable per lane, each declared as
/// the printer keeps it (a dword, a qword or a predicate per SIMD channel). A qword a message
/// may write or address is declared for the channels GenX_IR gives the message
/// ([`VisaTarget::message_channels`]: SIMD32 on PVC), as the fragment's own temporaries are.
pub(crate) fn splice_type(target: VisaTarget, ty: ValueType) -> atomir_ir::lower::SpliceType {
    let (storage, lanes) = value_storage(ty);
    let ty = match storage {
        Storage::Pred => format!("v_type=P num_elts={}", target.simd()),
        Storage::Dword => format!("v_type=G type=ud num_elts={} align=GRF", target.simd()),
        Storage::Qword => format!(
            "v_type=G type=uq num_elts={} align=GRF",
            target.message_channels()
        ),
    };
    atomir_ir::lower::SpliceType {
        names: lanes as usize,
        ty,
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

/// The names of a kernel's values, and how the printer spells what it makes up: a kernel's
/// (`v_<name>`, lanes `v_<name>__e<i>`, temporaries `t<k>`, labels `L<inst>_…`), or a spliced
/// fragment's (the client's variables, and `<prefix>…` for the rest).
#[derive(Debug, Default)]
pub(crate) struct Names<'m> {
    /// The name of each value of the current kernel (after `v_`), by index.
    kernel: Vec<Cow<'m, str>>,
    /// In a fragment: the client's names, and the fragment's own names of an unbound result.
    splice: Option<(&'m SpliceNames, Option<(Value, Binding)>)>,
}

impl Names<'_> {
    /// In a fragment, the names of `value`: one, or one per lane.
    fn spliced(&self, value: Value) -> &[String] {
        match &self.splice {
            Some((_, Some((result, names)))) if *result == value => names,
            Some((splice, _)) => splice.binding(value).unwrap_or(&[]),
            None => &[],
        }
    }

    /// Whether a slot is a variable of the client's, declared by the client.
    fn is_clients(&self, name: SlotName) -> bool {
        let Some((splice, _)) = self.splice else {
            return false;
        };
        match name {
            SlotName::Value(v) | SlotName::Elem(v, _) => splice.binding(v).is_some(),
            SlotName::Temp(_) => false,
        }
    }
}

fn write_value_name(out: &mut String, names: &Names<'_>, value: Value) {
    match &names.splice {
        Some(_) => out.push_str(names.spliced(value).first().map_or("", |n| n)),
        None => write_kernel_value_name(out, &names.kernel, value),
    }
}

fn write_slot_name(out: &mut String, names: &Names<'_>, name: SlotName) {
    match (name, &names.splice) {
        (_, None) => write_kernel_slot_name(out, &names.kernel, name),
        (SlotName::Value(v), Some(_)) => write_value_name(out, names, v),
        (SlotName::Elem(v, i), Some(_)) => {
            out.push_str(names.spliced(v).get(usize::from(i)).map_or("", |n| n));
        }
        (SlotName::Temp(k), Some((splice, _))) => {
            splice.write_made(out, "t", Some(k));
        }
    }
}

/// A value's name in a kernel (not a fragment), given the kernel's names: `v_<name>`.
#[inline(always)]
fn write_kernel_value_name(out: &mut String, kernel_names: &[Cow<'_, str>], value: Value) {
    out.push_str("v_");
    out.push_str(&kernel_names[value.index()]);
}

/// A slot's name in a kernel (not a fragment), given the kernel's names: a value's, a lane's
/// (`__e<i>` after its value's) or a temp's (`t<k>`). Always inline (the compiler kept it a
/// call), since a kernel's declarations and a template's holes spell about two an atomic.
#[inline(always)]
fn write_kernel_slot_name(out: &mut String, kernel_names: &[Cow<'_, str>], name: SlotName) {
    match name {
        SlotName::Value(v) => write_kernel_value_name(out, kernel_names, v),
        SlotName::Elem(v, i) => {
            write_kernel_value_name(out, kernel_names, v);
            spell!(out, LANE, i);
        }
        SlotName::Temp(k) => spell!(out, 't', k),
    }
}

/// Writes the name of a typed view of slot number `index`: the slot's name and the view's
/// suffix, except that in a fragment a view of a client's variable is the fragment's own
/// (`<prefix>a<index>__<view>`), so that fragments viewing one variable never clash.
///
/// Inlined: a replay spells about one an atomic, and the call cost a fifth of it.
#[inline]
fn write_view_name(out: &mut String, names: &Names<'_>, index: usize, name: SlotName, view: View) {
    match names.splice {
        None => write_kernel_slot_name(out, &names.kernel, name),
        Some((splice, _)) if view != View::Base && names.is_clients(name) => {
            splice.write_made(out, "a", Some(index as u32));
        }
        Some(_) => write_slot_name(out, names, name),
    }
    out.push_str(view.suffix());
}
