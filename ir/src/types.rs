//! The typed vocabulary of an atomic node: operation, element type, vector shape, memory order,
//! scope, address space, cache hint and float laxity.
//!
//! Every enum here has one canonical spelling, used by both the parser and the printer
//! (`as_str` / `from_name`), so the text form cannot drift from the types.

use std::fmt;

use crate::spelled;
pub use crate::spelling::UnknownName;

spelled! {
    /// The operation of an atomic access. Semantics (per element): `old = *a; *a = op(old, b[, c])`;
    /// see [`crate::semantics`] for every definition.
    pub enum AtomicOp {
        /// Wrapping integer add; round-to-nearest-even float add.
        Add => "add",
        /// Wrapping integer subtract; float subtract.
        Sub => "sub",
        /// Bounded increment: `old >= b ? 0 : old + 1` (unsigned only).
        Inc => "inc",
        /// Bounded decrement: `(old == 0 || old > b) ? b : old - 1` (unsigned only).
        Dec => "dec",
        /// Signed or unsigned min by element type; on floats IEEE 754-2019 minimumNumber
        /// (identical to [`AtomicOp::FMinimumNum`]).
        Min => "min",
        /// Signed or unsigned max by element type; on floats IEEE 754-2019 maximumNumber
        /// (identical to [`AtomicOp::FMaximumNum`]).
        Max => "max",
        /// Bitwise and (integer and `bN` types up to 64 bits).
        And => "and",
        /// Bitwise or (integer and `bN` types up to 64 bits).
        Or => "or",
        /// Bitwise xor (integer and `bN` types up to 64 bits).
        Xor => "xor",
        /// `!(old & b)`.
        Nand => "nand",
        /// Exchange: stores `b`.
        Exch => "exch",
        /// Compare and swap: `old == b ? c : old`. Takes two operands: expected, then new.
        Cas => "cas",
        /// Subtract unless it would wrap: `old >= b ? old - b : old` (unsigned only; LLVM's
        /// `usub_cond`).
        UsubCond => "usub_cond",
        /// Saturating subtract: `old >= b ? old - b : 0` (unsigned only; LLVM's `usub_sat`).
        UsubSat => "usub_sat",
        /// IEEE 754-2019 minimum: NaN-propagating, `-0 < +0` (floats only).
        FMinimum => "fminimum",
        /// IEEE 754-2019 maximum: NaN-propagating, `-0 < +0` (floats only).
        FMaximum => "fmaximum",
        /// IEEE 754-2019 minimumNumber: a NaN operand is ignored, `-0 < +0` (floats only).
        FMinimumNum => "fminimumnum",
        /// IEEE 754-2019 maximumNumber: a NaN operand is ignored, `-0 < +0` (floats only).
        FMaximumNum => "fmaximumnum",
        /// Atomic load: the result is the memory's value, memory is unchanged. No operand; the
        /// result is required. Orders: relaxed, acquire, seq_cst.
        Load => "load",
        /// Atomic store: memory becomes `b`. One operand, no result. Orders: relaxed, release,
        /// seq_cst.
        Store => "store",
    }
}

impl AtomicOp {
    /// Number of value operands after the address.
    pub const fn operand_count(self) -> usize {
        match self {
            AtomicOp::Load => 0,
            AtomicOp::Cas => 2,
            _ => 1,
        }
    }

    /// Bitwise operations, meaningful on untyped and integer data, never on floats.
    pub const fn is_bitwise(self) -> bool {
        matches!(
            self,
            AtomicOp::And | AtomicOp::Or | AtomicOp::Xor | AtomicOp::Nand
        )
    }

    /// Operations that only move bits (no interpretation of the value).
    pub const fn is_move(self) -> bool {
        matches!(
            self,
            AtomicOp::Exch | AtomicOp::Cas | AtomicOp::Load | AtomicOp::Store
        )
    }

    /// Whether the access both reads and writes memory (everything but load and store).
    pub const fn is_read_modify_write(self) -> bool {
        !matches!(self, AtomicOp::Load | AtomicOp::Store)
    }

    /// Whether the instruction must name its result (a load exists to read).
    pub const fn requires_result(self) -> bool {
        matches!(self, AtomicOp::Load)
    }

