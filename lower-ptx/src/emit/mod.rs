//! Printing PTX: one native node (`native.rs`), the primitives of a shared expansion
//! (`flow.rs`, `prim.rs`, `warp.rs`), and the `.entry` around them (`entry.rs`, with a caller's
//! [`EntryHook`] where it gives one, `hook.rs`).
//!
//! Everything is written into `&mut String`s that the caller reuses; the native path allocates
//! nothing per instruction.
//!
//! # Rewrites
//!
//! An expansion's primitives are printed one by one, but where the facts of its variables
//! ([`Facts`], computed by the driver in `atomir_ir` once per plan beside its walk and handed
//! over in [`Expanding::facts`], each one that is about a value checked by the interpreter
//! wherever it is read: `ir/tests/expand_linear_walk.rs`) allow it,
//! the printer chooses other instructions than a primitive's own, because ptxas makes shorter
//! SASS of them (each measured where the rewrite is). Each rewrite, the fact it rests on, and
//! the tests: `tests/printer_rewrites.rs` reads what each leaves out or chooses from the printed
//! text; what the printed code computes is checked by running it, by the GPU harness
//! (`tests/gpu/README.md`): `gpu_cases gen`/`check` runs per-thread test entries of every
//! valid op, type and shape with 128 threads per element, `gpu_cases kernels-gen`/
//! `kernels-check` random kernels of up to 8 atomics against the semantics and against llc.
//! - **Masked on read** ([`Facts::zero_extended`], a register fact, and the register cache
//!   `KernelEmitter::masked`): an 8-bit variable lives in a 16-bit register whose high byte is
//!   unspecified; it is masked (`and.b16 0xff`) only where a primitive reads above the byte
//!   ([`reads_above_byte`](atomir_ir::lower::reads_above_byte)) and the register is not known
//!   zero-extended, once per block.
//!   Text: `byte_loops_mask_only_where_the_high_byte_is_read_and_extract_once`. Run: GPU
//!   harness (every 8-bit case).
//! - **Top byte not cleared** ([`Facts::byte_shifted_out`], a register fact): the zero
//!   extension of a byte that only left shifts read past bit 24 is a plain `cvt`. Text:
//!   `word_addresses_are_folded_into_their_accesses_and_top_bytes_are_not_masked`. Run: GPU
//!   harness (8-bit vector loops).
//! - **Folded address** ([`Facts::folded_address`], checked by the interpreter): an address
//!   `base + bytes` that at most two accesses read is printed `[base+bytes]` in each, and no
//!   `add.u64` is printed for it. Text: the same test. Run: GPU harness (split vectors).
//! - **Upper half unpacked** ([`Facts::shifted`] by 16, checked by the interpreter): the
//!   truncation of a word shifted right by 16 is the high half of `mov.b32 {lo, hi}`, for a
//!   result and for 16-bit float halves on sm_90 and later (`unpack_float_halves`). Text:
//!   `loops_unpack_float_halves_and_shift_integer_ones`. Run: GPU harness (16-bit vectors).
//! - **Signed byte from its word** ([`Facts::part`], checked by the interpreter): an 8-bit
//!   signed min/max operand truncated from a word is extracted with `bfe.s32` instead of
//!   truncated and `cvt.s16.s8`. Text: `signed_byte_lanes_are_sign_extended_from_their_word`.
//!   Run: GPU harness (s8 min/max).
//! - **Result stored as its words** ([`Facts::part`] of each lane where the last block returns,
//!   checked by the interpreter there; the entry's `EntryIo`): an `.entry` stores a result
//!   whose 8/16-bit lanes are the parts of words as those words, and a 16-bit vector load's
//!   result as the words loaded. Text:
//!   `an_entry_stores_a_result_of_byte_lanes_as_the_words_that_hold_them`. Run: GPU harness
//!   (per-thread test entries store every result).
//! - **16-bit parameters read zero-extended** (the entry's `EntryIo`, no fact: the entry
//!   loads the lane a second time with `ld.u16` into a 32-bit register): the zero extension of
//!   an operand bound from such a lane is that register, and two such lanes are packed by
//!   `prmt`. Text: `an_entry_reads_its_16_bit_parameters_zero_extended_for_the_body_to_widen_by`.
//!   Run: GPU harness (per-thread test entries read every operand so).
//! - **Warp peers found only where keys may repeat** (`warp_peers_unless_distinct`, no fact):
//!   `match.any.sync` runs only where two active lanes' keys fall in one bucket. Run: GPU
//!   harness (`kernels-*`, and the contention runs of `tests/gpu/README.md`).

