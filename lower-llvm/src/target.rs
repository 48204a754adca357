//! Target names (`llvm:<triple>[:<cpu>][@<major>][+<knob>]`), the llc flags each assumes, and
//! the per-triple spellings of address spaces, sync scopes, triples and kernel calling
//! conventions.

use atomir_ir::{AddressSpace, ParseTargetError, Scope};
use std::fmt;
use std::str::FromStr;

pub use crate::cpu::Cpu;
use crate::spelling;
pub use crate::triple::{Triple, SPIRV_MIN_MAJOR, STORAGE_BUFFER};

/// The LLVM major versions accepted in a target spec, oldest first: those whose llvm-as, opt
/// and llc judge the output (Debian's 14, 15, 16, 19 and 22, and an llc 23 built from its
/// static libraries). No package of 17, 18, 20 or 21 with the GPU targets is installed, so those
/// are refused, naming the nearest judged versions.
pub const MAJORS: [u32; 6] = [14, 15, 16, 19, 22, 23];
/// The oldest LLVM major version accepted in a target spec (`@14`).
pub const MIN_MAJOR: u32 = MAJORS[0];
/// The newest LLVM major version accepted in a target spec (`@23`).
pub const MAX_MAJOR: u32 = MAJORS[MAJORS.len() - 1];
/// The version a target spec without `@<major>` means.
pub const DEFAULT_MAJOR: u32 = 22;

/// The SPIR-V extensions llc may use for float atomics: a device that lacks one lacks the
/// float atomic, which the module's capabilities then say.
const SPIRV_FLOAT_ATOMICS: &str = "--spirv-ext=+SPV_EXT_shader_atomic_float_add,\
    +SPV_EXT_shader_atomic_float_min_max,+SPV_EXT_shader_atomic_float16_add";

/// The PTX ISA version the NVPTX targets of LLVM `major` ask llc for (the newest that llc
/// prints): PTX 8.3 carries `atom.cas.b128`, and `atom.add.noftz.f16` needs 6.3, where llc's
/// default for the CPU is older.
const fn ptx_attr(major: u32) -> &'static str {
    match major {
        ..=15 => "-mattr=+ptx75",
        16..=18 => "-mattr=+ptx78",
        19..=21 => "-mattr=+ptx85",
        _ => "-mattr=+ptx87",
    }
}

/// An explicit target option (`+<name>`): what it asserts about the program's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Knob {
    /// `+coarse-grained` (amdgcn): see [`LlvmTarget::coarse_grained`].
    CoarseGrained,
}

impl Knob {
    /// Every knob.
    pub const ALL: [Knob; 1] = [Knob::CoarseGrained];

    /// The spelling after `+` in a target name.
    pub const fn name(self) -> &'static str {
        match self {
            Knob::CoarseGrained => "coarse-grained",
        }
    }

    /// The one triple the option applies to.
    pub const fn triple(self) -> Triple {
        match self {
            Knob::CoarseGrained => Triple::Amdgcn,
        }
    }

    /// What the knob asserts and why it is off by default, for `--help` and docs.
    pub const fn help(self) -> &'static str {
        match self {
            Knob::CoarseGrained => {
                "every address is coarse-grained memory, so every atomicrmw carries \
                 !amdgpu.no.fine.grained.memory and float adds and the integer RMWs llc would \
                 otherwise expand run natively; wrong for fine-grained (host-coherent) memory, \
                 hence off by default"
            }
        }
    }

    fn from_name(name: &str) -> Option<Knob> {
        Knob::ALL.into_iter().find(|knob| knob.name() == name)
    }
}

/// One LLVM target: a triple, the LLVM major version whose tools must accept the output, and the
/// explicit target knobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LlvmTarget {
    /// What the module is printed for.
    pub triple: Triple,
    /// The LLVM major version (from [`MIN_MAJOR`] to [`MAX_MAJOR`]) whose `llvm-as`, `opt` and
    /// `llc` must accept the output: it decides the syntax and which atomics are native.
    pub major: u32,
    /// AMDGPU only: every address the module touches is coarse-grained memory, so every
    /// `atomicrmw` carries `!amdgpu.no.fine.grained.memory` and llc keeps float adds and the
    /// integer RMWs it would expand for fine-grained or remote memory native. False for
    /// fine-grained (host-coherent) allocations, hence off by default.
    pub coarse_grained: bool,
    /// The processor llc compiles for (`-mcpu`) on nvptx64 and amdgcn; `None` on the other
    /// triples. Which atomics are native, and which scopes and spaces exist, follow it.
    pub cpu: Option<Cpu>,
}

