//! Judging whole modules (not single matrix cells) with each target's own tool.
//!
//! Every target a backend accepts and a tool can judge is a [`JudgeTarget`]: its backend and a
//! judge that takes a complete module's text (`LowerOptions::module()`, as
//! `atomir lower --module` prints it) and says whether the tool accepts it, with the tool's
//! message when it does not. Many modules are judged per tool call: [`pack`] groups modules whose
//! kernel names cannot meet (so that joining them adds no collision of its own), each group is
//! lowered as one module, and a rejected group is bisected down to the module, then the kernel,
//! that fails. [`shrink`] then removes instructions and parameters while the same tool still
//! fails the same way, so a failure comes with a small kernel.
//!
//! A refusal (a `LowerError` with a rule) is a fine answer; a panic while lowering is a failure.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use atomir_ir::{text, verify, Backend, LowerError, LowerOptions, Module, Site, ValueType};
use atomir_llvm::LlvmTarget;

use crate::llvm::{check_file, Codegen, LlvmTools};
use crate::tools::{require, Tool};

/// A backend for one target, as the backend crates hand them out.
pub type TargetBackend = atomir::Target;

/// The tool that judges a target's complete modules.
pub enum Judge {
    Ptxas {
        ptxas: PathBuf,
        arch: String,
    },
    GenxIr {
        genx: PathBuf,
        platform: String,
    },
    Llvm {
        tools: LlvmTools,
        target: LlvmTarget,
    },
}

pub struct JudgeTarget {
    /// The full target name, e.g. `ptx:sm_90`, `visa:PVC+svm`, `llvm:amdgcn@15`.
    pub name: String,
    pub backend: TargetBackend,
    pub judge: Judge,
}

/// The PTX targets judged: every SM at the default ISA, and the oldest ISA of two SMs (features
/// gated by ISA version).
pub const PTX_TARGETS: &[&str] = &[
    "sm_60",
    "sm_70",
    "sm_75",
    "sm_80",
    "sm_86",
    "sm_89",
    "sm_90",
    "sm_90a",
    "sm_100",
    "sm_120",
    "sm_60@5.0",
    "sm_90@7.8",
];
pub const VISA_TARGETS: &[&str] = &["TGLLP", "DG2", "MTL", "PVC", "PVC+svm"];
/// The LLVM majors judged here (the backend accepts 14 to 23; the matrix test judges 23).
pub const LLVM_MAJORS: &[u32] = &[14, 15, 16, 19, 22];
pub const LLVM_TRIPLES: &[&str] = &[
    "nvptx64",
    "amdgcn",
    "spirv64",
    "x86_64",
    "amdgcn+coarse-grained",
];

/// Every target name judged, in a stable order.
pub fn all_target_names() -> Vec<String> {
    let mut names: Vec<String> = PTX_TARGETS.iter().map(|t| format!("ptx:{t}")).collect();
    names.extend(VISA_TARGETS.iter().map(|t| format!("visa:{t}")));
    for triple in LLVM_TRIPLES {
        for major in LLVM_MAJORS {
            let (head, knob) = match triple.split_once('+') {
                Some((head, knob)) => (head, format!("+{knob}")),
                None => (*triple, String::new()),
            };
            names.push(format!("llvm:{head}@{major}{knob}"));
        }
    }
    names
}

/// The backend and judge of a full target name; `None` (with a printed reason) when its tool is
/// missing and tools are not required.
pub fn judge_target(name: &str) -> Option<JudgeTarget> {
    let (prefix, spec) = name.split_once(':').expect("`<backend>:<target>`");
    let (backend, judge) = match prefix {
        "ptx" => {
            let backend = name.parse().expect("a PTX target");
            let arch = spec.split('@').next().unwrap_or(spec).to_string();
            let number: u32 = arch
                .trim_start_matches("sm_")
                .trim_end_matches('a')
                .parse()
                .expect("sm_NN");
            let tool = if number < 75 {
                Tool::Ptxas12
            } else {
                Tool::Ptxas13
            };
            (
                backend,
                Judge::Ptxas {
                    ptxas: require(tool)?,
                    arch,
                },
            )
        }
        "visa" => {
            let backend = name.parse().expect("a vISA target");
            let platform = spec.split('+').next().unwrap_or(spec).to_string();
            (
                backend,
                Judge::GenxIr {
                    genx: require(Tool::GenxIr)?,
                    platform,
                },
            )
        }
        "llvm" => {
            let backend = name.parse().expect("an LLVM target");
            let target = LlvmTarget::parse(spec).expect("an LLVM target");
            let tools = LlvmTools::require(target.major)?;
            (backend, Judge::Llvm { tools, target })
        }
        other => panic!("unknown backend {other}"),
    };
    Some(JudgeTarget {
        name: name.to_string(),
        backend,
        judge,
    })
}