    /// Whether the instruction has no result to name (a store returns nothing).
    pub const fn has_no_result(self) -> bool {
        matches!(self, AtomicOp::Store)
    }

    /// Whether `order` is meaningful for this access: a load has no release part and a store no
    /// acquire part, so a release or acq_rel load and an acquire or acq_rel store are refused
    /// (seq_cst is both loads' and stores' strongest order, as in C++ and LLVM).
    pub const fn admits_order(self, order: MemoryOrder) -> bool {
        !matches!(
            (self, order),
            (AtomicOp::Load, MemoryOrder::Release | MemoryOrder::AcqRel)
                | (AtomicOp::Store, MemoryOrder::Acquire | MemoryOrder::AcqRel)
        )
    }
}

/// The kind of data an element type holds, which decides which operations make sense on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeClass {
    /// `uN`: integer arithmetic, unsigned min/max, and `inc`/`dec`, `usub_cond`/`usub_sat`.
    Unsigned,
    /// `sN`: integer arithmetic, signed min/max.
    Signed,
    /// Untyped bits (`bN`): only bitwise ops, exch and cas.
    Bits,
    /// `f16`, `bf16`, `f32`, `f64`: float add/sub/min/max, exch and cas (on bit patterns).
    Float,
    /// Two 16-bit floats packed in one 32-bit word; each half is an independent atomic element.
    PackedFloat,
}

spelled! {
    /// Element type of an atomic access.
    ///
    /// The class ([`ElemType::class`]) decides the operations ([`ElemType::supports`]): `uN`
    /// has every integer op including the unsigned-only `inc`/`dec`/`usub_*`, `sN` reads
    /// min/max as signed, `bN` is bits for bitwise ops, `exch`, `cas`, loads and stores, floats
    /// have add/sub and the four float min/max spellings. 8- and 16-bit types exist because
    /// programs have them; a target without such atomics widens them to the containing 32-bit
    /// word.
    pub enum ElemType {
        /// Unsigned 8-bit integer.
        U8 => "u8",
        /// Unsigned 16-bit integer.
        U16 => "u16",
        /// Unsigned 32-bit integer.
        U32 => "u32",
        /// Unsigned 64-bit integer.
        U64 => "u64",
        /// Signed (two's-complement) 8-bit integer.
        S8 => "s8",
        /// Signed 16-bit integer.
        S16 => "s16",
        /// Signed 32-bit integer.
        S32 => "s32",
        /// Signed 64-bit integer.
        S64 => "s64",
        /// 8 untyped bits.
        B8 => "b8",
        /// 16 untyped bits.
        B16 => "b16",
        /// 32 untyped bits.
        B32 => "b32",
        /// 64 untyped bits.
        B64 => "b64",
        /// 128 untyped bits: `exch`, `cas`, load and store only (PTX `.b128` from sm_90).
        B128 => "b128",
        /// IEEE binary16.
        F16 => "f16",
        /// bfloat16: f32's 8-bit exponent with a 7-bit significand.
        Bf16 => "bf16",
        /// IEEE binary32.
        F32 => "f32",
        /// IEEE binary64.
        F64 => "f64",
        /// Two f16 lanes in one 32-bit element, the low lane at the lower address; arithmetic
        /// is per lane, `exch`/`cas` move the whole word.
        F16x2 => "f16x2",
        /// Two bf16 lanes in one 32-bit element, as [`ElemType::F16x2`].
        Bf16x2 => "bf16x2",
    }
}

impl ElemType {
    /// Width of the whole element in bits (a packed type counts both halves).
    pub const fn bits(self) -> u32 {
        use ElemType::*;
        match self {
            U8 | S8 | B8 => 8,
            U16 | S16 | B16 | F16 | Bf16 => 16,
            U32 | S32 | B32 | F32 | F16x2 | Bf16x2 => 32,
            U64 | S64 | B64 | F64 => 64,
            B128 => 128,
        }
    }

    /// Width of the whole element in bytes.
    pub const fn bytes(self) -> u32 {
        self.bits() / 8
    }

