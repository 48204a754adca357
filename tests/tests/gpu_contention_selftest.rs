//! A self-test of the contention plumbing (`gpu_cases gen | simulate | check`, see
//! `tests/gpu/README.md`) on a machine without a GPU: the cases are generated, a sequential run
//! is simulated from the reference semantics, and the checker must accept it and reject the
//! same run with one old value changed. `gen` itself refuses a case whose parameters do not
//! match its kernel's signature (the harness passes them by position, so a surplus one would
//! shift the output pointer).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value as Json;

fn gpu_cases(args: &[&Path]) -> (bool, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_gpu_cases"))
        .args(args)
        .output()
        .expect("gpu_cases runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

#[test]
fn generated_cases_pass_a_simulated_run_and_fail_a_corrupted_one() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gpu_contention_selftest");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (ok, text) = gpu_cases(&[Path::new("gen"), &dir, Path::new("sm_70")]);
    assert!(ok, "gen: {text}");

    let results = dir.join("results_sm_70.json");
    let (ok, text) = gpu_cases(&[Path::new("simulate"), &dir, Path::new("sm_70"), &results]);
    assert!(ok, "simulate: {text}");
    let (ok, text) = gpu_cases(&[Path::new("check"), &dir, &results]);
    assert!(ok, "check of the simulated run: {text}");
    assert!(text.contains(" 0 failed"), "{text}");

    // Change the first old value of the first case whose result is used: the check must fail.
    let mut run: Json = serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    let corrupted = run["cases"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find_map(|case| {
            let old = case["results"].get_mut(0)?;
            let hex = old.as_str()?.to_string();
            let flipped = if hex.starts_with('f') { '0' } else { 'f' };
            *old = Json::String(format!("{flipped}{}", &hex[1..]));
            case["kernel"].as_str().map(str::to_string)
        })
        .expect("a case with a used result");
    std::fs::write(&results, run.to_string()).unwrap();
    let (ok, text) = gpu_cases(&[Path::new("check"), &dir, &results]);
    assert!(
        !ok,
        "the check accepted a changed old value of {corrupted}: {text}"
    );
    assert!(text.contains(&corrupted), "{text}");
}
