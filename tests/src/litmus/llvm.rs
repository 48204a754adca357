//! Litmus tests written as LLVM IR (`tests/gpu/litmus-llvm/`), run as llc 22 compiles them
//! and as it compiles `atomir fix --target llvm:nvptx64@22` of them.
//!
//! Each test is a `.atom` file as in [`super`] (its kernels give the locations, results and
//! model; they are not what runs) with one more header line, `# llvm FILE HOW`: the threads'
//! code is llc 22's PTX of the LLVM IR module `FILE` (beside it, functions named as the
//! threads, each taking the locations, then a pointer per result), as it is (`llc22`) or after
//! `fix` (`fix22`). The harness and `litmus-check` run and judge them as any litmus test.

use std::path::{Path, PathBuf};

use atomir::fix::fix_module;
use atomir::llvm::read::ReadOptions;
use atomir::{LlvmTarget, Target, Triple};

use super::{generate_from, wrapper, Litmus};
use crate::tools::{require, run, Tool};

/// The default directory of these tests, relative to the workspace root.
pub const TESTS: &str = "tests/gpu/litmus-llvm";

/// How a test's LLVM IR is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// llc 22 as it is.
    Llc22,
    /// llc 22 after `atomir fix --target llvm:nvptx64@22`.
    Fix22,
}

/// The `# llvm FILE HOW` line of a test of the directory `tests`: the module's path and how
/// it is compiled.
pub fn source_of(tests: &Path, test: &Litmus) -> Result<(PathBuf, How), String> {
    let path = tests.join(&test.file);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("# llvm "))
        .ok_or_else(|| format!("{}: no `# llvm FILE HOW` line", test.file))?;
    let mut words = line.split_whitespace();
    let (Some(file), Some(how)) = (words.next(), words.next()) else {
        return Err(format!("{}: `# llvm FILE HOW`", test.file));
    };
    let how = match how {
        "llc22" => How::Llc22,
        "fix22" => How::Fix22,
        other => return Err(format!("{}: `{other}` is not llc22 or fix22", test.file)),
    };
    Ok((tests.join(file), how))
}

/// The LLVM IR that llc compiles for `test` (of the directory `tests`): the module, or `fix`'s
/// output of it.
pub fn llvm_text(tests: &Path, test: &Litmus) -> Result<(String, How), String> {
    let (path, how) = source_of(tests, test)?;
    let source = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    if how == How::Llc22 {
        return Ok((source, how));
    }
    let target = Target::Llvm(LlvmTarget::new(Triple::Nvptx64, 22));
    let fixed = fix_module(&source, &target, ReadOptions::default()).map_err(|e| e.to_string())?;
    if let Some(d) = fixed.diagnostics.first() {
        return Err(format!("{}:{d}", path.display()));
    }
    Ok((fixed.text, how))
}

/// llc 22's PTX of `text` for the device (sm_90), written beside `dir/<name>`.
pub fn llc22_ptx(text: &str, dir: &Path, name: &str) -> Result<String, String> {
    let llc = require(Tool::Llc(22)).ok_or("llc-22 not found; run scripts/install-oracles")?;
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let input = dir.join(format!("{name}.ll"));
    let output = dir.join(format!("{name}.llc.ptx"));
    std::fs::write(&input, text).map_err(|e| e.to_string())?;
    let target = LlvmTarget::new(Triple::Nvptx64, 22);
    let (ok, message) = run(std::process::Command::new(llc)
        .args(target.llc_args())
        .arg(&input)
        .arg("-o")
        .arg(&output));
    if !ok {
        return Err(format!("llc-22 on {}: {message}", input.display()));
    }
    std::fs::read_to_string(&output).map_err(|e| e.to_string())
}

/// Writes `DIR/litmus.json` and one cubin per test of `tests` (see the [module](self)).
pub fn generate(tests: &Path, dir: &Path) -> Result<Vec<String>, String> {
    generate_from(tests, dir, |test| {
        let (text, _) = llvm_text(tests, test)?;
        let mut ptx = llc22_ptx(&text, dir, &test.name)?;
        ptx.push('\n');
        ptx.push_str(&wrapper(test));
        ptx.push('\n');
        Ok(ptx)
    })
}
