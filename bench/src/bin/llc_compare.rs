//! Lowering cost against LLVM: the same atomics, as our `llvm:nvptx64@22` module compiled by
//! `llc -O0 -march=nvptx64 -mcpu=sm_90`, and as `atomir lower --target ptx:sm_90`, timed in
//! the same run, each writing its code to /dev/null. Each command's best of 3 by CPU time
//! (user and system, what the process itself costs) and by wall time; on a machine shared with
//! other work only the CPU times compare.
//!
//! `cargo run --release -p atomir-bench --bin llc_compare` (after `cargo build --release -p atomir-cli`)
//! prints a Markdown table.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use atomir_bench::{generated_module, targets, thread_cpu_time, tools};
use atomir_ir::{text, verify, LowerOptions};

fn main() {
    if let Err(error) = compare() {
        eprintln!("llc_compare: {error}");
        std::process::exit(1);
    }
}

fn compare() -> Result<(), String> {
    let llc = tools::llc()?;
    let atomir = atomir_binary()?;
    let ptx = targets::backend("ptx:sm_90")?;
    let llvm = targets::backend("llvm:nvptx64@22")?;
    let dir = std::env::temp_dir().join(format!("atomir-llc-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;

    println!("| atomics | llc -O0 CPU (s) | atomir lower, CLI, CPU (s) | llc / CLI (CPU) | llc -O0 wall (s) | atomir lower, CLI, wall (s) | llc / CLI (wall) | atomir lowering, in process, CPU (s) | llc / in process (CPU) |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for atomics in [1_000usize, 10_000, 100_000] {
        let module = generated_module(atomics);
        let module = verify::verify(&module).map_err(|d| d[0].to_string())?;
        let mut ll = String::new();
        llvm.lower(&module, &LowerOptions::module(), &mut ll)
            .map_err(|e| e.to_string())?;
        let ll_path = dir.join(format!("k{atomics}.ll"));
        std::fs::write(&ll_path, &ll).map_err(|e| e.to_string())?;
        let atom_path = dir.join(format!("k{atomics}.atom"));
        std::fs::write(&atom_path, text::print(&module)).map_err(|e| e.to_string())?;

        let llc_time = tools::time_best(3, || {
            let mut c = Command::new(&llc);
            c.args([
                "-O0",
                "-march=nvptx64",
                "-mcpu=sm_90",
                "-mattr=+ptx87",
                "-o",
                "/dev/null",
            ])
            .arg(&ll_path);
            c
        })?;
        let cli_time = tools::time_best(3, || {
            // Its code goes to /dev/null, as llc's does: collected through a pipe, the wall
            // time would count the parent reading it.
            let mut c = Command::new(&atomir);
            c.arg("lower")
                .arg(&atom_path)
                .args(["--target", "ptx:sm_90"])
                .stdout(Stdio::null());
            c
        })?;
        let mut out = String::new();
        let mut in_process = Duration::MAX;
        for _ in 0..5 {
            out.clear();
            let start = thread_cpu_time();
            ptx.lower(&module, &LowerOptions::default(), &mut out)
                .map_err(|e| e.to_string())?;
            in_process = in_process.min(thread_cpu_time().saturating_sub(start));
        }
        let seconds = Duration::as_secs_f64;
        println!(
            "| {atomics} | {:.3} | {:.4} | {:.0}x | {:.3} | {:.4} | {:.0}x | {:.5} | {:.0}x |",
            seconds(&llc_time.cpu),
            seconds(&cli_time.cpu),
            seconds(&llc_time.cpu) / seconds(&cli_time.cpu),
            seconds(&llc_time.wall),
            seconds(&cli_time.wall),
            seconds(&llc_time.wall) / seconds(&cli_time.wall),
            seconds(&in_process),
            seconds(&llc_time.cpu) / seconds(&in_process),
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

fn atomir_binary() -> Result<PathBuf, String> {
    let path = std::env::var_os("ATOMIR_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/release/atomir")
        });
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!(
            "{} not found: run `cargo build --release -p atomir-cli` first",
            path.display()
        ))
    }
}
