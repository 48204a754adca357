//! The HTML report: one self-contained page (inline CSS and script, no external assets) with a
//! grid of ops × types per target, each grid cell coloured by its dominant strategy and
//! aggregating every shape, order, scope, space and result of that op and type. Clicking a grid
//! cell shows each distinct verdict in it with a sample cell's code.
//!
//! The page's data is one JSON document; the script draws the grid from it, so the markup the
//! report writes stays small however many cells there are.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::Serialize;

use atomir_ir::matrix::AnyCell;
use atomir_ir::{AddressSpace, AtomicOp, ElemType, MemoryOrder, Scope, Strategy, VectorShape};

use super::TargetMatrix;

const PAGE: &str = include_str!("page.html");
const DATA_SLOT: &str = "__ATOMIR_DATA__";
const TOTALS_SLOT: &str = "__ATOMIR_TOTALS__";
const TITLE_SLOT: &str = "__ATOMIR_TITLE__";

#[derive(Serialize)]
struct Data<'a> {
    strategies: Vec<&'static str>,
    ops: Vec<&'static str>,
    types: Vec<&'static str>,
    /// The other axes of a cell, in the order [`combo`] numbers them.
    shapes: Vec<&'static str>,
    orders: Vec<&'static str>,
    scopes: Vec<&'static str>,
    spaces: Vec<&'static str>,
    targets: Vec<TargetData<'a>>,
}

#[derive(Serialize)]
struct TargetData<'a> {
    target: &'a str,
    cells: usize,
    totals: Vec<usize>,
    grid: Vec<GridCell<'a>>,
}

/// Every matrix cell of one op and one type.
#[derive(Serialize)]
struct GridCell<'a> {
    op: &'static str,
    #[serde(rename = "type")]
    ty: &'static str,
    counts: Vec<usize>,
    groups: Vec<Group<'a>>,
    /// Four base-32 digits per cell: its [`combo`] (two) and its group (two), so the page can
    /// filter by shape, order, scope, space and result without a record per cell.
    cells: String,
}

/// The cells of a grid cell that share one verdict.
#[derive(Serialize)]
struct Group<'a> {
    strategy: usize,
    description: String,
    /// The cell whose code is shown.
    sample: String,
    code: &'a str,
}

const DIGITS: &[u8; 32] = b"0123456789abcdefghijklmnopqrstuv";

fn push_base32(value: usize, out: &mut String) {
    out.push(DIGITS[(value / 32) % 32] as char);
    out.push(DIGITS[value % 32] as char);
}

fn index<T: PartialEq>(all: &[T], value: T) -> usize {
    all.iter().position(|v| *v == value).unwrap_or(0)
}

/// The type column of fences, which have no type.
const FENCE_TYPE: &str = "—";

/// A cell's shape, order, scope, space and result use as one number below 640. A fence has no
/// shape, space or result; it is numbered as scalar, generic and used, so the page's order and
/// scope filters apply to it.
fn combo(cell: &AnyCell) -> usize {
    let (shape, space, result_used) = match cell.access() {
        Some(access) => (
            index(VectorShape::ALL, access.shape),
            index(AddressSpace::ALL, access.space),
            access.result_used,
        ),
        None => (0, 0, true),
    };
    let order = index(MemoryOrder::ALL, cell.order());
    let scope = index(Scope::ALL, cell.scope());
    (((shape * MemoryOrder::ALL.len() + order) * Scope::ALL.len() + scope)
        * AddressSpace::ALL.len()
        + space)
        * 2
        + usize::from(!result_used)
}

fn escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
}

