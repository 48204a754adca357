//! The conditions of float min/max by integer atomics (`ElementLowering::IntMinMax`), as a direct
//! model checked pair by pair against `semantics::apply`. Shared by the sampled proof of
//! `expand_int_min_max.rs` and the exhaustive one of the bench binary `prove_int_min_max`
//! (which includes this file by path), so both prove the same statement.

#![allow(dead_code)]

use atomir_ir::semantics::{apply, is_nan, FloatMode};
use atomir_ir::{AtomicOp, ElemType, Lowering};

/// The ops the trick serves: the NaN-ignoring float min/max under both spellings.
pub const OPS: [AtomicOp; 4] = [
    AtomicOp::Min,
    AtomicOp::Max,
    AtomicOp::FMinimumNum,
    AtomicOp::FMaximumNum,
];

/// The 16-bit float layouts, each proven on all 2^32 (memory, operand) pairs.
pub const TYPES_16: [ElemType; 2] = [ElemType::F16, ElemType::Bf16];

/// What the integer atomic the lowering chooses does to `old` with operand `b`: the signed one
/// of `Lowering::int_min_max_atomics` for an operand with the sign bit clear, the unsigned one
/// otherwise, applied by the integer semantics. `None` for a NaN operand, which the expansion
/// sends straight to the CAS loop.
pub fn integer_step(op: AtomicOp, ty: ElemType, old: u128, b: u128) -> Option<u128> {
    if is_nan(ty, b) {
        return None;
    }
    let [signed, unsigned] =
        Lowering::int_min_max_atomics(op, ty).expect("a float min/max of a float type");
    let negative = b >> (ty.bits() - 1) & 1 == 1;
    let (int_op, int_ty) = if negative { unsigned } else { signed };
    Some(apply(int_op, int_ty, old, b, 0, FloatMode::Ieee))
}

/// Whether the lowering computes a max (its signed atomic is a max).
pub fn wants_max(op: AtomicOp, ty: ElemType) -> bool {
    Lowering::int_min_max_atomics(op, ty).expect("a float min/max")[0].0 == AtomicOp::Max
}

/// The NaN the integer op leaves in place, read from the old value alone (positive for max,
/// negative for min), as the expansion tests it.
pub fn left_in_place(want_max: bool, ty: ElemType, old: u128) -> bool {
    let sign = 1u128 << (ty.bits() - 1);
    is_nan(ty, old) && ((old & sign == 0) == want_max)
}

/// How the pairs of a proof went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Pairs where the integer op stored exactly what the semantics store.
    pub by_integer_op: u64,
    /// Pairs where memory held the NaN the integer op leaves in place, and it did (a read; the
    /// CAS loop that follows is exact).
    pub left_for_the_loop: u64,
    /// Pairs with a NaN operand, which go to the CAS loop without an integer op.
    pub nan_operand: u64,
}

impl Counts {
    /// Every pair counted once.
    pub fn pairs(&self) -> u64 {
        self.by_integer_op + self.left_for_the_loop + self.nan_operand
    }

    /// The sum of two counts.
    pub fn add(self, other: Counts) -> Counts {
        Counts {
            by_integer_op: self.by_integer_op + other.by_integer_op,
            left_for_the_loop: self.left_for_the_loop + other.left_for_the_loop,
            nan_operand: self.nan_operand + other.nan_operand,
        }
    }
}

/// Every memory value of the 16-bit layout against each operand of `operands`: where the integer
/// op is taken and memory holds no NaN left in place, it stores exactly what the semantics
/// store; where memory holds one, the integer op left memory unchanged (so the CAS loop that
/// follows starts from a read). The first pair that breaks it is the error.
pub fn prove_operands(
    op: AtomicOp,
    ty: ElemType,
    operands: impl Iterator<Item = u128>,
) -> Result<Counts, String> {
    let want_max = wants_max(op, ty);
    let mut counts = Counts::default();
    for b in operands {
        for old in 0..=0xffffu128 {
            let Some(stored) = integer_step(op, ty, old, b) else {
                counts.nan_operand += 1;
                continue;
            };
            if left_in_place(want_max, ty, old) {
                if stored != old {
                    return Err(format!(
                        "{op} {ty} old {old:#x} b {b:#x}: the integer op changed memory \
                         to {stored:#x}"
                    ));
                }
                counts.left_for_the_loop += 1;
            } else {
                let want = apply(op, ty, old, b, 0, FloatMode::Ieee);
                if stored != want {
                    return Err(format!(
                        "{op} {ty} old {old:#x} b {b:#x}: stored {stored:#x}, want {want:#x}"
                    ));
                }
                counts.by_integer_op += 1;
            }
        }
    }
    Ok(counts)
}

/// `prove_operands` over the operands of `operands` split across `threads` threads.
pub fn prove_parallel(
    op: AtomicOp,
    ty: ElemType,
    operands: &[u128],
    threads: usize,
) -> Result<Counts, String> {
    let chunk = operands.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = operands
            .chunks(chunk)
            .map(|part| scope.spawn(move || prove_operands(op, ty, part.iter().copied())))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a proof thread panicked"))
            .try_fold(Counts::default(), |sum, part| Ok(sum.add(part?)))
    })
}
