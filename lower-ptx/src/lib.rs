//! The PTX backend of atomir: lowers atomic nodes to `atom`/`red` (with `fence.sc`,
//! `fence.acq_rel`, `fence.release`/`fence.acquire` from sm_90 and PTX ISA 8.6, or `membar`
//! before sm_70, where the order needs it), or to the shared emulations of
//! [`atomir_ir::expand`], for `ptx:sm_XX[@X.Y]` targets.
//!
//! - [`target`]: architectures, ISA versions and the features each has.
//! - `legal`: the legality table (the only place that knows what ptxas accepts).
//! - `emit`: printing a native node, the primitives of an expansion, and whole kernels.
//!
//! Named properties of the emitted code:
//! - **FlushSubnormals**: a native `atom.add.f32` / `red.add.f32` on global memory (or a
//!   generic address that points there) flushes subnormal inputs and results to zero, as PTX
//!   documents; tests compare it with `semantics::FloatMode::FlushSubnormals`. It is printed
//!   there only for a node that allows it (laxity `ftz`). An exact f32 add or sub there is
//!   printed `.add.noftz.f32` from PTX ISA 9.4 on sm_90 and newer, which keeps subnormals, and
//!   before that is atomir's CAS loop, whose `add.rn.f32` keeps them (rule
//!   `ptx.f32-add-flushes-without-noftz`, recorded in the verdict as
//!   `Rewrite::ExactForWeakerNative`). On shared memory the plain form does not flush and
//!   stays.
//! - A cache hint is a performance hint only: it is printed (`.L2::cache_hint` with a
//!   `createpolicy`) on an `atom`/`red` other than `cas` from sm_80 and PTX 7.4 (a native
//!   node's, or an expansion's: the integer `atom`s of a float min/max, an element's, the
//!   bitwise op on a sub-word's 32-bit word; a CAS loop's `cas` goes without), on
//!   `.global` or on a generic address made from a `ptr.global` pointer (the ISA supports it on
//!   a generic address only where that points to global memory), and left out elsewhere with
//!   `Rewrite::CacheHintDropped` recorded; `no_allocate` is spelled `L2::evict_first`.
//! - In a complete module ([`LowerOptions::module`]) a kernel's `ptr.generic` parameters must
//!   point to global memory, as in CUDA, where a launch can only hand a kernel a global
//!   address (LLVM's NVPTX backend assumes the same): the `.entry` converts each with
//!   `cvta.to.global`, and a generic node whose address is such a parameter is planned and
//!   printed as a `.global` node (with the forms only global memory has, such as vector
//!   `atom`). A generic node through a `ptr.shared` window stays generic, and a fragment's
//!   generic registers may hold any address.
//! - The scope is always printed; `cluster` is widened to `gpu` before sm_90 (a recorded
//!   `Rewrite::ScopeWidened`). Orders are never weakened.
//!
//! # Example
//!
//! Ask the table about single nodes, no kernel needed: a relaxed f32 add on global memory whose
//! result is unused is the exact CAS loop on sm_80 (the native add flushes subnormals there),
//! run once per address by a warp's lanes one after another, and a `red` where the node allows
//! flushing; a 128-bit CAS is refused before sm_90, naming the rule and the smallest
//! architecture that has it.
//!
//! ```
//! use atomir_ir::{
//!     AddressSpace, AtomicNode, AtomicOp, Backend, ElemType, ElementLowering, FloatLaxity,
//!     Lowering, Rewrite, WarpCombine,
//! };
//! use atomir_ptx::{PtxRule, PtxTarget};
//!
//! let sm80 = PtxTarget::parse("sm_80")?;
//! let mut add = AtomicNode::new(AtomicOp::Add, ElemType::F32);
//! add.space = AddressSpace::Global;
//! add.pointer_space = AddressSpace::Global;
//! let exact = sm80.legalize(&add).expect("sm_80 adds f32 exactly by a CAS loop");
//! let serially_folded = Lowering::whole(ElementLowering::CasLoop).with_warp(WarpCombine::SerialFold);
//! assert_eq!(Ok(exact.lowering), serially_folded);
//! let rule = PtxRule::F32AddFlushesWithoutNoftz.rule();
//! assert!(exact.rewrites.contains(&Rewrite::ExactForWeakerNative { rule }));
//!
//! add.laxity = Some(FloatLaxity::MayFlushSubnormals);
//! let legality = sm80.legalize(&add).expect("sm_80 adds f32 natively, flushing");
//! assert_eq!(legality.lowering, Lowering::whole(ElementLowering::Native));
//! assert!(legality.rewrites.contains(&Rewrite::DeadResultAsReduction));
//!
//! let cas = AtomicNode::new(AtomicOp::Cas, ElemType::B128);
//! let refusal = sm80.legalize(&cas).unwrap_err();
//! assert_eq!(refusal.rule.id(), "ptx.b128-needs-sm90");
//! assert!(refusal.smallest_target.as_ref().unwrap().name().starts_with("ptx:sm_90"));
//! # Ok::<(), atomir_ir::ParseTargetError>(())
//! ```

