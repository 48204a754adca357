//! The JSON report; its schema is documented in the README and versioned by [`SCHEMA`].

use serde::Serialize;

use atomir_ir::Strategy;

use super::{result_word, TargetMatrix};

/// The value of the top-level `schema` field. Bumped on any incompatible change.
pub const SCHEMA: &str = "atomir-matrix/2";

#[derive(Serialize)]
struct Report<'a> {
    schema: &'static str,
    strategies: Vec<&'static str>,
    targets: Vec<Target<'a>>,
}

#[derive(Serialize)]
struct Target<'a> {
    target: &'a str,
    cell_count: usize,
    totals: serde_json::Map<String, serde_json::Value>,
    cells: Vec<Cell<'a>>,
}

#[derive(Serialize)]
struct Cell<'a> {
    name: String,
    op: &'static str,
    #[serde(rename = "type")]
    ty: Option<&'static str>,
    /// `None` (null) for a fence, which has no type, shape, space or result.
    shape: Option<&'static str>,
    order: &'static str,
    scope: &'static str,
    space: Option<&'static str>,
    result: Option<&'static str>,
    strategy: &'static str,
    description: String,
    code: Option<&'a str>,
    refusal: Option<Refusal<'a>>,
}

#[derive(Serialize)]
struct Refusal<'a> {
    rule: &'static str,
    reason: &'a str,
    smallest_target: Option<&'a str>,
}

pub(super) fn render(matrices: &[TargetMatrix], out: &mut String) {
    let report = Report {
        schema: SCHEMA,
        strategies: Strategy::ALL.iter().map(|s| s.as_str()).collect(),
        targets: matrices
            .iter()
            .map(|matrix| Target {
                target: &matrix.target,
                cell_count: matrix.outcomes.len(),
                totals: Strategy::ALL
                    .iter()
                    .zip(matrix.totals())
                    .map(|(s, n)| (s.as_str().to_string(), n.into()))
                    .collect(),
                cells: matrix
                    .outcomes
                    .iter()
                    .map(|outcome| {
                        let cell = outcome.cell;
                        let access = cell.access();
                        let refusal = outcome.refusal();
                        Cell {
                            name: cell.name(),
                            op: cell.op_name(),
                            ty: access.map(|a| a.ty.as_str()),
                            shape: access.map(|a| a.shape.as_str()),
                            order: cell.order().as_str(),
                            scope: cell.scope().as_str(),
                            space: access.map(|a| a.space.as_str()),
                            result: access.map(result_word),
                            strategy: outcome.strategy().as_str(),
                            description: outcome.description(),
                            code: refusal.is_none().then_some(outcome.code.as_str()),
                            refusal: refusal.map(|r| Refusal {
                                rule: r.rule.id(),
                                reason: &r.reason,
                                smallest_target: r.smallest_target.as_ref().map(|t| t.name()),
                            }),
                        }
                    })
                    .collect(),
            })
            .collect(),
    };
    match serde_json::to_string_pretty(&report) {
        Ok(text) => out.push_str(&text),
        // Serializing plain strings and numbers cannot fail; say so in the output if it ever does.
        Err(error) => out.push_str(&format!("{{\"error\": \"{error}\"}}")),
    }
    out.push('\n');
}
