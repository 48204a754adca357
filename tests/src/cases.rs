//! Runnable kernels: a random kernel with inputs for every parameter and two memory regions,
//! its expected outcome under the reference semantics, and the wrappers that run it as one
//! thread (LLVM IR for x86-64 and NVPTX, PTX for our PTX output).
//!
//! Memory: a **global** region and a **shared** region of [`REGION_BYTES`] each, 128-byte
//! aligned. Every pointer parameter points at one of [`SLOTS`] slots (128 bytes apart) of the
//! region its type implies: `ptr.global` the global region, `ptr.shared` and
//! `ptr.shared_cluster` the shared one, `ptr.generic` either. Pointers may alias, also across
//! spaces (a generic and a global pointer to one slot), and accesses of different widths overlap.
//! On a GPU the shared region is a real `.shared` buffer of the wrapper: it is filled from an
//! image before the kernel runs and copied back after, and a `ptr.shared` parameter carries its
//! shared-window address (a generic pointer into it, the generic address).
//!
//! Parameters other than pointers come from an argument block (one 16-byte-aligned slot each),
//! and every used result is stored by the kernel itself (`--module`'s trailing result pointers)
//! into an output block, one [`RESULT_SLOT`] per result in program order.
//!
//! The reference runs the instructions in order with `semantics::apply` per element; the result
//! of an atomic whose predicate is false is 0, as the IR defines it. What the IR leaves undefined
//! is tracked and never compared. Float add/sub results that are NaN are compared by class
//! (their payload is not specified); everything else bit for bit.

use std::fmt::Write as _;

use atomir_ir::semantics::{apply, is_nan, width_mask, FloatMode};
use atomir_ir::{
    AddressSpace, AtomicInst, AtomicOp, Backend, ElemType, Kernel, Module, Operand, Scalar, Value,
    ValueDef, ValueType,
};

use crate::judge::accepted_kernel;
use crate::random::{self, Config, Rng};

pub const REGION_BYTES: usize = 512;
pub const SLOT_BYTES: usize = 128;
pub const SLOTS: usize = REGION_BYTES / SLOT_BYTES;
/// Bytes of the output block per used result (the largest result, v8 of 128 bits).
pub const RESULT_SLOT: usize = 128;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Region {
    Global = 0,
    Shared = 1,
}

impl Region {
    pub fn name(self) -> &'static str {
        match self {
            Region::Global => "global",
            Region::Shared => "shared",
        }
    }
}

/// The input of one parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    Pointer {
        region: Region,
        offset: usize,
    },
    /// One value per lane (one for a scalar).
    Data(Vec<u128>),
    Pred(bool),
}

/// A kernel with everything needed to run it once.
#[derive(Clone, Debug)]
pub struct Case {
    /// Where it came from: a seed or a file.
    pub origin: String,
    pub kernel: Kernel,
    pub args: Vec<Arg>,
    /// Initial global and shared regions.
    pub memory: [Vec<u8>; 2],
}

/// (bytes of one lane, lanes) of a data type.
fn data_layout(ty: ValueType) -> (usize, usize) {
    match ty {
        ValueType::Data(elem, shape) => (elem.bytes() as usize, shape.len()),
        ValueType::Pred => (1, 1),
        ValueType::Ptr(_) => (8, 1),
    }
}

fn round16(n: usize) -> usize {
    n.div_ceil(16) * 16
}

impl Case {
    /// The argument block offset of every non-pointer parameter (`None` for pointers).
    pub fn arg_offsets(&self) -> Vec<Option<usize>> {
        let mut offset = 0;
        self.kernel
            .params
            .iter()
            .map(|param| match param.ty {
                ValueType::Ptr(_) => None,
                ty => {
                    let (bytes, lanes) = data_layout(ty);
                    let at = offset;
                    offset += round16(bytes * lanes);
                    Some(at)
                }
            })
            .collect()
    }

