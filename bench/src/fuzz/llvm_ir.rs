//! The fuzz run's LLVM IR inputs: a verified module's own LLVM IR (and PTX), mutated, then
//! read by the `.ll` reader, turned into kernels, fixed for its llc and audited against the
//! mutated PTX. Every answer is an error or a result; a panic is counted.

use atomir::llvm::read::{read, to_module, ReadOptions};
use atomir::{LowerOptions, Module, Target};
use atomir_tests::random::Rng;

use super::{guarded, mutate_text, Counts};

/// The targets the LLVM IR and the PTX of an input are printed for.
const LLVM: &str = "llvm:nvptx64@22";
const PTX: &str = "ptx:sm_90";

/// One input: `module`, where it verifies, printed as LLVM IR and PTX, both mutated, through
/// every LLVM IR stage.
pub(crate) fn input(rng: &mut Rng, module: &Module, counts: &mut Counts) {
    let (Ok(llvm), Ok(ptx)) = (LLVM.parse::<Target>(), PTX.parse::<Target>()) else {
        return;
    };
    let Ok(module) = atomir::verify::verify(module) else {
        return;
    };
    let module = &module;
    let mut ll = String::new();
    let mut ptx_text = String::new();
    if llvm
        .lower(module, &LowerOptions::module(), &mut ll)
        .is_err()
    {
        return;
    }
    let _ = ptx.lower(module, &LowerOptions::module(), &mut ptx_text);
    counts.ll_inputs += 1;
    let ll = if rng.percent(80) {
        mutate_text(rng, &ll, &ptx_text)
    } else {
        ll
    };
    let ptx_text = if rng.percent(50) {
        mutate_text(rng, &ptx_text, &ll)
    } else {
        ptx_text
    };
    let stages: [(&str, &dyn Fn()); 3] = [
        ("read ll", &|| {
            let reading = read(&ll, &ReadOptions::default());
            let kernels = to_module(&ll, &reading.module, rng_free_keep(&ll));
            let _ = atomir::verify::verify(&kernels.module);
        }),
        ("fix ll", &|| {
            let _ = atomir::fix::fix_module(&ll, &llvm, ReadOptions::default());
        }),
        ("audit ll", &|| {
            let report = atomir::audit::audit(&ll, &ptx_text, ReadOptions::default());
            let _ = report.render("in.ll", "in.ptx");
        }),
    ];
    for (stage, run) in stages {
        if let Err(message) = guarded(run) {
            *counts.panics.entry(stage.to_string()).or_default() += 1;
            counts.sample(&format!("panic in {stage}"), &ll, message);
        }
    }
}

/// Whether to keep every result in the kernels (both ways are the API's): by the text, so that
/// the input stays a function of its number.
fn rng_free_keep(text: &str) -> bool {
    text.len().is_multiple_of(2)
}
