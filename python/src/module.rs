//! Modules in atomir's text form: `atomir.parse(text)` gives a verified `atomir.Module`, which
//! `Target.lower` and `Target.lower_each` lower.

use atomir::ir::Node;
use atomir::{text, verify, LowerOptions, Module as IrModule, Target as IrTarget, Verified};
use pyo3::prelude::*;

use crate::answers::{lower_error, Refusal, Verdict};
use crate::errors::diagnostics;
use crate::guarded;
use crate::node::node_object;
use crate::text::Text;

/// A module of atomir's text form, parsed and verified: its kernels and their instructions.
/// `str(module)` is the canonical text (every qualifier spelled out).
#[pyclass(module = "atomir", frozen)]
pub struct Module {
    module: IrModule,
}

impl Module {
    /// The module, verified (it was when it was parsed, so this cannot fail; the verifier's
    /// proof is not kept across calls).
    fn verified(&self) -> PyResult<Verified<'_>> {
        verify::verify(&self.module)
            .map_err(|found| diagnostics("the module does not verify", &found))
    }
}

/// Parses and verifies atomir's text; every diagnostic of a text that does not parse or
/// verify is on the `atomir.InvalidError` raised (`error.diagnostics`, the first one's
/// `line` and `col`).
fn parse_module(source: &str) -> PyResult<Module> {
    let module =
        text::parse(source).map_err(|found| diagnostics("the text does not parse", &found))?;
    verify::verify(&module).map_err(|found| diagnostics("the module does not verify", &found))?;
    Ok(Module { module })
}

#[pymethods]
impl Module {
    /// The names of the kernels, in order.
    #[getter]
    fn kernels(&self) -> Vec<String> {
        self.module
            .kernels
            .iter()
            .map(|kernel| kernel.name.to_string())
            .collect()
    }

    /// instructions() -> list[Instruction]
    ///
    /// Every instruction of every kernel, in program order, with its node and its place.
    fn instructions(&self, py: Python<'_>) -> PyResult<Vec<Instruction>> {
        guarded(|| {
            let mut found = Vec::new();
            for kernel in &self.module.kernels {
                for (index, (inst, data)) in kernel.insts.iter().enumerate() {
                    let loc = kernel.loc_of(inst);
                    found.push(Instruction {
                        kernel: kernel.name.to_string(),
                        index,
                        node: node_object(py, Node::of_data(kernel, data))?,
                        line: loc.is_known().then_some(loc.line),
                        col: loc.is_known().then_some(loc.col),
                    });
                }
            }
            Ok(found)
        })
    }

    fn __str__(&self) -> PyResult<String> {
        guarded(|| Ok(text::print(&self.module)))
    }

    fn __repr__(&self) -> String {
        format!("Module(kernels={:?})", self.kernels())
    }
}

/// One instruction of a module: its kernel, its position there, its node (`Atomic` or
/// `Fence`) and where the text writes it.
#[pyclass(module = "atomir", frozen, get_all)]
pub struct Instruction {
    /// The kernel's name.
    pub kernel: String,
    /// The instruction's position in its kernel, from 0.
    pub index: usize,
    /// The node, with what the kernel knows of it (the pointer's space, a literal operand).
    pub node: Py<PyAny>,
    /// The line of the text form, or None.
    pub line: Option<u32>,
    /// The column of the text form, or None.
    pub col: Option<u32>,
}

/// A module argument: an `atomir.Module`, or atomir's text.
pub(crate) enum ModuleArg {
    Parsed(Py<Module>),
    Text(Text),
}

impl<'a, 'py> FromPyObject<'a, 'py> for ModuleArg {
    type Error = PyErr;

    fn extract(object: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(module) = object.extract::<Py<Module>>() {
            return Ok(ModuleArg::Parsed(module));
        }
        Ok(ModuleArg::Text(object.extract::<Text>().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err(
                "expected an atomir.Module or atomir's text (a str)",
            )
        })?))
    }
}

impl ModuleArg {
    /// Runs `body` on the module, parsing the text first.
    fn with<T>(&self, body: impl FnOnce(&Module) -> PyResult<T>) -> PyResult<T> {
        match self {
            ModuleArg::Parsed(module) => body(module.get()),
            ModuleArg::Text(source) => body(&parse_module(source.get()?)?),
        }
    }
}

