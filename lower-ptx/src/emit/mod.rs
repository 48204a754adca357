//! Printing PTX: one native node ([`KernelEmitter::native`]), the primitives of a shared
//! expansion ([`KernelEmitter::prim`]), and the kernel around them ([`write_kernel`]).
//!
//! Everything is written into `&mut String`s that the caller reuses; the native path allocates
//! nothing per instruction.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt::Write;

use atomir_ir::expand::{Block, Prim, PrimType, Var};
use atomir_ir::{AddressSpace, AtomicInst, Inst, Kernel, Value};

use atomir_ir::lower::{
    At, Binding, Expanding, Fence, FenceBracket, FenceSide, Fragment, Label, NameRules, Namer,
    Params, Printer, SpliceNames, Style, Unprintable, PTX_ENTRY_NAMES,
};
use atomir_ir::Module;
use smallvec::SmallVec;

use crate::legal::{Form, PtxPlan, RmwForms};
use crate::target::PtxTarget;

mod entry;
mod flow;
mod native;
mod prim;
mod regs;
use entry::{entry_begin, entry_end};

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
    /// A test entry: every parameter is a pointer to one value per thread, and every result is
    /// stored to one slot per thread of an output array (see the GPU harness).
    PerThread,
}

impl ParamMode {
    /// The memory a `ptr.generic` kernel parameter points into: global in an `.entry` whose
    /// parameters are the kernel's, as a CUDA launch can only hand a kernel a global address
    /// (LLVM's NVPTX backend assumes the same of a kernel's pointer parameters), so the entry
    /// converts it with `cvta.to.global` and a generic node through it is a `.global` node;
    /// unknown in a listing (the client's registers), in a per-thread test entry and where the
    /// client says so.
    pub(crate) const fn generic_params_space(self) -> AddressSpace {
        match self {
            ParamMode::Entry => AddressSpace::Global,
            ParamMode::EntryGenericAnywhere | ParamMode::Listing | ParamMode::PerThread => {
                AddressSpace::Generic
            }
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
        let _ = write!(out, "${lane}");
    }
}

/// How the printer names its temporaries and labels: as a kernel's (`%_r7`, `$L3_b1`), or with
/// a fragment's prefix (`%<prefix>r7`, `$<prefix>b1`).
#[derive(Clone, Copy, Debug)]
pub(crate) enum MadeNames<'k> {
    Kernel,
    Spliced(&'k SpliceNames),
}

fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// What the printer knows of an expansion variable's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Known {
    Nothing,
    /// A constant.
    Const(u128),
    /// A 32-bit variable shifted right by a constant. By 16 and truncated to 16 bits, it is the
    /// variable's high half, which `mov.b32 {lo, hi}` unpacks: ptxas folds an unpack and the
    /// result's repacking into nothing where it does not fold a shift and a `cvt` (a v2.u16
    /// exch's result on sm_90: 23 SASS instructions against 22).
    Shifted {
        word: Var,
        by: u32,
    },
    /// The 8 or 16 bits of a 32-bit variable at bit `at` (a truncation of the variable, or of
    /// it shifted right by `at`). A byte read as signed is extracted with `bfe.s32`, which ptxas
    /// turns into a shift and a sign extension where it keeps a shift, a truncation and
    /// `cvt.s16.s8` as three (a v4.s8 max loop on sm_90: 50 SASS instructions against 46, as
    /// many as llc's). A result whose lanes are every part of one word is that word
    /// (`KernelEmitter::result_words`). Known only in the block that took it, as the word's
    /// register may be rewritten by the copies on an edge.
    Part {
        word: Var,
        at: u32,
    },
}

/// Emits the body of one kernel, counting the temporaries it uses.
pub(crate) struct KernelEmitter<'k> {
    pub target: PtxTarget,
    pub kernel: &'k Kernel,
    counts: [u32; 5],
    /// Per expansion variable of type `I8`: whether its register is known zero-extended.
    /// 8-bit values live in 16-bit registers whose high byte is unspecified, and are masked
    /// only where an operation reads the high byte.
    zero_extended: Vec<bool>,
    /// Per expansion variable: its masked copy, valid in the block that made it.
    masked: Vec<Option<Temp>>,
    /// Per expansion variable: what is known of its value where it is defined.
    known: Vec<Known>,
    /// Per expansion variable: for an address `base + bytes` read only as the address of
    /// memory primitives, `base`'s register and `bytes`, which those primitives print as
    /// `[base+bytes]` and for which no `add` is emitted. ptxas then computes the address of a
    /// split vector's other words where llc's code has it compute them (a v8.u8 release cas,
    /// result dead, on sm_90: 80 SASS instructions against 82, as many as llc's).
    offset_addresses: Vec<Option<(Temp, u32)>>,
    /// Per expansion variable: how many memory primitives read it as their address.
    address_reads: Vec<u32>,
    /// Per expansion variable: the value of a constant.
    consts: Vec<Option<u128>>,
    /// Per expansion variable: whether it is the zero extension of an 8-bit value that only
    /// shifts left read, by amounts that drop every bit above the byte (the top lane of a
    /// word of bytes, at bit 24). Its high byte, unspecified in the 16-bit register, is then
    /// not cleared: ptxas keeps that `and` (a v8.u8 cas loop on sm_90, one instruction per
    /// word).
    byte_shifted_out: Vec<bool>,
    /// Per expansion variable: for an operand bound from a lane of
    /// [`KernelEmitter::wide_params`], that lane's index there; its zero extension is then
    /// the lane's 32-bit register.
    wide_copies: Vec<Option<usize>>,
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
    /// Whether expansions record [`KernelEmitter::result_words`] (a test entry's, which stores
    /// the results).
    pub records_result_words: bool,
    /// The results whose 8/16-bit lanes are the parts of 32-bit registers at their places
    /// ([`Known::Part`]), with those registers, lane 0 in the low bits of the first: a test
    /// entry stores such a result as the words, as llc stores it (a v8.u8 xor's result on
    /// sm_90: one `STG.E.64` where storing the lanes takes 13 more instructions to repack them).
    pub result_words: HashMap<Value, SmallVec<[Temp; 4]>>,
    /// The lanes of a test entry's 16-bit parameters, which it also reads zero-extended into
    /// 32-bit registers, as llc reads them, where the body reads those: the zero extension of
    /// such a lane is its register, and a word stored from two of them is packed from those.
    /// ptxas then loads them as the words it combines, where it keeps a 16-bit load and a
    /// `cvt` apart (an and of v4.u16, release, on `.shared::cluster`, sm_90: 30 SASS
    /// instructions, llc's count, where it was 31). An 8-bit parameter read so is one
    /// instruction longer (a 32-bit load and a mask).
    pub(super) wide_params: Vec<WideParam>,
}

