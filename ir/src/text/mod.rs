//! The text form: parser and canonical printer.
//!
//! ```text
//! kernel k(%p: ptr.global, %x: u32) {
//!   %old = atomic.add.relaxed.device.global.u32 [%p], %x
//! }
//! ```
//! `atomic.<op>[.<order>][.<scope>][.<space>][.v2|.v4|.v8].<type>[.<laxity>][.<hint>]`
//! (laxity: [`crate::FloatLaxity`], `ftz` or `ieee2008`); an omitted order is
//! relaxed, scope device, space generic. The printer spells every qualifier out, so
//! `print(parse(print(m)))` equals `print(m)`.

mod lexer;
pub(crate) mod literal;
mod parser;
mod printer;

use crate::diag::{Diagnostic, Diagnostics};
use crate::kernel::Module;
use crate::types::ValueType;

pub use printer::{print_kernel, write_inst};

/// Parses the text form into a module. Positions in diagnostics are 1-based line:col (columns
/// count characters). Never panics; reports every broken line it can.
pub fn parse(source: &str) -> Result<Module, Vec<Diagnostic>> {
    parse_with_limit(source, usize::MAX).map_err(Diagnostics::into_vec)
}

/// [`parse`], keeping the first `limit` diagnostics and only counting the rest.
pub fn parse_with_limit(source: &str, limit: usize) -> Result<Module, Diagnostics> {
    parser::Parser::new(source, limit).parse_module()
}

/// Prints a module in canonical form (every qualifier spelled out).
pub fn print(module: &Module) -> String {
    printer::print_module(module)
}

/// The type parser lives with the text form, which the ground-floor `types` never imports.
impl std::str::FromStr for ValueType {
    type Err = String;

    /// Parses a type as the text form spells it: `pred`, `ptr.global`, `u32`, `v4.f32`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parser::parse_value_type(text)
    }
}
