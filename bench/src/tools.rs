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

/// What running a command took: the best of several runs for each measure.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// Wall time, which other work sharing the machine inflates.
    pub wall: Duration,
    /// CPU time of the process, user and system: what the command itself costs.
    pub cpu: Duration,
}

/// The best wall time and the best CPU time of `runs` runs of a command.
pub fn time_best(runs: usize, mut make: impl FnMut() -> Command) -> Result<Timing, String> {
    let mut best = Timing {
        wall: Duration::MAX,
        cpu: Duration::MAX,
    };
    for _ in 0..runs {
        let mut command = make();
        let (start, cpu) = (Instant::now(), crate::children_cpu_time());
        run(&mut command)?;
        best.wall = best.wall.min(start.elapsed());
        best.cpu = best.cpu.min(crate::children_cpu_time().saturating_sub(cpu));
    }
    Ok(best)
}

fn truncate(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((index, _)) => &text[..index],
        None => text,
    }
}
