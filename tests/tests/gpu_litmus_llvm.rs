//! The message-passing litmus tests written as LLVM IR (`tests/gpu/litmus-llvm/`): every test
//! is compiled by llc 22, as it is and after `atomir fix --target llvm:nvptx64@22`, and
//! assembled by ptxas 13.5 with the harness's wrapper (`gpu_cases litmus-llvm-gen`), as the
//! GPU runs them; and the PTX that runs is audited against its IR: llc 22 weakens the
//! release/acquire read-modify-writes and nothing else, fix's output keeps every order.

use std::path::PathBuf;

use atomir::audit::{audit, Verdict, Weakening};
use atomir::llvm::read::ReadOptions;
use atomir_tests::litmus::{self, llvm};
use atomir_tests::tools::{require, workspace_root, Tool};

#[test]
fn llvm_litmus_tests_assemble_and_their_ptx_is_what_the_audit_expects() {
    if require(Tool::Llc(22)).is_none() || require(Tool::Ptxas13).is_none() {
        return;
    }
    let tests = workspace_root().join(llvm::TESTS);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("litmus_llvm");
    let _ = std::fs::remove_dir_all(&dir);
    let lines = llvm::generate(&tests, &dir).unwrap();
    assert_eq!(lines.len(), 6, "{lines:?}");
    for test in litmus::load(&tests).unwrap() {
        assert!(
            dir.join(format!("{}.cubin", test.name)).exists(),
            "{}",
            test.name
        );
        let (source, how) = llvm::source_of(&tests, &test).unwrap();
        let ir = std::fs::read_to_string(&source).unwrap();
        let ptx = std::fs::read_to_string(dir.join(format!("{}.llc.ptx", test.name))).unwrap();
        let report = audit(&ir, &ptx, ReadOptions::default());
        assert_eq!(report.entries.len(), 4, "{}", test.name);
        assert_eq!(report.unmatched(), 0, "{}", report.render("ir", "ptx"));
        let dropped: Vec<&str> = report
            .entries
            .iter()
            .filter(|e| matches!(&e.verdict, Verdict::Weakened(w) if matches!(w[..], [Weakening::Order { .. }])))
            .map(|e| e.ir.text.as_str())
            .collect();
        let expected = match (test.name.as_str(), how) {
            ("mp_rmw_llc22", llvm::How::Llc22) => 2,
            _ => 0,
        };
        assert_eq!(
            dropped.len(),
            expected,
            "{}:\n{}",
            test.name,
            report.render("ir", "ptx")
        );
        assert_eq!(report.weakened(), expected, "{}", test.name);
    }
}

/// The same audit at both of llc's block layouts (`-O0` keeps the IR's order, `-O2`, llc's
/// default that the GPU runs, lays blocks out anew) and by llc 23 too: llc 22 weakens the
/// release/acquire read-modify-writes of `mp_rmw` as it is, and nothing else; llc 23 and fix's
/// output keep every order.
#[test]
fn llvm_litmus_audit_is_the_same_at_o0_and_o2_for_llc_22_and_23() {
    let tests = workspace_root().join(llvm::TESTS);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("litmus_llvm_levels");
    std::fs::create_dir_all(&dir).unwrap();
    for major in [22, 23] {
        let Some(llc) = require(Tool::Llc(major)) else {
            return;
        };
        let target = atomir::LlvmTarget::new(atomir::Triple::Nvptx64, major);
        for test in litmus::load(&tests).unwrap() {
            let (source, how) = llvm::source_of(&tests, &test).unwrap();
            let ir = std::fs::read_to_string(&source).unwrap();
            let (text, _) = llvm::llvm_text(&tests, &test).unwrap();
            let input = dir.join(format!("{}.ll", test.name));
            std::fs::write(&input, &text).unwrap();
            let mut verdicts = Vec::new();
            for level in ["-O0", "-O2"] {
                let output = dir.join(format!("{}-{major}{level}.ptx", test.name));
                let (ok, message) = atomir_tests::tools::run(
                    std::process::Command::new(&llc)
                        .arg(level)
                        .args(target.llc_args())
                        .arg(&input)
                        .arg("-o")
                        .arg(&output),
                );
                assert!(ok, "llc {major} {level} on {}: {message}", test.name);
                let ptx = std::fs::read_to_string(&output).unwrap();
                let report = audit(&ir, &ptx, ReadOptions::default());
                assert_eq!(report.entries.len(), 4, "{}", test.name);
                assert_eq!(report.unmatched(), 0, "{}", report.render("ir", "ptx"));
                let expected = match (test.name.as_str(), how, major) {
                    ("mp_rmw_llc22", llvm::How::Llc22, 22) => 2,
                    _ => 0,
                };
                assert_eq!(
                    report.weakened(),
                    expected,
                    "{} llc {major} {level}:\n{}",
                    test.name,
                    report.render("ir", "ptx")
                );
                verdicts.push(
                    report
                        .entries
                        .into_iter()
                        .map(|e| e.verdict)
                        .collect::<Vec<Verdict>>(),
                );
            }
            assert_eq!(verdicts[0], verdicts[1], "{} llc {major}", test.name);
        }
    }
}