use std::borrow::Cow;

use atomir_ir::expand::{Block, Expansion, Prim, PrimType, Var};
use atomir_ir::{AddressSpace, AtomicInst, Inst, Kernel, Value};

use atomir_ir::lower::{
    At, Binding, Expanding, Facts, Fence, FenceBracket, FenceSide, Fragment, Label, NameRules,
    Namer, Params, Printer, SpliceNames, Style, Unprintable, PTX_ENTRY_NAMES,
};
use atomir_ir::{spell, Module};

use crate::legal::{Form, PtxPlan, RmwForms};
use crate::target::PtxTarget;

mod entry;
mod flow;
mod hook;
mod native;
mod prim;
mod regs;
mod shared;
mod warp;
use entry::{entry_begin, entry_end, EntryIo};
pub use hook::{EntryHook, EntryRegister, EntryRegisters};
use shared::{SharedBodies, Sharing};

/// A register class: PTX declares registers by bit size; 8-bit data lives in 16-bit registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Pred,
    B16,
    B32,
    B64,
    B128,
}

impl Class {
    const ALL: [Class; 5] = [Class::Pred, Class::B16, Class::B32, Class::B64, Class::B128];

    /// The letter after a temporary's prefix: `%_r7` in a kernel, `%<prefix>r7` in a fragment.
    const fn letter(self) -> &'static str {
        match self {
            Class::Pred => "p",
            Class::B16 => "h",
            Class::B32 => "r",
            Class::B64 => "d",
            Class::B128 => "q",
        }
    }

    const fn decl(self) -> &'static str {
        match self {
            Class::Pred => ".pred",
            Class::B16 => ".b16",
            Class::B32 => ".b32",
            Class::B64 => ".b64",
            Class::B128 => ".b128",
        }
    }

    const fn bits(self) -> u32 {
        match self {
            Class::Pred => 1,
            Class::B16 => 16,
            Class::B32 => 32,
            Class::B64 => 64,
            Class::B128 => 128,
        }
    }

    const fn of_bits(bits: u32) -> Class {
        match bits {
            1 => Class::Pred,
            8 | 16 => Class::B16,
            32 => Class::B32,
            64 => Class::B64,
            _ => Class::B128,
        }
    }

    const fn of_prim(ty: PrimType) -> Class {
        Class::of_bits(ty.bits())
    }

    const fn index(self) -> usize {
        self as usize
    }

    /// The register a warp shuffle or scan of a value of this class runs on: 32 bits, or 64
    /// for a 64-bit value (shuffled as two halves).
    const fn warp_register(self) -> Class {
        match self {
            Class::B64 => Class::B64,
            _ => Class::B32,
        }
    }
}

/// How a spliced fragment takes a value of type `ty`: a register per lane, declared `.reg
/// <class>` (8-bit data in `.b16`, f16x2/bf16x2 in `.b32`, every pointer in `.b64`).
pub(crate) fn splice_type(ty: atomir_ir::ValueType) -> atomir_ir::lower::SpliceType {
    let (class, lanes) = regs::value_class(ty);
    atomir_ir::lower::SpliceType {
        names: lanes,
        ty: class.decl().to_owned(),
    }
}

/// A temporary register (`%_r7`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Temp {
    class: Class,
    number: u32,
}

/// A source operand: a temporary, or (a lane of) a value of the kernel.
#[derive(Clone, Copy, Debug)]
enum Src {
    Temp(Temp),
    Value(Value, Option<usize>),
}

