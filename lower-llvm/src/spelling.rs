//! LLVM's spellings of atomic orderings, `atomicrmw` operations, sync scopes and address spaces,
//! each in one two-way table: the printer writes from these tables and the reader
//! ([`crate::read`]) reads by them, so what atomir prints is what it reads back.

use atomir_ir::{AddressSpace, AtomicOp, ElemType, FloatLaxity, MemoryOrder, Scope, TypeClass};

use crate::triple::{Triple, STORAGE_BUFFER};

/// LLVM's name of each memory order (`monotonic` is C++'s relaxed).
pub const ORDERINGS: [(MemoryOrder, &str); 5] = [
    (MemoryOrder::Relaxed, "monotonic"),
    (MemoryOrder::Acquire, "acquire"),
    (MemoryOrder::Release, "release"),
    (MemoryOrder::AcqRel, "acq_rel"),
    (MemoryOrder::SeqCst, "seq_cst"),
];

/// LLVM's spelling of `order`.
pub const fn ordering_name(order: MemoryOrder) -> &'static str {
    let mut i = 0;
    while i < ORDERINGS.len() {
        if ORDERINGS[i].0 as u8 == order as u8 {
            return ORDERINGS[i].1;
        }
        i += 1;
    }
    "seq_cst"
}

/// The order LLVM spells `name` (`unordered` and `not_atomic` are not orders atomir has).
pub fn ordering_from_name(name: &str) -> Option<MemoryOrder> {
    ORDERINGS
        .iter()
        .find(|(_, spelled)| *spelled == name)
        .map(|(order, _)| *order)
}

/// Which element types an `atomicrmw` keyword takes, and the atomir type class its integers
/// read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmwClass {
    /// Integers whose sign does not matter (`add`, `and`, …): read as unsigned.
    Int,
    /// Signed integers (`min`, `max`).
    Signed,
    /// Unsigned integers (`umin`, `uinc_wrap`, …).
    Unsigned,
    /// Floats and vectors of floats (`fadd`, `fminimum`, …).
    Float,
    /// Integers or floats (`xchg`): integers read as bits.
    Any,
}

/// One `atomicrmw` operation keyword: the atomir op it is, the types it takes, its NaN rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RmwSpelling {
    /// The keyword after `atomicrmw`.
    pub keyword: &'static str,
    /// The atomir op.
    pub op: AtomicOp,
    /// The element types it takes.
    pub class: RmwClass,
    /// The looser float results it allows: `fmin`/`fmax` are `llvm.minnum`/`maxnum`, IEEE
    /// 754-2008 minNum/maxNum ([`FloatLaxity::Ieee2008MinMax`]); every other keyword is exact.
    pub laxity: Option<FloatLaxity>,
}

const fn rmw(keyword: &'static str, op: AtomicOp, class: RmwClass) -> RmwSpelling {
    RmwSpelling {
        keyword,
        op,
        class,
        laxity: None,
    }
}

/// Every `atomicrmw` operation of LLVM 14 to 23.
pub const RMW_OPS: [RmwSpelling; 23] = [
    rmw("xchg", AtomicOp::Exch, RmwClass::Any),
    rmw("add", AtomicOp::Add, RmwClass::Int),
    rmw("sub", AtomicOp::Sub, RmwClass::Int),
    rmw("and", AtomicOp::And, RmwClass::Int),
    rmw("nand", AtomicOp::Nand, RmwClass::Int),
    rmw("or", AtomicOp::Or, RmwClass::Int),
    rmw("xor", AtomicOp::Xor, RmwClass::Int),
    rmw("max", AtomicOp::Max, RmwClass::Signed),
    rmw("min", AtomicOp::Min, RmwClass::Signed),
    rmw("umax", AtomicOp::Max, RmwClass::Unsigned),
    rmw("umin", AtomicOp::Min, RmwClass::Unsigned),
    rmw("fadd", AtomicOp::Add, RmwClass::Float),
    rmw("fsub", AtomicOp::Sub, RmwClass::Float),
    RmwSpelling {
        laxity: Some(FloatLaxity::Ieee2008MinMax),
        ..rmw("fmax", AtomicOp::Max, RmwClass::Float)
    },
    RmwSpelling {
        laxity: Some(FloatLaxity::Ieee2008MinMax),
        ..rmw("fmin", AtomicOp::Min, RmwClass::Float)
    },
    rmw("uinc_wrap", AtomicOp::Inc, RmwClass::Unsigned),
    rmw("udec_wrap", AtomicOp::Dec, RmwClass::Unsigned),
    rmw("usub_cond", AtomicOp::UsubCond, RmwClass::Unsigned),
    rmw("usub_sat", AtomicOp::UsubSat, RmwClass::Unsigned),
    rmw("fmaximum", AtomicOp::FMaximum, RmwClass::Float),
    rmw("fminimum", AtomicOp::FMinimum, RmwClass::Float),
    rmw("fmaximumnum", AtomicOp::FMaximumNum, RmwClass::Float),
    rmw("fminimumnum", AtomicOp::FMinimumNum, RmwClass::Float),
];

