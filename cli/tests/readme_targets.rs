//! The README's targets table says what the target tables say: every target name it shows
//! parses, and the LLVM row names every triple, the version range and default, every option
//! and the rule family of each triple with rules of its own.

use atomir::llvm::target::{DEFAULT_MAJOR, MAJORS};
use atomir::llvm::{Knob, Triple};
use atomir::ptx::PtxIsa;
use atomir::Target;

fn readme() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");
    std::fs::read_to_string(path).expect("README.md")
}

/// The row of the targets table for `backend`.
fn row(readme: &str, backend: &str) -> String {
    readme
        .lines()
        .find(|line| line.starts_with(&format!("| `{backend}` |")))
        .unwrap_or_else(|| panic!("README has no targets row for `{backend}`"))
        .to_string()
}

/// Every `` `<backend>:…` `` name quoted in `text`, up to a space or a backtick.
fn quoted_names(text: &str, backend: &str) -> Vec<String> {
    let lead = format!("`{backend}:");
    text.match_indices(&lead)
        .map(|(at, _)| {
            let name = &text[at + 1..];
            name[..name.find(['`', ' ']).unwrap_or(name.len())].to_string()
        })
        .collect()
}

#[test]
fn every_target_name_in_the_readme_table_parses() {
    let readme = readme();
    for backend in ["ptx", "visa", "llvm"] {
        let names = quoted_names(&row(&readme, backend), backend);
        assert!(!names.is_empty(), "no `{backend}:` names in its row");
        for name in names {
            assert!(
                name.parse::<Target>().is_ok(),
                "README names `{name}`, which does not parse"
            );
        }
    }
}

#[test]
fn the_llvm_row_matches_the_llvm_tables() {
    let llvm = row(&readme(), "llvm");
    for triple in Triple::ALL {
        let name = format!("`llvm:{}`", triple.name());
        assert!(llvm.contains(&name), "README's llvm row lacks {name}");
        if let Some(prefix) = triple.rule_prefix() {
            assert!(
                llvm.contains(&format!("`{prefix}*`")),
                "README's llvm row lacks the rules `{prefix}*` of {name}"
            );
        }
    }
    let majors: Vec<String> = MAJORS.iter().map(|m| format!("`@{m}`")).collect();
    let versions = format!("{} (default `@{DEFAULT_MAJOR}`", majors.join(", "));
    assert!(
        llvm.contains(&versions),
        "README's llvm row lacks {versions}"
    );
    for knob in Knob::ALL {
        let option = format!("+{}`", knob.name());
        assert!(llvm.contains(&option), "README's llvm row lacks {option}");
    }
}

#[test]
fn the_ptx_row_names_the_newest_isa() {
    let ptx = row(&readme(), "ptx");
    let newest = format!("up to {}", PtxIsa::NEWEST);
    assert!(ptx.contains(&newest), "README's ptx row lacks `{newest}`");
}