/// The PTX printer of one lowering: a listing, `.entry`s, or per-thread test entries.
pub struct PtxPrinter<'m> {
    target: PtxTarget,
    mode: ParamMode,
    /// The current kernel's body, printed after its declarations.
    body: String,
    kernel: Option<KernelState<'m>>,
    /// The `.entry` name of each kernel of the module, by index.
    entry_names: Vec<Cow<'m, str>>,
}

/// A lane of a test entry's 16-bit parameter, which it reads zero-extended into a 32-bit
/// register where the body reads that ([`KernelEmitter::wide_params`]).
pub(super) struct WideParam {
    value: Value,
    lane: usize,
    /// Where the lane is: the parameter's index, this thread's slot in a per-thread test
    /// entry, and the lane's offset.
    param: usize,
    slot: Option<Temp>,
    offset: usize,
    /// The register, made when the body first reads it.
    register: Option<Temp>,
}

/// What the printer keeps while it prints one kernel.
struct KernelState<'m> {
    emitter: KernelEmitter<'m>,
    /// The `.entry`'s name.
    name: String,
    /// The kernel's used results, stored through trailing pointers.
    results: Vec<Value>,
    /// This thread's index, in a per-thread test entry.
    thread: Option<Temp>,
    /// Where the entry's loads of its parameters end in the body.
    prologue_end: usize,
}

impl<'m> PtxPrinter<'m> {
    pub(crate) fn new(target: PtxTarget, mode: ParamMode) -> Self {
        PtxPrinter {
            target,
            mode,
            body: String::new(),
            kernel: None,
            entry_names: Vec::new(),
        }
    }

    /// The current kernel and where its instructions go: `out` for a listing, the body else.
    fn current<'a>(
        &'a mut self,
        out: &'a mut String,
    ) -> Result<(&'a mut KernelEmitter<'m>, &'a mut String), Unprintable> {
        let listing = self.mode == ParamMode::Listing;
        let state = self
            .kernel
            .as_mut()
            .ok_or_else(|| Unprintable("an instruction outside a kernel".into()))?;
        let sink = if listing { out } else { &mut self.body };
        Ok((&mut state.emitter, sink))
    }
}

impl<'m> Printer<'m> for PtxPrinter<'m> {
    type Plan = PtxPlan;
    const STYLE: Style = Style::new(Params::Copies);

    fn generic_params_space(&self) -> AddressSpace {
        self.mode.generic_params_space()
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
            let _ = writeln!(out, "// Generated by atomir for ptx:{}", self.target);
            let _ = writeln!(out, ".version {}", self.target.isa);
            let _ = writeln!(out, ".target {}", self.target.sm.name());
            out.push_str(".address_size 64\n\n");
        }
    }

    fn kernel_begin(&mut self, kernel: &'m Kernel, index: usize, out: &mut String) {
        if index > 0 {
            out.push('\n');
        }
        let mut emitter = KernelEmitter::new(self.target, kernel);
        self.body.clear();
        let name = self
            .entry_names
            .get(index)
            .map_or_else(String::new, |name| name.to_string());
        let (results, thread) = if self.mode == ParamMode::Listing {
            let _ = writeln!(out, "// kernel {} (ptx:{})", kernel.name, self.target);
            (Vec::new(), None)
        } else {
            emitter.records_result_words = true;
            entry_begin(&mut emitter, &name, self.mode, &mut self.body, out)
        };
        self.kernel = Some(KernelState {
            emitter,
            name,
            results,
            thread,
            prologue_end: self.body.len(),
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
        let (emitter, sink) = self.current(out)?;
        emitter.expansion_begin(sink, x.inst, x.atomic, x.plan, x.expansion)
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
        emitter.step(sink, x.plan, prim, bracket, x.expansion)
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
        let (emitter, sink) = self.current(out)?;
        emitter.expansion_end(sink, x.inst, x.atomic, x.expansion);
        Ok(())
    }

    fn kernel_end(&mut self, out: &mut String) {
        let Some(mut state) = self.kernel.take() else {
            return;
        };
        if self.mode != ParamMode::Listing {
            entry_end(&mut state, &mut self.body, out);
        }
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
            thread: None,
            prologue_end: 0,
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