    /// The argument block.
    pub fn arg_bytes(&self) -> Vec<u8> {
        let offsets = self.arg_offsets();
        let mut block = Vec::new();
        for ((param, arg), offset) in self.kernel.params.iter().zip(&self.args).zip(offsets) {
            let Some(offset) = offset else { continue };
            let (bytes, lanes) = data_layout(param.ty);
            block.resize(offset + round16(bytes * lanes), 0);
            match arg {
                Arg::Data(values) => {
                    for (lane, value) in values.iter().enumerate() {
                        let at = offset + lane * bytes;
                        block[at..at + bytes].copy_from_slice(&value.to_le_bytes()[..bytes]);
                    }
                }
                Arg::Pred(holds) => block[offset] = u8::from(*holds),
                Arg::Pointer { .. } => {}
            }
        }
        block.resize(block.len().max(16), 0);
        block
    }

    /// The used results, in program order (their output slot is their position).
    pub fn results(&self) -> Vec<Value> {
        self.kernel
            .insts
            .values()
            .filter_map(|i| i.result())
            .collect()
    }

    pub fn out_bytes(&self) -> usize {
        (self.results().len() * RESULT_SLOT).max(16)
    }
}

/// Random inputs for `kernel` (deterministic by `seed`).
pub fn bind(kernel: Kernel, seed: u64, origin: String) -> Case {
    let mut rng = Rng::new(seed ^ 0xB1ED);
    let args = kernel
        .params
        .iter()
        .map(|param| match param.ty {
            ValueType::Ptr(space) => {
                let region = match space {
                    AddressSpace::Global => Region::Global,
                    AddressSpace::Shared | AddressSpace::SharedCluster => Region::Shared,
                    AddressSpace::Generic if rng.percent(50) => Region::Global,
                    AddressSpace::Generic => Region::Shared,
                };
                Arg::Pointer {
                    region,
                    offset: rng.below(SLOTS) * SLOT_BYTES,
                }
            }
            ValueType::Pred => Arg::Pred(rng.percent(60)),
            ValueType::Data(elem, shape) => Arg::Data(
                (0..shape.len())
                    .map(|_| random::literal(&mut rng, elem).0)
                    .collect(),
            ),
        })
        .collect();
    let memory = [0, 1].map(|_| {
        let mut bytes = Vec::with_capacity(REGION_BYTES);
        while bytes.len() < REGION_BYTES {
            // Values of a random type at every 8 bytes: NaNs, infinities, subnormals, extremes
            // and small numbers, where a value of the same width would be read.
            let ty = *rng.pick(&[
                ElemType::U64,
                ElemType::F64,
                ElemType::F32,
                ElemType::F16,
                ElemType::U8,
                ElemType::Bf16,
                ElemType::S32,
            ]);
            let mut word = 0u64;
            let width = ty.bits() as usize;
            for part in 0..64 / width {
                word |= (random::literal(&mut rng, ty).0 as u64) << (part * width);
            }
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        bytes
    });
    Case {
        origin,
        kernel,
        args,
        memory,
    }
}

/// A random case for `target`: a random one-kernel module, without the instructions `target`
/// refuses, named `name`. `None` when nothing is left.
pub fn random_case(seed: u64, backend: &dyn Backend, name: &str) -> Option<Case> {
    let config = Config {
        max_kernels: 1,
        max_insts: 8,
        ..Config::default()
    };
    let mut generated = random::module(seed, &config);
    let mut kernel = accepted_kernel(backend, generated.module.kernels.remove(0))?;
    kernel.name = name.to_string();
    Some(bind(kernel, seed, format!("seed {seed:#x}")))
}

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

fn read(bytes: &[u8], at: usize, width: usize) -> u128 {
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
fn read_lane(memory: &[u8], state: &[ByteState], at: usize, ty: ElemType) -> Lane {
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
fn write_lane(memory: &mut [u8], state: &mut [ByteState], at: usize, ty: ElemType, lane: Lane) {
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
fn rmw(
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
fn same_nan_class(ty: ElemType, a: u128, b: u128) -> bool {
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

// ---- wrappers ------------------------------------------------------------------------------

/// The parameters of `define … @name(…)` in our LLVM output: (type, name) in order.
pub fn llvm_signature(code: &str, name: &str) -> Option<Vec<(String, String)>> {
    let quoted = format!("@\"{name}\"(");
    let plain = format!("@{name}(");
    let line = code
        .lines()
        .find(|l| l.starts_with("define ") && (l.contains(&plain) || l.contains(&quoted)))?;
    let start = line.find('(')? + 1;
    let end = line.rfind(") {")?;
    let inner = &line[start..end];
    if inner.is_empty() {
        return Some(Vec::new());
    }
    Some(
        inner
            .split(", ")
            .map(|p| {
                let (ty, name) = p.rsplit_once(' ').unwrap_or(("", p));
                (ty.to_string(), name.to_string())
            })
            .collect(),
    )
}

/// An LLVM wrapper `void @atomir_case_w<index>(ptr global, ptr shared, ptr args, ptr out)`
/// around case kernel `name` of `code` (our `--module` output). On NVPTX (`gpu`) the wrapper is
/// the kernel: its shared region is an `addrspace(3)` buffer filled from, and copied back to,
/// the `shared` image; the case kernel must have been made a plain function first
/// ([`llvm_plain_functions`]).
pub fn llvm_wrapper(
    case: &Case,
    code: &str,
    index: usize,
    gpu: bool,
    out: &mut String,
) -> Result<(), String> {
    let name = &case.kernel.name;
    let params = llvm_signature(code, name).ok_or_else(|| format!("no define of @{name}"))?;
    let offsets = case.arg_offsets();
    let smem = format!("@atomir_case_smem{index}");
    if gpu {
        let _ = writeln!(
            out,
            "{smem} = internal addrspace(3) global [{REGION_BYTES} x i8] undef, align 128"
        );
        let _ = writeln!(
            out,
            "define ptx_kernel void @atomir_case_w{index}(ptr %global, ptr %shared, ptr %args, ptr %out) {{"
        );
        let _ = writeln!(
            out,
            "  call void @llvm.memcpy.p3.p0.i64(ptr addrspace(3) align 128 {smem}, ptr align 16 %shared, i64 {REGION_BYTES}, i1 false)"
        );
    } else {
        let _ = writeln!(
            out,
            "define void @atomir_case_w{index}(ptr %global, ptr %shared, ptr %args, ptr %out) {{"
        );
    }
    let mut call = Vec::new();
    let mut results = 0;
    for (i, (ty, pname)) in params.iter().enumerate() {
        if pname.starts_with("%.out") {
            let _ = writeln!(
                out,
                "  %o{i} = getelementptr i8, ptr %out, i64 {}",
                results * RESULT_SLOT
            );
            results += 1;
            let value = cast(out, &format!("%o{i}"), "ptr", ty, &format!("%oc{i}"));
            call.push(format!("{ty} {value}"));
            continue;
        }
        let param = case
            .kernel
            .params
            .get(i)
            .ok_or_else(|| format!("@{name}: parameter {i} is not the kernel's"))?;
        match (&case.args[i], offsets[i]) {
            (Arg::Pointer { region, offset }, _) => {
                let (base, base_ty) = match (region, gpu) {
                    (Region::Shared, true) => (smem.clone(), "ptr addrspace(3)"),
                    (Region::Shared, false) => ("%shared".to_string(), "ptr"),
                    (Region::Global, _) => ("%global".to_string(), "ptr"),
                };
                let _ = writeln!(
                    out,
                    "  %a{i} = getelementptr i8, {base_ty} {base}, i64 {offset}"
                );
                let value = cast(out, &format!("%a{i}"), base_ty, ty, &format!("%ac{i}"));
                call.push(format!("{ty} {value}"));
            }
            (Arg::Pred(_), Some(at)) => {
                let _ = writeln!(out, "  %s{i} = getelementptr i8, ptr %args, i64 {at}");
                let _ = writeln!(out, "  %l{i} = load i8, ptr %s{i}, align 16");
                let _ = writeln!(out, "  %v{i} = trunc i8 %l{i} to i1");
                call.push(format!("i1 %v{i}"));
            }
            (Arg::Data(_), Some(at)) => {
                let _ = writeln!(out, "  %s{i} = getelementptr i8, ptr %args, i64 {at}");
                let _ = writeln!(out, "  %v{i} = load {ty}, ptr %s{i}, align 16");
                call.push(format!("{ty} %v{i}"));
            }
            _ => {
                return Err(format!(
                    "@{name}: parameter {i} ({:?}) has no argument slot",
                    param.ty
                ))
            }
        }
    }
    let callee = if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        format!("@{name}")
    } else {
        format!("@\"{name}\"")
    };
    let _ = writeln!(out, "  call void {callee}({})", call.join(", "));
    if gpu {
        let _ = writeln!(
            out,
            "  call void @llvm.memcpy.p0.p3.i64(ptr align 16 %shared, ptr addrspace(3) align 128 {smem}, i64 {REGION_BYTES}, i1 false)"
        );
    }
    out.push_str("  ret void\n}\n\n");
    Ok(())
}

/// `value` of type `from` as type `to` (an `addrspacecast` where they differ).
fn cast(out: &mut String, value: &str, from: &str, to: &str, name: &str) -> String {
    if from == to {
        return value.to_string();
    }
    let _ = writeln!(out, "  {name} = addrspacecast {from} {value} to {to}");
    name.to_string()
}

/// Our NVPTX module with its kernels made plain functions (called by the wrappers).
pub fn llvm_plain_functions(code: &str) -> String {
    code.replace("define ptx_kernel void ", "define void ")
}

/// The declarations the NVPTX wrappers need.
pub const LLVM_GPU_DECLARATIONS: &str = "\
declare void @llvm.memcpy.p3.p0.i64(ptr addrspace(3), ptr, i64, i1)
declare void @llvm.memcpy.p0.p3.i64(ptr, ptr addrspace(3), i64, i1)
";

/// One `.param` of a PTX `.entry`: its declaration text, name and type. The type is its own
/// field because the name carries digits (`case316_param_16`) that a look at the whole
/// declaration would take for a width.
struct PtxParam {
    decl: String,
    name: String,
    /// The type token without its dot (`b64`, `u8`; `b8` for a byte array).
    ty: String,
    array: bool,
}

/// The parameters of `.entry <name>(…)` in our PTX output.
fn ptx_params(code: &str, name: &str) -> Option<Vec<PtxParam>> {
    let header = format!(".entry {name}(");
    let start = code.find(&header)? + header.len();
    let end = start + code[start..].find(')')?;
    Some(
        code[start..end]
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                let mut tokens = p.split_whitespace().rev();
                let last = tokens.next().unwrap_or(p);
                let name = last.split('[').next().unwrap_or(last).to_string();
                let ty = tokens
                    .next()
                    .unwrap_or("")
                    .trim_start_matches('.')
                    .to_string();
                PtxParam {
                    decl: p.to_string(),
                    name,
                    ty,
                    array: last.contains('['),
                }
            })
            .collect(),
    )
}

/// Our PTX module with every case `.entry` turned into a `.func` the wrappers call. A device
/// function cannot take 8/16-bit (or predicate) parameters in the ABI, so those become 4-byte
/// arrays, which the kernel's `ld.param.u8`/`.b16` read the same way.
pub fn ptx_functions(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut in_params = false;
    for line in code.lines() {
        let mut line = line.replace(".visible .entry ", ".func ");
        if line.starts_with(".func ") {
            in_params = true;
        } else if line.starts_with(')') {
            in_params = false;
        }
        if in_params {
            for narrow in [".param .u8 ", ".param .b16 "] {
                if let Some(at) = line.find(narrow) {
                    let name = line[at + narrow.len()..].trim_end_matches(',').to_string();
                    let comma = if line.ends_with(',') { "," } else { "" };
                    line = format!("{}.param .align 4 .b8 {name}[4]{comma}", &line[..at]);
                }
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// A PTX wrapper `.entry atomir_case_w<index>(global, shared, args, out)` around case kernel
/// `name` of `code` (our `--module` output, made `.func`s by [`ptx_functions`]): copies the
/// shared image into a `.shared` buffer, calls the kernel with every argument (a shared-window
/// address for `ptr.shared`/`ptr.shared_cluster`, a generic one for `ptr.generic`), copies the
/// buffer back.
pub fn ptx_wrapper(case: &Case, code: &str, index: usize, out: &mut String) -> Result<(), String> {
    // Case kernels have plain names (`case<N>`), which PTX spells as they are.
    let name = case.kernel.name.clone();
    let params = ptx_params(code, &name).ok_or_else(|| format!("no .entry {name}"))?;
    let offsets = case.arg_offsets();
    let w = format!("atomir_case_w{index}");
    let _ = writeln!(
        out,
        ".visible .entry {w}(\n\t.param .u64 {w}_global,\n\t.param .u64 {w}_shared,\n\t.param .u64 {w}_args,\n\t.param .u64 {w}_out\n)\n{{"
    );
    out.push_str(
        "\t.reg .b64 %wd<8>;\n\t.reg .b32 %wr<2>;\n\t.reg .b16 %wh<2>;\n\t.reg .pred %wp<1>;\n",
    );
    let _ = writeln!(out, "\t.shared .align 128 .b8 {w}_smem[{REGION_BYTES}];");
    for (i, p) in ["global", "shared", "args", "out"].iter().enumerate() {
        let _ = writeln!(out, "\tld.param.u64 %wd{i}, [{w}_{p}];");
    }
    let _ = writeln!(out, "\tmov.u64 %wd4, {w}_smem;");
    copy_loop(
        out,
        &format!("{w}_in"),
        "ld.u64",
        "%wd1",
        "st.shared.u64",
        "%wd4",
    );
    out.push_str("\t{\n");
    let mut names = Vec::new();
    let mut results = 0;
    for (i, param) in params.iter().enumerate() {
        let slot = format!("{w}_p{i}");
        let narrow = !param.array && matches!(param.ty.as_str(), "u8" | "b16");
        let decl = if narrow {
            format!(".param .align 4 .b8 {slot}[4]")
        } else {
            param.decl.replacen(&param.name, &slot, 1)
        };
        let _ = writeln!(out, "\t{decl};");
        names.push(slot.clone());
        if param.name.contains("_out_") {
            let _ = writeln!(out, "\tadd.u64 %wd5, %wd3, {};", results * RESULT_SLOT);
            let _ = writeln!(out, "\tst.param.u64 [{slot}], %wd5;");
            results += 1;
            continue;
        }
        let kernel_param = case
            .kernel
            .params
            .get(i)
            .ok_or_else(|| format!("{name}: parameter {i} is not the kernel's"))?;
        match (&case.args[i], offsets[i]) {
            (Arg::Pointer { region, offset }, _) => {
                match region {
                    Region::Global => {
                        let _ = writeln!(out, "\tadd.u64 %wd5, %wd0, {offset};");
                    }
                    Region::Shared => {
                        let _ = writeln!(out, "\tadd.u64 %wd5, %wd4, {offset};");
                        if kernel_param.ty == ValueType::Ptr(AddressSpace::Generic) {
                            out.push_str("\tcvta.shared.u64 %wd5, %wd5;\n");
                        }
                    }
                }
                let _ = writeln!(out, "\tst.param.u64 [{slot}], %wd5;");
            }
            (_, Some(at)) => {
                let ty = param.ty.as_str();
                if narrow {
                    let load = if ty == "u8" { "ld.u8" } else { "ld.b16" };
                    let _ = writeln!(
                        out,
                        "\t{load} %wh0, [%wd2+{at}];\n\tcvt.u32.u16 %wr0, %wh0;\n\tst.param.b32 [{slot}], %wr0;"
                    );
                } else if param.array {
                    let (bytes, lanes) = data_layout(kernel_param.ty);
                    for word in (0..bytes * lanes).step_by(4) {
                        let _ = writeln!(
                            out,
                            "\tld.u32 %wr0, [%wd2+{}];\n\tst.param.b32 [{slot}+{word}], %wr0;",
                            at + word
                        );
                    }
                } else if ty.ends_with("16") {
                    let _ = writeln!(
                        out,
                        "\tld.b16 %wh0, [%wd2+{at}];\n\tst.param.b16 [{slot}], %wh0;"
                    );
                } else if ty.ends_with("32") {
                    let kind = if ty == "u32" { "u32" } else { "b32" };
                    let _ = writeln!(
                        out,
                        "\tld.u32 %wr0, [%wd2+{at}];\n\tst.param.{kind} [{slot}], %wr0;"
                    );
                } else {
                    let kind = if ty == "u64" { "u64" } else { "b64" };
                    let _ = writeln!(
                        out,
                        "\tld.u64 %wd5, [%wd2+{at}];\n\tst.param.{kind} [{slot}], %wd5;"
                    );
                }
            }
            _ => return Err(format!("{name}: parameter {i} has no argument slot")),
        }
    }
    let _ = writeln!(out, "\tcall.uni {name}, ({});", names.join(", "));
    out.push_str("\t}\n");
    copy_loop(
        out,
        &format!("{w}_back"),
        "ld.shared.u64",
        "%wd4",
        "st.u64",
        "%wd1",
    );
    out.push_str("\tret;\n}\n\n");
    Ok(())
}

/// A loop copying the region 8 bytes at a time from `[from]` to `[to]` (registers `%wd5`–`%wd7`
/// and `%wp0` as scratch).
fn copy_loop(out: &mut String, label: &str, load: &str, from: &str, store: &str, to: &str) {
    let _ = writeln!(
        out,
        "\tmov.u64 %wd6, 0;\n{label}:\n\tadd.u64 %wd5, {from}, %wd6;\n\t{load} %wd7, [%wd5];\n\
         \tadd.u64 %wd5, {to}, %wd6;\n\t{store} [%wd5], %wd7;\n\tadd.u64 %wd6, %wd6, 8;\n\
         \tsetp.lt.u64 %wp0, %wd6, {REGION_BYTES};\n\t@%wp0 bra {label};"
    );
}

/// Lowers the kernels of `cases` as one complete module for `backend`.
pub fn lower_cases(backend: &dyn Backend, cases: &[Case]) -> Result<String, String> {
    let module = Module {
        kernels: cases.iter().map(|c| c.kernel.clone()).collect(),
    };
    let mut code = String::new();
    let verified = atomir_ir::verify::verify(&module).map_err(|d| d[0].to_string())?;
    backend
        .lower(&verified, &atomir_ir::LowerOptions::module(), &mut code)
        .map_err(|e| e.to_string())?;
    Ok(code)
}

/// A hex string of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn unhex(text: &str) -> Option<Vec<u8>> {
    (0..text.len() / 2)
        .map(|i| u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok())
        .collect()
}

/// The result slots of `case`, as a list of result value names (for messages).
pub fn describe(case: &Case) -> String {
    let mut text = String::new();
    atomir_ir::text::print_kernel(&mut text, &case.kernel);
    for (param, arg) in case.kernel.params.iter().zip(&case.args) {
        let _ = match arg {
            Arg::Pointer { region, offset } => {
                writeln!(
                    text,
                    "  # %{} -> {} +{offset}",
                    case.kernel.value_name(param.value),
                    region.name()
                )
            }
            Arg::Data(lanes) => writeln!(
                text,
                "  # %{} = {}",
                case.kernel.value_name(param.value),
                lanes
                    .iter()
                    .map(|l| format!("{l:#x}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Arg::Pred(holds) => writeln!(
                text,
                "  # %{} = {holds}",
                case.kernel.value_name(param.value)
            ),
        };
    }
    text
}
