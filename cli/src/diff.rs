//! `atomir diff`: what changes, instruction by instruction, between two targets (or one target
//! at two versions): the strategy change in words and a unified diff of the emitted code.

use std::fmt::Write;

use atomir_ir::rule::KitRule;
use atomir_ir::{verify, Backend, LowerOptions, Module, Refusal, Strategy, Verdict};

use crate::slice::single_instruction;
use crate::unified::hunks;

/// Lines of unchanged code shown around each change.
const CONTEXT: usize = 3;

/// One side of the comparison for one instruction.
struct Side {
    verdict: Verdict,
    code: String,
}

impl Side {
    fn strategy(&self) -> Strategy {
        match &self.verdict {
            Ok(legality) => legality.strategy(),
            Err(_) => Strategy::Illegal,
        }
    }
}

fn lower_alone(backend: &dyn Backend, module: &Module) -> Side {
    let kernel = &module.kernels[0];
    let Some(inst) = kernel.insts.keys().next() else {
        return Side {
            verdict: Ok(Default::default()),
            code: String::new(),
        };
    };
    let mut code = String::new();
    let verdict = backend.legalize_inst(kernel, inst).and_then(|legality| {
        let module = verify::verify(module).map_err(|diagnostics| {
            let first = diagnostics.first().map(ToString::to_string);
            Refusal::new(KitRule::Unverified, first.unwrap_or_default())
        })?;
        backend
            .lower(&module, &LowerOptions::default(), &mut code)
            .map(|_| legality)
            .map_err(|error| error.refusal)
    });
    if verdict.is_err() {
        code.clear();
    }
    // A line naming the target is a listing header, not code: keeping it would make every
    // instruction differ between two targets.
    let target = backend.target_name();
    if code.contains(&target) {
        code = code
            .lines()
            .filter(|line| !line.contains(&target))
            .flat_map(|line| [line, "\n"])
            .collect();
    }
    Side { verdict, code }
}

/// Counts of what the diff found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiffSummary {
    pub instructions: usize,
    pub strategy_changed: usize,
    pub code_changed: usize,
}

/// Writes the per-instruction diff of a verified module between targets `a` and `b`.
pub fn diff_targets(
    module: &Module,
    a: &dyn Backend,
    b: &dyn Backend,
    out: &mut String,
) -> DiffSummary {
    let (name_a, name_b) = (a.target_name(), b.target_name());
    let _ = writeln!(out, "--- {name_a}\n+++ {name_b}");
    let mut summary = DiffSummary::default();
    let mut alone = Module::default();
    for kernel in &module.kernels {
        let _ = writeln!(out, "kernel {}", kernel.name);
        for (index, inst) in kernel.insts.keys().enumerate() {
            alone.kernels.clear();
            alone.kernels.push(single_instruction(kernel, inst));
            let (left, right) = (lower_alone(a, &alone), lower_alone(b, &alone));
            summary.instructions += 1;
            let loc = kernel.loc_of(inst);
            let _ = write!(out, "inst {index}");
            if loc.is_known() {
                let _ = write!(out, " (line {})", loc.line);
            }
            let (from, to) = (left.strategy(), right.strategy());
            let same_code = left.code == right.code;
            if from != to {
                summary.strategy_changed += 1;
                let _ = write!(out, ": {from} → {to}");
            } else if same_code && left.verdict == right.verdict {
                let _ = write!(out, ": {from}, unchanged");
            } else {
                let _ = write!(out, ": {from}");
            }
            out.push('\n');
            for (side, target, verdict) in [
                ("-", &name_a, &left.verdict),
                ("+", &name_b, &right.verdict),
            ] {
                match verdict {
                    Ok(legality) if from != to || left.verdict != right.verdict => {
                        let text = match kernel.atomic(inst) {
                            Some(node) => legality.describe(node.ty, node.shape),
                            None => legality.describe_fence(),
                        };
                        let _ = writeln!(out, "  {side} {target}: {text}");
                    }
                    Err(refusal) => {
                        let _ = writeln!(out, "  {side} {target}: refused: {refusal}");
                    }
                    Ok(_) => {}
                }
            }
            if !same_code {
                summary.code_changed += 1;
                hunks(&left.code, &right.code, CONTEXT, out);
            }
        }
    }
    let _ = writeln!(
        out,
        "{} instructions: {} changed strategy, {} changed code",
        summary.instructions, summary.strategy_changed, summary.code_changed
    );
    summary
}
