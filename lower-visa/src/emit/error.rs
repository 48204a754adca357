//! Why the printer could not print what the table accepted: a disagreement between the two,
//! never bad input (the verifier and the table answer for that).

use std::fmt;

use atomir_ir::lower::Unprintable;

/// The part of the printer that stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EmitPart {
    /// Binding an expansion's inputs to the kernel's registers.
    Inputs,
    /// A primitive's ALU instructions.
    Alu,
    /// A memory message.
    Memory,
    /// Filling a recorded template's holes.
    Template,
}

impl EmitPart {
    const fn as_str(self) -> &'static str {
        match self {
            EmitPart::Inputs => "binding an expansion's inputs",
            EmitPart::Alu => "printing an ALU primitive",
            EmitPart::Memory => "printing a memory message",
            EmitPart::Template => "filling a template",
        }
    }
}

/// Why printing failed: where, and what was found there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct EmitError {
    /// Where printing stopped.
    pub part: EmitPart,
    /// What the printer found that it cannot spell.
    pub message: String,
}

impl EmitError {
    /// An error of `part`.
    pub(crate) fn new(part: EmitPart, message: impl Into<String>) -> Self {
        EmitError {
            part,
            message: message.into(),
        }
    }
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("vISA printer, ")?;
        f.write_str(self.part.as_str())?;
        f.write_str(": ")?;
        f.write_str(&self.message)
    }
}

impl From<EmitError> for Unprintable {
    fn from(error: EmitError) -> Self {
        Unprintable(error.to_string())
    }
}