impl RmwClass {
    /// Whether an element of type `ty` is printed with a keyword of this class.
    const fn prints(self, ty: ElemType) -> bool {
        match (self, ty.class()) {
            (RmwClass::Any, _) => true,
            (RmwClass::Float, class) => {
                matches!(class, TypeClass::Float | TypeClass::PackedFloat)
            }
            (RmwClass::Signed, class) => matches!(class, TypeClass::Signed),
            (RmwClass::Int, class) => !matches!(class, TypeClass::Float | TypeClass::PackedFloat),
            (RmwClass::Unsigned, class) => {
                matches!(class, TypeClass::Unsigned | TypeClass::Bits)
            }
        }
    }
}

/// The keyword atomir prints for `op` on `ty` of laxity `laxity`: the first entry of
/// [`RMW_OPS`] that takes the type and has exactly that laxity. `None` for an op `atomicrmw`
/// does not have with that laxity (cas, load, store; an exact float min/max, which `fmin`/
/// `fmax` would weaken).
pub fn rmw_keyword(
    op: AtomicOp,
    ty: ElemType,
    laxity: Option<FloatLaxity>,
) -> Option<&'static str> {
    RMW_OPS
        .iter()
        .find(|s| s.op == op && s.laxity == laxity && s.class.prints(ty))
        .map(|s| s.keyword)
}

/// The entry of [`RMW_OPS`] spelled `keyword`.
pub fn rmw_from_keyword(keyword: &str) -> Option<&'static RmwSpelling> {
    RMW_OPS.iter().find(|s| s.keyword == keyword)
}

/// The `syncscope` names of each triple; the first name of a (triple, scope) is the one
/// printed, and the empty name is LLVM's default, system scope.
const SYNCSCOPES: [(Triple, Scope, &str); 17] = [
    (Triple::Nvptx64, Scope::System, ""),
    (Triple::Nvptx64, Scope::Block, "block"),
    (Triple::Nvptx64, Scope::Cluster, "cluster"),
    (Triple::Nvptx64, Scope::Device, "device"),
    (Triple::Amdgcn, Scope::System, ""),
    (Triple::Amdgcn, Scope::Block, "workgroup"),
    (Triple::Amdgcn, Scope::Cluster, "cluster"),
    (Triple::Amdgcn, Scope::Device, "agent"),
    (Triple::Spirv64, Scope::System, ""),
    (Triple::Spirv64, Scope::Block, "workgroup"),
    (Triple::Spirv64, Scope::Device, "device"),
    (Triple::Spirv64, Scope::System, "all_svm_devices"),
    (Triple::SpirvVulkan, Scope::System, ""),
    (Triple::SpirvVulkan, Scope::Block, "workgroup"),
    (Triple::SpirvVulkan, Scope::Device, "device"),
    (Triple::SpirvVulkan, Scope::System, "all_svm_devices"),
    (Triple::X86_64, Scope::System, ""),
];

/// AMDGPU's suffix of a scope whose ordering holds in the address space of the access only
/// (`agent-one-as`; system scope's is `one-as`).
pub const ONE_ADDRESS_SPACE: &str = "one-as";

/// A sync scope as read: the atomir scope, and whether (AMDGPU `-one-as`) its ordering holds
/// for the accessed address space only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SyncScope {
    /// The scope.
    pub scope: Scope,
    /// AMDGPU's `-one-as`: the order applies to accesses of the same address space only.
    pub one_address_space: bool,
}

/// The `syncscope` name printed for `scope` on `triple` (empty: none printed). A scope the
/// triple has no name for is printed as system scope, which includes it.
pub fn syncscope_name(triple: Triple, scope: Scope) -> &'static str {
    SYNCSCOPES
        .iter()
        .find(|(t, s, _)| *t == triple && *s == scope)
        .map_or("", |(_, _, name)| name)
}

/// The scope a `syncscope("name")` (empty: none written) means on `triple`.
pub fn syncscope_from_name(triple: Triple, name: &str) -> Option<SyncScope> {
    let (base, one_address_space) = match (triple, name) {
        (Triple::Amdgcn, ONE_ADDRESS_SPACE) => ("", true),
        (Triple::Amdgcn, name) => match name.strip_suffix(ONE_ADDRESS_SPACE) {
            Some(base) if base.ends_with('-') => (&base[..base.len() - 1], true),
            _ => (name, false),
        },
        _ => (name, false),
    };
    SYNCSCOPES
        .iter()
        .find(|(t, _, spelled)| *t == triple && *spelled == base)
        .map(|(_, scope, _)| SyncScope {
            scope: *scope,
            one_address_space,
        })
}

