//! The `.ll` reader, `fix` and `audit` on modules no test of ours printed
//! (`tests/corpus/llvm/`, written by `scripts/llvm-corpus`): modules made from the patterns of
//! LLVM's NVPTX and AMDGPU atomics tests, each atomic after the `; expect:` line that says how
//! it reads, and clang 22's `-emit-llvm` output of the CUDA, HIP and OpenCL sources of
//! `tests/corpus/src/`.
//!
//! - every atomic is found (against a count of our own, by words, not by the reader's lexer)
//!   and read as expected;
//! - the checked-in corpus is what the script makes (the clang part where clang-22 is here);
//! - `fix` of every module is accepted by its LLVM version's llvm-as, opt's verifier and llc;
//! - `audit` of llc 22's PTX reports weakened atomics, of llc 23's and of `fix`'s none.

use std::path::{Path, PathBuf};
use std::process::Command;

use atomir::audit::{audit, Report, Verdict, Weakening};
use atomir::fix::fix_module;
use atomir::llvm::read::{read, LlAtomic, ReadOptions};
use atomir::llvm::spelling;
use atomir::{LlvmTarget, Target};
use atomir_tests::llvm::{check_file, Codegen, LlvmTools};
use atomir_tests::tools::{require, workspace_root, Tool};

fn corpus_dir() -> PathBuf {
    workspace_root().join("tests/corpus/llvm")
}

fn corpus_files(sub: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir().join(sub))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ll"))
        .collect();
    files.sort();
    files
}

fn tmp(tag: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("llvm_corpus")
        .join(tag);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Atomic instructions counted by words: after an optional `%name =`, `atomicrmw`, `cmpxchg`,
/// `fence`, or `load`/`store` followed by `atomic`.
fn count_by_words(text: &str) -> usize {
    text.lines()
        .filter(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let words = match words.as_slice() {
                [name, "=", rest @ ..] if name.starts_with('%') => rest,
                rest => rest,
            };
            matches!(
                words,
                ["atomicrmw" | "cmpxchg" | "fence", ..] | ["load" | "store", "atomic", ..]
            )
        })
        .count()
}

/// How the corpus's `; expect:` lines spell a read atomic.
fn describe(atomic: &LlAtomic) -> String {
    if let Some(fence) = atomic.fence() {
        let one_as = if atomic.scope.one_address_space {
            "+one-as"
        } else {
            ""
        };
        return format!("fence.{}.{}{one_as}", fence.order, fence.scope);
    }
    let node = atomic.node().unwrap();
    let access = atomic.access.as_ref().unwrap();
    let shape = if node.shape.is_vector() {
        format!(".{}", node.shape)
    } else {
        String::new()
    };
    let laxity = node
        .laxity
        .map_or(String::new(), |laxity| format!(".{laxity}"));
    let mut text = format!(
        "{}.{}.{}.{}{shape}.{}{laxity}",
        node.op, node.order, node.scope, node.space, node.ty
    );
    let flags = [
        (atomic.scope.one_address_space, "+one-as"),
        (access.whole_vector, "+whole"),
        (access.weak, "+weak"),
        (access.volatile, "+volatile"),
        (access.metadata.no_fine_grained_memory, "+no-fine-grained"),
        (access.metadata.no_remote_memory, "+no-remote"),
        (access.metadata.ignore_denormal_mode, "+ignore-denormal"),
    ];
    for (set, flag) in flags {
        if set {
            text.push_str(flag);
        }
    }
    text
}

#[test]
fn every_atomic_of_the_corpus_is_found_and_read_as_expected() {
    let mut total = 0;
    for file in corpus_files("patterns")
        .into_iter()
        .chain(corpus_files("clang"))
    {
        let text = std::fs::read_to_string(&file).unwrap();
        let reading = read(&text, &ReadOptions::default());
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let found = reading.module.atomics.len() + reading.diagnostics.len();
        assert_eq!(found, count_by_words(&text), "{name}: atomics found");
        assert!(found > 0, "{name}");
        total += found;
        let lines: Vec<&str> = text.lines().collect();
        let expectation = |line: u32| {
            lines[line as usize - 2]
                .trim()
                .strip_prefix("; expect: ")
                .map(str::to_string)
        };
        for atomic in &reading.module.atomics {
            let line_text = lines[atomic.loc.line as usize - 1];
            match expectation(atomic.loc.line) {
                Some(expected) => {
                    assert_eq!(describe(atomic), expected, "{name}:{}", atomic.loc.line)
                }
                None => check_by_words(&name, line_text, atomic, reading.module.triple.unwrap()),
            }
        }
        for diagnostic in &reading.diagnostics {
            let expected = expectation(diagnostic.loc.line).unwrap_or_default();
            let words = expected
                .strip_prefix("error ")
                .unwrap_or("<no error expected>");
            assert!(
                diagnostic.message.contains(words),
                "{name}: {diagnostic} (expected {expected})"
            );
        }
    }
    println!("{total} atomics of the LLVM corpus found and read");
}

