//! The vISA lowering matrix: every cell (accesses and fences), for every vISA target (TGLLP,
//! DG2, MTL and PVC, and each LSC platform with `+svm`), either assembles with GenX_IR or is
//! refused with a `visa.*` rule and a reason; and no emitted cell uses a form GenX_IR accepts
//! but the hardware lacks.

use std::collections::{BTreeMap, HashMap};

use atomir_ir::matrix::{all_cells, AnyCell};
use atomir_ir::{Backend, LowerOptions, Module, Strategy};
use atomir_tests::visa::{assemble_all, scratch_dir, VisaKernel};
use atomir_tests::{require, Tool};
use atomir_visa::{Messages, Platform, VisaTarget};

const PLACEHOLDER: &str = "@KERNEL@";

/// Lowers every cell for `target`: per-strategy counts, the distinct complete kernels (name
/// replaced by [`PLACEHOLDER`]) with one cell that produced each, and the refusals.
fn lower_matrix(target: VisaTarget) -> (BTreeMap<Strategy, usize>, Vec<(String, AnyCell)>) {
    let mut counts = BTreeMap::new();
    let mut unique: HashMap<String, usize> = HashMap::new();
    let mut kernels = Vec::new();
    let mut out = String::new();
    let mut fences = std::collections::BTreeSet::new();
    for cell in all_cells() {
        let kernel = cell.kernel();
        let inst = kernel.insts.keys().next().unwrap();
        match target.legalize_inst(&kernel, inst) {
            Err(refusal) => {
                assert!(
                    refusal.rule.id().starts_with("visa."),
                    "{cell}: rule {}",
                    refusal.rule
                );
                assert!(
                    !refusal.reason.is_empty(),
                    "{cell}: refusal without a reason"
                );
                *counts.entry(Strategy::Illegal).or_insert(0) += 1;
            }
            Ok(legality) => {
                *counts.entry(legality.strategy()).or_insert(0) += 1;
                let module = Module {
                    kernels: vec![kernel],
                };
                out.clear();
                target
                    .lower(
                        &atomir_ir::verify::verify(&module).unwrap(),
                        &LowerOptions::module(),
                        &mut out,
                    )
                    .unwrap_or_else(|e| panic!("{cell}: legal but not lowered: {e}"));
                let body = out
                    .strip_prefix(".version 4.1\n")
                    .expect("module starts with .version");
                // Fences take no operands, so each distinct fence line is assembled once (in
                // its own kernel) and kernels that differ only in fences are assembled once.
                let mut key = String::with_capacity(body.len());
                for line in body.replace(&cell.name(), PLACEHOLDER).lines() {
                    let trimmed = line.trim_start();
                    if trimmed.starts_with("fence_") || trimmed.starts_with("lsc_fence") {
                        fences.insert(line.to_string());
                    } else {
                        key.push_str(line);
                        key.push('\n');
                    }
                }
                if !unique.contains_key(&key) {
                    unique.insert(key.clone(), kernels.len());
                    kernels.push((key, cell));
                }
            }
        }
    }
    if !fences.is_empty() {
        let mut text = format!(
            ".kernel \"{PLACEHOLDER}\"\n.kernel_attr Target=\"cm\"\n.function \"{PLACEHOLDER}_BB_0\"\n\n{PLACEHOLDER}_BB_0:\n"
        );
        for fence in &fences {
            text.push_str(fence);
            text.push('\n');
        }
        text.push_str("    ret (M1, 1)\n");
        let any = all_cells().next().unwrap();
        kernels.push((text, any));
    }
    (counts, kernels)
}

#[test]
fn visa_matrix_assembles_or_is_refused() {
    let Some(genx) = require(Tool::GenxIr) else {
        return;
    };
    let svm = Platform::ALL
        .into_iter()
        .filter(|p| p.has_lsc())
        .map(|platform| VisaTarget {
            platform,
            messages: Messages::Svm,
        });
    for target in Platform::ALL.into_iter().map(VisaTarget::new).chain(svm) {
        let platform = target.platform;
        let started = std::time::Instant::now();
        let (counts, distinct) = lower_matrix(target);
        let kernels: Vec<VisaKernel> = distinct
            .iter()
            .enumerate()
            .map(|(i, (text, _))| {
                let name = format!("k{i}");
                VisaKernel {
                    text: text.replace(PLACEHOLDER, &name),
                    name,
                }
            })
            .collect();
        let halves: Vec<&[VisaKernel]> = kernels.chunks(kernels.len().div_ceil(2).max(1)).collect();
        let failures: Vec<(String, String)> = std::thread::scope(|scope| {
            let handles: Vec<_> = halves
                .iter()
                .enumerate()
                .map(|(i, part)| {
                    let dir = scratch_dir(&format!(
                        "matrix-{}-{i}",
                        target.to_string().replace([':', '+'], "-")
                    ));
                    let genx = genx.clone();
                    scope.spawn(move || assemble_all(&genx, platform.as_str(), part, 1000, &dir))
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect()
        });
        let total: usize = counts.values().sum();
        let line: Vec<String> = Strategy::ALL
            .iter()
            .map(|s| format!("{} {}", s.as_str(), counts.get(s).copied().unwrap_or(0)))
            .collect();
        println!(
            "{target}: {total} cells: {}; {} distinct kernels assembled in {:.1?}",
            line.join(" / "),
            kernels.len(),
            started.elapsed()
        );
        if let Some((name, log)) = failures.first() {
            let index: usize = name[1..].parse().unwrap();
            panic!(
                "{target}: {} kernels rejected by GenX_IR; first: cell {}:\n{}\n{}",
                failures.len(),
                distinct[index].1,
                kernels[index].text,
                log
            );
        }
    }
}
