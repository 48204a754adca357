//! Lowering cost per backend and size: time (wall, and CPU time of the lowering thread, which a
//! machine shared with other work does not inflate as it does wall time), atomics per second
//! of CPU time, bytes the IR holds per atomic, and bytes the lowering allocates and holds at its
//! peak per atomic (the emitted text aside: the output buffer is warmed to its final capacity
//! first), and how cost grows with size.
//!
//! `cargo run --release -p atomir-bench --bin lowering_report` prints a Markdown table.

use std::time::Instant;

use atomir_bench::{generated_module, targets, thread_cpu_time, AllocSnapshot, CountingAlloc};
use atomir_ir::{verify, LowerOptions};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const SIZES: [usize; 4] = [1_000, 10_000, 100_000, 1_000_000];

fn main() {
    println!("| target | atomics | lowering time (wall) | lowering time (CPU) | atomics/s (CPU) | ns/atomic (CPU) | IR bytes/atomic | lowering: bytes allocated/atomic | lowering: peak live bytes/atomic |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &target in targets::BENCH_TARGETS {
        let backend = match targets::backend(target) {
            Ok(backend) => backend,
            Err(error) => {
                println!("| {target} | – | {error} | | | | | | |");
                continue;
            }
        };
        for atomics in SIZES {
            let ir = AllocSnapshot::take();
            let module = generated_module(atomics);
            let ir_bytes = ir.live_since();
            let module = verify::verify(&module).expect("the generated module verifies");

            // Warm once so the output buffer has its final capacity, then time the best of 5.
            let mut out = String::new();
            let options = LowerOptions::default();
            if let Err(error) = backend.lower(&module, &options, &mut out) {
                println!("| {target} | {atomics} | refused: {error} | | | | | | |");
                break;
            }
            let mut best = f64::INFINITY;
            let mut best_cpu = f64::INFINITY;
            let mut lowering_bytes = usize::MAX;
            let mut lowering_peak = usize::MAX;
            for _ in 0..5 {
                out.clear();
                let snapshot = AllocSnapshot::take();
                let start = Instant::now();
                let start_cpu = thread_cpu_time();
                backend
                    .lower(&module, &options, &mut out)
                    .expect("lowered once already");
                best_cpu = best_cpu.min((thread_cpu_time() - start_cpu).as_secs_f64());
                best = best.min(start.elapsed().as_secs_f64());
                lowering_bytes = lowering_bytes.min(snapshot.allocated_since());
                lowering_peak = lowering_peak.min(snapshot.peak_since());
            }
            println!(
                "| {target} | {atomics} | {:.3} ms | {:.3} ms | {:.2e} | {:.0} | {:.0} | {:.1} | {:.1} |",
                best * 1e3,
                best_cpu * 1e3,
                atomics as f64 / best_cpu,
                best_cpu * 1e9 / atomics as f64,
                ir_bytes as f64 / atomics as f64,
                lowering_bytes as f64 / atomics as f64,
                lowering_peak as f64 / atomics as f64,
            );
        }
    }
}
