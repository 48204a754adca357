//! Packing modules into batches for a tool, bisecting a rejected batch, and shrinking a
//! rejected kernel to a small input that is still rejected.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use atomir_ir::{text, verify, Backend, LowerOptions, Module, Site};

use super::{JudgeTarget, Lowered};

// ---- packing, bisecting, shrinking -------------------------------------------------------------

/// Whether two kernel names could give one symbol in some backend: equal once `$` is `_`
/// (`a$b`, `a_b`), or one is the other followed by `_…` (`k` next to `k_param_0`, `k_out_0`,
/// `k_BB_0`). Modules of one batch must not hold such a pair across them, so that joining them
/// adds no collision of its own.
pub(super) fn names_may_meet(a: &str, b: &str) -> bool {
    let (a, b) = (a.replace('$', "_"), b.replace('$', "_"));
    let extends = |long: &str, short: &str| {
        long.strip_prefix(short)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('_'))
    };
    extends(&a, &b) || extends(&b, &a)
}

/// Groups `modules` (by index) into batches of about `batch_kernels` kernels whose names
/// cannot meet across modules.
pub fn pack(modules: &[Module], batch_kernels: usize) -> Vec<Vec<usize>> {
    struct Open<'m> {
        members: Vec<usize>,
        names: Vec<&'m str>,
        kernels: usize,
    }
    let mut open: Vec<Open> = Vec::new();
    let mut done = Vec::new();
    for (index, module) in modules.iter().enumerate() {
        let names: Vec<&str> = module.kernels.iter().map(|k| k.name.as_str()).collect();
        let meets = |batch: &Open| {
            names
                .iter()
                .any(|a| batch.names.iter().any(|b| names_may_meet(a, b)))
        };
        let slot = match open.iter().position(|b| !meets(b)) {
            Some(slot) => slot,
            None => {
                open.push(Open {
                    members: Vec::new(),
                    names: Vec::new(),
                    kernels: 0,
                });
                open.len() - 1
            }
        };
        let batch = &mut open[slot];
        batch.members.push(index);
        batch.names.extend(names);
        batch.kernels += module.kernels.len();
        if batch.kernels >= batch_kernels {
            done.push(open.remove(slot).members);
        }
    }
    done.extend(open.into_iter().map(|b| b.members));
    done.retain(|b| !b.is_empty());
    done
}

/// One module the tool rejects, as small as bisecting and shrinking made it.
#[derive(Clone, Debug)]
pub struct Rejection {
    pub target: String,
    /// Where it came from (a seed, a file name).
    pub origin: String,
    /// The smallest failing input found, in canonical text form.
    pub input: String,
    /// The tool's message for it.
    pub message: String,
}

impl Rejection {
    /// The report: target, origin, the kernel, and an excerpt of the tool's message.
    pub fn render(&self) -> String {
        let mut input: Vec<&str> = self.input.lines().take(40).collect();
        if self.input.lines().count() > 40 {
            input.push("…");
        }
        format!(
            "{} rejects {}:\n{}  => {}",
            self.target,
            self.origin,
            indent(&input.join("\n")),
            excerpt(&self.message, 8)
        )
    }

    /// The first line of the tool's message with numbers and names blurred: failures that
    /// share it are most likely one defect.
    pub fn signature(&self) -> String {
        signature(&self.message)
    }
}

pub(super) fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}

/// The lines of a tool message that say what is wrong, at most `lines` of them.
pub fn excerpt(message: &str, lines: usize) -> String {
    let interesting: Vec<&str> = message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .filter(|l| !l.starts_with("Stack dump") && !l.starts_with('#') && !l.starts_with("0x"))
        // GenX_IR echoes its command line first.
        .filter(|l| !l.contains("GenX_IR module.visaasm"))
        .take(lines)
        .collect();
    interesting.join("\n     ")
}