/// The current expansion as a primitive's printing reads it: its variables' types, what the
/// driver knows of them ([`Facts`], computed once per plan with its walk; see "Rewrites"), and
/// their registers.
#[derive(Clone, Copy)]
struct Walk<'x> {
    expansion: &'x Expansion,
    facts: &'x Facts,
    vars: &'x [Temp],
}

/// How kernel parameters reach the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ParamMode {
    /// Only the instructions (no entry, no declarations): readable output for diffs.
    Listing,
    /// A complete `.entry` whose parameters are the kernel's.
    Entry,
    /// [`ParamMode::Entry`] whose `ptr.generic` parameters may point to shared memory
    /// ([`atomir_ir::GenericParams::Anywhere`]).
    EntryGenericAnywhere,
}

impl ParamMode {
    /// The memory a `ptr.generic` kernel parameter points into: global in an `.entry` whose
    /// parameters are the kernel's, as a CUDA launch can only hand a kernel a global address
    /// (LLVM's NVPTX backend assumes the same of a kernel's pointer parameters), so the entry
    /// converts it with `cvta.to.global` and a generic node through it is a `.global` node;
    /// unknown in a listing (the client's registers) and where the client says so.
    pub(crate) const fn generic_params_space(self) -> AddressSpace {
        match self {
            ParamMode::Entry => AddressSpace::Global,
            ParamMode::EntryGenericAnywhere | ParamMode::Listing => AddressSpace::Generic,
        }
    }
}

/// Register names: a letter first (the printer's temporaries start with `_`), no `$` (it
/// separates a vector's lanes, `%name$<i>`), not a special register or its prefix.
static REGISTER_NAMES: NameRules = NameRules {
    char_ok: |c| c.is_ascii_alphanumeric() || c == '_',
    well_formed: |name| name.starts_with(|c: char| c.is_ascii_alphabetic()),
    lead: "v",
    keywords: &[
        "tid",
        "ntid",
        "laneid",
        "warpid",
        "nwarpid",
        "ctaid",
        "nctaid",
        "smid",
        "nsmid",
        "gridid",
        "clock",
        "clock64",
        "clock_hi",
        "globaltimer",
        "globaltimer_lo",
        "globaltimer_hi",
        "total_smem_size",
        "aggr_smem_size",
        "dynamic_smem_size",
        "current_graph_exec",
        "is_explicit_cluster",
        "clusterid",
        "nclusterid",
        "cluster_ctaid",
        "cluster_nctaid",
        "cluster_ctarank",
        "cluster_nctarank",
        "warpsz",
    ],
    prefixes: &["lanemask_", "pm", "envreg", "reserved_smem"],
    suffixes: &[],
};

/// The registers of a kernel's values: one name per value, by index (lane `i` of a vector value
/// is `%name$i`), or in a spliced fragment the client's bindings, looked up where they are
/// (one name, or one per lane) and the fragment's own names of an unbound result.
#[derive(Debug)]
pub(crate) enum ValueNames<'k> {
    /// A kernel's: one name per value (a vector's lanes are `name$i`).
    Kernel(Vec<Cow<'k, str>>),
    Spliced {
        splice: &'k SpliceNames,
        result: Option<(Value, Binding)>,
    },
}

impl ValueNames<'_> {
    /// The names of `value`: one, or in a fragment one per lane where the client bound lanes.
    fn of(&self, value: Value) -> Names<'_> {
        match self {
            ValueNames::Kernel(names) => Names::One(&names[value.as_u32() as usize]),
            ValueNames::Spliced { splice, result } => Names::Lanes(match result {
                Some((result, names)) if *result == value => names,
                _ => splice.binding(value).unwrap_or(&[]),
            }),
        }
    }
}

/// The names of one value: a kernel's one name, or a fragment's binding.
#[derive(Clone, Copy)]
enum Names<'a> {
    One(&'a str),
    Lanes(&'a [String]),
}

impl Names<'_> {
    /// The names as a fragment's result carries them.
    fn to_binding(self) -> Binding {
        match self {
            Names::One(name) => smallvec::smallvec![name.to_owned()],
            Names::Lanes(lanes) => lanes.iter().cloned().collect(),
        }
    }
}

