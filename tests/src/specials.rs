//! Float special values as runnable cases: every pair of a type's special values (NaNs of
//! different payloads, quiet and signalling, both signs of zero, subnormals, infinities, the
//! largest finite values and rounding ties) fed to float min, max, fminimum, fmaximum,
//! fminimumnum, fmaximumnum, add and sub, for `f16`,
//! `bf16`, `f32`, `f64` and the packed `f16x2`/`bf16x2`. The old value lies in memory, the
//! operand comes in a parameter; each atomic has its own address, so the final memory holds
//! every new value and the results every old one.
//!
//! The same cases run wherever a backend's code can run: LLVM IR on x86-64
//! (`tests/tests/llvm_kernels_cpu.rs`), our PTX and llc's PTX on the GPU
//! (`atomir_tests::gpu_kernels`), and every backend's expansion in the interpreter
//! (`tests/tests/float_specials.rs`); all are judged against `atomir_ir::semantics`.

use atomir_ir::{text, AtomicOp, Backend, ElemType};

use crate::cases::{bind, Arg, Case, Region, REGION_BYTES};
use crate::judge::accepted_kernel;

/// Bytes between two atomics' addresses (one value of any tested type, aligned for all).
const STRIDE: usize = 16;
/// Atomics per kernel: one address each in the global region.
pub const PER_KERNEL: usize = REGION_BYTES / STRIDE;

/// The float types tested.
pub const TYPES: [ElemType; 6] = [
    ElemType::F16,
    ElemType::Bf16,
    ElemType::F32,
    ElemType::F64,
    ElemType::F16x2,
    ElemType::Bf16x2,
];

/// The ops tested: every float min/max-like op (`min`/`max` are minimumNumber/maximumNumber,
/// `fminimum`/`fmaximum` propagate a NaN) and the arithmetic that rounds.
pub const OPS: [AtomicOp; 8] = [
    AtomicOp::Min,
    AtomicOp::Max,
    AtomicOp::FMinimum,
    AtomicOp::FMaximum,
    AtomicOp::FMinimumNum,
    AtomicOp::FMaximumNum,
    AtomicOp::Add,
    AtomicOp::Sub,
];

/// Special values of a scalar float type: +0, -0, 1, the smallest and a negative subnormal, the
/// largest subnormal, the largest finite, +inf, -inf, the canonical quiet NaN, quiet NaNs with
/// other payloads and signs, signalling NaNs, and (for the narrow types) a value whose sum with
/// 1 is a tie of round-to-nearest-even.
pub fn values(lane: ElemType) -> &'static [u128] {
    match lane {
        ElemType::F16 => &[
            0x0000, 0x8000, 0x3c00, 0x0001, 0x8001, 0x03ff, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x7e01,
            0xfe02, 0x7c01, 0xfd03, 0x1000, 0x3c01,
        ],
        ElemType::Bf16 => &[
            0x0000, 0x8000, 0x3f80, 0x0001, 0x8001, 0x007f, 0x7f7f, 0x7f80, 0xff80, 0x7fc0, 0x7fc1,
            0xffc2, 0x7f81, 0xffa3, 0x3b80, 0x3f81,
        ],
        ElemType::F32 => &[
            0x0000_0000,
            0x8000_0000,
            0x3f80_0000,
            0x0000_0001,
            0x8000_0001,
            0x007f_ffff,
            0x7f7f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7fc0_0001,
            0xffc0_0002,
            0x7f80_0001,
            0xffa0_0003,
        ],
        _ => &[
            0,
            1 << 63,
            0x3ff0 << 48,
            1,
            (1 << 63) | 1,
            (1 << 52) - 1,
            0x7fef_ffff_ffff_ffff,
            0x7ff0 << 48,
            0xfff0 << 48,
            0x7ff8 << 48,
            (0x7ff8 << 48) | 1,
            (0xfff8 << 48) | 2,
            (0x7ff0 << 48) | 1,
            (0xfff4 << 48) | 3,
        ],
    }
}

/// Every (old, operand) pair of `ty`'s special values: packed types pair lane by lane, the high
/// lane taking the pair after the low lane's, so every lane pair occurs in some lane.
pub fn pairs(ty: ElemType) -> Vec<(u128, u128)> {
    let lane = ty.lane_type();
    let values = values(lane);
    let scalar: Vec<(u128, u128)> = values
        .iter()
        .flat_map(|&old| values.iter().map(move |&operand| (old, operand)))
        .collect();
    if !ty.is_packed() {
        return scalar;
    }
    let shift = lane.bits();
    (0..scalar.len())
        .map(|i| {
            let (lo, hi) = (scalar[i], scalar[(i + 1) % scalar.len()]);
            (lo.0 | hi.0 << shift, lo.1 | hi.1 << shift)
        })
        .collect()
}

/// The special-value cases `backend` accepts, named `case<first>`, `case<first + 1>`, …: one
/// kernel per op, type and run of [`PER_KERNEL`] pairs.
pub fn cases(backend: &dyn Backend, first: usize) -> Vec<Case> {
    let mut cases = Vec::new();
    for ty in TYPES {
        for op in OPS {
            for (run, chunk) in pairs(ty).chunks(PER_KERNEL).enumerate() {
                let origin = format!("float specials: {op} {ty}, pairs from {}", run * PER_KERNEL);
                let Some(case) = case(backend, op, ty, chunk, first + cases.len(), origin) else {
                    continue;
                };
                cases.push(case);
            }
        }
    }
    cases
}

/// One kernel: `%rK = atomic.<op>.relaxed.device.global.<ty> [%pK], %xK` per pair, `%pK` at
/// `K * STRIDE` of the global region holding the pair's old value, `%xK` its operand.
fn case(
    backend: &dyn Backend,
    op: AtomicOp,
    ty: ElemType,
    chunk: &[(u128, u128)],
    index: usize,
    origin: String,
) -> Option<Case> {
    let name = format!("case{index}");
    let params: Vec<String> = (0..chunk.len())
        .map(|k| format!("%p{k}: ptr.global, %x{k}: {ty}"))
        .collect();
    let mut source = format!("kernel {name}({}) {{\n", params.join(", "));
    for k in 0..chunk.len() {
        source.push_str(&format!(
            "  %r{k} = atomic.{op}.relaxed.device.global.{ty} [%p{k}], %x{k}\n"
        ));
    }
    source.push_str("}\n");
    let mut module = text::parse(&source).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    let kernel = accepted_kernel(backend, module.kernels.remove(0))?;
    if kernel.insts.len() != chunk.len() {
        // A refused atomic would leave its address untested: test the type where all are taken.
        return None;
    }
    let mut case = bind(kernel, index as u64, origin);
    let bytes = ty.bytes() as usize;
    for (k, &(old, operand)) in chunk.iter().enumerate() {
        case.args[2 * k] = Arg::Pointer {
            region: Region::Global,
            offset: k * STRIDE,
        };
        case.args[2 * k + 1] = Arg::Data(vec![operand]);
        let at = k * STRIDE;
        case.memory[0][at..at + bytes].copy_from_slice(&old.to_le_bytes()[..bytes]);
    }
    Some(case)
}
