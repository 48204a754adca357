//! Every PTX spelling of the memory instructions atomir prints and reads, as two-way tables:
//! each enum's rows are both what the printer writes and what the reader ([`crate::read`])
//! accepts, so the two cannot drift. Qualifiers are spelled without their leading `.`.
//!
//! The mapping between a row and the IR's vocabulary is here too, once each way
//! ([`PtxScope::of`] / [`PtxScope::scope`], …), so "what `.gpu` means" has one answer.

use atomir_ir::{AddressSpace, CacheHint, ElemType, MemoryOrder, Scope, VectorShape};

atomir_ir::spelled! {
    /// The operation of an `atom`/`red` (`atom.<op>`).
    pub enum PtxRmw {
        Add => "add", Inc => "inc", Dec => "dec", Min => "min", Max => "max",
        And => "and", Or => "or", Xor => "xor", Exch => "exch", Cas => "cas",
    }
}

impl PtxRmw {
    /// Whether `red` exists for the operation (not for `exch` and `cas`, which return a value).
    pub const fn has_reduction(self) -> bool {
        !matches!(self, PtxRmw::Exch | PtxRmw::Cas)
    }

    /// Whether `.L2::cache_hint` exists for the operation (every one but `cas`).
    pub const fn has_cache_hint(self) -> bool {
        !matches!(self, PtxRmw::Cas)
    }
}

atomir_ir::spelled! {
    /// A fundamental type qualifier: the type of an `atom`/`red` (the rows from `u32` to `b128`)
    /// and of an `ld`/`st` (every row but the packed ones).
    pub enum PtxType {
        U32 => "u32", S32 => "s32", U64 => "u64", S64 => "s64",
        F16 => "f16", F16x2 => "f16x2", Bf16 => "bf16", Bf16x2 => "bf16x2", F32 => "f32",
        F64 => "f64", B16 => "b16", B32 => "b32", B64 => "b64", B128 => "b128",
        U8 => "u8", S8 => "s8", B8 => "b8", U16 => "u16", S16 => "s16",
    }
}

impl PtxType {
    /// The untyped (`.bN`) type of `bits` (16, 32, 64; 128 for anything wider).
    pub const fn of_bits(bits: u32) -> PtxType {
        match bits {
            8 => PtxType::B8,
            16 => PtxType::B16,
            32 => PtxType::B32,
            64 => PtxType::B64,
            _ => PtxType::B128,
        }
    }

    /// The type the printer gives one lane of an atomic `ld`/`st` of `bits` bits: `.u8` for a
    /// byte (PTX's `.b8` loads cannot target a register of their own width), `.bN` otherwise.
    pub const fn of_memory_bits(bits: u32) -> PtxType {
        match bits {
            8 => PtxType::U8,
            other => PtxType::of_bits(other),
        }
    }

    /// The element type an access of this type reads or writes.
    pub const fn elem(self) -> ElemType {
        match self {
            PtxType::U32 => ElemType::U32,
            PtxType::S32 => ElemType::S32,
            PtxType::U64 => ElemType::U64,
            PtxType::S64 => ElemType::S64,
            PtxType::F16 => ElemType::F16,
            PtxType::F16x2 => ElemType::F16x2,
            PtxType::Bf16 => ElemType::Bf16,
            PtxType::Bf16x2 => ElemType::Bf16x2,
            PtxType::F32 => ElemType::F32,
            PtxType::F64 => ElemType::F64,
            PtxType::B16 => ElemType::B16,
            PtxType::B32 => ElemType::B32,
            PtxType::B64 => ElemType::B64,
            PtxType::B128 => ElemType::B128,
            PtxType::U8 => ElemType::U8,
            PtxType::S8 => ElemType::S8,
            PtxType::B8 => ElemType::B8,
            PtxType::U16 => ElemType::U16,
            PtxType::S16 => ElemType::S16,
        }
    }

    /// The width in bits: its element type's.
    pub const fn width(self) -> u32 {
        self.elem().bits()
    }
}

atomir_ir::spelled! {
    /// A `.sem` qualifier of `atom`/`red`/`ld`/`st`/`fence`, and the older `.volatile` and the
    /// unmodelled `.mmio` of `ld`/`st`.
    pub enum PtxSem {
        Relaxed => "relaxed", Acquire => "acquire", Release => "release", AcqRel => "acq_rel",
        /// Only on `fence` (`fence.sc`): PTX carries seq_cst on an access as `fence.sc` first.
        Sc => "sc",
        /// `ld.volatile`/`st.volatile`, relaxed at system scope: PTX ISA 8.4.2 *volatile
        /// Operation*: "The semantics of volatile operations are equivalent to a relaxed memory
        /// operation with system-scope but with the following extra implementation-specific
        /// constraints" (the number of volatile instructions is preserved and they are not
        /// reordered around each other, which only strengthens it).
        Volatile => "volatile",
        /// `ld.mmio.relaxed.sys`/`st.mmio…`: memory-mapped I/O, not modelled.
        Mmio => "mmio",
    }
}