/// Writes the register of a value (its name from [`REGISTER_NAMES`], or the client's); lane
/// `i` of a vector value is `%name$i`, or the client's register of that lane.
fn write_value(out: &mut String, names: &ValueNames<'_>, value: Value, lane: Option<usize>) {
    out.push('%');
    let name = match names.of(value) {
        Names::One(name) => name,
        Names::Lanes(lanes) => match (lane, lanes) {
            (Some(lane), lanes) if lanes.len() > 1 => return out.push_str(&lanes[lane]),
            (Some(_), [name]) => name,
            (_, lanes) => return out.push_str(lanes.first().map_or("", String::as_str)),
        },
    };
    out.push_str(name);
    if let Some(lane) = lane {
        spell!(out, '$', lane);
    }
}

/// How the printer names its temporaries and labels: as a kernel's (`%_r7`, `$L3_b1`), or with
/// a fragment's prefix (`%<prefix>r7`, `$<prefix>b1`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum MadeNames<'k> {
    Kernel,
    /// A shared function's ([`shared`]): temporaries as a kernel's, labels without an
    /// instruction's number (`$L_b1`).
    Shared,
    Spliced(&'k SpliceNames),
}

fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// Emits the body of one kernel, counting the temporaries it uses.
pub(crate) struct KernelEmitter<'k> {
    pub target: PtxTarget,
    pub kernel: &'k Kernel,
    counts: [u32; 5],
    /// The block of the current expansion being printed: a fact about a part of a word holds
    /// only in the block that took it.
    block: Block,
    /// Per expansion variable of type `I8`: its masked copy (the byte with zero above it in a
    /// 16-bit register), made at its first read in a block that needs it, and reused by that
    /// block's later reads. A register cache, as `vars` is, valid in the block that made it.
    masked: Vec<Option<Temp>>,
    /// The registers of the current expansion's variables.
    vars: Vec<Temp>,
    /// The native forms of the current expansion's `Rmw` primitives.
    rmw: RmwForms,
    /// The `createpolicy` register of the current expansion's hinted `Rmw` primitives.
    rmw_policy: Option<Temp>,
    /// The register name of each value.
    names: ValueNames<'k>,
    /// How temporaries and labels are named.
    made: MadeNames<'k>,
    /// The result of the instruction a spliced fragment holds.
    spliced_result: Option<Value>,
    /// Whether the current expansion unpacks every upper 16-bit half with `mov.b32 {lo, hi}`,
    /// not only a result's: where its halves are f16/bf16 elements (every op of those types but
    /// `cas`, which compares bits) on sm_90 and later. ptxas for those architectures then reads
    /// the half where it keeps the shift and `cvt` (sm_90: a v8.f16x2 acquire max on `.shared`
    /// 239 SASS instructions against 190); integer halves, and a cas's, are one to four
    /// instructions longer unpacked. Measured on every f16/bf16/f16x2/bf16x2 v2/v4 op but cas,
    /// relaxed/acquire/acq_rel, global and shared, result used and dead (864 kernels), with
    /// ptxas 13.5: SASS instructions sm_90 111,544 -> 107,064, sm_100 112,360 -> 107,880,
    /// sm_120 111,896 -> 107,048, but sm_75 157,132 -> 158,132, sm_80 141,948 -> 142,540,
    /// sm_89 141,084 -> 141,676.
    unpack_float_halves: bool,
    /// What the `.entry` around the body asks of its expansions; none in a listing or a
    /// fragment.
    entry: Option<EntryIo>,
}

/// The caller's hook, if it gave one.
fn hook_of(hook: &mut Option<Box<dyn EntryHook>>) -> Option<&mut dyn EntryHook> {
    match hook {
        Some(hook) => Some(hook.as_mut()),
        None => None,
    }
}

