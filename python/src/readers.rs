//! The readers of other compilers' output and what is built on them: `atomir.read_ptx(text)`
//! finds every atomic, ordered load and store and fence of a PTX module as the atomir node it
//! means, `atomir.read_ptx_instruction(text)` reads one instruction, `atomir.read_llvm(text)`
//! finds every atomic of an LLVM IR module, `atomir.fix_llvm(text, target)` replaces each by
//! atomir's lowering for one llc, and `atomir.audit(ir, ptx)` judges the PTX made from an IR
//! module. Each is the facade's ([`atomir::read_ptx`], [`atomir::read_ptx_instruction`],
//! [`atomir::read_llvm`], [`atomir::fix::fix_module`], [`atomir::audit::audit`]).

use atomir::audit::{Report, Verdict as AuditVerdict};
use atomir::llvm::read::LlKind;
use atomir::{
    read_llvm, read_ptx, read_ptx_instruction, text, Diagnostic, LlAtomic, LlvmReadOptions, Node,
    PtxDeclarations, PtxScalar, ReadAtomic, SourceLoc, Triple,
};
use pyo3::prelude::*;

use crate::answers::Target;
use crate::errors::{invalid, raise, Details, InvalidError};
use crate::guarded;
use crate::node::node_object;
use crate::text::{optional, Text};

/// One atomic instruction, ordered load or store, or fence read from PTX: where it stands
/// (`line`, `col`, `function`), what it means (`node`, an `Atomic` or `Fence`), the opcode it
/// was written with (`"atom"`, `"red"`, `"ld"`, `"st"`, `"fence"`, `"membar"`), the PTX's own
/// names of its values (`guard` as `"%p"` or `"!%p"`, `result` one register per lane, `address`
/// as written, `operands` and `new_value` one register or literal per lane, `policy`), its
/// source line (`raw`), and `text`: the one-instruction module of atomir's text form it
/// becomes, which `Target.lower` takes.
#[pyclass(module = "atomir", frozen, get_all)]
pub struct PtxAtomic {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// The function it belongs to (empty outside any).
    pub function: String,
    /// What it means: an `Atomic` or a `Fence`.
    pub node: Py<PyAny>,
    /// The opcode it was written with.
    pub opcode: &'static str,
    /// The guard: `"%p"`, `"!%p"`, or None.
    pub guard: Option<String>,
    /// The destination registers, one per lane.
    pub result: Vec<String>,
    /// The address as written (`[%rd1+8]`), or None for a fence.
    pub address: Option<String>,
    /// The operand, one register or literal per lane (for cas, the expected value).
    pub operands: Vec<String>,
    /// cas's new value, one per lane.
    pub new_value: Vec<String>,
    /// The `createpolicy` register of a `.L2::cache_hint` form, or None.
    pub policy: Option<String>,
    /// The source line that holds the instruction.
    pub raw: String,
    /// The one-instruction module of atomir's text form it becomes.
    pub text: String,
}

impl PtxAtomic {
    fn of(py: Python<'_>, read: &ReadAtomic) -> PyResult<Self> {
        let spelled = |scalars: &[PtxScalar]| {
            scalars
                .iter()
                .map(|scalar| match scalar {
                    PtxScalar::Register(name) => name.clone(),
                    PtxScalar::Literal { text, .. } => text.clone(),
                })
                .collect()
        };
        let values = &read.values;
        Ok(PtxAtomic {
            line: read.line,
            col: read.col,
            function: read.function.clone(),
            node: node_object(py, read.node)?,
            opcode: read.opcode.as_str(),
            guard: values
                .guard
                .as_ref()
                .map(|(name, negated)| format!("{}{name}", if *negated { "!" } else { "" })),
            result: values.result.clone(),
            address: values.address.as_ref().map(ToString::to_string),
            operands: spelled(&values.operand),
            new_value: spelled(&values.new_value),
            policy: values.policy.clone(),
            raw: read.raw.clone(),
            text: text::print(&read.module()),
        })
    }
}

#[pymethods]
impl PtxAtomic {
    fn __repr__(&self) -> String {
        format!(
            "PtxAtomic(line={}, col={}, function='{}', opcode='{}')",
            self.line, self.col, self.function, self.opcode
        )
    }
}