/// The code of a lowered module, the verdict of each instruction lowered and the refusals
/// left out (with `skip_refusals`).
#[pyclass(module = "atomir", frozen, get_all)]
pub struct Lowered {
    /// The code.
    pub code: String,
    /// (kernel name, instruction position, verdict) of each instruction lowered.
    pub verdicts: Vec<(String, usize, Verdict)>,
    /// What was left out, in program order.
    pub refusals: Vec<Refusal>,
}

#[pymethods]
impl Lowered {
    fn __str__(&self) -> String {
        self.code.clone()
    }
}

/// One instruction lowered on its own: its code and verdict, or its refusal.
#[pyclass(module = "atomir", frozen, get_all)]
pub struct InstLowering {
    /// The kernel's name.
    pub kernel: String,
    /// The instruction's position in its kernel.
    pub index: usize,
    /// The code, or None if refused.
    pub code: Option<String>,
    /// The verdict (accepted or refused).
    pub verdict: Verdict,
}

/// The position of `inst` in its kernel.
fn position(module: &IrModule, kernel: usize, inst: atomir::Inst) -> (String, usize) {
    use atomir::EntityRef;
    let name = module
        .kernels
        .get(kernel)
        .map_or_else(String::new, |kernel| kernel.name.to_string());
    (name, inst.index())
}

/// The node of `inst` of kernel number `kernel`.
fn node_at(module: &IrModule, kernel: usize, inst: atomir::Inst) -> Option<Node> {
    module
        .kernels
        .get(kernel)
        .and_then(|kernel| Node::of(kernel, inst))
}

pub(crate) fn lower_module(
    target: IrTarget,
    module: &ModuleArg,
    options: &LowerOptions,
) -> PyResult<Lowered> {
    module.with(|module| {
        let verified = module.verified()?;
        let mut code = String::new();
        let report = target
            .lower(&verified, options, &mut code)
            .map_err(|error| lower_error(&error))?;
        let mut verdicts = Vec::with_capacity(report.len());
        let counts = report.instructions();
        for (number, (kernel, inst, legality)) in report.decisions().enumerate() {
            let (name, index) = position(&module.module, kernel, inst);
            if let Some(node) = node_at(&module.module, kernel, inst) {
                let mut verdict = Verdict::accepted(target, node, legality);
                if let Some(&count) = counts.get(number) {
                    verdict = verdict.with_instructions(count);
                }
                verdicts.push((name, index, verdict));
            }
        }
        let refusals = report.refusals().iter().map(Refusal::of_error).collect();
        Ok(Lowered {
            code,
            verdicts,
            refusals,
        })
    })
}

pub(crate) fn lower_each(
    target: IrTarget,
    module: &ModuleArg,
    options: &LowerOptions,
) -> PyResult<Vec<InstLowering>> {
    module.with(|module| {
        let verified = module.verified()?;
        let each = target.lower_each(&verified, options);
        let mut answers = Vec::with_capacity(each.len());
        for answer in each {
            let (kernel, index) = position(&module.module, answer.kernel, answer.inst);
            let Some(node) = node_at(&module.module, answer.kernel, answer.inst) else {
                continue;
            };
            answers.push(match answer.result {
                Ok((legality, code)) => InstLowering {
                    kernel,
                    index,
                    code: Some(code),
                    verdict: Verdict::accepted(target, node, &legality)
                        .with_instructions(answer.instructions),
                },
                Err(error) => InstLowering {
                    kernel,
                    index,
                    code: None,
                    verdict: Verdict::refused(target, Refusal::of_error(&error)),
                },
            });
        }
        Ok(answers)
    })
}

/// parse(text) -> Module
///
/// Parses and verifies a module of atomir's text form. A text that does not parse or
/// verify raises `atomir.InvalidError` with every diagnostic (`error.diagnostics`) and the
/// first one's `line` and `col`.
#[pyfunction]
fn parse(text: Text) -> PyResult<Module> {
    guarded(|| parse_module(text.get()?))
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Module>()?;
    module.add_class::<Instruction>()?;
    module.add_class::<Lowered>()?;
    module.add_class::<InstLowering>()?;
    module.add_function(wrap_pyfunction!(parse, module)?)?;
    Ok(())
}
