//! Diagnostics that point at a place in the source text.

use std::fmt;

use crate::kernel::SourceLoc;

/// An error at a line and column, with what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where: the line and column of the text form, or unknown for a kernel built in code.
    pub loc: SourceLoc,
    /// What is wrong and what was expected, in one line.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic at `loc`.
    pub fn new(loc: SourceLoc, message: impl Into<String>) -> Self {
        Diagnostic {
            loc,
            message: message.into(),
        }
    }

    /// `file:line:col: error: message`, the form editors and CI logs link to (`file: error:
    /// message` where the location is unknown).
    pub fn render(&self, file: &str) -> String {
        if !self.loc.is_known() {
            return format!("{file}: error: {}", self.message);
        }
        format!(
            "{file}:{}:{}: error: {}",
            self.loc.line, self.loc.col, self.message
        )
    }
}

impl fmt::Display for Diagnostic {
    /// `line:col: error: message`; for a kernel built in code, which has no location, `error:
    /// message`, the message naming the kernel and the instruction.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.loc.is_known() {
            return write!(f, "error: {}", self.message);
        }
        write!(f, "{}: error: {}", self.loc, self.message)
    }
}

impl std::error::Error for Diagnostic {}

/// The diagnostics of one input: the first `limit` kept in full, the rest only counted, so a
/// file of a million broken lines costs a counter, not a million messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostics {
    kept: Vec<Diagnostic>,
    omitted: usize,
    limit: usize,
}

impl Diagnostics {
    /// Keeps at most `limit` diagnostics (`usize::MAX`: all of them).
    pub fn with_limit(limit: usize) -> Self {
        Diagnostics {
            kept: Vec::new(),
            omitted: 0,
            limit,
        }
    }

    /// Whether the next diagnostic would be kept; a caller may skip formatting one that would not.
    pub fn keeps_next(&self) -> bool {
        self.kept.len() < self.limit
    }

    /// Records a diagnostic: kept while under the limit, otherwise only counted.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        if self.keeps_next() {
            self.kept.push(diagnostic);
        } else {
            self.omitted += 1;
        }
    }

    /// Counts one diagnostic that is past the limit without building it.
    pub(crate) fn count_omitted(&mut self) {
        self.omitted += 1;
    }

    /// Whether nothing was reported.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty() && self.omitted == 0
    }

    /// The diagnostics kept, in the order they were reported.
    pub fn kept(&self) -> &[Diagnostic] {
        &self.kept
    }

    /// How many were reported past the limit.
    pub fn omitted(&self) -> usize {
        self.omitted
    }

    /// How many were reported in all.
    pub fn total(&self) -> usize {
        self.kept.len() + self.omitted
    }

    /// The diagnostics kept (all of them when the limit was `usize::MAX`).
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.kept
    }
}
