//! The extension module `atomir._atomir` of the Python package `atomir`: the `atomir` crate's
//! facade ([`atomir::Target`], [`atomir::supported_targets`], splicing, lowering of a module's
//! text) as Python classes and functions.
//!
//! Every entry point runs inside `guarded`, so a panic anywhere below becomes the Python
//! exception `atomir.InternalError` instead of unwinding into the interpreter; every other
//! failure is an exception under `atomir.Error` carrying the rule, the reason, the smallest
//! target and the location (module `errors`). The Python package (`python/atomir/__init__.py`)
//! re-exports this module and adds the vocabulary enums, built from `vocabulary()`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::prelude::*;
use pyo3::types::PyDict;

mod answers;
mod errors;
mod module;
mod node;
mod readers;
mod splice;
mod target;
mod text;

use atomir::{AddressSpace, AtomicOp, CacheHint, ElemType, MemoryOrder, Scope, VectorShape};
pub use errors::{Error, InternalError, InvalidError, RefusedError};

/// Runs `body`, turning a panic into `atomir.InternalError`: no Rust panic reaches Python as
/// an abort or as a `BaseException` a plain `except Exception` would miss.
pub(crate) fn guarded<T>(body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|text| text.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string());
            Err(InternalError::new_err(format!(
                "internal error in atomir (please report it with the input): {message}"
            )))
        }
    }
}

/// Every spelling of the text form's vocabulary, by the name of its enum in Python: `Op`,
/// `Type`, `Shape`, `Order`, `Scope`, `Space`, `Hint`, `Strategy`. The Python enums are built
/// from this, so they cannot drift from the library's spellings.
#[pyfunction]
fn vocabulary(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    fn names<T: Copy>(all: &[T], spell: fn(T) -> &'static str) -> Vec<&'static str> {
        all.iter().map(|value| spell(*value)).collect()
    }
    let dict = PyDict::new(py);
    dict.set_item("Op", names(AtomicOp::ALL, AtomicOp::as_str))?;
    dict.set_item("Type", names(ElemType::ALL, ElemType::as_str))?;
    dict.set_item("Shape", names(VectorShape::ALL, VectorShape::as_str))?;
    dict.set_item("Order", names(MemoryOrder::ALL, MemoryOrder::as_str))?;
    dict.set_item("Scope", names(Scope::ALL, Scope::as_str))?;
    dict.set_item("Space", names(AddressSpace::ALL, AddressSpace::as_str))?;
    dict.set_item("Hint", names(CacheHint::ALL, CacheHint::as_str))?;
    dict.set_item(
        "Strategy",
        names(&atomir::Strategy::ALL, atomir::Strategy::as_str),
    )?;
    Ok(dict)
}

/// Panics inside the boundary's guard, so a test can see a panic come back as
/// `atomir.InternalError` rather than as an abort.
#[pyfunction]
fn _panic_inside_the_guard() -> PyResult<()> {
    guarded(|| panic!("a panic raised on purpose to test the boundary"))
}

/// The module `atomir._atomir`.
#[pymodule]
fn _atomir(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(module)?;
    module.add_function(wrap_pyfunction!(vocabulary, module)?)?;
    module.add_function(wrap_pyfunction!(_panic_inside_the_guard, module)?)?;
    node::register(module)?;
    target::register(module)?;
    splice::register(module)?;
    readers::register(module)?;
    module::register(module)?;
    Ok(())
}
