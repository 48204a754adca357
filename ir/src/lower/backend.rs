//! The dyn-safe entry to a lowering target ([`Backend`]), which every [`Target`](super::Target)
//! is, and the legalization of a whole module through it.

use super::{BindingTypes, Fragment, InstLowering, LowerError, LowerOptions, LowerReport};
use super::{SpliceNames, WriteError};
use crate::kernel::{Fence, Inst, Kernel, Module, Param};
use crate::legal::{Legality, Refusal, Verdict};
use crate::node::{AtomicNode, Node};
use crate::verify::Verified;

/// A lowering target. Implemented once per backend; the CLI, the matrix and the tests talk to
/// backends only through this trait.
pub trait Backend {
    /// The canonical target name, e.g. `ptx:sm_90@7.8`.
    fn target_name(&self) -> String;

    /// The legality table's answer for one node.
    fn legalize(&self, node: &AtomicNode) -> Verdict;

    /// The table's answer for a kernel's parameters, used or not (a parameter is part of the
    /// kernel's interface): the first one the target cannot carry, and why.
    fn legalize_signature(&self, params: &[Param]) -> Result<(), (usize, Refusal)>;
    /// The legality table's answer for one fence.
    fn legalize_fence(&self, fence: &Fence) -> Verdict;

    /// The answer for an access or a fence.
    fn legalize_node(&self, node: &Node) -> Verdict {
        match node {
            Node::Atomic(node) => self.legalize(node),
            Node::Fence(fence) => self.legalize_fence(fence),
        }
    }

    /// The answer for instruction `inst` of `kernel` (its node with the kernel's facts); an id
    /// the kernel does not hold is refused.
    fn legalize_inst(&self, kernel: &Kernel, inst: Inst) -> Verdict {
        match Node::of(kernel, inst) {
            Some(node) => self.legalize_node(&node),
            None => Err(Refusal::new(
                crate::rule::KitRule::NoSuchInstruction,
                format!(
                    "kernel `{}` has {} instructions; it holds no {inst}",
                    kernel.name,
                    kernel.insts.len()
                ),
            )),
        }
    }

    /// Lowers a verified module, appending the emitted code to `out`.
    fn lower(
        &self,
        module: &Verified<'_>,
        options: &LowerOptions,
        out: &mut String,
    ) -> Result<LowerReport, LowerError>;

    /// Lowers every instruction of a verified module on its own: one answer per instruction,
    /// in program order, its code or its refusal ([`crate::lower::lower_each`]).
    fn lower_each(&self, module: &Verified<'_>, options: &LowerOptions) -> Vec<InstLowering> {
        super::lower_each(self, module, options)
    }

    /// Lowers a verified module, writing the code to `sink` kernel by kernel, in chunks, so
    /// memory follows the module rather than its code. A refusal writes nothing. (By default
    /// the code is gathered whole, then written.)
    fn lower_into(
        &self,
        module: &Verified<'_>,
        options: &LowerOptions,
        sink: &mut dyn std::io::Write,
    ) -> Result<LowerReport, WriteError> {
        let mut out = String::new();
        let report = self.lower(module, options, &mut out)?;
        sink.write_all(out.as_bytes()).map_err(WriteError::Io)?;
        Ok(report)
    }

    /// Lowers instruction `inst` of kernel number `kernel` as a fragment to splice into the
    /// client's own code, its values named by `names`, into `fragment`
    /// ([`crate::lower::splice`] states the contract and the naming conventions).
    fn splice(
        &self,
        module: &Verified<'_>,
        kernel: usize,
        inst: Inst,
        names: &SpliceNames,
        fragment: &mut Fragment,
    ) -> Result<Legality, LowerError>;

    /// What a client binds to splice instruction `inst` of kernel number `kernel`: every value
    /// the instruction reads or defines, its role, how many names it takes and the type of each
    /// on this target ([`crate::lower::BindingTypes`]; none for a fence). An id the module
    /// does not hold is an error.
    fn binding_types(
        &self,
        module: &Verified<'_>,
        kernel: usize,
        inst: Inst,
    ) -> Result<BindingTypes, LowerError>;
}

/// Legalizes every instruction and parameter of a module, stopping at the first refusal.
pub fn legalize_module(backend: &dyn Backend, module: &Module) -> Result<LowerReport, LowerError> {
    let mut report = LowerReport::default();
    for (index, kernel) in module.kernels.iter().enumerate() {
        for inst in kernel.insts.keys() {
            match backend.legalize_inst(kernel, inst) {
                Ok(legality) => report.record(index, inst, &legality),
                Err(refusal) => return Err(super::error(kernel, inst, refusal)),
            }
        }
        backend
            .legalize_signature(&kernel.params)
            .map_err(|(param, refusal)| super::param_error(kernel, param, refusal))?;
    }
    Ok(report)
}
