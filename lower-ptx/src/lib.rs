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

use std::collections::HashMap;

use atomir_ir::semantics::FloatMode;
use atomir_ir::{Backend, Inst, Kernel, LowerError, LowerOptions, LowerReport, Module, Verdict};

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
    PtxTarget::parse(spec).map(|target| Box::new(PtxBackend::new(target)) as _)
}

/// The PTX backend for one target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtxBackend {
    pub target: PtxTarget,
}

impl PtxBackend {
    pub const fn new(target: PtxTarget) -> Self {
        PtxBackend { target }
    }

    fn lower_as(
        &self,
        module: &Module,
        mode: emit::ParamMode,
        out: &mut String,
    ) -> Result<LowerReport, LowerError> {
        let mut report = LowerReport::default();
        // Programs repeat a few kinds of atomic: each distinct plan is decided once per kernel,
        // and an instruction only records which one it uses.
        let mut plans: Vec<legal::Plan> = Vec::new();
        let mut plan_index: HashMap<legal::PlanKey, u32> = HashMap::new();
        let mut chosen: Vec<u32> = Vec::new();
        let mut body = String::new();
        if mode != emit::ParamMode::Listing {
            self.header(out);
        }
        for (index, kernel) in module.kernels.iter().enumerate() {
            plans.clear();
            plan_index.clear();
            chosen.clear();
            for (id, inst) in kernel.insts.iter() {
                let inst = legal::supported_node(inst).map_err(|refusal| LowerError {
                    kernel: kernel.name.clone(),
                    inst: id,
                    loc: kernel.loc_of(id),
                    refusal,
                })?;
                let key = legal::PlanKey::of(inst);
                let plan = match plan_index.get(&key) {
                    Some(&plan) => plan,
                    None => {
                        let plan =
                            legal::verdict(inst, self.target).map_err(|refusal| LowerError {
                                kernel: kernel.name.clone(),
                                inst: id,
                                loc: kernel.loc_of(id),
                                refusal,
                            })?;
                        plans.push(plan);
                        let number = plans.len() as u32 - 1;
                        plan_index.insert(key, number);
                        number
                    }
                };
                report.record(index, id, &plans[plan as usize].legality);
                chosen.push(plan);
            }
            if index > 0 {
                out.push('\n');
            }
            emit::write_kernel(self.target, kernel, &plans, &chosen, mode, &mut body, out);
        }
        Ok(report)
    }

    fn header(&self, out: &mut String) {
        use std::fmt::Write;
        let _ = writeln!(out, "// Generated by atomir for ptx:{}", self.target);
        let _ = writeln!(out, ".version {}", self.target.isa);
        let _ = writeln!(out, ".target {}", self.target.sm.name());
        out.push_str(".address_size 64\n\n");
    }

    /// How the emitted code treats float subnormals for a node: `FlushSubnormals` for a native
    /// f32 add (or sub as add) that may reach global memory (PTX documents that `atom.add.f32`
    /// and `red.add.f32` flush there), `Ieee` for everything else (shared memory, CAS loops,
    /// f16/bf16 `.noftz`, f64).
    pub fn float_mode(&self, inst: &atomir_ir::AtomicInst) -> FloatMode {
        let native_f32_add = matches!(
            legal::plan(inst, self.target).map(|plan| plan.form),
            Ok(legal::Form::Native(spelling)) if spelling.op == "add" && spelling.ty == "f32"
        );
        let may_be_global = matches!(
            inst.space,
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
    pub fn lower_per_thread(
        &self,
        module: &Module,
        out: &mut String,
    ) -> Result<LowerReport, LowerError> {
        self.lower_as(module, emit::ParamMode::PerThread, out)
    }
}

impl Backend for PtxBackend {
    fn target_name(&self) -> String {
        format!("ptx:{}", self.target)
    }

    fn legalize(&self, kernel: &Kernel, inst: Inst) -> Verdict {
        legal::supported_node(&kernel.insts[inst])
            .and_then(|inst| legal::verdict(inst, self.target))
            .map(|plan| plan.legality)
    }

    fn lower(
        &self,
        module: &Module,
        options: &LowerOptions,
        out: &mut String,
    ) -> Result<LowerReport, LowerError> {
        let mode = if options.complete_module {
            emit::ParamMode::Entry
        } else {
            emit::ParamMode::Listing
        };
        self.lower_as(module, mode, out)
    }
}
