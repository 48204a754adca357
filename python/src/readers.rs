//! The readers of other compilers' output: `atomir.read_ptx(text)` finds every atomic, ordered
//! load and store and fence of a PTX module as the atomir node it means;
//! `atomir.read_ptx_instruction(text)` reads one instruction. Both are the facade's
//! ([`atomir::read_ptx`], [`atomir::read_ptx_instruction`]).

use atomir::{
    read_ptx, read_ptx_instruction, text, PtxDeclarations, PtxScalar, ReadAtomic, SourceLoc,
};
use pyo3::prelude::*;

use crate::errors::{raise, Details, InvalidError};
use crate::guarded;
use crate::node::node_object;

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
fn read_ptx_module(py: Python<'_>, text: String) -> PyResult<PtxModule> {
    guarded(|| {
        let read = read_ptx(&text);
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
fn read_ptx_one(py: Python<'_>, text: String) -> PyResult<PtxAtomic> {
    guarded(
        || match read_ptx_instruction(&text, &PtxDeclarations::new()) {
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

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PtxAtomic>()?;
    module.add_class::<PtxModule>()?;
    module.add_function(wrap_pyfunction!(read_ptx_module, module)?)?;
    module.add_function(wrap_pyfunction!(read_ptx_one, module)?)?;
    Ok(())
}
