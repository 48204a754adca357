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
    // Output thrown away on purpose is not an error, whether `/dev/null` is opened for
    // writing or, as Python's `subprocess.DEVNULL` and `1<>` open it, for reading and writing.
    for redirect in [">/dev/null", "1<>/dev/null"] {
        let discarded = run(redirect);
        let stderr = text_of(&discarded.stderr);
        assert_eq!(discarded.status.code(), Some(0), "{redirect}: {stderr}");
        assert!(stderr.is_empty(), "{redirect}: {stderr}");
    }
}

#[test]
#[cfg(unix)]
fn stdout_on_dev_null_opened_read_write_is_discarded_output() {
    let file = scratch_file("devnull-stdout.atom", &large_module(1));
    let null = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
        .expect("open /dev/null read-write");
    for command in ["lower", "fmt"] {
        let mut args = vec![command, file.to_str().expect("a UTF-8 path")];
        if command == "lower" {
            args.extend(["--target", "ptx:sm_90"]);
        }
        let out = Command::new(env!("CARGO_BIN_EXE_atomir"))
            .args(&args)
            .stdin(Stdio::null())
            .stdout(null.try_clone().expect("duplicate /dev/null"))
            .stderr(Stdio::piped())
            .output()
            .expect("run atomir");
        let stderr = text_of(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{command}: {stderr}");
        assert!(stderr.is_empty(), "{command}: {stderr}");
    }
    // A refusal is still reported with its exit code when the output is discarded.
    let refused = scratch_file(
        "devnull-refused.atom",
        "kernel k(%p: ptr.global, %x: b128) {\n  %o = atomic.exch.relaxed.system.global.b128 [%p], %x\n}\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_atomir"))
        .arg("lower")
        .arg(&refused)
        .args(["--target", "ptx:sm_80"])
        .stdout(null)
        .stderr(Stdio::piped())
        .output()
        .expect("run atomir");
    let stderr = text_of(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("ptx.b128-sys-needs-ptx84"), "{stderr}");
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

/// `lines` copies of a line that fails to parse, inside one kernel.
fn broken_module(lines: usize) -> String {
    let mut text = String::from("kernel k(%a: ptr.global, %x: u32) {\n");
    for _ in 0..lines {
        text.push_str("  atomic.add.relaxed.device.global [%a], %x\n");
    }
    text.push_str("}\n");
    text
}

/// Checks that stderr holds `shown` diagnostics, then the line counting the `more` left out.
fn assert_capped(stderr: &str, shown: usize, more: usize) {
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines.len(),
        shown + 1,
        "{}",
        &stderr[..stderr.len().min(2000)]
    );
    assert!(lines[..shown].iter().all(|line| line.contains(": error: ")));
    let last = lines[shown];
    assert!(
        last.contains(&format!("… and {more} more errors"))
            && last.contains(&format!("only the first {shown} are shown")),
        "{last}"
    );
}

#[test]
fn diagnostics_are_capped_with_a_count_of_the_rest() {
    // Parse errors: one per line.
    let out = atomir(&["check", "-"], &broken_module(5000));
    assert_eq!(out.status.code(), Some(1));
    assert_capped(&text_of(&out.stderr), 100, 4900);
    // Verifier errors: a bitwise op on a float, once per line.
    let mut source = String::from("kernel k(%a: ptr.global, %f: f32) {\n");
    for _ in 0..300 {
        source.push_str("  atomic.and.relaxed.device.global.f32 [%a], %f\n");
    }
    source.push_str("}\n");
    let out = atomir(&["lower", "-", "--target", "ptx:sm_90"], &source);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_capped(&text_of(&out.stderr), 100, 200);
    // At the cap exactly, nothing is left out and no summary is printed.
    let out = atomir(&["check", "-"], &broken_module(100));
    assert_eq!(text_of(&out.stderr).lines().count(), 100);
}

/// Peak resident memory in bytes of `atomir ARGS`, from the kernel's accounting of that child.
#[cfg(target_os = "linux")]
// The child is reaped by `wait4` below, which std's `wait` cannot do with resource usage.
#[allow(clippy::zombie_processes)]
fn peak_memory(args: &[&std::ffi::OsStr]) -> (Option<i32>, u64) {
    let child = Command::new(env!("CARGO_BIN_EXE_atomir"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run atomir");
    let mut status = 0;
    // SAFETY: plain-old-data out-parameters; `wait4` reaps exactly this child, which std's
    // `Child` (dropped without waiting) will not touch again.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as libc::pid_t, "wait4 reaps atomir");
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    // Linux reports ru_maxrss in kilobytes.
    (code, usage.ru_maxrss as u64 * 1024)
}

#[test]
#[cfg(target_os = "linux")]
fn a_large_input_is_not_held_as_tokens() {
    // About 10 MB of valid text. A token per lexeme for the whole file took about 8 times the
    // input; streaming tokens leaves the text, the module and little else.
    let source = large_module(200);
    let file = scratch_file("large-valid.atom", &source);
    let (code, peak) = peak_memory(&["check".as_ref(), file.as_os_str()]);
    assert_eq!(code, Some(0));
    let bound = 16 * 1024 * 1024 + source.len() as u64 * 5 / 2;
    assert!(
        peak < bound,
        "`atomir check` on {} bytes peaked at {peak} bytes (bound {bound})",
        source.len()
    );
}
