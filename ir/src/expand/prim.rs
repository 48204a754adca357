//! The vocabulary of expansions: register types and primitive operations, with the typing
//! rules of each primitive (the one place they are written: the validator and the interpreter
//! both use [`Prim::check_types`]).

use smallvec::{smallvec, SmallVec};
use std::fmt;

use super::Var;
use crate::semantics::{sign_extend, width_mask};
use crate::types::{AddressSpace, AtomicOp, CacheHint, ElemType, MemoryOrder, Scope};

/// The type of a virtual register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimType {
    /// A 1-bit predicate, the result of [`Prim::Cmp`] and the condition of branches and selects.
    Pred,
    /// A 64-bit address in the node's space.
    Ptr,
    /// 8 bits, no signedness: ops that care ([`BinaryOp::SMin`], [`CmpCond::Ult`]) say how
    /// they read it. Likewise the wider integer types.
    I8,
    /// 16-bit integer bits.
    I16,
    /// 32-bit integer bits.
    I32,
    /// 64-bit integer bits.
    I64,
    /// 128-bit integer bits (a `b128` exchange or CAS).
    I128,
    /// IEEE binary16.
    F16,
    /// bfloat16 (8-bit exponent, 7-bit significand).
    Bf16,
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
}

impl PrimType {
    /// Width in bits (1 for a predicate, 64 for a pointer).
    pub const fn bits(self) -> u32 {
        match self {
            PrimType::Pred => 1,
            PrimType::I8 => 8,
            PrimType::I16 | PrimType::F16 | PrimType::Bf16 => 16,
            PrimType::I32 | PrimType::F32 => 32,
            PrimType::I64 | PrimType::F64 | PrimType::Ptr => 64,
            PrimType::I128 => 128,
        }
    }

    /// The integer type of `bits` width.
    pub const fn int(bits: u32) -> PrimType {
        match bits {
            8 => PrimType::I8,
            16 => PrimType::I16,
            32 => PrimType::I32,
            64 => PrimType::I64,
            _ => PrimType::I128,
        }
    }

    /// `f16`, `bf16`, `f32` or `f64`.
    pub const fn is_float(self) -> bool {
        matches!(
            self,
            PrimType::F16 | PrimType::Bf16 | PrimType::F32 | PrimType::F64
        )
    }

    /// `i8` to `i128` (not predicates or pointers).
    pub const fn is_int(self) -> bool {
        matches!(
            self,
            PrimType::I8 | PrimType::I16 | PrimType::I32 | PrimType::I64 | PrimType::I128
        )
    }

    /// The register type that holds a value of `ty` as the program sees it: floats as floats,
    /// everything else (packed types included) as integer bits.
    pub const fn natural(ty: ElemType) -> PrimType {
        match ty {
            ElemType::F16 => PrimType::F16,
            ElemType::Bf16 => PrimType::Bf16,
            ElemType::F32 => PrimType::F32,
            ElemType::F64 => PrimType::F64,
            other => PrimType::int(other.bits()),
        }
    }
}

impl fmt::Display for PrimType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PrimType::Pred => "pred",
            PrimType::Ptr => "ptr",
            PrimType::I8 => "i8",
            PrimType::I16 => "i16",
            PrimType::I32 => "i32",
            PrimType::I64 => "i64",
            PrimType::I128 => "i128",
            PrimType::F16 => "f16",
            PrimType::Bf16 => "bf16",
            PrimType::F32 => "f32",
            PrimType::F64 => "f64",
        })
    }
}

/// One-operand primitives. Conversions take their result type from the destination register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// The same value in another register of the same type.
    Copy,
    /// Bitwise not (integers and predicates).
    Not,
    /// Same bits, other type of the same width.
    Bitcast,
    /// Zero-extend an integer to a wider integer.
    Zext,
    /// Keep the low bits of an integer.
    Trunc,
}

