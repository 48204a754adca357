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
}

impl Builder {
    fn new() -> Self {
        let mut vars = PrimaryMap::new();
        let addr = vars.push(PrimType::Ptr);
        let mut blocks = PrimaryMap::new();
        let entry = blocks.push(BlockData {
            params: SmallVec::new(),
            prims: Vec::new(),
            terminator: Terminator::Return,
        });
        Builder {
            expansion: Expansion {
                vars,
                blocks,
                addr,
                operands: SmallVec::new(),
                new_values: SmallVec::new(),
                results: SmallVec::new(),
            },
            current: entry,
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
        let block = self.expansion.blocks.push(BlockData {
            params: params.clone(),
            prims: Vec::new(),
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

    fn finish(self) -> Expansion {
        self.expansion
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
    if ty.is_packed() {
        // Each 16-bit half is an independent element.
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
                AtomicOp::Min => BinaryOp::FMin,
                AtomicOp::Max => BinaryOp::FMax,
                other => unreachable!("verifier admits no float {other}"),
            };
            let new_float = b.binary(float_op, old_float, operand);
            b.bits_of(new_float)
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
                AtomicOp::Exch => value,
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

/// The memory attributes of a node.
pub fn mem_attrs(inst: &AtomicInst) -> MemAttrs {
    MemAttrs {
        order: inst.order,
        scope: inst.scope,
        space: inst.space,
        hint: inst.hint,
    }
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
    let mem = mem_attrs(inst);
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
    let new = apply_op(b, inst.op, ty, old, operand, new_value);
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
    b.unary(UnaryOp::Bitcast, done_params[0], PrimType::natural(ty))
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

    let initial = b.var(PrimType::I32);
    b.push(Prim::Load {
        dst: initial,
        addr: word,
        mem: MemAttrs {
            order: MemoryOrder::Relaxed,
            ..mem
        },
    });
    let (retry, retry_params) = b.block(&[PrimType::I32]);
    let (done, done_params) = b.block(&[PrimType::I32]);
    b.jump(retry, &[initial]);

    b.switch_to(retry);
    let old_word = retry_params[0];
    let shifted = b.binary(BinaryOp::LShr, old_word, shift);
    let old = b.unary(UnaryOp::Trunc, shifted, element_ty);
    let new = apply_op(b, inst.op, ty, old, operand, new_value);
    let new_wide = b.unary(UnaryOp::Zext, new, PrimType::I32);
    let new_placed = b.binary(BinaryOp::Shl, new_wide, shift);
    let rest = b.binary(BinaryOp::And, old_word, keep);
    let new_word = b.binary(BinaryOp::Or, rest, new_placed);
    let seen = b.var(PrimType::I32);
    b.push(Prim::Cas {
        dst: seen,
        addr: word,
        expected: old_word,
        new: new_word,
        mem,
    });
    let stored = b.cmp(CmpCond::Eq, seen, old_word);
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
    extract(b, done_params[0])
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
    let mut b = Builder::new();
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
