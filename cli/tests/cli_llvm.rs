//! The commands on LLVM IR: `read`, `check`, `fix` and `audit`, their output and exit codes.

mod common;

use common::{atomir, text_of};

const MODULE: &str = "tests/corpus/llvm/audit_hand_checked.ll";

fn module() -> String {
    format!("{}/../{MODULE}", env!("CARGO_MANIFEST_DIR"))
}

fn tmp(name: &str, text: &str) -> String {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_llvm");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn read_lists_every_atomic_with_its_line() {
    let out = atomir(&["read", &module()], "");
    assert_eq!(out.status.code(), Some(0), "{}", text_of(&out.stderr));
    let text = text_of(&out.stdout);
    assert_eq!(text.lines().count(), 9, "{text}");
    assert!(
        text.contains(
            ":8:3: atomic.exch.release.device.global.b32 [%p1], 1\t// %a = atomicrmw xchg"
        ),
        "{text}"
    );
    assert!(text.contains("fence.seq_cst.block"), "{text}");
}

#[test]
fn an_atomic_that_cannot_be_read_is_an_error_at_its_place_and_the_rest_is_read() {
    let path = tmp(
        "bad.ll",
        "target triple = \"amdgcn-amd-amdhsa\"\ndefine void @f(ptr %p) {\n  %a = atomicrmw add ptr %p, i32 1 syncscope(\"wavefront\") monotonic\n  %b = atomicrmw add ptr %p, i32 1 syncscope(\"agent\") monotonic\n  ret void\n}\n",
    );
    let out = atomir(&["read", &path], "");
    assert_eq!(out.status.code(), Some(1));
    let errors = text_of(&out.stderr);
    assert!(
        errors.starts_with(&format!("{path}:3:")) && errors.contains("wavefront"),
        "{errors}"
    );
    assert!(text_of(&out.stdout).contains("atomic.add.relaxed.device.generic.u32"));
}

#[test]
fn check_gives_the_porting_report() {
    let out = atomir(
        &[
            "check",
            &module(),
            "--target",
            "llvm:nvptx64@14",
            "--target",
            "ptx:sm_90",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text_of(&out.stderr));
    let text = text_of(&out.stdout);
    assert!(
        text.contains("refused") && text.contains("llvm.nvptx-ordered-needs-22"),
        "{text}"
    );
    assert!(text.contains("9 atomics"), "{text}");
    let json = atomir(
        &[
            "check",
            &module(),
            "--target",
            "ptx:sm_90",
            "--format",
            "json",
        ],
        "",
    );
    assert_eq!(json.status.code(), Some(0));
}

#[test]
fn fix_replaces_the_atomics_and_keeps_the_rest() {
    let out = atomir(&["fix", &module(), "--target", "llvm:nvptx64@22"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text_of(&out.stderr));
    let text = text_of(&out.stdout);
    assert!(
        text.contains("fence syncscope(\"device\") release"),
        "{text}"
    );
    assert!(
        text.contains("define ptx_kernel void @hand(") && text.contains("%h = "),
        "{text}"
    );
    let wrong = atomir(&["fix", &module(), "--target", "ptx:sm_90"], "");
    assert_eq!(wrong.status.code(), Some(1));
    let not_ll = atomir(&["fix", "x.atom", "--target", "llvm:nvptx64@22"], "");
    assert_eq!(not_ll.status.code(), Some(2));
}

#[test]
fn audit_exits_1_on_a_weakened_atomic_and_0_when_kept() {
    let ir = tmp(
        "mp.ll",
        "target triple = \"nvptx64-nvidia-cuda\"\ndefine ptx_kernel void @k(ptr addrspace(1) %p) {\n  %a = atomicrmw xchg ptr addrspace(1) %p, i32 1 syncscope(\"device\") release, align 4\n  ret void\n}\n",
    );
    let ptx = |body: &str| {
        format!(".version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n.reg .b32 %r<3>;\n.reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\n{body}\nret;\n}}\n")
    };
    let weak = tmp("weak.ptx", &ptx("atom.global.exch.b32 %r1, [%rd1], 1;"));
    let out = atomir(&["audit", "--ir", &ir, "--ptx", &weak], "");
    assert_eq!(out.status.code(), Some(1));
    let text = text_of(&out.stdout);
    assert!(
        text.contains(":3: WEAKENED: order dropped: release in the IR, relaxed in the PTX"),
        "{text}"
    );
    assert!(text.contains("weak.ptx:9: atom.global.exch.b32"), "{text}");
    let kept = tmp(
        "kept.ptx",
        &ptx("atom.release.gpu.global.exch.b32 %r1, [%rd1], 1;"),
    );
    let out = atomir(&["audit", "--ir", &ir, "--ptx", &kept], "");
    assert_eq!(out.status.code(), Some(0), "{}", text_of(&out.stdout));
    assert!(text_of(&out.stdout).contains("1 atomics: 1 kept"));
    let usage = atomir(&["audit", "--ir", &ir], "");
    assert_eq!(usage.status.code(), Some(2));
}