/// Two-operand primitives; both operands and the result have one type. `Shl`/`LShr` take the
/// shift amount in the same type. `FMin`/`FMax` are IEEE minNum/maxNum with -0 < +0, exactly
/// as [`crate::semantics`] defines them; float add/sub round to nearest even without flushing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// Wrapping integer add.
    Add,
    /// Wrapping integer subtract, `a - b`.
    Sub,
    /// Bitwise and (integers and predicates).
    And,
    /// Bitwise or (integers and predicates).
    Or,
    /// Bitwise xor (integers and predicates).
    Xor,
    /// Shift left; an amount of the width or more gives zero.
    Shl,
    /// Logical (zero-filling) shift right; an amount of the width or more gives zero.
    LShr,
    /// Minimum of the operands read as two's-complement integers.
    SMin,
    /// Maximum of the operands read as two's-complement integers.
    SMax,
    /// Minimum of the operands read as unsigned integers.
    UMin,
    /// Maximum of the operands read as unsigned integers.
    UMax,
    /// Float add, round to nearest even, subnormals kept.
    FAdd,
    /// Float subtract `a - b`, round to nearest even, subnormals kept.
    FSub,
    /// Float minimum (IEEE 754-2019 minimumNumber, `-0 < +0`).
    FMin,
    /// Float maximum (IEEE 754-2019 maximumNumber, `-0 < +0`).
    FMax,
    /// A target's float minimum: [`BinaryOp::FMin`] on every pair except two NaNs, which give
    /// a NaN the target chooses (not necessarily [`crate::semantics::canonical_nan`]). Only the
    /// soft-float pass makes it, for targets whose documented min says so.
    FMinAnyNan,
    /// A target's float maximum: [`BinaryOp::FMax`] on every pair except two NaNs, which give
    /// a NaN the target chooses.
    FMaxAnyNan,
}

impl BinaryOp {
    /// The integer op on `bits`-wide operands: wrapping, a shift by the width or more gives
    /// zero, the result masked to the width; `None` for a float op. The interpreter runs
    /// integer primitives through it, and a printer that folds literal operands does too.
    pub fn on_integers(self, bits: u32, x: u128, y: u128) -> Option<u128> {
        let mask = width_mask(bits);
        let (x, y) = (x & mask, y & mask);
        let shift = |left: bool| {
            if y >= u128::from(bits) {
                0
            } else if left {
                x << y
            } else {
                x >> y
            }
        };
        let pick = |first: bool| if first { x } else { y };
        let value = match self {
            BinaryOp::Add => x.wrapping_add(y),
            BinaryOp::Sub => x.wrapping_sub(y),
            BinaryOp::And => x & y,
            BinaryOp::Or => x | y,
            BinaryOp::Xor => x ^ y,
            BinaryOp::Shl => shift(true),
            BinaryOp::LShr => shift(false),
            BinaryOp::SMin => pick(sign_extend(x, bits) <= sign_extend(y, bits)),
            BinaryOp::SMax => pick(sign_extend(x, bits) >= sign_extend(y, bits)),
            BinaryOp::UMin => x.min(y),
            BinaryOp::UMax => x.max(y),
            BinaryOp::FAdd
            | BinaryOp::FSub
            | BinaryOp::FMin
            | BinaryOp::FMax
            | BinaryOp::FMinAnyNan
            | BinaryOp::FMaxAnyNan => return None,
        };
        Some(value & mask)
    }

    /// The identity of an associative, commutative integer op on `bits`-wide operands (the
    /// value [`Prim::WarpScan`] gives a lane with no lane below it); `None` for the others.
    pub const fn integer_identity(self, bits: u32) -> Option<u128> {
        let all_ones = width_mask(bits);
        let sign = 1u128 << (bits - 1);
        match self {
            BinaryOp::Add | BinaryOp::Or | BinaryOp::Xor | BinaryOp::UMax => Some(0),
            BinaryOp::And | BinaryOp::UMin => Some(all_ones),
            BinaryOp::SMin => Some(sign - 1),
            BinaryOp::SMax => Some(sign),
            _ => None,
        }
    }

    /// The value [`Prim::WarpScan`] gives a lane with no lane below it, for `op` on `ty`:
    /// [`BinaryOp::integer_identity`] on an integer of at most 64 bits, -0.0 for `FAdd` on
    /// `f32` (`x + -0.0` is `x`); `None` where a warp scan cannot fold `op` on `ty`.
    pub const fn scan_identity(self, ty: PrimType) -> Option<u128> {
        match ty {
            PrimType::I8 | PrimType::I16 | PrimType::I32 | PrimType::I64 => {
                self.integer_identity(ty.bits())
            }
            PrimType::F32 if matches!(self, BinaryOp::FAdd) => Some(0x8000_0000),
            _ => None,
        }
    }

    /// Float arithmetic, on float registers only.
    pub const fn is_float(self) -> bool {
        matches!(
            self,
            BinaryOp::FAdd
                | BinaryOp::FSub
                | BinaryOp::FMin
                | BinaryOp::FMax
                | BinaryOp::FMinAnyNan
                | BinaryOp::FMaxAnyNan
        )
    }
}

