//! The lowering matrix as a report: every cell with its strategy, its emitted code or its
//! refusal, and the totals per strategy per target, in four formats that always agree on the
//! cell count and the totals.

mod html;
mod json;
mod markdown;
mod text;

use std::str::FromStr;

use atomir_ir::matrix::{self, AnyCell, Cell, CellOutcome};
use atomir_ir::{Backend, LowerOptions, Strategy};

pub use json::SCHEMA;

/// One target's row of the matrix.
#[derive(Clone, Debug)]
pub struct TargetMatrix {
    pub target: String,
    pub outcomes: Vec<CellOutcome>,
}

impl TargetMatrix {
    /// Runs the chosen cells through `backend`.
    pub fn run(backend: &dyn Backend, cells: &[AnyCell]) -> TargetMatrix {
        TargetMatrix {
            target: backend.target_name(),
            outcomes: matrix::run(backend, cells.iter().copied(), &LowerOptions::default()),
        }
    }

    /// Cells per strategy, in [`Strategy::ALL`] order.
    pub fn totals(&self) -> [usize; Strategy::ALL.len()] {
        matrix::totals(&self.outcomes)
    }
}

/// A report format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Markdown,
    Html,
}

impl FromStr for Format {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        match name {
            "text" => Ok(Format::Text),
            "json" => Ok(Format::Json),
            "markdown" | "md" => Ok(Format::Markdown),
            "html" => Ok(Format::Html),
            _ => Err(format!(
                "unknown format `{name}`: expected text, json, markdown or html"
            )),
        }
    }
}

/// Renders the report of every target into `out`.
pub fn render(format: Format, matrices: &[TargetMatrix], out: &mut String) {
    match format {
        Format::Text => text::render(matrices, out),
        Format::Json => json::render(matrices, out),
        Format::Markdown => markdown::render(matrices, out),
        Format::Html => html::render(matrices, out),
    }
}

/// `used` or `dead`: the spelling of a cell's result in every format and in `--filter`.
pub(crate) fn result_word(cell: &Cell) -> &'static str {
    if cell.result_used {
        "used"
    } else {
        "dead"
    }
}