/// A message's first meaningful line with numbers, names and quoted text blurred: failures
/// that share it are most likely one defect.
pub fn signature(message: &str) -> String {
    let message = message
        .split_once("failures enough) ")
        .map_or(message, |(_, rest)| rest);
    let first = excerpt(message, 2);
    let mut out = String::new();
    let mut quoted = false;
    for word in
        first.split_inclusive(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
    {
        let body =
            word.trim_end_matches(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')');
        let tail = &word[body.len()..];
        let quotes = body.matches(['`', '\'', '"']).count();
        let blurred = quoted
            || quotes > 0
            || body
                .chars()
                .any(|c| c.is_ascii_digit() || "_$%@./".contains(c));
        if quotes % 2 == 1 {
            quoted = !quoted;
        }
        if blurred {
            if !out.ends_with("# ") && !out.ends_with('#') {
                out.push('#');
            }
        } else {
            out.push_str(body);
        }
        out.push_str(tail);
    }
    out.chars().take(160).collect()
}

/// The judge's verdict on a set of modules lowered together.
pub(super) fn judge_union(
    target: &JudgeTarget,
    modules: &[&Module],
    scratch: &Path,
) -> Result<(), String> {
    let union = Module {
        kernels: modules
            .iter()
            .flat_map(|m| m.kernels.iter().cloned())
            .collect(),
    };
    match target.lower(&union) {
        Lowered::Code(code) => target.judge(&union, &code, scratch),
        Lowered::Refused(error) => Err(format!("refused when joined: {error}")),
        Lowered::Panicked(message) => Err(format!("lowering panicked when joined: {message}")),
        Lowered::Unverified(message) => Err(format!("does not verify when joined: {message}")),
    }
}

/// Judges the modules of one batch together; bisects a rejected batch down to single modules,
/// and a rejected module down to a kernel that fails alone (when one does), as long as
/// `bisect_budget` (failures this target may still bisect, shared by its batches) lasts; past
/// it, a rejected part is reported whole. Returns the failures as (module index, smallest
/// failing module, message).
pub fn judge_batch(
    target: &JudgeTarget,
    modules: &[Module],
    members: &[usize],
    scratch: &Path,
    bisect_budget: &AtomicUsize,
) -> Vec<(usize, Module, String)> {
    let members: Vec<usize> = members
        .iter()
        .copied()
        .filter(|&m| !modules[m].kernels.is_empty())
        .collect();
    if members.is_empty() {
        return Vec::new();
    }
    let chosen: Vec<&Module> = members.iter().map(|&i| &modules[i]).collect();
    let Err(message) = judge_union(target, &chosen, scratch) else {
        return Vec::new();
    };
    let spent = bisect_budget
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
            left.checked_sub(1)
        })
        .is_err();
    if spent {
        let module = Module {
            kernels: chosen.iter().flat_map(|m| m.kernels.clone()).collect(),
        };
        let note = format!(
            "(a batch of {} modules, not bisected: this target has failures enough) {message}",
            members.len()
        );
        return vec![(members[0], module, note)];
    }
    // The budget counts failures found, not bisection steps: give the unit back while halving.
    let members = members.as_slice();
    if members.len() > 1 {
        bisect_budget.fetch_add(1, Ordering::Relaxed);
        let (left, right) = members.split_at(members.len() / 2);
        let mut failures = judge_batch(target, modules, left, scratch, bisect_budget);
        failures.extend(judge_batch(target, modules, right, scratch, bisect_budget));
        if failures.is_empty() {
            // Only together: the packing let two modules meet. Report the batch as it is.
            let module = Module {
                kernels: chosen.iter().flat_map(|m| m.kernels.clone()).collect(),
            };
            failures.push((members[0], module, format!("only when joined: {message}")));
        }
        return failures;
    }
    let module = &modules[members[0]];
    if module.kernels.len() > 1 {
        for kernel in &module.kernels {
            let alone = Module {
                kernels: vec![kernel.clone()],
            };
            if let Err(message) = judge_union(target, &[&alone], scratch) {
                return vec![(members[0], alone, message)];
            }
        }
    }
    vec![(members[0], module.clone(), message)]
}

