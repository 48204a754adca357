//! The Markdown report, for a pull request: a totals table, then one table of cells per target.

use std::fmt::Write;

use atomir_ir::Strategy;

use super::TargetMatrix;

/// Text safe inside a table cell: pipes escaped, lines joined with `<br>`, HTML specials
/// escaped, leading spaces kept as `&nbsp;` so indentation survives.
fn cell_text(text: &str, out: &mut String) {
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push_str("<br>");
        }
        let body = line.trim_start_matches(' ');
        for _ in 0..line.len() - body.len() {
            out.push_str("&nbsp;");
        }
        for c in body.chars() {
            match c {
                '|' => out.push_str("&#124;"),
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '&' => out.push_str("&amp;"),
                '`' => out.push_str("&#96;"),
                _ => out.push(c),
            }
        }
    }
}

pub(super) fn render(matrices: &[TargetMatrix], out: &mut String) {
    out.push_str("## Lowering matrix\n\n| target | cells |");
    for strategy in Strategy::ALL {
        let _ = write!(out, " {strategy} |");
    }
    out.push_str("\n| --- | ---: |");
    for _ in Strategy::ALL {
        out.push_str(" ---: |");
    }
    out.push('\n');
    for matrix in matrices {
        let _ = write!(out, "| `{}` | {} |", matrix.target, matrix.outcomes.len());
        for count in matrix.totals() {
            let _ = write!(out, " {count} |");
        }
        out.push('\n');
    }
    for matrix in matrices {
        let _ = write!(
            out,
            "\n### `{}`\n\n| cell | strategy | how | code |\n| --- | --- | --- | --- |\n",
            matrix.target
        );
        for outcome in &matrix.outcomes {
            let _ = write!(out, "| `{}` | {} | ", outcome.cell, outcome.strategy());
            cell_text(&outcome.description(), out);
            out.push_str(" | ");
            if !outcome.code.is_empty() {
                out.push_str("<code>");
                cell_text(&outcome.code, out);
                out.push_str("</code>");
            }
            out.push_str(" |\n");
        }
    }
}