    /// The kind of data, which decides which operations the type has.
    pub const fn class(self) -> TypeClass {
        use ElemType::*;
        match self {
            U8 | U16 | U32 | U64 => TypeClass::Unsigned,
            S8 | S16 | S32 | S64 => TypeClass::Signed,
            B8 | B16 | B32 | B64 | B128 => TypeClass::Bits,
            F16 | Bf16 | F32 | F64 => TypeClass::Float,
            F16x2 | Bf16x2 => TypeClass::PackedFloat,
        }
    }

    /// A scalar float or a packed pair of floats.
    pub const fn is_float(self) -> bool {
        matches!(self.class(), TypeClass::Float | TypeClass::PackedFloat)
    }

    /// `f16x2` or `bf16x2`: two independent 16-bit lanes in one 32-bit element.
    pub const fn is_packed(self) -> bool {
        matches!(self.class(), TypeClass::PackedFloat)
    }

    /// The scalar type of one lane of a packed type; the type itself otherwise.
    pub const fn lane_type(self) -> ElemType {
        match self {
            ElemType::F16x2 => ElemType::F16,
            ElemType::Bf16x2 => ElemType::Bf16,
            other => other,
        }
    }

    /// Number of independent lanes inside one element (2 for packed types).
    pub const fn lanes(self) -> u32 {
        if self.is_packed() {
            2
        } else {
            1
        }
    }

    /// The untyped type of the same width.
    pub const fn bits_type(self) -> ElemType {
        match self.bits() {
            8 => ElemType::B8,
            16 => ElemType::B16,
            32 => ElemType::B32,
            64 => ElemType::B64,
            _ => ElemType::B128,
        }
    }

    /// Whether `op` is meaningful on this type, independent of any target.
    ///
    /// Bitwise ops: integers and bits. inc/dec/usub_cond/usub_sat: unsigned only (as in LLVM,
    /// they read the bits as unsigned, so a signed spelling would mislead). add/sub/min/max:
    /// numbers, not `bN`. fminimum/fmaximum/fminimumnum/fmaximumnum: floats and packed floats.
    /// exch/cas/load/store: anything. Float bitwise ops and signed inc/dec are meaningless.
    pub const fn supports(self, op: AtomicOp) -> bool {
        use AtomicOp::*;
        let class = self.class();
        match op {
            Exch | Cas | Load | Store => true,
            And | Or | Xor | Nand => {
                matches!(
                    class,
                    TypeClass::Unsigned | TypeClass::Signed | TypeClass::Bits
                ) && self.bits() <= 64
            }
            Inc | Dec | UsubCond | UsubSat => matches!(class, TypeClass::Unsigned),
            Add | Sub | Min | Max => !matches!(class, TypeClass::Bits),
            FMinimum | FMaximum | FMinimumNum | FMaximumNum => {
                matches!(class, TypeClass::Float | TypeClass::PackedFloat)
            }
        }
    }
}

spelled! {
    /// How many elements one atomic instruction touches. Atomicity is per element.
    pub enum VectorShape {
        /// One element (the text form writes no shape).
        Scalar => "scalar",
        /// Two consecutive elements (PTX `.v2`).
        V2 => "v2",
        /// Four consecutive elements (PTX `.v4`).
        V4 => "v4",
        /// Eight consecutive elements (natively only PTX `.v8` of f16 and bf16; others split).
        V8 => "v8",
    }
}

// A shape always has at least one element, so an `is_empty` would be meaningless.
#[allow(clippy::len_without_is_empty)]
impl VectorShape {
    /// The number of elements: 1, 2, 4 or 8.
    pub const fn len(self) -> usize {
        match self {
            VectorShape::Scalar => 1,
            VectorShape::V2 => 2,
            VectorShape::V4 => 4,
            VectorShape::V8 => 8,
        }
    }

    /// Any shape but scalar.
    pub const fn is_vector(self) -> bool {
        !matches!(self, VectorShape::Scalar)
    }

    /// The shape of `len` elements; `None` unless `len` is 1, 2, 4 or 8.
    pub const fn from_len(len: usize) -> Option<Self> {
        match len {
            1 => Some(VectorShape::Scalar),
            2 => Some(VectorShape::V2),
            4 => Some(VectorShape::V4),
            8 => Some(VectorShape::V8),
            _ => None,
        }
    }
}

