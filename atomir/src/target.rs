//! The facade's target registry: [`Target`], one variant per backend, and the one table
//! ([`BACKENDS`]) that chains each backend's own targets, parser and help.

use std::fmt;
use std::str::FromStr;

use crate::{
    AsNode, AtomicNode, Backend, BindingTypes, Fence, Fragment, Inst, InstLowering, Legality,
    LlvmTarget, LowerError, LowerOptions, LowerReport, Param, ParseTargetError, PtxTarget, Refusal,
    SpliceNames, Verdict, Verified, VisaTarget, WriteError,
};

/// One target of one backend: what a target name such as `ptx:sm_90@8.8` denotes.
///
/// [`Target::all`] lists every target the backends accept; `FromStr` parses a name and
/// `Display` prints its canonical form (defaults spelled out), which parses back to the same
/// target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Target {
    /// NVIDIA PTX: an SM architecture and a PTX ISA version.
    Ptx(PtxTarget),
    /// Intel vISA: a platform and its messages.
    Visa(VisaTarget),
    /// LLVM IR: a triple, the LLVM major version, the explicit target options.
    Llvm(LlvmTarget),
}

/// One backend in the registry: the prefix of its target names, its targets, its parser and
/// its targets help. Adding a backend adds one row to [`BACKENDS`] (and its variant of
/// [`Target`]).
struct BackendEntry {
    /// The prefix of the backend's target names: `ptx` in `ptx:sm_90`.
    prefix: &'static str,
    /// Every target of the backend, in its own order.
    all: fn() -> Vec<Target>,
    /// Parses the part of a target name after `<prefix>:`.
    parse: fn(&str) -> Result<Target, ParseTargetError>,
    /// The backend's targets help.
    help: fn() -> String,
}

/// The backends, in the order [`Target::all`] lists their targets, as cranelift's
/// `isa::lookup` chains its ISAs.
const BACKENDS: [BackendEntry; 3] = [
    BackendEntry {
        prefix: "ptx",
        all: || PtxTarget::all().into_iter().map(Target::Ptx).collect(),
        parse: |spec| spec.parse().map(Target::Ptx),
        help: atomir_ptx::targets_help,
    },
    BackendEntry {
        prefix: "visa",
        all: || VisaTarget::all().into_iter().map(Target::Visa).collect(),
        parse: |spec| spec.parse().map(Target::Visa),
        help: || atomir_visa::TARGETS_HELP.to_string(),
    },
    BackendEntry {
        prefix: "llvm",
        all: || LlvmTarget::all().into_iter().map(Target::Llvm).collect(),
        parse: |spec| spec.parse().map(Target::Llvm),
        help: atomir_llvm::targets_help,
    },
];

impl Target {
    /// Every target the backends accept, backend by backend in the registry's order (PTX, vISA,
    /// LLVM), each in its backend's own order ([`PtxTarget::all`], [`VisaTarget::all`],
    /// [`LlvmTarget::all`]).
    pub fn all() -> Vec<Target> {
        BACKENDS
            .iter()
            .flat_map(|backend| (backend.all)())
            .collect()
    }

    /// The backend's prefix of the target name: `ptx`, `visa` or `llvm`.
    pub fn backend_name(&self) -> &'static str {
        match self {
            Target::Ptx(_) => "ptx",
            Target::Visa(_) => "visa",
            Target::Llvm(_) => "llvm",
        }
    }

    /// The backend of this target.
    pub fn backend(&self) -> &(dyn Backend + Send + Sync) {
        match self {
            Target::Ptx(target) => target,
            Target::Visa(target) => target,
            Target::Llvm(target) => target,
        }
    }

    /// The target's answer for one instruction's node, an atomic access ([`AtomicNode`]) or a
    /// fence ([`Fence`]), no kernel needed: how it is carried out, or why it cannot be, with
    /// the smallest target of the same backend that accepts it.
    pub fn legalize(&self, node: &impl AsNode) -> Verdict {
        self.backend().legalize_node(&node.as_node())
    }

    /// Lowers a verified module, appending the code to `out`; a refusal leaves `out` as it was.
    pub fn lower(
        &self,
        module: &Verified<'_>,
        options: &LowerOptions,
        out: &mut String,
    ) -> Result<LowerReport, LowerError> {
        self.backend().lower(module, options, out)
    }

    /// Lowers every instruction of a verified module on its own: one answer per instruction,
    /// in program order, its code or its refusal.
    pub fn lower_each(&self, module: &Verified<'_>, options: &LowerOptions) -> Vec<InstLowering> {
        self.backend().lower_each(module, options)
    }

    /// Lowers a verified module, writing the code to `sink` as it is printed (kernel by kernel,
    /// in chunks); a refusal writes nothing.
    pub fn lower_into(
        &self,
        module: &Verified<'_>,
        options: &LowerOptions,
        sink: &mut dyn std::io::Write,
    ) -> Result<LowerReport, WriteError> {
        self.backend().lower_into(module, options, sink)
    }
}

