//! The PTX reader: every atomic instruction, ordered load and store and fence of a PTX module,
//! as the atomir node it means, with where it stands and the registers bound to its values.
//!
//! It reads what ptxas 12.9 and 13.5 accept (PTX ISA 6.0 to 9.5): `.version`, `.target`,
//! functions, `.reg` declarations (with `%r<10>` ranges) and state-space variables, and finds
//! every `atom`, `red`, `ld`/`st` with `.relaxed`/`.acquire`/`.release`/`.volatile`, `fence`
//! and `membar`, in any order of its qualifiers (ptxas accepts `atom.add.acquire.gpu.s32` and
//! `atom.global.sys.add.u32` as readily as the grammar's `atom.acquire.gpu.global.add`),
//! guarded or not. Under PTX's defaults (PTX ISA 9.7.13.5 `atom`: "If the `.sem` qualifier is
//! absent, `.relaxed` is assumed by default", "If the `.scope` qualifier is absent, `.gpu`
//! scope is assumed by default", "If no state space is given, perform the memory accesses
//! using Generic Addressing"; `fence` without `.sem` is `fence.acq_rel`), a missing qualifier
//! reads as relaxed, device scope, generic. `membar.{cta,gl,sys}` reads as a seq_cst fence at
//! block, device, system scope, and `ld.volatile`/`st.volatile` as a relaxed load or store at
//! system scope ([`crate::spell::MembarLevel`], [`crate::spell::PtxSem::Volatile`] cite the
//! ISA).
//!
//! Everything else is not an atomic and is left as it is: plain (weak) loads and stores,
//! arithmetic, control flow, `createpolicy` (whose policy a hinted atomic's node carries).
//! A form PTX has and atomir does not model (`.mmio`, `multimem`, `red.async`,
//! `cp.reduce.async.bulk`, `fence.proxy`, …) and any instruction that does not parse as its
//! opcode says is an error with its line and column; the rest of the module is still read.
//!
//! An atomic's node is exactly what its instruction means, with two documented equivalents: a
//! `red` is the node of an unused result, and an `atom` whose destination is a register reads
//! as a node whose result is used (the reader does not follow the register).

mod decl;
mod kernel;
mod meaning;
mod operands;
mod scan;
mod syntax;

use std::fmt;
use std::ops::Range;

use atomir_ir::{Kernel, Module, Node};

pub use decl::{Declarations, RegisterType};

use crate::spell::PtxOpcode;
use crate::target::{PtxIsa, Sm};

/// One atomic instruction (or fence) read from PTX.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadAtomic {
    /// Byte range of the instruction in the source, from its guard or opcode up to its `;`
    /// (not included).
    pub span: Range<usize>,
    /// 1-based line of the opcode (or of the guard).
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
    /// The function the instruction belongs to (empty outside any).
    pub function: String,
    /// What the instruction means.
    pub node: Node,
    /// The opcode it was written with (`atom`, `red`, `ld`, `st`, `fence`, `membar`).
    pub opcode: PtxOpcode,
    /// The registers and literals bound to its values.
    pub values: Bindings,
    /// The whole source line that holds the instruction.
    pub raw: String,
}

/// The operands of an atomic instruction as the PTX names them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bindings {
    /// `@%p`/`@!%p`: the predicate register and whether it is negated.
    pub guard: Option<(String, bool)>,
    /// The destination registers, one per lane (`_` for a lane written to the bit bucket);
    /// empty for `red`, `st` and fences.
    pub result: Vec<String>,
    /// The address (none for a fence).
    pub address: Option<PtxAddress>,
    /// The operand, one per lane (for `cas`, the expected value).
    pub operand: Vec<PtxScalar>,
    /// `cas`'s new value, one per lane.
    pub new_value: Vec<PtxScalar>,
    /// The `createpolicy` register of a `.L2::cache_hint` form.
    pub policy: Option<String>,
}

/// One lane of an operand: a register or a literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PtxScalar {
    /// A register, with its `%`.
    Register(String),
    /// A literal as written, and its bits (masked to the element's width).
    Literal {
        /// The literal's text (`1`, `0x10`, `0f3F800000`).
        text: String,
        /// Its bits.
        bits: u128,
    },
}

/// An address operand: `[%rd1]`, `[%rd1+8]`, `[buf]`, `[buf+8]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxAddress {
    /// A register (with its `%`) or a variable.
    pub base: String,
    /// Whether `base` is a variable (its address) rather than a register (holding one).
    pub variable: bool,
    /// The byte offset after the base.
    pub offset: i64,
    /// The width of the base register in bits (64 unless declared narrower; 64 for a
    /// variable).
    pub bits: u32,
}

