//! A self-test of the GPU differential of random kernels, on a machine without a GPU: the
//! modules and inputs are generated (every module assembled by ptxas), `harness.py kernels` runs
//! against a stand-in for CuPy (`tests/gpu/mock/`) that returns what the reference semantics
//! give and faults where the address check predicts, and the check must accept exactly that; a
//! changed byte and a missing result must be caught.

use std::path::PathBuf;
use std::process::Command;

use atomir_tests::gpu_kernels::{check_results, generate, simulate};
use atomir_tests::tools::{require, run, workspace_root, Tool};
use serde_json::Value as Json;

#[test]
fn harness_and_check_agree_on_simulated_runs() {
    let tools = [Tool::Ptxas12, Tool::Ptxas13, Tool::Llc(22)];
    if tools.iter().any(|t| require(*t).is_none()) {
        return;
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gpu_kernels_selftest");
    let _ = std::fs::remove_dir_all(&dir);
    let lines = generate(&dir, 12, 0x5E1F_7E57).unwrap();
    for line in &lines {
        println!("{line}");
    }
    assert_eq!(lines.len(), 11);

    let simulated = simulate(&dir).unwrap();
    let sim_path = dir.join("simulated.json");
    std::fs::write(&sim_path, simulated.to_string()).unwrap();
    let spec: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.join("kernels.json")).unwrap()).unwrap();
    let faults: Vec<&str> = spec["targets"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["cases"].as_array().unwrap())
        .filter(|c| c["expect_fault"] == true)
        .map(|c| c["case"].as_str().unwrap())
        .collect();
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let root = workspace_root();
    let (ok, message) = run(Command::new("python3")
        .arg(root.join("tests/gpu/harness.py"))
        .arg("kernels")
        .arg(&dir)
        .arg(&out)
        .env("PYTHONPATH", root.join("tests/gpu/mock"))
        .env("ATOMIR_MOCK_RESULTS", &sim_path)
        .env("ATOMIR_MOCK_FAULTS", faults.join(",")));
    assert!(ok, "harness: {message}");
    println!("{message}");
    let results: Json =
        serde_json::from_str(&std::fs::read_to_string(out.join("kernels-results.json")).unwrap())
            .unwrap();
    let report = check_results(&dir, &results).unwrap();
    println!("{}", report.text);
    assert_eq!(report.failures, 0, "{}", report.text);
    if !faults.is_empty() {
        assert!(report
            .text
            .contains("faulted as the address check predicts"));
    }

    // A changed global region must be found, named by its case: every byte is inverted, and the
    // IR defines most of them.
    let mut changed = simulated.clone();
    let case = &mut changed["targets"][6]["cases"][0];
    let name = case["case"].as_str().unwrap().to_string();
    let inverted: String = case["global"]
        .as_str()
        .unwrap()
        .as_bytes()
        .chunks(2)
        .map(|pair| {
            let byte = u8::from_str_radix(std::str::from_utf8(pair).unwrap(), 16).unwrap();
            format!("{:02x}", !byte)
        })
        .collect();
    case["global"] = Json::from(inverted);
    let report = check_results(&dir, &changed).unwrap();
    assert_eq!(report.failures, 1, "{}", report.text);
    assert!(
        report.text.contains(&format!("ptx:sm_90 {name}")),
        "{}",
        report.text
    );

    // A missing result is a failure.
    let mut missing = simulated;
    missing["targets"][0]["cases"].as_array_mut().unwrap().pop();
    let report = check_results(&dir, &missing).unwrap();
    assert_eq!(report.failures, 1, "{}", report.text);
    assert!(report.text.contains("no result"));
}

/// The bits of a PTX scalar type (`b64`, `u32`, `f16x2`).
fn ptx_width(ty: &str) -> usize {
    let digits: String = ty
        .chars()
        .skip(1)
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse::<usize>().expect("a PTX type") * if ty.ends_with("x2") { 2 } else { 1 }
}

/// The wrapper stores every argument at the width of the slot it declares for it, whatever the
/// digits in the kernel's and parameters' names (`case316`, `_param_16`, `_param_32` once made
/// 64-bit and 32-bit arguments travel as 16 bits).
#[test]
fn ptx_wrapper_stores_every_argument_at_its_width() {
    use atomir_tests::cases::{bind, lower_cases, ptx_functions, ptx_wrapper};
    let path = workspace_root().join("tests/regress/ptx_wrapper_parameter_names_with_digits.atom");
    let module = atomir_ir::text::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let kernel = module.kernels.into_iter().next().unwrap();
    assert_eq!(kernel.name, "case316");
    let case = bind(kernel, 316, "regress".to_string());
    for sm in ["sm_60", "sm_90"] {
        let backend = atomir_ptx::PtxTarget::parse(sm).unwrap();
        let code = lower_cases(&backend, std::slice::from_ref(&case)).unwrap();
        let mut wrapper = ptx_functions(&code);
        ptx_wrapper(&case, &code, 316, &mut wrapper).unwrap();
        let mut checked = 0;
        for line in wrapper.lines().map(str::trim) {
            let Some(decl) = line.strip_prefix(".param .") else {
                continue;
            };
            let decl = decl.trim_end_matches(';');
            let Some(slot) = decl
                .rsplit(' ')
                .next()
                .filter(|s| s.starts_with("atomir_case_w") && s.contains("_p"))
            else {
                continue;
            };
            let (slot, bytes) = match slot.split_once('[') {
                Some((name, size)) => (name, size.trim_end_matches(']').parse::<usize>().unwrap()),
                None => (slot, ptx_width(decl.split(' ').next().unwrap()) / 8),
            };
            let stored: usize = wrapper
                .lines()
                .map(str::trim)
                .filter(|l| l.starts_with("st.param.") && l.contains(&format!("[{slot}")))
                .filter(|l| {
                    let rest = &l[l.find(&format!("[{slot}")).unwrap() + slot.len() + 1..];
                    rest.starts_with(']') || rest.starts_with('+')
                })
                .map(|l| ptx_width(&l["st.param.".len()..l.find(' ').unwrap()]) / 8)
                .sum();
            assert_eq!(
                stored, bytes,
                "{sm}: slot {slot} ({decl}) gets {stored} bytes"
            );
            checked += 1;
        }
        assert_eq!(
            checked,
            case.kernel.params.len() + 4,
            "{sm}: every slot checked"
        );
    }
}
