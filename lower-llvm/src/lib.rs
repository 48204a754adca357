//! atomir's LLVM IR backend: `atomicrmw` / `cmpxchg` for nvptx64, amdgcn, spirv64 and x86_64 at
//! a chosen LLVM major version, whose own `llvm-as`, `opt` and `llc` must accept the output and
//! keep its meaning.
//!
//! - [`target`]: target specs and the per-triple spellings (address spaces, sync scopes).
//! - `legality`: the legality table (rule ids `llvm.*`); it alone decides how a node is lowered.
//! - `native`: the one place that prints atomic instructions and fences.
//! - `expansion`: prints the shared expansions of [`atomir_ir::expand`] as basic blocks.
//! - `emit`: functions, kernels and modules around them.

mod emit;
mod expansion;
mod legality;
mod native;
pub mod target;

use atomir_ir::{Backend, Inst, Kernel, LowerError, LowerOptions, LowerReport, Module, Verdict};

pub use target::{LlvmTarget, Triple};

/// Help text for this backend's target names, shown by `atomir lower --help`.
pub const TARGETS_HELP: &str = "\
llvm:<triple>[@<major>][+<option>]   LLVM IR for one triple, accepted by that LLVM version's tools
  triples:  nvptx64, amdgcn, spirv64, x86_64
  major:    14 to 22 (default 22); 14 prints typed pointers, 15 and later opaque `ptr`
  options:  +coarse-grained (amdgcn only): every address is coarse-grained memory, so float
            atomics carry !amdgpu.no.fine.grained.memory and run natively; wrong for
            fine-grained (host-coherent) memory, hence off by default
  --module: one kernel function per kernel (ptx_kernel / amdgpu_kernel / spir_kernel) with a
            target triple; each used result is stored through a trailing pointer parameter";

/// Parses the part of a target name after `llvm:`.
pub fn parse_target(spec: &str) -> Result<Box<dyn Backend + Send + Sync>, String> {
    Ok(Box::new(LlvmTarget::parse(spec)?))
}

impl LlvmTarget {
    fn plans(&self, kernel: &Kernel, plans: &mut Vec<legality::Plan>) -> Result<(), LowerError> {
        plans.clear();
        for (inst, node) in kernel.insts.iter() {
            match legality::supported_node(node).and_then(|node| legality::plan(self, node)) {
                Ok(plan) => plans.push(plan),
                Err(refusal) => {
                    return Err(LowerError {
                        kernel: kernel.name.clone(),
                        inst,
                        loc: kernel.loc_of(inst),
                        refusal,
                    })
                }
            }
        }
        Ok(())
    }
}

impl Backend for LlvmTarget {
    fn target_name(&self) -> String {
        self.to_string()
    }

    fn legalize(&self, kernel: &Kernel, inst: Inst) -> Verdict {
        legality::supported_node(&kernel.insts[inst])
            .and_then(|node| legality::plan(self, node))
            .map(|plan| plan.legality)
    }

    fn lower(
        &self,
        module: &Module,
        options: &LowerOptions,
        out: &mut String,
    ) -> Result<LowerReport, LowerError> {
        // Legalize everything first: a refusal leaves `out` untouched.
        let mut all_plans = Vec::with_capacity(module.kernels.len());
        let mut report = LowerReport::default();
        for (index, kernel) in module.kernels.iter().enumerate() {
            let mut plans = Vec::with_capacity(kernel.insts.len());
            self.plans(kernel, &mut plans)?;
            for (inst, plan) in kernel.insts.keys().zip(&plans) {
                report.record(index, inst, &plan.legality);
            }
            all_plans.push(plans);
        }
        if options.complete_module {
            out.push_str("target triple = \"");
            out.push_str(self.triple.triple_string());
            out.push_str("\"\n\n");
        }
        for (kernel, plans) in module.kernels.iter().zip(&all_plans) {
            emit::function(self, kernel, plans, options.complete_module, out);
        }
        if self.coarse_grained {
            out.push_str("!0 = !{}\n");
        }
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atomir_ir::matrix::cells;

    /// `legalize` and `lower` agree on every cell: a refused cell fails to lower with the same
    /// rule, an accepted one lowers to one function.
    #[test]
    fn legalize_and_lower_agree() {
        for spec in ["spirv64@22", "nvptx64@14"] {
            let target = LlvmTarget::parse(spec).unwrap();
            let mut out = String::new();
            for cell in cells().step_by(7) {
                let module = Module {
                    kernels: vec![cell.kernel()],
                };
                let inst = module.kernels[0].insts.keys().next().unwrap();
                let verdict = target.legalize(&module.kernels[0], inst);
                out.clear();
                let lowered = target.lower(&module, &LowerOptions::default(), &mut out);
                match (verdict, lowered) {
                    (Ok(legality), Ok(report)) => {
                        assert_eq!(
                            report.decisions().next().map(|d| d.2),
                            Some(&legality),
                            "{cell}"
                        );
                        assert_eq!(out.matches("define ").count(), 1, "{cell}");
                    }
                    (Err(refusal), Err(error)) => assert_eq!(refusal, error.refusal),
                    (verdict, lowered) => panic!("{cell}: {verdict:?} vs {lowered:?}"),
                }
            }
        }
    }
}
