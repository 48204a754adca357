//! A self-test of the litmus plumbing on a machine without a GPU: the tests are lowered and
//! assembled (ptxas), `harness.py litmus` runs against the stand-in for CuPy
//! (`tests/gpu/mock/`), which counts every instance as the outcome of running the threads one
//! after the other. That shows no weak outcome, so the check must pass every forbidden test,
//! report every allowed one as without teeth (an error in strict mode), and fail a run in which a
//! forbidden outcome is counted. Nothing here observes a weak outcome: that takes a GPU.

use std::path::PathBuf;
use std::process::Command;

use atomir_tests::litmus::{self, key, Model};
use atomir_tests::tools::{require, run, workspace_root, Tool};
use serde_json::Value as Json;

#[test]
fn harness_and_check_agree_on_a_sequential_stand_in() {
    if require(Tool::Ptxas13).is_none() {
        return;
    }
    let root = workspace_root();
    let tests = root.join("tests/gpu/litmus");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gpu_litmus_selftest");
    let _ = std::fs::remove_dir_all(&dir);
    let lines = litmus::generate(&tests, &dir).unwrap();
    let loaded = litmus::load(&tests).unwrap();
    assert_eq!(lines.len(), loaded.len());
    for kind in ["mp_", "sb_", "lb_", "2plus2w_", "iriw_"] {
        for model in [Model::Forbidden, Model::Allowed] {
            assert!(
                loaded
                    .iter()
                    .any(|t| t.name.starts_with(kind) && t.model == model),
                "{kind} has a {model:?} variant"
            );
        }
    }

    let simulated = litmus::simulate(&tests, 1000).unwrap();
    let sim_path = dir.join("simulated.json");
    std::fs::write(&sim_path, simulated.to_string()).unwrap();
    let out = dir.join("out");
    let (ok, message) = run(Command::new("python3")
        .arg(root.join("tests/gpu/harness.py"))
        .arg("litmus")
        .arg(&dir)
        .arg(&out)
        .arg("0.5")
        .env("PYTHONPATH", root.join("tests/gpu/mock"))
        .env("ATOMIR_MOCK_LITMUS", &sim_path));
    assert!(ok, "harness: {message}");
    let text = std::fs::read_to_string(out.join("litmus-results.json")).unwrap();
    let mut results: Json = serde_json::from_str(&text).unwrap();
    let report = litmus::check(&dir, &tests, &results).unwrap();
    println!("{}", report.text);
    let allowed = loaded.iter().filter(|t| t.model == Model::Allowed).count();
    assert_eq!(report.failures, 0, "{}", report.text);
    assert_eq!(report.toothless, allowed, "{}", report.text);

    // A forbidden outcome counted once, on one SM: the run fails.
    let forbidden = loaded
        .iter()
        .find(|t| t.name == "mp_release_acquire_device")
        .unwrap();
    let entry = results["tests"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|t| t["name"] == "mp_release_acquire_device")
        .unwrap();
    entry["histogram"][key(&forbidden.weak)] = 1.into();
    let report = litmus::check(&dir, &tests, &results).unwrap();
    assert_eq!(report.failures, 1, "{}", report.text);
    assert!(
        report.text.contains("FAIL: forbidden outcome observed"),
        "{}",
        report.text
    );

    // A missing test fails too.
    results["tests"].as_array_mut().unwrap().pop();
    let report = litmus::check(&dir, &tests, &results).unwrap();
    assert_eq!(report.failures, 2, "{}", report.text);
}

/// The sequential run of every test gives a non-weak outcome, and a bad header is an error with
/// the file and line.
#[test]
fn sequential_outcomes_are_never_weak_and_headers_are_checked() {
    let tests = workspace_root().join("tests/gpu/litmus");
    for test in litmus::load(&tests).unwrap() {
        assert_ne!(
            litmus::sequential_outcome(&test),
            test.weak,
            "{}",
            test.name
        );
    }
    let source = "# litmus bad\n# threads t0 t1\n# outcome t1.z\n# weak t1.z=0\n# model allowed\n\
                  kernel t0(%x: ptr.global) {\n  atomic.store.relaxed.device.global.u32 [%x], 1\n}\n\
                  kernel t1(%x: ptr.global) {\n  %r = atomic.load.relaxed.device.global.u32 [%x]\n}\n";
    let error = litmus::parse("bad.atom", source).unwrap_err();
    assert!(error.starts_with("bad.atom:3:"), "{error}");
}
