//! LLVM 15, 16 and 19 accept our output too: every file in `examples/` and a spread sample of
//! the lowering matrix, for each triple and each processor that version's llc knows (and at
//! LLVM 14 the processors the matrix leaves out), go through that version's own llvm-as, opt
//! (verifier) and llc with the target's flags, or are refused with an `llvm.*` rule. (LLVM 14,
//! 22 and 23 run the matrix in `llvm_matrix.rs`.)

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread;

use atomir_ir::matrix::cells;
use atomir_ir::{text, verify, Backend, Kernel, LowerOptions, Module, Refusal};
use atomir_llvm::{LlvmTarget, Triple};
use atomir_tests::llvm::{check_batch, Codegen, LlvmTools};
use atomir_tests::tools::workspace_root;

const MAJORS: [u32; 3] = [15, 16, 19];
/// The targets judged here: every one the backend accepts at [`MAJORS`] (no SPIR-V: its
/// backend starts at 22), each processor included, and at LLVM 14 those the matrix leaves out.
fn targets() -> Vec<LlvmTarget> {
    let in_matrix = |t: &LlvmTarget| {
        t.major == 14
            && matches!(t.triple, Triple::X86_64 | Triple::Nvptx64)
            && t.cpu == LlvmTarget::new(t.triple, 14).cpu
    };
    LlvmTarget::all()
        .into_iter()
        .filter(|t| (MAJORS.contains(&t.major) || t.major == 14) && !t.coarse_grained)
        .filter(|t| !in_matrix(t))
        .collect()
}
/// A prime stride through the matrix, so the sample mixes ops, types, shapes, orders, scopes
/// and spaces (about 300 cells).
const STRIDE: usize = 317;

fn examples() -> Vec<(String, Module)> {
    let dir = workspace_root().join("examples");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "atom"))
        .collect();
    found.sort();
    assert!(!found.is_empty(), "no examples in {}", dir.display());
    found
        .into_iter()
        .map(|path| {
            let source = std::fs::read_to_string(&path).unwrap();
            let module = text::parse(&source).unwrap_or_else(|d| panic!("{path:?}: {d:?}"));
            verify::verify(&module).unwrap_or_else(|d| panic!("{path:?}: {d:?}"));
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            (stem, module)
        })
        .collect()
}

fn check_refusal(what: &str, refusal: &Refusal) {
    assert!(refusal.rule.id().starts_with("llvm."), "{what}: {refusal}");
    assert!(!refusal.reason.is_empty(), "{what}");
}

/// The kernels `target` accepts, each lowered alone first; refusals are checked and counted.
fn accepted(target: &LlvmTarget, kernels: Vec<Kernel>, refused: &mut usize) -> Vec<Kernel> {
    let mut out = String::new();
    kernels
        .into_iter()
        .filter(|kernel| {
            let alone = Module {
                kernels: vec![kernel.clone()],
            };
            out.clear();
            match target.lower(
                &atomir_ir::verify::verify(&alone).unwrap(),
                &LowerOptions::default(),
                &mut out,
            ) {
                Ok(_) => true,
                Err(error) => {
                    check_refusal(&kernel.name, &error.refusal);
                    *refused += 1;
                    false
                }
            }
        })
        .collect()
}

#[test]
fn llvm_15_16_19_accept_examples_and_a_matrix_sample() {
    let examples = examples();
    let sample: Vec<Kernel> = cells().step_by(STRIDE).map(|c| c.kernel()).collect();
    // (target, tools, tag, kernels) for every module to check.
    let mut jobs = Vec::new();
    let mut lines = Vec::new();
    for major in [14].into_iter().chain(MAJORS) {
        let Some(tools) = LlvmTools::require(major) else {
            continue;
        };
        let tools = std::sync::Arc::new(tools);
        for target in targets().into_iter().filter(|t| t.major == major) {
            let mut refused = 0;
            let mut checked = 0;
            for (stem, module) in &examples {
                let kernels = accepted(&target, module.kernels.clone(), &mut refused);
                checked += kernels.len();
                if !kernels.is_empty() {
                    jobs.push((target, tools.clone(), stem.clone(), kernels));
                }
            }
            let kernels = accepted(&target, sample.clone(), &mut refused);
            checked += kernels.len();
            if !kernels.is_empty() {
                jobs.push((target, tools.clone(), "sample".to_string(), kernels));
            }
            lines.push(format!(
                "{target}: {checked} kernels through llvm-as, opt, llc; {refused} refused \
                 (examples and {} matrix cells)",
                sample.len()
            ));
        }
    }
    if jobs.is_empty() {
        return;
    }
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let workers = thread::available_parallelism().map_or(2, |n| n.get());
    thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some((target, tools, tag, kernels)) =
                    jobs.get(next.fetch_add(1, Ordering::Relaxed))
                {
                    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
                        .join("llvm_versions")
                        .join(target.to_string().replace([':', '@'], "_"));
                    std::fs::create_dir_all(&dir).unwrap();
                    if let Err(message) =
                        check_batch(tools, target, kernels, &dir, tag, Codegen::Default)
                    {
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("{target} {tag}: {message}"));
                    }
                }
            });
        }
    });
    for line in &lines {
        println!("{line}");
    }
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
