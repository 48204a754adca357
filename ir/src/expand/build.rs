//! Building expansions: the CAS retry loop, the part-word access and the per-element split,
//! written once for every target, and the [`Expander`] that reuses their storage.

use cranelift_entity::PrimaryMap;
use smallvec::SmallVec;

use super::{
    BinaryOp, Block, BlockData, CmpCond, Edge, Expansion, MemAttrs, Prim, PrimType, Terminator,
    UnaryOp, Var,
};
use crate::legal::{ElementLowering, Lowering, WarpCombine};

mod apply;
mod attempt;
mod part_word;
mod serial_fold;
mod warp;
mod word_fold;

use crate::node::AtomicNode;
use crate::types::{AtomicOp, ElemType, MemoryOrder};
use apply::{apply_op, float_infinity_bits};
use attempt::first_load;
use part_word::{cas_then_masked_loop_element, part_word};
use serial_fold::serial_fold_element;
use warp::{warp_combined_element, WarpFold};
use word_fold::word_fold_element;

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
                // The block map is cleared, not taken, so that it keeps its capacity too.
                for block in old.blocks.values_mut() {
                    let mut prims = std::mem::take(&mut block.prims);
                    prims.clear();
                    spare_prims.push(prims);
                }
                old.blocks.clear();
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

    /// A compare-and-swap of `addr` from `expected` to `new`: the value it found there, of
    /// `expected`'s type.
    fn cas(&mut self, addr: Var, expected: Var, new: Var, mem: MemAttrs) -> Var {
        let dst = self.var(self.ty(expected));
        self.push(Prim::Cas {
            dst,
            addr,
            expected,
            new,
            mem,
        });
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

    /// Ends `from` with a branch on `cond` to `then` or `otherwise`, each a block with its
    /// arguments. `from` may be a block already left: a branch to a block laid out later is set
    /// once that block exists.
    fn branch_from(
        &mut self,
        from: Block,
        cond: Var,
        (then, then_args): (Block, &[Var]),
        (otherwise, otherwise_args): (Block, &[Var]),
    ) {
        self.expansion.blocks[from].terminator = Terminator::Branch {
            cond,
            then: Edge {
                block: then,
                args: SmallVec::from_slice(then_args),
            },
            otherwise: Edge {
                block: otherwise,
                args: SmallVec::from_slice(otherwise_args),
            },
        };
    }

    /// Ends the current block with a branch on `cond`, as [`Builder::branch_from`].
    fn branch(&mut self, cond: Var, then: (Block, &[Var]), otherwise: (Block, &[Var])) {
        self.branch_from(self.current, cond, then, otherwise);
    }

    fn jump(&mut self, block: Block, args: &[Var]) {
        self.terminate(Terminator::Jump(Edge {
            block,
            args: args.into(),
        }));
    }

    fn finish(self) -> (Expansion, Vec<Vec<Prim>>) {
        (self.expansion, self.spare_prims)
    }
}

/// The memory attributes of a node.
pub fn mem_attrs(node: &AtomicNode) -> MemAttrs {
    MemAttrs {
        order: node.order,
        scope: node.scope,
        space: node.space,
        hint: node.hint,
    }
}

/// The one CAS retry loop: a first load of the `bits_ty` word at `addr` (only a guess,
/// validated by the CAS), then `new = compute(old)` and a CAS carrying the node's full memory
/// attributes, retried with the value seen until it stores. Leaves the builder in the exit
/// block and returns the word the successful CAS replaced.
///
/// Where [`skips_unchanged`] allows it (relaxed or acquire, an op that often computes the bits
/// it read), a `new` whose bits equal `old` leaves without a CAS, returning `old`: the read that
/// gave `old` is then the whole operation, so the first load carries the node's order (acquire
/// for acquire) besides its scope. Release, acq_rel and seq_cst always write.
fn cas_retry_loop(
    b: &mut Builder,
    op: AtomicOp,
    mem: MemAttrs,
    addr: Var,
    start: LoopStart,
    compute: impl FnOnce(&mut Builder, Var) -> Var,
) -> Var {
    cas_retry_loop_carrying(b, op, mem, addr, start, &[], |b, old| {
        (compute(b, old), SmallVec::new())
    })
    .0
}

/// Where a CAS loop's first attempt takes the word it expects.
#[derive(Clone, Copy)]
enum LoopStart {
    /// A first load of a word of this type ([`first_load`]).
    Load(PrimType),
    /// This value of the word, read with the node's attributes (what a failed CAS returned),
    /// in the place of the first load: a guess like any other, validated by the CAS, and,
    /// where the loop may leave without a CAS, a read with the node's order as that load
    /// would be.
    From(Var),
}

