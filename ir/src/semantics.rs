//! Reference semantics: one bit-exact definition of every op on every element type.
//!
//! Every function here works on raw bit patterns held in a `u128` (the low [`ElemType::bits`]
//! bits; higher bits of inputs are ignored, higher bits of results are zero). One call describes
//! ONE element: `old = *a; *a = op(old, b[, c]); result = old`, and [`apply`] returns the new
//! memory bits. A packed element (`f16x2`, `bf16x2`) is two independent 16-bit lanes for every
//! op that interprets the value; `exch` and `cas` move and compare the whole 32-bit pattern.
//!
//! Definitions:
//! - integer `add`/`sub` wrap; `min`/`max` are signed for `sN`, unsigned otherwise;
//! - `inc(r, s) = r >= s ? 0 : r + 1`, `dec(r, s) = (r == 0 || r > s) ? s : r - 1` (unsigned);
//! - `nand(r, s) = !(r & s)`; `exch(r, s) = s`;
//! - `cas(r, s, t) = r == s ? t : r`, comparing BIT PATTERNS for every type, floats included
//!   (so `-0.0` does not match `+0.0` and a NaN matches an identical NaN);
//! - float `add`/`sub` round to nearest, ties to even. `f16`/`bf16` are computed in `f32` and
//!   rounded once: for a single add or subtract that double rounding is innocuous because
//!   `f32`'s 24-bit significand is at least `2p + 2` for both (p = 11 and 8). A NaN result of
//!   add/sub is whatever IEEE arithmetic on the host produces (payload propagation is not
//!   specified by IEEE 754 and differs between targets); tests compare such results by class
//!   ([`same_value`]), not by bits;
//! - float `min`/`max` are IEEE 754-2019 minimumNumber/maximumNumber (IEEE 754-2008's
//!   minNum/maxNum with its two gaps closed): `-0 < +0` (`min(-0, +0) = -0`,
//!   `max(-0, +0) = +0`); with one NaN operand, quiet or signalling, the result is the other
//!   operand (2008's minNum would turn a signalling NaN into a quiet NaN instead); with two NaN
//!   operands it is the type's canonical quiet NaN ([`canonical_nan`]: f16 `0x7e00`, bf16
//!   `0x7fc0`, f32 `0x7fc00000`, f64 `0x7ff8000000000000`), whatever the operands' payloads;
//! - `fminimumnum`/`fmaximumnum` (floats only) are those same functions: on every float type and
//!   in every [`FloatMode`], `fminimumnum(r, s)` is bit for bit `min(r, s)` and `fmaximumnum`
//!   is `max`. Both spellings exist because they say different things to a reader and a
//!   translator: `min` is also the integer min, and is what CUDA's `atomicMin` and LLVM's
//!   `atomicrmw fmin` map to (LLVM's `fmin` is minnum, which leaves the sign of a zero result
//!   and signalling NaNs loose, so atomir's stricter `min` is a valid lowering of it), while
//!   `fminimumnum` is LLVM's `atomicrmw fminimumnum` and C++26's `fetch_fminimum_num`, stated
//!   as float-only. A backend may lower either spelling with the other's code;
//! - `fminimum`/`fmaximum` (floats only) are IEEE 754-2019 minimum/maximum: NaN-propagating,
//!   `-0 < +0`. If either operand is a NaN (quiet or signalling, either payload) the result is
//!   the canonical quiet NaN, the same NaN min/max give for two NaNs; otherwise the smaller
//!   (larger) operand, so `fminimum(-0, +0) = -0` and `fmaximum(-0, +0) = +0`;
//! - `usub_cond(r, s) = r >= s ? r - s : r` (subtract unless it would wrap) and
//!   `usub_sat(r, s) = r >= s ? r - s : 0` (saturate at zero), unsigned types only, as LLVM's
//!   `atomicrmw usub_cond`/`usub_sat` (which read any integer as unsigned; atomir spells them on
//!   `uN` only, like `inc`/`dec`);
//! - `load`: the result is the memory's value and memory is unchanged (`load(r) = r`);
//!   `store(r, s) = s`, like `exch` but with no result. Both move bits and never interpret
//!   them, floats and packed types included.
//!
//! An atomic whose predicate fails touches no memory and returns 0 (all bits zero, every
//! element): every backend sets its result to 0 before the guarded access.
//!
//! Addresses: an atomic's address is aligned to its whole size, a vector's to the size of all
//! its elements (8 bytes for a `v4.u16`, 2 for a `v2.u8`), as PTX's vector `atom` and LLVM's
//! vector `atomicrmw` (`align` of the vector) require. Backends rely on it: a vector of 8/16-bit
//! elements is carried out one aligned 32-bit word at a time, each word's elements at positions
//! known when lowering. The program guarantees the alignment; nothing checks it at run time.
//!
//! A vector atomic is one independent atomic per element ([`apply_vector`]); a backend may carry
//! out several elements by one wider access, which is one order in which they take effect.
//!
//! [`FloatMode::FlushSubnormals`] models hardware that flushes denormals (PTX `atom.add.f32` on
//! global memory): every subnormal input and result of a float add/sub/min/max is replaced by a
//! zero of the same sign. `exch` and `cas` never interpret the bits and are unaffected.
//!
//! A node with a [`FloatLaxity`] allows a set of results: the exact one above and the looser
//! ones of its laxity ([`allows`]); code for it is right when every result it gives is in that
//! set, so the exact code always is.
//!
//! [`apply`] is total: for a combination [`ElemType::supports`] rejects (the verifier refuses
//! those) it reads the bits as an unsigned integer, so it never panics.
//!
//! The evaluators ([`apply`], [`apply_vector`], `float_add` and the other float functions) are
//! compiled with the crate's `semantics` feature (on by default), which brings in the `half`
//! crate for 16-bit float arithmetic. A build for lowering only turns it off; the definitions
//! lowering itself uses ([`FloatMode`], [`width_mask`], [`canonical_nan`], the NaN and subnormal
//! predicates, [`same_value`]) stay.