impl Backend for Target {
    fn lower_each(&self, module: &Verified<'_>, options: &LowerOptions) -> Vec<InstLowering> {
        self.backend().lower_each(module, options)
    }

    fn target_name(&self) -> String {
        self.backend().target_name()
    }

    fn legalize(&self, node: &AtomicNode) -> Verdict {
        self.backend().legalize(node)
    }

    fn legalize_signature(&self, params: &[Param]) -> Result<(), (usize, Refusal)> {
        self.backend().legalize_signature(params)
    }

    fn legalize_fence(&self, fence: &Fence) -> Verdict {
        self.backend().legalize_fence(fence)
    }

    fn lower(
        &self,
        module: &Verified<'_>,
        options: &LowerOptions,
        out: &mut String,
    ) -> Result<LowerReport, LowerError> {
        Target::lower(self, module, options, out)
    }

    fn lower_into(
        &self,
        module: &Verified<'_>,
        options: &LowerOptions,
        sink: &mut dyn std::io::Write,
    ) -> Result<LowerReport, WriteError> {
        Target::lower_into(self, module, options, sink)
    }

    fn splice(
        &self,
        module: &Verified<'_>,
        kernel: usize,
        inst: Inst,
        names: &SpliceNames,
        fragment: &mut Fragment,
    ) -> Result<Legality, LowerError> {
        Target::splice(self, module, kernel, inst, names, fragment)
    }

    fn binding_types(
        &self,
        module: &Verified<'_>,
        kernel: usize,
        inst: Inst,
    ) -> Result<BindingTypes, LowerError> {
        Target::binding_types(self, module, kernel, inst)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.backend().target_name())
    }
}

impl FromStr for Target {
    type Err = ParseTargetError;

    /// Parses `<backend>:<spec>`, e.g. `ptx:sm_90@8.7`, `visa:TGLLP`, `llvm:nvptx64@22`.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        let Some((prefix, spec)) = name.split_once(':') else {
            return Err(ParseTargetError::new(format!(
                "`{name}` is not a target name: expected `<backend>:<target>`"
            )));
        };
        match BACKENDS.iter().find(|backend| backend.prefix == prefix) {
            Some(backend) => (backend.parse)(spec),
            None => Err(ParseTargetError::new(format!(
                "unknown backend `{prefix}` in target `{name}`: expected one of {}",
                BACKENDS.map(|backend| backend.prefix).join(", ")
            ))),
        }
    }
}

/// The target names every backend accepts, one indented block per backend, for a `--help`.
pub fn targets_help() -> String {
    let mut text = String::from("Targets (`<backend>:<target>`):\n");
    for backend in BACKENDS {
        for line in (backend.help)().lines() {
            text.push_str("  ");
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_registry_row_lists_and_parses_its_own_backends_targets() {
        for backend in &BACKENDS {
            let targets = (backend.all)();
            assert!(!targets.is_empty(), "{}", backend.prefix);
            for target in targets {
                assert_eq!(target.backend_name(), backend.prefix, "{target}");
                let name = target.to_string();
                let spec = &name[backend.prefix.len() + 1..];
                assert_eq!((backend.parse)(spec), Ok(target), "{name}");
            }
        }
    }
}