/// A PTX module read: `version` (`"8.8"`) and `sm` (`"sm_90"`) where its header gives them,
/// its `atomics` in source order, and `errors`: each (line, col, message) of a construct the
/// reader does not model or cannot parse (the rest of the module is still read).
#[pyclass(module = "atomir", frozen, get_all)]
pub struct PtxModule {
    /// `.version`, or None.
    pub version: Option<String>,
    /// `.target`'s architecture, or None.
    pub sm: Option<&'static str>,
    /// The atomics, in source order.
    pub atomics: Vec<Py<PtxAtomic>>,
    /// Every problem, in source order.
    pub errors: Vec<(u32, u32, String)>,
}

/// read_ptx(text) -> PtxModule
///
/// Reads a PTX module (what ptxas 12.9 and 13.5 accept): every `atom`, `red`, ordered
/// `ld`/`st`, `fence` and `membar`, as the atomir node it means under PTX's defaults. Never
/// raises for a text: each construct it does not model is one entry of `errors`, with its
/// line and column.
#[pyfunction]
#[pyo3(name = "read_ptx")]
fn read_ptx_module(py: Python<'_>, text: Text) -> PyResult<PtxModule> {
    guarded(|| {
        let read = read_ptx(text.get()?);
        let atomics = read
            .atomics
            .iter()
            .map(|atomic| Py::new(py, PtxAtomic::of(py, atomic)?))
            .collect::<PyResult<_>>()?;
        Ok(PtxModule {
            version: read.version.map(|isa| isa.to_string()),
            sm: read.sm.map(|sm| sm.name()),
            atomics,
            errors: read
                .errors
                .iter()
                .map(|error| (error.line, error.col, error.message.clone()))
                .collect(),
        })
    })
}

/// read_ptx_instruction(text) -> PtxAtomic
///
/// Reads one PTX instruction (`atom.global.add.f32 %f1, [%rd1], %f2;`, the `;` optional), a
/// register's type taken from what the instruction needs. Raises `atomir.InvalidError` with
/// the line and column where it is not an atomic, ordered load or store, or fence atomir
/// models.
#[pyfunction]
#[pyo3(name = "read_ptx_instruction")]
fn read_ptx_one(py: Python<'_>, text: Text) -> PyResult<PtxAtomic> {
    guarded(
        || match read_ptx_instruction(text.get()?, &PtxDeclarations::new()) {
            Ok(read) => PtxAtomic::of(py, &read),
            Err(error) => Err(raise::<InvalidError>(
                error.to_string(),
                Details {
                    reason: error.message.clone(),
                    loc: Some(SourceLoc::new(error.line, error.col)),
                    diagnostics: vec![(error.line, error.col, error.message.clone())],
                    ..Details::default()
                },
            )),
        },
    )
}

/// Each diagnostic as (line, col, message).
fn located(diagnostics: &[Diagnostic]) -> Vec<(u32, u32, String)> {
    diagnostics
        .iter()
        .map(|d| (d.loc.line, d.loc.col, d.message.clone()))
        .collect()
}

/// The read options of a triple's name (`"nvptx64"`, `"amdgcn"`, or the full
/// `"nvptx64-nvidia-cuda"`); None reads the module's own `target triple`.
fn read_options(triple: Option<&str>) -> PyResult<LlvmReadOptions> {
    let Some(name) = triple else {
        return Ok(LlvmReadOptions::default());
    };
    let found = Triple::ALL
        .into_iter()
        .find(|t| t.name() == name || t.triple_string() == name);
    match found {
        Some(triple) => Ok(LlvmReadOptions {
            triple: Some(triple),
        }),
        None => Err(invalid(format!(
            "`{name}` names no triple atomir reads; expected one of {}",
            Triple::ALL.map(Triple::name).join(", ")
        ))),
    }
}