impl LlvmTarget {
    /// The target with no knobs, for the default processor of the triple at `major`
    /// ([`Cpu::default_for`]); [`LlvmTarget::parse`] checks the version.
    pub const fn new(triple: Triple, major: u32) -> Self {
        LlvmTarget {
            triple,
            major,
            coarse_grained: false,
            cpu: Cpu::default_for(triple, major),
        }
    }

    /// Every target this backend accepts: each triple at each version its tools have (the
    /// SPIR-V triples from [`SPIRV_MIN_MAJOR`]), for the default processor and every other one
    /// that version's llc knows, and `amdgcn` with `+coarse-grained` too.
    pub fn all() -> Vec<LlvmTarget> {
        let mut targets = Vec::new();
        for triple in Triple::ALL {
            for major in MAJORS.into_iter().filter(|m| triple.has_backend_at(*m)) {
                let base = LlvmTarget::new(triple, major);
                let cpus: Vec<Option<Cpu>> = match base.cpu {
                    None => vec![None],
                    Some(_) => Cpu::ALL
                        .iter()
                        .filter(|cpu| cpu.triple() == triple && cpu.known_at(major))
                        .map(|cpu| Some(*cpu))
                        .collect(),
                };
                for cpu in cpus {
                    let target = LlvmTarget { cpu, ..base };
                    targets.push(target);
                    if triple == Triple::Amdgcn {
                        targets.push(LlvmTarget {
                            coarse_grained: true,
                            ..target
                        });
                    }
                }
            }
        }
        targets
    }

    /// Parses `<triple>[:<cpu>][@<major>][+<knob>]…` (the part of a target name after `llvm:`); the
    /// error says what was expected.
    pub fn parse(spec: &str) -> Result<LlvmTarget, ParseTargetError> {
        LlvmTarget::parse_spec(spec).map_err(ParseTargetError::new)
    }

    fn parse_spec(spec: &str) -> Result<LlvmTarget, String> {
        let mut parts = spec.split('+');
        let head = parts.next().unwrap_or_default();
        let (name, major) = match head.split_once('@') {
            Some((name, major)) => {
                let major: u32 = major
                    .parse()
                    .map_err(|_| format!("`{major}` is not an LLVM major version (e.g. `@22`)"))?;
                (name, major)
            }
            None => (head, DEFAULT_MAJOR),
        };
        let (triple_name, cpu_name) = match name.split_once(':') {
            Some((triple, cpu)) => (triple, Some(cpu)),
            None => (name, None),
        };
        let triple = Triple::from_name(triple_name).ok_or_else(|| {
            let names: Vec<&str> = Triple::ALL.iter().map(|t| t.name()).collect();
            format!(
                "unknown LLVM triple `{triple_name}`; expected one of {}",
                names.join(", ")
            )
        })?;
        check_major(triple, major)?;
        let mut target = LlvmTarget::new(triple, major);
        if let Some(cpu_name) = cpu_name {
            target.cpu = Some(parse_cpu(triple, cpu_name, major)?);
        }
        for name in parts {
            let knob =
                Knob::from_name(name).ok_or_else(|| format!("unknown target option `+{name}`"))?;
            if knob.triple() != triple {
                return Err(format!(
                    "`+{name}` applies to {} only",
                    knob.triple().name()
                ));
            }
            match knob {
                Knob::CoarseGrained => target.coarse_grained = true,
            }
        }
        Ok(target)
    }

    /// The llc flags the output is meant for, as the judges pass them: the triple, `-mcpu` and,
    /// on NVPTX, the PTX version (`-mattr=+ptxNN`); on SPIR-V the float-atomic extensions.
    pub fn llc_args(&self) -> Vec<String> {
        let mut args = match self.triple {
            Triple::Nvptx64 => vec!["-march=nvptx64".to_string()],
            Triple::Spirv64 | Triple::SpirvVulkan => vec![
                format!("-mtriple={}", self.triple.triple_string()),
                SPIRV_FLOAT_ATOMICS.to_string(),
            ],
            _ => vec![format!("-mtriple={}", self.triple.triple_string())],
        };
        if let Some(cpu) = self.cpu {
            args.push(format!("-mcpu={}", cpu.name()));
        }
        if self.triple == Triple::Nvptx64 {
            args.push(ptx_attr(self.major).to_string());
        }
        args
    }

