//! The Intel vISA backend of atomir: `svm_atomic` (TGLLP, and `+svm`) and LSC `lsc_atomic_*`
//! (DG2, MTL, PVC) messages, with fences for memory orders and the shared expansions where a
//! platform lacks an operation.
//!
//! - [`target`]: target names and platforms.
//! - [`legality`]: the one legality table (rule ids `visa.*`).
//! - [`emit`]: the printer (execution model, data layout, native messages, primitives).
//! - [`encode`]: the binary form of `SVM_ATOMIC`.

pub mod emit;
pub mod encode;
pub mod legality;
pub mod target;

use atomir_ir::{Backend, Inst, Kernel, LowerError, LowerOptions, LowerReport, Module, Verdict};

pub use target::{Messages, Platform, VisaTarget};

/// Help text for this backend's target names, shown by `atomir lower --help`.
pub const TARGETS_HELP: &str = "visa:<PLATFORM>[+svm]  Intel vISA assembly for GenX_IR. PLATFORM: \
TGLLP (SVM messages), DG2, MTL, PVC (LSC messages; `+svm` forces SVM messages, global memory only)";

/// Parses the part of a target name after `visa:`.
pub fn parse_target(spec: &str) -> Result<Box<dyn Backend + Send + Sync>, String> {
    Ok(Box::new(VisaTarget::parse(spec)?))
}

impl Backend for VisaTarget {
    fn target_name(&self) -> String {
        self.to_string()
    }

    fn legalize(&self, kernel: &Kernel, inst: Inst) -> Verdict {
        let inst = legality::supported_node(&kernel.insts[inst])?;
        legality::legalize(*self, kernel, inst)
    }

    fn lower(
        &self,
        module: &Module,
        options: &LowerOptions,
        out: &mut String,
    ) -> Result<LowerReport, LowerError> {
        let report = atomir_ir::legal::legalize_module(self, module)?;
        let mut printer = emit::Printer::new(*self);
        if options.complete_module {
            out.push_str(".version 4.1\n");
        }
        let mut legalities = Vec::new();
        let mut decisions = report.decisions().peekable();
        for (index, kernel) in module.kernels.iter().enumerate() {
            legalities.clear();
            while let Some((_, _, legality)) = decisions.next_if(|(k, _, _)| *k == index) {
                legalities.push(legality.clone());
            }
            printer
                .kernel(kernel, &legalities, options.complete_module, out)
                .map_err(|message| {
                    let inst = kernel
                        .insts
                        .keys()
                        .next()
                        .unwrap_or_else(|| Inst::from_u32(0));
                    LowerError {
                        kernel: kernel.name.clone(),
                        inst,
                        loc: kernel.loc,
                        refusal: atomir_ir::Refusal::new("visa.internal", message),
                    }
                })?;
        }
        drop(decisions);
        Ok(report)
    }
}