/// [`cas_retry_loop`], also carrying values the step computed from `old` (of `carried_tys`) to
/// the exit: both exits leave with a word equal to the last attempt's `old` (the CAS returned
/// what it expected), so what the step derived from `old` is what the exit would derive from
/// the word again. Returns the word and the carried values.
///
/// A loop that may leave without a CAS reads that attempt's `old` and what the step derived
/// from it, which dominate the exit, rather than taking them as the exit's parameters: two
/// edges would pass the word in two registers (the loaded and the CAS's), which ptxas joins
/// with a copy on each. A loop that always writes leaves by one edge, from the CAS, and passes
/// the CAS's result (ptxas made vector loops longer where it kept `old` live past the CAS).
fn cas_retry_loop_carrying(
    b: &mut Builder,
    op: AtomicOp,
    mem: MemAttrs,
    addr: Var,
    start: LoopStart,
    carried_tys: &[PrimType],
    compute: impl FnOnce(&mut Builder, Var) -> (Var, SmallVec<[Var; 2]>),
) -> (Var, SmallVec<[Var; 2]>) {
    let skip = skips_unchanged(op, mem.order);
    let (initial, bits_ty) = match start {
        LoopStart::From(word) => (word, b.ty(word)),
        LoopStart::Load(bits_ty) => (first_load(b, addr, bits_ty, mem, skip), bits_ty),
    };
    let (retry, retry_params) = b.block(&[bits_ty]);
    let attempt = skip.then(|| b.block(&[]).0);
    let done_tys: SmallVec<[PrimType; 3]> = if skip {
        SmallVec::new()
    } else {
        std::iter::once(bits_ty)
            .chain(carried_tys.iter().copied())
            .collect()
    };
    let (done, done_params) = b.block(&done_tys);
    b.jump(retry, &[initial]);

    b.switch_to(retry);
    let old = retry_params[0];
    let (new, carried) = compute(b, old);
    if let Some(attempt) = attempt {
        let unchanged = b.cmp(CmpCond::Eq, new, old);
        b.branch(unchanged, (done, &[]), (attempt, &[]));
        b.switch_to(attempt);
    }
    let seen = b.cas(addr, old, new, mem);
    let stored = b.cmp(CmpCond::Eq, seen, old);
    let mut exit_args: SmallVec<[Var; 3]> = SmallVec::new();
    if !skip {
        exit_args.push(seen);
        exit_args.extend(carried.iter().copied());
    }
    b.branch(stored, (done, &exit_args), (retry, &[seen]));

    b.switch_to(done);
    if skip {
        (old, carried)
    } else {
        (done_params[0], done_params[1..].iter().copied().collect())
    }
}

/// Whether a CAS loop of `op` and `order` leaves without a CAS when the computed bits equal the
/// loaded ones. The operation is then the read alone: a valid linearization (the read, then a
/// write of the same bits right after it in the location's modification order) for relaxed and
/// acquire, which promise nothing of the write. Not for release, acq_rel or seq_cst: a reader
/// of that write would have to synchronize with (or be ordered after) an operation that never
/// wrote.
///
/// Nor for nand, inc and dec, where the compare would run on every attempt and almost never
/// save a CAS: nand leaves a bit unchanged only where it is one and the operand's is zero (the
/// word unchanged only at all ones and a zero operand), inc and dec leave a value unchanged only
/// at 0 with a bound of 0. The ops the skip serves compute the bits they read for whole ranges
/// of inputs: min/max at the extremum, exch and cas of the same value, an add, sub or xor of
/// zero, usub below the operand, and/or where the bits are already so.
pub const fn skips_unchanged(op: AtomicOp, order: MemoryOrder) -> bool {
    matches!(order, MemoryOrder::Relaxed | MemoryOrder::Acquire)
        && !matches!(op, AtomicOp::Nand | AtomicOp::Inc | AtomicOp::Dec)
}

/// Emits a CAS loop for one element at `addr`, leaving the builder in the exit block and
/// returning the old value (in the element's natural type).
fn cas_loop_element(
    b: &mut Builder,
    node: &AtomicNode,
    ty: ElemType,
    addr: Var,
    operand: Var,
    new_value: Option<Var>,
) -> Var {
    let bits_ty = PrimType::int(ty.bits());
    let replaced = cas_retry_loop(
        b,
        node.op,
        mem_attrs(node),
        addr,
        LoopStart::Load(bits_ty),
        |b, old| apply_op(b, node.op, ty, old, operand, new_value),
    );
    b.unary(UnaryOp::Bitcast, replaced, PrimType::natural(ty))
}