/// Integer comparisons (on bit patterns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpCond {
    /// Equal bit patterns (so a CAS loop's exit test compares floats by their bits).
    Eq,
    /// Different bit patterns.
    Ne,
    /// Unsigned `a < b`.
    Ult,
    /// Unsigned `a <= b`.
    Ule,
    /// Unsigned `a > b`.
    Ugt,
    /// Unsigned `a >= b`.
    Uge,
}

/// Memory attributes carried by every memory primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemAttrs {
    /// The order this access carries (the node's, or relaxed inside a fenced expansion).
    pub order: MemoryOrder,
    /// The set of threads the access is atomic and ordered with respect to.
    pub scope: Scope,
    /// The memory the address points into.
    pub space: AddressSpace,
    /// The node's cache hint, passed on to the access that touches memory.
    pub hint: Option<CacheHint>,
}

/// A primitive operation. `dst` is the register a primitive defines (each register is defined
/// once); every other `Var` is a register it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Prim {
    /// `dst = bits`, truncated to `dst`'s type.
    Const {
        /// The register defined.
        dst: Var,
        /// The constant's bits, zero-extended to 128.
        bits: u128,
    },
    /// An atomic load of `dst`'s width (an integer type).
    Load {
        /// The loaded value.
        dst: Var,
        /// A [`PrimType::Ptr`] aligned to `dst`'s width.
        addr: Var,
        /// Order, scope, space and hint of the access.
        mem: MemAttrs,
    },
    /// Compare-and-swap of `dst`'s width: `dst = *addr; if dst == expected { *addr = new }`.
    Cas {
        /// The value memory held (equal to `expected` exactly when the swap happened).
        dst: Var,
        /// A [`PrimType::Ptr`] aligned to `dst`'s width.
        addr: Var,
        /// The bits compared with memory.
        expected: Var,
        /// The bits stored on a match.
        new: Var,
        /// Order, scope, space and hint of the access (success and failure alike).
        mem: MemAttrs,
    },
    /// A native read-modify-write the target has: `dst = *addr; *addr = op(dst, value)`.
    /// `ty` is the element type the target instruction is spelled with.
    Rmw {
        /// The old value, or `None` where it is unused (so a target may print a reduction).
        dst: Option<Var>,
        /// The operation, as [`crate::semantics`] defines it on `ty`.
        op: AtomicOp,
        /// The element type of the instruction (the node's, a split element's, or the
        /// containing word's for a masked op).
        ty: ElemType,
        /// A [`PrimType::Ptr`] aligned to `ty`'s width.
        addr: Var,
        /// The operand (for `inc`/`dec`, the bound).
        value: Var,
        /// Order, scope, space and hint of the access.
        mem: MemAttrs,
    },
    /// `dst = op(src)`.
    Unary {
        /// The result; its type is the target type of a conversion.
        dst: Var,
        /// The operation.
        op: UnaryOp,
        /// The operand.
        src: Var,
    },
    /// `dst = op(a, b)`, all three of one type.
    Binary {
        /// The result.
        dst: Var,
        /// The operation.
        op: BinaryOp,
        /// The left operand (the minuend of a subtract, the value shifted).
        a: Var,
        /// The right operand (the subtrahend, the shift amount).
        b: Var,
    },
    /// `dst: pred = a cond b`.
    Cmp {
        /// The predicate defined.
        dst: Var,
        /// The comparison.
        cond: CmpCond,
        /// The left operand.
        a: Var,
        /// The right operand, of `a`'s type.
        b: Var,
    },
    /// `dst = cond ? if_true : if_false`.
    Select {
        /// The result, of the arms' type.
        dst: Var,
        /// A [`PrimType::Pred`].
        cond: Var,
        /// The value where `cond` holds.
        if_true: Var,
        /// The value where it does not.
        if_false: Var,
    },
    /// `dst = ptr & !(align - 1)`.
    PtrAlignDown {
        /// The aligned pointer.
        dst: Var,
        /// The pointer.
        ptr: Var,
        /// A power of two, in bytes.
        align: u32,
    },
    /// `dst: i32 = ptr & (align - 1)`.
    PtrLowBits {
        /// The byte offset inside the aligned unit, an `i32`.
        dst: Var,
        /// The pointer.
        ptr: Var,
        /// A power of two, in bytes.
        align: u32,
    },
    /// `dst = ptr + bytes`.
    PtrAdd {
        /// The offset pointer.
        dst: Var,
        /// The pointer.
        ptr: Var,
        /// The offset, in bytes.
        bytes: u32,
    },
    /// The warp's lanes that execute this primitive together (the active lanes), as a 32-bit
    /// lane mask (bit `i` for lane `i`): the `members` of the first collective primitives of a
    /// warp-combined element.
    ///
    /// The warp primitives are collective: every lane of the `members` mask a primitive names
    /// executes that primitive, with the same mask, and the lanes meet there. A primitive's
    /// `peers` are this lane's group (its bit set), a subset of `members`; the groups of one
    /// `members` need not be alike. A target syncs on `members`, which every lane of it names
    /// alike: a warp's sync on one mask costs one instruction, while lanes that name different
    /// masks at one instruction are taken one mask at a time. Only the warp-combined lowerings
    /// (`WarpMaskedCasLoop`, [`WarpCombine::Fold`](crate::legal::WarpCombine::Fold), and its
    /// siblings) make them, for targets with warps.
    WarpActive {
        /// The mask, an `i32`.
        dst: Var,
    },
    /// The lanes of `members` for which `pred` holds, as a lane mask: the `members` of the
    /// primitives of a block that only those lanes enter.
    WarpBallot {
        /// The mask, an `i32`.
        dst: Var,
        /// A [`PrimType::Pred`].
        pred: Var,
        /// The lanes that execute this primitive together.
        members: Var,
    },
    /// The lanes of `members` whose `key` equals this lane's, as a lane mask (this lane's bit
    /// set): this lane's group.
    WarpPeers {
        /// The mask, an `i32`.
        dst: Var,
        /// A [`PrimType::Ptr`].
        key: Var,
        /// The distance in bytes between the keys of neighbouring elements: it changes no
        /// mask, but lets a target first test cheaply whether every lane's key is distinct
        /// (keys `key_stride` apart land in distinct buckets of a small hash).
        key_stride: u32,
        /// The lanes that execute this primitive together.
        members: Var,
    },
    /// Whether this lane is the highest lane of `peers`: the one that acts for them.
    WarpLeads {
        /// A [`PrimType::Pred`].
        dst: Var,
        /// A mask of [`Prim::WarpPeers`].
        peers: Var,
    },
    /// Whether this lane is the lowest lane of `peers`.
    WarpFirst {
        /// A [`PrimType::Pred`].
        dst: Var,
        /// A mask of [`Prim::WarpPeers`].
        peers: Var,
    },
    /// `op` folded over `value` of the lanes of `peers` that `span` names, in lane order;
    /// [`BinaryOp::scan_identity`] where no lane is folded. `op` is an associative and
    /// commutative integer op on an integer of at most 64 bits, or `FAdd` on an `f32` (float
    /// add is not associative: a table uses that only where the client opted into
    /// reassociation).
    WarpScan {
        /// The fold, of `value`'s type.
        dst: Var,
        /// The integer op folded.
        op: BinaryOp,
        /// A mask of [`Prim::WarpPeers`].
        peers: Var,
        /// The lanes that execute this primitive together.
        members: Var,
        /// This lane's contribution.
        value: Var,
        /// Which lanes are folded.
        span: ScanSpan,
        /// The most lanes a group of `peers` holds (1 to 32): a target folds in as many rounds
        /// as its base-2 logarithm, rounded up.
        max_peers: u32,
    },
    /// `value` of the highest lane of `peers` (the lane that [`Prim::WarpLeads`]), an integer
    /// of at most 64 bits.
    WarpBroadcast {
        /// The value received, of `value`'s type.
        dst: Var,
        /// A mask of [`Prim::WarpPeers`].
        peers: Var,
        /// The lanes that execute this primitive together.
        members: Var,
        /// This lane's value (the one read where this lane leads).
        value: Var,
    },
    /// `value` of the lane whose rank among the lanes of `peers` is `rank` (rank 0 the lowest
    /// lane), an integer of at most 64 bits; `rank`, an `i32` below the number of lanes of
    /// `peers`, is the same in every lane.
    WarpFromRank {
        /// The value received, of `value`'s type.
        dst: Var,
        /// A mask of [`Prim::WarpPeers`].
        peers: Var,
        /// The lanes that execute this primitive together.
        members: Var,
        /// This lane's value (the one read where this lane has rank `rank`).
        value: Var,
        /// The rank of the lane read.
        rank: Var,
    },
    /// The lanes of `members` wait for each other here, and every memory access a lane made
    /// before it is ordered before every access a lane of `members` makes after it: a lane's
    /// own accesses stay ordered with the atomic the leading lane of its group carries out for
    /// it.
    WarpSync {
        /// The lanes that execute this primitive together.
        members: Var,
    },
}