spelled! {
    /// C++/PTX memory order of the whole read-modify-write.
    ///
    /// PTX spells it `.relaxed`/`.acquire`/`.release`/`.acq_rel` from sm_70 (`seq_cst` as
    /// `fence.sc` then `.acquire`; `membar`s before sm_70); LLVM as `monotonic`, `acquire`,
    /// `release`, `acq_rel`, `seq_cst`; vISA messages carry no order, so fences around them do.
    pub enum MemoryOrder {
        /// Atomicity only, no ordering of other accesses (C++ `memory_order_relaxed`, LLVM
        /// `monotonic`).
        Relaxed => "relaxed",
        /// Later accesses of the thread stay after this one; pairs with a release it reads from.
        Acquire => "acquire",
        /// Earlier accesses of the thread stay before this one.
        Release => "release",
        /// Both acquire and release (read-modify-writes and fences only).
        AcqRel => "acq_rel",
        /// acq_rel, and a single total order of all seq_cst operations.
        SeqCst => "seq_cst",
    }
}

/// The order of a Rust atomic access: `Relaxed` is relaxed, `SeqCst` is seq_cst, and so on.
///
/// `Ordering` is `#[non_exhaustive]`: an order a later Rust adds maps to `seq_cst`, the
/// strongest, so a conversion never weakens an order.
impl From<std::sync::atomic::Ordering> for MemoryOrder {
    fn from(order: std::sync::atomic::Ordering) -> Self {
        use std::sync::atomic::Ordering;
        match order {
            Ordering::Relaxed => MemoryOrder::Relaxed,
            Ordering::Acquire => MemoryOrder::Acquire,
            Ordering::Release => MemoryOrder::Release,
            Ordering::AcqRel => MemoryOrder::AcqRel,
            Ordering::SeqCst => MemoryOrder::SeqCst,
            _ => MemoryOrder::SeqCst,
        }
    }
}

impl MemoryOrder {
    /// Whether a fence of this order orders anything: a relaxed fence is meaningless.
    /// Whether a fence may carry this order (any but relaxed).
    pub const fn is_fence_order(self) -> bool {
        !matches!(self, MemoryOrder::Relaxed)
    }

    /// acquire, acq_rel or seq_cst: later accesses may not move before this one.
    pub const fn has_acquire(self) -> bool {
        matches!(
            self,
            MemoryOrder::Acquire | MemoryOrder::AcqRel | MemoryOrder::SeqCst
        )
    }

    /// release, acq_rel or seq_cst: earlier accesses may not move after this one.
    pub const fn has_release(self) -> bool {
        matches!(
            self,
            MemoryOrder::Release | MemoryOrder::AcqRel | MemoryOrder::SeqCst
        )
    }

    /// Whether `self` gives every guarantee `other` gives. A lowering may only ever replace an
    /// order by one for which `replacement.implies(original)` holds.
    pub const fn implies(self, other: MemoryOrder) -> bool {
        (!other.has_acquire() || self.has_acquire())
            && (!other.has_release() || self.has_release())
            && (!matches!(other, MemoryOrder::SeqCst) || matches!(self, MemoryOrder::SeqCst))
    }
}

spelled! {
    /// The set of threads the atomicity and ordering are guaranteed towards, narrowest first.
    ///
    /// A target without the exact scope may widen it (recorded as
    /// [`Rewrite::ScopeWidened`](crate::Rewrite::ScopeWidened)), never narrow it.
    pub enum Scope {
        /// The threads of one block / workgroup (PTX `.cta`, vISA `group`, LLVM `block` on
        /// NVPTX and `workgroup` on AMDGPU and SPIR-V).
        Block => "block",
        /// The blocks of one cluster (PTX `.cluster`, sm_90 on).
        Cluster => "cluster",
        /// Every thread of the device (PTX `.gpu`, vISA `gpu`, LLVM `device` / `agent`).
        Device => "device",
        /// Every thread of every device and the host (PTX `.sys`, LLVM's default system scope).
        System => "system",
    }
}

