//! Whole kernels, not single matrix cells, judged by the real tools.
//!
//! - `generated_kernels_pass_every_tool`: random valid modules (`atomir_tests::random`, fixed
//!   seeds) lowered with `--module` for every target (every PTX SM, every vISA platform and
//!   `PVC+svm`, and every target the LLVM backend accepts: each triple at each judged version on
//!   each processor that version's llc knows) and judged by its tool: ptxas 12.9 / 13.5 (plus a
//!   check that no generic access goes through a shared-window address, and the PTX reader
//!   reading the code back without an error, at least one atomic per instruction), GenX_IR,
//!   llvm-as + opt verify + llc with the target's own flags. A refusal with a rule is a fine
//!   answer, a panic is not.
//!   `ATOMIR_KERNELS=20000` sets the kernels per target (default [`CI_KERNELS`]);
//!   with `ATOMIR_KERNELS_SPREAD=1` it is the kernels in all, dealt round-robin over the targets
//!   by module, so that each target judges distinct kernels (the long run's way to judge many
//!   targets with many distinct kernels in bounded time).
//!   `ATOMIR_KERNELS_SEED` the first seed, `ATOMIR_KERNELS_TARGETS=ptx:sm_90,llvm:x86_64@14`
//!   narrows the targets, `ATOMIR_KERNELS_BISECT=1000` bisects every failing batch (to list
//!   every distinct failure rather than stop at a dozen per target), and
//!   `ATOMIR_KERNELS_CONFIG=insts=24,kernels=1,predicated=0,plain-names` changes what is
//!   generated (to look past a known defect that hides others).
//! - `regression_inputs_pass_every_tool`: every `tests/regress/*.atom`, for every target.
//! - `golden_files_pass_their_tool`: every golden file under `tests/golden/<target>/` that a tool
//!   can judge.
//!
//! A rejection is reported with its target, where it came from (seed or file), the smallest
//! kernel that still fails the same way, and the tool's message.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread;
use std::time::Instant;

use atomir_ir::{text, verify, Module};
use atomir_tests::judge::{
    accepted_parts, all_target_names, judge_batch, judge_target, pack, scratch_dir, shrink,
    summary, JudgeTarget, Rejection, Tally,
};
use atomir_tests::random::{module, Config};
use atomir_tests::tools::workspace_root;

/// Kernels per target in CI: about a minute and a half of tool time on two cores for all
/// targets.
const CI_KERNELS: usize = 120;
const DEFAULT_SEED: u64 = 0x5EED_0010;
/// Kernels per tool call.
const BATCH_KERNELS: usize = 400;
/// Failures per target past which a failing batch is reported whole, not bisected (keeps a
/// failing run from spending minutes bisecting one defect's hundred instances).
const BISECTED_PER_TARGET: usize = 6;
/// Distinct failures shrunk in all (each costs up to [`SHRINK_CALLS`] tool runs).
const SHRUNK_IN_ALL: usize = 16;
const SHRINK_CALLS: usize = 24;

fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    };
    Some(parsed.unwrap_or_else(|| panic!("{name}={text} is not a number")))
}

/// The targets judged: those of `ATOMIR_KERNELS_TARGETS` (any the registry accepts, so that a
/// run can cover every target of `atomir::Target::all()`), else the judged list. A name the
/// registry refuses is an error, not a target silently left out; a target whose tool is missing
/// is skipped with a `SKIPPED:` line (an error under `ATOMIR_REQUIRE_TOOLS=1`).
fn targets() -> Vec<JudgeTarget> {
    let names: Vec<String> = match std::env::var("ATOMIR_KERNELS_TARGETS") {
        Ok(list) => {
            let names: Vec<String> = list
                .split(',')
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(String::from)
                .collect();
            assert!(!names.is_empty(), "ATOMIR_KERNELS_TARGETS names no target");
            for name in &names {
                if let Err(error) = name.parse::<atomir::Target>() {
                    panic!("ATOMIR_KERNELS_TARGETS: `{name}` is no target: {error}");
                }
            }
            names
        }
        Err(_) => all_target_names(),
    };
    names.iter().filter_map(|name| judge_target(name)).collect()
}

