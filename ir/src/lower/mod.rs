//! The lowering kit: what every backend shares between its legality table and its printer.
//!
//! A backend is two things:
//! - a [`Table`] for each target: for one [`AtomicNode`] or fence (a [`Node`]), a [`Plan`] (the
//!   verdict and the backend's typed native form) or a [`Refusal`], and the
//!   [`Table::candidates`] a refusal's smallest target is searched among;
//! - a [`Printer`]: it prints a module's prologue, each node (whole, or the shared expansion the
//!   driver hands it), each fence, and the epilogue, and decides nothing the plan did not.
//!
//! One driver, [`lower_with`], lowers a module: it legalizes every instruction first (so a
//! refusal leaves the output untouched), builds every [`LowerError`] in one place, expands the
//! nodes that are not printed whole with one reused [`Expander`], and asks the printer to print.
//! [`legalize`] is the same legalization, so `legalize` and `lower` agree by construction.
//! Every [`Target`] (a table with its printer) is a [`Backend`], the dyn-safe entry the CLI, the
//! matrix and the tests use.

mod fence;
mod linear;
pub mod namer;
pub mod splice;

use std::io;

use fnv::FnvHashMap as HashMap;

pub use fence::{Access, Fence, FenceBracket, FencePolicy, FenceSide};
pub use linear::{incoming, Label, Linear, Params, Step};
pub use namer::{NameRules, Namer, Suffix, PTX_ENTRY_NAMES};
pub use splice::{Binding, Fragment, FragmentResult, FragmentTemp, SpliceNameError, SpliceNames};

use cranelift_entity::SecondaryMap;

use crate::expand::{
    Block, Expander, Expansion, MemAttrs, Prim, Reuse, SoftFloat, SoftFloatNeeds, Var,
};
use crate::kernel::{
    self, AtomicInst, Inst, InstData, Kernel, Module, Operand, Param, Scalar, Value,
};
use crate::legal::{
    Backend, Legality, LowerError, LowerOptions, LowerReport, Lowering, OnRefusal, Refusal, Site,
    Verdict, WriteError,
};
use crate::node::{AtomicNode, Node};
use crate::rule::KitRule;
use crate::types::AtomicOp;
use crate::verify::Verified;

/// What a table decided for one node: everything the printer needs to honour the verdict.
pub trait Plan {
    /// The verdict, as the matrix and the reports show it.
    fn legality(&self) -> &Legality;

    /// Whether the printer prints the node whole, in the backend's native form; otherwise the
    /// driver expands it by [`Legality::lowering`] and the printer prints the expansion.
    fn is_whole(&self) -> bool;

    /// How the target carries the node's memory order on an access of `access` kind.
    fn fences(&self, access: Access) -> FencePolicy;
}

/// A backend's legality table for one target: the one place that decides.
pub trait Table: Sized {
    /// The backend's plan: the verdict and its typed native form.
    type Plan: Plan;

    /// The canonical target name, e.g. `ptx:sm_90@8.8`.
    fn name(&self) -> String;

    /// The table's answer for one node. A refusal names its rule; the driver searches its
    /// smallest target among [`Table::candidates`].
    fn plan(&self, node: &AtomicNode) -> Result<Self::Plan, Refusal>;

    /// The table's answer for a kernel's parameters, used or not (a signature is the kernel's
    /// interface): the first parameter the target cannot carry (its type, or where it would
    /// lie) and why. The driver searches a refusal's smallest target as for a node.
    fn signature(&self, params: &[Param]) -> Result<(), (usize, Refusal)>;

    /// The table's answer for one fence.
    fn plan_fence(&self, fence: &kernel::Fence) -> Result<Self::Plan, Refusal>;

    /// The table's answer for an access or a fence.
    fn plan_node(&self, node: &Node) -> Result<Self::Plan, Refusal> {
        match node {
            Node::Atomic(node) => self.plan(node),
            Node::Fence(fence) => self.plan_fence(fence),
        }
    }

    /// The targets of this backend a refusal's smallest target is searched among, in the order
    /// that defines "smallest".
    fn candidates(&self) -> Vec<Self>;

    /// The passes the driver runs on every expansion before the printer sees it.
    fn passes(&self) -> Passes {
        Passes::default()
    }
}

/// The expansion passes a backend asks for, by what its printer can spell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Passes {
    /// Reuse pure results along single edges ([`Reuse`]).
    pub reuse: bool,
    /// Float primitives the target cannot spell, rewritten in integers ([`SoftFloat`]); runs
    /// before reuse, so reuse sees the rewritten primitives.
    pub soft_float: SoftFloatNeeds,
}

