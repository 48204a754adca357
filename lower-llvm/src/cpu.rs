//! The processors of the GPU triples (llc's `-mcpu`), one row each: the LLVM versions whose llc
//! knows it, and what that llc selects for it.
//!
//! Measured with llc 14, 15, 16, 19, 22 and 23 (`llc -mcpu=help` for the names; for the
//! features, `atomicrmw fadd`/`fsub` of every float type on global, shared and generic memory,
//! with and without `!amdgpu.no.fine.grained.memory`, compiled with the target's own flags and
//! read back from the assembly: a `cmpswap`/`cmpst` or `atom.cas` in the function is a CAS loop
//! llc expanded, anything else the hardware's instruction).
//! - NVPTX: cluster scope and `.shared::cluster` need sm_90 (llc 22 aborts "do not support
//!   cluster scope" and "Cannot select … addrspace 7" below it); so does `atom.cas.b128`
//!   (llc 22 answers "unsupported cmpxchg" below sm_90, and without `-mattr=+ptx83` or newer).
//!   `atom.add.noftz.f16` is selected from sm_70 and `.bf16` from sm_90 (with the PTX version
//!   the target's flags name); f32 and f64 add on every CPU listed (f32 on global and generic
//!   memory as the flushing `atom.add.f32` before 23, an exact CAS loop of llc's own from 23);
//!   the packed `.f16x2`/`.bf16x2` add on none (llc expands `<2 x half>`/`<2 x bfloat>` into a
//!   CAS loop of its own on every CPU, 19 to 23).
//! - AMDGPU: see [`AmdFloatAdd`]; `fsub` is a CAS loop on every CPU and space.

use atomir_ir::{AddressSpace, ElemType};

use crate::triple::Triple;

/// Which memory a native float add of an AMDGPU row holds for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Memory {
    /// Any memory: llc selects the instruction without the fine-grained metadata.
    Any,
    /// Only with `+coarse-grained` (llc selects it only under `!amdgpu.no.fine.grained.memory`).
    CoarseGrained,
}

/// One measured native float add of an AMDGPU processor: the element type, the address spaces,
/// the LLVM versions (inclusive) and the memory it holds for.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AmdFloatAdd {
    ty: ElemType,
    spaces: &'static [AddressSpace],
    majors: (u32, u32),
    memory: Memory,
}

const SHARED: &[AddressSpace] = &[AddressSpace::Shared];
const GLOBAL: &[AddressSpace] = &[AddressSpace::Global];
const GLOBAL_GENERIC: &[AddressSpace] = &[AddressSpace::Global, AddressSpace::Generic];
const EVERY_SPACE: &[AddressSpace] = &[
    AddressSpace::Global,
    AddressSpace::Generic,
    AddressSpace::Shared,
];

const fn add(
    ty: ElemType,
    spaces: &'static [AddressSpace],
    majors: (u32, u32),
    memory: Memory,
) -> AmdFloatAdd {
    AmdFloatAdd {
        ty,
        spaces,
        majors,
        memory,
    }
}

const ALL: (u32, u32) = (14, 23);

// What llc selects per gfx (f16x2/bf16x2 stand for `<2 x half>`/`<2 x bfloat>`, which llvm-as
// takes in atomicrmw from 19 on; scalar f16/bf16 add is a CAS loop everywhere, which the table
// emulates in its own masked loop).
const GFX90A: &[AmdFloatAdd] = &[
    add(ElemType::F32, SHARED, ALL, Memory::Any),
    add(ElemType::F64, SHARED, ALL, Memory::Any),
    add(
        ElemType::F64,
        GLOBAL_GENERIC,
        (22, 23),
        Memory::CoarseGrained,
    ),
    add(ElemType::F16x2, GLOBAL, (19, 19), Memory::Any),
    add(ElemType::F16x2, GLOBAL, (22, 23), Memory::CoarseGrained),
];
const GFX940: &[AmdFloatAdd] = &[
    add(ElemType::F32, SHARED, ALL, Memory::Any),
    add(ElemType::F64, SHARED, ALL, Memory::Any),
    add(ElemType::F32, GLOBAL_GENERIC, (15, 15), Memory::Any),
    add(ElemType::F64, GLOBAL_GENERIC, (15, 15), Memory::Any),
];
const GFX942: &[AmdFloatAdd] = &[
    add(ElemType::F32, EVERY_SPACE, ALL, Memory::Any),
    add(ElemType::F64, EVERY_SPACE, ALL, Memory::Any),
    add(ElemType::F16x2, EVERY_SPACE, ALL, Memory::Any),
    add(ElemType::Bf16x2, EVERY_SPACE, ALL, Memory::Any),
];
const GFX1100: &[AmdFloatAdd] = &[
    add(ElemType::F32, SHARED, ALL, Memory::Any),
    add(
        ElemType::F32,
        GLOBAL_GENERIC,
        (22, 23),
        Memory::CoarseGrained,
    ),
];
const NONE: &[AmdFloatAdd] = &[];

/// A processor's row.
struct CpuRow {
    name: &'static str,
    triple: Triple,
    /// The SM number (NVPTX; 0 on AMDGPU).
    sm: u32,
    /// The oldest LLVM version of those judged whose llc knows the name.
    since: u32,
    /// The newest one.
    until: u32,
    float_adds: &'static [AmdFloatAdd],
}