/// Emits a float min/max element by the integer min/max atomic of its width
/// ([`ElementLowering::IntMinMax`]), leaving the builder in the exit block and returning the old
/// value.
///
/// Why it is exact (`semantics`: one NaN gives the other operand, two give the canonical NaN,
/// -0 < +0). For max with an operand `b` that is not a NaN:
/// - `b` with the sign bit clear (+0 to +inf): read as signed integers, every value with the
///   sign bit set (every negative number, -0 and every negative NaN) is below `b`, and the
///   values from +0 to +inf keep their float order, so the signed max stores `b` exactly where
///   max does; a positive NaN in memory is above every non-NaN as a signed integer, so memory
///   is left unchanged where the semantics would store `b`;
/// - `b` with the sign bit set (-0 to -inf): read as unsigned integers, every value with the
///   sign bit clear (every positive number, +0 and every positive NaN) is below `b`, and among
///   negatives a larger magnitude is a larger integer and a smaller float, so the unsigned min
///   stores `b` exactly where max does, negative NaNs (the largest integers) included; a
///   positive NaN is again left in place.
///
/// So the integer op is right, or it left memory unchanged because memory held a positive NaN:
/// then it was a read (it stored the value it found), and a CAS loop from there is exact. Min
/// mirrors it (signed min for `b` >= +0, unsigned max for `b` <= -0; a negative NaN is left in
/// place). A NaN operand goes to the CAS loop at once (two NaNs must give the canonical NaN).
/// fminimum/fmaximum cannot use the trick: a NaN in memory must become the canonical NaN, and
/// the integer op may replace one by `b`.
fn int_min_max_element(
    b: &mut Builder,
    node: &AtomicNode,
    ty: ElemType,
    addr: Var,
    operand: Var,
    [(signed_op, signed), (unsigned_op, unsigned)]: [(AtomicOp, ElemType); 2],
) -> Var {
    let bits = ty.bits();
    let int = PrimType::int(bits);
    let want_max = signed_op == AtomicOp::Max;
    let sign = 1u128 << (bits - 1);
    let infinity = float_infinity_bits(ty);
    let mem = mem_attrs(node);

    let operand_bits = b.bits_of(operand);
    let magnitude_mask = b.constant(int, sign - 1);
    let infinity_bits = b.constant(int, infinity);
    let sign_bit = b.constant(int, sign);
    let operand_magnitude = b.binary(BinaryOp::And, operand_bits, magnitude_mask);
    let operand_is_nan = b.cmp(CmpCond::Ugt, operand_magnitude, infinity_bits);
    let entry = b.current;
    // Blocks in layout order, the exit last (printers fall through from the expansion's end);
    // terminators that name a later block are set once it exists.
    let (by_int, _) = b.block(&[]);
    let (signed_block, _) = b.block(&[]);
    let (unsigned_block, _) = b.block(&[]);
    let (check, check_params) = b.block(&[int]);
    let (fallback, _) = b.block(&[]);
    b.branch_from(entry, operand_is_nan, (fallback, &[]), (by_int, &[]));

    // max: signed max for b >= +0, unsigned min for b <= -0; min: signed min, unsigned max.
    b.switch_to(by_int);
    let negative = b.cmp(CmpCond::Uge, operand_bits, sign_bit);
    b.branch(negative, (unsigned_block, &[]), (signed_block, &[]));
    for (block, op, elem) in [
        (signed_block, signed_op, signed),
        (unsigned_block, unsigned_op, unsigned),
    ] {
        b.switch_to(block);
        let old = b.var(int);
        b.push(Prim::Rmw {
            dst: Some(old),
            op,
            ty: elem,
            addr,
            value: operand_bits,
            mem,
        });
        b.jump(check, &[old]);
    }

    // The NaN the integer op leaves in place: positive for max, negative for min.
    b.switch_to(check);
    let old = check_params[0];
    let left_in_place = if want_max {
        let above_infinity = b.cmp(CmpCond::Ugt, old, infinity_bits);
        let sign_clear = b.cmp(CmpCond::Ult, old, sign_bit);
        b.binary(BinaryOp::And, above_infinity, sign_clear)
    } else {
        let negative_infinity = b.constant(int, sign | infinity);
        b.cmp(CmpCond::Ugt, old, negative_infinity)
    };

    b.switch_to(fallback);
    let replaced = cas_retry_loop(b, node.op, mem, addr, LoopStart::Load(int), |b, old| {
        apply_op(b, node.op, ty, old, operand, None)
    });
    let (done, done_params) = b.block(&[int]);
    b.jump(done, &[replaced]);
    b.branch_from(check, left_in_place, (fallback, &[]), (done, &[old]));

    b.switch_to(done);
    b.unary(UnaryOp::Bitcast, done_params[0], PrimType::natural(ty))
}