impl fmt::Display for PtxAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            0 => write!(f, "[{}]", self.base),
            offset if offset < 0 => write!(f, "[{}{offset}]", self.base),
            offset => write!(f, "[{}+{offset}]", self.base),
        }
    }
}

/// A problem in the source: where, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: error: {}", self.line, self.col, self.message)
    }
}

impl std::error::Error for ReadError {}

/// A module read: its header and its atomics, and the problems found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadModule {
    /// `.version`, where given and known.
    pub version: Option<PtxIsa>,
    /// Byte range of the `.version` directive.
    pub version_span: Option<Range<usize>>,
    /// `.target`'s architecture, where given and known.
    pub sm: Option<Sm>,
    /// Byte range of the `.target` directive.
    pub target_span: Option<Range<usize>>,
    /// The atomics, in source order.
    pub atomics: Vec<ReadAtomic>,
    /// Every problem, in source order.
    pub errors: Vec<ReadError>,
}

/// Reads a PTX module. Never fails as a whole and never panics: each problem is one
/// [`ReadError`] and the rest of the module is still read.
pub fn read_module(source: &str) -> ReadModule {
    let lines = scan::Lines::new(source);
    let mut module = ReadModule::default();
    let mut decls = Declarations::strict();
    let mut function = String::new();
    let mut depth = 0usize;
    for piece in scan::pieces(source) {
        match piece {
            scan::Piece::Open(_) => {
                depth += 1;
                decls.open();
            }
            scan::Piece::Close(_) => {
                depth = depth.saturating_sub(1);
                decls.close();
                if depth == 0 {
                    function.clear();
                }
            }
            scan::Piece::Statement {
                start,
                end,
                ends_block_head,
            } => {
                let text = &source[start..end];
                if ends_block_head {
                    function = function_name(text).unwrap_or_default();
                }
                let context = meaning::Context {
                    source,
                    lines: &lines,
                    decls: &mut decls,
                    function: &function,
                };
                meaning::statement(context, start, text, &mut module);
            }
        }
    }
    module
}

/// Reads one instruction (`atom.global.add.f32 %f1, [%rd1], %f2;`, the `;` optional) with the
/// registers' types from `decls` (a register `decls` does not declare is taken to have the
/// type the instruction needs). For a translator that keeps its own parser: line and column
/// count from the start of `text`.
pub fn read_instruction(text: &str, decls: &Declarations) -> Result<ReadAtomic, ReadError> {
    let body = text.trim_end();
    let body = body.strip_suffix(';').unwrap_or(body);
    let lines = scan::Lines::new(text);
    let mut decls = decls.clone();
    decls.open();
    let mut module = ReadModule::default();
    let context = meaning::Context {
        source: text,
        lines: &lines,
        decls: &mut decls,
        function: "",
    };
    meaning::instruction(context, 0, body, &mut module);
    if let Some(error) = module.errors.into_iter().next() {
        return Err(error);
    }
    module.atomics.pop().ok_or_else(|| ReadError {
        line: 1,
        col: 1,
        message: "not an atomic instruction, ordered load or store, or fence".into(),
    })
}

/// The function a header declares (`.visible .entry name(` or `.func (.param .b32 r) name(`):
/// the first identifier written just before a `(`.
fn function_name(header: &str) -> Option<String> {
    header.match_indices('(').find_map(|(at, _)| {
        let name = header[..at].split_whitespace().last()?;
        let plain = !name.starts_with('.') && !name.ends_with(')');
        plain.then(|| name.to_string())
    })
}

impl ReadAtomic {
    /// A module of one kernel (named after the function) holding only this instruction: its
    /// registers become parameters (the address a pointer into the node's space, data of the
    /// node's type, the guard a predicate), its destination the result, its literals
    /// constants. The kernel is what [`atomir_ir::text`] prints and a target lowers or splices;
    /// parameter names are the registers' without `%` (a variable's address is a parameter
    /// named after the variable).
    pub fn module(&self) -> Module {
        Module {
            kernels: vec![meaning::kernel_of(self)],
        }
    }

    /// The kernel of [`ReadAtomic::module`].
    pub fn kernel(&self) -> Kernel {
        meaning::kernel_of(self)
    }

    /// The kernel of [`ReadAtomic::module`] and, for each of its parameters in order, the PTX
    /// register or variable it stands for (with `%` for a register): what a splice binds.
    pub fn kernel_with_registers(&self) -> (Kernel, Vec<String>) {
        kernel::kernel_and_registers(self)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn function_names() {
        use super::function_name;
        assert_eq!(
            function_name(".visible .entry k(.param .u64 p)").as_deref(),
            Some("k")
        );
        assert_eq!(
            function_name(".func (.param .b32 r) _Z1fPi(.param .b64 p)").as_deref(),
            Some("_Z1fPi")
        );
        assert_eq!(function_name(".visible .func g()").as_deref(), Some("g"));
    }
}
