//! The options of a lowering: what every backend understands, built through constructors so
//! that options can be added without breaking a client.

/// Options every backend understands.
///
/// New options will come, so the struct is built from [`LowerOptions::fragment`] (the
/// default) or [`LowerOptions::module`] and changed with the `with_…` methods.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LowerOptions {
    /// Wrap the output as a complete unit the target's own tools accept. Its kernels are then
    /// the target's entry points, and a target may take their parameters as its launches pass
    /// them: by default ([`GenericParams::Global`]) a PTX `.entry`'s `ptr.generic` parameters
    /// must point to global memory (as in CUDA), and a generic atomic through one is lowered as
    /// a global one.
    pub complete_module: bool,
    /// Where a complete module's kernels take their `ptr.generic` parameters to point.
    pub generic_params: GenericParams,
    /// What to do with an instruction the target refuses.
    pub on_refusal: OnRefusal,
    /// Code size before contended speed: a relaxed scalar node the target would carry out
    /// once per word or address by a warp's lanes combined (`WarpWordFold`,
    /// `WarpMaskedCasLoop`, `WarpCasThenMaskedLoop`, `WarpIntMinMax`) is carried out by each
    /// lane on its own, by the plain CAS loop or integer atomic (PTX's `+plain-loops`; the same
    /// results). False by default.
    pub plain_loops: bool,
    /// Count the instructions of each instruction's code as it is printed (its lines less
    /// labels and comments, [`LowerReport::instructions`](super::LowerReport::instructions)):
    /// a pass over the code, so off by default. Each instruction's code is then printed where
    /// it stands, so that it is all counted: a printer that otherwise prints a form once and
    /// calls it (PTX's warp-combined forms) does not.
    pub count_instructions: bool,
}

/// Where the `ptr.generic` parameters of a complete module's kernels point
/// ([`LowerOptions::complete_module`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GenericParams {
    /// Into global memory, as a launch passes them (CUDA's kernels; LLVM's NVPTX backend
    /// assumes the same): an access through one is a global access. The default.
    #[default]
    Global,
    /// Anywhere: the module's kernels are also called another way (as functions, say) with
    /// addresses of shared memory, so an access through one stays generic.
    Anywhere,
}

impl LowerOptions {
    /// Code for the inside of a unit of the client's (no module wrapper); stops at the first
    /// refusal. The default.
    pub const fn fragment() -> Self {
        LowerOptions {
            complete_module: false,
            generic_params: GenericParams::Global,
            on_refusal: OnRefusal::Stop,
            plain_loops: false,
            count_instructions: false,
        }
    }

    /// A complete unit the target's own tools accept; stops at the first refusal.
    pub const fn module() -> Self {
        LowerOptions {
            complete_module: true,
            ..LowerOptions::fragment()
        }
    }

    /// These options, wrapping the output as a complete unit or not.
    pub const fn with_complete_module(mut self, complete_module: bool) -> Self {
        self.complete_module = complete_module;
        self
    }

    /// These options, with a complete module's `ptr.generic` kernel parameters pointing where
    /// `generic_params` says.
    pub const fn with_generic_params(mut self, generic_params: GenericParams) -> Self {
        self.generic_params = generic_params;
        self
    }

    /// These options, with plain loops instead of warp-combined ones or not
    /// ([`LowerOptions::plain_loops`]).
    pub const fn with_plain_loops(mut self, plain_loops: bool) -> Self {
        self.plain_loops = plain_loops;
        self
    }

    /// These options, counting each instruction's code or not
    /// ([`LowerOptions::count_instructions`]).
    pub const fn with_count_instructions(mut self, count_instructions: bool) -> Self {
        self.count_instructions = count_instructions;
        self
    }

    /// These options, doing `on_refusal` with a refused instruction.
    pub const fn with_on_refusal(mut self, on_refusal: OnRefusal) -> Self {
        self.on_refusal = on_refusal;
        self
    }
}

/// What a lowering does with an instruction its target refuses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OnRefusal {
    /// Lower nothing: the first refusal is the lowering's error.
    #[default]
    Stop,
    /// Lower what the target accepts and report the rest in
    /// [`LowerReport::refusals`](super::LowerReport::refusals). An instruction that reads the
    /// result of one left out is left out too; a kernel whose parameters the target cannot
    /// carry is left out whole (its signature is its interface).
    Skip,
}
