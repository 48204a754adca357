//! `atomir` on `.ptx` files: `read`, `check` with targets in every format, `lower` for PTX
//! (a retargeted module that reads back) and for LLVM (fragments), and bad input.

use std::path::PathBuf;
use std::process::{Command, Output};

fn atomir(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_atomir"))
        .args(args)
        .output()
        .expect("atomir runs")
}

fn corpus(name: &str) -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/ptx-corpus/nvcc/sm_90");
    root.join(name).to_string_lossy().into_owned()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn read_lists_every_atomic_with_its_line() {
    let file = corpus("shared.ptx");
    let output = atomir(&["read", &file]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    let source = std::fs::read_to_string(&file).unwrap();
    let read = atomir::read_ptx(&source);
    assert_eq!(stdout.lines().count(), read.atomics.len());
    for (line, atomic) in stdout.lines().zip(&read.atomics) {
        assert!(
            line.starts_with(&format!("{file}:{}:{}: ", atomic.line, atomic.col)),
            "{line}"
        );
        assert!(line.contains("atomic.") && line.contains("\t// "), "{line}");
    }
}

#[test]
fn check_reports_per_target_in_every_format() {
    let file = corpus("shared.ptx");
    let targets = [
        "--target",
        "visa:PVC",
        "--target",
        "llvm:amdgcn",
        "--target",
        "llvm:spirv64",
    ];
    let run = |format: &str| {
        let mut args = vec!["check", file.as_str(), "--format", format];
        args.extend(targets);
        let output = atomir(&args);
        assert!(
            output.status.success(),
            "{format}: {}",
            text(&output.stderr)
        );
        text(&output.stdout)
    };
    let json: serde_json::Value = serde_json::from_str(&run("json")).expect("JSON");
    let atomics = json["atomics"].as_u64().unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len() as u64, atomics);
    for total in json["totals"].as_array().unwrap() {
        let sum: u64 = ["native", "emulated", "refused"]
            .iter()
            .map(|k| total[k].as_u64().unwrap())
            .sum();
        assert_eq!(sum, atomics, "{total}");
    }
    let plain = run("text");
    assert!(plain.contains(&format!("{atomics} atomics")));
    assert!(
        plain.contains("visa:PVC: ") && plain.contains("refused"),
        "{plain}"
    );
    let markdown = run("markdown");
    assert!(markdown.contains("| target | native | emulated | refused |"));
    let html = run("html");
    let totals = html.find("<th>refused</th>").unwrap();
    let refused = html.find(">Refused<").unwrap();
    let native = html.find(">Native<").unwrap();
    assert!(
        totals < refused && refused < native,
        "the page opens on totals, then refusals"
    );
}

#[test]
fn lower_retargets_for_ptx_and_splices_for_llvm() {
    let file = corpus("atomic_functions.ptx");
    let output = atomir(&["lower", &file, "--target", "ptx:sm_70"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let module = text(&output.stdout);
    assert!(module.contains(".target sm_70") && module.contains(".version 8.8"));
    let read = atomir::read_ptx(&module);
    assert!(read.errors.is_empty(), "{:?}", read.errors);
    let output = atomir(&["lower", &file, "--target", "llvm:amdgcn"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let fragments = text(&output.stdout);
    assert!(fragments.contains("atomicrmw") && fragments.contains("; atomir: "));
}

#[test]
fn bad_ptx_is_an_error_with_its_place() {
    let dir = std::env::temp_dir().join(format!("atomir-cli-ptx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.ptx");
    std::fs::write(
        &file,
        ".version 8.8\n.target sm_90\n.visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n\tatom.global.add.s64 %rd1, [%rd0], %rd1;\n\tatom.global.add.u32 %r1, [%rd0], %r2;\n\tret;\n}\n",
    )
    .unwrap();
    let path = file.to_string_lossy().into_owned();
    let output = atomir(&["read", &path]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(&format!("{path}:7:2: error: PTX has no `atom.add.s64`")),
        "{stderr}"
    );
    assert_eq!(
        text(&output.stdout).lines().count(),
        1,
        "the rest is still read"
    );
    let output = atomir(&["lower", &path, "--target", "ptx:sm_70"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}
