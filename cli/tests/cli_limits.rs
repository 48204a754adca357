//! The command line at its limits, with inputs from `tests/regress/cli/`: output that cannot be
//! written is an error, diagnostics of a broken input are capped, and a large valid input is
//! lowered in bounded memory.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::text_of;

fn regress(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/regress/cli")
        .join(name)
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_limits");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The file's kernel with its one instruction line repeated `times` times.
fn repeated(name: &str, times: usize) -> PathBuf {
    let source = std::fs::read_to_string(regress(name)).unwrap();
    let lines: Vec<&str> = source.lines().filter(|l| !l.starts_with('#')).collect();
    let (header, body, close) = (lines[0], lines[1], lines[2]);
    let mut text = String::with_capacity(times * (body.len() + 1) + 100);
    text.push_str(header);
    text.push('\n');
    for _ in 0..times {
        text.push_str(body);
        text.push('\n');
    }
    text.push_str(close);
    text.push('\n');
    let path = scratch(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn lowering_with_standard_output_closed_fails() {
    let output = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" lower \"$1\" --target ptx:sm_90 >&-")
        .arg(env!("CARGO_BIN_EXE_atomir"))
        .arg(regress("stdout_closed.atom"))
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "stdout closed: exit {:?}, stderr `{}` (the output is lost, so the command failed)",
        output.status.code(),
        text_of(&output.stderr)
    );
    assert!(!output.stderr.is_empty());
}

#[test]
fn diagnostics_of_a_broken_input_are_capped() {
    let file = repeated("many_broken_lines.atom", 20_000);
    let output = Command::new(env!("CARGO_BIN_EXE_atomir"))
        .arg("check")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let lines = text_of(&output.stderr).lines().count();
    assert!(
        lines <= 1_000,
        "20,000 broken lines gave {lines} lines of diagnostics; a cap (with a count of the rest) \
         keeps a broken 50 MB file from printing millions"
    );
}

#[test]
fn a_large_valid_input_lowers_in_bounded_memory() {
    let body_bytes = "  atomic.add.relaxed.device.global.u32 [%p], 1\n".len();
    let file = repeated("many_valid_lines.atom", 10_000_000 / body_bytes);
    let output = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 102400 && exec \"$0\" lower \"$1\" --target visa:PVC --module > /dev/null")
        .arg(env!("CARGO_BIN_EXE_atomir"))
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "a 10 MB input needs more than 100 MiB of address space to lower (exit {:?}): {}",
        output.status.code(),
        text_of(&output.stderr)
            .lines()
            .take(3)
            .collect::<Vec<_>>()
            .join("\n")
    );
}
