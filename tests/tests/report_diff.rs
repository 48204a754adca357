//! `atomir diff` on a backend with known verdicts at two generations: the strategy change is
//! named per instruction with its line, and the code change is a unified diff.

mod report_support;

use atomir_cli::diff::diff_targets;
use atomir_ir::text;
use report_support::{workspace_root, FakeBackend, FAKE};

fn sample() -> atomir_ir::Module {
    let path = workspace_root().join("tests/golden/in/matrix_sample.atom");
    let source = std::fs::read_to_string(&path).expect("matrix sample");
    text::parse(&source).unwrap_or_else(|diags| panic!("{}: {diags:?}", path.display()))
}

#[test]
fn a_generation_change_names_each_strategy_change() {
    let module = sample();
    let instructions: usize = module.kernels.iter().map(|k| k.insts.len()).sum();
    let mut out = String::new();
    let summary = diff_targets(&module, &FAKE, &FakeBackend { generation: 2 }, &mut out);
    assert!(out.starts_with("--- fake:1\n+++ fake:2\n"), "{out}");
    assert_eq!(summary.instructions, instructions);
    // Only the b128 exchange changes strategy between the generations (the sample has no f64
    // min/max), from refused to native.
    assert_eq!(summary.strategy_changed, 1, "{out}");
    let line = out
        .lines()
        .find(|l| l.contains("illegal → native"))
        .expect("the change is named");
    assert!(line.starts_with("inst 0 (line "), "{line}");
    assert!(
        out.contains("  - fake:1: refused: b128 needs a newer fake [rule fake.no-b128]"),
        "{out}"
    );
    assert!(
        out.contains(
            "@@ -0,0 +1,2 @@\n+// exch_b128_acq_rel <native>\n+fake.exch.acq_rel.scalar.b128\n"
        ),
        "{out}"
    );
    assert!(
        out.ends_with(&format!(
            "{instructions} instructions: 1 changed strategy, 1 changed code\n"
        )),
        "{out}"
    );
}

#[test]
fn a_target_against_itself_changes_nothing() {
    let module = sample();
    let mut out = String::new();
    let summary = diff_targets(&module, &FAKE, &FAKE, &mut out);
    assert_eq!(
        (summary.strategy_changed, summary.code_changed),
        (0, 0),
        "{out}"
    );
    assert!(!out.contains("\n@@ "), "{out}");
    assert_eq!(
        out.matches(", unchanged\n").count(),
        summary.instructions,
        "{out}"
    );
}