/// Removes instructions, parameters and kernels from `module` (in text form) while `target`
/// still rejects it with the same [`signature`]; at most `budget` tool calls.
pub fn shrink(
    target: &JudgeTarget,
    module: &Module,
    message: &str,
    scratch: &Path,
    budget: usize,
) -> (Module, String) {
    let wanted = signature(message);
    let mut best = module.clone();
    let mut best_message = message.to_string();
    let mut calls = 0;
    let still_fails = |candidate: &Module, calls: &mut usize| -> Option<String> {
        if verify::verify(candidate).is_err() {
            return None;
        }
        *calls += 1;
        match target.lower(candidate) {
            Lowered::Code(code) => match target.judge(candidate, &code, scratch) {
                Err(message) if signature(&message) == wanted => Some(message),
                _ => None,
            },
            Lowered::Panicked(message) if signature(&message) == wanted => Some(message),
            _ => None,
        }
    };
    let mut progress = true;
    while progress && calls < budget {
        progress = false;
        let candidates = shrink_candidates(&text::print(&best));
        for candidate in candidates {
            if calls >= budget {
                break;
            }
            let Ok(parsed) = text::parse(&candidate) else {
                continue;
            };
            if parsed.kernels.iter().any(|k| k.insts.is_empty()) {
                continue;
            }
            if let Some(message) = still_fails(&parsed, &mut calls) {
                best = parsed;
                best_message = message;
                progress = true;
                break;
            }
        }
    }
    (best, best_message)
}

/// Smaller versions of a module's canonical text, biggest cuts first: without one kernel,
/// without every parameter its kernel never names, without one instruction, without one
/// parameter.
pub(super) fn shrink_candidates(printed: &str) -> Vec<String> {
    let kernels: Vec<Vec<&str>> = printed
        .split("\n\n")
        .map(|k| k.lines().filter(|l| !l.is_empty()).collect())
        .collect();
    let join = |kernels: &[Vec<String>]| -> String {
        kernels
            .iter()
            .map(|k| k.join("\n"))
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    let owned: Vec<Vec<String>> = kernels
        .iter()
        .map(|k| k.iter().map(|l| l.to_string()).collect())
        .collect();
    let mut candidates = Vec::new();
    if owned.len() > 1 {
        for drop in 0..owned.len() {
            let mut fewer = owned.clone();
            fewer.remove(drop);
            candidates.push(join(&fewer));
        }
    }
    // (kernel, header name, parameters) of each kernel.
    let headers: Vec<(usize, String, Vec<String>)> = owned
        .iter()
        .enumerate()
        .filter_map(|(k, lines)| {
            let header = lines.first()?.strip_prefix("kernel ")?;
            let (name, rest) = header.split_once('(')?;
            let params = rest
                .trim_end_matches(") {")
                .split(", ")
                .filter(|p| !p.is_empty())
                .map(String::from)
                .collect();
            Some((k, name.to_string(), params))
        })
        .collect();
    let with_params = |k: usize, name: &str, params: &[&String]| {
        let mut changed = owned.clone();
        let kept: Vec<&str> = params.iter().map(|p| p.as_str()).collect();
        changed[k][0] = format!("kernel {name}({}) {{", kept.join(", "));
        join(&changed)
    };
    for (k, name, params) in &headers {
        let body = owned[*k][1..].join("\n");
        let named = |param: &String| {
            let local = param.split(':').next().unwrap_or("");
            body.match_indices(local).any(|(at, _)| {
                !body[at + local.len()..]
                    .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$')
            })
        };
        let used: Vec<&String> = params.iter().filter(|p| named(p)).collect();
        if used.len() < params.len() {
            candidates.push(with_params(*k, name, &used));
        }
    }
    for (k, lines) in owned.iter().enumerate() {
        for line in 1..lines.len().saturating_sub(1) {
            let mut fewer = owned.clone();
            fewer[k].remove(line);
            candidates.push(join(&fewer));
        }
    }
    for (k, name, params) in &headers {
        for drop in 0..params.len() {
            let kept: Vec<&String> = params
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != drop)
                .map(|(_, p)| p)
                .collect();
            candidates.push(with_params(*k, name, &kept));
        }
    }
    candidates
}

/// What happened to the kernels of a set of modules on one target.
#[derive(Default, Debug)]
pub struct Tally {
    pub kernels: usize,
    /// Kernels lowered (after dropping the instructions the target refused).
    pub accepted: usize,
    /// Refused instructions, by rule.
    pub refused: std::collections::BTreeMap<&'static str, usize>,
    pub panics: Vec<Rejection>,
}

/// `kernel` without what a refusal is about: an instruction nothing reads the result of, or a
/// parameter nothing reads.
pub(super) fn without(kernel: &atomir_ir::Kernel, site: Site) -> Option<atomir_ir::Kernel> {
    match site {
        Site::Inst(inst) => without_inst(kernel, inst),
        Site::Param(param) => without_param(kernel, param as usize),
        // A site of a kind this reducer does not know: nothing to remove.
        _ => None,
    }
}

