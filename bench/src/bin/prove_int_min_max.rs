//! The exhaustive proof of float min/max by integer atomics (`ElementLowering::IntMinMax`) on the
//! 16-bit layouts: for f16 and bf16 and each of `min`, `max`, `fminimumnum` and `fmaximumnum`,
//! every (memory, operand) pair, 2^32 of them, through the model the test `expand_int_min_max`
//! samples (the same file, included by path). Prints one line per layout and op with how each pair
//! went and the CPU seconds it took; exits 1 at the first pair that breaks the conditions.
//!
//! `scripts/prove-int-min-max` runs it in a release build and records its output with the
//! commit in `bench/results/int-min-max-16bit.txt`. `ATOMIR_PROVE_THREADS=N` sets the threads
//! (all available by default).

#[path = "../../../ir/tests/int_min_max_model/mod.rs"]
mod int_min_max_model;

use std::time::Instant;

use int_min_max_model::{prove_parallel, Counts, OPS, TYPES_16};

fn main() {
    let threads = std::env::var("ATOMIR_PROVE_THREADS")
        .ok()
        .and_then(|t| t.parse::<usize>().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let every_operand: Vec<u128> = (0..=0xffffu128).collect();
    let started = Instant::now();
    let mut total = Counts::default();
    println!("threads {threads}");
    println!("type op pairs by_integer_op left_for_the_loop nan_operand wall_s");
    for ty in TYPES_16 {
        for op in OPS {
            let begun = Instant::now();
            match prove_parallel(op, ty, &every_operand, threads) {
                Ok(counts) => {
                    assert_eq!(
                        counts.pairs(),
                        1 << 32,
                        "{op} {ty}: every pair counted once"
                    );
                    println!(
                        "{ty} {op} {} {} {} {} {:.1}",
                        counts.pairs(),
                        counts.by_integer_op,
                        counts.left_for_the_loop,
                        counts.nan_operand,
                        begun.elapsed().as_secs_f64()
                    );
                    total = total.add(counts);
                }
                Err(error) => {
                    println!("FAILED: {error}");
                    std::process::exit(1);
                }
            }
        }
    }
    println!(
        "proven: {} pairs in {:.1} s wall",
        total.pairs(),
        started.elapsed().as_secs_f64()
    );
}
