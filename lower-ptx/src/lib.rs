//! The PTX backend of atomir: lowers atomic nodes to `atom`/`red` (with `fence.sc`/`membar`
//! where the order needs it), or to the shared emulations of [`atomir_ir::expand`], for
//! `ptx:sm_XX[@X.Y]` targets.
//!
//! - [`target`]: architectures, ISA versions and the features each has.
//! - `legal`: the legality table (the only place that knows what ptxas accepts).
//! - `emit`: printing a native node, the primitives of an expansion, and whole kernels.
//!
//! Named properties of the emitted code:
//! - **FlushSubnormals**: a native `atom.add.f32` / `red.add.f32` on global memory (or a
//!   generic address that points there) flushes subnormal inputs and results to zero, as PTX
//!   documents; tests compare it with `semantics::FloatMode::FlushSubnormals`. On shared memory
//!   it does not flush.
//! - A cache hint is a performance hint only: it is printed (`.L2::cache_hint` with a
//!   `createpolicy`) where PTX has it (sm_80, PTX 7.4, global or generic, not on `cas`), and
//!   left out elsewhere; `no_allocate` is spelled `L2::evict_first`.
//! - The scope is always printed; `cluster` is widened to `gpu` before sm_90 (a recorded
//!   `Rewrite::ScopeWidened`). Orders are never weakened.

mod emit;
mod legal;
pub mod target;

use atomir_ir::lower::{lower_with, Table, Target};
use atomir_ir::semantics::FloatMode;
use atomir_ir::{
    AtomicNode, Backend, Fence, LowerError, LowerOptions, LowerReport, Module, Refusal,
};

use emit::PtxPrinter;
pub use legal::{Form, PtxOp, PtxPlan, PtxRmw, PtxType};

pub use legal::PtxRule;
pub use target::{Feature, PtxIsa, PtxTarget, Sm};

/// Help text for this backend's target names, shown by `atomir lower --help`.
pub const TARGETS_HELP: &str = "\
ptx:sm_XX[@X.Y]   NVIDIA PTX for an SM architecture, optionally with a PTX ISA version.
                  XX: 60 70 75 80 86 89 90 90a 100 120. X.Y: 5.0 to 9.1, at least the
                  architecture's oldest (sm_60 5.0, sm_70 6.0, sm_75 6.3, sm_80 7.0, sm_86 7.1,
                  sm_89/sm_90 7.8, sm_90a 8.0, sm_100 8.6, sm_120 8.7).
                  Default ISA: 8.8 for every architecture (the newest ptxas 12.9 accepts; ptxas
                  13.5 accepts it too for sm_75 and newer, and no longer assembles sm_60/sm_70).
                  Features follow both: .sem sm_70/6.0, .cluster sm_90/7.8, cache hints
                  sm_80/7.4, vector atomics sm_90/8.1, .b128 sm_90/8.3 (.sys 8.4).";

/// Parses the part of a target name after `ptx:`.
pub fn parse_target(spec: &str) -> Result<Box<dyn Backend + Send + Sync>, String> {
    PtxTarget::parse(spec).map(|target| Box::new(target) as _)
}

impl Table for PtxTarget {
    type Plan = PtxPlan;

    fn name(&self) -> String {
        format!("ptx:{self}")
    }

    fn plan(&self, node: &AtomicNode) -> Result<PtxPlan, Refusal> {
        legal::table(node, *self)
    }

    fn plan_fence(&self, fence: &Fence) -> Result<PtxPlan, Refusal> {
        legal::fence_table(fence, *self)
    }

    fn candidates(&self) -> Vec<PtxTarget> {
        legal::candidates()
    }
}

impl Target for PtxTarget {
    type Printer<'m> = PtxPrinter<'m>;

    fn printer<'m>(&self, options: &LowerOptions) -> PtxPrinter<'m> {
        let mode = if options.complete_module {
            emit::ParamMode::Entry
        } else {
            emit::ParamMode::Listing
        };
        PtxPrinter::new(*self, mode)
    }
}

impl PtxTarget {
    /// How the emitted code treats float subnormals for a node: `FlushSubnormals` for a native
    /// f32 add (or sub as add) that may reach global memory (PTX documents that `atom.add.f32`
    /// and `red.add.f32` flush there), `Ieee` for everything else (shared memory, CAS loops,
    /// f16/bf16 `.noftz`, f64).
    pub fn float_mode(&self, node: &AtomicNode) -> FloatMode {
        let native_f32_add = matches!(
            legal::table(node, *self).map(|plan| plan.form),
            Ok(Form::Native(PtxOp {
                op: PtxRmw::Add,
                ty: PtxType::F32,
                ..
            }))
        );
        let may_be_global = matches!(
            node.space,
            atomir_ir::AddressSpace::Global | atomir_ir::AddressSpace::Generic
        );
        if native_f32_add && may_be_global {
            FloatMode::FlushSubnormals
        } else {
            FloatMode::Ieee
        }
    }

    /// A complete module of test entries: every parameter becomes a pointer to one value per
    /// thread (thread `i` reads element `i`), and after the body every result is stored to
    /// element `i` of one extra `.u64` output-array parameter per result, in value order.
    /// Used by the GPU harness to run many threads against few addresses.
    #[doc(hidden)]
    pub fn lower_per_thread(
        &self,
        module: &Module,
        out: &mut String,
    ) -> Result<LowerReport, LowerError> {
        lower_with(
            self,
            PtxPrinter::new(*self, emit::ParamMode::PerThread),
            module,
            out,
        )
    }
}