fn target_data(matrix: &TargetMatrix) -> TargetData<'_> {
    // Rows in op order with fences last; columns in type order with the fence column last.
    let mut grid: BTreeMap<(usize, usize), GridCell<'_>> = BTreeMap::new();
    for outcome in &matrix.outcomes {
        let cell = outcome.cell;
        let (key, ty) = match cell.access() {
            Some(access) => ((access.op as usize, access.ty as usize), access.ty.as_str()),
            None => ((AtomicOp::ALL.len(), ElemType::ALL.len()), FENCE_TYPE),
        };
        let entry = grid.entry(key).or_insert_with(|| GridCell {
            op: cell.op_name(),
            ty,
            counts: vec![0; Strategy::ALL.len()],
            groups: Vec::new(),
            cells: String::new(),
        });
        let strategy = outcome.strategy() as usize;
        entry.counts[strategy] += 1;
        let description = outcome.description();
        let group = match entry
            .groups
            .iter()
            .position(|g| g.strategy == strategy && g.description == description)
        {
            Some(group) => group,
            None => {
                entry.groups.push(Group {
                    strategy,
                    description,
                    sample: cell.name(),
                    code: &outcome.code,
                });
                entry.groups.len() - 1
            }
        };
        push_base32(combo(&cell), &mut entry.cells);
        push_base32(group, &mut entry.cells);
    }
    TargetData {
        target: &matrix.target,
        cells: matrix.outcomes.len(),
        totals: matrix.totals().to_vec(),
        grid: grid.into_values().collect(),
    }
}

fn totals_table(matrices: &[TargetMatrix], out: &mut String) {
    out.push_str("<table class=\"totals\"><thead><tr><th>target</th><th>cells</th>");
    for strategy in Strategy::ALL {
        let _ = write!(
            out,
            "<th><span class=\"chip s-{strategy}\"></span>{strategy}</th>"
        );
    }
    out.push_str("</tr></thead><tbody>");
    for matrix in matrices {
        out.push_str("<tr><td class=\"tname\">");
        escape(&matrix.target, out);
        let _ = write!(out, "</td><td>{}</td>", matrix.outcomes.len());
        for count in matrix.totals() {
            let _ = write!(out, "<td>{count}</td>");
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
}

pub(super) fn render(matrices: &[TargetMatrix], out: &mut String) {
    let data = Data {
        strategies: Strategy::ALL.iter().map(|s| s.as_str()).collect(),
        ops: AtomicOp::ALL
            .iter()
            .map(|o| o.as_str())
            .chain(["fence"])
            .collect(),
        types: ElemType::ALL
            .iter()
            .map(|t| t.as_str())
            .chain([FENCE_TYPE])
            .collect(),
        shapes: VectorShape::ALL.iter().map(|v| v.as_str()).collect(),
        orders: MemoryOrder::ALL.iter().map(|v| v.as_str()).collect(),
        scopes: Scope::ALL.iter().map(|v| v.as_str()).collect(),
        spaces: AddressSpace::ALL.iter().map(|v| v.as_str()).collect(),
        targets: matrices.iter().map(target_data).collect(),
    };
    // `</` inside a script element would end it early; `<\/` means the same to JSON.
    let json = serde_json::to_string(&data)
        .unwrap_or_else(|error| format!("{{\"error\":\"{error}\"}}"))
        .replace("</", "<\\/");
    let mut title = String::from("atomir lowering matrix: ");
    let names: Vec<&str> = matrices.iter().map(|m| m.target.as_str()).collect();
    escape(&names.join(", "), &mut title);
    let mut totals = String::new();
    totals_table(matrices, &mut totals);

    let mut rest = PAGE;
    while let Some(at) = rest.find("__ATOMIR_") {
        out.push_str(&rest[..at]);
        let slot = &rest[at..];
        let (value, len) = if slot.starts_with(DATA_SLOT) {
            (json.as_str(), DATA_SLOT.len())
        } else if slot.starts_with(TOTALS_SLOT) {
            (totals.as_str(), TOTALS_SLOT.len())
        } else if slot.starts_with(TITLE_SLOT) {
            (title.as_str(), TITLE_SLOT.len())
        } else {
            ("__ATOMIR_", "__ATOMIR_".len())
        };
        out.push_str(value);
        rest = &rest[at + len..];
    }
    out.push_str(rest);
}
