//! `atomir.Target`'s methods (the class and its answers, `atomir.Verdict` and
//! `atomir.Refusal`, are in `answers`) and the functions over every target: `atomir.targets()`, `atomir.supported_targets(node)`, `atomir.targets_help()`.

use atomir::{GenericParams, LowerOptions, OnRefusal, Target as IrTarget};
use pyo3::prelude::*;

use crate::answers::{Refusal, Target, Verdict};
use crate::errors::invalid;
use crate::guarded;
use crate::module::{lower_each, lower_module, ModuleArg};
use crate::node::node_of;
use crate::splice::{binding_types, splice, OperandArg, SpliceArgs};
use crate::text::Text;

#[pymethods]
impl Target {
    #[new]
    fn new(name: Text) -> PyResult<Self> {
        guarded(|| {
            let target = name
                .get()?
                .parse::<IrTarget>()
                .map_err(|error| invalid(error.to_string()))?;
            Ok(Target { target })
        })
    }

    /// The canonical name, e.g. `ptx:sm_90@8.8`.
    #[getter]
    fn name(&self) -> String {
        self.target.to_string()
    }

    /// The backend: `"ptx"`, `"visa"` or `"llvm"`.
    #[getter]
    fn backend(&self) -> &'static str {
        self.target.backend_name()
    }

    /// PTX: the architecture as `.target` writes it (`"sm_90"`); None for other backends.
    #[getter]
    fn sm(&self) -> Option<&'static str> {
        match self.target {
            IrTarget::Ptx(ptx) => Some(ptx.sm.name()),
            _ => None,
        }
    }

    /// PTX: the PTX ISA version as `.version` writes it (`"8.8"`); None for other backends.
    #[getter]
    fn ptx_isa(&self) -> Option<String> {
        match self.target {
            IrTarget::Ptx(ptx) => Some(ptx.isa.to_string()),
            _ => None,
        }
    }

    /// LLVM: the target triple (`"amdgcn-amd-amdhsa"`); None for other backends.
    #[getter]
    fn triple(&self) -> Option<&'static str> {
        match self.target {
            IrTarget::Llvm(llvm) => Some(llvm.triple.triple_string()),
            _ => None,
        }
    }

    /// LLVM: the major version whose tools must accept the output; None for other backends.
    #[getter]
    fn llvm_version(&self) -> Option<u32> {
        match self.target {
            IrTarget::Llvm(llvm) => Some(llvm.major),
            _ => None,
        }
    }

    /// vISA: the platform (`"PVC"`); None for other backends.
    #[getter]
    fn platform(&self) -> Option<&'static str> {
        match self.target {
            IrTarget::Visa(visa) => Some(visa.platform.as_str()),
            _ => None,
        }
    }

    fn __str__(&self) -> String {
        self.target.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Target('{}')", self.target)
    }

    /// legalize(node) -> Verdict
    ///
    /// The target's answer for one `Atomic` or `Fence`, no kernel needed: how it is carried
    /// out (strategy, rewrites, emulation) and the size of its code in instructions
    /// (`verdict.instructions`, what a lowering of the node counts, and a PTX or vISA
    /// fragment; an LLVM fragment adds its jumps to and from your blocks; it lowers the node,
    /// some 0.1 ms), or why it cannot be (`verdict.refusal`: the rule, the reason and
    /// the smallest target of the backend that accepts it, a `Target`). Never raises for a
    /// node; `verdict.raise_if_refused()` turns a refusal into `atomir.RefusedError`.
    fn legalize(&self, node: &Bound<'_, PyAny>) -> PyResult<Verdict> {
        let node = node_of(node)?;
        guarded(|| {
            let verdict = Verdict::of(self.target, node, &self.target.legalize(&node));
            if !verdict.accepted {
                return Ok(verdict);
            }
            match self.target.instructions(&node) {
                Ok(count) => Ok(verdict.with_instructions(count)),
                Err(refusal) => Ok(Verdict::refused(self.target, Refusal::of(&refusal))),
            }
        })
    }

    /// One node lowered as a fragment for the inside of a kernel (PTX, vISA) or function
    /// (LLVM) of your own, its values bound to your registers or SSA values:
    ///
    /// - `address`: the name holding the address (a leading `%` sigil is dropped);
    /// - `operands`: one entry per operand (cas: the expected value, then the new one; a load
    ///   none), each a name or an int literal; a vector's operand is a list of them, one per
    ///   element (LLVM also takes one name of a whole vector value);
    /// - `result`: the name the old value goes to (a list of one name per element for a
    ///   vector on PTX and vISA), or None to let the fragment name it (`Fragment.results`);
    /// - `predicate`: a `pred` name guarding the access, `"!%p"` for its negation;
    /// - `prefix`: the start of every name the fragment makes up (temporaries, labels,
    ///   blocks); give each fragment of one unit its own, none starting another (`f0_`,
    ///   `f1_`, …);
    /// - `blocks`: LLVM, the (predecessor, continuation) blocks around the fragment.
    ///
    /// Returns a `Fragment`. Raises `atomir.RefusedError` where the target refuses the node,
    /// `atomir.InvalidError` for names the target cannot take or arguments that do not fit
    /// the node (each with the rule where one applies).
    #[pyo3(signature = (node, *, address = None, operands = Vec::new(), result = None,
        predicate = None, prefix = Text::of("m"), blocks = None),
        text_signature = "(self, node, *, address=None, operands=(), result=None, \
            predicate=None, prefix='m', blocks=None)")]
    #[allow(clippy::too_many_arguments)]
    fn splice(
        &self,
        node: &Bound<'_, PyAny>,
        address: Option<Text>,
        operands: Vec<OperandArg>,
        result: Option<OperandArg>,
        predicate: Option<Text>,
        prefix: Text,
        blocks: Option<(Text, Text)>,
    ) -> PyResult<crate::splice::Fragment> {
        let node = node_of(node)?;
        let args = SpliceArgs::new(address, operands, result, predicate, prefix, blocks)?;
        guarded(|| splice(self.target, node, args))
    }

    /// What `splice` with the same arguments binds: every value the node reads or defines
    /// (its role, the names given for it) and the type each name must have on this target,
    /// spelled as the client declares it (PTX `.b32`, vISA `type=ud …`, LLVM `i32`), as a
    /// list of `Binding`. Asking does not lower: a node the target refuses still has its types.
    #[pyo3(signature = (node, *, address = None, operands = Vec::new(), result = None,
        predicate = None, prefix = Text::of("m"), blocks = None),
        text_signature = "(self, node, *, address=None, operands=(), result=None, \
            predicate=None, prefix='m', blocks=None)")]
    #[allow(clippy::too_many_arguments)]
    fn binding_types(
        &self,
        node: &Bound<'_, PyAny>,
        address: Option<Text>,
        operands: Vec<OperandArg>,
        result: Option<OperandArg>,
        predicate: Option<Text>,
        prefix: Text,
        blocks: Option<(Text, Text)>,
    ) -> PyResult<Vec<crate::splice::Binding>> {
        let node = node_of(node)?;
        let args = SpliceArgs::new(address, operands, result, predicate, prefix, blocks)?;
        guarded(|| binding_types(self.target, node, args))
    }

    /// Lowers a module (an `atomir.Module`, or atomir's text, parsed and verified first). With
    /// `complete_module` the code is a unit the target's own tools accept (PTX `.entry`s, a
    /// vISA kernel, an LLVM module); else the kernels' code alone. A refusal raises
    /// `atomir.RefusedError` at the refused instruction's line and column, unless
    /// `skip_refusals`: then what is accepted is lowered and `Lowered.refusals` lists the rest.
    /// `plain_loops` puts code size before contended speed: what the target would carry out
    /// once per address by a warp's lanes combined, each lane carries out on its own (the same
    /// results; PTX's `+plain-loops`). `generic_params="anywhere"` says a complete module's
    /// `ptr.generic` kernel parameters may point into shared memory too (by default they point
    /// to global memory, as a launch passes them). Returns a `Lowered`.
    #[pyo3(signature = (module, *, complete_module = false, skip_refusals = false,
        plain_loops = false, generic_params = Text::of("global")),
        text_signature = "(self, module, *, complete_module=False, skip_refusals=False, \
            plain_loops=False, generic_params='global')")]
    fn lower(
        &self,
        module: ModuleArg,
        complete_module: bool,
        skip_refusals: bool,
        plain_loops: bool,
        generic_params: Text,
    ) -> PyResult<crate::module::Lowered> {
        guarded(|| {
            let generic_params = match generic_params.get()? {
                "global" => GenericParams::Global,
                "anywhere" => GenericParams::Anywhere,
                other => {
                    return Err(invalid(format!(
                    "`{other}` is not where generic parameters point; expected global or anywhere"
                )))
                }
            };
            let options = LowerOptions::fragment()
                .with_complete_module(complete_module)
                .with_on_refusal(if skip_refusals {
                    OnRefusal::Skip
                } else {
                    OnRefusal::Stop
                })
                .with_plain_loops(plain_loops)
                .with_generic_params(generic_params)
                .with_count_instructions(true);
            lower_module(self.target, &module, &options)
        })
    }

    /// lower_each(module, *, plain_loops=False) -> list[InstLowering]
    ///
    /// Every instruction of a module lowered on its own (a result of another instruction it
    /// reads becomes an input): one answer per instruction in program order, its code and
    /// verdict or its refusal. Never stops at a refusal.
    #[pyo3(signature = (module, *, plain_loops = false))]
    fn lower_each(
        &self,
        module: ModuleArg,
        plain_loops: bool,
    ) -> PyResult<Vec<crate::module::InstLowering>> {
        let options = LowerOptions::fragment().with_plain_loops(plain_loops);
        guarded(|| lower_each(self.target, &module, &options))
    }
}

