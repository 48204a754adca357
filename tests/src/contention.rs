//! Checks the GPU contention benchmark's results (`bench/gpu/`) against the reference semantics,
//! and simulates runs for the checker's self-test.
//!
//! A run: `threads` threads, thread `t` performing one atomic with operand `operands[t]` on
//! element `t % addresses` of an array (elements packed at their own size, then guard bytes
//! that nothing may change); with the result used, thread `t` stores the old value it got to
//! `olds[t]`. What is checked, per element (per 16-bit lane of a packed type):
//! - result used: the old values and the final value form a valid linearization
//!   ([`Linearizer`]);
//! - result unused, an op whose final value does not depend on the order (integer add, float
//!   min/max): the final value, exactly;
//! - result unused, float add: exactly where every order gives the same value (equal operands,
//!   or every partial sum representable); else within the error bound of recursive summation in
//!   any order, `k·u/(1 - k·u) · (|init| + Σ|operand|)` for `k` operands and unit roundoff `u`,
//!   where `k·u ≤ 1/2`; else only that the result is no NaN (a weak check, reported as such).

use atomir_ir::matrix::Cell;
use atomir_ir::semantics::{apply, width_mask, FloatMode};
use atomir_ir::{AddressSpace, AtomicOp, ElemType, MemoryOrder, Scope, VectorShape};
use atomir_ptx::PtxTarget;
use half::{bf16, f16};

use crate::linearize::Linearizer;

/// One benchmark kernel: a scalar relaxed device-scope atomic on global memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Case {
    pub op: AtomicOp,
    pub ty: ElemType,
    pub result_used: bool,
}

impl Case {
    pub fn cell(&self) -> Cell {
        Cell {
            op: self.op,
            ty: self.ty,
            shape: VectorShape::Scalar,
            order: MemoryOrder::Relaxed,
            scope: Scope::Device,
            space: AddressSpace::Global,
            result_used: self.result_used,
            laxity: None,
        }
    }

    /// How atomir's sm_90 code treats subnormals for this atomic (exact: an exact f32 add on
    /// global memory is its CAS loop, the native `atom.add.f32` flushing them). The other
    /// contenders' `atom.add.f32` is checked under it too, which the benchmark's operands allow:
    /// its f32 add operands are integers, never subnormal.
    pub fn float_mode(&self) -> FloatMode {
        let target = PtxTarget::parse("sm_90").expect("a known target");
        let kernel = self.cell().kernel();
        let inst = kernel.atomics().next().expect("one instruction").1;
        target.float_mode(&atomir_ir::AtomicNode::of_inst(inst))
    }

    fn width(&self) -> usize {
        self.ty.bytes() as usize
    }

    /// The type each checked value has, and how many there are per element: the lanes of a
    /// packed type are separate values.
    fn lanes(&self) -> (ElemType, u32) {
        if self.ty.is_packed() && !self.op.is_move() {
            (self.ty.lane_type(), self.ty.lanes())
        } else {
            (self.ty, 1)
        }
    }
}

/// How many threads act on how many elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub addresses: usize,
    pub threads: usize,
}

/// What a run left: memory before and after, every thread's operand and (result used) old value.
pub struct Observed<'a> {
    pub init: &'a [u8],
    pub last: &'a [u8],
    pub operands: &'a [u8],
    pub olds: Option<&'a [u8]>,
}

/// The strength of a passed check, strongest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CheckKind {
    /// Old values and final memory form a valid linearization.
    Linearization,
    /// Final memory equals the only value any order can give.
    Exact,
    /// Final memory within the error bound of summation in any order.
    Bound,
    /// Final memory is one of the values stored (exch or store with the result unused: the
    /// last writer's operand).
    Member,
    /// Final memory only known to be no NaN, or (an op whose final value depends on the order,
    /// with the result unused) not checked.
    Weak,
}