/// The PTX printer of one lowering: a listing, or `.entry`s (with a caller's [`EntryHook`]).
pub struct PtxPrinter<'m> {
    target: PtxTarget,
    mode: ParamMode,
    /// Where the entries' parameter values come from and their results go, where the caller
    /// says otherwise than the kernel's own parameters.
    hook: Option<Box<dyn EntryHook>>,
    /// The current kernel's body, printed after its declarations.
    body: String,
    kernel: Option<KernelState<'m>>,
    /// The `.entry` name of each kernel of the module, by index.
    entry_names: Vec<Cow<'m, str>>,
    /// The warp-combined forms printed once as functions and called (`shared.rs`).
    shared: SharedBodies<'m>,
}

/// What the printer keeps while it prints one kernel.
struct KernelState<'m> {
    emitter: KernelEmitter<'m>,
    /// The `.entry`'s name.
    name: String,
    /// The kernel's used results, stored through trailing pointers.
    results: Vec<Value>,
    /// Where the entry's loads of its parameters end in the body.
    prologue_end: usize,
    /// Where the kernel's text begins in the output: the shared functions it is the first to
    /// call are defined there, before it.
    head_at: usize,
}

impl<'m> PtxPrinter<'m> {
    pub(crate) fn new(target: PtxTarget, mode: ParamMode) -> Self {
        PtxPrinter {
            target,
            mode,
            hook: None,
            body: String::new(),
            kernel: None,
            entry_names: Vec::new(),
            shared: SharedBodies::new(false),
        }
    }

    /// This printer, printing each warp-combined form once per lowering as a function that
    /// its instructions call (`shared.rs`), where `share`.
    pub(crate) fn sharing_forms(self, share: bool) -> Self {
        PtxPrinter {
            shared: SharedBodies::new(share),
            ..self
        }
    }

    /// A printer of `.entry`s whose parameter values come from and whose results go where
    /// `hook` says.
    pub(crate) fn with_hook(target: PtxTarget, hook: Box<dyn EntryHook>) -> Self {
        PtxPrinter {
            hook: Some(hook),
            ..PtxPrinter::new(target, ParamMode::EntryGenericAnywhere).sharing_forms(true)
        }
    }

    /// The current kernel and where its instructions go: `out` for a listing, the body else.
    /// While a shared function is printed, its emitter and body.
    fn current<'a>(
        &'a mut self,
        out: &'a mut String,
    ) -> Result<(&'a mut KernelEmitter<'m>, &'a mut String), Unprintable> {
        if self.shared.is_called() {
            return Err(Unprintable(
                "a step of an expansion carried out by a call (the driver did not ask \
                 `expansion_done`)"
                    .into(),
            ));
        }
        if self.shared.is_recording() {
            let recording = self.shared.recording().ok_or_else(|| {
                Unprintable("a shared function's step outside the function".into())
            })?;
            return Ok((&mut recording.emitter, &mut recording.body));
        }
        kernel_code(self.mode, &mut self.kernel, &mut self.body, out)
    }

    /// A call of shared function `function` for the instruction of `x`.
    fn call_shared(
        &mut self,
        x: &Expanding<'_, PtxPlan>,
        function: u32,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let (emitter, sink) = kernel_code(self.mode, &mut self.kernel, &mut self.body, out)?;
        let name = self.shared.name(function);
        emitter.call_shared(sink, x.inst, x.atomic, x.expansion, name);
        Ok(())
    }
}

/// The current kernel's emitter and where its instructions go: `out` for a listing, the body
/// else.
fn kernel_code<'a, 'm>(
    mode: ParamMode,
    kernel: &'a mut Option<KernelState<'m>>,
    body: &'a mut String,
    out: &'a mut String,
) -> Result<(&'a mut KernelEmitter<'m>, &'a mut String), Unprintable> {
    let state = kernel
        .as_mut()
        .ok_or_else(|| Unprintable("an instruction outside a kernel".into()))?;
    let sink = if mode == ParamMode::Listing {
        out
    } else {
        body
    };
    Ok((&mut state.emitter, sink))
}