impl Scope {
    /// Whether `self` includes every thread `other` includes (scopes are totally ordered).
    pub fn includes(self, other: Scope) -> bool {
        self >= other
    }
}

spelled! {
    /// The state space the address points into.
    pub enum AddressSpace {
        /// Not known statically: global or shared, resolved by the hardware (PTX without a
        /// space qualifier, LLVM `addrspace(0)`, or 4 on SPIR-V).
        Generic => "generic",
        /// Device memory (PTX `.global`, vISA SVM / LSC `ugm`, LLVM `addrspace(1)` on GPU
        /// triples).
        Global => "global",
        /// The block's on-chip memory (PTX `.shared`, vISA LSC `slm`, LLVM `addrspace(3)`).
        Shared => "shared",
        /// Another block's shared memory in the same cluster (PTX `.shared::cluster`, sm_90 on;
        /// NVPTX `addrspace(7)`).
        SharedCluster => "shared_cluster",
    }
}

spelled! {
    /// An L2 cache eviction hint; a performance hint only, never a change of meaning.
    ///
    /// PTX carries it as `.L2::cache_hint` with a `createpolicy` of the matching policy; the
    /// other backends drop it (recorded as
    /// [`Rewrite::CacheHintDropped`](crate::Rewrite::CacheHintDropped)).
    pub enum CacheHint {
        /// The line is among the first evicted (`L2::evict_first`).
        EvictFirst => "evict_first",
        /// The line is among the last evicted (`L2::evict_last`).
        EvictLast => "evict_last",
        /// The default policy, stated (`L2::evict_normal`).
        EvictNormal => "evict_normal",
        /// Do not keep the line; PTX prints it as `L2::evict_first`.
        NoAllocate => "no_allocate",
    }
}

spelled! {
    /// A looser float result an atomic allows, beside the exact one its op defines: the meaning
    /// of a native instruction that is not exact (a node without one is exact).
    ///
    /// It is a property of the node, not a request: the node's meaning is the *set* of results
    /// its op gives plus the ones the laxity admits, so the exact result is always among them.
    /// Any target may carry a lax node by the exact node's code; a target may carry it by a
    /// native instruction whose results lie in that set, and an exact node never by such an
    /// instruction. [`crate::semantics::allows`] says which results are in the set.
    ///
    /// One laxity per node, each for the ops whose native forms have it
    /// ([`FloatLaxity::admits`]): the flushing add and the 2008 min/max never meet on one op,
    /// so a pair of flags would only add a combination no instruction means.
    pub enum FloatLaxity {
        /// Float add or sub that may flush subnormal inputs and result to a zero of the same
        /// sign: each element's result is the IEEE one or the one computed with every input and
        /// the result flushed ([`crate::semantics::FloatMode::FlushSubnormals`]). PTX
        /// `atom`/`red` `.add.f32` without `.noftz` on global memory (or a generic address
        /// pointing there) means this.
        MayFlushSubnormals => "ftz",
        /// Float min/max as IEEE 754-2008 minNum/maxNum: as the exact op, except that two NaN
        /// operands give any NaN (any payload), a signalling NaN operand may give any NaN, and
        /// zeros of opposite sign give either. LLVM's `atomicrmw fmin`/`fmax` (`llvm.minnum`/
        /// `maxnum`) mean this, and so do PTX's `.noftz` f16/bf16 (vector, packed) min/max,
        /// whose result for two NaNs is a NaN other than the canonical one and whose order of
        /// -0 and +0 the PTX ISA leaves unstated.
        Ieee2008MinMax => "ieee2008",
    }
}

impl FloatLaxity {
    /// Whether the laxity has a meaning for `op` on `ty`: [`FloatLaxity::MayFlushSubnormals`]
    /// on float add and sub, [`FloatLaxity::Ieee2008MinMax`] on float min and max (packed
    /// floats included).
    pub const fn admits(self, op: AtomicOp, ty: ElemType) -> bool {
        ty.is_float()
            && match self {
                FloatLaxity::MayFlushSubnormals => matches!(op, AtomicOp::Add | AtomicOp::Sub),
                FloatLaxity::Ieee2008MinMax => matches!(op, AtomicOp::Min | AtomicOp::Max),
            }
    }