macro_rules! cpu_table {
    ($($variant:ident => $name:literal, $triple:ident, sm $sm:literal, llc $since:literal ..=
       $until:literal, $adds:ident;)*) => {
        /// A processor of a GPU triple, as llc's `-mcpu` names it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Cpu {
            $(
                #[doc = concat!("`", $name, "` (llc ", $since, " to ", $until, ").")]
                $variant,
            )*
        }

        impl Cpu {
            /// Every processor, each triple's oldest first (the order a smallest target is
            /// searched in).
            pub const ALL: &'static [Cpu] = &[$(Cpu::$variant,)*];

            const fn row(self) -> CpuRow {
                match self {
                    $(Cpu::$variant => CpuRow {
                        name: $name,
                        triple: Triple::$triple,
                        sm: $sm,
                        since: $since,
                        until: $until,
                        float_adds: $adds,
                    },)*
                }
            }
        }
    };
}

cpu_table! {
    Sm60 => "sm_60", Nvptx64, sm 60, llc 14..=23, NONE;
    Sm70 => "sm_70", Nvptx64, sm 70, llc 14..=23, NONE;
    Sm80 => "sm_80", Nvptx64, sm 80, llc 14..=23, NONE;
    Sm86 => "sm_86", Nvptx64, sm 86, llc 14..=23, NONE;
    Sm90 => "sm_90", Nvptx64, sm 90, llc 16..=23, NONE;
    Sm100 => "sm_100", Nvptx64, sm 100, llc 22..=23, NONE;
    Gfx90a => "gfx90a", Amdgcn, sm 0, llc 14..=23, GFX90A;
    // Dropped from llc's processors after 19 (gfx942 is its successor).
    Gfx940 => "gfx940", Amdgcn, sm 0, llc 15..=19, GFX940;
    Gfx942 => "gfx942", Amdgcn, sm 0, llc 19..=23, GFX942;
    Gfx1100 => "gfx1100", Amdgcn, sm 0, llc 15..=23, GFX1100;
}

impl Cpu {
    /// llc's `-mcpu` name.
    pub const fn name(self) -> &'static str {
        self.row().name
    }

    /// The triple the processor belongs to.
    pub const fn triple(self) -> Triple {
        self.row().triple
    }

    /// Whether the llc of LLVM `major` knows the processor.
    pub const fn known_at(self, major: u32) -> bool {
        major >= self.row().since && major <= self.row().until
    }

    /// Whether the llc of LLVM `major` expands an RMW other than exch and integer add on global
    /// or generic memory into a cmpswap loop at every scope, lacking `!amdgpu.no.remote.memory`
    /// (measured with llc 22 and 23: gfx90a and gfx1100 do; gfx942, which emulates system-scope
    /// atomics, does so at system scope only; llc 19 at no scope but system).
    pub const fn expands_rmw_that_may_be_remote(self, major: u32) -> bool {
        major >= 20 && matches!(self, Cpu::Gfx90a | Cpu::Gfx1100)
    }

    /// The processor of `triple` named `name`.
    pub fn from_name(triple: Triple, name: &str) -> Option<Cpu> {
        Cpu::ALL
            .iter()
            .copied()
            .find(|cpu| cpu.triple() == triple && cpu.name() == name)
    }

    /// The processor a target of `triple` at `major` without a CPU means: the newest of the
    /// reference processors that llc knows (sm_90 / gfx942; sm_86 and gfx90a/gfx940 before).
    pub const fn default_for(triple: Triple, major: u32) -> Option<Cpu> {
        match triple {
            Triple::Nvptx64 if major < 16 => Some(Cpu::Sm86),
            Triple::Nvptx64 => Some(Cpu::Sm90),
            Triple::Amdgcn if major < 16 => Some(Cpu::Gfx90a),
            Triple::Amdgcn if major < 19 => Some(Cpu::Gfx940),
            Triple::Amdgcn => Some(Cpu::Gfx942),
            Triple::Spirv64 | Triple::X86_64 | Triple::SpirvVulkan => None,
        }
    }

    /// NVPTX: cluster scope, `.shared::cluster` and the 128-bit `atom.cas` (sm_90 and later).
    pub const fn has_clusters(self) -> bool {
        self.row().sm >= 90
    }

    /// NVPTX: ordered atomic loads and stores (`ld.acquire`, `st.release`: PTX's memory model,
    /// sm_70 and later). llc 22 aborts on an acquire or seq_cst `load atomic` for sm_60 ("PTX
    /// does not support \"atomic\" for orderings different than \"NotAtomic\" or
    /// \"Monotonic\" for sm_60 or older").
    pub const fn has_ordered_loads(self) -> bool {
        self.row().sm >= 70
    }

    /// NVPTX: the 128-bit `atom.cas.b128` (sm_90, with PTX ISA 8.3 from LLVM 22's llc on).
    pub const fn has_cas128(self) -> bool {
        self.row().sm >= 90
    }

    /// NVPTX: whether llc selects a scalar f16 (`atom.add.noftz.f16`, sm_70) or bf16
    /// (`atom.add.noftz.bf16`, sm_90) add natively.
    pub const fn has_small_float_add(self, ty: ElemType) -> bool {
        match ty {
            ElemType::F16 => self.row().sm >= 70,
            ElemType::Bf16 => self.row().sm >= 90,
            _ => false,
        }
    }

    /// AMDGPU: whether llc of `major` selects the hardware's float add for `ty` (f32, f64, or
    /// the packed f16x2/bf16x2 of a `<2 x half>`/`<2 x bfloat>`) on `space`; `coarse_grained`
    /// says whether the module carries `!amdgpu.no.fine.grained.memory`.
    pub(crate) fn amd_float_add_native(
        self,
        ty: ElemType,
        space: AddressSpace,
        major: u32,
        coarse_grained: bool,
    ) -> bool {
        self.row().float_adds.iter().any(|entry| {
            entry.ty == ty
                && entry.spaces.contains(&space)
                && (entry.majors.0..=entry.majors.1).contains(&major)
                && (entry.memory == Memory::Any || coarse_grained)
        })
    }
}
