//! What `atomir lower` spends on a generated file, phase by phase, in process: parse, verify,
//! and lowering for each backend, each with atomics per second and bytes allocated per atomic
//! (every allocation the phase makes, the module it builds included; the output buffer of the
//! lowering is warmed to its final capacity first, so the emitted text is not counted).
//! Times are the best of the runs, as CPU time of the thread (what atomics/s is computed from:
//! on a machine shared with other work, wall time counts the waiting) and as wall time.
//!
//! `cargo run --release -p atomir-bench --bin phases [-- ATOMICS [RUNS [TARGET…]]]` prints a
//! Markdown table (default: 100000 atomics, best of 5 runs, the three benchmark targets).

use std::time::Instant;

use atomir_bench::{generated_module, targets, thread_cpu_time, AllocSnapshot, CountingAlloc};
use atomir_ir::{text, verify, LowerOptions};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let atomics = args.first().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let runs: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(5);
    let chosen: Vec<&str> = match args.get(2..) {
        Some(names) if !names.is_empty() => names.iter().map(String::as_str).collect(),
        _ => targets::BENCH_TARGETS.to_vec(),
    };
    let source = text::print(&generated_module(atomics));

    println!("| phase | atomics | CPU time | wall time | atomics/s (CPU) | ns/atomic (CPU) | bytes allocated/atomic |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let row = |phase: &str, best: Best| {
        println!(
            "| {phase} | {atomics} | {:.3} ms | {:.3} ms | {:.2e} | {:.0} | {:.1} |",
            best.cpu * 1e3,
            best.wall * 1e3,
            atomics as f64 / best.cpu,
            best.cpu * 1e9 / atomics as f64,
            best.bytes as f64 / atomics as f64,
        );
    };

    row(
        "parse",
        best_of(runs, || {
            text::parse(&source).expect("the printed module parses");
        }),
    );
    let module = text::parse(&source).expect("the printed module parses");
    row(
        "verify",
        best_of(runs, || {
            verify::verify(&module).expect("the generated module verifies");
        }),
    );
    let verified = verify::verify(&module).expect("the generated module verifies");
    let options = LowerOptions::fragment();
    for target in chosen {
        let backend = match targets::backend(target) {
            Ok(backend) => backend,
            Err(error) => {
                println!("| lower {target} | {atomics} | {error} | | | | |");
                continue;
            }
        };
        let mut out = String::new();
        if let Err(error) = backend.lower(&verified, &options, &mut out) {
            println!("| lower {target} | {atomics} | refused: {error} | | | | |");
            continue;
        }
        row(
            &format!("lower {target}"),
            best_of(runs, || {
                out.clear();
                backend
                    .lower(&verified, &options, &mut out)
                    .expect("lowered once already");
            }),
        );
    }
}

/// The best of several runs: seconds of CPU time and of wall time, bytes allocated.
struct Best {
    cpu: f64,
    wall: f64,
    bytes: usize,
}

/// The best times of `runs` runs of `work`, and the fewest bytes one run allocated.
fn best_of(runs: usize, mut work: impl FnMut()) -> Best {
    let mut best = Best {
        cpu: f64::INFINITY,
        wall: f64::INFINITY,
        bytes: usize::MAX,
    };
    for _ in 0..runs.max(1) {
        let snapshot = AllocSnapshot::take();
        let (cpu, wall) = (thread_cpu_time(), Instant::now());
        work();
        let (cpu, wall) = (thread_cpu_time() - cpu, wall.elapsed());
        best.cpu = best.cpu.min(cpu.as_secs_f64());
        best.wall = best.wall.min(wall.as_secs_f64());
        best.bytes = best.bytes.min(snapshot.allocated_since());
    }
    best
}
