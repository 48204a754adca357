//! The LLVM lowering matrix: every cell (the RMWs, loads, stores and fences) for every triple at
//! LLVM 22 and 23, and for x86_64 and nvptx64 at LLVM 14 is either refused with a rule, or
//! accepted by that version's own llvm-as, opt (verifier) and llc (`-O0` from LLVM 15 on: see
//! [`Codegen::Fast`]) with the target's own llc flags, and for SPIR-V, llc's binary by
//! `spirv-val` (Vulkan in the `vulkan1.3` environment). Functions identical up to their name are
//! checked once; one module of many kernels per tool call; bisect on failure.
//!
//! The default processor of each version (sm_90, gfx942) judges every cell; the other
//! processors (sm_60, sm_70, sm_80, sm_100, gfx90a, gfx1100 at 22 and 23) judge every cell whose
//! verdict differs from the default's and a stratified sample of the rest
//! ([`SAME_VERDICT_STRIDE`]): a cell with the default's verdict prints the same IR, so only
//! llc's flags differ, which the sample covers.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread;
use std::time::Instant;

use atomir_ir::matrix::{all_cells, AnyCell};
use atomir_ir::{Backend, Kernel, LowerOptions, Module, Strategy};
use atomir_llvm::LlvmTarget;
use atomir_tests::llvm::{check_batch, Codegen, LlvmTools};

const CONFIGS: [&str; 26] = [
    "nvptx64@23",
    "spirv64@23",
    "amdgcn@23",
    "x86_64@23",
    "spirv-vulkan@23",
    "spirv-vulkan@22",
    "nvptx64@22",
    "amdgcn@22",
    "spirv64@22",
    "x86_64@22",
    "x86_64@14",
    "nvptx64@14",
    "nvptx64:sm_60@22",
    "nvptx64:sm_70@22",
    "nvptx64:sm_80@22",
    "nvptx64:sm_100@22",
    "nvptx64:sm_60@23",
    "nvptx64:sm_70@23",
    "nvptx64:sm_80@23",
    "nvptx64:sm_100@23",
    "amdgcn:gfx90a@22",
    "amdgcn:gfx1100@22",
    "amdgcn:gfx90a@23",
    "amdgcn:gfx1100@23",
    "amdgcn:gfx90a@23+coarse-grained",
    "amdgcn:gfx1100@22+coarse-grained",
];

/// For a configuration on a processor other than its version's default: one cell of each
/// class of cells whose verdict differs from the default processor's (a class: the op, element
/// type, shape, space and the verdict), and of the others one in this many (a prime, so the
/// sample mixes ops, types, orders, scopes and spaces). The default processor of each version
/// judges every cell.
const SAME_VERDICT_STRIDE: usize = 97;

/// Kernels per module: large enough that tool start-up does not dominate, small enough that the
/// two workers finish together.
const BATCH: usize = 1500;

