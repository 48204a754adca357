//! The command line's contract that holds whatever the backends decide: exit code 2 and the
//! target list for a usage error, help per subcommand, exit code 1 for unreadable input.

mod common;

use common::{atomir, text_of};

fn assert_usage_error(args: &[&str], says: &str) {
    let out = atomir(args, "");
    let stderr = text_of(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(
        stderr.contains(says),
        "{args:?} should say `{says}`:\n{stderr}"
    );
    assert!(stderr.contains("Usage:"), "{args:?}: no usage:\n{stderr}");
    assert!(
        stderr.contains(atomir::ptx::targets_help().lines().next().unwrap_or("ptx")),
        "{stderr}"
    );
    assert!(
        out.stdout.is_empty(),
        "{args:?}: a usage error prints nothing on stdout"
    );
}

#[test]
fn usage_errors_exit_2_with_the_target_list() {
    assert_usage_error(&[], "no command given");
    assert_usage_error(&["frobnicate"], "unknown command `frobnicate`");
    assert_usage_error(
        &["lower", "x.atom", "--target", "spirv:1.5"],
        "unknown backend `spirv`",
    );
    assert_usage_error(
        &["lower", "x.atom", "--target", "sm_90"],
        "not a target name",
    );
    assert_usage_error(&["lower", "x.atom"], "needs --target");
    assert_usage_error(&["lower", "x.atom", "--target"], "`--target` needs a value");
    assert_usage_error(&["check"], "needs a FILE");
    assert_usage_error(&["check", "a.atom", "b.atom"], "takes one FILE");
    assert_usage_error(&["check", "a.atom", "--bogus"], "unknown option `--bogus`");
    assert_usage_error(&["matrix"], "needs at least one --target");
    assert_usage_error(
        &["matrix", "--target", "ptx:sm_90", "--format", "pdf"],
        "unknown format `pdf`",
    );
    assert_usage_error(
        &["matrix", "--target", "ptx:sm_90", "--filter", "op=adds"],
        "unknown op `adds`",
    );
    assert_usage_error(
        &["diff", "x.atom", "--target", "ptx:sm_90"],
        "exactly two --target",
    );
}

#[test]
fn help_per_subcommand_lists_every_backend() {
    for command in ["check", "fmt", "lower", "matrix", "diff"] {
        for args in [vec![command, "--help"], vec!["help", command]] {
            let out = atomir(&args, "");
            let stdout = text_of(&out.stdout);
            assert_eq!(out.status.code(), Some(0), "{args:?}");
            assert!(
                stdout.contains(&format!("atomir {command}")),
                "{args:?}:\n{stdout}"
            );
            for help in [
                &atomir::ptx::targets_help(),
                atomir::visa::TARGETS_HELP,
                &atomir::llvm::targets_help(),
            ] {
                for line in help.lines().filter(|l| !l.trim().is_empty()) {
                    assert!(
                        stdout.contains(line.trim()),
                        "{args:?} lacks `{line}`:\n{stdout}"
                    );
                }
            }
        }
    }
    let out = atomir(&["--help"], "");
    assert_eq!(out.status.code(), Some(0));
    assert!(text_of(&out.stdout).contains("Exit codes"));
}

#[test]
fn unreadable_input_exits_1_naming_the_file() {
    let out = atomir(&["check", "/nonexistent/k.atom"], "");
    assert_eq!(out.status.code(), Some(1));
    let stderr = text_of(&out.stderr);
    assert!(
        stderr.starts_with("/nonexistent/k.atom: error: cannot read"),
        "{stderr}"
    );
}