/// Runs a tool, returning its message on failure, with how it ended (a crash says so).
fn run_tool(command: &mut Command) -> Result<(), String> {
    match command.output() {
        Ok(output) if output.status.success() => Ok(()),
        Ok(output) => {
            let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&output.stderr));
            let how = match output.status.code() {
                Some(code) => format!("exit status {code}"),
                None => {
                    use std::os::unix::process::ExitStatusExt;
                    format!(
                        "CRASHED (signal {})",
                        output.status.signal().unwrap_or_default()
                    )
                }
            };
            Err(format!("[{how}] {}", text.trim()))
        }
        Err(error) => Err(format!("could not run {command:?}: {error}")),
    }
}

impl JudgeTarget {
    /// Whether the tool accepts a complete module's text; `scratch` is a folder of this caller's
    /// own. `module` is what the text was lowered from (for the PTX address-space check).
    pub fn judge(&self, module: &Module, code: &str, scratch: &Path) -> Result<(), String> {
        std::fs::create_dir_all(scratch).map_err(|e| e.to_string())?;
        match &self.judge {
            Judge::Ptxas { ptxas, arch } => {
                let file = scratch.join("module.ptx");
                std::fs::write(&file, code).map_err(|e| e.to_string())?;
                run_tool(
                    Command::new(ptxas)
                        .arg(format!("-arch={arch}"))
                        .arg("-O0")
                        .arg(&file)
                        .arg("-o")
                        .arg(scratch.join("module.cubin")),
                )
                .map_err(|m| format!("ptxas: {m}"))?;
                shared_window_check(module, code).map_err(|m| format!("address check: {m}"))
            }
            Judge::GenxIr { genx, platform } => {
                let file = scratch.join("module.visaasm");
                std::fs::write(&file, code).map_err(|e| e.to_string())?;
                for stale in ["module.errors.txt", ".errors.txt"] {
                    let _ = std::fs::remove_file(scratch.join(stale));
                }
                run_tool(
                    Command::new(genx)
                        .current_dir(scratch)
                        .arg("module.visaasm")
                        .args(["-platform", platform, "-output"]),
                )
                .map_err(|mut message| {
                    for errors in ["module.errors.txt", ".errors.txt"] {
                        if let Ok(extra) = std::fs::read_to_string(scratch.join(errors)) {
                            message.push_str(&extra);
                        }
                    }
                    format!("GenX_IR -platform {platform}: {message}")
                })
            }
            Judge::Llvm { tools, target } => {
                let file = scratch.join("module.ll");
                std::fs::write(&file, code).map_err(|e| e.to_string())?;
                // llc 14 at -O0 aborts on NVPTX shared-memory atomics that its default level
                // compiles (see the LLVM matrix test), and llc 15 and 16 at -O0 on an
                // addrspacecast of a shared pointer to generic ("Cannot cast between two
                // non-generic address spaces"), which their default level compiles too.
                let nvptx_before_17 =
                    target.triple == atomir_llvm::Triple::Nvptx64 && target.major < 17;
                let codegen = if target.major < 15 || nvptx_before_17 {
                    Codegen::Default
                } else {
                    Codegen::Fast
                };
                check_file(tools, target, &file, &scratch.join("module.s"), codegen)
            }
        }
    }

    /// Lowers `module` as `--module` does, turning a panic into an error.
    pub fn lower(&self, module: &Module) -> Lowered {
        let options = LowerOptions::module();
        let mut code = String::new();
        let verified = match verify::verify(module) {
            Ok(verified) => verified,
            Err(diagnostics) => return Lowered::Unverified(diagnostics[0].to_string()),
        };
        match catch_unwind(AssertUnwindSafe(|| {
            self.backend.lower(&verified, &options, &mut code)
        })) {
            Ok(Ok(_)) => Lowered::Code(code),
            Ok(Err(error)) => Lowered::Refused(error),
            Err(panic) => Lowered::Panicked(panic_message(&*panic)),
        }
    }
}

/// What lowering one module gave.
pub enum Lowered {
    Code(String),
    Refused(LowerError),
    Panicked(String),
    /// The module does not verify (the first diagnostic), so it was not lowered.
    Unverified(String),
}

/// The text of a panic's payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic without a message".into())
}

// ---- the PTX address-space check ---------------------------------------------------------------