/// One float min/max element by the integer trick ([`Carry`]); the exact CAS loop for an op
/// the trick does not compute (outside the tables' contract).
fn int_min_max_carry(
    b: &mut Builder,
    node: &AtomicNode,
    ty: ElemType,
    addr: Var,
    operand: Var,
    new_value: Option<Var>,
) -> Var {
    match Lowering::int_min_max_atomics(node.op, ty) {
        Some(atomics) => int_min_max_element(b, node, ty, addr, operand, atomics),
        None => cas_loop_element(b, node, ty, addr, operand, new_value),
    }
}

/// How one element is carried out, returning its old value: `(builder, node, element type,
/// address, operand, new value for cas)`.
type Carry = fn(&mut Builder, &AtomicNode, ElemType, Var, Var, Option<Var>) -> Var;

/// One 8/16-bit element by the masked CAS loop on its word ([`Carry`]).
fn masked_cas_loop_element(
    b: &mut Builder,
    node: &AtomicNode,
    _: ElemType,
    addr: Var,
    operand: Var,
    new_value: Option<Var>,
) -> Var {
    // The warp's group needs the replaced value whether or not this node's result is used.
    part_word(b, node, addr, &[operand], new_value.as_slice(), true, true)[0]
}

/// Emits one element natively: a CAS or the target's RMW on the element type.
fn native_element(
    b: &mut Builder,
    node: &AtomicNode,
    ty: ElemType,
    addr: Var,
    operand: Var,
    new_value: Option<Var>,
) -> Var {
    let mem = mem_attrs(node);
    match new_value {
        Some(new) => {
            // A CAS compares and moves bit patterns.
            let expected = b.bits_of(operand);
            let new = b.bits_of(new);
            let found = b.cas(addr, expected, new, mem);
            b.unary(UnaryOp::Bitcast, found, PrimType::natural(ty))
        }
        None => {
            let dst = b.var(PrimType::natural(ty));
            b.push(Prim::Rmw {
                dst: Some(dst),
                op: node.op,
                ty,
                addr,
                value: operand,
                mem,
            });
            dst
        }
    }
}

/// Builds the expansion of `node` by `lowering`, one element after another, each carried out as
/// [`Lowering::element`] and [`Lowering::warp`] say (a `Native` element is one `Rmw`, or a `Cas`
/// for `cas`), except that 8/16-bit elements sharing a 32-bit word share its one masked access
/// (`part_word`). The node must be verified and the lowering must come from a legality table that
/// accepted it (e.g. a masked lowering only for 8/16-bit types). A backend with a whole-vector
/// instruction prints that instead of expanding: `Native` on a vector node expands element by
/// element.
pub fn expand(node: &AtomicNode, lowering: Lowering) -> Expansion {
    build(node, lowering, Builder::new(None, Vec::new())).0
}

/// Expands node after node into the same storage: a backend keeps one `Expander` for a whole
/// lowering, so expansions cost no allocation once its buffers have grown.
#[derive(Default)]
pub struct Expander {
    last: Option<Expansion>,
    spare_prims: Vec<Vec<Prim>>,
}

impl Expander {
    /// An expander with empty buffers.
    pub fn new() -> Self {
        Expander::default()
    }

    /// The expansion of `node` by `lowering` (as [`expand`]), valid until the next call.
    pub fn expand(&mut self, node: &AtomicNode, lowering: Lowering) -> &mut Expansion {
        let builder = Builder::new(self.last.take(), std::mem::take(&mut self.spare_prims));
        let (expansion, spare_prims) = build(node, lowering, builder);
        self.spare_prims = spare_prims;
        self.last.insert(expansion)
    }
}