impl CheckKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            CheckKind::Linearization => "linearization",
            CheckKind::Exact => "exact",
            CheckKind::Bound => "bound",
            CheckKind::Member => "member",
            CheckKind::Weak => "weak",
        }
    }
}

pub(crate) fn read(bytes: &[u8], offset: usize, width: usize) -> u64 {
    let mut buffer = [0u8; 8];
    buffer[..width].copy_from_slice(&bytes[offset..offset + width]);
    u64::from_le_bytes(buffer)
}

pub(crate) fn write(bytes: &mut [u8], offset: usize, width: usize, value: u64) {
    bytes[offset..offset + width].copy_from_slice(&value.to_le_bytes()[..width]);
}

pub(crate) fn lane(bits: u64, index: u32, lane_bits: u32) -> u64 {
    (bits >> (index * lane_bits)) & width_mask(lane_bits) as u64
}

fn check_sizes(case: &Case, layout: Layout, observed: &Observed) -> Result<(), String> {
    let width = case.width();
    let need = |what: &str, have: usize, want: usize| {
        if have < want {
            Err(format!("{what}: {have} bytes, need at least {want}"))
        } else {
            Ok(())
        }
    };
    if layout.addresses == 0 {
        return Err("no addresses".into());
    }
    need(
        "initial memory",
        observed.init.len(),
        layout.addresses * width,
    )?;
    if observed.last.len() != observed.init.len() {
        return Err(format!(
            "final memory has {} bytes, initial {}",
            observed.last.len(),
            observed.init.len()
        ));
    }
    need("operands", observed.operands.len(), layout.threads * width)?;
    match (case.result_used, observed.olds) {
        (true, Some(olds)) => need("old values", olds.len(), layout.threads * width),
        (true, None) => Err("the result is used but no old values were given".into()),
        (false, _) => Ok(()),
    }
}

/// Checks a run; the kind of check that passed, or what is wrong.
pub fn check(case: &Case, layout: Layout, observed: &Observed) -> Result<CheckKind, String> {
    check_sizes(case, layout, observed)?;
    let width = case.width();
    let used_bytes = layout.addresses * width;
    if let Some(offset) =
        (used_bytes..observed.init.len()).find(|&i| observed.init[i] != observed.last[i])
    {
        return Err(format!(
            "byte {offset}, beyond the {} elements, changed from {:#04x} to {:#04x}",
            layout.addresses, observed.init[offset], observed.last[offset]
        ));
    }
    let mode = case.float_mode();
    let (lane_ty, lanes) = case.lanes();
    let lane_bits = lane_ty.bits();
    let mut weakest = if case.result_used {
        CheckKind::Linearization
    } else {
        CheckKind::Exact
    };
    let mut linearizer = Linearizer::new();
    let mut edges: Vec<(u64, u64)> = Vec::new();
    let mut operands: Vec<u64> = Vec::new();
    for address in 0..layout.addresses {
        let offset = address * width;
        let init_bits = read(observed.init, offset, width);
        let last_bits = read(observed.last, offset, width);
        let threads = (address..layout.threads).step_by(layout.addresses);
        for index in 0..lanes {
            let init = lane(init_bits, index, lane_bits);
            let last = lane(last_bits, index, lane_bits);
            operands.clear();
            operands.extend(
                threads
                    .clone()
                    .map(|t| lane(read(observed.operands, t * width, width), index, lane_bits)),
            );
            let step = |old: u64, operand: u64| {
                apply(
                    case.op,
                    lane_ty,
                    u128::from(old),
                    u128::from(operand),
                    0,
                    mode,
                ) as u64
            };
            let place = || {
                if lanes > 1 {
                    format!("element {address} lane {index}")
                } else {
                    format!("element {address}")
                }
            };
            if let Some(olds) = observed.olds.filter(|_| case.result_used) {
                edges.clear();
                edges.extend(threads.clone().zip(&operands).map(|(t, &operand)| {
                    let old = lane(read(olds, t * width, width), index, lane_bits);
                    (old, step(old, operand))
                }));
                if !linearizer.is_trail(init, last, &edges) {
                    return Err(format!(
                        "{}: initial {init:#x}, final {last:#x}: the old values of {} threads are no linearization",
                        place(),
                        edges.len()
                    ));
                }
                continue;
            }
            let kind = if case.op == AtomicOp::Add && lane_ty.is_float() {
                float_sum_check(lane_ty, mode, init, last, &operands, step)
            } else {
                let expected = operands.iter().fold(init, |value, &b| step(value, b));
                if expected == last {
                    Ok(CheckKind::Exact)
                } else {
                    Err(format!("expected {expected:#x}"))
                }
            };
            match kind {
                Ok(kind) => weakest = weakest.max(kind),
                Err(reason) => {
                    return Err(format!(
                        "{}: initial {init:#x}, final {last:#x}, {} operands: {reason}",
                        place(),
                        operands.len()
                    ))
                }
            }
        }
    }
    Ok(weakest)
}