/// The `syncscope` names `triple` has, as they are written (for a diagnostic).
pub fn syncscope_names(triple: Triple) -> impl Iterator<Item = &'static str> {
    SYNCSCOPES
        .iter()
        .filter(move |(t, _, _)| *t == triple)
        .map(|(_, _, name)| *name)
}

/// The numbered address space of each atomir space, per triple. x86-64 has one, which every
/// space is printed as.
const ADDRESS_SPACES: [(Triple, AddressSpace, u32); 13] = [
    (Triple::Nvptx64, AddressSpace::Generic, 0),
    (Triple::Nvptx64, AddressSpace::Global, 1),
    (Triple::Nvptx64, AddressSpace::Shared, 3),
    (Triple::Nvptx64, AddressSpace::SharedCluster, 7),
    (Triple::Amdgcn, AddressSpace::Generic, 0),
    (Triple::Amdgcn, AddressSpace::Global, 1),
    (Triple::Amdgcn, AddressSpace::Shared, 3),
    (Triple::Spirv64, AddressSpace::Generic, 4),
    (Triple::Spirv64, AddressSpace::Global, 1),
    (Triple::Spirv64, AddressSpace::Shared, 3),
    (Triple::SpirvVulkan, AddressSpace::Global, STORAGE_BUFFER),
    (Triple::SpirvVulkan, AddressSpace::Shared, 3),
    (Triple::X86_64, AddressSpace::Generic, 0),
];

/// The numbered address space of `space` on `triple`, if it has one.
pub const fn address_space_number(triple: Triple, space: AddressSpace) -> Option<u32> {
    let mut i = 0;
    while i < ADDRESS_SPACES.len() {
        let (t, s, number) = ADDRESS_SPACES[i];
        if t as u8 == triple as u8 && s as u8 == space as u8 {
            return Some(number);
        }
        i += 1;
    }
    None
}

/// The atomir space of `addrspace(number)` on `triple`.
pub fn address_space_from_number(triple: Triple, number: u32) -> Option<AddressSpace> {
    ADDRESS_SPACES
        .iter()
        .find(|(t, _, n)| *t == triple && *n == number)
        .map(|(_, space, _)| *space)
}

/// The numbered address spaces `triple` has an atomir space for (for a diagnostic).
pub fn address_space_numbers(triple: Triple) -> impl Iterator<Item = (u32, AddressSpace)> {
    ADDRESS_SPACES
        .iter()
        .filter(move |(t, _, _)| *t == triple)
        .map(|(_, space, number)| (*number, *space))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_reads_back() {
        for (order, name) in ORDERINGS {
            assert_eq!(ordering_name(order), name);
            assert_eq!(ordering_from_name(name), Some(order));
        }
        for triple in Triple::ALL {
            for scope in Scope::ALL.iter().copied() {
                let name = syncscope_name(triple, scope);
                let read = syncscope_from_name(triple, name).unwrap();
                assert!(read.scope.includes(scope), "{triple:?} {scope:?}");
            }
            for space in AddressSpace::ALL.iter().copied() {
                if let Some(number) = address_space_number(triple, space) {
                    assert_eq!(address_space_from_number(triple, number), Some(space));
                }
            }
        }
        let agent = syncscope_from_name(Triple::Amdgcn, "agent-one-as").unwrap();
        assert_eq!(
            (agent.scope, agent.one_address_space),
            (Scope::Device, true)
        );
        let system = syncscope_from_name(Triple::Amdgcn, "one-as").unwrap();
        assert_eq!(system.scope, Scope::System);
        assert!(syncscope_from_name(Triple::Amdgcn, "wavefront").is_none());
        assert!(syncscope_from_name(Triple::Nvptx64, "agent-one-as").is_none());
    }

    #[test]
    fn every_keyword_prints_from_its_entry() {
        for spelling in RMW_OPS {
            assert_eq!(rmw_from_keyword(spelling.keyword), Some(&spelling));
        }
        assert_eq!(rmw_keyword(AtomicOp::Min, ElemType::S32, None), Some("min"));
        assert_eq!(
            rmw_keyword(AtomicOp::Min, ElemType::U32, None),
            Some("umin")
        );
        assert_eq!(
            rmw_keyword(AtomicOp::Add, ElemType::F32, None),
            Some("fadd")
        );
        assert_eq!(rmw_keyword(AtomicOp::Add, ElemType::S64, None), Some("add"));
        assert_eq!(
            rmw_keyword(AtomicOp::Exch, ElemType::F16, None),
            Some("xchg")
        );
        assert_eq!(rmw_keyword(AtomicOp::Max, ElemType::F32, None), None);
        let loose = Some(FloatLaxity::Ieee2008MinMax);
        assert_eq!(
            rmw_keyword(AtomicOp::Max, ElemType::F32, loose),
            Some("fmax")
        );
        assert_eq!(
            rmw_keyword(AtomicOp::Min, ElemType::F16, loose),
            Some("fmin")
        );
        assert_eq!(rmw_keyword(AtomicOp::Cas, ElemType::B32, None), None);
    }
}