fn build(node: &AtomicNode, lowering: Lowering, mut b: Builder) -> (Expansion, Vec<Vec<Prim>>) {
    let elements = node.shape.len();
    let ty = node.ty;
    let natural = PrimType::natural(ty);
    for _ in 0..elements {
        let operand = b.var(natural);
        b.expansion.operands.push(operand);
        if node.op == AtomicOp::Cas {
            let new = b.var(natural);
            b.expansion.new_values.push(new);
        }
    }
    let element = lowering.element();
    let warp = lowering.warp();
    let base = b.expansion.addr;
    let masked = matches!(
        element,
        ElementLowering::MaskedCasLoop | ElementLowering::MaskedOp
    );
    if masked && warp == WarpCombine::PerLane {
        // The elements of one word share its access.
        let operands = b.expansion.operands.clone();
        let new_values = b.expansion.new_values.clone();
        let needs_loop = element == ElementLowering::MaskedCasLoop;
        let used = node.result_used();
        let olds = part_word(&mut b, node, base, &operands, &new_values, needs_loop, used);
        if node.result_used() {
            b.expansion.results = olds;
        }
        b.terminate(Terminator::Return);
        return b.finish();
    }
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
        let old = match (warp, element) {
            (WarpCombine::PerLane, ElementLowering::CasLoop) => {
                cas_loop_element(&mut b, node, ty, addr, operand, new_value)
            }
            (WarpCombine::PerLane, ElementLowering::CasThenMaskedLoop) => {
                cas_then_masked_loop_element(&mut b, node, ty, addr, operand, new_value)
            }
            (WarpCombine::PerLane, ElementLowering::IntMinMax) => {
                int_min_max_carry(&mut b, node, ty, addr, operand, new_value)
            }
            (WarpCombine::SerialFold, _) => serial_fold_element(&mut b, node, ty, addr, operand),
            (WarpCombine::WordFold, _) => match Lowering::warp_fold(node.op, ty) {
                Some(fold) => {
                    word_fold_element(&mut b, node, ty, addr, operand, WarpFold::Integer(fold))
                }
                // Not a foldable op (outside the tables' contract): this lane's own loop.
                None => masked_cas_loop_element(&mut b, node, ty, addr, operand, new_value),
            },
            (WarpCombine::Fold, ElementLowering::IntMinMax) => {
                match Lowering::int_min_max_atomics(node.op, ty) {
                    Some([(signed_op, _), _]) => {
                        let fold = WarpFold::FloatMinMax {
                            max: signed_op == AtomicOp::Max,
                        };
                        warp_combined_element(
                            &mut b,
                            node,
                            ty,
                            addr,
                            operand,
                            fold,
                            int_min_max_carry,
                        )
                    }
                    // Not a float min/max (outside the tables' contract): the exact CAS loop.
                    None => cas_loop_element(&mut b, node, ty, addr, operand, new_value),
                }
            }
            (
                WarpCombine::Fold,
                ElementLowering::MaskedCasLoop
                | ElementLowering::CasLoop
                | ElementLowering::CasThenMaskedLoop
                | ElementLowering::Native,
            ) => {
                let exact = Lowering::warp_fold(node.op, ty);
                let (fold, carry): (_, Carry) = match element {
                    ElementLowering::MaskedCasLoop => (exact, masked_cas_loop_element),
                    ElementLowering::CasLoop => (exact, cas_loop_element),
                    ElementLowering::CasThenMaskedLoop => (exact, cas_then_masked_loop_element),
                    _ => {
                        let reassociating = Lowering::warp_fold_reassociating(node.op, ty);
                        (exact.or(reassociating), native_element)
                    }
                };
                match fold {
                    Some(fold) => warp_combined_element(
                        &mut b,
                        node,
                        ty,
                        addr,
                        operand,
                        WarpFold::of(fold),
                        carry,
                    ),
                    // Not a foldable op (outside the tables' contract): this lane's own access.
                    None => carry(&mut b, node, ty, addr, operand, new_value),
                }
            }
            _ => native_element(&mut b, node, ty, addr, operand, new_value),
        };
        if node.result_used() {
            b.expansion.results.push(old);
        }
    }
    b.terminate(Terminator::Return);
    b.finish()
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
        let lowerings = |ty: ElemType, op: AtomicOp| {
            let mut list = vec![
                Lowering::whole(ElementLowering::CasLoop),
                Lowering::whole(ElementLowering::Native),
            ];
            if ty.bits() <= 16 && !ty.is_packed() {
                list.push(Lowering::whole(ElementLowering::masked(op)));
            }
            list
        };
        let mut compared = 0;
        for cell in cells().step_by(37).filter(|c| c.ty.bits() <= 64) {
            let node = cell.node();
            for lowering in lowerings(cell.ty, cell.op) {
                let fresh = expand(&node, lowering);
                assert_eq!(
                    expander.expand(&node, lowering),
                    &fresh,
                    "{cell} {lowering:?}"
                );
                compared += 1;
            }
        }
        assert!(compared > 2000, "compared {compared}");
    }
}
