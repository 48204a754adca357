//! Lowering throughput per backend on generated kernels of 1k, 10k, 100k and 1M atomics.

use std::time::Duration;

use atomir_bench::{generated_module, targets};
use atomir_ir::{verify, LowerOptions};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn lowering(c: &mut Criterion) {
    let options = LowerOptions::default();
    for &target in targets::BENCH_TARGETS {
        let backend = match targets::backend(target) {
            Ok(backend) => backend,
            Err(error) => {
                eprintln!("SKIPPED: {target}: {error}");
                continue;
            }
        };
        let mut group = c.benchmark_group(format!("lower/{target}"));
        for atomics in [1_000usize, 10_000, 100_000, 1_000_000] {
            let module = generated_module(atomics);
            let module = verify::verify(&module).expect("the generated module verifies");
            let mut out = String::new();
            group.throughput(Throughput::Elements(atomics as u64));
            if atomics >= 100_000 {
                group
                    .sample_size(10)
                    .measurement_time(Duration::from_secs(8));
            }
            group.bench_with_input(
                BenchmarkId::from_parameter(atomics),
                &module,
                |b, module| {
                    b.iter(|| {
                        out.clear();
                        backend
                            .lower(module, &options, &mut out)
                            .expect("generated kernels lower");
                        out.len()
                    })
                },
            );
        }
        group.finish();
    }
}

criterion_group!(benches, lowering);
criterion_main!(benches);
