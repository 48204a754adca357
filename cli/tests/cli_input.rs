//! The command line on real input: diagnostics at file:line:col, standard input, formatting,
//! lowering and refusals, diffs and the matrix.

mod common;

use common::{atomir, text_of};

use std::path::{Path, PathBuf};

use atomir_cli::targets;
use atomir_ir::matrix::{self, cells, Cell};
use atomir_ir::{text, LowerOptions, Module};

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "atom"))
        .collect();
    found.sort();
    assert!(found.len() >= 5, "{found:?}");
    found
}

/// `(line, col)` of a `name:line:col: error: ` diagnostic line.
fn position(line: &str, name: &str) -> Option<(u32, u32)> {
    let rest = line.strip_prefix(name)?.strip_prefix(':')?;
    let mut parts = rest.splitn(3, ':');
    let line_no = parts.next()?.parse().ok()?;
    let col = parts.next()?.parse().ok()?;
    parts
        .next()?
        .starts_with(" error: ")
        .then_some((line_no, col))
}

#[test]
fn every_example_checks_and_formats_stably() {
    for example in examples() {
        let path = example.to_string_lossy();
        let out = atomir(&["check", &path], "");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{path}: {}",
            text_of(&out.stderr)
        );
        assert!(out.stdout.is_empty() && out.stderr.is_empty());
        let first = atomir(&["fmt", &path], "");
        assert_eq!(
            first.status.code(),
            Some(0),
            "{path}: {}",
            text_of(&first.stderr)
        );
        let formatted = text_of(&first.stdout);
        assert!(formatted.contains("kernel "), "{path}: {formatted}");
        let again = atomir(&["fmt", "-"], &formatted);
        pretty_assertions::assert_eq!(text_of(&again.stdout), formatted, "{path}: fmt is stable");
    }
}