/// Significand bits (with the implicit one) and the smallest normal value of a float type.
fn float_format(ty: ElemType) -> (i32, f64) {
    match ty {
        ElemType::F16 => (11, 2f64.powi(-14)),
        ElemType::Bf16 => (8, 2f64.powi(-126)),
        ElemType::F32 => (24, 2f64.powi(-126)),
        _ => (53, 2f64.powi(-1022)),
    }
}

fn to_f64(ty: ElemType, bits: u64) -> f64 {
    match ty {
        ElemType::F16 => f16::from_bits(bits as u16).to_f64(),
        ElemType::Bf16 => bf16::from_bits(bits as u16).to_f64(),
        ElemType::F32 => f64::from(f32::from_bits(bits as u32)),
        _ => f64::from_bits(bits),
    }
}

/// The exponent of the lowest set bit of a finite non-zero value: `value = m · 2^e`, m odd.
fn lowest_bit_exponent(value: f64) -> i32 {
    let bits = value.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (significand, scale) = if exponent == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), exponent - 1075)
    };
    scale + significand.trailing_zeros() as i32
}

/// The final value of a float add reduction, whose value in general depends on the order.
pub(crate) fn float_sum_check(
    ty: ElemType,
    mode: FloatMode,
    init: u64,
    last: u64,
    operands: &[u64],
    step: impl Fn(u64, u64) -> u64,
) -> Result<CheckKind, String> {
    let in_order = || operands.iter().fold(init, |value, &b| step(value, b));
    let exact = |expected: u64| {
        if expected == last {
            Ok(CheckKind::Exact)
        } else {
            Err(format!("expected {expected:#x} (every order gives it)"))
        }
    };
    if operands.windows(2).all(|pair| pair[0] == pair[1]) {
        return exact(in_order());
    }
    let (precision, min_normal) = float_format(ty);
    let values: Vec<f64> = std::iter::once(init)
        .chain(operands.iter().copied())
        .map(|bits| to_f64(ty, bits))
        .collect();
    let result = to_f64(ty, last);
    if values.iter().any(|v| !v.is_finite()) {
        return if result.is_nan() {
            Err("NaN".into())
        } else {
            Ok(CheckKind::Weak)
        };
    }
    let magnitude: f64 = values.iter().map(|v| v.abs()).sum();
    let finest = values
        .iter()
        .filter(|v| **v != 0.0)
        .map(|&v| lowest_bit_exponent(v))
        .min();
    if let Some(finest) = finest {
        // Every partial sum is a multiple of 2^finest no larger than `magnitude`: representable
        // when that is below 2^precision units (the f64 sum is then exact too), and normal when
        // subnormals would be flushed.
        let units = magnitude / 2f64.powi(finest);
        let flush_safe = mode == FloatMode::Ieee || 2f64.powi(finest) >= min_normal;
        if units <= 2f64.powi(precision) && flush_safe {
            return exact(in_order());
        }
    }
    let k = operands.len() as f64;
    let unit_roundoff = 2f64.powi(-precision);
    if k * unit_roundoff <= 0.5 {
        let sum: f64 = values.iter().sum();
        let gamma = k * unit_roundoff / (1.0 - k * unit_roundoff);
        // The reference sum's own f64 rounding, and what flushing subnormals can lose per step.
        let slack = k * 2f64.powi(-52) * magnitude
            + if mode == FloatMode::FlushSubnormals {
                k * min_normal
            } else {
                0.0
            };
        let bound = gamma * magnitude + slack;
        return if result.is_finite() && (result - sum).abs() <= bound {
            Ok(CheckKind::Bound)
        } else {
            Err(format!(
                "{result:e} is more than {bound:e} away from the exact sum {sum:e}"
            ))
        };
    }
    if result.is_nan() {
        Err("NaN from finite operands".into())
    } else {
        Ok(CheckKind::Weak)
    }
}

