//! The lowering matrix over every target in one place: counts per strategy printed as a table,
//! the per-op × type summary pinned in `tests/golden/matrix/<target>.txt` (so a rule change moves
//! the table in review), and the claims of every verdict checked against the backends:
//! an accepted cell has code, a refused one names its rule, and the "smallest target that accepts
//! it" really does accept it.

mod report_support;

use std::collections::BTreeMap;
use std::fmt::Write;

use atomir_cli::report::TargetMatrix;
use atomir_cli::targets;
use atomir_ir::matrix::{all_cells, AnyCell};
use atomir_ir::{Backend, Strategy};
use report_support::{built_targets, check_golden, opt_in_targets, workspace_root};

/// `op type: strategy count, …` per line, then the totals: small enough to review.
fn summary(matrix: &TargetMatrix) -> String {
    // Fences, which have no type, come last, one line per order.
    let mut by_op_type: BTreeMap<(usize, usize), ([usize; Strategy::ALL.len()], &str, &str)> =
        BTreeMap::new();
    for outcome in &matrix.outcomes {
        let (key, op, column) = match outcome.cell {
            AnyCell::Access(cell) => (
                (cell.op as usize, cell.ty as usize),
                cell.op.as_str(),
                cell.ty.as_str(),
            ),
            AnyCell::Fence(cell) => (
                (atomir_ir::AtomicOp::ALL.len(), cell.order as usize),
                "fence",
                cell.order.as_str(),
            ),
        };
        by_op_type
            .entry(key)
            .or_insert(([0; Strategy::ALL.len()], op, column))
            .0[outcome.strategy() as usize] += 1;
    }
    let mut text = format!("# {}: strategies per op and type\n", matrix.target);
    for (counts, op, column) in by_op_type.into_values() {
        let _ = write!(text, "{op:<5} {column:<7}");
        for (strategy, count) in Strategy::ALL.iter().zip(counts) {
            if count > 0 {
                let _ = write!(text, " {strategy} {count}");
            }
        }
        text.push('\n');
    }
    let _ = write!(text, "total {} cells:", matrix.outcomes.len());
    for (strategy, count) in Strategy::ALL.iter().zip(matrix.totals()) {
        let _ = write!(text, " {strategy} {count}");
    }
    text.push('\n');
    text
}

/// Checks what each verdict claims; returns the violations.
fn check_claims(matrix: &TargetMatrix, backend_prefix: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let mut smallest: BTreeMap<String, Option<targets::Target>> = BTreeMap::new();
    for outcome in &matrix.outcomes {
        match outcome.refusal() {
            None if outcome.code.trim().is_empty() => {
                problems.push(format!("{}: accepted but no code emitted", outcome.cell))
            }
            None => {}
            Some(refusal) => {
                if refusal.rule.id().is_empty() || refusal.reason.trim().is_empty() {
                    problems.push(format!(
                        "{}: refusal without a rule or reason",
                        outcome.cell
                    ));
                }
                let Some(name) = refusal.smallest_target.as_ref().map(|t| t.name()) else {
                    continue;
                };
                if !name.starts_with(&format!("{backend_prefix}:")) {
                    problems.push(format!(
                        "{}: smallest target {name} is not a {backend_prefix} target",
                        outcome.cell
                    ));
                    continue;
                }
                let backend = smallest
                    .entry(name.to_string())
                    .or_insert_with(|| targets::parse_target(name).ok());
                let Some(backend) = backend else {
                    problems.push(format!(
                        "{}: smallest target {name} does not parse",
                        outcome.cell
                    ));
                    continue;
                };
                let kernel = outcome.cell.kernel();
                let inst = kernel.insts.keys().next().expect("one instruction");
                if let Err(again) = backend.legalize_inst(&kernel, inst) {
                    problems.push(format!(
                        "{}: refused with smallest target {name}, which refuses it too: {again}",
                        outcome.cell
                    ));
                }
            }
        }
    }
    problems
}

#[test]
fn lowering_matrix_over_all_targets() {
    let all: Vec<AnyCell> = all_cells().collect();
    let mut failures = Vec::new();
    let table = matrix_table(&built_targets(), &all, &mut failures);
    println!("lowering matrix, {} cells per target:\n{table}", all.len());
    // Opt-in policies change results where the client's assertion does not hold: never mixed
    // with the defaults above.
    let table = matrix_table(&opt_in_targets(), &all, &mut failures);
    println!("opt-in lowering policies (not defaults), same cells:\n{table}");
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The matrix of each target: its counts per strategy as one row of the returned table, its
/// claims checked and its summary compared with the golden file, problems added to `failures`.
fn matrix_table(
    targets: &[(&str, targets::TargetBackend)],
    all: &[AnyCell],
    failures: &mut Vec<String>,
) -> String {
    let golden = workspace_root().join("tests/golden/matrix");
    let width = targets
        .iter()
        .map(|(name, _)| name.len())
        .max()
        .unwrap_or(0)
        .max(16);
    let mut table = format!("{:<width$} {:>7}", "target", "cells");
    for strategy in Strategy::ALL {
        let _ = write!(table, " {:>8}", strategy.as_str());
    }
    table.push('\n');
    for (name, backend) in targets {
        let matrix = TargetMatrix::run(backend.backend(), all);
        assert_eq!(matrix.outcomes.len(), all.len());
        assert_eq!(matrix.totals().iter().sum::<usize>(), all.len());
        let _ = write!(table, "{:<width$} {:>7}", name, all.len());
        for count in matrix.totals() {
            let _ = write!(table, " {count:>8}");
        }
        table.push('\n');
        let prefix = name.split(':').next().unwrap_or_default();
        let problems = check_claims(&matrix, prefix);
        failures.extend(problems.into_iter().take(20));
        let path = golden.join(format!("{}.txt", targets::file_name(name)));
        failures.extend(check_golden(&path, &summary(&matrix)));
    }
    table
}
