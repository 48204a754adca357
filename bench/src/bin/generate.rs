//! Prints a generated kernel of N atomics in the text form, the input of the command-line
//! benchmarks (`atomir lower` on a file).
//!
//! `cargo run --release -p atomir-bench --bin generate -- 100000 > k100000.atom`

use std::io::Write;

use atomir_bench::generated_module;
use atomir_ir::text;

fn main() {
    let atomics = match std::env::args().nth(1).map(|arg| arg.parse::<usize>()) {
        None => 100_000,
        Some(Ok(atomics)) => atomics,
        Some(Err(error)) => {
            eprintln!("generate: the number of atomics: {error}");
            std::process::exit(2);
        }
    };
    let source = text::print(&generated_module(atomics));
    if let Err(error) = std::io::stdout().lock().write_all(source.as_bytes()) {
        eprintln!("generate: cannot write: {error}");
        std::process::exit(1);
    }
}