impl<'m> Printer<'m> for PtxPrinter<'m> {
    type Plan = PtxPlan;
    const STYLE: Style = Style::new(Params::Copies);

    fn generic_params_space(&self) -> AddressSpace {
        match &self.hook {
            Some(hook) => hook.generic_params_space(),
            None => self.mode.generic_params_space(),
        }
    }

    /// An entry's body is gathered apart, to put its declarations before it.
    fn code<'a>(&'a self, out: &'a str) -> &'a str {
        if self.mode == ParamMode::Listing {
            out
        } else {
            &self.body
        }
    }

    fn module_begin(&mut self, module: &'m Module, out: &mut String) {
        let kernels = module.kernels.iter().map(|kernel| kernel.name.as_str());
        Namer::new(&PTX_ENTRY_NAMES).assign_distinct(kernels, &mut self.entry_names);
        if self.mode != ParamMode::Listing {
            spell!(out, "// Generated by atomir for ptx:", self.target, '\n');
            spell!(out, ".version ", self.target.isa, '\n');
            spell!(out, ".target ", self.target.sm.name(), '\n');
            out.push_str(".address_size 64\n\n");
        }
    }

    fn kernel_begin(&mut self, kernel: &'m Kernel, index: usize, out: &mut String) {
        if index > 0 {
            out.push('\n');
        }
        let head_at = out.len();
        let mut emitter = KernelEmitter::new(self.target, kernel);
        self.body.clear();
        let name = self
            .entry_names
            .get(index)
            .map_or_else(String::new, |name| name.to_string());
        let results = if self.mode == ParamMode::Listing {
            spell!(out, "// kernel ", kernel.name, " (ptx:", self.target, ")\n");
            Vec::new()
        } else {
            emitter.entry = Some(EntryIo::default());
            let generic_space = self.generic_params_space();
            let hook = (hook_of(&mut self.hook), generic_space);
            entry_begin(&mut emitter, &name, hook, &mut self.body, out)
        };
        self.kernel = Some(KernelState {
            emitter,
            name,
            results,
            prologue_end: self.body.len(),
            head_at,
        });
    }

    fn whole(
        &mut self,
        at: At<'_>,
        plan: &PtxPlan,
        bracket: FenceBracket,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let (emitter, sink) = self.current(out)?;
        // In the space the node was planned in, which the entry may have narrowed from the
        // instruction's generic one (`ParamMode::generic_params_space`).
        let atomic = &AtomicInst {
            space: at.node.space,
            ..*at.atomic
        };
        match plan.form {
            Form::Native(op) => emitter.native(sink, at.inst, atomic, plan, op, bracket),
            Form::PackedHalf(op) => emitter.packed_half(sink, at.inst, atomic, plan, op, bracket),
            Form::LdSt(form) => emitter.ld_st(sink, at.inst, atomic, plan, form, bracket),
            Form::Expand { .. } | Form::Fence => {
                return Err(Unprintable("a whole node without a native form".into()))
            }
        }
        Ok(())
    }

    fn fence(
        &mut self,
        _inst: Inst,
        fence: &atomir_ir::Fence,
        plan: &PtxPlan,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        if plan.form != Form::Fence {
            return Err(Unprintable("a fence without a fence plan".into()));
        }
        let (emitter, sink) = self.current(out)?;
        // Spelled as the leading fence of an access of the fence's order would be.
        let spelled = Fence {
            side: FenceSide::Leading,
            order: fence.order,
        };
        emitter.fence(sink, Some(spelled), plan);
        Ok(())
    }

    fn expansion_begin(
        &mut self,
        x: &Expanding<'_, PtxPlan>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        match self.shared.sharing(x) {
            Sharing::InPlace => {
                let (emitter, sink) = self.current(out)?;
                emitter.expansion_begin(sink, x.inst, x.atomic, x.plan, x.expansion)
            }
            Sharing::Call(function) => {
                self.call_shared(x, function, out)?;
                self.shared.set_called(true);
                Ok(())
            }
            Sharing::Record => {
                let kernel = self
                    .kernel
                    .as_ref()
                    .ok_or_else(|| Unprintable("an instruction outside a kernel".into()))?
                    .emitter
                    .kernel;
                self.shared
                    .record(self.target, kernel, x, &self.entry_names)
            }
        }
    }

    fn expansion_done(&mut self, _x: &Expanding<'_, PtxPlan>) -> bool {
        self.shared.take_called()
    }

    fn block(&mut self, x: &Expanding<'_, PtxPlan>, block: Block, entry: bool, out: &mut String) {
        if let Ok((emitter, sink)) = self.current(out) {
            emitter.block(sink, x.inst, block, entry);
        }
    }

    fn prim(
        &mut self,
        x: &Expanding<'_, PtxPlan>,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let (emitter, sink) = self.current(out)?;
        emitter.step(sink, x.plan, prim, bracket, x.expansion, x.facts)
    }

    fn copy(
        &mut self,
        x: &Expanding<'_, PtxPlan>,
        dst: Var,
        src: Var,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let (emitter, sink) = self.current(out)?;
        let bits = Class::of_prim(x.expansion.vars[dst]).bits();
        emitter.mov(sink, emitter.var(dst), emitter.var(src), bits);
        Ok(())
    }

    fn branch(
        &mut self,
        x: &Expanding<'_, PtxPlan>,
        cond: Var,
        negated: bool,
        to: Label,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let (emitter, sink) = self.current(out)?;
        emitter.branch(sink, x.inst, Some((cond, negated)), to);
        Ok(())
    }

    fn jump(
        &mut self,
        x: &Expanding<'_, PtxPlan>,
        to: Label,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let (emitter, sink) = self.current(out)?;
        emitter.branch(sink, x.inst, None, to);
        Ok(())
    }

    fn label(
        &mut self,
        x: &Expanding<'_, PtxPlan>,
        label: Label,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let (emitter, sink) = self.current(out)?;
        emitter.label(sink, x.inst, label);
        sink.push_str(":\n");
        Ok(())
    }

    fn expansion_fence(
        &mut self,
        x: &Expanding<'_, PtxPlan>,
        fence: Fence,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let (emitter, sink) = self.current(out)?;
        emitter.fence(sink, Some(fence), x.plan);
        Ok(())
    }

    fn expansion_end(
        &mut self,
        x: &Expanding<'_, PtxPlan>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        if self.shared.is_recording() {
            let function = self.shared.finish(x)?;
            return self.call_shared(x, function, out);
        }
        let (emitter, sink) = self.current(out)?;
        emitter.expansion_end(sink, x.inst, x.atomic, x.expansion, x.facts);
        Ok(())
    }

    fn kernel_end(&mut self, out: &mut String) {
        let Some(mut state) = self.kernel.take() else {
            return;
        };
        if self.mode == ParamMode::Listing {
            // After the kernel's instructions: a listing is no module that orders definitions.
            let end = out.len();
            self.shared.insert_pending(out, end);
            return;
        }
        // Before the entry, whose signature alone follows `head_at` yet.
        self.shared.insert_pending(out, state.head_at);
        entry_end(&mut state, hook_of(&mut self.hook), &mut self.body, out);
    }

    fn module_end(&mut self, _out: &mut String) {}

    fn splice_begin(
        &mut self,
        kernel: &'m Kernel,
        inst: Inst,
        names: &'m SpliceNames,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        if self.mode != ParamMode::Listing {
            return Err(Unprintable("a spliced fragment in a kernel's entry".into()));
        }
        let emitter = KernelEmitter::spliced(self.target, kernel, inst, names);
        self.kernel = Some(KernelState {
            emitter,
            name: String::new(),
            results: Vec::new(),
            prologue_end: 0,
            head_at: 0,
        });
        Ok(())
    }

    fn splice_end(
        &mut self,
        _out: &mut String,
        fragment: &mut Fragment,
    ) -> Result<(), Unprintable> {
        let state = self
            .kernel
            .take()
            .ok_or_else(|| Unprintable("a fragment's end outside a fragment".into()))?;
        state.emitter.splice_parts(fragment);
        Ok(())
    }
}