/// Runs `work` on every job, `workers` at a time (the tools are single-threaded processes), each
/// worker with a scratch folder of its own.
fn on_workers<J: Sync>(jobs: &[J], workers: usize, label: &str, work: impl Fn(&J, &Path) + Sync) {
    let next = AtomicUsize::new(0);
    thread::scope(|scope| {
        for worker in 0..workers {
            let (next, work) = (&next, &work);
            scope.spawn(move || {
                let scratch = scratch_dir(&format!("{label}-{worker}"));
                while let Some(job) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    work(job, &scratch);
                }
                let _ = std::fs::remove_dir_all(&scratch);
            });
        }
    });
}

/// Which inputs each target judges.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Deal {
    /// Every input on every target.
    EveryTarget,
    /// Input `i` on target `i mod targets` only.
    RoundRobin,
}

/// One target's work and findings.
struct Run {
    target: JudgeTarget,
    /// The inputs this target judges.
    inputs: Vec<(String, Module)>,
    tally: Tally,
    accepted: Vec<Module>,
    origins: Vec<String>,
    batches: Vec<Vec<usize>>,
    rejections: Mutex<Vec<Rejection>>,
    bisect_budget: AtomicUsize,
}

/// Judges `inputs` (origin, module) on every target, in parallel over targets and batches;
/// prints a line per target and returns every target's rejections and panics.
///
/// Failures are reported once per distinct message per target (`per_input` false: generated
/// modules, where one defect shows in many) or once per input and message (regression inputs,
/// each of which names one defect).
fn judge_all(
    inputs: &[(String, Module)],
    label: &str,
    per_input: bool,
    deal: Deal,
) -> Vec<Rejection> {
    let started = Instant::now();
    let targets = targets();
    let target_count = targets.len();
    if targets.is_empty() {
        println!("SKIPPED: {label}: no target's tool is installed");
        return Vec::new();
    }
    let workers = thread::available_parallelism().map_or(2, |n| n.get());
    let bisected_per_target =
        env_number("ATOMIR_KERNELS_BISECT").map_or(BISECTED_PER_TARGET, |n| n as usize);
    // Lowering (and refusals) per target.
    let slots: Vec<Mutex<Run>> = targets
        .into_iter()
        .enumerate()
        .map(|(r, target)| {
            let inputs: Vec<(String, Module)> = inputs
                .iter()
                .enumerate()
                .filter(|(i, _)| deal == Deal::EveryTarget || i % target_count == r)
                .map(|(_, input)| input.clone())
                .collect();
            Mutex::new(Run {
                target,
                tally: Tally::default(),
                accepted: Vec::new(),
                origins: inputs.iter().map(|(o, _)| o.clone()).collect(),
                inputs,
                batches: Vec::new(),
                rejections: Mutex::new(Vec::new()),
                bisect_budget: AtomicUsize::new(bisected_per_target),
            })
        })
        .collect();
    on_workers(&slots, workers, label, |slot, _| {
        let mut run = slot.lock().unwrap();
        let run = &mut *run;
        run.accepted = accepted_parts(&run.target, &run.inputs, &mut run.tally);
        run.batches = pack(&run.accepted, BATCH_KERNELS);
        run.batches
            .retain(|b| b.iter().any(|&m| !run.accepted[m].kernels.is_empty()));
    });
    let runs: Vec<Run> = slots.into_iter().map(|s| s.into_inner().unwrap()).collect();
    let lowered = started.elapsed();
    // Tool calls: one queue of (target, batch) over every target.
    let jobs: Vec<(usize, usize)> = runs
        .iter()
        .enumerate()
        .flat_map(|(r, run)| (0..run.batches.len()).map(move |b| (r, b)))
        .collect();
    on_workers(&jobs, workers, label, |&(r, b), scratch| {
        let run = &runs[r];
        let found = judge_batch(
            &run.target,
            &run.accepted,
            &run.batches[b],
            scratch,
            &run.bisect_budget,
        );
        for (index, module, message) in found {
            run.rejections.lock().unwrap().push(Rejection {
                target: run.target.name.clone(),
                origin: run.origins[index].clone(),
                input: text::print(&module),
                message,
            });
        }
    });
    // Shrink the first failure of each distinct message, once over all targets (many targets
    // share a defect). Regression inputs are minimal already.
    let mut all = Vec::new();
    let mut seen = Vec::new();
    let mut shrink_jobs: Vec<(usize, usize)> = Vec::new();
    for (r, run) in runs.iter().enumerate() {
        let rejections = run.rejections.lock().unwrap();
        for (i, rejection) in rejections.iter().enumerate() {
            let signature = key(rejection, per_input);
            if !per_input && !seen.contains(&signature) && shrink_jobs.len() < SHRUNK_IN_ALL {
                seen.push(signature);
                shrink_jobs.push((r, i));
            }
        }
    }
    on_workers(&shrink_jobs, workers, label, |&(r, i), scratch| {
        let run = &runs[r];
        let rejection = run.rejections.lock().unwrap()[i].clone();
        let Ok(module) = text::parse(&rejection.input) else {
            return;
        };
        let (small, message) = shrink(
            &run.target,
            &module,
            &rejection.message,
            scratch,
            SHRINK_CALLS,
        );
        let mut rejections = run.rejections.lock().unwrap();
        rejections[i].input = text::print(&small);
        rejections[i].message = message;
    });
    println!(
        "{label}: {} inputs on {} targets; lowered in {lowered:.1?}, judged in {:.1?}",
        inputs.len(),
        runs.len(),
        started.elapsed()
    );
    for run in runs {
        let rejections = run.rejections.into_inner().unwrap();
        let mut signatures: BTreeMap<String, usize> = BTreeMap::new();
        for rejection in &rejections {
            *signatures.entry(key(rejection, per_input)).or_default() += 1;
        }
        println!(
            "  {:<28} {}; {} batches; tool rejected {}{}",
            run.target.name,
            summary(&run.tally),
            run.batches.len(),
            rejections.len(),
            if signatures.is_empty() {
                String::new()
            } else {
                format!(" ({} distinct messages)", signatures.len())
            }
        );
        all.extend(run.tally.panics);
        // The shrunk ones first: one per distinct message.
        let mut shown = Vec::new();
        for rejection in rejections {
            let signature = key(&rejection, per_input);
            if !shown.contains(&signature) {
                shown.push(signature);
                all.push(rejection);
            }
        }
    }
    all
}