/// An atomic of clang's output, checked against its line's own words: its ordering names,
/// sync scope and address space are there as LLVM spells them.
fn check_by_words(name: &str, line: &str, atomic: &LlAtomic, triple: atomir::Triple) {
    let at = format!("{name}:{}: {line}", atomic.loc.line);
    assert!(
        line.contains(&format!(" {}", spelling::ordering_name(atomic.order))),
        "{at}"
    );
    let scope = spelling::syncscope_name(triple, atomic.scope.scope);
    if scope.is_empty() && !atomic.scope.one_address_space {
        assert!(
            !line.contains("syncscope") || line.contains("all_svm_devices"),
            "{at}"
        );
    } else {
        assert!(line.contains(&format!("syncscope(\"{scope}")), "{at}");
    }
    if let Some(access) = &atomic.access {
        let number = spelling::address_space_number(triple, access.space).unwrap();
        if number == 0 {
            assert!(!line.contains("addrspace("), "{at}");
        } else {
            assert!(line.contains(&format!("addrspace({number})")), "{at}");
        }
    }
}

#[test]
fn the_corpus_is_what_its_script_makes() {
    let out = tmp("regenerated");
    let clang = require(Tool::Clang22);
    let mut command = Command::new("python3");
    command
        .arg(workspace_root().join("scripts/llvm-corpus"))
        .arg("--out")
        .arg(&out);
    command
        .arg("--clang")
        .arg(clang.as_deref().unwrap_or(Path::new("")));
    let status = command.status().expect("python3 runs scripts/llvm-corpus");
    assert!(status.success());
    let mut subs = vec!["patterns"];
    if clang.is_some() {
        subs.push("clang");
    }
    for sub in subs {
        for file in corpus_files(sub) {
            let fresh = out.join(sub).join(file.file_name().unwrap());
            assert_eq!(
                std::fs::read_to_string(&fresh).unwrap(),
                std::fs::read_to_string(&file).unwrap(),
                "{} differs from what scripts/llvm-corpus makes now",
                file.display()
            );
        }
    }
}

/// The corpus modules and the LLVM target each is fixed for.
fn fixes() -> Vec<(&'static str, &'static str)> {
    vec![
        ("patterns/nvptx64.ll", "nvptx64@22"),
        ("patterns/nvptx64.ll", "nvptx64@23"),
        ("patterns/nvptx64-llvm23.ll", "nvptx64@23"),
        ("patterns/nvptx64-typed-pointers.ll", "nvptx64@14"),
        ("patterns/amdgcn.ll", "amdgcn@22"),
        ("clang/cuda_atomics.nvptx64.ll", "nvptx64@22"),
        ("clang/hip_atomics.amdgcn.ll", "amdgcn@22"),
        ("clang/opencl_atomics.amdgcn.ll", "amdgcn@22"),
        ("clang/opencl_atomics.spirv64.ll", "spirv64@22"),
    ]
}

fn fixed(file: &str, spec: &str) -> (LlvmTarget, atomir::fix::Fixed, usize) {
    let text = std::fs::read_to_string(corpus_dir().join(file)).unwrap();
    let target: Target = format!("llvm:{spec}").parse().unwrap();
    let Target::Llvm(llvm) = target else {
        unreachable!()
    };
    let fixed = fix_module(&text, &target, ReadOptions::default()).unwrap();
    (llvm, fixed, count_by_words(&text))
}

#[test]
fn every_fixed_module_is_accepted_by_its_llc() {
    for (file, spec) in fixes() {
        let (target, fixed, atomics) = fixed(file, spec);
        // What stays as it was is what the reader cannot read (the expected errors), what fix
        // does not replace (volatile and whole-vector atomics) and what the target refuses (a
        // seq_cst RMW at LLVM 14, whose NVPTX backend drops every order).
        for diagnostic in &fixed.diagnostics {
            let message = &diagnostic.message;
            assert!(
                message.contains("no atomir")
                    || message.contains("volatile")
                    || message.contains("whole vector")
                    || message.contains(&format!("{} refuses it", Target::Llvm(target))),
                "{file} for {spec}: {diagnostic}"
            );
        }
        assert!(fixed.replaced > 0, "{file} for {spec}: nothing replaced");
        assert_eq!(
            fixed.replaced + fixed.diagnostics.len(),
            atomics,
            "{file} for {spec}"
        );
        let Some(tools) = LlvmTools::require(target.major) else {
            continue;
        };
        let tools = tools.with_spirv_val(&target);
        let dir = tmp(&format!("fix-{}", spec.replace('@', "-")));
        let path = dir.join(Path::new(file).file_name().unwrap());
        std::fs::write(&path, &fixed.text).unwrap();
        if let Err(error) = check_file(
            &tools,
            &target,
            &path,
            &path.with_extension("out"),
            Codegen::Fast,
        ) {
            panic!("{file} fixed for {spec}: {error}");
        }
    }
}