/// The lanes of its group a [`Prim::WarpScan`] folds for a lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScanSpan {
    /// The lanes below this one (an exclusive scan).
    Below,
    /// The lanes below this one and this one (an inclusive scan).
    UpToOwn,
}

impl ScanSpan {
    /// Whether a lane's fold takes `other`'s value (`lane` is the lane folding).
    pub const fn folds(self, other: usize, lane: usize) -> bool {
        match self {
            ScanSpan::Below => other < lane,
            ScanSpan::UpToOwn => other <= lane,
        }
    }
}

impl Prim {
    /// The register this primitive defines, if any.
    pub fn def(&self) -> Option<Var> {
        match *self {
            Prim::Const { dst, .. }
            | Prim::Load { dst, .. }
            | Prim::Cas { dst, .. }
            | Prim::Unary { dst, .. }
            | Prim::Binary { dst, .. }
            | Prim::Cmp { dst, .. }
            | Prim::Select { dst, .. }
            | Prim::PtrAlignDown { dst, .. }
            | Prim::PtrLowBits { dst, .. }
            | Prim::PtrAdd { dst, .. }
            | Prim::WarpActive { dst }
            | Prim::WarpBallot { dst, .. }
            | Prim::WarpPeers { dst, .. }
            | Prim::WarpLeads { dst, .. }
            | Prim::WarpFirst { dst, .. }
            | Prim::WarpScan { dst, .. }
            | Prim::WarpBroadcast { dst, .. }
            | Prim::WarpFromRank { dst, .. } => Some(dst),
            Prim::Rmw { dst, .. } => dst,
            Prim::WarpSync { .. } => None,
        }
    }

