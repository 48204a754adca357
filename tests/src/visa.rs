//! Running Intel's vISA assembler (GenX_IR) over many kernels at once.
//!
//! GenX_IR takes many `.kernel`s after one `.version` in one file, checks and compiles each
//! (about a millisecond a kernel against ~5 ms a process), exits 1 and writes
//! `<file>.errors.txt` (or `.errors.txt`) when any fails. A batch that fails is bisected down to
//! the kernels that fail on their own.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A kernel to assemble: its name and its text (`.kernel` … `ret`), without `.version`.
pub struct VisaKernel {
    pub name: String,
    pub text: String,
}

/// Assembles `kernels` for `platform` in one GenX_IR run inside `dir`. Err carries the log.
pub fn assemble_once(
    genx: &Path,
    platform: &str,
    kernels: &[&VisaKernel],
    dir: &Path,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let file = dir.join("batch.visaasm");
    let mut text = String::from(".version 4.1\n");
    for kernel in kernels {
        text.push_str(&kernel.text);
    }
    std::fs::write(&file, &text).map_err(|e| e.to_string())?;
    for stale in ["batch.errors.txt", ".errors.txt"] {
        let _ = std::fs::remove_file(dir.join(stale));
    }
    let (ok, log) = crate::tools::run(
        Command::new(genx)
            .current_dir(dir)
            .arg("batch.visaasm")
            .args(["-platform", platform, "-output"]),
    );
    if ok {
        return Ok(());
    }
    let mut message = log;
    for errors in ["batch.errors.txt", ".errors.txt"] {
        if let Ok(extra) = std::fs::read_to_string(dir.join(errors)) {
            message.push_str(&extra);
        }
    }
    Err(message)
}

/// Assembles every kernel, batching `batch` per run and bisecting failed batches; returns the
/// kernels that fail alone, with GenX_IR's log.
pub fn assemble_all(
    genx: &Path,
    platform: &str,
    kernels: &[VisaKernel],
    batch: usize,
    dir: &Path,
) -> Vec<(String, String)> {
    let mut failures = Vec::new();
    let refs: Vec<&VisaKernel> = kernels.iter().collect();
    for chunk in refs.chunks(batch.max(1)) {
        bisect(genx, platform, chunk, dir, &mut failures);
    }
    failures
}

fn bisect(
    genx: &Path,
    platform: &str,
    kernels: &[&VisaKernel],
    dir: &Path,
    failures: &mut Vec<(String, String)>,
) {
    if kernels.is_empty() {
        return;
    }
    if let Err(log) = assemble_once(genx, platform, kernels, dir) {
        if kernels.len() == 1 {
            failures.push((kernels[0].name.clone(), log));
        } else {
            let (left, right) = kernels.split_at(kernels.len() / 2);
            bisect(genx, platform, left, dir, failures);
            bisect(genx, platform, right, dir, failures);
        }
    }
}

/// A scratch folder under the target directory.
pub fn scratch_dir(name: &str) -> PathBuf {
    crate::tools::workspace_root()
        .join("target/visa-scratch")
        .join(name)
}
