//! Strings from Python. A `str` may hold a lone surrogate (`"\ud800"`), which no UTF-8 text
//! can: taken as a [`Text`], such a string is an `atomir.InvalidError` where it is used,
//! never the `UnicodeEncodeError` of a conversion to `String`.

use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors::invalid;

/// A `str` argument: its text, or `None` where it holds a lone surrogate.
#[derive(Clone, Debug)]
pub(crate) struct Text(Option<String>);

impl Text {
    /// The text of a default argument.
    pub(crate) fn of(text: &str) -> Self {
        Text(Some(text.to_string()))
    }

    /// The text, or `atomir.InvalidError` for a string with a lone surrogate.
    pub(crate) fn get(&self) -> PyResult<&str> {
        self.0.as_deref().ok_or_else(|| {
            invalid(
                "a string holds a lone surrogate (U+D800 to U+DFFF), which is no character: \
                 atomir takes text that UTF-8 can encode",
            )
        })
    }

    /// The text, owned, or `atomir.InvalidError` as [`Text::get`].
    pub(crate) fn into_string(self) -> PyResult<String> {
        self.get()?;
        Ok(self.0.unwrap_or_default())
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Text {
    type Error = PyErr;

    /// Any `str` (a `TypeError`, as for `String`, for anything else).
    fn extract(object: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let string = object.cast::<PyString>()?;
        Ok(Text(string.to_cow().ok().map(|text| text.into_owned())))
    }
}

/// `text`, or `atomir.InvalidError` where an optional string argument holds a lone
/// surrogate.
pub(crate) fn optional(text: Option<Text>) -> PyResult<Option<String>> {
    text.map(Text::into_string).transpose()
}
