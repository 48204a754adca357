//! The hook through which a caller decides where an `.entry`'s parameter values come from and
//! where its results go, when it launches the kernel otherwise than with the kernel's own
//! parameters (many threads, each with its own values, say). The printer prints every load and
//! store itself; the hook declares the parameters and prints the addresses.

use std::fmt;

use atomir_ir::spelling::{Displayed, Spell};
use atomir_ir::{spell, AddressSpace, ValueType};

use super::{Class, KernelEmitter, Temp};

/// Where an `.entry`'s parameter values come from and its results go (see
/// [`PtxTarget::lower_entries_with`](crate::PtxTarget::lower_entries_with)); the printer
/// asks it in this order: [`EntryHook::declare_param`] for each parameter,
/// [`EntryHook::prologue`], [`EntryHook::param_address`] for each parameter, and after the
/// body [`EntryHook::result_address`] for each result.
pub trait EntryHook {
    /// The type of `.param` `index` (of kernel type `ty`) in the signature, where it is not
    /// the kernel's own: `.u64` for an address to read the value at, say.
    fn declare_param(&self, index: usize, ty: ValueType) -> Option<&'static str>;

    /// Prints (into `body`) what runs before any parameter is read.
    fn prologue(&mut self, registers: &mut EntryRegisters<'_, '_>, body: &mut String);

    /// Prints (into `body`) the global address of the value of the `.param` named `param`
    /// into a register of `registers` and returns it, or `None` where the value is the
    /// parameter itself. A value takes `bytes` bytes.
    fn param_address(
        &mut self,
        registers: &mut EntryRegisters<'_, '_>,
        param: &str,
        bytes: usize,
        body: &mut String,
    ) -> Option<EntryRegister>;

    /// Prints (into `body`) the move of `address`, the global address the `.param` of a
    /// result holds, to where this entry stores the result, which takes `bytes` bytes.
    fn result_address(&mut self, address: EntryRegister, bytes: usize, body: &mut String);

    /// The memory a `ptr.generic` kernel parameter may point into.
    fn generic_params_space(&self) -> AddressSpace;
}

/// A register of the entry, printed as its name (`%_r7`, `%_d3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryRegister(pub(super) Temp);

impl Spell for EntryRegister {
    fn spell(&self, out: &mut String) {
        spell!(out, "%_", self.0.class.letter(), self.0.number);
    }
}

impl fmt::Display for EntryRegister {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&Displayed(self), f)
    }
}

/// Where an [`EntryHook`] takes the registers it prints into: they are declared with the
/// kernel's.
pub struct EntryRegisters<'e, 'k> {
    pub(super) emitter: &'e mut KernelEmitter<'k>,
}

impl EntryRegisters<'_, '_> {
    /// A fresh 32-bit register.
    pub fn b32(&mut self) -> EntryRegister {
        EntryRegister(self.emitter.temp(Class::B32))
    }

    /// A fresh 64-bit register.
    pub fn b64(&mut self) -> EntryRegister {
        EntryRegister(self.emitter.temp(Class::B64))
    }
}
