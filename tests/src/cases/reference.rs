//! The reference outcome of a case (undefined results and free NaN payloads tracked), and the
//! comparison of an observed outcome with it.

use atomir_ir::semantics::{apply, is_nan, width_mask, FloatMode};
use atomir_ir::{AtomicInst, AtomicOp, ElemType, Operand, Scalar, Value, ValueDef};

use super::{Arg, Case, Region, REGION_BYTES, RESULT_SLOT};

// ---- the reference -------------------------------------------------------------------------

/// One lane of a value: its bits, whether the IR defines them, and whether they are a NaN whose
/// payload the IR leaves free (compared by class, as NaNs of the given type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lane {
    pub bits: u128,
    pub defined: bool,
    pub loose: Option<ElemType>,
}

impl Lane {
    const fn exact(bits: u128) -> Lane {
        Lane {
            bits,
            defined: true,
            loose: None,
        }
    }

    const UNDEFINED: Lane = Lane {
        bits: 0,
        defined: false,
        loose: None,
    };
}

/// What the IR says about one byte of memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteState {
    Exact,
    /// Part of a NaN of type `ty` starting at byte `start` whose payload (and sign) is free: a
    /// float add/sub made it.
    Loose {
        start: usize,
        ty: ElemType,
    },
    /// Not defined by the IR (computed from an undefined value, or what remains of a free NaN
    /// that a narrower access overwrote in part).
    Undefined,
}

/// What running a case must give.
#[derive(Clone, Debug)]
pub struct Expected {
    pub memory: [Vec<u8>; 2],
    pub state: [Vec<ByteState>; 2],
    /// Per used result (program order), per lane.
    pub results: Vec<(ElemType, Vec<Lane>)>,
}

pub(super) fn read(bytes: &[u8], at: usize, width: usize) -> u128 {
    let mut buffer = [0u8; 16];
    buffer[..width].copy_from_slice(&bytes[at..at + width]);
    u128::from_le_bytes(buffer)
}

/// How float add/sub/min/max treat subnormals, per node and the region it reaches.
pub type ModeFn<'a> = &'a dyn Fn(&AtomicInst, Region) -> FloatMode;

/// The semantics a reference run follows: the documented one, or a variant that explains a
/// known difference (so that a report can say which one a mismatch is).
#[derive(Clone, Copy)]
pub struct Semantics<'a> {
    pub mode: ModeFn<'a>,
    /// float min/max of two NaNs gives some NaN (compared by class) instead of the canonical one.
    pub two_nan_min_max_any_nan: bool,
}

/// The value of the element `[at, at + width)` read as `ty`: exact, a free NaN per lane of `ty`
/// where a free NaN of the lane's width starts at the lane, or undefined.
pub(super) fn read_lane(memory: &[u8], state: &[ByteState], at: usize, ty: ElemType) -> Lane {
    let width = ty.bytes() as usize;
    let bits = read(memory, at, width);
    let lanes = if ty.is_float() {
        ty.lanes() as usize
    } else {
        1
    };
    let lane_width = width / lanes;
    let mut loose = None;
    for lane in 0..lanes {
        let start = at + lane * lane_width;
        let bytes = &state[start..start + lane_width];
        if bytes.iter().all(|b| *b == ByteState::Exact) {
            continue;
        }
        match bytes[0] {
            ByteState::Loose { start: s, ty: t }
                if s == start
                    && t.bytes() as usize == lane_width
                    && (lanes == 1 || t == ty.lane_type())
                    && bytes.iter().all(|b| *b == bytes[0]) =>
            {
                loose = Some(if lanes > 1 { ty } else { t });
            }
            _ => return Lane::UNDEFINED,
        }
    }
    Lane {
        bits,
        defined: true,
        loose,
    }
}