fn tmp_dir(tag: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("llvm_matrix")
        .join(tag);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

struct Outcome {
    spec: &'static str,
    counts: BTreeMap<Strategy, usize>,
    rules: BTreeMap<&'static str, usize>,
    distinct: usize,
    /// Accepted cells not judged here: the default processor's verdict, judged there.
    left_to_default: usize,
    failures: Mutex<Vec<String>>,
}

/// One configuration, legalized: its counts and the distinct functions to check.
struct Config {
    target: LlvmTarget,
    tools: LlvmTools,
    dir: PathBuf,
    accepted: Vec<Kernel>,
    outcome: Outcome,
}

fn prepare(spec: &'static str) -> Option<Config> {
    let target = LlvmTarget::parse(spec).unwrap();
    let default = LlvmTarget {
        cpu: LlvmTarget::new(target.triple, target.major).cpu,
        ..target
    };
    let stride = std::env::var("ATOMIR_LLVM_STRIDE")
        .ok()
        .and_then(|stride| stride.parse().ok())
        .unwrap_or(SAME_VERDICT_STRIDE);
    let mut sampled = 0;
    let mut classes = HashSet::new();
    let tools = LlvmTools::require(target.major)?.with_spirv_val(&target);
    let mut counts = BTreeMap::new();
    let mut rules = BTreeMap::new();
    let mut accepted: Vec<Kernel> = Vec::new();
    let mut seen = HashSet::new();
    let mut text = String::new();
    let options = LowerOptions::module();
    let mut module = Module::default();
    // ATOMIR_LLVM_OPS=load,store,fence narrows the judged cells while debugging some ops.
    let ops = std::env::var("ATOMIR_LLVM_OPS").ok();
    let chosen = |cell: &AnyCell| {
        ops.as_deref()
            .is_none_or(|list| list.split(',').any(|op| op == cell.op_name()))
    };
    for (index, cell) in all_cells().enumerate() {
        if !chosen(&cell) {
            continue;
        }
        module.kernels.clear();
        module.kernels.push(cell.kernel());
        let kernel = &module.kernels[0];
        let inst = kernel.insts.keys().next().unwrap();
        let verdict = target.legalize_inst(kernel, inst);
        let judged = default == target
            || index % stride == 0
            || (verdict != default.legalize_inst(kernel, inst)
                && classes.insert(verdict_class(&cell, &verdict)));
        match verdict {
            Ok(legality) if !judged => {
                // The default processor judges this very verdict.
                *counts.entry(legality.strategy()).or_insert(0) += 1;
                sampled += 1;
            }
            Ok(legality) => {
                *counts.entry(legality.strategy()).or_insert(0) += 1;
                // Cells whose functions differ only in their name (e.g. every scope on a CPU)
                // are judged once.
                text.clear();
                target
                    .lower(
                        &atomir_ir::verify::verify(&module).unwrap(),
                        &options,
                        &mut text,
                    )
                    .unwrap();
                let body = &text[text.find('(').unwrap()..];
                let mut hasher = DefaultHasher::new();
                body.hash(&mut hasher);
                if seen.insert(hasher.finish()) {
                    accepted.append(&mut module.kernels);
                }
            }
            Err(refusal) => {
                assert!(refusal.rule.id().starts_with("llvm."), "{cell}: {refusal}");
                assert!(!refusal.reason.is_empty());
                *counts.entry(Strategy::Illegal).or_insert(0) += 1;
                *rules.entry(refusal.rule.id()).or_insert(0) += 1;
            }
        }
    }
    Some(Config {
        dir: tmp_dir(&spec.replace(['@', '+', ':'], "_")),
        target,
        tools,
        outcome: Outcome {
            spec,
            counts,
            rules,
            distinct: accepted.len(),
            left_to_default: sampled,
            failures: Mutex::new(Vec::new()),
        },
        accepted,
    })
}

/// A cell's class for [`SAME_VERDICT_STRIDE`]: what it is but its order and scope, and its
/// verdict (which names them where they matter).
fn verdict_class<T: std::fmt::Debug>(cell: &AnyCell, verdict: &T) -> String {
    match cell {
        AnyCell::Access(access) => format!(
            "{} {} {} {} {} {verdict:?}",
            access.op, access.ty, access.shape, access.space, access.result_used
        ),
        AnyCell::Fence(_) => format!("fence {verdict:?}"),
    }
}

#[test]
fn every_cell_passes_llvm_tools_or_is_refused() {
    // ATOMIR_LLVM_CONFIGS=x86_64@14,... narrows the run while debugging one target.
    // A name outside CONFIGS is judged too, every cell of it (`ATOMIR_LLVM_STRIDE=1` judges
    // every cell of a non-default processor): the search for what another processor's llc does.
    let chosen: Vec<&'static str> = match std::env::var("ATOMIR_LLVM_CONFIGS") {
        Ok(list) => list
            .split(',')
            .map(|name| &*String::leak(name.to_string()))
            .collect(),
        Err(_) => CONFIGS.to_vec(),
    };
    let started = Instant::now();
    let configs: Vec<Config> = chosen.into_iter().filter_map(prepare).collect();
    println!("legalized and lowered in {:.1?}", started.elapsed());
    // One queue of batches over every configuration, drained by one worker per core: the tools
    // are single-threaded processes.
    let jobs: Vec<(usize, usize)> = configs
        .iter()
        .enumerate()
        .flat_map(|(c, config)| (0..config.accepted.len().div_ceil(BATCH)).map(move |b| (c, b)))
        .collect();
    let next = AtomicUsize::new(0);
    let workers = thread::available_parallelism().map_or(2, |n| n.get());
    thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(&(c, b)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let config = &configs[c];
                    let end = (b * BATCH + BATCH).min(config.accepted.len());
                    let batch = &config.accepted[b * BATCH..end];
                    let tag = format!("b{b}");
                    // llc 14 at -O0 aborts on NVPTX shared-memory atomics ("Cannot cast between
                    // two non-generic address spaces") where its default level compiles them; its
                    // configurations are small, so they run at the default level.
                    let codegen = if config.target.major < 15 {
                        Codegen::Default
                    } else {
                        Codegen::Fast
                    };
                    let checked = check_batch(
                        &config.tools,
                        &config.target,
                        batch,
                        &config.dir,
                        &tag,
                        codegen,
                    );
                    if let Err(message) = checked {
                        config.outcome.failures.lock().unwrap().push(message);
                    }
                }
            });
        }
    });
    println!(
        "{} batches on {workers} workers in {:.1?}",
        jobs.len(),
        started.elapsed()
    );
    let outcomes: Vec<Outcome> = configs.into_iter().map(|c| c.outcome).collect();
    let mut failed = Vec::new();
    for outcome in &outcomes {
        let line: Vec<String> = Strategy::ALL
            .iter()
            .map(|s| format!("{s} {}", outcome.counts.get(s).copied().unwrap_or(0)))
            .collect();
        println!(
            "llvm:{}: {} ({} distinct functions through llvm-as, opt, llc; {} accepted cells \
             with the default processor's verdict left to it)",
            outcome.spec,
            line.join(" / "),
            outcome.distinct,
            outcome.left_to_default
        );
        for (rule, count) in &outcome.rules {
            println!("    refused {count:>6} by {rule}");
        }
        let total: usize = outcome.counts.values().sum();
        if std::env::var_os("ATOMIR_LLVM_OPS").is_none() {
            assert_eq!(total, all_cells().count());
            assert!(outcome.counts.get(&Strategy::Native).copied().unwrap_or(0) > 0);
        }
        for failure in outcome.failures.lock().unwrap().iter() {
            failed.push(format!("llvm:{}: {failure}", outcome.spec));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}