/// One atomic instruction of an LLVM IR module: where it stands (`line`, `col`, `function`),
/// its `kind` (`"atomicrmw"`, `"cmpxchg"`, `"load"`, `"store"`, `"fence"`), what it means
/// (`node`, an `Atomic` or `Fence`, None where the reader gives none), and the instruction as
/// written (`raw`, from its result's
/// name to its last token).
#[pyclass(module = "atomir", frozen, get_all)]
pub struct LlvmAtomic {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// The function it belongs to.
    pub function: String,
    /// The instruction: `"atomicrmw"`, `"cmpxchg"`, `"load"`, `"store"` or `"fence"`.
    pub kind: &'static str,
    /// What it means: an `Atomic` or a `Fence` (None where the reader gives no node).
    pub node: Option<Py<PyAny>>,
    /// The instruction as written.
    pub raw: String,
}

impl LlvmAtomic {
    fn of(py: Python<'_>, source: &str, function: &str, read: &LlAtomic) -> PyResult<Self> {
        let node = match (read.node(), read.fence()) {
            (Some(node), _) => Some(node_object(py, Node::Atomic(node))?),
            (None, Some(fence)) => Some(node_object(py, Node::Fence(fence))?),
            (None, None) => None,
        };
        Ok(LlvmAtomic {
            line: read.loc.line,
            col: read.loc.col,
            function: function.to_string(),
            kind: match read.kind {
                LlKind::Rmw(_) => "atomicrmw",
                LlKind::Cmpxchg => "cmpxchg",
                LlKind::Load => "load",
                LlKind::Store => "store",
                LlKind::Fence => "fence",
            },
            node,
            raw: source.get(read.span.clone()).unwrap_or("").to_string(),
        })
    }
}

#[pymethods]
impl LlvmAtomic {
    fn __repr__(&self) -> String {
        format!(
            "LlvmAtomic(line={}, col={}, function='{}', kind='{}')",
            self.line, self.col, self.function, self.kind
        )
    }
}

/// An LLVM IR module read: its `triple` (`"nvptx64"`, where the module or the call names
/// one), its `atomics` in source order, and `errors`: each (line, col, message) of an atomic
/// the reader does not model or cannot parse (the rest of the module is still read).
#[pyclass(module = "atomir", frozen, get_all)]
pub struct LlvmModule {
    /// The triple's short name, or None.
    pub triple: Option<&'static str>,
    /// The atomics, in source order.
    pub atomics: Vec<Py<LlvmAtomic>>,
    /// Every problem, in source order.
    pub errors: Vec<(u32, u32, String)>,
}

/// read_llvm(text, triple=None) -> LlvmModule
///
/// Reads an LLVM IR module (`.ll`): every `atomicrmw`, `cmpxchg`, `load atomic`, `store
/// atomic` and `fence`, as the atomir node it means. `triple` (`"nvptx64"`, `"amdgcn"`, ...)
/// says how to read sync scopes and address spaces where the module has no `target triple`.
/// Never raises for a text: each atomic it does not model is one entry of `errors`, with its
/// line and column. Raises `atomir.InvalidError` for a `triple` that names none.
#[pyfunction]
#[pyo3(name = "read_llvm", signature = (text, triple = None))]
fn read_llvm_module(py: Python<'_>, text: Text, triple: Option<Text>) -> PyResult<LlvmModule> {
    guarded(|| {
        let text = text.get()?;
        let reading = read_llvm(text, &read_options(optional(triple)?.as_deref())?);
        let module = &reading.module;
        let atomics = module
            .atomics
            .iter()
            .map(|atomic| {
                let function = module
                    .functions
                    .get(atomic.function)
                    .map_or("", |f| f.name.as_str());
                Py::new(py, LlvmAtomic::of(py, text, function, atomic)?)
            })
            .collect::<PyResult<_>>()?;
        Ok(LlvmModule {
            triple: module.triple.map(Triple::name),
            atomics,
            errors: located(&reading.diagnostics),
        })
    })
}

/// An LLVM IR module after `fix_llvm`: its `text`, how many atomics were `replaced`, and
/// `diagnostics`: each (line, col, message) of an atomic left as it was, and why.
#[pyclass(module = "atomir", frozen, get_all)]
pub struct Fixed {
    /// The module's text, each replaced atomic's code in its place.
    pub text: String,
    /// How many atomics were replaced.
    pub replaced: usize,
    /// One per atomic left as it was.
    pub diagnostics: Vec<(u32, u32, String)>,
}