/// Writes `lane` (of node type `ty`) at `at`: bytes of a free NaN the write covers only in part
/// become undefined.
pub(super) fn write_lane(
    memory: &mut [u8],
    state: &mut [ByteState],
    at: usize,
    ty: ElemType,
    lane: Lane,
) {
    let width = ty.bytes() as usize;
    for byte in state.iter_mut() {
        if let ByteState::Loose { start, ty: t } = *byte {
            let end = start + t.bytes() as usize;
            let overlaps = start < at + width && at < end;
            let inside = at <= start && end <= at + width;
            if overlaps && !inside {
                *byte = ByteState::Undefined;
            }
        }
    }
    memory[at..at + width].copy_from_slice(&lane.bits.to_le_bytes()[..width]);
    let lanes = if ty.is_float() {
        ty.lanes() as usize
    } else {
        1
    };
    let lane_width = width / lanes;
    for part in 0..lanes {
        let start = at + part * lane_width;
        let value = (lane.bits >> (part * lane_width * 8)) & width_mask(lane_width as u32 * 8);
        let byte_state = match lane.loose {
            _ if !lane.defined => ByteState::Undefined,
            Some(loose) => {
                let lane_ty = loose.lane_type();
                if lane_ty.bytes() as usize == lane_width && is_nan(lane_ty, value) {
                    ByteState::Loose { start, ty: lane_ty }
                } else {
                    ByteState::Exact
                }
            }
            None => ByteState::Exact,
        };
        for byte in &mut state[start..start + lane_width] {
            *byte = byte_state;
        }
    }
}

/// The new value of one element: `apply`, with what the IR leaves free tracked.
pub(super) fn rmw(
    inst: &AtomicInst,
    old: Lane,
    operand: Lane,
    new_value: Lane,
    mode: FloatMode,
    semantics: Semantics<'_>,
) -> Lane {
    let bits = apply(
        inst.op,
        inst.ty,
        old.bits,
        operand.bits,
        new_value.bits,
        mode,
    );
    let float = inst.ty.is_float();
    match inst.op {
        AtomicOp::Exch | AtomicOp::Store => operand,
        // A load leaves memory as it is, defined or not.
        AtomicOp::Load => old,
        // A free NaN's bits decide the comparison.
        AtomicOp::Cas if old.loose.is_some() || operand.loose.is_some() => Lane::UNDEFINED,
        AtomicOp::Cas if !(old.defined && operand.defined) => Lane::UNDEFINED,
        AtomicOp::Cas if bits == old.bits => old,
        AtomicOp::Cas => new_value,
        _ if !(old.defined && operand.defined) => Lane::UNDEFINED,
        AtomicOp::Add | AtomicOp::Sub if float => {
            // A NaN result of add/sub has a free payload, per lane.
            let lane = inst.ty.lane_type();
            let lane_bits = lane.bits();
            let any_nan = (0..inst.ty.lanes())
                .any(|i| is_nan(lane, (bits >> (i * lane_bits)) & width_mask(lane_bits)));
            Lane {
                bits,
                defined: true,
                loose: any_nan.then_some(inst.ty),
            }
        }
        AtomicOp::Min | AtomicOp::Max | AtomicOp::FMinimumNum | AtomicOp::FMaximumNum if float => {
            let lane = inst.ty.lane_type();
            let lane_bits = lane.bits();
            let mask = width_mask(lane_bits);
            let two_nans = (0..inst.ty.lanes()).any(|i| {
                is_nan(lane, (old.bits >> (i * lane_bits)) & mask)
                    && is_nan(lane, (operand.bits >> (i * lane_bits)) & mask)
            });
            Lane {
                bits,
                defined: true,
                loose: (two_nans && semantics.two_nan_min_max_any_nan).then_some(inst.ty),
            }
        }
        // Integer and bitwise ops read every bit.
        _ if old.loose.is_some() || operand.loose.is_some() => Lane::UNDEFINED,
        _ => Lane::exact(bits),
    }
}