/// What makes two failures the same for the report.
fn key(rejection: &Rejection, per_input: bool) -> String {
    if per_input {
        format!("{} {}", rejection.origin, rejection.signature())
    } else {
        rejection.signature()
    }
}

fn report(label: &str, failures: &[Rejection]) {
    if failures.is_empty() {
        return;
    }
    let mut by_target: BTreeMap<&str, usize> = BTreeMap::new();
    for failure in failures {
        *by_target.entry(&failure.target).or_default() += 1;
    }
    let targets: Vec<String> = by_target
        .iter()
        .map(|(t, n)| format!("{t} ({n})"))
        .collect();
    let details: Vec<String> = failures.iter().map(Rejection::render).collect();
    panic!(
        "{label}: {} distinct failures on {} targets: {}\n\n{}",
        failures.len(),
        by_target.len(),
        targets.join(", "),
        details.join("\n\n")
    );
}

#[test]
fn generated_kernels_pass_every_tool() {
    let wanted = env_number("ATOMIR_KERNELS").map_or(CI_KERNELS, |n| n as usize);
    let first = env_number("ATOMIR_KERNELS_SEED").unwrap_or(DEFAULT_SEED);
    let mut config = Config::default();
    if let Ok(knobs) = std::env::var("ATOMIR_KERNELS_CONFIG") {
        for knob in knobs.split(',') {
            match knob.split_once('=') {
                Some(("insts", n)) => config.max_insts = n.parse().expect("insts=N"),
                Some(("kernels", n)) => config.max_kernels = n.parse().expect("kernels=N"),
                Some(("predicated", n)) => {
                    config.predicated_percent = n.parse().expect("predicated=N")
                }
                None if knob == "plain-names" => config.wild_names = false,
                _ => panic!("ATOMIR_KERNELS_CONFIG: unknown knob `{knob}`"),
            }
        }
    }
    let mut inputs = Vec::new();
    let mut kernels = 0;
    let mut seed = first;
    while kernels < wanted {
        let generated = module(seed, &config);
        verify::verify(&generated.module).unwrap_or_else(|e| panic!("seed {seed}: {}", e[0]));
        kernels += generated.module.kernels.len();
        inputs.push((format!("seed {seed:#x}"), generated.module));
        seed += 1;
    }
    println!(
        "{kernels} kernels in {} modules, seeds {first:#x}..{seed:#x}",
        inputs.len()
    );
    let deal = if env_number("ATOMIR_KERNELS_SPREAD").unwrap_or(0) != 0 {
        Deal::RoundRobin
    } else {
        Deal::EveryTarget
    };
    let failures = judge_all(&inputs, "generated", false, deal);
    report("generated kernels", &failures);
}

