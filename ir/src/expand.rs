//! Target-independent emulations, written once: CAS loops, part-word (8/16-bit inside a 32-bit
//! word) access and per-element splitting.
//!
//! An [`Expansion`] is a small control-flow graph of primitive operations ([`Prim`]) over typed
//! virtual registers ([`Var`]), with block parameters in place of phis (as in cranelift). Every
//! backend prints the same primitives in its own syntax, so the algorithm lives here and only
//! here. Memory primitives carry the node's scope and space, and the instruction that makes the
//! node atomic (the CAS, or the native RMW) carries the node's full memory order: an expansion
//! never weakens either. The first load of a CAS loop is relaxed on purpose: its value is only a
//! guess that the CAS validates.

use cranelift_entity::{entity_impl, PrimaryMap};
use petgraph::graphmap::DiGraphMap;
use smallvec::{smallvec, SmallVec};
use std::fmt;

use crate::kernel::AtomicInst;
use crate::legal::{ElementLowering, Emulation};
use crate::types::{AddressSpace, AtomicOp, CacheHint, ElemType, MemoryOrder, Scope, TypeClass};

/// A basic block of an expansion.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "bb");

/// A typed virtual register of an expansion.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Var(u32);
entity_impl!(Var, "t");

/// The type of a virtual register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimType {
    Pred,
    /// A 64-bit address in the node's space.
    Ptr,
    I8,
    I16,
    I32,
    I64,
    I128,
    F16,
    Bf16,
    F32,
    F64,
}

impl PrimType {
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

    pub const fn is_float(self) -> bool {
        matches!(
            self,
            PrimType::F16 | PrimType::Bf16 | PrimType::F32 | PrimType::F64
        )
    }

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
    Add,
    Sub,
    And,
    Or,
    Xor,
    Shl,
    LShr,
    SMin,
    SMax,
    UMin,
    UMax,
    FAdd,
    FSub,
    FMin,
    FMax,
}

/// Integer comparisons (on bit patterns).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpCond {
    Eq,
    Ne,
    Ult,
    Ule,
    Ugt,
    Uge,
}

/// Memory attributes carried by every memory primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemAttrs {
    pub order: MemoryOrder,
    pub scope: Scope,
    pub space: AddressSpace,
    pub hint: Option<CacheHint>,
}

/// A primitive operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Prim {
    /// `dst = bits`, truncated to `dst`'s type.
    Const {
        dst: Var,
        bits: u128,
    },
    /// An atomic load of `dst`'s width (an integer type).
    Load {
        dst: Var,
        addr: Var,
        mem: MemAttrs,
    },
    /// Compare-and-swap of `dst`'s width: `dst = *addr; if dst == expected { *addr = new }`.
    Cas {
        dst: Var,
        addr: Var,
        expected: Var,
        new: Var,
        mem: MemAttrs,
    },
    /// A native read-modify-write the target has: `dst = *addr; *addr = op(dst, value)`.
    /// `ty` is the element type the target instruction is spelled with.
    Rmw {
        dst: Option<Var>,
        op: AtomicOp,
        ty: ElemType,
        addr: Var,
        value: Var,
        mem: MemAttrs,
    },
    Unary {
        dst: Var,
        op: UnaryOp,
        src: Var,
    },
    Binary {
        dst: Var,
        op: BinaryOp,
        a: Var,
        b: Var,
    },
    /// `dst: pred = a cond b`.
    Cmp {
        dst: Var,
        cond: CmpCond,
        a: Var,
        b: Var,
    },
    Select {
        dst: Var,
        cond: Var,
        if_true: Var,
        if_false: Var,
    },
    /// `dst = ptr & !(align - 1)`.
    PtrAlignDown {
        dst: Var,
        ptr: Var,
        align: u32,
    },
    /// `dst: i32 = ptr & (align - 1)`.
    PtrLowBits {
        dst: Var,
        ptr: Var,
        align: u32,
    },
    /// `dst = ptr + bytes`.
    PtrAdd {
        dst: Var,
        ptr: Var,
        bytes: u32,
    },
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
            | Prim::PtrAdd { dst, .. } => Some(dst),
            Prim::Rmw { dst, .. } => dst,
        }
    }

    /// The registers this primitive reads.
    pub fn uses(&self) -> SmallVec<[Var; 3]> {
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
        }
    }

    /// Memory attributes of a memory primitive.
    pub fn mem(&self) -> Option<MemAttrs> {
        match *self {
            Prim::Load { mem, .. } | Prim::Cas { mem, .. } | Prim::Rmw { mem, .. } => Some(mem),
            _ => None,
        }
    }
}

/// A jump target with the values bound to its parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub block: Block,
    pub args: SmallVec<[Var; 2]>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Terminator {
    Jump(Target),
    /// `if cond { then } else { otherwise }`.
    Branch {
        cond: Var,
        then: Target,
        otherwise: Target,
    },
    /// The end of the expansion: [`Expansion::results`] hold the old values.
    Return,
}

