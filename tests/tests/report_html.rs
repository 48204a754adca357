//! The HTML report in a real browser: headless Chromium loads the page offline, its script draws
//! one square per op × type per target with a strategy class, and a screenshot is kept under
//! `target/atomir-report/` for a person to look at.

mod report_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use atomir_cli::report::{render, Format, TargetMatrix};
use atomir_ir::matrix::{all_cells, AnyCell};
use atomir_ir::Backend;
use atomir_tests::{require, tools, Tool};
use report_support::{built_targets, workspace_root, FAKE};

fn chromium(binary: &Path, profile: &Path, extra: &[String], page: &Path) -> (bool, String) {
    let mut command = Command::new(binary);
    command.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ]);
    command.arg(format!("--user-data-dir={}", profile.display()));
    command.args(extra);
    command.arg(format!("file://{}", page.display()));
    tools::run(&mut command)
}

/// Number of `.gc` squares the page should draw: one per (op, type) with at least one cell.
fn expected_squares(matrices: &[TargetMatrix]) -> usize {
    matrices
        .iter()
        .map(|m| {
            // A fence has no type: all fences share one square.
            let mut keys: Vec<_> = m
                .outcomes
                .iter()
                .map(|o| o.cell.access().map(|c| (c.op, c.ty)))
                .collect();
            keys.dedup();
            keys.sort();
            keys.dedup();
            keys.len()
        })
        .sum()
}

fn render_and_load(name: &str, matrices: &[TargetMatrix]) {
    let Some(browser) = require(Tool::Chromium) else {
        return;
    };
    let dir = workspace_root().join("target/atomir-report");
    std::fs::create_dir_all(&dir).expect("report folder");
    let page = dir.join(format!("{name}.html"));
    let mut html = String::new();
    render(Format::Html, matrices, &mut html);
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "the page loads nothing from outside"
    );
    assert!(
        !html.contains("__ATOMIR_"),
        "every slot of the template is filled"
    );
    std::fs::write(&page, &html).expect("write page");

    let profile = tempdir(&dir, name);
    let (ok, dom) = chromium(&browser, &profile, &["--dump-dom".to_string()], &page);
    let _ = std::fs::remove_dir_all(&profile);
    assert!(ok, "chromium --dump-dom failed:\n{dom}");
    let squares = dom.matches("class=\"gc s-").count();
    let expected = expected_squares(matrices);
    assert_eq!(
        squares, expected,
        "the script drew {squares} squares, expected {expected}"
    );
    assert!(
        dom.contains(&format!("data-rendered=\"{expected}\"")),
        "the script ran to its end"
    );
    for strategy in atomir_ir::Strategy::ALL {
        let counted: usize = matrices.iter().map(|m| m.totals()[strategy as usize]).sum();
        let drawn = dom.contains(&format!("pill s-{strategy}"))
            || dom.contains(&format!("gc s-{strategy}"))
            || dom.contains(&format!("<span class=\"s-{strategy}\""));
        assert_eq!(
            counted > 0,
            drawn,
            "{strategy}: {counted} cells, drawn: {drawn}"
        );
    }

    let shot = dir.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&shot);
    let profile = tempdir(&dir, &format!("{name}-shot"));
    let (ok, log) = chromium(
        &browser,
        &profile,
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1700,1250".to_string(),
        ],
        &page,
    );
    assert!(ok, "chromium --screenshot failed:\n{log}");
    let size = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
    assert!(
        size > 20_000,
        "screenshot {} is {size} bytes: blank?",
        shot.display()
    );
    // The same page narrowed to scalar global cells, one square selected: the detail panel.
    let detail_shot = dir.join(format!("{name}-detail.png"));
    let _ = std::fs::remove_file(&detail_shot);
    let profile_detail = tempdir(&dir, &format!("{name}-detail"));
    let url = PathBuf::from(format!(
        "{}#shape=scalar&space=global&select=add.f32",
        page.display()
    ));
    let (ok, log) = chromium(
        &browser,
        &profile_detail,
        &[
            format!("--screenshot={}", detail_shot.display()),
            "--window-size=1700,1250".to_string(),
        ],
        &url,
    );
    assert!(
        ok && detail_shot.is_file(),
        "chromium --screenshot of the detail view failed:\n{log}"
    );
    for folder in [&profile, &profile_detail] {
        let _ = std::fs::remove_dir_all(folder);
    }
    println!(
        "report: {} ({} squares), screenshot {}",
        page.display(),
        squares,
        shot.display()
    );
}

/// A fresh, empty browser profile folder.
fn tempdir(parent: &Path, name: &str) -> PathBuf {
    let dir = parent.join(format!("profile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("profile folder");
    dir
}

#[test]
fn html_report_of_a_backend_with_known_verdicts() {
    let all: Vec<AnyCell> = all_cells().collect();
    render_and_load("fake", &[TargetMatrix::run(&FAKE as &dyn Backend, &all)]);
}

#[test]
fn html_report_of_the_built_targets() {
    let targets = built_targets();
    if targets.is_empty() {
        eprintln!("SKIPPED: no backend is built yet");
        return;
    }
    let all: Vec<AnyCell> = all_cells().collect();
    let matrices: Vec<TargetMatrix> = targets
        .iter()
        .map(|(_, backend)| TargetMatrix::run(backend.backend(), &all))
        .collect();
    render_and_load("targets", &matrices);
}