    /// LLVM 14 prints typed pointers (`i32 addrspace(1)*`); opaque `ptr` is the default from 15.
    pub const fn typed_pointers(&self) -> bool {
        self.major < 15
    }

    /// Whether an integer operation whose operands are all literals is printed as its value
    /// instead (only the operations llc's IR translator folds: `add`, `sub`, `and`, `or`,
    /// `xor`, `shl`, `lshr`, and min/max).
    ///
    /// llc's SPIR-V backend (LLVM 22 and 23) miscompiles the `extractvalue` of a cmpxchg's old
    /// value when such an operation folds to an `i32 0` in a later block: the translator puts
    /// the folded constant in that block, the SPIR-V pre-legalizer merges every `i32 0` into
    /// that one definition, the `extractvalue` index among them, and instruction selection
    /// (later blocks first) has turned it into `OpConstantNull` before it reads the index as an
    /// immediate, so `OpCompositeExtract` gets an arbitrary index, which spirv-val rejects.
    /// Printing the value keeps the meaning exactly and leaves no constant for llc to fold.
    pub const fn folds_literal_operations(&self) -> bool {
        self.triple.is_spirv()
    }

    /// The numbered address space of a state space, or `None` where the triple has none
    /// ([`crate::spelling`]'s table; x86-64 prints every space as its one address space).
    pub const fn address_space(&self, space: AddressSpace) -> Option<u32> {
        match self.triple {
            Triple::X86_64 => spelling::address_space_number(Triple::X86_64, AddressSpace::Generic),
            triple => spelling::address_space_number(triple, space),
        }
    }

    /// The `syncscope` name printed for a scope the legality table has already mapped to one the
    /// triple can express (see `legal::printed_scope`), from [`crate::spelling`]'s table.
    pub fn syncscope_name(&self, scope: Scope) -> &'static str {
        spelling::syncscope_name(self.triple, scope)
    }
}

impl FromStr for LlvmTarget {
    type Err = ParseTargetError;

    /// As [`LlvmTarget::parse`].
    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        LlvmTarget::parse(spec)
    }
}

impl fmt::Display for LlvmTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("llvm:")?;
        f.write_str(self.triple.name())?;
        if let Some(cpu) = self.cpu {
            write!(f, ":{}", cpu.name())?;
        }
        write!(f, "@{}", self.major)?;
        if self.coarse_grained {
            f.write_str("+coarse-grained")?;
        }
        Ok(())
    }
}

/// Checks that `major` is judged, and that the triple has a backend there.
fn check_major(triple: Triple, major: u32) -> Result<(), String> {
    if !MAJORS.contains(&major) {
        let below = MAJORS.iter().rev().find(|m| **m < major);
        let above = MAJORS.iter().find(|m| **m > major);
        let nearest = match (below, above) {
            (Some(b), Some(a)) => format!("the nearest are @{b} and @{a}"),
            (Some(b), None) => format!("the newest is @{b}"),
            (None, Some(a)) => format!("the oldest is @{a}"),
            (None, None) => unreachable!("MAJORS is not empty"),
        };
        let list: Vec<String> = MAJORS.iter().map(|m| format!("@{m}")).collect();
        return Err(format!(
            "LLVM {major} is not supported: no tools of that version judge the output here; \
             {nearest} (judged: {})",
            list.join(", ")
        ));
    }
    if !triple.has_backend_at(major) {
        return Err(format!(
            "{} needs LLVM {SPIRV_MIN_MAJOR} or later: llc {major} has no SPIR-V backend, so \
             nothing lowered for it could be compiled",
            triple.name()
        ));
    }
    Ok(())
}