impl Terminator {
    pub fn successors(&self) -> SmallVec<[&Target; 2]> {
        match self {
            Terminator::Jump(target) => smallvec![target],
            Terminator::Branch {
                then, otherwise, ..
            } => smallvec![then, otherwise],
            Terminator::Return => smallvec![],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockData {
    pub params: SmallVec<[Var; 2]>,
    pub prims: Vec<Prim>,
    pub terminator: Terminator,
}

/// The expansion of one atomic node.
///
/// Inputs are registers the backend binds before the entry block: `addr` (the node's address),
/// one `operands` register per element (the `b` operand, in [`PrimType::natural`] type) and, for
/// `cas`, one `new_values` register per element. After `Return`, `results` hold the old value of
/// each element (empty when the node's result is unused). Blocks are in layout order; the first
/// is the entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expansion {
    pub vars: PrimaryMap<Var, PrimType>,
    pub blocks: PrimaryMap<Block, BlockData>,
    pub addr: Var,
    pub operands: SmallVec<[Var; 8]>,
    pub new_values: SmallVec<[Var; 8]>,
    pub results: SmallVec<[Var; 8]>,
}

impl Expansion {
    pub fn entry(&self) -> Block {
        Block::from_u32(0)
    }

    /// The control-flow graph, for analyses and checks.
    pub fn cfg(&self) -> DiGraphMap<Block, ()> {
        let mut graph = DiGraphMap::new();
        for (block, data) in &self.blocks {
            graph.add_node(block);
            for target in data.terminator.successors() {
                graph.add_edge(block, target.block, ());
            }
        }
        graph
    }

    /// Whether the expansion contains a loop (a CAS retry).
    pub fn has_loop(&self) -> bool {
        petgraph::algo::is_cyclic_directed(&self.cfg())
    }

    /// Every memory primitive, in layout order.
    pub fn memory_prims(&self) -> impl Iterator<Item = &Prim> {
        self.blocks
            .values()
            .flat_map(|b| b.prims.iter())
            .filter(|p| p.mem().is_some())
    }
}

/// Builds an expansion block by block.
struct Builder {
    expansion: Expansion,
    current: Block,
    /// Emptied primitive lists of an earlier expansion, reused so that a lowering that expands
    /// node after node allocates nothing once warm.
    spare_prims: Vec<Vec<Prim>>,
}

impl Builder {
    /// Starts a new expansion in the storage of `recycled` (if any), keeping its allocations.
    fn new(recycled: Option<Expansion>, mut spare_prims: Vec<Vec<Prim>>) -> Self {
        let mut expansion = match recycled {
            Some(mut old) => {
                for (_, block) in std::mem::take(&mut old.blocks) {
                    let mut prims = block.prims;
                    prims.clear();
                    spare_prims.push(prims);
                }
                old.vars.clear();
                old.operands.clear();
                old.new_values.clear();
                old.results.clear();
                old
            }
            None => Expansion {
                vars: PrimaryMap::new(),
                blocks: PrimaryMap::new(),
                addr: Var::from_u32(0),
                operands: SmallVec::new(),
                new_values: SmallVec::new(),
                results: SmallVec::new(),
            },
        };
        expansion.addr = expansion.vars.push(PrimType::Ptr);
        let entry = expansion.blocks.push(BlockData {
            params: SmallVec::new(),
            prims: spare_prims.pop().unwrap_or_default(),
            terminator: Terminator::Return,
        });
        Builder {
            expansion,
            current: entry,
            spare_prims,
        }
    }

    fn var(&mut self, ty: PrimType) -> Var {
        self.expansion.vars.push(ty)
    }

    fn ty(&self, var: Var) -> PrimType {
        self.expansion.vars[var]
    }

    fn block(&mut self, params: &[PrimType]) -> (Block, SmallVec<[Var; 2]>) {
        let params: SmallVec<[Var; 2]> = params.iter().map(|ty| self.var(*ty)).collect();
        let prims = self.spare_prims.pop().unwrap_or_default();
        let block = self.expansion.blocks.push(BlockData {
            params: params.clone(),
            prims,
            terminator: Terminator::Return,
        });
        (block, params)
    }

    fn push(&mut self, prim: Prim) {
        self.expansion.blocks[self.current].prims.push(prim);
    }

    fn terminate(&mut self, terminator: Terminator) {
        self.expansion.blocks[self.current].terminator = terminator;
    }

    fn switch_to(&mut self, block: Block) {
        self.current = block;
    }

    fn constant(&mut self, ty: PrimType, bits: u128) -> Var {
        let dst = self.var(ty);
        self.push(Prim::Const { dst, bits });
        dst
    }

    fn unary(&mut self, op: UnaryOp, src: Var, ty: PrimType) -> Var {
        if op != UnaryOp::Not && self.ty(src) == ty {
            return src;
        }
        let dst = self.var(ty);
        self.push(Prim::Unary { dst, op, src });
        dst
    }

    fn binary(&mut self, op: BinaryOp, a: Var, b: Var) -> Var {
        let dst = self.var(self.ty(a));
        self.push(Prim::Binary { dst, op, a, b });
        dst
    }

    fn cmp(&mut self, cond: CmpCond, a: Var, b: Var) -> Var {
        let dst = self.var(PrimType::Pred);
        self.push(Prim::Cmp { dst, cond, a, b });
        dst
    }

    fn select(&mut self, cond: Var, if_true: Var, if_false: Var) -> Var {
        let dst = self.var(self.ty(if_true));
        self.push(Prim::Select {
            dst,
            cond,
            if_true,
            if_false,
        });
        dst
    }

    /// The bits of `var` as an integer of the same width.
    fn bits_of(&mut self, var: Var) -> Var {
        let ty = self.ty(var);
        self.unary(UnaryOp::Bitcast, var, PrimType::int(ty.bits()))
    }

    fn jump(&mut self, block: Block, args: &[Var]) {
        self.terminate(Terminator::Jump(Target {
            block,
            args: args.into(),
        }));
    }

    fn finish(self) -> (Expansion, Vec<Vec<Prim>>) {
        (self.expansion, self.spare_prims)
    }
}

/// Computes `op(old, operand[, new_value])` on the bit pattern `old` of type `ty`, returning the
/// new bit pattern (an integer of `ty`'s width). This is the one place where the CAS-loop
/// expansions decide what an operation means; [`crate::semantics`] is the specification it is
/// proven against.
fn apply_op(
    b: &mut Builder,
    op: AtomicOp,
    ty: ElemType,
    old: Var,
    operand: Var,
    new_value: Option<Var>,
) -> Var {
    if ty.is_packed() && !op.is_move() {
        // Each 16-bit half is an independent element; exch and cas move and compare the whole
        // 32-bit pattern.
        let lane = ty.lane_type();
        let sixteen = b.constant(PrimType::I32, 16);
        let operand = b.bits_of(operand);
        let old_hi = b.binary(BinaryOp::LShr, old, sixteen);
        let operand_hi = b.binary(BinaryOp::LShr, operand, sixteen);
        let mut halves = [old; 2];
        for (half, (old_half, operand_half)) in [(old, operand), (old_hi, operand_hi)]
            .into_iter()
            .enumerate()
        {
            let old16 = b.unary(UnaryOp::Trunc, old_half, PrimType::I16);
            let operand16 = b.unary(UnaryOp::Trunc, operand_half, PrimType::I16);
            let operand_lane = b.unary(UnaryOp::Bitcast, operand16, PrimType::natural(lane));
            let new16 = apply_op(b, op, lane, old16, operand_lane, None);
            halves[half] = b.unary(UnaryOp::Zext, new16, PrimType::I32);
        }
        let hi = b.binary(BinaryOp::Shl, halves[1], sixteen);
        return b.binary(BinaryOp::Or, halves[0], hi);
    }

    let bits_ty = b.ty(old);
    match ty.class() {
        TypeClass::Float if !op.is_move() => {
            let float_ty = PrimType::natural(ty);
            let old_float = b.unary(UnaryOp::Bitcast, old, float_ty);
            let float_op = match op {
                AtomicOp::Add => BinaryOp::FAdd,
                AtomicOp::Sub => BinaryOp::FSub,
                // minimumNumber/maximumNumber are exactly atomir's float min/max, and
                // minimum/maximum are those unless a NaN is involved (below).
                AtomicOp::Min | AtomicOp::FMinimumNum | AtomicOp::FMinimum => BinaryOp::FMin,
                AtomicOp::Max | AtomicOp::FMaximumNum | AtomicOp::FMaximum => BinaryOp::FMax,
                other => unreachable!("verifier admits no float {other}"),
            };
            let new_float = b.binary(float_op, old_float, operand);
            let new_bits = b.bits_of(new_float);
            if !matches!(op, AtomicOp::FMinimum | AtomicOp::FMaximum) {
                return new_bits;
            }
            // minimum/maximum propagate NaNs: either operand a NaN (magnitude above infinity's
            // bits) gives the canonical quiet NaN.
            let operand_bits = b.bits_of(operand);
            let magnitude = b.constant(bits_ty, (1u128 << (ty.bits() - 1)) - 1);
            let infinity = b.constant(bits_ty, float_infinity_bits(ty));
            let old_magnitude = b.binary(BinaryOp::And, old, magnitude);
            let operand_magnitude = b.binary(BinaryOp::And, operand_bits, magnitude);
            let old_is_nan = b.cmp(CmpCond::Ugt, old_magnitude, infinity);
            let operand_is_nan = b.cmp(CmpCond::Ugt, operand_magnitude, infinity);
            let either_is_nan = b.binary(BinaryOp::Or, old_is_nan, operand_is_nan);
            let nan = b.constant(bits_ty, crate::semantics::canonical_nan(ty).unwrap_or(0));
            b.select(either_is_nan, nan, new_bits)
        }
        _ => {
            let value = b.bits_of(operand);
            let signed = ty.class() == TypeClass::Signed;
            match op {
                AtomicOp::Add => b.binary(BinaryOp::Add, old, value),
                AtomicOp::Sub => b.binary(BinaryOp::Sub, old, value),
                AtomicOp::And => b.binary(BinaryOp::And, old, value),
                AtomicOp::Or => b.binary(BinaryOp::Or, old, value),
                AtomicOp::Xor => b.binary(BinaryOp::Xor, old, value),
                AtomicOp::Nand => {
                    let and = b.binary(BinaryOp::And, old, value);
                    b.unary(UnaryOp::Not, and, bits_ty)
                }
                AtomicOp::Min if signed => b.binary(BinaryOp::SMin, old, value),
                AtomicOp::Max if signed => b.binary(BinaryOp::SMax, old, value),
                AtomicOp::Min => b.binary(BinaryOp::UMin, old, value),
                AtomicOp::Max => b.binary(BinaryOp::UMax, old, value),
                AtomicOp::Exch | AtomicOp::Store => value,
                AtomicOp::Load => old,
                AtomicOp::UsubCond | AtomicOp::UsubSat => {
                    // old >= b ? old - b : (usub_cond: old, usub_sat: 0)
                    let fits = b.cmp(CmpCond::Uge, old, value);
                    let difference = b.binary(BinaryOp::Sub, old, value);
                    let otherwise = if op == AtomicOp::UsubCond {
                        old
                    } else {
                        b.constant(bits_ty, 0)
                    };
                    b.select(fits, difference, otherwise)
                }
                AtomicOp::FMinimum
                | AtomicOp::FMaximum
                | AtomicOp::FMinimumNum
                | AtomicOp::FMaximumNum => unreachable!("verifier admits {op} on floats only"),
                AtomicOp::Inc => {
                    // old >= bound ? 0 : old + 1
                    let one = b.constant(bits_ty, 1);
                    let zero = b.constant(bits_ty, 0);
                    let wraps = b.cmp(CmpCond::Uge, old, value);
                    let next = b.binary(BinaryOp::Add, old, one);
                    b.select(wraps, zero, next)
                }
                AtomicOp::Dec => {
                    // (old == 0 || old > bound) ? bound : old - 1
                    let one = b.constant(bits_ty, 1);
                    let zero = b.constant(bits_ty, 0);
                    let is_zero = b.cmp(CmpCond::Eq, old, zero);
                    let above = b.cmp(CmpCond::Ugt, old, value);
                    let wraps = b.binary(BinaryOp::Or, is_zero, above);
                    let previous = b.binary(BinaryOp::Sub, old, one);
                    b.select(wraps, value, previous)
                }
                AtomicOp::Cas => {
                    let new_value = new_value.expect("cas has a new value");
                    let new_bits = b.bits_of(new_value);
                    let matches = b.cmp(CmpCond::Eq, old, value);
                    b.select(matches, new_bits, old)
                }
            }
        }
    }
}

/// The bits of +infinity of a scalar float type.
const fn float_infinity_bits(ty: ElemType) -> u128 {
    match ty {
        ElemType::F16 => 0x7c00,
        ElemType::Bf16 => 0x7f80,
        ElemType::F32 => 0x7f80_0000,
        _ => 0x7ff0_0000_0000_0000,
    }
}

/// The memory attributes of a node.
pub fn mem_attrs(inst: &AtomicInst) -> MemAttrs {
    MemAttrs {
        order: inst.order,
        scope: inst.scope,
        space: inst.space,
        hint: inst.hint,
    }
}

/// The one CAS retry loop: a relaxed first load of the `bits_ty` word at `addr` (only a guess,
/// validated by the CAS), then `new = compute(old)` and a CAS carrying the node's full memory
/// attributes, retried with the value seen until it stores. Leaves the builder in the exit
/// block and returns the word the successful CAS replaced.
fn cas_retry_loop(
    b: &mut Builder,
    mem: MemAttrs,
    addr: Var,
    bits_ty: PrimType,
    compute: impl FnOnce(&mut Builder, Var) -> Var,
) -> Var {
    let initial = b.var(bits_ty);
    b.push(Prim::Load {
        dst: initial,
        addr,
        mem: MemAttrs {
            order: MemoryOrder::Relaxed,
            ..mem
        },
    });
    let (retry, retry_params) = b.block(&[bits_ty]);
    let (done, done_params) = b.block(&[bits_ty]);
    b.jump(retry, &[initial]);

    b.switch_to(retry);
    let old = retry_params[0];
    let new = compute(b, old);
    let seen = b.var(bits_ty);
    b.push(Prim::Cas {
        dst: seen,
        addr,
        expected: old,
        new,
        mem,
    });
    let stored = b.cmp(CmpCond::Eq, seen, old);
    b.terminate(Terminator::Branch {
        cond: stored,
        then: Target {
            block: done,
            args: smallvec![seen],
        },
        otherwise: Target {
            block: retry,
            args: smallvec![seen],
        },
    });

    b.switch_to(done);
    done_params[0]
}

/// Emits a CAS loop for one element at `addr`, leaving the builder in the exit block and
/// returning the old value (in the element's natural type).
fn cas_loop_element(
    b: &mut Builder,
    inst: &AtomicInst,
    ty: ElemType,
    addr: Var,
    operand: Var,
    new_value: Option<Var>,
) -> Var {
    let bits_ty = PrimType::int(ty.bits());
    let replaced = cas_retry_loop(b, mem_attrs(inst), addr, bits_ty, |b, old| {
        apply_op(b, inst.op, ty, old, operand, new_value)
    });
    b.unary(UnaryOp::Bitcast, replaced, PrimType::natural(ty))
}

/// Emits an 8/16-bit access inside the aligned 32-bit word that contains it.
fn part_word_element(
    b: &mut Builder,
    inst: &AtomicInst,
    ty: ElemType,
    addr: Var,
    operand: Var,
    new_value: Option<Var>,
    needs_loop: bool,
) -> Var {
    let element_bits = ty.bits();
    let element_ty = PrimType::int(element_bits);
    let mem = mem_attrs(inst);
    let word = b.var(PrimType::Ptr);
    b.push(Prim::PtrAlignDown {
        dst: word,
        ptr: addr,
        align: 4,
    });
    let byte = b.var(PrimType::I32);
    b.push(Prim::PtrLowBits {
        dst: byte,
        ptr: addr,
        align: 4,
    });
    let three = b.constant(PrimType::I32, 3);
    let shift = b.binary(BinaryOp::Shl, byte, three);
    let element_mask = b.constant(PrimType::I32, (1u128 << element_bits) - 1);
    let mask = b.binary(BinaryOp::Shl, element_mask, shift);
    let keep = b.unary(UnaryOp::Not, mask, PrimType::I32);
    let extract = |b: &mut Builder, word_bits: Var| {
        let shifted = b.binary(BinaryOp::LShr, word_bits, shift);
        let bits = b.unary(UnaryOp::Trunc, shifted, element_ty);
        b.unary(UnaryOp::Bitcast, bits, PrimType::natural(ty))
    };
    let place = |b: &mut Builder, element: Var| {
        let bits = b.bits_of(element);
        let wide = b.unary(UnaryOp::Zext, bits, PrimType::I32);
        b.binary(BinaryOp::Shl, wide, shift)
    };

    if !needs_loop {
        // and/or/xor act bit by bit: widen the operand with bits that leave the rest unchanged.
        let placed = place(b, operand);
        let value = if inst.op == AtomicOp::And {
            b.binary(BinaryOp::Or, placed, keep)
        } else {
            placed
        };
        let old_word = b.var(PrimType::I32);
        b.push(Prim::Rmw {
            dst: Some(old_word),
            op: inst.op,
            ty: ElemType::B32,
            addr: word,
            value,
            mem,
        });
        return extract(b, old_word);
    }

    let replaced = cas_retry_loop(b, mem, word, PrimType::I32, |b, old_word| {
        let shifted = b.binary(BinaryOp::LShr, old_word, shift);
        let old = b.unary(UnaryOp::Trunc, shifted, element_ty);
        let new = apply_op(b, inst.op, ty, old, operand, new_value);
        let new_wide = b.unary(UnaryOp::Zext, new, PrimType::I32);
        let new_placed = b.binary(BinaryOp::Shl, new_wide, shift);
        let rest = b.binary(BinaryOp::And, old_word, keep);
        b.binary(BinaryOp::Or, rest, new_placed)
    });
    extract(b, replaced)
}

/// Emits one element natively: a CAS or the target's RMW on the element type.
fn native_element(
    b: &mut Builder,
    inst: &AtomicInst,
    ty: ElemType,
    addr: Var,
    operand: Var,
    new_value: Option<Var>,
) -> Var {
    let mem = mem_attrs(inst);
    match new_value {
        Some(new) => {
            // A CAS compares and moves bit patterns.
            let expected = b.bits_of(operand);
            let new = b.bits_of(new);
            let dst = b.var(PrimType::int(ty.bits()));
            b.push(Prim::Cas {
                dst,
                addr,
                expected,
                new,
                mem,
            });
            b.unary(UnaryOp::Bitcast, dst, PrimType::natural(ty))
        }
        None => {
            let dst = b.var(PrimType::natural(ty));
            b.push(Prim::Rmw {
                dst: Some(dst),
                op: inst.op,
                ty,
                addr,
                value: operand,
                mem,
            });
            dst
        }
    }
}

/// Builds the expansion of `inst` by `emulation`. The node must be verified and the emulation
/// must come from a legality table that accepted it (e.g. `PartWord` only for 8/16-bit types).
pub fn expand(inst: &AtomicInst, emulation: Emulation) -> Expansion {
    build(inst, emulation, Builder::new(None, Vec::new())).0
}

/// Expands node after node into the same storage: a backend keeps one `Expander` for a whole
/// lowering, so expansions cost no allocation once its buffers have grown.
#[derive(Default)]
pub struct Expander {
    last: Option<Expansion>,
    spare_prims: Vec<Vec<Prim>>,
}

impl Expander {
    pub fn new() -> Self {
        Expander::default()
    }

    /// The expansion of `inst` by `emulation` (as [`expand`]), valid until the next call.
    pub fn expand(&mut self, inst: &AtomicInst, emulation: Emulation) -> &Expansion {
        let builder = Builder::new(self.last.take(), std::mem::take(&mut self.spare_prims));
        let (expansion, spare_prims) = build(inst, emulation, builder);
        self.spare_prims = spare_prims;
        self.last.insert(expansion)
    }
}

fn build(inst: &AtomicInst, emulation: Emulation, mut b: Builder) -> (Expansion, Vec<Vec<Prim>>) {
    let elements = inst.shape.len();
    let ty = inst.ty;
    let natural = PrimType::natural(ty);
    for _ in 0..elements {
        let operand = b.var(natural);
        b.expansion.operands.push(operand);
        if inst.op == AtomicOp::Cas {
            let new = b.var(natural);
            b.expansion.new_values.push(new);
        }
    }
    let element = match emulation {
        Emulation::CasLoop { .. } => ElementLowering::CasLoop { bits: ty.bits() },
        Emulation::PartWord {
            element_bits,
            needs_loop,
        } => ElementLowering::PartWord {
            element_bits,
            needs_loop,
        },
        Emulation::Split { element, .. } => element,
    };
    let base = b.expansion.addr;
    for index in 0..elements {
        let addr = if index == 0 {
            base
        } else {
            let dst = b.var(PrimType::Ptr);
            b.push(Prim::PtrAdd {
                dst,
                ptr: base,
                bytes: index as u32 * ty.bytes(),
            });
            dst
        };
        let operand = b.expansion.operands[index];
        let new_value = b.expansion.new_values.get(index).copied();
        let old = match element {
            ElementLowering::Native => native_element(&mut b, inst, ty, addr, operand, new_value),
            ElementLowering::CasLoop { .. } => {
                cas_loop_element(&mut b, inst, ty, addr, operand, new_value)
            }
            ElementLowering::PartWord { needs_loop, .. } => {
                part_word_element(&mut b, inst, ty, addr, operand, new_value, needs_loop)
            }
        };
        if inst.result_used() {
            b.expansion.results.push(old);
        }
    }
    b.terminate(Terminator::Return);
    b.finish()
}

/// Whether an 8/16-bit op can be done with one widened native op (no loop).
pub const fn part_word_needs_loop(op: AtomicOp) -> bool {
    !matches!(op, AtomicOp::And | AtomicOp::Or | AtomicOp::Xor)
}

impl fmt::Display for Expansion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |v: Var| format!("{v}:{}", self.vars[v]);
        let list = |vars: &[Var]| vars.iter().map(|v| name(*v)).collect::<Vec<_>>().join(", ");
        writeln!(
            f,
            "inputs addr={} operands=[{}] new=[{}] results=[{}]",
            name(self.addr),
            list(&self.operands),
            list(&self.new_values),
            list(&self.results)
        )?;
        for (block, data) in &self.blocks {
            writeln!(f, "{block}({}):", list(&data.params))?;
            for prim in &data.prims {
                writeln!(f, "  {prim:?}")?;
            }
            writeln!(f, "  {:?}", data.terminator)?;
        }
        Ok(())
    }
}

