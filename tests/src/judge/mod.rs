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

use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;

use atomir_ir::{verify, LowerError, LowerOptions, Module};
use atomir_llvm::LlvmTarget;

use crate::llvm::{check_file, Codegen, LlvmTools};
use crate::tools::{require, Tool};

mod batch;
mod window;
pub use batch::{
    accepted_kernel, accepted_parts, excerpt, judge_batch, pack, shrink, signature, Rejection,
    Tally,
};
pub use window::shared_window_check;

/// The PTX reader on what atomir printed for `module`: no error, and at least one atomic,
/// ordered load or store, or fence read per instruction of the module (each is carried by at
/// least one, in its entry or in the shared function it calls: a function's atomics count once
/// per call).
fn read_back(module: &Module, code: &str) -> Result<(), String> {
    let read = atomir::read_ptx(code);
    if let Some(error) = read.errors.first() {
        return Err(format!(
            "{} errors reading atomir's own PTX, the first {error}",
            read.errors.len()
        ));
    }
    let (_, definitions) = crate::ptx::definitions(code);
    let (entries, functions): (Vec<_>, Vec<_>) = definitions.into_iter().partition(|d| d.entry);
    let read_in = |name: &str| {
        let in_function = |atomic: &&atomir::ReadAtomic| atomic.function == name;
        read.atomics.iter().filter(in_function).count()
    };
    let mut carried = 0;
    for entry in &entries {
        carried += read_in(&entry.name);
        for function in crate::ptx::calls(&entry.text, &functions) {
            carried += read_in(&function.name);
        }
    }
    let instructions: usize = module.kernels.iter().map(|kernel| kernel.insts.len()).sum();
    if carried < instructions {
        return Err(format!(
            "{carried} atomics carry {instructions} instructions ({} read)",
            read.atomics.len()
        ));
    }
    Ok(())
}

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
/// gated by ISA version); the opt-in `+packed-half-add` on sm_90 (f16 and bf16) and on sm_60 at
/// the first ISA with the packed f16 add; the opt-in `+reassociate-float-add` on sm_90; the
/// size option `+plain-loops` on sm_70 (ptxas 12.9) and sm_90 (ptxas 13.5).
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
    "sm_60@6.2+packed-half-add",
    "sm_90+packed-half-add",
    "sm_90+reassociate-float-add",
    "sm_70+plain-loops",
    "sm_90+plain-loops",
];
pub const VISA_TARGETS: &[&str] = &["TGLLP", "DG2", "MTL", "PVC", "PVC+svm"];
/// Every target name judged, in a stable order: the PTX and vISA targets above, and every
/// target the LLVM backend accepts ([`LlvmTarget::all`]: each judged version, each processor
/// its llc knows, `+coarse-grained`), so that no accepted LLVM target goes unjudged.
pub fn all_target_names() -> Vec<String> {
    let mut names: Vec<String> = PTX_TARGETS.iter().map(|t| format!("ptx:{t}")).collect();
    names.extend(VISA_TARGETS.iter().map(|t| format!("visa:{t}")));
    names.extend(LlvmTarget::all().iter().map(LlvmTarget::to_string));
    names
}

/// The backend and judge of a full target name; `None` (with a printed reason) when its tool is
/// missing and tools are not required.
pub fn judge_target(name: &str) -> Option<JudgeTarget> {
    let (prefix, spec) = name.split_once(':').expect("`<backend>:<target>`");
    let (backend, judge) = match prefix {
        "ptx" => {
            let backend = name.parse().expect("a PTX target");
            let arch = spec.split(['@', '+']).next().unwrap_or(spec).to_string();
            let number: u32 = arch
                .trim_start_matches("sm_")
                .trim_end_matches(['a', 'f'])
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
            let tools = LlvmTools::require(target.major)?.with_spirv_val(&target);
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
                shared_window_check(module, code).map_err(|m| format!("address check: {m}"))?;
                read_back(module, code).map_err(|m| format!("PTX reader: {m}"))
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