/// Runs `case` on the reference semantics.
pub fn reference(case: &Case, semantics: Semantics<'_>) -> Expected {
    let kernel = &case.kernel;
    let mut memory = case.memory.clone();
    let mut state = [
        vec![ByteState::Exact; REGION_BYTES],
        vec![ByteState::Exact; REGION_BYTES],
    ];
    // The lanes of every value: parameters from the arguments, results as they are computed.
    let mut values: Vec<Option<Vec<Lane>>> = vec![None; kernel.values.len()];
    for (param, arg) in kernel.params.iter().zip(&case.args) {
        let lanes = match arg {
            Arg::Data(lanes) => lanes.iter().map(|&bits| Lane::exact(bits)).collect(),
            Arg::Pred(holds) => vec![Lane::exact(u128::from(*holds))],
            Arg::Pointer { .. } => Vec::new(),
        };
        values[param.value.as_u32() as usize] = Some(lanes);
    }
    let pointer = |value: Value| -> (Region, usize) {
        match kernel.values[value].def {
            ValueDef::Param(index) => match case.args[index as usize] {
                Arg::Pointer { region, offset } => (region, offset),
                _ => unreachable!("a verified address is a pointer parameter"),
            },
            ValueDef::Result(_) => unreachable!("a verified address is a pointer parameter"),
        }
    };
    let mut results = Vec::new();
    // A fence orders nothing a single thread could observe.
    for (_, inst) in kernel.atomics() {
        let lanes = inst.shape.len();
        let width = inst.ty.bytes() as usize;
        let executes = match inst.predicate {
            None => true,
            Some(p) => {
                let holds = values[p.value.as_u32() as usize].as_ref().expect("pred")[0].bits != 0;
                holds != p.negated
            }
        };
        let element = |values: &Vec<Option<Vec<Lane>>>, operand: Operand, lane: usize| -> Lane {
            let scalar = match operand {
                Operand::Scalar(s) => s,
                Operand::Vector(list) => kernel.vector_elements(list)[lane],
            };
            match scalar {
                Scalar::Const(c) => Lane::exact(kernel.constants[c]),
                Scalar::Value(v) => {
                    let value = values[v.as_u32() as usize]
                        .as_ref()
                        .expect("defined before use");
                    if value.len() == 1 {
                        value[0]
                    } else {
                        value[lane]
                    }
                }
            }
        };
        // The result where the predicate fails is 0 (the IR defines it so).
        let mut old_lanes = vec![
            if executes {
                Lane::UNDEFINED
            } else {
                Lane::exact(0)
            };
            lanes
        ];
        if executes {
            let (region, base) = pointer(inst.addr);
            let r = region as usize;
            for (lane, slot) in old_lanes.iter_mut().enumerate() {
                let at = base + lane * width;
                let old = read_lane(&memory[r], &state[r], at, inst.ty);
                let operand = inst
                    .operand
                    .map_or(Lane::exact(0), |o| element(&values, o, lane));
                let new_value = inst
                    .new_value
                    .map_or(Lane::exact(0), |o| element(&values, o, lane));
                let new = rmw(
                    inst,
                    old,
                    operand,
                    new_value,
                    (semantics.mode)(inst, region),
                    semantics,
                );
                write_lane(&mut memory[r], &mut state[r], at, inst.ty, new);
                *slot = old;
            }
        }
        if let Some(result) = inst.result {
            results.push((inst.ty, old_lanes.clone()));
            values[result.as_u32() as usize] = Some(old_lanes);
        }
    }
    Expected {
        memory,
        state,
        results,
    }
}

/// What a run returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observed {
    pub memory: [Vec<u8>; 2],
    pub out: Vec<u8>,
}

/// Whether two bit patterns of a (possibly packed) float type are equal or both NaN, per lane.
pub(super) fn same_nan_class(ty: ElemType, a: u128, b: u128) -> bool {
    let lane = ty.lane_type();
    let bits = lane.bits();
    let mask = width_mask(bits);
    (0..ty.lanes()).all(|i| {
        let (x, y) = ((a >> (i * bits)) & mask, (b >> (i * bits)) & mask);
        x == y || (is_nan(lane, x) && is_nan(lane, y))
    })
}

