//! Running LLVM's own tools over batches of lowered kernels, bisecting only on failure.

use std::path::{Path, PathBuf};
use std::process::Command;

use atomir_ir::{Backend, Kernel, LowerOptions, Module};
use atomir_llvm::{LlvmTarget, Triple};

use crate::tools::{require, run, Tool};

/// `llvm-as`, `opt` and `llc` of one LLVM major version.
pub struct LlvmTools {
    pub major: u32,
    pub llvm_as: PathBuf,
    pub opt: PathBuf,
    pub llc: PathBuf,
}

impl LlvmTools {
    /// The tools of `major`, or `None` (skipped with a printed reason) when one is missing.
    pub fn require(major: u32) -> Option<LlvmTools> {
        Some(LlvmTools {
            major,
            llvm_as: require(Tool::LlvmAs(major))?,
            opt: require(Tool::Opt(major))?,
            llc: require(Tool::Llc(major))?,
        })
    }
}

/// The llc arguments that select the triple's reference processor at `major`.
pub fn llc_args(target: &LlvmTarget) -> Vec<&'static str> {
    let old = target.major < 16;
    match target.triple {
        Triple::Nvptx64 if old => vec!["-march=nvptx64", "-mcpu=sm_86", "-mattr=+ptx75"],
        Triple::Nvptx64 => vec!["-march=nvptx64", "-mcpu=sm_90", "-mattr=+ptx87"],
        Triple::Amdgcn if old => vec!["-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx90a"],
        Triple::Amdgcn => vec!["-mtriple=amdgcn-amd-amdhsa", "-mcpu=gfx942"],
        Triple::Spirv64 => vec![
            "-mtriple=spirv64-unknown-unknown",
            "--spirv-ext=+SPV_EXT_shader_atomic_float_add,+SPV_EXT_shader_atomic_float_min_max,+SPV_EXT_shader_atomic_float16_add",
        ],
        Triple::X86_64 => vec!["-mtriple=x86_64-unknown-linux-gnu"],
    }
}

/// Lowers `kernels` as one complete module.
pub fn lower_module(target: &LlvmTarget, kernels: &[Kernel]) -> Result<String, String> {
    let module = Module {
        kernels: kernels.to_vec(),
    };
    let mut text = String::new();
    target
        .lower(
            &module,
            &LowerOptions {
                complete_module: true,
            },
            &mut text,
        )
        .map_err(|e| e.to_string())?;
    Ok(text)
}

/// Runs llvm-as, opt's verifier and llc (to `llc_out`) over one module file.
pub fn check_file(
    tools: &LlvmTools,
    target: &LlvmTarget,
    file: &Path,
    llc_out: &Path,
) -> Result<(), String> {
    let (ok, text) = run(Command::new(&tools.llvm_as)
        .arg(file)
        .arg("-o")
        .arg("/dev/null"));
    if !ok {
        return Err(format!("llvm-as-{}: {text}", tools.major));
    }
    let verify = if tools.major < 15 {
        "-verify"
    } else {
        "-passes=verify"
    };
    let (ok, text) = run(Command::new(&tools.opt)
        .arg(verify)
        .arg("-disable-output")
        .arg(file));
    if !ok {
        return Err(format!("opt-{} {verify}: {text}", tools.major));
    }
    let (ok, text) = run(Command::new(&tools.llc)
        .args(llc_args(target))
        .arg(file)
        .arg("-o")
        .arg(llc_out));
    if !ok {
        return Err(format!("llc-{}: {text}", tools.major));
    }
    Ok(())
}

/// Checks `kernels` in one module; on failure, bisects down to one failing kernel and returns
/// its name with the tool's message.
pub fn check_batch(
    tools: &LlvmTools,
    target: &LlvmTarget,
    kernels: &[Kernel],
    dir: &Path,
    tag: &str,
) -> Result<(), String> {
    let file = dir.join(format!("{tag}.ll"));
    let out = dir.join(format!("{tag}.s"));
    let text = lower_module(target, kernels)?;
    std::fs::write(&file, &text).map_err(|e| e.to_string())?;
    match check_file(tools, target, &file, &out) {
        Ok(()) => Ok(()),
        Err(message) if kernels.len() == 1 => Err(format!(
            "{}: {} (module: {})",
            kernels[0].name,
            truncate(&message),
            file.display()
        )),
        Err(_) => {
            let (left, right) = kernels.split_at(kernels.len() / 2);
            check_batch(tools, target, left, dir, &format!("{tag}l"))?;
            check_batch(tools, target, right, dir, &format!("{tag}r"))
        }
    }
}

fn truncate(message: &str) -> String {
    message.lines().take(12).collect::<Vec<_>>().join("\n")
}