/// A target given as a `Target` or by its name.
#[derive(FromPyObject)]
enum TargetArg<'py> {
    Target(Bound<'py, Target>),
    Name(Text),
}

impl TargetArg<'_> {
    fn target(self) -> PyResult<atomir::Target> {
        match self {
            TargetArg::Target(target) => Ok(target.get().target),
            TargetArg::Name(name) => name
                .get()?
                .parse::<atomir::Target>()
                .map_err(|error| invalid(error.to_string())),
        }
    }
}

/// fix_llvm(text, target) -> Fixed
///
/// The LLVM IR module `text` with each atomic replaced by atomir's lowering of it for
/// `target` (an LLVM target such as `"llvm:nvptx64@22"`, or its `Target`), so that the llc
/// of that version keeps every order and scope. Everything else is copied byte for byte; an
/// atomic that cannot be read or that the target refuses is left as it was and reported in
/// `diagnostics`. Raises `atomir.InvalidError` where the module cannot be fixed at all (a
/// target that is not an LLVM one, a module for another triple).
#[pyfunction]
fn fix_llvm(text: Text, target: TargetArg<'_>) -> PyResult<Fixed> {
    guarded(|| {
        let target = target.target()?;
        let fixed = atomir::fix::fix_module(text.get()?, &target, LlvmReadOptions::default())
            .map_err(|error| invalid(error.to_string()))?;
        Ok(Fixed {
            text: fixed.text,
            replaced: fixed.replaced,
            diagnostics: located(&fixed.diagnostics),
        })
    })
}

#[pymethods]
impl Fixed {
    fn __repr__(&self) -> String {
        format!(
            "Fixed(replaced={}, diagnostics={})",
            self.replaced,
            self.diagnostics.len()
        )
    }
}

/// One IR atomic of an audit: its `function`, the IR instruction (`ir_line`, `ir_text`), the
/// PTX instructions matched to it (`ptx`, each (line, text)), the `verdict` (`"kept"`,
/// `"strengthened"`, `"weakened"` or `"unmatched"`) and its `details` in words (what is
/// stronger, each weakening, or why nothing matches).
#[pyclass(module = "atomir", frozen, get_all)]
pub struct AuditEntry {
    /// The function it is in.
    pub function: String,
    /// The IR instruction's 1-based line.
    pub ir_line: u32,
    /// The IR instruction as written.
    pub ir_text: String,
    /// The PTX instructions matched to it, each (line, text).
    pub ptx: Vec<(u32, String)>,
    /// `"kept"`, `"strengthened"`, `"weakened"` or `"unmatched"`.
    pub verdict: &'static str,
    /// The verdict's details, in words.
    pub details: Vec<String>,
}

#[pymethods]
impl AuditEntry {
    fn __repr__(&self) -> String {
        format!(
            "AuditEntry(function='{}', ir_line={}, verdict='{}')",
            self.function, self.ir_line, self.verdict
        )
    }
}

/// The audit of the PTX made from an LLVM IR module: one entry per IR atomic (`entries`),
/// the PTX atomics no IR atomic took (`unclaimed`, each (function, line, text)), what could
/// not be read (`ir_errors` as (line, col, message), `ptx_errors`), the counts `weakened` and
/// `unmatched`, `is_clean` (nothing weakened or unmatched, both read whole), and `render`.
#[pyclass(module = "atomir", frozen)]
pub struct AuditReport {
    report: Report,
}