/// How hard llc works on a module whose PTX is audited: `-O0` keeps the blocks in the IR's
/// order; `-O2` lays them out anew (a CAS loop's blocks, the arms of a branch), which the audit
/// follows by the PTX's branches. AtomicExpand and instruction selection, where orders are
/// dropped, run at every level.
const LEVELS: [&str; 2] = ["-O0", "-O2"];

/// llc `major`'s PTX of `text` (sm_90, at `level`), or `None` where that llc is missing.
fn ptx_of(text: &str, major: u32, level: &str, tag: &str) -> Option<String> {
    let llc = require(Tool::Llc(major))?;
    let target = LlvmTarget::new(atomir::Triple::Nvptx64, major);
    let dir = tmp("audit");
    let input = dir.join(format!("{tag}.ll"));
    let output = dir.join(format!("{tag}-{major}{level}.ptx"));
    std::fs::write(&input, text).unwrap();
    let (ok, message) = atomir_tests::tools::run(
        Command::new(llc)
            .arg(level)
            .args(target.llc_args())
            .arg(&input)
            .arg("-o")
            .arg(&output),
    );
    assert!(ok, "llc {major} {level} on {tag}: {message}");
    Some(std::fs::read_to_string(output).unwrap())
}

fn summary(report: &Report) -> String {
    let lines: Vec<String> = report
        .entries
        .iter()
        .filter(|e| matches!(e.verdict, Verdict::Weakened(_) | Verdict::Unmatched(_)))
        .take(8)
        .map(|e| format!("{}: {:?}", e.ir.text, e.verdict))
        .collect();
    lines.join("\n")
}

#[test]
fn audit_reports_what_llc_22_weakens_and_nothing_in_llc_23_or_fix() {
    for level in LEVELS {
        for file in ["patterns/nvptx64.ll", "clang/cuda_atomics.nvptx64.ll"] {
            if !audit_one_module(file, level) {
                return;
            }
        }
    }
}

/// The audit of `file` on llc 22's and 23's PTX at `level`, and on llc 22's of fix's output;
/// false where llc 22 is missing.
fn audit_one_module(file: &str, level: &str) -> bool {
    let text = std::fs::read_to_string(corpus_dir().join(file)).unwrap();
    let tag = Path::new(file)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let Some(ptx22) = ptx_of(&text, 22, level, &tag) else {
        return false;
    };
    let report = audit(&text, &ptx22, ReadOptions::default());
    println!(
        "{file}, llc 22 {level}: {} atomics, {} weakened, {} unmatched",
        report.entries.len(),
        report.weakened(),
        report.unmatched()
    );
    assert!(report.weakened() > 0, "{file}: llc 22 weakens nothing?");
    assert_eq!(
        report.unmatched(),
        0,
        "{file}, llc 22 {level}:\n{}",
        summary(&report)
    );
    if let Some(ptx23) = ptx_of(&text, 23, level, &tag) {
        let report = audit(&text, &ptx23, ReadOptions::default());
        println!(
            "{file}, llc 23 {level}: {} weakened, {} unmatched",
            report.weakened(),
            report.unmatched()
        );
        assert!(
            report.is_clean(),
            "{file}, llc 23 {level}:\n{}",
            summary(&report)
        );
    }
    let (_, fixed, _) = fixed(file, "nvptx64@22");
    let ptx = ptx_of(&fixed.text, 22, level, &format!("{tag}-fixed")).unwrap();
    let report = audit(&text, &ptx, ReadOptions::default());
    println!(
        "{file}, fix then llc 22 {level}: {} weakened, {} unmatched",
        report.weakened(),
        report.unmatched()
    );
    // Every order and scope survives fix, and every f32 add keeps subnormals (atomir's exact
    // add is a CAS loop on global and generic memory at 22, where llc selects the flushing
    // `atom.add.f32`).
    assert!(
        report.is_clean(),
        "{file}, fixed, llc 22 {level}:\n{}",
        summary(&report)
    );
    true
}