/// A backend's printer, for one lowering of a module whose kernels live for `'m`.
///
/// Every hook appends to `out` or to the printer's own buffers; a hook that cannot print what
/// the plan says returns [`Unprintable`] (a disagreement between table and printer, never a
/// property of the input), which the driver reports as a refusal of that instruction.
pub trait Printer<'m> {
    /// The plan of the backend's table, which tells each hook what to print.
    type Plan: Plan;

    /// Before the first kernel.
    fn module_begin(&mut self, module: &'m Module, out: &mut String);

    /// Before the instructions of kernel number `index`.
    fn kernel_begin(&mut self, kernel: &'m Kernel, index: usize, out: &mut String);

    /// One node printed whole, in the plan's native form, with the fences of `bracket` spelled
    /// around its one access.
    fn whole(
        &mut self,
        at: At<'_>,
        plan: &Self::Plan,
        bracket: FenceBracket,
        out: &mut String,
    ) -> Result<(), Unprintable>;

    /// One stand-alone fence, in the plan's form.
    fn fence(
        &mut self,
        inst: Inst,
        fence: &kernel::Fence,
        plan: &Self::Plan,
        out: &mut String,
    ) -> Result<(), Unprintable>;

    /// How the printer binds block parameters: the shape of the steps it is given.
    const PARAMS: Params;

    /// Before the steps of an expansion: bind its inputs to the instruction's operands.
    fn expansion_begin(
        &mut self,
        x: &Expanding<'_, Self::Plan>,
        out: &mut String,
    ) -> Result<(), Unprintable>;

    /// A block begins (the entry is no jump target).
    fn block(&mut self, x: &Expanding<'_, Self::Plan>, block: Block, entry: bool, out: &mut String);

    /// One primitive; a memory primitive with the fences of its bracket spelled around it.
    fn prim(
        &mut self,
        x: &Expanding<'_, Self::Plan>,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        out: &mut String,
    ) -> Result<(), Unprintable>;

    /// `dst = src` on an edge ([`Params::Copies`]).
    fn copy(&mut self, x: &Expanding<'_, Self::Plan>, dst: Var, src: Var, out: &mut String);

    /// Jump to `to` where `cond` holds (`negated`: where it does not) ([`Params::Copies`]).
    fn branch(
        &mut self,
        x: &Expanding<'_, Self::Plan>,
        cond: Var,
        negated: bool,
        to: Label,
        out: &mut String,
    );

    /// Jump to `to` ([`Params::Copies`]).
    fn jump(&mut self, x: &Expanding<'_, Self::Plan>, to: Label, out: &mut String);

    /// An edge block begins ([`Params::Copies`]).
    fn label(&mut self, x: &Expanding<'_, Self::Plan>, label: Label, out: &mut String);

    /// A block's terminator ([`Params::Phis`]: the printer reads the edges itself). The walk
    /// gives it only to a printer of phis; one that binds by copies keeps this refusal.
    fn terminator(
        &mut self,
        _x: &Expanding<'_, Self::Plan>,
        _block: Block,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        Err(Unprintable(
            "a printer that binds block parameters by copies got a terminator".into(),
        ))
    }

    /// Whether the printer spells the fences of an expansion whose accesses are all relaxed
    /// between fences ([`FencePolicy::RelaxedBetweenFences`]) once around the whole expansion,
    /// through [`Printer::expansion_fence`], rather than around each of its accesses. Once is
    /// enough: every access of the expansion lies between the same release fence and acquire
    /// fence (LLVM's AtomicExpand brackets a CAS loop the same way), and a further element runs
    /// no fence. An expansion with a CAS retry loop is bracketed once wherever the plan says so
    /// for [`Access::Loop`], whatever this says: every printer spells
    /// [`Printer::expansion_fence`].
    const BRACKETS_EXPANSIONS: bool = false;

    /// One fence of the bracket around a whole expansion (a CAS retry loop under
    /// [`Access::Loop`], or [`Printer::BRACKETS_EXPANSIONS`]): the leading one after
    /// [`Printer::expansion_begin`], before the first step; the trailing one after the last
    /// step (the exit block's, which ends the expansion without a jump), before
    /// [`Printer::expansion_end`].
    fn expansion_fence(
        &mut self,
        x: &Expanding<'_, Self::Plan>,
        fence: Fence,
        out: &mut String,
    ) -> Result<(), Unprintable>;

    /// After the last step: the old values to the instruction's result.
    fn expansion_end(
        &mut self,
        x: &Expanding<'_, Self::Plan>,
        out: &mut String,
    ) -> Result<(), Unprintable>;

    /// After the instructions of the current kernel.
    fn kernel_end(&mut self, out: &mut String);

    /// Whether the printer writes a kernel's code into `out` as it goes and puts what must
    /// precede it (declarations known only at the end) before it in [`Printer::kernel_end`]:
    /// the driver then hands `out` to a sink only between kernels, never within one.
    const HEADS_KERNEL_AT_END: bool = false;

    /// After the last kernel.
    fn module_end(&mut self, out: &mut String);

    /// Whether a spliced vector value is bound lane by lane (a register per lane) rather than
    /// whole (an SSA vector).
    const SPLICES_LANES: bool = true;

    /// Before the one instruction of `kernel` a spliced fragment holds: its values are named
    /// by `names` (every value it reads is bound; the driver checked), what it makes up by the
    /// prefix, and nothing of a kernel around it is printed.
    fn splice_begin(
        &mut self,
        _kernel: &'m Kernel,
        _inst: Inst,
        _names: &'m SpliceNames,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        Err(Unprintable("the printer does not splice".into()))
    }

    /// After a spliced instruction: the temporaries it used and where its result is, into
    /// `fragment` (whose code is `out`).
    fn splice_end(
        &mut self,
        _out: &mut String,
        _fragment: &mut Fragment,
    ) -> Result<(), Unprintable> {
        Err(Unprintable("the printer does not splice".into()))
    }
}

/// The instruction being printed.
#[derive(Clone, Copy, Debug)]
pub struct At<'a> {
    /// The instruction's id in its kernel.
    pub inst: Inst,
    /// The instruction itself.
    pub atomic: &'a AtomicInst,
    /// Its node, with the kernel's facts.
    pub node: &'a AtomicNode,
}

/// The expansion being printed, with its instruction and plan.
#[derive(Clone, Copy, Debug)]
pub struct Expanding<'a, P> {
    /// The instruction expanded.
    pub inst: Inst,
    /// Its atomic access, as written.
    pub atomic: &'a AtomicInst,
    /// Its node, with the kernel's facts.
    pub node: &'a AtomicNode,
    /// The table's plan for it.
    pub plan: &'a P,
    /// The expansion, after the passes the target asked for.
    pub expansion: &'a Expansion,
}

/// Why a printer could not print what its table accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unprintable(pub String);

/// A table and the printer of its backend: everything a [`Backend`] needs.
pub trait Target: Table {
    /// The backend's printer, over a module that lives for `'m`.
    type Printer<'m>: Printer<'m, Plan = Self::Plan>;

    /// A printer for one lowering with `options`.
    fn printer<'m>(&self, options: &LowerOptions) -> Self::Printer<'m>;
}

/// The smallest of `table`'s candidates that accepts `node`.
pub fn smallest_accepting<T: Table>(table: &T, node: &Node) -> Option<String> {
    smallest_where(table, |candidate| candidate.plan_node(node).is_ok())
}

/// The smallest of `table`'s candidates for which `accepts` holds.
fn smallest_where<T: Table>(table: &T, accepts: impl Fn(&T) -> bool) -> Option<String> {
    table
        .candidates()
        .into_iter()
        .find(|candidate| accepts(candidate))
        .map(|candidate| candidate.name())
}

/// Whether the target carries a kernel's parameters, or the first it cannot carry with the
/// refusal and the smallest target that carries them all.
pub fn legalize_signature<T: Table>(table: &T, params: &[Param]) -> Result<(), (usize, Refusal)> {
    table.signature(params).map_err(|(param, mut refusal)| {
        refusal.smallest_target =
            smallest_where(table, |candidate| candidate.signature(params).is_ok());
        (param, refusal)
    })
}

/// The plan for `node`, or the refusal with the smallest target that accepts the node. A node
/// the IR does not define ([`Node::undefined`]) is refused before the table is asked, and no
/// target accepts it.
pub fn legalize<T: Table>(table: &T, node: &Node) -> Result<T::Plan, Refusal> {
    if let Some(reason) = node.undefined() {
        return Err(Refusal::new(KitRule::UndefinedNode, reason));
    }
    table.plan_node(node).map_err(|mut refusal| {
        refusal.smallest_target = smallest_accepting(table, node);
        refusal
    })
}

/// Lowers instruction `inst` of kernel number `kernel` of `module` for `target` as a fragment
/// to splice into the client's own code, named by `names` (the [`splice`] contract), into
/// `fragment` (cleared first; its storage, and its scratch space, are reused). A refusal, an
/// input left unbound, or a client's name in the fragment's namespace is the error, and leaves
/// `fragment` empty.
pub fn splice_inst<T: Target>(
    target: &T,
    module: &Verified<'_>,
    kernel: usize,
    inst: Inst,
    names: &SpliceNames,
    fragment: &mut Fragment,
) -> Result<Legality, LowerError> {
    fragment.clear();
    let Some(kernel) = module.module().kernels.get(kernel) else {
        let reason = format!("the module holds no kernel number {kernel}");
        return Err(LowerError {
            kernel: String::new(),
            site: Site::Inst(inst),
            loc: Default::default(),
            refusal: Refusal::new(KitRule::NoSuchInstruction, reason),
        });
    };
    let Some(data) = kernel.insts.get(inst) else {
        let reason = format!("the kernel holds no instruction {}", inst.as_u32());
        return Err(error(
            kernel,
            inst,
            Refusal::new(KitRule::NoSuchInstruction, reason),
        ));
    };
    let node = Node::of_data(kernel, data);
    let plan = legalize(target, &node).map_err(|refusal| error(kernel, inst, refusal))?;
    check_bindings::<T::Printer<'_>>(kernel, data, names)
        .map_err(|refusal| error(kernel, inst, refusal))?;
    let mut printer = target.printer(&LowerOptions::fragment());
    let mut out = std::mem::take(&mut fragment.code);
    let mut scratch = std::mem::take(&mut fragment.scratch);
    let printed = printer
        .splice_begin(kernel, inst, names, &mut out)
        .and_then(|()| {
            print_inst(
                &mut printer,
                &mut scratch,
                target.passes(),
                kernel,
                inst,
                &plan,
                &mut out,
            )
        })
        .and_then(|()| printer.splice_end(&mut out, fragment));
    fragment.code = out;
    fragment.scratch = scratch;
    match printed {
        Ok(()) => Ok(plan.legality().clone()),
        Err(Unprintable(message)) => {
            fragment.clear();
            Err(unprintable(kernel, inst, message))
        }
    }
}

/// Whether every value `data` reads is bound, every binding has the shape the printer binds
/// (one name, or one per lane), and no client's name lies in the fragment's namespace.
fn check_bindings<'m, P: Printer<'m>>(
    kernel: &Kernel,
    data: &InstData,
    names: &SpliceNames,
) -> Result<(), Refusal> {
    let client_name = |name: &str| splice::plain_identifier(name) && !names.is_made(name);
    if let Some((predecessor, continuation)) = names.blocks() {
        if let Some(bad) = [predecessor, continuation]
            .into_iter()
            .find(|name| !client_name(name))
        {
            let reason = format!(
                "block `{bad}`: a client's name is an identifier ([A-Za-z_][A-Za-z0-9_]*) that \
                 does not continue the prefix `{}` with a lowercase letter",
                names.prefix()
            );
            return Err(Refusal::new(KitRule::SpliceName, reason));
        }
    }
    let InstData::Atomic(atomic) = data else {
        return Ok(());
    };
    let check = |value: Value, required: bool| -> Result<(), Refusal> {
        let name = kernel.values.get(value).map_or("?", |data| &*data.name);
        let Some(binding) = names.binding(value) else {
            if !required {
                return Ok(());
            }
            let reason = format!("`%{name}` is read but bound to no name of the client's");
            return Err(Refusal::new(KitRule::Unbound, reason));
        };
        let lanes = match kernel.value_type(value) {
            crate::types::ValueType::Data(_, shape) if P::SPLICES_LANES => shape.len(),
            _ => 1,
        };
        if binding.len() != lanes {
            let reason = format!(
                "`%{name}` is bound to {} names; the target keeps it in {lanes}",
                binding.len()
            );
            return Err(Refusal::new(KitRule::SpliceName, reason));
        }
        for bound in binding {
            if !client_name(bound) {
                let reason = format!(
                    "`%{name}` is bound to `{bound}`: a client's name is an identifier \
                     ([A-Za-z_][A-Za-z0-9_]*) that does not continue the prefix `{}` with a \
                     lowercase letter",
                    names.prefix()
                );
                return Err(Refusal::new(KitRule::SpliceName, reason));
            }
        }
        Ok(())
    };
    check(atomic.addr, true)?;
    if let Some(predicate) = atomic.predicate {
        check(predicate.value, true)?;
    }
    for operand in [atomic.operand, atomic.new_value].into_iter().flatten() {
        let elements = match operand {
            Operand::Scalar(ref scalar) => std::slice::from_ref(scalar),
            Operand::Vector(list) => kernel.checked_vector_elements(list).unwrap_or(&[]),
        };
        for scalar in elements {
            if let Scalar::Value(value) = scalar {
                check(*value, true)?;
            }
        }
    }
    if let Some(result) = atomic.result {
        check(result, false)?;
    }
    Ok(())
}

/// Lowers `module` for `target` with its own printer.
pub fn lower_module<T: Target>(
    target: &T,
    module: &Verified<'_>,
    options: &LowerOptions,
    out: &mut String,
) -> Result<LowerReport, LowerError> {
    lower_target(target, module.module(), options, out, None).map_err(|error| match error {
        WriteError::Lower(error) => error,
        WriteError::Io(_) => unreachable!("a lowering into a string writes nothing else"),
    })
}

/// Lowers `module` with `table` and `printer`, appending the code to `out`; the first refusal
/// is the error.
///
/// Every instruction is legalized before anything is printed, so a refusal leaves `out` as it
/// was; a printer that fails leaves it as it was too. Programs repeat a handful of kinds of
/// atomic, so each distinct node is legalized once per lowering.
pub fn lower_with<'m, T: Table, P: Printer<'m, Plan = T::Plan>>(
    table: &T,
    printer: P,
    module: &Verified<'m>,
    out: &mut String,
) -> Result<LowerReport, LowerError> {
    let module = module.module();
    let planned = plan(table, module, OnRefusal::Stop)?;
    print(table, printer, module, planned, out, None).map_err(|error| match error {
        WriteError::Lower(error) => error,
        WriteError::Io(_) => unreachable!("a lowering into a string writes nothing else"),
    })
}

/// Lowers `module` for `target` into `sink` as the code is printed: after the prologue, after
/// each kernel, and within a kernel whenever [`CHUNK`] bytes are ready, so a lowering holds
/// about one kernel's code at a time, never the whole module's.
///
/// A refusal is found before anything is written. A printer that fails after some code was
/// written (a disagreement between table and printer, never a property of the input) leaves
/// that code in `sink`.
pub fn lower_into<T: Target>(
    target: &T,
    module: &Verified<'_>,
    options: &LowerOptions,
    sink: &mut dyn io::Write,
) -> Result<LowerReport, WriteError> {
    let mut out = String::new();
    lower_target(target, module.module(), options, &mut out, Some(sink))
}

/// What one instruction lowered alone came to: its code, or why the target refuses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstLowering {
    /// The kernel's position in the module.
    pub kernel: usize,
    /// The instruction, by its id in its kernel.
    pub inst: Inst,
    /// The verdict and the instruction's code, or the refusal (at the instruction, or at a
    /// parameter of its kernel the target cannot carry).
    pub result: Result<(Legality, String), LowerError>,
}

/// Lowers every instruction of `module` on its own with `backend`, as [`Kernel::slice`] cuts
/// it out (a result of another instruction it reads becomes an input), with `options`: one
/// answer per instruction, in program order, code or refusal. Nothing stops at a refusal.
pub fn lower_each<B: Backend + ?Sized>(
    backend: &B,
    module: &Verified<'_>,
    options: &LowerOptions,
) -> Vec<InstLowering> {
    let options = options.clone().with_on_refusal(OnRefusal::Stop);
    let mut answers = Vec::new();
    let mut alone = Module::default();
    for (index, kernel) in module.kernels.iter().enumerate() {
        for inst in kernel.insts.keys() {
            alone.kernels.clear();
            alone.kernels.push(kernel.slice(|kept| kept == inst));
            let mut code = String::new();
            let result = match crate::verify::verify(&alone) {
                Ok(verified) => backend.lower(&verified, &options, &mut code),
                // A slice of a verified kernel verifies; should one not, say so.
                Err(diagnostics) => Err(error(
                    kernel,
                    inst,
                    Refusal::new(
                        KitRule::Unverified,
                        diagnostics
                            .first()
                            .map_or_else(String::new, ToString::to_string),
                    ),
                )),
            };
            let result = result
                .map(|report| {
                    let legality = report.decisions().next().map(|(_, _, legality)| legality);
                    (legality.cloned().unwrap_or_default(), code)
                })
                .map_err(|mut error| {
                    // The slice's ids are its own: name the instruction as the module does.
                    error.site = match error.site {
                        Site::Param(param) if (param as usize) < kernel.params.len() => {
                            Site::Param(param)
                        }
                        _ => Site::Inst(inst),
                    };
                    error
                });
            answers.push(InstLowering {
                kernel: index,
                inst,
                result,
            });
        }
    }
    answers
}

/// How much finished code a streaming lowering gathers before it hands it to its sink.
pub const CHUNK: usize = 1 << 16;

/// Hands `out` to `sink` and empties it.
fn drain(out: &mut String, sink: &mut Option<&mut dyn io::Write>) -> Result<(), WriteError> {
    if let Some(sink) = sink {
        sink.write_all(out.as_bytes()).map_err(WriteError::Io)?;
        out.clear();
    }
    Ok(())
}

/// A module legalized: one plan per distinct node, the plan of every instruction that is
/// printed (in program order), the report, and, where instructions are left out
/// ([`OnRefusal::Skip`]), which are kept.
struct Planned<P> {
    plans: Vec<P>,
    chosen: Vec<u32>,
    report: LowerReport,
    /// Per kernel, whether each instruction is kept (`None`: all of them); a kernel left out
    /// whole keeps none and is not printed.
    kept: Option<Vec<KernelKept>>,
}

struct KernelKept {
    whole_kernel_refused: bool,
    insts: SecondaryMap<Inst, bool>,
}

impl<P> Planned<P> {
    /// The module to print: `module` itself, or its slices of kept instructions.
    fn kept_module(&self, module: &Module) -> Option<Module> {
        let kept = self.kept.as_ref()?;
        let kernels = module
            .kernels
            .iter()
            .zip(kept)
            .filter(|(_, kept)| !kept.whole_kernel_refused)
            .map(|(kernel, kept)| kernel.slice(|inst| kept.insts[inst]))
            .collect();
        Some(Module { kernels })
    }
}

/// Lowers `module` for `target` with its own printer, as `options` say.
fn lower_target<T: Target>(
    target: &T,
    module: &Module,
    options: &LowerOptions,
    out: &mut String,
    sink: Option<&mut dyn io::Write>,
) -> Result<LowerReport, WriteError> {
    let planned = plan(target, module, options.on_refusal)?;
    match planned.kept_module(module) {
        None => print(target, target.printer(options), module, planned, out, sink),
        Some(kept) => print(target, target.printer(options), &kept, planned, out, sink),
    }
}

/// Legalizes every instruction and kernel signature of `module`: the first refusal is the
/// error ([`OnRefusal::Stop`]), or every refusal is reported and its instruction (or kernel)
/// left out ([`OnRefusal::Skip`]).
fn plan<T: Table>(
    table: &T,
    module: &Module,
    on_refusal: OnRefusal,
) -> Result<Planned<T::Plan>, LowerError> {
    let skip = on_refusal == OnRefusal::Skip;
    let mut report = LowerReport::default();
    let mut plans: Vec<T::Plan> = Vec::new();
    // Refusals too: a million refused atomics search their smallest target once.
    let mut plan_of: HashMap<Node, Result<u32, Refusal>> = HashMap::default();
    let mut chosen: Vec<u32> = Vec::new();
    let mut kept: Vec<KernelKept> = Vec::new();
    let mut any_left_out = false;
    for (index, kernel) in module.kernels.iter().enumerate() {
        let (kernel_chosen, kernel_decisions) = (chosen.len(), report.len());
        report.reserve(kernel.insts.len());
        chosen.reserve(kernel.insts.len());
        let mut kernel_kept = KernelKept {
            whole_kernel_refused: false,
            insts: SecondaryMap::with_capacity(kernel.insts.len()),
        };
        let mut left_out: SecondaryMap<Value, bool> = SecondaryMap::new();
        for (inst, data) in kernel.insts.iter() {
            if skip {
                if let Some(value) = reads_any(kernel, data, &left_out) {
                    let name = kernel.values.get(value).map_or("?", |data| &*data.name);
                    let reason = format!("reads `%{name}`, the result of an instruction left out");
                    report.refuse(error(
                        kernel,
                        inst,
                        Refusal::new(KitRule::ReadsRefused, reason),
                    ));
                    if let Some(result) = data.result() {
                        left_out[result] = true;
                    }
                    any_left_out = true;
                    continue;
                }
            }
            let node = Node::of_data(kernel, data);
            let answer = match plan_of.get(&node) {
                Some(answer) => answer,
                None => {
                    let answer = legalize(table, &node).map(|plan| {
                        plans.push(plan);
                        plans.len() as u32 - 1
                    });
                    plan_of.entry(node).or_insert(answer)
                }
            };
            let plan = match answer {
                Ok(plan) => *plan,
                Err(refusal) if skip => {
                    report.refuse(error(kernel, inst, refusal.clone()));
                    if let Some(result) = data.result() {
                        left_out[result] = true;
                    }
                    any_left_out = true;
                    continue;
                }
                Err(refusal) => return Err(error(kernel, inst, refusal.clone())),
            };
            report.record(index, inst, plans[plan as usize].legality());
            chosen.push(plan);
            kernel_kept.insts[inst] = true;
        }
        // After the instructions: a refused instruction is the more precise answer, and the
        // parameters it reads usually share its reason.
        if let Err((param, refusal)) = legalize_signature(table, &kernel.params) {
            let error = param_error(kernel, param, refusal);
            if !skip {
                return Err(error);
            }
            report.refuse(error);
            report.truncate_decisions(kernel_decisions);
            chosen.truncate(kernel_chosen);
            kernel_kept.whole_kernel_refused = true;
            any_left_out = true;
        }
        kept.push(kernel_kept);
    }
    Ok(Planned {
        plans,
        chosen,
        report,
        kept: any_left_out.then_some(kept),
    })
}

/// The first value `data` reads that `left_out` marks, if any.
fn reads_any(
    kernel: &Kernel,
    data: &InstData,
    left_out: &SecondaryMap<Value, bool>,
) -> Option<Value> {
    let InstData::Atomic(atomic) = data else {
        return None;
    };
    let scalar = |scalar: &Scalar| match scalar {
        Scalar::Value(value) if left_out[*value] => Some(*value),
        _ => None,
    };
    let operand = |operand: &Option<Operand>| match operand {
        Some(Operand::Scalar(s)) => scalar(s),
        Some(Operand::Vector(list)) => kernel
            .checked_vector_elements(*list)
            .and_then(|elements| elements.iter().find_map(scalar)),
        None => None,
    };
    let predicate = atomic.predicate.map(|p| p.value).filter(|v| left_out[*v]);
    let addr = Some(atomic.addr).filter(|v| left_out[*v]);
    addr.or(predicate)
        .or_else(|| operand(&atomic.operand))
        .or_else(|| operand(&atomic.new_value))
}

/// Prints a planned module: with a sink, `out` is handed to it as it fills and ends empty.
fn print<'m, T: Table, P: Printer<'m, Plan = T::Plan>>(
    table: &T,
    mut printer: P,
    module: &'m Module,
    planned: Planned<T::Plan>,
    out: &mut String,
    mut sink: Option<&mut dyn io::Write>,
) -> Result<LowerReport, WriteError> {
    let Planned {
        plans,
        chosen,
        report,
        ..
    } = planned;
    let start = out.len();
    let mut scratch = Scratch::default();
    let passes = table.passes();
    let mut chosen = chosen.into_iter();
    printer.module_begin(module, out);
    drain(out, &mut sink)?;
    for (index, kernel) in module.kernels.iter().enumerate() {
        printer.kernel_begin(kernel, index, out);
        for (inst, plan) in kernel.insts.keys().zip(chosen.by_ref()) {
            let plan = &plans[plan as usize];
            let printed = print_inst(&mut printer, &mut scratch, passes, kernel, inst, plan, out);
            if let Err(Unprintable(message)) = printed {
                out.truncate(start);
                return Err(unprintable(kernel, inst, message).into());
            }
            if !P::HEADS_KERNEL_AT_END && out.len() >= CHUNK {
                drain(out, &mut sink)?;
            }
        }
        printer.kernel_end(out);
        drain(out, &mut sink)?;
    }
    printer.module_end(out);
    drain(out, &mut sink)?;
    Ok(report)
}

/// What printing reuses from one instruction to the next.
#[derive(Default)]
pub struct Scratch {
    expander: Expander,
    linear: Linear,
    reuse: Reuse,
    soft_float: SoftFloat,
}

impl Scratch {
    /// Storage for [`Scratch::expansion`].
    pub fn new() -> Self {
        Scratch::default()
    }

    /// The expansion a printer is handed for `node` lowered by `lowering` on a target asking
    /// for `passes`: expanded, then the passes run in the driver's order. Valid until the next
    /// call.
    pub fn expansion(
        &mut self,
        node: &AtomicNode,
        lowering: Lowering,
        passes: Passes,
    ) -> &mut Expansion {
        let expansion = self.expander.expand(node, lowering);
        run_passes(&mut self.soft_float, &mut self.reuse, expansion, passes);
        expansion
    }
}

/// The passes, in the one order every printer sees: soft float first, so that reuse sees the
/// rewritten primitives.
fn run_passes(
    soft_float: &mut SoftFloat,
    reuse: &mut Reuse,
    expansion: &mut Expansion,
    passes: Passes,
) {
    soft_float.run(expansion, passes.soft_float);
    if passes.reuse {
        reuse.run(expansion);
    }
}

/// Prints one instruction of `kernel` as `plan` says: a fence, a node whole, or its expansion.
fn print_inst<'m, P: Printer<'m>>(
    printer: &mut P,
    scratch: &mut Scratch,
    passes: Passes,
    kernel: &Kernel,
    inst: Inst,
    plan: &P::Plan,
    out: &mut String,
) -> Result<(), Unprintable> {
    let atomic = match &kernel.insts[inst] {
        InstData::Atomic(atomic) => atomic,
        InstData::Fence(fence) => return printer.fence(inst, fence, plan, out),
    };
    let node = AtomicNode::of(kernel, atomic);
    if plan.is_whole() {
        let access = match node.op {
            AtomicOp::Cas => Access::Cas,
            AtomicOp::Load => Access::Load,
            AtomicOp::Store => Access::Store,
            _ => Access::Rmw,
        };
        let bracket = FenceBracket::around(node.order, plan.fences(access));
        let at = At {
            inst,
            atomic,
            node: &node,
        };
        return printer.whole(at, plan, bracket, out);
    }
    let expansion = scratch.expander.expand(&node, plan.legality().lowering);
    run_passes(
        &mut scratch.soft_float,
        &mut scratch.reuse,
        expansion,
        passes,
    );
    let steps = scratch.linear.walk(expansion, P::PARAMS);
    let x = Expanding {
        inst,
        atomic,
        node: &node,
        plan,
        expansion,
    };
    print_steps(printer, &x, steps, out)
}

/// Hands an expansion's steps to the printer, each memory primitive with its fence bracket.
fn print_steps<'m, P: Printer<'m>>(
    printer: &mut P,
    x: &Expanding<'_, P::Plan>,
    steps: &[Step],
    out: &mut String,
) -> Result<(), Unprintable> {
    printer.expansion_begin(x, out)?;
    let once = expansion_bracket(x, P::BRACKETS_EXPANSIONS);
    if let Some(leading) = once.and_then(|bracket| bracket.leading) {
        printer.expansion_fence(x, leading, out)?;
    }
    for step in steps {
        match *step {
            Step::Block { block, entry } => printer.block(x, block, entry, out),
            Step::Prim { block, index } => {
                let prim = &x.expansion.blocks[block].prims[index as usize];
                let bracket = memory_access(prim).map(|(access, mem)| match once {
                    Some(once) => FenceBracket::bare(once.order),
                    None => FenceBracket::around(mem.order, x.plan.fences(access)),
                });
                printer.prim(x, prim, bracket, out)?;
            }
            Step::Copy { dst, src } => printer.copy(x, dst, src, out),
            Step::Branch { cond, negated, to } => printer.branch(x, cond, negated, to, out),
            Step::Jump(to) => printer.jump(x, to, out),
            Step::Label(label) => printer.label(x, label, out),
            Step::Terminator(block) => printer.terminator(x, block, out)?,
        }
    }
    if let Some(trailing) = once.and_then(|bracket| bracket.trailing) {
        printer.expansion_fence(x, trailing, out)?;
    }
    printer.expansion_end(x, out)
}

/// The one bracket around a whole expansion, if its order is carried that way: for an element
/// with a CAS retry loop ([`Lowering::has_retry_loop`]) where the plan's [`Access::Loop`] policy
/// says so (the release part once before the
/// loop's first load, the acquire part once after its exit, no fence on a retry); otherwise,
/// for a printer that `brackets` expansions, where every access of it is relaxed between
/// fences under the plan's policy (the node's order is the order of each of its accesses).
fn expansion_bracket<P: Plan>(x: &Expanding<'_, P>, brackets: bool) -> Option<FenceBracket> {
    let between_fences = if x.plan.legality().lowering.has_retry_loop() {
        x.plan.fences(Access::Loop) == FencePolicy::RelaxedBetweenFences
    } else {
        let mut accesses = x.expansion.blocks.values().flat_map(|block| &block.prims);
        brackets
            && accesses.all(|prim| {
                memory_access(prim).is_none_or(|(access, _)| {
                    x.plan.fences(access) == FencePolicy::RelaxedBetweenFences
                })
            })
    };
    between_fences.then(|| FenceBracket::around(x.node.order, FencePolicy::RelaxedBetweenFences))
}

/// The kind of access a memory primitive is, and its attributes; `None` for any other primitive.
fn memory_access(prim: &Prim) -> Option<(Access, &MemAttrs)> {
    match prim {
        Prim::Load { mem, .. } => Some((Access::Load, mem)),
        Prim::Cas { mem, .. } => Some((Access::Cas, mem)),
        Prim::Rmw { mem, .. } => Some((Access::Rmw, mem)),
        _ => None,
    }
}

/// The error of a printer that cannot print what its table accepted.
fn unprintable(kernel: &Kernel, inst: Inst, message: String) -> LowerError {
    error(kernel, inst, Refusal::new(KitRule::Unprintable, message))
}

/// The one place a [`LowerError`] is built: the refusal at the instruction's source location.
pub fn error(kernel: &Kernel, inst: Inst, refusal: Refusal) -> LowerError {
    LowerError {
        kernel: kernel.name.clone(),
        site: Site::Inst(inst),
        loc: kernel.loc_of(inst),
        refusal,
    }
}

/// The one place a [`LowerError`] of a parameter is built: the refusal at the parameter's
/// source location, its reason naming the parameter.
pub fn param_error(kernel: &Kernel, param: usize, mut refusal: Refusal) -> LowerError {
    let (loc, name, ty) = match kernel.params.get(param) {
        Some(p) => {
            let data = kernel.values.get(p.value);
            (
                data.map_or(kernel.loc, |d| d.loc),
                data.map_or("", |d| &*d.name),
                p.ty.to_string(),
            )
        }
        None => (kernel.loc, "", String::new()),
    };
    let loc = if loc.is_known() { loc } else { kernel.loc };
    refusal.reason = format!("parameter `%{name}: {ty}`: {}", refusal.reason);
    LowerError {
        kernel: kernel.name.clone(),
        site: Site::Param(param as u32),
        loc,
        refusal,
    }
}

impl<T: Target> Backend for T {
    fn target_name(&self) -> String {
        self.name()
    }

    fn legalize(&self, node: &AtomicNode) -> Verdict {
        self.legalize_node(&Node::Atomic(*node))
    }

    fn legalize_fence(&self, fence: &kernel::Fence) -> Verdict {
        self.legalize_node(&Node::Fence(*fence))
    }

    fn legalize_node(&self, node: &Node) -> Verdict {
        legalize(self, node).map(|plan| plan.legality().clone())
    }

    fn legalize_signature(&self, params: &[Param]) -> Result<(), (usize, Refusal)> {
        legalize_signature(self, params)
    }

    fn lower(
        &self,
        module: &Verified<'_>,
        options: &LowerOptions,
        out: &mut String,
    ) -> Result<LowerReport, LowerError> {
        lower_module(self, module, options, out)
    }

    fn lower_into(
        &self,
        module: &Verified<'_>,
        options: &LowerOptions,
        sink: &mut dyn io::Write,
    ) -> Result<LowerReport, WriteError> {
        lower_into(self, module, options, sink)
    }

    fn splice(
        &self,
        module: &Verified<'_>,
        kernel: usize,
        inst: Inst,
        names: &SpliceNames,
        fragment: &mut Fragment,
    ) -> Result<Legality, LowerError> {
        splice_inst(self, module, kernel, inst, names, fragment)
    }
}

/// Appends a printer's `buffer` (a kernel's body, say) to `out` and empties it, moving the
/// buffer rather than copying it where `out` holds less, so a long body is not held twice.
pub fn append_buffer(out: &mut String, buffer: &mut String) {
    if out.len() < buffer.len() {
        buffer.insert_str(0, out);
        std::mem::swap(out, buffer);
    } else {
        out.push_str(buffer);
    }
    buffer.clear();
}
