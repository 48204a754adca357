//! Retargeting nvcc's PTX: the corpus's sm_90 modules (`tests/ptx-corpus/nvcc/sm_90`) lowered
//! for ptx:sm_60, sm_70 and sm_80 as `atomir lower app.ptx --target ptx:…` does are the
//! checked-in `tests/ptx-corpus/retarget/` files (what `tests/gpu/retarget.py` runs on a GPU
//! against the original), ptxas assembles each (12.9 for sm_60/70, 13.5 for sm_80), and each
//! reads back without an error, with as many atomics as it replaced.

use atomir::{PtxTarget, Target};
use atomir_tests::{require, Tool};

#[test]
fn nvcc_sm90_code_retargets_to_sm60_70_80_and_assembles() {
    let root = atomir_tests::tools::workspace_root().join("tests/ptx-corpus");
    let source_dir = root.join("nvcc/sm_90");
    let mut names: Vec<_> = std::fs::read_dir(&source_dir)
        .expect("the corpus")
        .map(|entry| entry.expect("an entry").file_name())
        .collect();
    names.sort();
    let mut assembled = 0;
    for (sm, tool) in [
        ("sm_60", Tool::Ptxas12),
        ("sm_70", Tool::Ptxas12),
        ("sm_80", Tool::Ptxas13),
    ] {
        let Some(ptxas) = require(tool) else { return };
        let Ok(Target::Ptx(asked)) = format!("ptx:{sm}").parse::<Target>() else {
            panic!("ptx:{sm} is a PTX target");
        };
        for name in &names {
            let source = std::fs::read_to_string(source_dir.join(name)).expect("nvcc's PTX");
            let module = atomir::read_ptx(&source);
            assert!(module.errors.is_empty(), "{name:?}: {:?}", module.errors);
            let header = atomir_cli::ptx::header(asked, false, module.version);
            let file = name.to_string_lossy();
            let retargeted = atomir_cli::ptx::retarget(&file, &source, &module, &header)
                .unwrap_or_else(|errors| panic!("{file} for {sm}: {errors:#?}"));
            let kept = std::fs::read_to_string(root.join("retarget").join(sm).join(name))
                .expect("the checked-in retargeted module");
            assert!(retargeted == kept, "{file} for {sm}: differs from tests/ptx-corpus/retarget (run scripts/ptx-corpus --atomir)");
            let again = atomir::read_ptx(&retargeted);
            assert!(
                again.errors.is_empty(),
                "{file} for {sm}: {:?}",
                again.errors
            );
            assert!(
                again.atomics.len() >= module.atomics.len(),
                "{file} for {sm}: atomics lost"
            );
            let _: PtxTarget = header.target;
            let path = std::env::temp_dir().join(format!(
                "atomir-retarget-{}-{sm}-{file}",
                std::process::id()
            ));
            std::fs::write(&path, &retargeted).expect("a scratch file");
            let (ok, output) = atomir_tests::tools::run(
                std::process::Command::new(&ptxas)
                    .arg(format!("-arch={sm}"))
                    .arg(&path)
                    .args(["-o", "/dev/null"]),
            );
            let _ = std::fs::remove_file(&path);
            assert!(
                ok,
                "ptxas -arch={sm} refuses the retargeted {file}:\n{output}"
            );
            assembled += 1;
        }
    }
    assert_eq!(assembled, 3 * names.len());
}
