//! The PTX lowering matrix: every cell (op × type × shape × order × scope × space ×
//! result-used, loads and stores among the ops, and every fence) either assembles with the real
//! ptxas or is refused with a rule and a reason — in full for sm_60, sm_70, sm_80, sm_90, sm_100
//! and sm_90@9.4, on a sample for every other architecture and ISA version (see
//! `matrix_targets`; a sample keeps every fence). `ATOMIR_PTX_MATRIX=sm_90@9.4,sm_88` judges
//! only the named targets, in full.
//!
//! `ATOMIR_PTX_MATRIX_OPS=load,store,fence` judges only the cells of those ops (`fence` for
//! the fences), for a quick run.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use atomir_ir::matrix::{all_cells, AnyCell};
use atomir_ir::Strategy;
use atomir_tests::ptx::{entries, judge_entries, legalize_cells, matrix_targets, ptxas_for};
use atomir_tests::require;

/// Kernels per ptxas call: large enough to keep calls few, small enough to bisect quickly.
const BATCH: usize = 4000;

#[test]
fn every_cell_assembles_or_is_refused_with_a_reason() {
    let ops = std::env::var("ATOMIR_PTX_MATRIX_OPS").unwrap_or_default();
    let wanted: Vec<&str> = ops.split(',').filter(|op| !op.is_empty()).collect();
    let all: Vec<AnyCell> = all_cells()
        .filter(|cell| wanted.is_empty() || wanted.contains(&cell.op_name()))
        .collect();
    if !wanted.is_empty() {
        println!("only the cells of {wanted:?}: {} cells", all.len());
    }
    let mut tools = Vec::new();
    for (target, coverage) in matrix_targets().expect("matrix targets") {
        match require(ptxas_for(target)) {
            Some(path) => {
                let chosen: Vec<AnyCell> = all
                    .iter()
                    .enumerate()
                    .filter(|(index, cell)| coverage.includes(*index, cell))
                    .map(|(_, cell)| *cell)
                    .collect();
                tools.push((target, path, chosen));
            }
            // `require` named the missing ptxas; the targets the other one judges still run.
            None => println!("SKIPPED: ptx:{target}: its ptxas is not found"),
        }
    }
    // A few workers take the targets in turn: one thread per target would run dozens of
    // ptxas processes at once.
    let next = AtomicUsize::new(0);
    let workers = thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(2, 6);
    let mut results: Vec<_> = thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        let Some((target, ptxas, chosen)) = tools.get(index) else {
                            return done;
                        };
                        let (lowered, module) = legalize_cells(target, chosen);
                        let scratch = std::env::temp_dir().join(format!(
                            "atomir-ptx-matrix-{}-{}.ptx",
                            std::process::id(),
                            target
                        ));
                        let (header, entries) = entries(target, &module);
                        assert_eq!(entries.len(), module.kernels.len());
                        let (distinct, failures) =
                            judge_entries(ptxas, *target, &header, &entries, BATCH, &scratch);
                        let _ = std::fs::remove_file(&scratch);
                        done.push((index, *target, lowered, distinct, failures));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("matrix thread"))
            .collect()
    });
    results.sort_by_key(|result| result.0);

    let mut all_failures = Vec::new();
    for (_, target, lowered, distinct, failures) in &results {
        let mut counts: BTreeMap<Strategy, usize> = BTreeMap::new();
        for cell in lowered {
            *counts.entry(cell.strategy).or_default() += 1;
            if cell.strategy == Strategy::Illegal {
                let refusal = cell.refusal.as_deref().unwrap_or("");
                assert!(
                    refusal.contains("[rule ptx."),
                    "{}: refusal without a rule: {refusal}",
                    cell.cell
                );
            }
        }
        let line: Vec<String> = Strategy::ALL
            .iter()
            .map(|s| format!("{s} {}", counts.get(s).copied().unwrap_or(0)))
            .collect();
        println!(
            "ptx:{target}: {} cells: {}; {distinct} distinct entries assembled, ptxas rejected {}",
            lowered.len(),
            line.join(" / "),
            failures.len()
        );
        for (name, diagnostics) in failures.iter().take(20) {
            all_failures.push(format!(
                "ptx:{target} {name}:\n{}",
                diagnostics.lines().take(4).collect::<Vec<_>>().join("\n")
            ));
        }
    }
    assert!(
        all_failures.is_empty(),
        "ptxas rejected cells:\n{}",
        all_failures.join("\n")
    );
}