impl PtxSem {
    /// The spelling of `order`; seq_cst is `sc`, which only a fence has.
    pub const fn of(order: MemoryOrder) -> PtxSem {
        match order {
            MemoryOrder::Relaxed => PtxSem::Relaxed,
            MemoryOrder::Acquire => PtxSem::Acquire,
            MemoryOrder::Release => PtxSem::Release,
            MemoryOrder::AcqRel => PtxSem::AcqRel,
            MemoryOrder::SeqCst => PtxSem::Sc,
        }
    }

    /// The order the qualifier means; `None` for `.mmio`, which atomir does not model.
    /// `.volatile` is relaxed (at system scope, [`PtxSem::Volatile`]).
    pub const fn order(self) -> Option<MemoryOrder> {
        match self {
            PtxSem::Relaxed | PtxSem::Volatile => Some(MemoryOrder::Relaxed),
            PtxSem::Acquire => Some(MemoryOrder::Acquire),
            PtxSem::Release => Some(MemoryOrder::Release),
            PtxSem::AcqRel => Some(MemoryOrder::AcqRel),
            PtxSem::Sc => Some(MemoryOrder::SeqCst),
            PtxSem::Mmio => None,
        }
    }
}

atomir_ir::spelled! {
    /// A `.scope` qualifier.
    pub enum PtxScope {
        Cta => "cta", Cluster => "cluster", Gpu => "gpu", Sys => "sys",
    }
}

impl PtxScope {
    /// The spelling of `scope`.
    pub const fn of(scope: Scope) -> PtxScope {
        match scope {
            Scope::Block => PtxScope::Cta,
            Scope::Cluster => PtxScope::Cluster,
            Scope::Device => PtxScope::Gpu,
            Scope::System => PtxScope::Sys,
        }
    }

    /// The scope the qualifier means.
    pub const fn scope(self) -> Scope {
        match self {
            PtxScope::Cta => Scope::Block,
            PtxScope::Cluster => Scope::Cluster,
            PtxScope::Gpu => Scope::Device,
            PtxScope::Sys => Scope::System,
        }
    }
}

atomir_ir::spelled! {
    /// The level of a `membar` (`membar.gl`), a sequentially consistent fence: PTX ISA 9.7.13.4
    /// (`membar`/`fence`): "On sm_70 and higher membar is a synonym for fence.sc, and the membar
    /// levels cta, gl and sys are synonymous with the fence scopes cta, gpu and sys
    /// respectively" (before sm_70 a membar is the only fence there is).
    pub enum MembarLevel {
        Cta => "cta", Gl => "gl", Sys => "sys",
    }
}

impl MembarLevel {
    /// The level of a fence at `scope` (the cluster, which `membar` cannot name, widened to the
    /// device).
    pub const fn of(scope: Scope) -> MembarLevel {
        match scope {
            Scope::Block => MembarLevel::Cta,
            Scope::Cluster | Scope::Device => MembarLevel::Gl,
            Scope::System => MembarLevel::Sys,
        }
    }

    /// The scope of the seq_cst fence the level means.
    pub const fn scope(self) -> Scope {
        match self {
            MembarLevel::Cta => Scope::Block,
            MembarLevel::Gl => Scope::Device,
            MembarLevel::Sys => Scope::System,
        }
    }
}

atomir_ir::spelled! {
    /// A state-space qualifier of a memory instruction (no qualifier: generic addressing).
    pub enum PtxSpace {
        Global => "global",
        /// `.shared`, which means `.shared::cta` (PTX ISA 7.8 added the sub-qualifiers).
        Shared => "shared",
        SharedCta => "shared::cta",
        SharedCluster => "shared::cluster",
        /// Spaces atomir does not address atomically; read only to report them.
        Local => "local",
        /// See [`PtxSpace::Local`].
        Const => "const",
        /// See [`PtxSpace::Local`].
        Param => "param",
    }
}

impl PtxSpace {
    /// The qualifier of `space` (`None`: generic, no qualifier); shared memory is
    /// `.shared::cta` where the ISA has the sub-qualifiers (`sub_qualifiers`), `.shared` before.
    pub const fn of(space: AddressSpace, sub_qualifiers: bool) -> Option<PtxSpace> {
        match space {
            AddressSpace::Generic => None,
            AddressSpace::Global => Some(PtxSpace::Global),
            AddressSpace::Shared if sub_qualifiers => Some(PtxSpace::SharedCta),
            AddressSpace::Shared => Some(PtxSpace::Shared),
            AddressSpace::SharedCluster => Some(PtxSpace::SharedCluster),
        }
    }

    /// The space the qualifier means; `None` for the spaces atomir does not model.
    pub const fn space(self) -> Option<AddressSpace> {
        match self {
            PtxSpace::Global => Some(AddressSpace::Global),
            PtxSpace::Shared | PtxSpace::SharedCta => Some(AddressSpace::Shared),
            PtxSpace::SharedCluster => Some(AddressSpace::SharedCluster),
            PtxSpace::Local | PtxSpace::Const | PtxSpace::Param => None,
        }
    }
}