#![warn(missing_docs)]

mod emit;
mod legal;
pub mod read;
pub mod spell;
pub mod target;

use atomir_ir::expand::{FloatTypes, SoftFloatNeeds};
use atomir_ir::lower::{lower_with, Passes, Table, Target};
use atomir_ir::semantics::FloatMode;
use atomir_ir::verify::Verified;
use atomir_ir::{
    AtomicNode, Fence, GenericParams, LowerError, LowerOptions, LowerReport, Param, Refusal,
};

use emit::PtxPrinter;
pub use emit::{EntryHook, EntryRegister, EntryRegisters};
pub use legal::{Form, LdStForm, PtxOp, PtxPlan, PtxRmw, PtxType, RmwForms};

pub use legal::PtxRule;
pub use target::{Feature, PtxIsa, PtxKnob, PtxTarget, Sm};

/// Help text for this backend's target names, shown by `atomir lower --help`; every list in it
/// is read from the target table, so it cannot disagree with what the target's `FromStr` accepts.
pub fn targets_help() -> String {
    let names = |filter: &dyn Fn(Sm) -> bool| {
        Sm::ALL
            .iter()
            .copied()
            .filter(|sm| filter(*sm))
            .map(|sm| sm.name().trim_start_matches("sm_"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut text = String::from(
        "ptx:sm_XX[@X.Y][+<option>]   NVIDIA PTX for an SM architecture, optionally a PTX ISA \
         version.\n",
    );
    let architectures: Vec<String> = Sm::ALL.iter().map(|sm| sm.name()[3..].into()).collect();
    wrap_list(&mut text, "  XX:", &architectures);
    let mut floors: Vec<PtxIsa> = Sm::ALL.iter().map(|sm| sm.min_isa()).collect();
    floors.sort();
    floors.dedup();
    let by_floor: Vec<String> = floors
        .iter()
        .map(|isa| format!("{isa} ({})", names(&|sm| sm.min_isa() == *isa)))
        .collect();
    wrap_list(
        &mut text,
        &format!(
            "  X.Y: {} to {}, at least the architecture's oldest:",
            PtxIsa::OLDEST,
            PtxIsa::NEWEST
        ),
        &by_floor,
    );
    let mut defaults: Vec<PtxIsa> = Sm::ALL.iter().map(|sm| sm.default_isa()).collect();
    defaults.sort();
    defaults.dedup();
    let by_default: Vec<String> = defaults
        .iter()
        .map(|isa| format!("{isa} ({})", names(&|sm| sm.default_isa() == *isa)))
        .collect();
    wrap_list(
        &mut text,
        "  default ISA: the newest that every ptxas knowing the architecture accepts:",
        &by_default,
    );
    let features: Vec<String> = Feature::ALL
        .iter()
        .map(|feature| {
            let (sm, isa) = feature.requires();
            format!("{} sm_{sm}/{isa}", feature.label())
        })
        .collect();
    wrap_list(&mut text, "  features need both SM and ISA:", &features);
    text.push_str("  options (explicit policies, never defaults):\n");
    for knob in PtxKnob::ALL {
        let (sm, isa) = knob.needs().requires();
        let lead = format!("    +{} (needs sm_{sm}/{isa}):", knob.name());
        let words: Vec<String> = knob.help().split(' ').map(String::from).collect();
        wrap_words(&mut text, &lead, &words);
    }
    text.push_str("  rules (an emulation chosen over a weaker native form, or a refusal):\n");
    for rule in PtxRule::ALL {
        let lead = format!("    [{}]", rule.id());
        let words: Vec<String> = rule.summary().split(' ').map(String::from).collect();
        wrap_words(&mut text, &lead, &words);
    }
    text.truncate(text.trim_end().len());
    text
}

/// Appends `lead` and the comma-separated `items`, wrapped before 96 columns, and a newline.
fn wrap_list(text: &mut String, lead: &str, items: &[String]) {
    wrap(text, lead, items, ",");
}

/// Appends `lead` and the space-separated `words`, wrapped before 96 columns, and a newline.
fn wrap_words(text: &mut String, lead: &str, words: &[String]) {
    wrap(text, lead, words, "");
}

fn wrap(text: &mut String, lead: &str, items: &[String], comma: &str) {
    const WIDTH: usize = 96;
    text.push_str(lead);
    let mut column = lead.len();
    for (index, item) in items.iter().enumerate() {
        let separator = if index + 1 == items.len() { "" } else { comma };
        if column + item.len() + separator.len() + 1 > WIDTH {
            text.push_str("\n     ");
            column = 5;
        }
        text.push(' ');
        text.push_str(item);
        text.push_str(separator);
        column += item.len() + separator.len() + 1;
    }
    text.push('\n');
}

impl Table for PtxTarget {
    type Plan = PtxPlan;

    fn name(&self) -> String {
        format!("ptx:{self}")
    }

    fn plan(&self, node: &AtomicNode) -> Result<PtxPlan, Refusal> {
        legal::table(node, *self)
    }

    fn signature(&self, params: &[Param]) -> Result<(), (usize, Refusal)> {
        for (index, param) in params.iter().enumerate() {
            legal::param(param.ty, *self).map_err(|refusal| (index, refusal))?;
        }
        Ok(())
    }

    fn plan_fence(&self, fence: &Fence) -> Result<PtxPlan, Refusal> {
        legal::fence_table(fence, *self)
    }

    fn candidates(&self) -> Vec<PtxTarget> {
        legal::candidates(*self)
    }

    fn passes(&self) -> Passes {
        Passes {
            reuse: true,
            soft_float: SoftFloatNeeds {
                min_max: true,
                // PTX ISA 9.7.3.11-12 (`min`/`max` on floating point): without `.ftz` or `.NaN`,
                // `min.f32`/`max.f32`/`min.f64`/`max.f64` keep subnormals (sm_20+), give the
                // other operand for one NaN and order -0.0 below +0.0; only the NaN of two NaNs
                // is left open. The same holds, measured, for `.f16`/`.bf16` where
                // [`Feature::HalfMinMax`] says so.
                exact_min_max: FloatTypes {
                    f16: self.has(Feature::HalfMinMax),
                    bf16: self.has(Feature::HalfMinMax),
                    f32: true,
                    f64: true,
                },
                bf16_narrowing: !self.has(Feature::CvtBf16),
            },
        }
    }
}

impl Target for PtxTarget {
    type Printer<'m> = PtxPrinter<'m>;

    fn printer<'m>(&self, options: &LowerOptions) -> PtxPrinter<'m> {
        let mode = match (options.complete_module, options.generic_params) {
            (false, _) => emit::ParamMode::Listing,
            (true, GenericParams::Global) => emit::ParamMode::Entry,
            (true, _) => emit::ParamMode::EntryGenericAnywhere,
        };
        PtxPrinter::new(*self, mode).sharing_forms(!options.count_instructions)
    }

    /// A register per lane, of the class the printer reads and writes the value in.
    fn splice_type(&self, ty: atomir_ir::ValueType) -> atomir_ir::lower::SpliceType {
        emit::splice_type(ty)
    }

    /// `+plain-loops` where the options ask for plain loops and the target has combined ones.
    fn with_options(&self, options: &LowerOptions) -> Option<Self> {
        let wanted = options.plain_loops && !self.plain_loops;
        (wanted && self.has(PtxKnob::PlainLoops.needs())).then_some(PtxTarget {
            plain_loops: true,
            ..*self
        })
    }
}

impl PtxTarget {
    /// How the emitted code treats float subnormals for a node: `FlushSubnormals` for a native
    /// f32 add (or sub as add, whole or per split element) without `.noftz` that may reach
    /// global memory (PTX documents that `atom.add.f32` and `red.add.f32` flush there), `Ieee`
    /// for everything else (shared memory, CAS loops, `.noftz` f16/bf16/f32 from PTX 9.4, f64).
    pub fn float_mode(&self, node: &AtomicNode) -> FloatMode {
        let flushing_add = |op: &PtxOp| op.op == PtxRmw::Add && op.ty == PtxType::F32 && !op.noftz;
        let native_f32_add = match legal::table(node, *self).map(|plan| plan.form) {
            Ok(Form::Native(op))
            | Ok(Form::Expand {
                rmw: RmwForms::Each(op),
            }) => flushing_add(&op),
            _ => false,
        };
        let may_be_global = matches!(
            node.space,
            atomir_ir::AddressSpace::Global | atomir_ir::AddressSpace::Generic
        );
        if native_f32_add && may_be_global {
            FloatMode::FlushSubnormals
        } else {
            FloatMode::Ieee
        }
    }

    /// A complete module of `.entry`s whose parameter values come from and whose results go
    /// where `hook` says (its addresses; the entries print every load and store themselves),
    /// for a caller that launches the kernels otherwise than with their own parameters.
    pub fn lower_entries_with(
        &self,
        hook: Box<dyn EntryHook>,
        module: &Verified<'_>,
        out: &mut String,
    ) -> Result<LowerReport, LowerError> {
        lower_with(self, PtxPrinter::with_hook(*self, hook), module, out)
    }
}