/// targets() -> list[Target]
///
/// Every target the backends accept: PTX, then vISA, then LLVM, each in its backend's order
/// (every architecture at every PTX ISA version, with each opt-in option where it applies;
/// every vISA platform; every LLVM triple at every major version).
#[pyfunction]
fn targets() -> PyResult<Vec<Target>> {
    guarded(|| {
        Ok(IrTarget::all()
            .into_iter()
            .map(|target| Target { target })
            .collect())
    })
}

/// supported_targets(node) -> list[Target]
///
/// Every target of `atomir.targets()` that accepts the `Atomic` or `Fence`, in that order.
#[pyfunction]
fn supported_targets(node: &Bound<'_, PyAny>) -> PyResult<Vec<Target>> {
    let node = node_of(node)?;
    guarded(|| {
        Ok(atomir::supported_targets(&node)
            .into_iter()
            .map(|target| Target { target })
            .collect())
    })
}

/// targets_help() -> str
///
/// The target names every backend accepts, one block per backend (what `atomir lower
/// --help` prints).
#[pyfunction]
fn targets_help() -> PyResult<String> {
    guarded(|| Ok(atomir::targets_help()))
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Target>()?;
    module.add_class::<Verdict>()?;
    module.add_class::<Refusal>()?;
    module.add_function(wrap_pyfunction!(targets, module)?)?;
    module.add_function(wrap_pyfunction!(supported_targets, module)?)?;
    module.add_function(wrap_pyfunction!(targets_help, module)?)?;
    Ok(())
}