#[test]
fn bad_input_points_at_line_and_column() {
    let cases = [
        // A syntax error: the type is missing, on line 3.
        ("kernel k(%a: ptr.global, %x: u32) {\n  atomic.add.relaxed.device.global.u32 [%a], %x\n  atomic.add.relaxed [%a], %x\n}\n", 3),
        // A verifier error: a bitwise op on a float, on line 2.
        ("kernel k(%a: ptr.global, %x: f32) {\n  %r = atomic.and.relaxed.device.global.f32 [%a], %x\n}\n", 2),
        // An undefined value, on line 2.
        ("kernel k(%a: ptr.global) {\n  atomic.add.relaxed.device.global.u32 [%a], %nope\n}\n", 2),
    ];
    for (source, line) in cases {
        let out = atomir(&["check", "-"], source);
        let stderr = text_of(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{source}\n{stderr}");
        let first = stderr.lines().next().unwrap_or_default();
        let Some((at_line, col)) = position(first, "<stdin>") else {
            panic!("not `<stdin>:line:col: error: …`: {stderr}")
        };
        assert_eq!(at_line, line, "{stderr}");
        assert!(col >= 1, "{stderr}");
    }
    // The file name is the one given on the command line.
    let dir = std::env::temp_dir().join(format!("atomir-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    let file = dir.join("bad.atom");
    std::fs::write(&file, cases[1].0).expect("write");
    let name = file.to_string_lossy().into_owned();
    let out = atomir(&["check", &name], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(position(
        text_of(&out.stderr).lines().next().unwrap_or_default(),
        &name
    )
    .is_some());
    let out = atomir(&["lower", &name, "--target", "ptx:sm_90"], "");
    let code = out.status.code();
    assert!(
        code == Some(1) || code == Some(2),
        "bad input is never lowered: {code:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// For each built backend, one refused cell and one accepted cell of the lowering matrix.
fn sample_cells() -> Vec<(String, Option<Cell>, Option<Cell>)> {
    let mut samples = Vec::new();
    for name in ["ptx:sm_70", "visa:TGLLP", "llvm:nvptx64"] {
        let backend = match targets::parse_target(name) {
            Ok(backend) => backend,
            Err(message) => {
                eprintln!("SKIPPED: {name}: {message}");
                continue;
            }
        };
        let outcomes = matrix::run(
            &backend,
            cells()
                .filter(|c| c.op == atomir_ir::AtomicOp::Exch || c.op == atomir_ir::AtomicOp::Add),
            &LowerOptions::default(),
        );
        let refused = outcomes
            .iter()
            .find(|o| o.refusal().is_some())
            .and_then(|o| o.cell.access().copied());
        let accepted = outcomes
            .iter()
            .find(|o| o.refusal().is_none())
            .and_then(|o| o.cell.access().copied());
        samples.push((name.to_string(), refused, accepted));
    }
    samples
}

fn source_of(cell: &Cell) -> String {
    text::print(&Module {
        kernels: vec![cell.kernel()],
    })
}

#[test]
fn lower_prints_code_or_a_refusal_with_rule_and_position() {
    for (target, refused, accepted) in sample_cells() {
        if let Some(cell) = refused {
            let out = atomir(&["lower", "-", "--target", &target], &source_of(&cell));
            let stderr = text_of(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{target} {cell}: {stderr}");
            assert!(out.stdout.is_empty(), "a refusal prints no code");
            let line = stderr.lines().next().unwrap_or_default();
            assert!(position(line, "<stdin>").is_some(), "{line}");
            assert!(line.contains("[rule "), "{line}");
            assert!(
                line.contains("target"),
                "names the smallest target or says none: {line}"
            );
        }
        if let Some(cell) = accepted {
            let out = atomir(&["lower", "-", "--target", &target], &source_of(&cell));
            assert_eq!(
                out.status.code(),
                Some(0),
                "{target} {cell}: {}",
                text_of(&out.stderr)
            );
            let backend = targets::parse_target(&target).expect("built");
            let mut expected = String::new();
            let module = text::parse(&source_of(&cell)).expect("printed text parses");
            backend
                .lower(
                    &atomir_ir::verify::verify(&module).unwrap(),
                    &LowerOptions::default(),
                    &mut expected,
                )
                .expect("accepted");
            pretty_assertions::assert_eq!(text_of(&out.stdout), expected);
            let module_out = atomir(
                &["lower", "-", "--target", &target, "--module"],
                &source_of(&cell),
            );
            assert_eq!(module_out.status.code(), Some(0));
            assert!(
                module_out.stdout.len() >= out.stdout.len(),
                "--module wraps the code"
            );
        }
    }
}

#[test]
fn diff_names_strategy_changes_and_matrix_counts_cells() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/grad_accum.atom");
    let path = example.to_string_lossy();
    for (target, _, _) in sample_cells() {
        let out = atomir(
            &["diff", &path, "--target", &target, "--target", &target],
            "",
        );
        let stdout = text_of(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{}", text_of(&out.stderr));
        assert!(stdout.contains("inst 0 (line "), "{stdout}");
        assert!(
            stdout.contains("0 changed strategy, 0 changed code"),
            "{stdout}"
        );
        assert!(
            !stdout.contains("\n@@ "),
            "one target against itself has no hunks: {stdout}"
        );

        let out = atomir(
            &[
                "matrix",
                "--target",
                &target,
                "--format",
                "json",
                "--filter",
                "op=add,type=u32,type=f32",
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(0), "{}", text_of(&out.stderr));
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let expected = cells()
            .filter(|c| {
                c.op == atomir_ir::AtomicOp::Add
                    && matches!(c.ty, atomir_ir::ElemType::U32 | atomir_ir::ElemType::F32)
            })
            .count();
        assert_eq!(
            doc["targets"][0]["cell_count"].as_u64(),
            Some(expected as u64)
        );
    }
}

#[test]
fn diff_from_sm_80_to_sm_90_shows_the_cas_loop_that_became_native() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/grad_accum.atom");
    let out = atomir(
        &[
            "diff",
            &example.to_string_lossy(),
            "--target",
            "ptx:sm_80",
            "--target",
            "ptx:sm_90",
        ],
        "",
    );
    let stdout = text_of(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text_of(&out.stderr));
    // The bf16x2 add: a CAS loop before Hopper, one `red` on it.
    assert!(
        stdout.contains("inst 1 (line 10): cas-loop → rewrite"),
        "{stdout}"
    );
    assert!(
        stdout.contains("-\tatom.relaxed.gpu.global.cas.b32"),
        "{stdout}"
    );
    assert!(
        stdout.contains("+\tred.relaxed.gpu.global.add.noftz.bf16x2"),
        "{stdout}"
    );
    // The vector forms: split per element before Hopper, one instruction on it.
    assert!(
        stdout.contains("inst 2 (line 11): split → rewrite"),
        "{stdout}"
    );
    assert!(
        stdout.contains("+\tred.relaxed.gpu.global.add.noftz.v8.f16"),
        "{stdout}"
    );
    // The f16x2 add is the same on both.
    assert!(
        stdout.contains("inst 0 (line 9): rewrite, unchanged"),
        "{stdout}"
    );
}
