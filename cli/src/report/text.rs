//! The text report: one line per cell (`cell  strategy  how`), its code indented below, and a
//! totals line per target.

use std::fmt::Write;

use atomir_ir::Strategy;

use super::TargetMatrix;

pub(super) fn render(matrices: &[TargetMatrix], out: &mut String) {
    for matrix in matrices {
        let _ = writeln!(
            out,
            "== {} ({} cells)",
            matrix.target,
            matrix.outcomes.len()
        );
        for outcome in &matrix.outcomes {
            let _ = writeln!(
                out,
                "{}  {}  {}",
                outcome.cell,
                outcome.strategy(),
                outcome.description()
            );
            for line in outcome.code.lines() {
                let _ = writeln!(out, "    {line}");
            }
        }
    }
    for matrix in matrices {
        let _ = write!(
            out,
            "totals {}: {} cells",
            matrix.target,
            matrix.outcomes.len()
        );
        for (strategy, count) in Strategy::ALL.iter().zip(matrix.totals()) {
            let _ = write!(out, ", {strategy} {count}");
        }
        out.push('\n');
    }
}