/// A primitive whose registers do not have the types it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeError {
    pub var: Var,
    /// The register's type, `None` when the register does not exist.
    pub found: Option<PrimType>,
    pub detail: &'static str,
}

impl fmt::Display for TypeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.found {
            Some(found) => write!(f, "{} has type {found}: {}", self.var, self.detail),
            None => write!(f, "{} does not exist: {}", self.var, self.detail),
        }
    }
}

impl Prim {
    /// Checks the types of the registers this primitive reads and defines: the one place the
    /// typing rules of primitives are written (the validator and the interpreter both use it).
    pub fn check_types(&self, vars: &PrimaryMap<Var, PrimType>) -> Result<(), TypeError> {
        let ty = |var: Var, detail| {
            vars.get(var).copied().ok_or(TypeError {
                var,
                found: None,
                detail,
            })
        };
        let expect = |var: Var, wanted: PrimType, detail| {
            let found = ty(var, detail)?;
            if found == wanted {
                Ok(())
            } else {
                Err(TypeError {
                    var,
                    found: Some(found),
                    detail,
                })
            }
        };
        let expect_if = |var: Var, holds: fn(PrimType) -> bool, detail| {
            let found = ty(var, detail)?;
            if holds(found) {
                Ok(found)
            } else {
                Err(TypeError {
                    var,
                    found: Some(found),
                    detail,
                })
            }
        };
        let pow2 = |var: Var, align: u32| {
            if align.is_power_of_two() {
                Ok(())
            } else {
                Err(TypeError {
                    var,
                    found: None,
                    detail: "alignment must be a power of two",
                })
            }
        };
        match *self {
            Prim::Const { dst, .. } => ty(dst, "a constant's register").map(drop),
            Prim::Load { dst, addr, .. } => {
                expect_if(dst, PrimType::is_int, "a load defines an integer")?;
                expect(addr, PrimType::Ptr, "an address")
            }
            Prim::Cas {
                dst,
                addr,
                expected,
                new,
                ..
            } => {
                let width = expect_if(dst, PrimType::is_int, "a cas defines an integer")?;
                expect(addr, PrimType::Ptr, "an address")?;
                expect(expected, width, "cas operands have the cas's type")?;
                expect(new, width, "cas operands have the cas's type")
            }
            Prim::Rmw {
                dst,
                op,
                ty: elem,
                addr,
                value,
                ..
            } => {
                if op == AtomicOp::Cas {
                    return Err(TypeError {
                        var: value,
                        found: None,
                        detail: "a cas is a Cas primitive, not an rmw",
                    });
                }
                let natural = PrimType::natural(elem);
                expect(addr, PrimType::Ptr, "an address")?;
                expect(
                    value,
                    natural,
                    "an rmw operand has the natural type of the rmw's type",
                )?;
                match dst {
                    Some(dst) => expect(dst, natural, "an rmw result has the rmw's natural type"),
                    None => Ok(()),
                }
            }
            Prim::Unary { dst, op, src } => {
                let from = ty(src, "a unary operand")?;
                let to = ty(dst, "a unary result")?;
                let fits = match op {
                    UnaryOp::Not => from == to && (from.is_int() || from == PrimType::Pred),
                    UnaryOp::Bitcast => {
                        from.bits() == to.bits() && from != PrimType::Pred && to != PrimType::Pred
                    }
                    UnaryOp::Zext => from.is_int() && to.is_int() && to.bits() >= from.bits(),
                    UnaryOp::Trunc => from.is_int() && to.is_int() && to.bits() <= from.bits(),
                };
                if fits {
                    Ok(())
                } else {
                    Err(TypeError {
                        var: src,
                        found: Some(from),
                        detail: match op {
                            UnaryOp::Not => "not keeps an integer or predicate type",
                            UnaryOp::Bitcast => "a bitcast keeps the width of a non-predicate",
                            UnaryOp::Zext => "zext widens an integer",
                            UnaryOp::Trunc => "trunc narrows an integer",
                        },
                    })
                }
            }
            Prim::Binary { dst, op, a, b } => {
                let operand = ty(a, "a binary operand")?;
                expect(b, operand, "binary operands have one type")?;
                expect(dst, operand, "a binary result has its operands' type")?;
                let float_op = matches!(
                    op,
                    BinaryOp::FAdd | BinaryOp::FSub | BinaryOp::FMin | BinaryOp::FMax
                );
                let logical = matches!(op, BinaryOp::And | BinaryOp::Or | BinaryOp::Xor);
                let fits = if float_op {
                    operand.is_float()
                } else {
                    operand.is_int() || (logical && operand == PrimType::Pred)
                };
                if fits {
                    Ok(())
                } else {
                    Err(TypeError {
                        var: a,
                        found: Some(operand),
                        detail: if float_op {
                            "float arithmetic needs a float type"
                        } else {
                            "integer arithmetic needs integers (and/or/xor also take predicates)"
                        },
                    })
                }
            }
            Prim::Cmp { dst, a, b, .. } => {
                let operand = expect_if(
                    a,
                    |t| t.is_int() || t == PrimType::Ptr || t == PrimType::Pred,
                    "comparisons are on integer bit patterns",
                )?;
                expect(b, operand, "compared values have one type")?;
                expect(dst, PrimType::Pred, "a comparison gives a predicate")
            }
            Prim::Select {
                dst,
                cond,
                if_true,
                if_false,
            } => {
                expect(cond, PrimType::Pred, "a select condition is a predicate")?;
                let value = ty(if_true, "a selected value")?;
                expect(if_false, value, "selected values have one type")?;
                expect(dst, value, "a select gives its values' type")
            }
            Prim::PtrAlignDown { dst, ptr, align } => {
                expect(ptr, PrimType::Ptr, "an address")?;
                expect(dst, PrimType::Ptr, "an aligned address")?;
                pow2(ptr, align)
            }
            Prim::PtrLowBits { dst, ptr, align } => {
                expect(ptr, PrimType::Ptr, "an address")?;
                expect(dst, PrimType::I32, "the low bits of an address are an i32")?;
                pow2(ptr, align)
            }
            Prim::PtrAdd { dst, ptr, .. } => {
                expect(ptr, PrimType::Ptr, "an address")?;
                expect(dst, PrimType::Ptr, "an offset address")
            }
        }
    }
}

