//! The exceptions of the Python package: `atomir.Error` and its subclasses, each carrying
//! `rule`, `reason`, `smallest_target`, `kernel`, `line`, `col` and `diagnostics` (`None`, or
//! empty, where they do not apply).

use atomir::{Diagnostic, SourceLoc};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::PyTypeInfo;

create_exception!(
    atomir,
    Error,
    PyException,
    "Every failure atomir reports. Attributes: `rule` (the rule id that refuses, e.g. \
     'ptx.b128-needs-sm90', or None), `reason` (what is wrong, in words), `smallest_target` \
     (the smallest target of the same backend that would accept the node, an `atomir.Target`, \
     or None), `kernel`, `line` and `col` (where the text form writes the refused \
     instruction, or None for a node built in code), `diagnostics` (every (line, col, message) \
     of a text that does not parse or verify)."
);
create_exception!(
    atomir,
    RefusedError,
    Error,
    "A target cannot carry out a node: `rule` names the rule, `smallest_target` the smallest \
     target that accepts it (None where no target of the backend does)."
);
create_exception!(
    atomir,
    InvalidError,
    Error,
    "Input atomir cannot take: a text that does not parse or verify, a node the IR gives no \
     meaning, a target name, spelling or register name that names nothing."
);
create_exception!(
    atomir,
    InternalError,
    Error,
    "A bug in atomir (a panic caught at the boundary); the message says where."
);

/// The attributes every `atomir.Error` carries.
#[derive(Default)]
pub(crate) struct Details {
    pub rule: Option<String>,
    pub reason: String,
    pub kernel: Option<String>,
    pub loc: Option<SourceLoc>,
    pub diagnostics: Vec<(u32, u32, String)>,
}

/// An exception of class `E` with `message` and the attributes of `details`.
pub(crate) fn raise<E: PyTypeInfo>(message: String, details: Details) -> PyErr {
    let error = PyErr::new::<E, _>(message);
    Python::attach(|py| {
        let value = error.value(py);
        let loc = details.loc.filter(|loc| loc.is_known());
        // Setting an attribute on a fresh exception instance cannot fail.
        let _ = value.setattr("rule", details.rule);
        let _ = value.setattr("reason", details.reason);
        // A refusal's smallest target is set by the refusal: see `answers`.
        let _ = value.setattr("smallest_target", py.None());
        let _ = value.setattr("kernel", details.kernel);
        let _ = value.setattr("line", loc.map(|loc| loc.line));
        let _ = value.setattr("col", loc.map(|loc| loc.col));
        let _ = value.setattr("diagnostics", details.diagnostics);
    });
    error
}

/// `atomir.InvalidError` with `reason` as its message and nothing else known.
pub(crate) fn invalid(reason: impl Into<String>) -> PyErr {
    let reason = reason.into();
    raise::<InvalidError>(
        reason.clone(),
        Details {
            reason,
            ..Details::default()
        },
    )
}

/// `atomir.InvalidError` for a text that does not parse or verify: every diagnostic, the
/// first one's location on the exception.
pub(crate) fn diagnostics(what: &str, diagnostics: &[Diagnostic]) -> PyErr {
    let mut message = String::from(what);
    for diagnostic in diagnostics {
        message.push('\n');
        message.push_str(&diagnostic.render("<text>"));
    }
    let first = diagnostics.first();
    raise::<InvalidError>(
        message,
        Details {
            reason: first.map_or_else(String::new, |d| d.message.clone()),
            loc: first.map(|d| d.loc),
            diagnostics: diagnostics
                .iter()
                .map(|d| (d.loc.line, d.loc.col, d.message.clone()))
                .collect(),
            ..Details::default()
        },
    )
}

/// Adds the exception classes to the module, with every attribute `None` (or empty) on the
/// base class, so an exception that does not set one still has it.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    let base = py.get_type::<Error>();
    for attribute in ["rule", "smallest_target", "kernel", "line", "col"] {
        base.setattr(attribute, py.None())?;
    }
    base.setattr("reason", "")?;
    base.setattr("diagnostics", pyo3::types::PyTuple::empty(py))?;
    module.add("Error", base)?;
    module.add("RefusedError", py.get_type::<RefusedError>())?;
    module.add("InvalidError", py.get_type::<InvalidError>())?;
    module.add("InternalError", py.get_type::<InternalError>())?;
    Ok(())
}
