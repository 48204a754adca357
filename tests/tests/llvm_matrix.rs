//! The LLVM lowering matrix: every cell for the four triples at LLVM 22 and for x86_64 and
//! nvptx64 at LLVM 14 is either refused with a rule, or accepted by that version's own
//! llvm-as, opt (verifier) and llc. One module of many kernels per tool call; bisect on failure.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::thread;

use atomir_ir::matrix::cells;
use atomir_ir::{Backend, Kernel, LowerOptions, Module, Strategy};
use atomir_llvm::LlvmTarget;
use atomir_tests::llvm::{check_batch, LlvmTools};

const CONFIGS: [&str; 6] = [
    "nvptx64@22",
    "amdgcn@22",
    "spirv64@22",
    "x86_64@22",
    "x86_64@14",
    "nvptx64@14",
];

/// Kernels per module: large enough that tool start-up does not dominate.
const BATCH: usize = 4000;

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
    failures: Vec<String>,
}

fn run_config(spec: &'static str) -> Option<Outcome> {
    let target = LlvmTarget::parse(spec).unwrap();
    let tools = LlvmTools::require(target.major)?;
    let mut counts = BTreeMap::new();
    let mut rules = BTreeMap::new();
    let mut accepted: Vec<Kernel> = Vec::new();
    let mut seen = HashSet::new();
    let mut text = String::new();
    let options = LowerOptions {
        complete_module: true,
    };
    for cell in cells() {
        let kernel = cell.kernel();
        let inst = kernel.insts.keys().next().unwrap();
        match target.legalize(&kernel, inst) {
            Ok(legality) => {
                *counts.entry(legality.strategy()).or_insert(0) += 1;
                // Cells whose functions differ only in their name (e.g. every scope on a CPU)
                // are judged once.
                text.clear();
                let module = Module {
                    kernels: vec![kernel],
                };
                target.lower(&module, &options, &mut text).unwrap();
                let body = &text[text.find('(').unwrap()..];
                let mut hasher = DefaultHasher::new();
                body.hash(&mut hasher);
                if seen.insert(hasher.finish()) {
                    accepted.extend(module.kernels);
                }
            }
            Err(refusal) => {
                assert!(refusal.rule.starts_with("llvm."), "{cell}: {refusal}");
                assert!(!refusal.reason.is_empty());
                *counts.entry(Strategy::Illegal).or_insert(0) += 1;
                *rules.entry(refusal.rule).or_insert(0) += 1;
            }
        }
    }
    let dir = tmp_dir(&spec.replace(['@', '+'], "_"));
    let mut failures = Vec::new();
    for (index, batch) in accepted.chunks(BATCH).enumerate() {
        if let Err(message) = check_batch(&tools, &target, batch, &dir, &format!("b{index}")) {
            failures.push(message);
        }
    }
    println!("llvm:{spec}: {} distinct functions checked", accepted.len());
    Some(Outcome {
        spec,
        counts,
        rules,
        failures,
    })
}

#[test]
fn every_cell_passes_llvm_tools_or_is_refused() {
    // Two workers: the tools run one process per batch, so this keeps both cores busy.
    // ATOMIR_LLVM_CONFIGS=x86_64@14,... narrows the run while debugging one target.
    let chosen: Vec<&'static str> = match std::env::var("ATOMIR_LLVM_CONFIGS") {
        Ok(list) => CONFIGS
            .iter()
            .copied()
            .filter(|c| list.split(',').any(|l| l == *c))
            .collect(),
        Err(_) => CONFIGS.to_vec(),
    };
    let mid = chosen.len().div_ceil(2);
    let (first, second) = chosen.split_at(mid);
    let handles: Vec<_> = [first, second]
        .into_iter()
        .map(|specs| {
            let specs: Vec<&'static str> = specs.to_vec();
            thread::spawn(move || specs.into_iter().filter_map(run_config).collect::<Vec<_>>())
        })
        .collect();
    let outcomes: Vec<Outcome> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    let mut failed = Vec::new();
    for outcome in &outcomes {
        let line: Vec<String> = Strategy::ALL
            .iter()
            .map(|s| format!("{s} {}", outcome.counts.get(s).copied().unwrap_or(0)))
            .collect();
        println!("llvm:{}: {}", outcome.spec, line.join(" / "));
        for (rule, count) in &outcome.rules {
            println!("    refused {count:>6} by {rule}");
        }
        let total: usize = outcome.counts.values().sum();
        assert_eq!(total, cells().count());
        assert!(outcome.counts.get(&Strategy::Native).copied().unwrap_or(0) > 0);
        for failure in &outcome.failures {
            failed.push(format!("llvm:{}: {failure}", outcome.spec));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}
