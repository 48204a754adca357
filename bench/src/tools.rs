//! External tools for the comparisons: llc 22, ptxas 13.5 and nvdisasm 13.5, found where
//! `scripts/install-oracles` puts them (`target/oracles`, or `$ATOMIR_ORACLES`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub fn llc() -> Result<PathBuf, String> {
    existing(PathBuf::from("/usr/lib/llvm-22/bin/llc"))
}

pub fn ptxas() -> Result<PathBuf, String> {
    existing(cuda_bin("ptxas"))
}

pub fn nvdisasm() -> Result<PathBuf, String> {
    existing(cuda_bin("nvdisasm"))
}

fn existing(path: PathBuf) -> Result<PathBuf, String> {
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "{} not found: run scripts/install-oracles",
            path.display()
        ))
    }
}

fn cuda_bin(name: &str) -> PathBuf {
    let oracles = std::env::var_os("ATOMIR_ORACLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/oracles"));
    let lib = oracles.join("cu13/lib");
    std::fs::read_dir(&lib)
        .ok()
        .and_then(|entries| {
            entries
                .flatten()
                .map(|e| e.path().join("site-packages/nvidia/cu13/bin").join(name))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| lib.join(name))
}

/// Runs a command to completion, failing with its output when it fails.
pub fn run(command: &mut Command) -> Result<String, String> {
    let output = command
        .output()
        .map_err(|e| format!("could not run {command:?}: {e}"))?;
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    if !output.status.success() {
        text.push_str(&String::from_utf8_lossy(&output.stderr));
        return Err(format!("{command:?} failed:\n{}", truncate(&text, 4000)));
    }
    Ok(text)
}

/// The best wall time of `runs` runs of a command.
pub fn time_best(runs: usize, mut make: impl FnMut() -> Command) -> Result<Duration, String> {
    let mut best = Duration::MAX;
    for _ in 0..runs {
        let mut command = make();
        let start = Instant::now();
        run(&mut command)?;
        best = best.min(start.elapsed());
    }
    Ok(best)
}

fn truncate(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((index, _)) => &text[..index],
        None => text,
    }
}