    /// The registers this primitive reads.
    pub fn uses(&self) -> SmallVec<[Var; 4]> {
        match *self {
            Prim::Const { .. } => smallvec![],
            Prim::Load { addr, .. } => smallvec![addr],
            Prim::Cas {
                addr,
                expected,
                new,
                ..
            } => smallvec![addr, expected, new],
            Prim::Rmw { addr, value, .. } => smallvec![addr, value],
            Prim::Unary { src, .. } => smallvec![src],
            Prim::Binary { a, b, .. } | Prim::Cmp { a, b, .. } => smallvec![a, b],
            Prim::Select {
                cond,
                if_true,
                if_false,
                ..
            } => smallvec![cond, if_true, if_false],
            Prim::PtrAlignDown { ptr, .. }
            | Prim::PtrLowBits { ptr, .. }
            | Prim::PtrAdd { ptr, .. } => {
                smallvec![ptr]
            }
            Prim::WarpActive { .. } => smallvec![],
            Prim::WarpBallot { pred, members, .. } => smallvec![pred, members],
            Prim::WarpPeers { key, members, .. } => smallvec![key, members],
            Prim::WarpLeads { peers, .. } | Prim::WarpFirst { peers, .. } => smallvec![peers],
            Prim::WarpSync { members } => smallvec![members],
            Prim::WarpScan {
                peers,
                members,
                value,
                ..
            }
            | Prim::WarpBroadcast {
                peers,
                members,
                value,
                ..
            } => smallvec![peers, members, value],
            Prim::WarpFromRank {
                peers,
                members,
                value,
                rank,
                ..
            } => smallvec![peers, members, value, rank],
        }
    }

    /// Whether this is a warp primitive ([`Prim::WarpActive`] and the ones that take its
    /// masks).
    pub const fn is_warp(&self) -> bool {
        matches!(
            self,
            Prim::WarpActive { .. }
                | Prim::WarpBallot { .. }
                | Prim::WarpPeers { .. }
                | Prim::WarpLeads { .. }
                | Prim::WarpFirst { .. }
                | Prim::WarpScan { .. }
                | Prim::WarpBroadcast { .. }
                | Prim::WarpFromRank { .. }
                | Prim::WarpSync { .. }
        )
    }

    /// Memory attributes of a memory primitive.
    pub fn mem(&self) -> Option<MemAttrs> {
        match *self {
            Prim::Load { mem, .. } | Prim::Cas { mem, .. } | Prim::Rmw { mem, .. } => Some(mem),
            _ => None,
        }
    }
}