/// The order a simulated sequential run takes the threads in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Forward,
    Reverse,
    /// A pseudo-random permutation from this seed.
    Shuffled(u64),
}

/// The thread indices `0..threads` in the given order.
pub(crate) fn ordered(threads: usize, order: Order) -> Vec<usize> {
    let mut threads: Vec<usize> = (0..threads).collect();
    match order {
        Order::Forward => {}
        Order::Reverse => threads.reverse(),
        Order::Shuffled(seed) => {
            let mut state = seed | 1;
            for i in (1..threads.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                threads.swap(i, (state % (i as u64 + 1)) as usize);
            }
        }
    }
    threads
}

/// Final memory and (result used) old values of the threads run one after another.
pub fn simulate(
    case: &Case,
    layout: Layout,
    init: &[u8],
    operands: &[u8],
    order: Order,
) -> (Vec<u8>, Option<Vec<u8>>) {
    let width = case.width();
    let mode = case.float_mode();
    let mut memory = init.to_vec();
    let mut olds = vec![0u8; layout.threads * width];
    for t in ordered(layout.threads, order) {
        let offset = (t % layout.addresses) * width;
        let old = read(&memory, offset, width);
        let operand = read(operands, t * width, width);
        let new = apply(
            case.op,
            case.ty,
            u128::from(old),
            u128::from(operand),
            0,
            mode,
        ) as u64;
        write(&mut memory, offset, width, new);
        write(&mut olds, t * width, width, old);
    }
    (memory, case.result_used.then_some(olds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use AtomicOp::{Add, Max, Min};
    use ElemType::*;

    const GUARD: u8 = 0xa5;

    fn float_bits(ty: ElemType, value: f64) -> u64 {
        match ty {
            F16 => u64::from(f16::from_f64(value).to_bits()),
            Bf16 => u64::from(bf16::from_f64(value).to_bits()),
            F32 => u64::from((value as f32).to_bits()),
            F64 => value.to_bits(),
            F16x2 => u64::from(f16::from_f64(value).to_bits()) * 0x1_0001,
            Bf16x2 => u64::from(bf16::from_f64(value).to_bits()) * 0x1_0001,
            _ => value as i64 as u64,
        }
    }

    #[derive(Clone, Copy, Debug)]
    enum Pattern {
        Constant,
        Increasing,
        Random,
    }

    /// Operands as the benchmark makes them: a constant, the thread id (negated for min, scaled
    /// into [0, 1) for 16-bit floats), or random values.
    fn operands(case: &Case, threads: usize, pattern: Pattern) -> Vec<u8> {
        let width = case.width();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut bytes = vec![0u8; threads * width];
        for t in 0..threads {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let value = if case.ty.is_float() {
                let small = matches!(case.ty.lane_type(), F16 | Bf16);
                let v = match pattern {
                    Pattern::Constant => 1.0,
                    Pattern::Increasing if small => t as f64 / threads as f64,
                    Pattern::Increasing => t as f64,
                    Pattern::Random => ((state % 81) as f64 - 40.0) / 4.0,
                };
                float_bits(case.ty, if case.op == Min { -v } else { v })
            } else {
                match pattern {
                    Pattern::Constant => 1,
                    Pattern::Increasing => t as u64,
                    Pattern::Random => state,
                }
            };
            write(
                &mut bytes,
                t * width,
                width,
                value & width_mask(width as u32 * 8) as u64,
            );
        }
        bytes
    }

    fn initial_memory(case: &Case, addresses: usize) -> Vec<u8> {
        let width = case.width();
        let value = match (case.op, case.ty.is_float()) {
            (Max, true) => float_bits(case.ty, f64::NEG_INFINITY),
            (Min, true) => float_bits(case.ty, f64::INFINITY),
            _ => 0,
        };
        let mut memory = vec![GUARD; (addresses * width).next_multiple_of(16) + 16];
        for address in 0..addresses {
            write(&mut memory, address * width, width, value);
        }
        memory
    }

    fn cases() -> Vec<Case> {
        let mut all = Vec::new();
        for result_used in [true, false] {
            for (op, ty) in [
                (Add, U8),
                (Add, U16),
                (Add, U32),
                (Add, U64),
                (Add, F16),
                (Add, Bf16),
                (Add, F32),
                (Add, F16x2),
                (Add, Bf16x2),
                (Max, F32),
                (Min, F32),
                (Max, F64),
                (Min, F64),
            ] {
                all.push(Case {
                    op,
                    ty,
                    result_used,
                });
            }
        }
        all
    }

    fn run(case: &Case, layout: Layout, pattern: Pattern, order: Order) -> RunData {
        let init = initial_memory(case, layout.addresses);
        let operands = operands(case, layout.threads, pattern);
        let (last, olds) = simulate(case, layout, &init, &operands, order);
        RunData {
            init,
            last,
            operands,
            olds,
        }
    }

    struct RunData {
        init: Vec<u8>,
        last: Vec<u8>,
        operands: Vec<u8>,
        olds: Option<Vec<u8>>,
    }

    impl RunData {
        fn check(&self, case: &Case, layout: Layout) -> Result<CheckKind, String> {
            check(
                case,
                layout,
                &Observed {
                    init: &self.init,
                    last: &self.last,
                    operands: &self.operands,
                    olds: self.olds.as_deref(),
                },
            )
        }
    }

    #[test]
    fn every_sequential_order_passes() {
        for case in cases() {
            for addresses in [1, 3, 64] {
                let layout = Layout {
                    addresses,
                    threads: 768,
                };
                for pattern in [Pattern::Constant, Pattern::Increasing, Pattern::Random] {
                    for order in [
                        Order::Forward,
                        Order::Reverse,
                        Order::Shuffled(addresses as u64),
                    ] {
                        let data = run(&case, layout, pattern, order);
                        let verdict = data.check(&case, layout);
                        let kind = verdict.unwrap_or_else(|reason| {
                            panic!("{case:?} {layout:?} {pattern:?} {order:?}: {reason}")
                        });
                        if case.result_used {
                            assert_eq!(kind, CheckKind::Linearization);
                        } else if case.op != Add || !case.ty.is_float() {
                            assert_eq!(kind, CheckKind::Exact, "{case:?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn float_sums_are_checked_as_strongly_as_the_operands_allow() {
        let sum = |ty| Case {
            op: Add,
            ty,
            result_used: false,
        };
        let kind = |case: Case, addresses, threads, pattern| {
            let layout = Layout { addresses, threads };
            run(&case, layout, pattern, Order::Shuffled(3))
                .check(&case, layout)
                .unwrap()
        };
        // Equal operands: one possible result, even where the f16 sum stops growing at 2048.
        assert_eq!(kind(sum(F16), 1, 8192, Pattern::Constant), CheckKind::Exact);
        // Small multiples of 2^-2 with a small total: every partial sum is exact.
        assert_eq!(kind(sum(F32), 1, 8192, Pattern::Random), CheckKind::Exact);
        // Thread ids: the total 2^25 needs rounding, and 8191 adds stay within the bound.
        assert_eq!(
            kind(sum(F32), 1, 8192, Pattern::Increasing),
            CheckKind::Bound
        );
        assert_eq!(
            kind(sum(F16), 1, 8192, Pattern::Increasing),
            CheckKind::Weak
        );
        assert_eq!(
            kind(sum(F16), 4096, 8192 * 64, Pattern::Increasing),
            CheckKind::Bound
        );
    }

    #[test]
    fn wrong_results_are_caught() {
        let layout = Layout {
            addresses: 4,
            threads: 1024,
        };
        let mut lost_updates = 0;
        for case in cases() {
            for pattern in [Pattern::Constant, Pattern::Increasing, Pattern::Random] {
                let good = run(&case, layout, pattern, Order::Shuffled(11));
                let weak = good.check(&case, layout).unwrap() >= CheckKind::Bound;
                let width = case.width();
                // A guard byte beyond the elements changed.
                let mut bad = run(&case, layout, pattern, Order::Shuffled(11));
                let guard = layout.addresses * width;
                bad.last[guard] ^= 1;
                assert!(
                    bad.check(&case, layout).is_err(),
                    "{case:?} {pattern:?} guard"
                );
                // Element 0's final value changed.
                if !weak {
                    let mut bad = run(&case, layout, pattern, Order::Shuffled(11));
                    bad.last[0] ^= 0x10;
                    assert!(
                        bad.check(&case, layout).is_err(),
                        "{case:?} {pattern:?} final"
                    );
                }
                // A lost update: a thread saw the value another one saw too. Only where that
                // changes how often some value is left or reached: a thread whose add changed
                // nothing may have seen any value on the trail.
                if let (Some(olds), false) = (&good.olds, case.ty.is_packed()) {
                    let mode = case.float_mode();
                    let value = |bytes: &[u8], t: usize| read(bytes, t * width, width);
                    let step = |old: u64, t: usize| {
                        apply(
                            case.op,
                            case.ty,
                            u128::from(old),
                            u128::from(value(&good.operands, t)),
                            0,
                            mode,
                        ) as u64
                    };
                    let at_zero = (0..layout.threads).step_by(layout.addresses);
                    let detectable = at_zero
                        .clone()
                        .flat_map(|t1| at_zero.clone().map(move |t2| (t1, t2)))
                        .find(|&(t1, t2)| {
                            let (old1, old2) = (value(olds, t1), value(olds, t2));
                            let (x, y) = (step(old1, t2), step(old2, t2));
                            old1 != old2 && x != old1 && y != old2 && !(old2 == x && y == old1)
                        });
                    if let Some((t1, t2)) = detectable {
                        let mut bad = run(&case, layout, pattern, Order::Shuffled(11));
                        write(
                            bad.olds.as_mut().unwrap(),
                            t2 * width,
                            width,
                            value(olds, t1),
                        );
                        assert!(
                            bad.check(&case, layout).is_err(),
                            "{case:?} {pattern:?} lost"
                        );
                        lost_updates += 1;
                    }
                }
            }
        }
        // Every used-result case but the packed ones, in every pattern but a constant max/min
        // (after the first thread, every one of those changes nothing).
        assert!(lost_updates >= 29, "{lost_updates} lost updates tried");
    }

    #[test]
    fn a_run_of_other_operands_is_no_linearization() {
        let case = Case {
            op: Add,
            ty: U32,
            result_used: true,
        };
        let layout = Layout {
            addresses: 1,
            threads: 256,
        };
        let mut data = run(&case, layout, Pattern::Random, Order::Forward);
        data.operands = operands(&case, layout.threads, Pattern::Increasing);
        assert!(data.check(&case, layout).is_err());
        assert!(check(
            &case,
            layout,
            &Observed {
                init: &data.init,
                last: &data.last,
                operands: &data.operands,
                olds: None,
            }
        )
        .is_err_and(|reason| reason.contains("no old values")));
    }
}
