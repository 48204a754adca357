//! A short fuzz run in CI (the long one is `cargo run --release -p atomir-bench --bin fuzz`):
//! 20,000 inputs, mutated text and kernels built and broken through the public API, with no
//! panic on the verified path (parse, verify, print, re-parse, lowering a verified module, and
//! its LLVM IR and PTX mutated, read, fixed and audited), no
//! module that fails to come back from its print, and no input over 100 ms of CPU time.
//! Lowering a module that does not verify may still panic today; those panics are printed and
//! counted apart, not failed.

use std::time::Duration;

use atomir_bench::fuzz::{run_parallel, Limits};

#[test]
fn twenty_thousand_inputs_without_a_panic_or_a_hang() {
    let limits = Limits {
        slow: Duration::from_millis(100),
        targets_per_input: 4,
    };
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let counts = run_parallel(0, 20_000, threads, limits);
    println!("{}", counts.summary());
    assert_eq!(counts.inputs, 20_000);
    assert!(
        counts.verified > 2_000,
        "too few inputs verify: {}",
        counts.verified
    );
    assert!(
        counts.lowerings > 5_000,
        "too few lowerings: {}",
        counts.lowerings
    );
    assert!(
        counts.ll_inputs > 1_000,
        "too few LLVM IR inputs: {}",
        counts.ll_inputs
    );
    assert_eq!(counts.panic_count(), 0, "{}", counts.summary());
    assert_eq!(counts.round_trip_mismatches, 0, "{}", counts.summary());
    assert_eq!(counts.hangs, 0, "{}", counts.summary());
}