fn load(path: &Path) -> Module {
    let source =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.display().to_string();
    let module = text::parse(&source).unwrap_or_else(|d| {
        panic!(
            "{}",
            d.iter()
                .map(|d| d.render(&name))
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    verify::verify(&module).unwrap_or_else(|d| {
        panic!(
            "{}",
            d.iter()
                .map(|d| d.render(&name))
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    module
}

fn files_in(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    files
}

#[test]
fn regression_inputs_pass_every_tool() {
    let dir = workspace_root().join("tests/regress");
    let inputs: Vec<(String, Module)> = files_in(&dir, "atom")
        .iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (format!("tests/regress/{name}"), load(path))
        })
        .collect();
    assert!(!inputs.is_empty());
    let failures = judge_all(&inputs, "regress", true, Deal::EveryTarget);
    let mut by_input: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (origin, _) in &inputs {
        by_input.entry(origin).or_default();
    }
    for failure in &failures {
        by_input
            .entry(&failure.origin)
            .or_default()
            .push(&failure.target);
    }
    for (origin, targets) in &by_input {
        let mut targets = targets.clone();
        targets.dedup();
        println!(
            "  {origin}: {}",
            if targets.is_empty() {
                "every tool accepts it".to_string()
            } else {
                format!("rejected on {}", targets.join(" "))
            }
        );
    }
    report("regression inputs", &failures);
}

#[test]
fn golden_files_pass_their_tool() {
    let golden = workspace_root().join("tests/golden");
    let mut failures = Vec::new();
    let (mut judged, mut skipped) = (0, 0);
    let scratch = scratch_dir("golden");
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&golden)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let folder_name = folder.file_name().unwrap().to_string_lossy().into_owned();
        // `ptx-sm_70` is the golden folder of `ptx:sm_70`; `in` and `matrix` hold no code.
        let Some((backend, spec)) = folder_name.split_once('-') else {
            continue;
        };
        let extension = match backend {
            "ptx" => "ptx",
            "visa" => "visaasm",
            "llvm" => "ll",
            _ => continue,
        };
        let name = format!("{backend}:{spec}");
        let Some(target) = judge_target(&name) else {
            // judge_target printed the missing tool; the other folders are still judged.
            let files = files_in(&folder, extension).len();
            println!("SKIPPED: {files} golden files of {name}: its tool is not found");
            skipped += files;
            continue;
        };
        for file in files_in(&folder, extension) {
            let code = std::fs::read_to_string(&file).unwrap();
            // The input the golden file was lowered from (for the PTX address check).
            let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
            let source = [workspace_root().join("examples"), golden.join("in")]
                .iter()
                .map(|d| d.join(format!("{stem}.atom")))
                .find(|p| p.is_file())
                .map(|p| load(&p))
                .unwrap_or_default();
            let refused: Vec<String> =
                std::fs::read_to_string(folder.join(format!("{stem}.refusals")))
                    .unwrap_or_default()
                    .lines()
                    .filter_map(|l| {
                        l.split("in kernel `")
                            .nth(1)?
                            .split('`')
                            .next()
                            .map(String::from)
                    })
                    .collect();
            let mut module = source;
            module.kernels.retain(|k| !refused.contains(&k.name));
            judged += 1;
            if let Err(message) = target.judge(&module, &code, &scratch) {
                let relative = file.strip_prefix(workspace_root()).unwrap_or(&file);
                failures.push(Rejection {
                    target: name.clone(),
                    origin: format!("golden file {}", relative.display()),
                    input: String::new(),
                    message,
                });
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    println!("golden: {judged} files judged by their tools, {skipped} skipped");
    assert!(judged + skipped >= 30, "{judged} judged, {skipped} skipped");
    report("golden files", &failures);
}