#[test]
fn audit_of_the_hand_checked_module() {
    use atomir::audit::Weakening::{FlushesSubnormals, Order, Scope};
    use atomir::{MemoryOrder as O, Scope as S};
    let text = std::fs::read_to_string(corpus_dir().join("audit_hand_checked.ll")).unwrap();
    // What llc 22 prints for each line, read by hand: `st.relaxed.gpu`, `atom.global.exch`
    // (no order: relaxed; no scope: gpu), `atom.global.add`, `atom.acq_rel.gpu...cas`,
    // `ld.acquire.gpu`, `fence.sc.cta`, `atom.global.add.f32` (flushes on global memory),
    // `atom.shared.add.f32` (gpu scope for a block one; keeps subnormals on shared memory),
    // `atom.shared.max.u32` (no order).
    let expected = [
        Verdict::Kept,
        Verdict::Weakened(vec![Order {
            ir: O::Release,
            ptx: O::Relaxed,
            split: false,
        }]),
        Verdict::Weakened(vec![
            Order {
                ir: O::Acquire,
                ptx: O::Relaxed,
                split: false,
            },
            Scope {
                ir: S::System,
                ptx: S::Device,
            },
        ]),
        Verdict::Kept,
        Verdict::Kept,
        Verdict::Kept,
        Verdict::Weakened(vec![FlushesSubnormals]),
        Verdict::Strengthened(vec!["scope device for block".into()]),
        Verdict::Weakened(vec![Order {
            ir: O::SeqCst,
            ptx: O::Relaxed,
            split: false,
        }]),
    ];
    for level in LEVELS {
        let Some(ptx) = ptx_of(&text, 22, level, "hand") else {
            return;
        };
        let report = audit(&text, &ptx, ReadOptions::default());
        let found: Vec<Verdict> = report.entries.iter().map(|e| e.verdict.clone()).collect();
        assert_eq!(
            found,
            expected,
            "{level}: {}",
            report.render("hand.ll", "hand.ptx")
        );
        let lines: Vec<usize> = report.entries.iter().map(|e| e.ptx.len()).collect();
        assert_eq!(lines, [1; 9], "{level}");
        assert!(report.unclaimed.is_empty(), "{level}");
    }
}

/// A kernel whose blocks llc `-O2` lays out in another order than the IR's: the branch's arms
/// swapped (the cold `then` arm after the function's `ret`), an llc-expanded CAS loop, and
/// after `fix` atomir's float max with its alternatives and NaN loop.
const REORDERED: &str = r#"target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @arms(ptr addrspace(1) %p, ptr addrspace(1) %q, i32 %c, float %v) {
entry:
  %cc = icmp eq i32 %c, 0
  br i1 %cc, label %then, label %else, !prof !0
then:
  %a = atomicrmw add ptr addrspace(1) %p, i32 1 syncscope("device") monotonic, align 4
  br label %join
else:
  %b = atomicrmw xchg ptr addrspace(1) %q, i32 2 syncscope("device") release, align 4
  %s = atomicrmw fsub ptr addrspace(1) %p, float %v syncscope("device") monotonic, align 4
  br label %join
join:
  %m = atomicrmw fmax ptr addrspace(1) %q, float %v syncscope("device") release, align 4
  %l = load atomic i32, ptr addrspace(1) %p syncscope("device") acquire, align 4
  ret void
}
!0 = !{!"branch_weights", i32 1, i32 1000}
"#;