/// Every difference between what a run gave and what the IR says, and how many result lanes the
/// IR leaves undefined (not compared).
pub fn compare(case: &Case, expected: &Expected, observed: &Observed) -> (Vec<String>, usize) {
    let mut differences = Vec::new();
    let mut undefined = 0;
    let names = case.results();
    for (index, (ty, lanes)) in expected.results.iter().enumerate() {
        let width = ty.bytes() as usize;
        for (lane, want) in lanes.iter().enumerate() {
            if !want.defined {
                undefined += 1;
                continue;
            }
            let at = index * RESULT_SLOT + lane * width;
            let Some(bytes) = observed.out.get(at..at + width) else {
                differences.push(format!("result {index} lane {lane}: not returned"));
                continue;
            };
            let got = read(bytes, 0, width);
            let same = got == want.bits
                || want
                    .loose
                    .is_some_and(|t| same_nan_class(t, got, want.bits));
            if !same {
                let name = names
                    .get(index)
                    .map(|v| case.kernel.value_name(*v).to_string())
                    .unwrap_or_default();
                differences.push(format!(
                    "result {index} (%{name}) lane {lane}: {got:#0w$x}, expected {:#0w$x}{}",
                    want.bits,
                    if want.loose.is_some() {
                        " or another NaN"
                    } else {
                        ""
                    },
                    w = 2 + 2 * width
                ));
            }
        }
    }
    for region in [Region::Global, Region::Shared] {
        let r = region as usize;
        let (want, got, state) = (&expected.memory[r], &observed.memory[r], &expected.state[r]);
        if got.len() != want.len() {
            differences.push(format!(
                "{} region: {} bytes returned",
                region.name(),
                got.len()
            ));
            continue;
        }
        let mut at = 0;
        while at < REGION_BYTES {
            let differs = match state[at] {
                ByteState::Undefined => false,
                ByteState::Exact => got[at] != want[at],
                ByteState::Loose { start, ty } => {
                    let n = ty.bytes() as usize;
                    let (x, y) = (read(got, start, n), read(want, start, n));
                    !(x == y || (is_nan(ty, x) && is_nan(ty, y)))
                }
            };
            if differs {
                // Report the aligned 8 bytes around the first differing byte.
                let start = at & !7;
                differences.push(format!(
                    "{} region +{start}: {:#018x}, expected {:#018x}",
                    region.name(),
                    read(got, start, 8),
                    read(want, start, 8)
                ));
                at = start + 8;
                continue;
            }
            at += 1;
        }
    }
    (differences, undefined)
}

/// The flush-to-zero a native f32 add or sub on global memory may do (PTX documents it for
/// `atom.add.f32` on global memory): the mode under which a mismatch is a documented float mode
/// rather than a defect.
pub fn ftz_on_global_f32(inst: &AtomicInst, region: Region) -> FloatMode {
    let f32_arith = inst.ty == ElemType::F32 && matches!(inst.op, AtomicOp::Add | AtomicOp::Sub);
    if f32_arith && region == Region::Global {
        FloatMode::FlushSubnormals
    } else {
        FloatMode::Ieee
    }
}

pub fn ieee(_: &AtomicInst, _: Region) -> FloatMode {
    FloatMode::Ieee
}

/// How one run compares with the semantics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// As the semantics say; how many undefined result lanes were not compared.
    Matches {
        undefined: usize,
    },
    /// Only if a native f32 add/sub on global memory flushes subnormals (documented by PTX).
    FlushToZero,
    /// Only if min/max of two NaNs may give any NaN (the semantics say the canonical one).
    TwoNanMinMax,
    Differs(Vec<String>),
}

/// Judges one run against the semantics under `mode`, naming the known variant that explains a
/// mismatch when one does.
pub fn check(case: &Case, mode: ModeFn<'_>, observed: &Observed) -> Verdict {
    let exact = Semantics {
        mode,
        two_nan_min_max_any_nan: false,
    };
    let (differences, undefined) = compare(case, &reference(case, exact), observed);
    if differences.is_empty() {
        return Verdict::Matches { undefined };
    }
    let ftz = Semantics {
        mode: &ftz_on_global_f32,
        ..exact
    };
    if compare(case, &reference(case, ftz), observed).0.is_empty() {
        return Verdict::FlushToZero;
    }
    let nans = Semantics {
        two_nan_min_max_any_nan: true,
        ..exact
    };
    if compare(case, &reference(case, nans), observed).0.is_empty() {
        return Verdict::TwoNanMinMax;
    }
    Verdict::Differs(differences)
}