/// A set of registers, one bit each.
#[derive(Clone, PartialEq, Eq)]
struct VarSet(Vec<u64>);

impl VarSet {
    fn empty(len: usize) -> Self {
        VarSet(vec![0; len.div_ceil(64)])
    }

    fn full(len: usize) -> Self {
        VarSet(vec![u64::MAX; len.div_ceil(64)])
    }

    fn insert(&mut self, var: Var) {
        let index = var.as_u32() as usize;
        self.0[index / 64] |= 1 << (index % 64);
    }

    fn contains(&self, var: Var) -> bool {
        let index = var.as_u32() as usize;
        self.0[index / 64] & (1 << (index % 64)) != 0
    }

    fn intersect(&mut self, other: &VarSet) {
        for (word, other) in self.0.iter_mut().zip(&other.0) {
            *word &= other;
        }
    }
}

impl Expansion {
    /// Checks that this is a well-formed expansion of `inst` that keeps its meaning:
    ///
    /// - inputs and results match the node (one operand, new value and result per element, in
    ///   the element's natural type; results only when the node's result is used);
    /// - every block is reachable from the entry and reaches a `Return`; jumps pass as many
    ///   arguments as the target has parameters, of the parameters' types;
    /// - every register is defined once and every use is defined on every path to it;
    /// - every primitive is well typed ([`Prim::check_types`]);
    /// - every memory primitive carries the node's scope, space and cache hint; every `Cas` and
    ///   `Rmw` (the instructions that make the node atomic) carries an order that implies the
    ///   node's order; loads are relaxed or acquire, never a release order. There are at least
    ///   as many `Cas`/`Rmw` as elements, and an `Rmw` performs the node's op.
    ///
    /// That is the invariant "an expansion never weakens an order or a scope", checked
    /// mechanically rather than trusted.
    pub fn validate(&self, inst: &AtomicInst) -> Result<(), String> {
        let var_count = self.vars.len();
        let exists = |var: Var, what: &str| {
            if self.vars.get(var).is_some() {
                Ok(())
            } else {
                Err(format!("{what} {var} is not a register of the expansion"))
            }
        };
        if self.blocks.is_empty() {
            return Err("the expansion has no blocks".into());
        }

        // Inputs and results against the node.
        let elements = inst.shape.len();
        let natural = PrimType::natural(inst.ty);
        exists(self.addr, "the address")?;
        if self.vars[self.addr] != PrimType::Ptr {
            return Err(format!(
                "the address {} is {}, not ptr",
                self.addr, self.vars[self.addr]
            ));
        }
        let expected_new = if inst.op == AtomicOp::Cas {
            elements
        } else {
            0
        };
        let expected_results = if inst.result_used() { elements } else { 0 };
        for (what, list, count) in [
            ("operands", &self.operands, elements),
            ("new values", &self.new_values, expected_new),
            ("results", &self.results, expected_results),
        ] {
            if list.len() != count {
                return Err(format!("{} {what} for {count} expected", list.len()));
            }
            for &var in list.iter() {
                exists(var, what)?;
                if self.vars[var] != natural {
                    return Err(format!(
                        "{what} register {var} is {}, not {natural}",
                        self.vars[var]
                    ));
                }
            }
        }

        // Reachability both ways.
        let cfg = self.cfg();
        let entry = self.entry();
        for (block, data) in &self.blocks {
            for target in data.terminator.successors() {
                if self.blocks.get(target.block).is_none() {
                    return Err(format!(
                        "{block} jumps to {}, which does not exist",
                        target.block
                    ));
                }
            }
        }
        let mut reachable = std::collections::BTreeSet::new();
        let mut dfs = petgraph::visit::Dfs::new(&cfg, entry);
        while let Some(block) = dfs.next(&cfg) {
            reachable.insert(block);
        }
        let reversed = petgraph::visit::Reversed(&cfg);
        let mut reaches_return = std::collections::BTreeSet::new();
        for (block, data) in &self.blocks {
            if data.terminator == Terminator::Return {
                let mut dfs = petgraph::visit::Dfs::new(reversed, block);
                while let Some(found) = dfs.next(reversed) {
                    reaches_return.insert(found);
                }
            }
        }
        for block in self.blocks.keys() {
            if !reachable.contains(&block) {
                return Err(format!("{block} is unreachable from the entry"));
            }
            if !reaches_return.contains(&block) {
                return Err(format!("{block} never reaches a return"));
            }
        }

        // Single definitions.
        let mut defined_once = VarSet::empty(var_count);
        let mut define = |var: Var, what: &str| {
            exists(var, what)?;
            if defined_once.contains(var) {
                return Err(format!("{var} is defined twice (last as {what})"));
            }
            defined_once.insert(var);
            Ok(())
        };
        let mut inputs = VarSet::empty(var_count);
        for &var in std::iter::once(&self.addr)
            .chain(&self.operands)
            .chain(&self.new_values)
        {
            define(var, "an input")?;
            inputs.insert(var);
        }
        for data in self.blocks.values() {
            for &param in &data.params {
                define(param, "a block parameter")?;
            }
            for prim in &data.prims {
                if let Some(var) = prim.def() {
                    define(var, "a primitive's result")?;
                }
            }
        }

        // Defined on every path: registers available at each block's entry, as the
        // intersection over its predecessors, iterated to a fixed point.
        let mut available: cranelift_entity::SecondaryMap<Block, Option<VarSet>> =
            cranelift_entity::SecondaryMap::new();
        available[entry] = Some(inputs);
        let exit_set = |block: Block, at_entry: &VarSet| {
            let mut set = at_entry.clone();
            let data = &self.blocks[block];
            for &param in &data.params {
                set.insert(param);
            }
            for var in data.prims.iter().filter_map(Prim::def) {
                set.insert(var);
            }
            set
        };
        let mut changed = true;
        while changed {
            changed = false;
            for block in self.blocks.keys() {
                let Some(at_entry) = available[block].clone() else {
                    continue;
                };
                let at_exit = exit_set(block, &at_entry);
                for target in self.blocks[block].terminator.successors() {
                    let mut next = available[target.block]
                        .clone()
                        .unwrap_or(VarSet::full(var_count));
                    next.intersect(&at_exit);
                    if available[target.block].as_ref() != Some(&next) {
                        available[target.block] = Some(next);
                        changed = true;
                    }
                }
            }
        }

        // Per block: types, uses, jumps, memory attributes.
        let mem = mem_attrs(inst);
        let mut atomic_prims = 0usize;
        for (block, data) in &self.blocks {
            let mut defined = available[block].clone().unwrap_or(VarSet::empty(var_count));
            for &param in &data.params {
                defined.insert(param);
            }
            let use_defined = |defined: &VarSet, var: Var, at: &dyn fmt::Display| {
                exists(var, "a use")?;
                if defined.contains(var) {
                    Ok(())
                } else {
                    Err(format!(
                        "{var} is used in {block} ({at}) where some path leaves it undefined"
                    ))
                }
            };
            for prim in &data.prims {
                let at = format!("{prim:?}");
                prim.check_types(&self.vars)
                    .map_err(|error| format!("{block}: {error} in {at}"))?;
                for var in prim.uses() {
                    use_defined(&defined, var, &at)?;
                }
                if let Some(var) = prim.def() {
                    defined.insert(var);
                }
                let Some(attrs) = prim.mem() else { continue };
                if attrs.scope != mem.scope || attrs.space != mem.space || attrs.hint != mem.hint {
                    return Err(format!(
                        "{block}: {at} has scope {}, space {}, hint {:?}; the node has {}, {}, {:?}",
                        attrs.scope, attrs.space, attrs.hint, mem.scope, mem.space, mem.hint
                    ));
                }
                match prim {
                    Prim::Load { .. } if attrs.order.has_release() => {
                        return Err(format!("{block}: a load cannot be {} in {at}", attrs.order));
                    }
                    Prim::Cas { .. } | Prim::Rmw { .. } => {
                        atomic_prims += 1;
                        if !attrs.order.implies(mem.order) {
                            return Err(format!(
                                "{block}: {at} is {}, weaker than the node's {}",
                                attrs.order, mem.order
                            ));
                        }
                        if let Prim::Rmw { op, .. } = prim {
                            if *op != inst.op {
                                return Err(format!(
                                    "{block}: {at} performs {op}, not {}",
                                    inst.op
                                ));
                            }
                        }
                    }
                    _ => {}
                }
            }
            let terminator = &data.terminator;
            if let Terminator::Branch { cond, .. } = terminator {
                use_defined(&defined, *cond, &"the branch condition")?;
                if self.vars[*cond] != PrimType::Pred {
                    return Err(format!(
                        "{block}: branch condition {cond} is not a predicate"
                    ));
                }
            }
            for target in terminator.successors() {
                let params = &self.blocks[target.block].params;
                if params.len() != target.args.len() {
                    return Err(format!(
                        "{block}: jump to {} passes {} arguments for {} parameters",
                        target.block,
                        target.args.len(),
                        params.len()
                    ));
                }
                for (&arg, &param) in target.args.iter().zip(params) {
                    use_defined(&defined, arg, &"a jump argument")?;
                    if self.vars[arg] != self.vars[param] {
                        return Err(format!(
                            "{block}: argument {arg}: {} bound to {param}: {} of {}",
                            self.vars[arg], self.vars[param], target.block
                        ));
                    }
                }
            }
            if *terminator == Terminator::Return {
                for &var in &self.results {
                    use_defined(&defined, var, &"a result at return")?;
                }
            }
        }
        if atomic_prims < elements {
            return Err(format!(
                "{atomic_prims} cas/rmw primitives for {elements} elements: some element is not atomic"
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod expander_tests {
    use super::*;
    use crate::matrix::cells;

    /// Reusing storage must not change any expansion: expand a long, varied sequence of nodes
    /// with one `Expander` and compare each with a fresh `expand`.
    #[test]
    fn expander_reuse_matches_fresh_expansions() {
        let mut expander = Expander::new();
        let emulations = |ty: ElemType, op: AtomicOp| {
            let mut list = vec![
                Emulation::CasLoop { bits: ty.bits() },
                Emulation::Split {
                    elements: 1,
                    element: ElementLowering::Native,
                },
            ];
            if ty.bits() <= 16 && !ty.is_packed() {
                list.push(Emulation::PartWord {
                    element_bits: ty.bits(),
                    needs_loop: part_word_needs_loop(op),
                });
            }
            list
        };
        let mut compared = 0;
        for cell in cells().step_by(37).filter(|c| c.ty.bits() <= 64) {
            let kernel = cell.kernel();
            let inst = kernel.atomics().next().expect("one instruction").1;
            for emulation in emulations(cell.ty, cell.op) {
                let fresh = expand(inst, emulation);
                assert_eq!(
                    expander.expand(inst, emulation),
                    &fresh,
                    "{cell} {emulation:?}"
                );
                compared += 1;
            }
        }
        assert!(compared > 2000, "compared {compared}");
    }
}