/// `kernel` without parameter number `param`, if nothing reads it.
pub(super) fn without_param(kernel: &atomir_ir::Kernel, param: usize) -> Option<atomir_ir::Kernel> {
    let mut printed = String::new();
    text::print_kernel(&mut printed, kernel);
    let (header, body) = printed.split_once('\n')?;
    let open = header.find('(')?;
    let close = header.rfind(')')?;
    let mut params: Vec<&str> = header[open + 1..close].split(", ").collect();
    if param >= params.len() {
        return None;
    }
    params.remove(param);
    let text = format!(
        "{}{}{}\n{body}",
        &header[..=open],
        params.join(", "),
        &header[close..]
    );
    let module = text::parse(&text).ok()?;
    verify::verify(&module).ok()?;
    let kernel = module.kernels.into_iter().next()?;
    (!kernel.insts.is_empty()).then_some(kernel)
}

/// `kernel` without instruction `inst`, if nothing reads its result.
pub(super) fn without_inst(
    kernel: &atomir_ir::Kernel,
    inst: atomir_ir::Inst,
) -> Option<atomir_ir::Kernel> {
    let mut printed = String::new();
    text::print_kernel(&mut printed, kernel);
    let mut lines: Vec<&str> = printed.lines().collect();
    lines.remove(1 + inst.as_u32() as usize);
    let module = text::parse(&lines.join("\n")).ok()?;
    verify::verify(&module).ok()?;
    let kernel = module.kernels.into_iter().next()?;
    (!kernel.insts.is_empty()).then_some(kernel)
}

/// `kernel` without the instructions `backend` refuses (a kernel whose refused instruction's
/// result is read later is dropped); `None` when nothing is left or lowering panics.
pub fn accepted_kernel(
    backend: &dyn Backend,
    kernel: atomir_ir::Kernel,
) -> Option<atomir_ir::Kernel> {
    let mut module = Module {
        kernels: vec![kernel],
    };
    let options = LowerOptions::module();
    let mut code = String::new();
    loop {
        code.clear();
        let verified = verify::verify(&module).ok()?;
        let lowered = catch_unwind(AssertUnwindSafe(|| {
            backend.lower(&verified, &options, &mut code)
        }));
        match lowered {
            Ok(Ok(_)) => return module.kernels.pop(),
            Ok(Err(error)) => module.kernels[0] = without(&module.kernels[0], error.site)?,
            Err(_) => return None,
        }
    }
}

/// Lowers every module alone. An instruction the target refuses is counted by rule and dropped
/// (its kernel dropped when a later instruction reads its result), and the rest is tried again,
/// so that each target judges as much code as it accepts. Returns the accepted part of each
/// module (possibly empty).
pub fn accepted_parts(
    target: &JudgeTarget,
    modules: &[(String, Module)],
    tally: &mut Tally,
) -> Vec<Module> {
    modules
        .iter()
        .map(|(origin, module)| {
            tally.kernels += module.kernels.len();
            let mut kept = module.clone();
            loop {
                if kept.kernels.is_empty() {
                    return kept;
                }
                match target.lower(&kept) {
                    Lowered::Code(_) => {
                        tally.accepted += kept.kernels.len();
                        return kept;
                    }
                    Lowered::Refused(error) => {
                        *tally.refused.entry(error.refusal.rule.id()).or_default() += 1;
                        let Some(at) = kept.kernels.iter().position(|k| k.name == error.kernel)
                        else {
                            return Module::default();
                        };
                        match without(&kept.kernels[at], error.site) {
                            Some(smaller) => kept.kernels[at] = smaller,
                            None => {
                                kept.kernels.remove(at);
                            }
                        }
                    }
                    Lowered::Panicked(message) => {
                        tally.panics.push(Rejection {
                            target: target.name.clone(),
                            origin: origin.clone(),
                            input: text::print(&kept),
                            message: format!("lowering panicked: {message}"),
                        });
                        return Module::default();
                    }
                    Lowered::Unverified(message) => {
                        tally.panics.push(Rejection {
                            target: target.name.clone(),
                            origin: origin.clone(),
                            input: text::print(&kept),
                            message: format!("does not verify: {message}"),
                        });
                        return Module::default();
                    }
                }
            }
        })
        .collect()
}