#[cfg(feature = "semantics")]
use half::{bf16, f16};
#[cfg(feature = "semantics")]
use smallvec::SmallVec;

use crate::types::ElemType;
#[cfg(feature = "semantics")]
use crate::types::{AtomicOp, FloatLaxity, TypeClass};

/// How float arithmetic treats subnormal numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum FloatMode {
    /// IEEE 754: subnormals are ordinary numbers.
    #[default]
    Ieee,
    /// Subnormal inputs and results are flushed to a zero of the same sign.
    FlushSubnormals,
}

/// All ones in the low `bits` bits.
pub const fn width_mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// The canonical quiet NaN of a float type (of one lane for packed types); `None` for others.
pub const fn canonical_nan(ty: ElemType) -> Option<u128> {
    match ty.lane_type() {
        ElemType::F16 => Some(0x7e00),
        ElemType::Bf16 => Some(0x7fc0),
        ElemType::F32 => Some(0x7fc0_0000),
        ElemType::F64 => Some(0x7ff8_0000_0000_0000),
        _ => None,
    }
}

/// Exponent and significand field widths of a scalar float type.
const fn float_layout(ty: ElemType) -> Option<(u32, u32)> {
    match ty {
        ElemType::F16 => Some((5, 10)),
        ElemType::Bf16 => Some((8, 7)),
        ElemType::F32 => Some((8, 23)),
        ElemType::F64 => Some((11, 52)),
        _ => None,
    }
}

/// Whether `bits` is a NaN of the scalar float type `ty` (false for non-float types).
pub fn is_nan(ty: ElemType, bits: u128) -> bool {
    match float_layout(ty) {
        Some((exponent, significand)) => {
            let exp_mask = width_mask(exponent) << significand;
            bits & exp_mask == exp_mask && bits & width_mask(significand) != 0
        }
        None => false,
    }
}

/// Whether `bits` is a subnormal of the scalar float type `ty` (zero is not subnormal).
pub fn is_subnormal(ty: ElemType, bits: u128) -> bool {
    match float_layout(ty) {
        Some((exponent, significand)) => {
            let exp_mask = width_mask(exponent) << significand;
            bits & exp_mask == 0 && bits & width_mask(significand) != 0
        }
        None => false,
    }
}

/// Replaces a subnormal of the scalar float type `ty` by a zero of the same sign.
pub fn flush_subnormal(ty: ElemType, bits: u128) -> u128 {
    let bits = bits & width_mask(ty.bits());
    if is_subnormal(ty, bits) {
        bits & (1u128 << (ty.bits() - 1))
    } else {
        bits
    }
}

#[cfg(feature = "semantics")]
/// The bits of a float operation's input or result after the mode has acted on them.
fn by_mode(ty: ElemType, bits: u128, mode: FloatMode) -> u128 {
    let bits = bits & width_mask(ty.bits());
    match mode {
        FloatMode::Ieee => bits,
        FloatMode::FlushSubnormals => flush_subnormal(ty, bits),
    }
}

