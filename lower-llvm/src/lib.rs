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

use atomir_ir::lower::{Table, Target};
use atomir_ir::{AtomicNode, Backend, LowerOptions, Param, Refusal};

use emit::LlvmPrinter;
pub use legality::{Form, LlvmPlan};

pub use legality::LlvmRule;
pub use target::{LlvmTarget, Triple};

/// Help text for this backend's target names, shown by `atomir lower --help`.
pub const TARGETS_HELP: &str = "\
llvm:<triple>[@<major>][+<option>]   LLVM IR for one triple, accepted by that LLVM version's tools
  triples:  nvptx64, amdgcn, spirv64, x86_64
  major:    14 to 23 (default 22); 14 prints typed pointers, 15 and later opaque `ptr`;
            nvptx64@23 keeps orders on atomicrmw, and llc 23 turns f32 fadd on global memory
            into its exact CAS loop (the native atom.add.f32 there flushes subnormals)
  options:  +coarse-grained (amdgcn only): every address is coarse-grained memory, so float
            atomics carry !amdgpu.no.fine.grained.memory and run natively; wrong for
            fine-grained (host-coherent) memory, hence off by default
  --module: one kernel function per kernel (ptx_kernel / amdgpu_kernel / spir_kernel) with a
            target triple; each used result is stored through a trailing pointer parameter";

/// Parses the part of a target name after `llvm:`.
pub fn parse_target(spec: &str) -> Result<Box<dyn Backend + Send + Sync>, String> {
    Ok(Box::new(LlvmTarget::parse(spec)?))
}

impl Table for LlvmTarget {
    type Plan = LlvmPlan;

    fn name(&self) -> String {
        self.to_string()
    }

    fn plan(&self, node: &AtomicNode) -> Result<LlvmPlan, Refusal> {
        legality::plan(self, node)
    }

    fn signature(&self, params: &[Param]) -> Result<(), (usize, Refusal)> {
        for (index, param) in params.iter().enumerate() {
            legality::param(self, param.ty).map_err(|refusal| (index, refusal))?;
        }
        Ok(())
    }

    fn plan_fence(&self, fence: &atomir_ir::Fence) -> Result<LlvmPlan, Refusal> {
        legality::fence_plan(self, fence)
    }

    /// The same triple with the same options at every LLVM version, oldest first; then, so
    /// that "no target of this backend" is only said when it is true, every other triple the
    /// same way.
    fn candidates(&self) -> Vec<LlvmTarget> {
        let versions = |triple: Triple, coarse_grained: bool| {
            (target::MIN_MAJOR..=target::MAX_MAJOR).map(move |major| LlvmTarget {
                coarse_grained,
                ..LlvmTarget::new(triple, major)
            })
        };
        let others = Triple::ALL
            .into_iter()
            .filter(|triple| *triple != self.triple)
            .flat_map(|triple| versions(triple, false));
        versions(self.triple, self.coarse_grained)
            .chain(others)
            .collect()
    }
}

impl Target for LlvmTarget {
    type Printer<'m> = LlvmPrinter<'m>;

    fn printer<'m>(&self, options: &LowerOptions) -> LlvmPrinter<'m> {
        LlvmPrinter::new(*self, options.complete_module)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atomir_ir::matrix::cells;
    use atomir_ir::Module;

    /// NVPTX from LLVM 23 carries the order and scope on `atomicrmw` itself; 22 needs fences
    /// around a monotonic one and widens the scope.
    #[test]
    fn nvptx_23_keeps_the_order_on_atomicrmw() {
        use atomir_ir::matrix::Cell;
        use atomir_ir::{AddressSpace, AtomicOp, ElemType, MemoryOrder, Scope, VectorShape};
        let cell = Cell {
            op: AtomicOp::Add,
            ty: ElemType::U32,
            shape: VectorShape::Scalar,
            order: MemoryOrder::Acquire,
            scope: Scope::Block,
            space: AddressSpace::Global,
            result_used: true,
        };
        let module = Module {
            kernels: vec![cell.kernel()],
        };
        let lowered = |spec| {
            let mut out = String::new();
            LlvmTarget::parse(spec)
                .unwrap()
                .lower(
                    &atomir_ir::verify::verify(&module).unwrap(),
                    &LowerOptions::default(),
                    &mut out,
                )
                .unwrap();
            out
        };
        let at23 = lowered("nvptx64@23");
        assert!(at23.contains("syncscope(\"block\") acquire"), "{at23}");
        assert!(!at23.contains("fence"), "{at23}");
        let at22 = lowered("nvptx64@22");
        assert!(at22.contains("fence"), "{at22}");
    }

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
                let verdict = target.legalize(&cell.node());
                out.clear();
                let lowered = target.lower(
                    &atomir_ir::verify::verify(&module).unwrap(),
                    &LowerOptions::default(),
                    &mut out,
                );
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