#[pymethods]
impl AuditReport {
    /// One entry per IR atomic read, in the IR's order.
    #[getter]
    fn entries(&self, py: Python<'_>) -> PyResult<Vec<Py<AuditEntry>>> {
        self.report
            .entries
            .iter()
            .map(|entry| {
                let (verdict, details) = match &entry.verdict {
                    AuditVerdict::Kept => ("kept", Vec::new()),
                    AuditVerdict::Strengthened(what) => ("strengthened", what.clone()),
                    AuditVerdict::Weakened(how) => {
                        ("weakened", how.iter().map(ToString::to_string).collect())
                    }
                    AuditVerdict::Unmatched(why) => ("unmatched", vec![why.clone()]),
                };
                let ptx = entry.ptx.iter().map(|p| (p.line, p.text.clone())).collect();
                Py::new(
                    py,
                    AuditEntry {
                        function: entry.function.clone(),
                        ir_line: entry.ir.line,
                        ir_text: entry.ir.text.clone(),
                        ptx,
                        verdict,
                        details,
                    },
                )
            })
            .collect()
    }

    /// The PTX atomics no IR atomic took, each (function, line, text).
    #[getter]
    fn unclaimed(&self) -> Vec<(String, u32, String)> {
        self.report
            .unclaimed
            .iter()
            .map(|(function, line)| (function.clone(), line.line, line.text.clone()))
            .collect()
    }

    /// The IR atomics that could not be read, each (line, col, message).
    #[getter]
    fn ir_errors(&self) -> Vec<(u32, u32, String)> {
        located(&self.report.ir_errors)
    }

    /// The PTX atomics that could not be read.
    #[getter]
    fn ptx_errors(&self) -> Vec<String> {
        self.report.ptx_errors.clone()
    }

    /// How many IR atomics the PTX weakens.
    #[getter]
    fn weakened(&self) -> usize {
        self.report.weakened()
    }

    /// How many IR atomics match no PTX.
    #[getter]
    fn unmatched(&self) -> usize {
        self.report.unmatched()
    }

    /// Whether the PTX keeps every atomic's meaning: nothing weakened or unmatched, both
    /// modules read whole.
    #[getter]
    fn is_clean(&self) -> bool {
        self.report.is_clean()
    }

    /// render(ir_name="<ir>", ptx_name="<ptx>") -> str
    ///
    /// The report as text: one block per IR atomic with both lines, then the totals.
    #[pyo3(signature = (ir_name = Text::of("<ir>"), ptx_name = Text::of("<ptx>")),
        text_signature = "(self, ir_name='<ir>', ptx_name='<ptx>')")]
    fn render(&self, ir_name: Text, ptx_name: Text) -> PyResult<String> {
        guarded(|| Ok(self.report.render(ir_name.get()?, ptx_name.get()?)))
    }

    fn __repr__(&self) -> String {
        format!(
            "AuditReport(entries={}, weakened={}, unmatched={})",
            self.report.entries.len(),
            self.report.weakened(),
            self.report.unmatched()
        )
    }
}

/// audit(ir, ptx, triple=None) -> AuditReport
///
/// Audits the PTX `ptx` that llc made from the LLVM IR module `ir`: pairs each IR atomic
/// with the PTX that carries it and says whether the PTX keeps, strengthens or weakens its
/// order, scope and arithmetic, or matches it not at all. `triple` reads the IR where it
/// names none (nvptx64 by default). Never raises for a text: what cannot be read is in
/// `ir_errors` and `ptx_errors`.
#[pyfunction]
#[pyo3(signature = (ir, ptx, triple = None))]
fn audit(ir: Text, ptx: Text, triple: Option<Text>) -> PyResult<AuditReport> {
    guarded(|| {
        let options = read_options(optional(triple)?.as_deref())?;
        Ok(AuditReport {
            report: atomir::audit::audit(ir.get()?, ptx.get()?, options),
        })
    })
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PtxAtomic>()?;
    module.add_class::<PtxModule>()?;
    module.add_function(wrap_pyfunction!(read_ptx_module, module)?)?;
    module.add_function(wrap_pyfunction!(read_ptx_one, module)?)?;
    module.add_class::<LlvmAtomic>()?;
    module.add_class::<LlvmModule>()?;
    module.add_class::<Fixed>()?;
    module.add_class::<AuditEntry>()?;
    module.add_class::<AuditReport>()?;
    module.add_function(wrap_pyfunction!(read_llvm_module, module)?)?;
    module.add_function(wrap_pyfunction!(fix_llvm, module)?)?;
    module.add_function(wrap_pyfunction!(audit, module)?)?;
    Ok(())
}
