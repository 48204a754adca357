//! The lowering kit: what every backend shares between its legality table and its printer.
//!
//! A backend is two things:
//! - a [`Table`] for each target: for one [`AtomicNode`] or fence (a [`Node`]), a [`Plan`] (the
//!   verdict and the backend's typed native form) or a [`Refusal`], and the
//!   [`Table::candidates`] a refusal's smallest target is searched among;
//! - a [`Printer`]: it prints a module's prologue, each node (whole, or the shared expansion the
//!   driver hands it), each fence, and the epilogue, and decides nothing the plan did not.
//!
//! One driver, [`lower_with`], lowers a module: it legalizes every instruction first (so a
//! refusal leaves the output untouched), builds every [`LowerError`] in one place, expands the
//! nodes that are not printed whole with one reused [`Expander`], and asks the printer to print.
//! [`legalize`] is the same legalization, so `legalize` and `lower` agree by construction.
//! Every [`Target`] (a table with its printer) is a [`Backend`], the dyn-safe entry the CLI, the
//! matrix and the tests use.
//!
//! The kit lives in one module per concern, each re-exported here: `table` and `printer` are
//! the two halves of a backend, `planning` and `driver` lower a
//! module, `inst` prints one instruction (the expansion walk and its fence brackets), `facts`
//! computes what a printer may know of an expansion's variables ([`Facts`]),
//! `splicing` lowers one as a fragment, `error` builds every [`LowerError`], `spell` is
//! how every printer appends text ([`Spell`], [`spell!`](crate::spell)), and `template` keeps
//! the text of an expansion printed once for the later instructions that print it again with
//! other names ([`Template`]).
//!
//! [`AtomicNode`]: crate::node::AtomicNode
//! [`Node`]: crate::node::Node
//! [`Refusal`]: crate::legal::Refusal
//! [`LowerError`]: crate::lower::LowerError
//! [`Expander`]: crate::expand::Expander
//! [`Backend`]: crate::lower::Backend

mod backend;
mod binding;
mod driver;
mod error;
mod facts;
mod fence;
mod inst;
mod linear;
pub mod namer;
mod options;
mod planning;
mod printer;
mod report;
pub mod splice;
mod splicing;
mod table;
mod template;

pub use crate::spelling::{decimal, Displayed, Hex, Spell};
pub use backend::{legalize_module, Backend};
pub use binding::{BindingTypes, SpliceType, ValueBinding, ValueRole};
pub use driver::{lower_each, lower_into, lower_module, lower_with, InstLowering, CHUNK};
pub use error::{error, param_error, LowerError, Site, WriteError};
pub use facts::{reads_above_byte, FactViolation, Facts};
pub use fence::{Access, Fence, FenceBracket, FencePolicy, FenceSide};
pub use inst::Scratch;
pub use linear::{incoming, Label, Linear, Params, Step};
pub use namer::{NameRules, Namer, Suffix, PTX_ENTRY_NAMES};
pub use options::{GenericParams, LowerOptions, OnRefusal};
pub use printer::{
    append_buffer, move_to_front, At, Expanding, Printer, Replay, Style, Target, Unprintable,
};
pub use report::LowerReport;
pub use splice::{Binding, Fragment, FragmentResult, FragmentTemp, SpliceNameError, SpliceNames};
pub use splicing::{binding_types, splice_inst};
pub use table::{
    legalize, legalize_beside, legalize_signature, smallest_accepting, ParseTargetError, Passes,
    Plan, Table,
};
pub use template::{Hole, Recorder, Template};