#[test]
fn audit_follows_the_blocks_that_llc_o2_reorders() {
    let target: Target = "llvm:nvptx64@22".parse().unwrap();
    let fixed = fix_module(REORDERED, &target, ReadOptions::default()).unwrap();
    for major in [22, 23] {
        for (tag, text) in [("arms", REORDERED), ("arms-fixed", fixed.text.as_str())] {
            let Some(plain) = ptx_of(text, major, "-O0", tag) else {
                return;
            };
            let optimized = ptx_of(text, major, "-O2", tag).unwrap();
            // The teeth: at -O2 the `then` arm's add lies after the `else` arm's exchange.
            let line = |ptx: &str, what: &str| ptx.lines().position(|l| l.contains(what));
            let (add, exch) = (".add.u32", ".exch.b32");
            assert!(line(&plain, add) < line(&plain, exch), "{tag} {major} -O0");
            assert!(
                line(&optimized, add) > line(&optimized, exch),
                "{tag} {major} -O2"
            );
            let verdicts = |ptx: &str| -> Vec<Verdict> {
                let report = audit(REORDERED, ptx, ReadOptions::default());
                assert_eq!(report.unmatched(), 0, "{}", report.render("ir", "ptx"));
                assert!(
                    report.unclaimed.is_empty(),
                    "{}",
                    report.render("ir", "ptx")
                );
                report.entries.into_iter().map(|e| e.verdict).collect()
            };
            let at_o0 = verdicts(&plain);
            assert_eq!(at_o0.len(), 5);
            assert_eq!(verdicts(&optimized), at_o0, "{tag} {major}");
            // llc 22 drops the release of the exchange; 23 and fix's output keep every order.
            let dropped = matches!(&at_o0[1], Verdict::Weakened(w) if matches!(w[..], [Weakening::Order { .. }]));
            assert_eq!(
                dropped,
                major == 22 && tag == "arms",
                "{tag} {major}: {at_o0:?}"
            );
            if major == 23 || tag == "arms-fixed" {
                assert!(
                    at_o0.iter().all(|v| !matches!(v, Verdict::Weakened(_))),
                    "{tag} {major}: {at_o0:?}"
                );
            }
        }
    }
}

/// Atomics of one shape in both arms of a branch, with different orders and scopes.
const ARMS_ALIKE: &str = r#"target triple = "nvptx64-nvidia-cuda"
define ptx_kernel void @alike(ptr addrspace(1) %p, ptr addrspace(1) %q, i32 %c, float %v) {
entry:
  %cc = icmp eq i32 %c, 0
  br i1 %cc, label %then, label %else, !prof !0
then:
  %a = atomicrmw xchg ptr addrspace(1) %q, i32 1 syncscope("device") release, align 4
  %a2 = atomicrmw fsub ptr addrspace(1) %p, float %v syncscope("block") monotonic, align 4
  br label %join
else:
  %b = atomicrmw xchg ptr addrspace(1) %q, i32 2 syncscope("device") monotonic, align 4
  %s = atomicrmw fsub ptr addrspace(1) %p, float %v syncscope("device") acquire, align 4
  br label %join
join:
  %m = atomicrmw fmax ptr addrspace(1) %q, float %v syncscope("device") release, align 4
  %l = load atomic i32, ptr addrspace(1) %p syncscope("device") acquire, align 4
  ret void
}
!0 = !{!"branch_weights", i32 1, i32 1000}
"#;

/// llc names each block's IR block in a comment, so atomics of one shape in both arms of a
/// branch are told apart whatever order llc laid the arms out in. Without the comments (a
/// PTX file with them stripped), an atomic whose place cannot be told from the other arm's is
/// reported ambiguous, never matched to either with a verdict that may be the other's.
#[test]
fn atomics_alike_in_both_arms_are_told_apart_or_reported_ambiguous() {
    let Some(plain) = ptx_of(ARMS_ALIKE, 22, "-O0", "alike") else {
        return;
    };
    let optimized = ptx_of(ARMS_ALIKE, 22, "-O2", "alike").unwrap();
    let line = |ptx: &str, what: &str| ptx.lines().position(|l| l.contains(what));
    assert!(line(&plain, "], 1;") < line(&plain, "], 2;"));
    assert!(
        line(&optimized, "], 1;") > line(&optimized, "], 2;"),
        "{optimized}"
    );
    let named: Vec<Verdict> = audit(ARMS_ALIKE, &optimized, ReadOptions::default())
        .entries
        .into_iter()
        .map(|e| e.verdict)
        .collect();
    let at_o0: Vec<Verdict> = audit(ARMS_ALIKE, &plain, ReadOptions::default())
        .entries
        .into_iter()
        .map(|e| e.verdict)
        .collect();
    assert_eq!(named, at_o0);
    assert!(named.iter().all(|v| !matches!(v, Verdict::Unmatched(_))));
    // llc 22 drops the exchange's release, and nothing else here.
    let weakened: Vec<usize> = (0..named.len())
        .filter(|&i| matches!(named[i], Verdict::Weakened(_)))
        .collect();
    assert_eq!(weakened, [0], "{named:?}");
    let stripped: String = optimized
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let report = audit(ARMS_ALIKE, &stripped, ReadOptions::default());
    let mut ambiguous = 0;
    for (entry, expected) in report.entries.iter().zip(&named) {
        match &entry.verdict {
            Verdict::Unmatched(why) if why.starts_with("ambiguous") => ambiguous += 1,
            verdict => assert_eq!(verdict, expected, "{}", report.render("ir", "ptx")),
        }
    }
    assert!(ambiguous > 0, "{}", report.render("ir", "ptx"));
}
