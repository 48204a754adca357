//! The registry's side of splicing: lowering one instruction into the client's code, what the
//! client binds for it, and a refusal's smallest target as a [`Target`] ([`Refused`]).

use crate::{
    BindingTypes, Fragment, Inst, Legality, LlvmTarget, LowerError, PtxTarget, Refusal,
    SpliceNames, Target, TargetId, Verified, VisaTarget,
};

/// A refusal's smallest target as a [`Target`], typed: on a [`Refusal`] (a verdict's, a
/// report's) and on a [`LowerError`] (a lowering's, a splice's). Its name is the refusal's text
/// only: `Display` prints it, and [`Target`]'s own `Display` prints the same canonical name.
pub trait Refused {
    /// The smallest target of the same backend that accepts what is refused. `None` where no
    /// target of the backend accepts it, or the refusal blames the caller's input.
    fn smallest_target(&self) -> Option<Target>;
}

impl Refused for Refusal {
    fn smallest_target(&self) -> Option<Target> {
        if self.rule.blames_caller() {
            return None;
        }
        self.smallest_target.as_ref().and_then(Target::of_id)
    }
}

impl Refused for LowerError {
    fn smallest_target(&self) -> Option<Target> {
        self.refusal.smallest_target()
    }
}

impl Target {
    /// Lowers instruction `inst` of kernel number `kernel` as a fragment for the inside of the
    /// client's own unit, its values named by `names`, into `fragment` (cleared first, its
    /// storage reused). [`crate::splice`] states the contract and the naming conventions.
    pub fn splice(
        &self,
        module: &Verified<'_>,
        kernel: usize,
        inst: Inst,
        names: &SpliceNames,
        fragment: &mut Fragment,
    ) -> Result<Legality, LowerError> {
        self.backend().splice(module, kernel, inst, names, fragment)
    }

    /// The smallest target that accepts what `refusal` refuses ([`Refused::smallest_target`]).
    pub fn smallest_accepting(refusal: &Refusal) -> Option<Target> {
        refusal.smallest_target()
    }

    /// The target `id` holds: the backend's own target a refusal names, as a [`Target`]. `None`
    /// for an id of a backend this crate does not have (a test's fake backend).
    pub fn of_id(id: &TargetId) -> Option<Target> {
        id.get::<PtxTarget>()
            .map(Target::Ptx)
            .or_else(|| id.get::<VisaTarget>().map(Target::Visa))
            .or_else(|| id.get::<LlvmTarget>().map(Target::Llvm))
    }

    /// What the client binds to splice instruction `inst` of kernel number `kernel`: every
    /// value the instruction reads or defines ([`crate::ValueRole`]: address, operands, new value,
    /// predicate, result), how many names it takes (one, or one per lane) and the type each
    /// has on this target ([`crate::SpliceType`]), and a pointer's address space. The types are
    /// those the printer reads and writes, spelled as the client declares them:
    ///
    /// | value | PTX (`.reg`) | vISA (`.decl`) | LLVM |
    /// | --- | --- | --- | --- |
    /// | u8/s8/b8, 16-bit data | `.b16` | `type=ud` | `i8`, `i16`, `half`, `bfloat` |
    /// | 32-bit data, f16x2, bf16x2 | `.b32` | `type=ud` | `i32`, `float` (f16x2: `i32`) |
    /// | 64-bit data | `.b64` | `type=uq` | `i64`, `double` |
    /// | b128 | `.b128` | (refused) | `i128` |
    /// | vN of a type | N registers of its type | N variables | `<N x ty>`, one value |
    /// | `ptr.global`/`generic`/`shared…` | `.b64` (an address of that space) | `uq` (`ud` for `shared`: an SLM offset) | `ptr addrspace(N)` of the triple (x86-64: `ptr`; LLVM 14: `i8*`, `i8 addrspace(N)*`) |
    /// | `pred` | `.pred` | `v_type=P` | `i1` |
    ///
    /// [`BindingTypes`]' `Display` writes one value a line, e.g. `operand %h (f16x2): 1 name
    /// of type .b32`. An id the module does not hold is an error.
    pub fn binding_types(
        &self,
        module: &Verified<'_>,
        kernel: usize,
        inst: Inst,
    ) -> Result<BindingTypes, LowerError> {
        self.backend().binding_types(module, kernel, inst)
    }
}