    /// Whether a node of laxity `node` may be carried by code whose results are those of
    /// laxity `code` (`None`: exact): the code's set of results must lie in the node's.
    pub fn carries(code: Option<FloatLaxity>, node: Option<FloatLaxity>) -> bool {
        code.is_none() || code == node
    }
}

/// The type of a value: a pointer into a space, a predicate, or a (vector of) element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueType {
    /// An address into a space (`ptr.global`, `ptr.generic`, …).
    Ptr(AddressSpace),
    /// A predicate, which only guards instructions.
    Pred,
    /// Data: an element type, scalar or vector.
    Data(ElemType, VectorShape),
}

impl ValueType {
    /// Scalar data of element type `ty`.
    pub const fn scalar(ty: ElemType) -> ValueType {
        ValueType::Data(ty, VectorShape::Scalar)
    }
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueType::Ptr(space) => write!(f, "ptr.{space}"),
            ValueType::Pred => f.write_str("pred"),
            ValueType::Data(ty, VectorShape::Scalar) => write!(f, "{ty}"),
            ValueType::Data(ty, shape) => write!(f, "{shape}.{ty}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_round_trip() {
        for op in AtomicOp::ALL {
            assert_eq!(AtomicOp::from_name(op.as_str()), Some(*op));
        }
        for ty in ElemType::ALL {
            assert_eq!(ElemType::from_name(ty.as_str()), Some(*ty));
        }
        for order in MemoryOrder::ALL {
            assert_eq!(MemoryOrder::from_name(order.as_str()), Some(*order));
        }
        assert_eq!(ElemType::from_name("u31"), None);
    }

    #[test]
    fn order_implication_never_weakens() {
        use MemoryOrder::*;
        assert!(SeqCst.implies(AcqRel));
        assert!(AcqRel.implies(Acquire) && AcqRel.implies(Release));
        assert!(!Acquire.implies(Release));
        assert!(!Release.implies(Acquire));
        assert!(!AcqRel.implies(SeqCst));
        for o in MemoryOrder::ALL {
            assert!(o.implies(Relaxed));
            assert!(o.implies(*o));
        }
    }

    #[test]
    fn type_op_table() {
        assert!(ElemType::B32.supports(AtomicOp::Cas));
        assert!(!ElemType::B32.supports(AtomicOp::Add));
        assert!(!ElemType::F32.supports(AtomicOp::And));
        assert!(!ElemType::S32.supports(AtomicOp::Inc));
        assert!(ElemType::U64.supports(AtomicOp::Dec));
        assert!(!ElemType::B128.supports(AtomicOp::Xor));
        assert!(ElemType::F16x2.supports(AtomicOp::Max));
        assert!(
            ElemType::B128.supports(AtomicOp::Load) && ElemType::B128.supports(AtomicOp::Store)
        );
        assert!(
            ElemType::U8.supports(AtomicOp::UsubSat) && !ElemType::S32.supports(AtomicOp::UsubCond)
        );
        assert!(!ElemType::B32.supports(AtomicOp::UsubSat));
        assert!(
            ElemType::Bf16x2.supports(AtomicOp::FMinimum)
                && !ElemType::U32.supports(AtomicOp::FMaximumNum)
        );
    }

    #[test]
    fn loads_and_stores_admit_only_their_orders() {
        use MemoryOrder::*;
        let load: Vec<_> = MemoryOrder::ALL
            .iter()
            .filter(|o| AtomicOp::Load.admits_order(**o))
            .collect();
        assert_eq!(load, [&Relaxed, &Acquire, &SeqCst]);
        let store: Vec<_> = MemoryOrder::ALL
            .iter()
            .filter(|o| AtomicOp::Store.admits_order(**o))
            .collect();
        assert_eq!(store, [&Relaxed, &Release, &SeqCst]);
        assert!(MemoryOrder::ALL
            .iter()
            .all(|o| AtomicOp::Cas.admits_order(*o)));
        assert!(!Relaxed.is_fence_order() && AcqRel.is_fence_order());
    }
}
