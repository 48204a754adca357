//! Where the output goes: a closed or broken standard output is an error (exit 1, reported),
//! never a silent success or a panic; a flood of diagnostics is capped with a count of the rest;
//! a large input is read without holding a token per character.

mod common;

use common::{atomir, text_of};

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// A valid module of `kernels` kernels of 1000 atomics each, about 55 bytes a line.
fn large_module(kernels: usize) -> String {
    let mut text = String::new();
    for k in 0..kernels {
        text.push_str(&format!(
            "kernel k{k}(%a: ptr.global, %x: u32, %f: f32, %y: u32) {{\n"
        ));
        for i in 0..1000 {
            match i % 3 {
                0 => text.push_str(&format!(
                    "  %r{i} = atomic.add.relaxed.device.global.u32 [%a], %x\n"
                )),
                1 => text.push_str("  atomic.max.release.device.global.f32 [%a], %f\n"),
                _ => text.push_str("  atomic.cas.seq_cst.system.global.b32 [%a], %x, %y\n"),
            }
        }
        text.push_str("}\n");
    }
    text
}

fn scratch_file(name: &str, contents: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, contents).expect("write a scratch input");
    path
}

#[test]
#[cfg(unix)]
fn closed_stdout_is_an_error() {
    let file = scratch_file("closed-stdout.atom", &large_module(1));
    let run = |redirect: &str| {
        Command::new("sh")
            .arg("-c")
            .arg(format!(
                "exec \"$0\" lower \"$1\" --target ptx:sm_90 {redirect}"
            ))
            .arg(env!("CARGO_BIN_EXE_atomir"))
            .arg(&file)
            .output()
            .expect("run atomir through sh")
    };
    let closed = run(">&-");
    let stderr = text_of(&closed.stderr);
    assert_eq!(closed.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("standard output is closed"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Output thrown away on purpose is not an error.
    let discarded = run(">/dev/null");
    assert_eq!(
        discarded.status.code(),
        Some(0),
        "{}",
        text_of(&discarded.stderr)
    );
}

#[test]
#[cfg(unix)]
fn broken_pipe_is_an_error() {
    // Several megabytes of output: far more than a pipe buffers, so the write is still going on
    // when the reader goes away.
    let file = scratch_file("broken-pipe.atom", &large_module(20));
    let mut child = Command::new(env!("CARGO_BIN_EXE_atomir"))
        .args(["fmt"])
        .arg(&file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run atomir");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut first = [0u8; 1];
    stdout
        .read_exact(&mut first)
        .expect("the first byte arrives");
    drop(stdout);
    let out = child.wait_with_output().expect("atomir finishes");
    let stderr = text_of(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write the output"), "{stderr}");
    assert!(stderr.contains("Broken pipe"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
