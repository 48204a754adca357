//! Every report format tells the same story: the same cell count and the same totals per
//! strategy per target, read back from each rendered format.

mod report_support;

use atomir_cli::filter::CellFilter;
use atomir_cli::report::{render, Format, TargetMatrix, SCHEMA};
use atomir_ir::matrix::{all_cells, AnyCell};
use atomir_ir::Strategy;
use report_support::{built_targets, FAKE};

type Totals = Vec<(String, usize, Vec<usize>)>;

fn number(text: &str) -> usize {
    text.trim()
        .parse()
        .unwrap_or_else(|_| panic!("not a count: `{text}`"))
}

fn from_text(out: &str) -> Totals {
    out.lines()
        .filter_map(|line| line.strip_prefix("totals "))
        .map(|line| {
            let (target, rest) = line.split_once(": ").expect("target: counts");
            let mut parts = rest.split(", ");
            let cells = number(parts.next().unwrap_or_default().trim_end_matches(" cells"));
            let counts = Strategy::ALL
                .iter()
                .zip(parts)
                .map(|(s, part)| number(part.strip_prefix(s.as_str()).expect("strategy name")))
                .collect();
            (target.to_string(), cells, counts)
        })
        .collect()
}

fn from_json(out: &str) -> Totals {
    let doc: serde_json::Value = serde_json::from_str(out).expect("valid JSON");
    assert_eq!(doc["schema"], SCHEMA);
    doc["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .map(|t| {
            let cells = t["cells"].as_array().expect("cells");
            assert_eq!(t["cell_count"].as_u64(), Some(cells.len() as u64));
            let counts: Vec<usize> = Strategy::ALL
                .iter()
                .map(|s| t["totals"][s.as_str()].as_u64().expect("total") as usize)
                .collect();
            // The totals must also be what the cells say.
            for (s, count) in Strategy::ALL.iter().zip(&counts) {
                let listed = cells.iter().filter(|c| c["strategy"] == s.as_str()).count();
                assert_eq!(listed, *count, "{s} in {}", t["target"]);
            }
            (
                t["target"].as_str().expect("name").to_string(),
                cells.len(),
                counts,
            )
        })
        .collect()
}

fn from_markdown(out: &str) -> Totals {
    out.lines()
        .skip_while(|l| !l.starts_with("| target | cells |"))
        .skip(2)
        .take_while(|l| l.starts_with("| `"))
        .map(|line| {
            let fields: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let counts = fields[2..].iter().map(|f| number(f)).collect();
            (
                fields[0].trim_matches('`').to_string(),
                number(fields[1]),
                counts,
            )
        })
        .collect()
}

fn from_html(out: &str) -> Totals {
    let body = out
        .split("<tbody>")
        .nth(1)
        .expect("totals table")
        .split("</tbody>")
        .next()
        .unwrap_or("");
    body.split("<tr>")
        .filter(|row| !row.is_empty())
        .map(|row| {
            let fields: Vec<&str> = row
                .split("<td")
                .skip(1)
                .map(|f| {
                    f.split('>')
                        .nth(1)
                        .unwrap_or("")
                        .split('<')
                        .next()
                        .unwrap_or("")
                })
                .collect();
            let counts = fields[2..].iter().map(|f| number(f)).collect();
            (fields[0].to_string(), number(fields[1]), counts)
        })
        .collect()
}

fn check_agreement(matrices: &[TargetMatrix]) {
    let expected: Totals = matrices
        .iter()
        .map(|m| (m.target.clone(), m.outcomes.len(), m.totals().to_vec()))
        .collect();
    for (format, read) in [
        (Format::Text, from_text as fn(&str) -> Totals),
        (Format::Json, from_json),
        (Format::Markdown, from_markdown),
        (Format::Html, from_html),
    ] {
        let mut out = String::new();
        render(format, matrices, &mut out);
        pretty_assertions::assert_eq!(read(&out), expected, "{format:?}");
    }
}

#[test]
fn formats_agree_on_a_backend_with_known_verdicts() {
    let all: Vec<AnyCell> = all_cells().collect();
    let matrix = TargetMatrix::run(&FAKE, &all);
    let totals = matrix.totals();
    assert_eq!(totals.iter().sum::<usize>(), all.len());
    // Every strategy the fake can answer appears, so every column is exercised.
    for strategy in [
        Strategy::Native,
        Strategy::Rewrite,
        Strategy::Widen,
        Strategy::CasLoop,
        Strategy::Split,
        Strategy::Illegal,
    ] {
        assert!(totals[strategy as usize] > 0, "{strategy} never chosen");
    }
    check_agreement(&[matrix]);
}

#[test]
fn formats_agree_on_the_built_targets() {
    let filter: CellFilter = "type=u32,type=f16,type=f64,type=b128,type=bf16x2"
        .parse()
        .expect("filter");
    // The types chosen, and every fence.
    let chosen: Vec<AnyCell> = all_cells()
        .filter(|c| filter.matches(c) || c.access().is_none())
        .collect();
    let matrices: Vec<TargetMatrix> = built_targets()
        .iter()
        .map(|(_, backend)| TargetMatrix::run(backend.backend(), &chosen))
        .collect();
    if matrices.is_empty() {
        eprintln!("SKIPPED: no backend is built yet");
        return;
    }
    check_agreement(&matrices);
}
