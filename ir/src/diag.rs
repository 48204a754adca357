//! Diagnostics that point at a place in the source text.

use std::fmt;

use crate::kernel::SourceLoc;

/// An error at a line and column, with what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub loc: SourceLoc,
    pub message: String,
}

impl Diagnostic {
    pub fn new(loc: SourceLoc, message: impl Into<String>) -> Self {
        Diagnostic {
            loc,
            message: message.into(),
        }
    }

    /// `file:line:col: error: message`, the form editors and CI logs link to.
    pub fn render(&self, file: &str) -> String {
        format!(
            "{file}:{}:{}: error: {}",
            self.loc.line, self.loc.col, self.message
        )
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: error: {}", self.loc, self.message)
    }
}

impl std::error::Error for Diagnostic {}
