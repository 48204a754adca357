//! Golden files: every file in `examples/` and `tests/golden/in/`, lowered for each target of
//! the list, compared with `tests/golden/<target>/<input>.<ext>`.
//!
//! Each kernel is tried on its own first; the kernels the target accepts are lowered together as
//! one complete module (`<input>.<ext>`), and the refused ones are listed with their reasons
//! (`<input>.refusals`), so a rule that moves shows up as a changed file.
//! `ATOMIR_BLESS=1 cargo test -p atomir-tests --test golden` rewrites the files.

mod report_support;

use std::fmt::Write;
use std::path::{Path, PathBuf};

use atomir_ir::{text, verify, Backend, LowerOptions, Module};
use report_support::{built_targets, check_golden, stale_files, workspace_root};

/// Every golden input: (file name without extension, path).
fn inputs() -> Vec<(String, PathBuf)> {
    let root = workspace_root();
    let mut found = Vec::new();
    for dir in [root.join("examples"), root.join("tests/golden/in")] {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "atom") {
                let stem = path
                    .file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                found.push((stem, path));
            }
        }
    }
    found.sort();
    assert!(
        found.len() >= 6,
        "expected the examples and the matrix sample, found {found:?}"
    );
    found
}

/// The file extension of a target's code.
fn extension(target: &str) -> &'static str {
    match target.split(':').next() {
        Some("ptx") => "ptx",
        Some("visa") => "visaasm",
        Some("llvm") => "ll",
        _ => "txt",
    }
}

/// Parses and verifies an input, failing the test with its diagnostics.
fn load(path: &Path) -> Result<Module, String> {
    let source = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let name = path.display().to_string();
    let render = |diags: Vec<atomir_ir::Diagnostic>| {
        diags
            .iter()
            .map(|d| d.render(&name))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let module = text::parse(&source).map_err(render)?;
    verify::verify(&module).map_err(render)?;
    Ok(module)
}

/// (code of the accepted kernels as one module, refusals) for one input on one target.
fn lower_golden(backend: &dyn Backend, module: &Module, input: &str) -> (String, String) {
    let mut accepted = Module::default();
    let mut refusals = String::new();
    let mut scratch = String::new();
    for kernel in &module.kernels {
        let alone = Module {
            kernels: vec![kernel.clone()],
        };
        scratch.clear();
        match backend.lower(
            &atomir_ir::verify::verify(&alone).unwrap(),
            &LowerOptions::default(),
            &mut scratch,
        ) {
            Ok(_) => accepted.kernels.push(kernel.clone()),
            Err(error) => {
                let _ = writeln!(refusals, "{input}:{error}");
            }
        }
    }
    let mut code = String::new();
    if !accepted.kernels.is_empty() {
        let options = LowerOptions::module();
        if let Err(error) = backend.lower(
            &atomir_ir::verify::verify(&accepted).unwrap(),
            &options,
            &mut code,
        ) {
            panic!("{input}: every kernel lowers alone but not together: {error}");
        }
    }
    (code, refusals)
}

#[test]
fn golden_lowering_per_target() {
    let targets = built_targets();
    let inputs = inputs();
    let mut failures = Vec::new();
    let mut loaded = Vec::new();
    for (stem, path) in &inputs {
        match load(path) {
            Ok(module) => loaded.push((stem, module)),
            Err(message) => failures.push(message),
        }
    }
    let golden = workspace_root().join("tests/golden");
    let mut compared = 0;
    for (name, backend) in &targets {
        let dir = golden.join(atomir_cli::targets::file_name(name));
        let mut produced = Vec::new();
        for (stem, module) in &loaded {
            let (code, refusals) = lower_golden(backend.backend(), module, &format!("{stem}.atom"));
            let code_path = dir.join(format!("{stem}.{}", extension(name)));
            let refusal_path = dir.join(format!("{stem}.refusals"));
            if !code.is_empty() {
                failures.extend(check_golden(&code_path, &code));
                produced.push(code_path);
            }
            if !refusals.is_empty() {
                failures.extend(check_golden(&refusal_path, &refusals));
                produced.push(refusal_path);
            }
            compared += 1;
        }
        failures.extend(stale_files(&dir, &produced));
    }
    println!(
        "golden: {} inputs x {} built targets = {compared} comparisons",
        loaded.len(),
        targets.len()
    );
    assert!(
        failures.is_empty(),
        "{} golden failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
