//! The fuzz run (see `atomir_bench::fuzz`): mutated text and kernels built and broken through
//! the public API, through parse, print/re-parse, verify and lowering for every target.
//!
//! ```sh
//! cargo run --release -p atomir-bench --bin fuzz -- [--inputs 1000000] [--first 0]
//!     [--threads 2] [--slow-ms 100] [--targets-per-input 0]
//! ```
//! `--targets-per-input 0` lowers every verified module for every target. Prints the counts
//! and a few samples of every finding; exits 1 when the verified path panicked, a module did
//! not survive printing, or an input was slower than the limit.

use std::time::{Duration, Instant};

use atomir_bench::fuzz::{run_parallel, Limits};

fn main() {
    let mut inputs = 1_000_000u64;
    let mut first = 0u64;
    let mut threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut slow_ms = 100u64;
    let mut per_input = 0usize;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        let mut value = || -> u64 {
            rest.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| usage(&format!("`{flag}` needs a number")))
        };
        match flag.as_str() {
            "--inputs" => inputs = value(),
            "--first" => first = value(),
            "--threads" => threads = value() as usize,
            "--slow-ms" => slow_ms = value(),
            "--targets-per-input" => per_input = value() as usize,
            other => usage(&format!("unknown option `{other}`")),
        }
    }
    let limits = Limits {
        slow: Duration::from_millis(slow_ms),
        targets_per_input: per_input,
    };
    let started = Instant::now();
    let counts = run_parallel(first, inputs, threads, limits);
    println!(
        "fuzz: inputs {first}..{} on {threads} threads in {:.1?}, targets per input: {}",
        first + inputs,
        started.elapsed(),
        if per_input == 0 {
            "all".to_string()
        } else {
            per_input.to_string()
        }
    );
    println!("{}", counts.summary());
    let clean = counts.panic_count() == 0 && counts.round_trip_mismatches == 0 && counts.hangs == 0;
    std::process::exit(if clean { 0 } else { 1 });
}

fn usage(message: &str) -> ! {
    eprintln!(
        "fuzz: {message}\nusage: fuzz [--inputs N] [--first N] [--threads N] [--slow-ms N] \
         [--targets-per-input N]"
    );
    std::process::exit(2)
}