#[cfg(feature = "semantics")]
/// Round-to-nearest-even add (`negate_b = false`) or subtract on a scalar float type.
fn float_add_sub(ty: ElemType, a: u128, b: u128, negate_b: bool, mode: FloatMode) -> u128 {
    let a = by_mode(ty, a, mode);
    let b = by_mode(ty, b, mode);
    let result = match ty {
        ElemType::F64 => {
            let (x, y) = (f64::from_bits(a as u64), f64::from_bits(b as u64));
            (if negate_b { x - y } else { x + y }).to_bits() as u128
        }
        ElemType::F32 => {
            let (x, y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
            (if negate_b { x - y } else { x + y }).to_bits() as u128
        }
        ElemType::F16 => {
            let (x, y) = (
                f16::from_bits(a as u16).to_f32(),
                f16::from_bits(b as u16).to_f32(),
            );
            f16::from_f32(if negate_b { x - y } else { x + y }).to_bits() as u128
        }
        ElemType::Bf16 => {
            let (x, y) = (
                bf16::from_bits(a as u16).to_f32(),
                bf16::from_bits(b as u16).to_f32(),
            );
            bf16::from_f32(if negate_b { x - y } else { x + y }).to_bits() as u128
        }
        _ => {
            let mask = width_mask(ty.bits());
            (if negate_b {
                a.wrapping_sub(b)
            } else {
                a.wrapping_add(b)
            }) & mask
        }
    };
    by_mode(ty, result, mode)
}

#[cfg(feature = "semantics")]
/// Float add on a scalar float type (`f16`, `bf16`, `f32`, `f64`), round to nearest even.
pub fn float_add(ty: ElemType, a: u128, b: u128, mode: FloatMode) -> u128 {
    float_add_sub(ty, a, b, false, mode)
}

#[cfg(feature = "semantics")]
/// Float subtract `a - b` on a scalar float type, round to nearest even.
pub fn float_sub(ty: ElemType, a: u128, b: u128, mode: FloatMode) -> u128 {
    float_add_sub(ty, a, b, true, mode)
}

#[cfg(feature = "semantics")]
/// A scalar float's bits mapped to an unsigned key whose order is the numeric order, with
/// `-0 < +0` (NaNs excluded by the caller).
fn total_order_key(ty: ElemType, bits: u128) -> u128 {
    let sign = 1u128 << (ty.bits() - 1);
    if bits & sign != 0 {
        !bits & width_mask(ty.bits())
    } else {
        bits | sign
    }
}

#[cfg(feature = "semantics")]
fn float_min_max(ty: ElemType, a: u128, b: u128, want_max: bool, mode: FloatMode) -> u128 {
    let a = by_mode(ty, a, mode);
    let b = by_mode(ty, b, mode);
    let result = match (is_nan(ty, a), is_nan(ty, b)) {
        (true, true) => canonical_nan(ty).unwrap_or(0),
        (true, false) => b,
        (false, true) => a,
        (false, false) => {
            let a_is_less = total_order_key(ty, a) < total_order_key(ty, b);
            if a_is_less != want_max {
                a
            } else {
                b
            }
        }
    };
    by_mode(ty, result, mode)
}

#[cfg(feature = "semantics")]
/// IEEE minNum on a scalar float type with `-0 < +0`; see the module documentation for NaNs.
pub fn float_min(ty: ElemType, a: u128, b: u128, mode: FloatMode) -> u128 {
    float_min_max(ty, a, b, false, mode)
}

#[cfg(feature = "semantics")]
/// IEEE maxNum on a scalar float type with `-0 < +0`; see the module documentation for NaNs.
pub fn float_max(ty: ElemType, a: u128, b: u128, mode: FloatMode) -> u128 {
    float_min_max(ty, a, b, true, mode)
}

#[cfg(feature = "semantics")]
fn float_minimum_maximum(ty: ElemType, a: u128, b: u128, want_max: bool, mode: FloatMode) -> u128 {
    let a = by_mode(ty, a, mode);
    let b = by_mode(ty, b, mode);
    if is_nan(ty, a) || is_nan(ty, b) {
        return canonical_nan(ty).unwrap_or(0);
    }
    float_min_max(ty, a, b, want_max, mode)
}

#[cfg(feature = "semantics")]
/// IEEE 754-2019 minimum on a scalar float type: any NaN operand gives the canonical quiet NaN;
/// `-0 < +0`.
pub fn float_minimum(ty: ElemType, a: u128, b: u128, mode: FloatMode) -> u128 {
    float_minimum_maximum(ty, a, b, false, mode)
}

#[cfg(feature = "semantics")]
/// IEEE 754-2019 maximum on a scalar float type: any NaN operand gives the canonical quiet NaN;
/// `-0 < +0`.
pub fn float_maximum(ty: ElemType, a: u128, b: u128, mode: FloatMode) -> u128 {
    float_minimum_maximum(ty, a, b, true, mode)
}

/// Sign-extends the low `bits` bits to a full `i128`.
pub(crate) fn sign_extend(value: u128, bits: u32) -> i128 {
    let unused = 128 - bits;
    ((value << unused) as i128) >> unused
}

#[cfg(feature = "semantics")]
/// `op` on a non-packed element; `ty` decides how the bits are read.
fn apply_scalar(
    op: AtomicOp,
    ty: ElemType,
    old: u128,
    operand: u128,
    new_value: u128,
    mode: FloatMode,
) -> u128 {
    let bits = ty.bits();
    let mask = width_mask(bits);
    let (r, s, t) = (old & mask, operand & mask, new_value & mask);
    let is_float = ty.class() == TypeClass::Float;
    let signed = ty.class() == TypeClass::Signed;
    let result = match op {
        AtomicOp::Load => r,
        AtomicOp::Exch | AtomicOp::Store => s,
        AtomicOp::Cas => {
            if r == s {
                t
            } else {
                r
            }
        }
        AtomicOp::Add if is_float => float_add(ty, r, s, mode),
        AtomicOp::Sub if is_float => float_sub(ty, r, s, mode),
        AtomicOp::Min if is_float => float_min(ty, r, s, mode),
        AtomicOp::Max if is_float => float_max(ty, r, s, mode),
        AtomicOp::FMinimumNum if is_float => float_min(ty, r, s, mode),
        AtomicOp::FMaximumNum if is_float => float_max(ty, r, s, mode),
        AtomicOp::FMinimum if is_float => float_minimum(ty, r, s, mode),
        AtomicOp::FMaximum if is_float => float_maximum(ty, r, s, mode),
        AtomicOp::Add => r.wrapping_add(s),
        AtomicOp::Sub => r.wrapping_sub(s),
        AtomicOp::And => r & s,
        AtomicOp::Or => r | s,
        AtomicOp::Xor => r ^ s,
        AtomicOp::Nand => !(r & s),
        AtomicOp::Min if signed => {
            if sign_extend(r, bits) <= sign_extend(s, bits) {
                r
            } else {
                s
            }
        }
        AtomicOp::Max if signed => {
            if sign_extend(r, bits) >= sign_extend(s, bits) {
                r
            } else {
                s
            }
        }
        // Unsigned, and (so that `apply` stays total) the float-only ops on other types.
        AtomicOp::Min | AtomicOp::FMinimum | AtomicOp::FMinimumNum => r.min(s),
        AtomicOp::Max | AtomicOp::FMaximum | AtomicOp::FMaximumNum => r.max(s),
        AtomicOp::UsubCond => {
            if r >= s {
                r - s
            } else {
                r
            }
        }
        AtomicOp::UsubSat => r.saturating_sub(s),
        AtomicOp::Inc => {
            if r >= s {
                0
            } else {
                r + 1
            }
        }
        AtomicOp::Dec => {
            if r == 0 || r > s {
                s
            } else {
                r - 1
            }
        }
    };
    result & mask
}

#[cfg(feature = "semantics")]
/// The new memory bits of ONE element after `op` with operand `operand` (`b`) and, for `cas`,
/// `new_value` (`c`; ignored otherwise). The old value (the atomic's result) is `old` itself.
pub fn apply(
    op: AtomicOp,
    ty: ElemType,
    old: u128,
    operand: u128,
    new_value: u128,
    mode: FloatMode,
) -> u128 {
    if ty.is_packed() && !op.is_move() {
        let lane = ty.lane_type();
        let lane_bits = lane.bits();
        let lane_mask = width_mask(lane_bits);
        let mut result = 0;
        for index in 0..ty.lanes() {
            let shift = index * lane_bits;
            let lane_old = (old >> shift) & lane_mask;
            let lane_operand = (operand >> shift) & lane_mask;
            result |= apply_scalar(op, lane, lane_old, lane_operand, 0, mode) << shift;
        }
        return result;
    }
    apply_scalar(op, ty, old, operand, new_value, mode)
}

#[cfg(feature = "semantics")]
/// [`apply`] to each element of a vector access; atomicity (and so the definition) is per
/// element. `new_values` is read only for `cas` (a missing entry reads as zero).
pub fn apply_vector(
    op: AtomicOp,
    ty: ElemType,
    old: &[u128],
    operands: &[u128],
    new_values: &[u128],
    mode: FloatMode,
) -> SmallVec<[u128; 8]> {
    old.iter()
        .zip(operands)
        .enumerate()
        .map(|(index, (&r, &s))| {
            apply(
                op,
                ty,
                r,
                s,
                new_values.get(index).copied().unwrap_or(0),
                mode,
            )
        })
        .collect()
}

#[cfg(feature = "semantics")]
/// Whether `new` is among the new memory bits that ONE element of a node of laxity `laxity`
/// (`None`: exact) may leave, the other arguments as for [`apply`]: the exact result (a NaN of
/// a float add/sub compared by class, [`same_value`]), and what the laxity adds
/// ([`FloatLaxity`]): for `ftz`, the result with every input and the result flushed; for
/// `ieee2008`, any NaN where both operands are NaNs or one is a signalling NaN, and either
/// zero where both operands are zeros. Packed types are judged lane by lane.
#[allow(clippy::too_many_arguments)] // `apply`'s five arguments, the laxity and the result
pub fn allows(
    op: AtomicOp,
    ty: ElemType,
    laxity: Option<FloatLaxity>,
    old: u128,
    operand: u128,
    new_value: u128,
    mode: FloatMode,
    new: u128,
) -> bool {
    if ty.is_packed() && !op.is_move() {
        let lane = ty.lane_type();
        let lane_mask = width_mask(lane.bits());
        return (0..ty.lanes()).all(|index| {
            let shift = index * lane.bits();
            let [old, operand, new] = [old, operand, new].map(|bits| (bits >> shift) & lane_mask);
            allows(op, lane, laxity, old, operand, 0, mode, new)
        });
    }
    let new = new & width_mask(ty.bits());
    let float_arithmetic = ty.is_float() && matches!(op, AtomicOp::Add | AtomicOp::Sub);
    let gives =
        |expected: u128| expected == new || (float_arithmetic && same_value(ty, expected, new));
    if gives(apply_scalar(op, ty, old, operand, new_value, mode)) {
        return true;
    }
    match laxity {
        Some(laxity) if !laxity.admits(op, ty) => false,
        None => false,
        Some(FloatLaxity::MayFlushSubnormals) => gives(apply_scalar(
            op,
            ty,
            old,
            operand,
            new_value,
            FloatMode::FlushSubnormals,
        )),
        Some(FloatLaxity::Ieee2008MinMax) => {
            let (a, b) = (by_mode(ty, old, mode), by_mode(ty, operand, mode));
            let signalling = |bits| is_nan(ty, bits) && !is_quiet_nan(ty, bits);
            let nan_allowed = (is_nan(ty, a) && is_nan(ty, b)) || signalling(a) || signalling(b);
            let zero = |bits: u128| bits & width_mask(ty.bits() - 1) == 0;
            (nan_allowed && is_nan(ty, new)) || (zero(a) && zero(b) && (new == a || new == b))
        }
    }
}

/// Whether `bits` is a quiet NaN of the scalar float type `ty` (the significand's top bit set).
pub fn is_quiet_nan(ty: ElemType, bits: u128) -> bool {
    match float_layout(ty) {
        Some((_, significand)) => is_nan(ty, bits) && bits >> (significand - 1) & 1 == 1,
        None => false,
    }
}

/// Whether two results of type `ty` are the same value: identical bits, or (per lane for packed
/// types) both NaN. This is how results of float add/sub are compared, since NaN payloads are
/// not specified.
pub fn same_value(ty: ElemType, a: u128, b: u128) -> bool {
    let lane = ty.lane_type();
    let lane_bits = lane.bits();
    let lane_mask = width_mask(lane_bits);
    (0..ty.lanes()).all(|index| {
        let shift = index * lane_bits;
        let (x, y) = ((a >> shift) & lane_mask, (b >> shift) & lane_mask);
        x == y || (is_nan(lane, x) && is_nan(lane, y))
    })
}

#[cfg(all(test, feature = "semantics"))]
mod tests;