atomir_ir::spelled! {
    /// A vector qualifier of `atom`/`ld`/`st`.
    pub enum PtxVector {
        V2 => "v2", V4 => "v4", V8 => "v8",
    }
}

impl PtxVector {
    /// The qualifier of `shape` (`None` for a scalar).
    pub const fn of(shape: VectorShape) -> Option<PtxVector> {
        match shape {
            VectorShape::Scalar => None,
            VectorShape::V2 => Some(PtxVector::V2),
            VectorShape::V4 => Some(PtxVector::V4),
            VectorShape::V8 => Some(PtxVector::V8),
        }
    }

    /// The number of elements, as a shape.
    pub const fn shape(self) -> VectorShape {
        match self {
            PtxVector::V2 => VectorShape::V2,
            PtxVector::V4 => VectorShape::V4,
            PtxVector::V8 => VectorShape::V8,
        }
    }

    /// `.v{lanes}` of an access of `lanes` elements (2, 4 or 8).
    pub const fn of_lanes(lanes: usize) -> Option<PtxVector> {
        match VectorShape::from_len(lanes) {
            Some(shape) => PtxVector::of(shape),
            None => None,
        }
    }
}

atomir_ir::spelled! {
    /// The qualifiers of an `atom`/`red`/`ld`/`st` that are neither its operation, type, sem,
    /// scope, space nor vector.
    pub enum PtxFlag {
        /// `.noftz`: subnormals kept (required on f16/bf16 add and every vector min/max).
        Noftz => "noftz",
        /// `.L2::cache_hint`: a `createpolicy` operand follows the others.
        CacheHint => "L2::cache_hint",
    }
}

atomir_ir::spelled! {
    /// The eviction policy of a `createpolicy` (the `L2::…` after `createpolicy.fractional`).
    pub enum PtxEviction {
        EvictFirst => "L2::evict_first",
        EvictLast => "L2::evict_last",
        EvictNormal => "L2::evict_normal",
        EvictUnchanged => "L2::evict_unchanged",
    }
}

impl PtxEviction {
    /// The policy of `hint`; `no_allocate` is spelled `L2::evict_first`.
    pub const fn of(hint: CacheHint) -> PtxEviction {
        match hint {
            CacheHint::EvictFirst | CacheHint::NoAllocate => PtxEviction::EvictFirst,
            CacheHint::EvictLast => PtxEviction::EvictLast,
            CacheHint::EvictNormal => PtxEviction::EvictNormal,
        }
    }

    /// The hint the policy means (`evict_unchanged` is none atomir has).
    pub const fn hint(self) -> Option<CacheHint> {
        match self {
            PtxEviction::EvictFirst => Some(CacheHint::EvictFirst),
            PtxEviction::EvictLast => Some(CacheHint::EvictLast),
            PtxEviction::EvictNormal => Some(CacheHint::EvictNormal),
            PtxEviction::EvictUnchanged => None,
        }
    }
}

atomir_ir::spelled! {
    /// The opcodes of the memory instructions the reader classifies. Those after `membar` are
    /// PTX's other memory-model instructions that atomir does not model; the reader reports
    /// them by name.
    pub enum PtxOpcode {
        Atom => "atom", Red => "red", Ld => "ld", St => "st", Fence => "fence",
        Membar => "membar",
        /// `multimem.ld_reduce`/`multimem.st`/`multimem.red` (sm_90): not modelled.
        Multimem => "multimem",
        /// `cp.reduce.async.bulk` (sm_90): not modelled.
        CpReduceAsyncBulk => "cp.reduce.async.bulk",
    }
}

atomir_ir::spelled! {
    /// The forms of `fence` other than the plain `fence.<sem>.<scope>`, which atomir does not
    /// model; the reader reports them by name.
    pub enum PtxFenceForm {
        Proxy => "proxy", MbarrierInit => "mbarrier_init", OpRestrict => "op_restrict",
        SyncRestrict => "sync_restrict::shared::cta",
        SyncRestrictCluster => "sync_restrict::shared::cluster",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mapping_reads_back() {
        for scope in Scope::ALL {
            assert_eq!(PtxScope::of(*scope).scope(), *scope);
        }
        for order in MemoryOrder::ALL {
            assert_eq!(PtxSem::of(*order).order(), Some(*order));
        }
        for space in AddressSpace::ALL {
            for sub in [false, true] {
                let spelled = PtxSpace::of(*space, sub);
                assert_eq!(
                    spelled.map_or(Some(AddressSpace::Generic), PtxSpace::space),
                    Some(*space)
                );
            }
        }
        for shape in VectorShape::ALL {
            assert_eq!(
                PtxVector::of(*shape).map_or(VectorShape::Scalar, PtxVector::shape),
                *shape
            );
        }
        for ty in PtxType::ALL {
            assert_eq!(PtxType::from_name(ty.as_str()), Some(*ty));
        }
        assert_eq!(MembarLevel::of(Scope::Cluster).scope(), Scope::Device);
    }
}