/// ptxas accepts a generic access through a shared-window address (it cannot know where a
/// register points); the hardware faults. Tracks, per `.entry`, the registers that hold a
/// `ptr.shared`/`ptr.shared_cluster` parameter (or values computed from one) until a
/// `cvta.shared` turns them generic, and reports a generic-space `atom`/`red`/`ld`/`st` whose
/// address is such a register. A straight-line approximation: enough for code that converts
/// where it loads the parameter.
pub fn shared_window_check(module: &Module, code: &str) -> Result<(), String> {
    let mut entries = code.split(".entry ").skip(1);
    for kernel in &module.kernels {
        let Some(entry) = entries.next() else {
            return Ok(());
        };
        let shared_params: HashSet<usize> = kernel
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                matches!(
                    p.ty,
                    ValueType::Ptr(atomir_ir::AddressSpace::Shared)
                        | ValueType::Ptr(atomir_ir::AddressSpace::SharedCluster)
                )
            })
            .map(|(i, _)| i)
            .collect();
        if shared_params.is_empty() {
            continue;
        }
        let mut window: HashSet<String> = HashSet::new();
        for line in entry.lines() {
            let line = line.trim();
            let line = match line.strip_prefix('@') {
                Some(rest) => rest.split_once(' ').map_or("", |(_, r)| r).trim(),
                None => line,
            };
            let Some((opcode, operands)) = line.split_once(char::is_whitespace) else {
                continue;
            };
            let operands: Vec<&str> = operands
                .trim_end_matches(';')
                .split(',')
                .map(str::trim)
                .collect();
            let address = operands.iter().find_map(|o| {
                o.strip_prefix('[')
                    .map(|a| a.trim_end_matches(']').split('+').next().unwrap_or(""))
            });
            let memory = ["atom.", "red.", "ld.", "st.", "cp.", "prefetch"]
                .iter()
                .any(|m| opcode.starts_with(m));
            if opcode.starts_with("ld.param") {
                let param = address.and_then(|a| a.rsplit("_param_").next()?.parse::<usize>().ok());
                if let Some(index) = param {
                    if shared_params.contains(&index) {
                        window.insert(operands[0].to_string());
                        continue;
                    }
                }
                window.remove(operands[0]);
                continue;
            }
            if memory {
                let generic = !opcode.contains(".shared")
                    && !opcode.contains(".global")
                    && !opcode.contains(".param")
                    && !opcode.contains(".local");
                if let Some(address) = address {
                    if generic && window.contains(address) {
                        return Err(format!(
                            "kernel `{}`: generic `{opcode}` through `{address}`, a shared-window \
                             address (from a ptr.shared parameter, never converted with \
                             cvta.shared): `{line}`",
                            kernel.name
                        ));
                    }
                }
            }
            let Some(dest) = operands.first() else {
                continue;
            };
            if opcode.starts_with("cvta.shared") || opcode.starts_with("cvta.to.") {
                window.remove(*dest);
            } else if operands[1..].iter().any(|o| window.contains(*o)) {
                window.insert(dest.to_string());
            } else {
                window.remove(*dest);
            }
        }
    }
    Ok(())
}

// ---- packing, bisecting, shrinking -------------------------------------------------------------

/// Whether two kernel names could give one symbol in some backend: equal once `$` is `_`
/// (`a$b`, `a_b`), or one is the other followed by `_…` (`k` next to `k_param_0`, `k_out_0`,
/// `k_BB_0`). Modules of one batch must not hold such a pair across them, so that joining them
/// adds no collision of its own.
fn names_may_meet(a: &str, b: &str) -> bool {
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

fn indent(text: &str) -> String {
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
fn judge_union(target: &JudgeTarget, modules: &[&Module], scratch: &Path) -> Result<(), String> {
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
fn shrink_candidates(printed: &str) -> Vec<String> {
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
fn without(kernel: &atomir_ir::Kernel, site: Site) -> Option<atomir_ir::Kernel> {
    match site {
        Site::Inst(inst) => without_inst(kernel, inst),
        Site::Param(param) => without_param(kernel, param as usize),
        // A site of a kind this reducer does not know: nothing to remove.
        _ => None,
    }
}

/// `kernel` without parameter number `param`, if nothing reads it.
fn without_param(kernel: &atomir_ir::Kernel, param: usize) -> Option<atomir_ir::Kernel> {
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
fn without_inst(kernel: &atomir_ir::Kernel, inst: atomir_ir::Inst) -> Option<atomir_ir::Kernel> {
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

/// A one-line summary of a tally.
pub fn summary(tally: &Tally) -> String {
    let mut text = format!(
        "{} kernels: {} lowered, {} refused instructions dropped",
        tally.kernels,
        tally.accepted,
        tally.refused.values().sum::<usize>()
    );
    if !tally.refused.is_empty() {
        let rules: Vec<String> = tally
            .refused
            .iter()
            .map(|(rule, n)| format!("{rule} {n}"))
            .collect();
        let _ = write!(text, " ({})", rules.join(", "));
    }
    if !tally.panics.is_empty() {
        let _ = write!(text, ", {} PANICS", tally.panics.len());
    }
    text
}

/// A scratch folder under the target directory for one worker.
pub fn scratch_dir(tag: &str) -> PathBuf {
    crate::tools::workspace_root()
        .join("target/judge-scratch")
        .join(format!("{}-{tag}", std::process::id()))
}
