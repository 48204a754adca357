//! The one driver: lowering a module (into a string, or streamed into a sink), each instruction
//! on its own, and the [`Backend`] every [`Target`] is through it.
//!
//! Every entry goes through the same two steps, planning (every instruction legalized) then
//! printing, so a refusal is found before anything is written and `legalize` and `lower` agree
//! by construction.

use std::io;

use super::{Backend, LowerError, LowerOptions, LowerReport, OnRefusal, Site, WriteError};
use crate::kernel::{self, Inst, Module, Param};
use crate::legal::{Legality, Refusal, Verdict};
use crate::node::{AtomicNode, Node};
use crate::rule::KitRule;
use crate::verify::Verified;

use super::error::{error, unprintable};
use super::inst::{print_inst, Scratch};
use super::planning::{plan, Planned};
use super::splicing::count_instructions;
use super::{
    binding_types, legalize, legalize_signature, splice_inst, BindingTypes, Fragment, Plan,
    Printer, SpliceNames, Table, Target, Unprintable,
};

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
    let planned = plan(
        table,
        module,
        OnRefusal::Stop,
        printer.generic_params_space(),
    )?;
    print(table, printer, module, planned, out, None, false).map_err(|error| match error {
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
    /// The number of instructions the printer wrote for the instruction (its lines less labels
    /// and comments, without the code around it); 0 for a refusal.
    pub instructions: u32,
}

/// Lowers every instruction of `module` on its own with `backend`, as [`Kernel::slice`] cuts
/// it out (a result of another instruction it reads becomes an input), with `options`: one
/// answer per instruction, in program order, code or refusal. Nothing stops at a refusal.
///
/// [`Kernel::slice`]: crate::kernel::Kernel::slice
pub fn lower_each<B: Backend + ?Sized>(
    backend: &B,
    module: &Verified<'_>,
    options: &LowerOptions,
) -> Vec<InstLowering> {
    let options = options
        .clone()
        .with_on_refusal(OnRefusal::Stop)
        .with_count_instructions(true);
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
            let mut instructions = 0;
            let result = result
                .map(|report| {
                    instructions = report.instructions().first().copied().unwrap_or(0);
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
                instructions,
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

/// Lowers `module` for `target` with its own printer, as `options` say.
fn lower_target<T: Target>(
    target: &T,
    module: &Module,
    options: &LowerOptions,
    out: &mut String,
    sink: Option<&mut dyn io::Write>,
) -> Result<LowerReport, WriteError> {
    if let Some(adjusted) = target.with_options(options) {
        return lower_target(&adjusted, module, options, out, sink);
    }
    let printer = target.printer(options);
    let planned = plan(
        target,
        module,
        options.on_refusal,
        printer.generic_params_space(),
    )?;
    let count = options.count_instructions;
    match planned.kept_module(module) {
        None => print(target, printer, module, planned, out, sink, count),
        Some(kept) => print(target, printer, &kept, planned, out, sink, count),
    }
}

/// Prints a planned module: with a sink, `out` is handed to it as it fills and ends empty.
/// With `count`, the report gets each instruction's instruction count.
fn print<'m, T: Table, P: Printer<'m, Plan = T::Plan>>(
    table: &T,
    mut printer: P,
    module: &'m Module,
    planned: Planned<T::Plan>,
    out: &mut String,
    mut sink: Option<&mut dyn io::Write>,
    count: bool,
) -> Result<LowerReport, WriteError> {
    let Planned {
        plans,
        chosen,
        mut report,
        ..
    } = planned;
    let start = out.len();
    let mut scratch = Scratch::default();
    let passes = table.passes();
    let mut chosen = chosen.into_iter();
    printer.module_begin(module, out);
    drain(out, &mut sink)?;
    for (index, kernel) in module.kernels.iter().enumerate() {
        scratch.kernel_begin();
        printer.kernel_begin(kernel, index, out);
        for (inst, plan) in kernel.insts.keys().zip(chosen.by_ref()) {
            let (index, plan) = (plan as usize, &plans[plan as usize]);
            let before = printer.code(out).len();
            let printed = print_inst(
                &mut printer,
                &mut scratch,
                passes,
                kernel,
                inst,
                plan,
                Some(index),
                out,
            );
            if let Err(Unprintable(message)) = printed {
                out.truncate(start);
                return Err(unprintable(kernel, inst, message).into());
            }
            if count {
                let code = printer.code(out);
                report.record_instructions(count_instructions(code.get(before..).unwrap_or("")));
            }
            if !P::STYLE.heads_kernel_at_end && out.len() >= CHUNK {
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

    fn binding_types(
        &self,
        module: &Verified<'_>,
        kernel: usize,
        inst: Inst,
    ) -> Result<BindingTypes, LowerError> {
        binding_types(self, module, kernel, inst)
    }
}