/// The processor `name` of `triple`, which llc of `major` must know.
fn parse_cpu(triple: Triple, name: &str, major: u32) -> Result<Cpu, String> {
    let known: Vec<&str> = Cpu::ALL
        .iter()
        .filter(|cpu| cpu.triple() == triple && cpu.known_at(major))
        .map(|cpu| cpu.name())
        .collect();
    if known.is_empty() {
        return Err(format!(
            "{} takes no processor (`:{name}`); llc compiles it for one target",
            triple.name()
        ));
    }
    match Cpu::from_name(triple, name) {
        Some(cpu) if cpu.known_at(major) => Ok(cpu),
        Some(_) => Err(format!(
            "llc {major} does not know the processor {name}; at LLVM {major} {} takes {}",
            triple.name(),
            known.join(", ")
        )),
        None => Err(format!(
            "unknown {} processor `{name}`; at LLVM {major} expected one of {}",
            triple.name(),
            known.join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_specs() {
        let t = LlvmTarget::parse("nvptx64@14").unwrap();
        assert_eq!(
            (t.triple, t.major, t.coarse_grained),
            (Triple::Nvptx64, 14, false)
        );
        let t = LlvmTarget::parse("amdgcn+coarse-grained").unwrap();
        assert_eq!(
            (t.triple, t.major, t.coarse_grained),
            (Triple::Amdgcn, 22, true)
        );
        assert_eq!(t.to_string(), "llvm:amdgcn:gfx942@22+coarse-grained");
        assert!(LlvmTarget::parse("x86_64+coarse-grained").is_err());
        assert!(LlvmTarget::parse("riscv").is_err());
        assert!(LlvmTarget::parse("x86_64@9").is_err());
        assert!(LlvmTarget::parse("x86_64@x").is_err());
    }

    #[test]
    fn parses_processors() {
        let t = LlvmTarget::parse("nvptx64:sm_70@22").unwrap();
        assert_eq!((t.cpu, t.major), (Some(Cpu::Sm70), 22));
        assert_eq!(t.to_string(), "llvm:nvptx64:sm_70@22");
        assert_eq!(
            t.llc_args(),
            ["-march=nvptx64", "-mcpu=sm_70", "-mattr=+ptx87"]
        );
        let t = LlvmTarget::parse("amdgcn:gfx1100+coarse-grained").unwrap();
        assert_eq!(t.to_string(), "llvm:amdgcn:gfx1100@22+coarse-grained");
        assert_eq!(
            LlvmTarget::parse("nvptx64@15").unwrap().to_string(),
            "llvm:nvptx64:sm_86@15"
        );
        assert_eq!(
            LlvmTarget::parse("x86_64").unwrap().to_string(),
            "llvm:x86_64@22"
        );
        let error = LlvmTarget::parse("nvptx64:sm_90@15").unwrap_err();
        assert!(error.message().contains("llc 15 does not know"), "{error}");
        let error = LlvmTarget::parse("nvptx64:gfx942").unwrap_err();
        assert!(
            error.message().contains("unknown nvptx64 processor"),
            "{error}"
        );
        let error = LlvmTarget::parse("x86_64:sm_90").unwrap_err();
        assert!(error.message().contains("takes no processor"), "{error}");
    }

    /// Versions no tool judges, and SPIR-V before its backend, are refused as targets.
    #[test]
    fn refuses_unjudged_versions_and_backendless_triples() {
        let error = LlvmTarget::parse("nvptx64@17").unwrap_err();
        assert!(
            error.message().contains("nearest are @16 and @19"),
            "{error}"
        );
        let error = LlvmTarget::parse("amdgcn@21").unwrap_err();
        assert!(
            error.message().contains("nearest are @19 and @22"),
            "{error}"
        );
        for spec in ["spirv64@19", "spirv-vulkan@14"] {
            let error = LlvmTarget::parse(spec).unwrap_err();
            assert!(error.message().contains("needs LLVM 22"), "{error}");
        }
        let all = LlvmTarget::all();
        assert!(all.iter().all(|t| MAJORS.contains(&t.major)));
        assert!(all.iter().all(|t| t.triple.has_backend_at(t.major)));
        assert!(all
            .iter()
            .all(|t| LlvmTarget::parse(&t.to_string()[5..]) == Ok(*t)));
        assert!(all.contains(&LlvmTarget::parse("amdgcn:gfx1100@15").unwrap()));
    }
}
