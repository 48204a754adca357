//! Shared harness of the expansion proofs: builds a node, expands it, validates the expansion,
//! runs it in the interpreter against a memory with random surroundings, and checks results and
//! memory against `semantics::apply`.

#![allow(dead_code)]

use atomir_ir::expand::{expand, Expansion};
use atomir_ir::interp::{CasSite, Inputs, Interpreter, Memory};
use atomir_ir::semantics::{self, width_mask, FloatMode};
use atomir_ir::{
    AddressSpace, AtomicNode, AtomicOp, CacheHint, ElemType, ElementLowering, Lowering,
    MemoryOrder, Scope, VectorShape,
};

/// Where the test memory starts; the node's word lies `WORD_OFFSET` bytes in, with guard bytes
/// on both sides.
pub const BASE: u64 = 0x1000;
pub const WORD_OFFSET: u64 = 16;
pub const MEMORY_BYTES: usize = 96;

/// A node with non-default order, scope, space and hint, so the validator has something to
/// check that an expansion kept.
pub fn node(op: AtomicOp, ty: ElemType, shape: VectorShape, result_used: bool) -> AtomicNode {
    AtomicNode {
        shape,
        order: match (op as usize) % 4 {
            0 => MemoryOrder::AcqRel,
            1 => MemoryOrder::SeqCst,
            2 => MemoryOrder::Acquire,
            _ => MemoryOrder::Release,
        },
        scope: Scope::System,
        space: AddressSpace::Global,
        pointer_space: AddressSpace::Global,
        hint: Some(CacheHint::EvictLast),
        result_used,
        ..AtomicNode::new(op, ty)
    }
}

/// Every lowering an element of `op` on `ty` can be given: native, a CAS loop, and for an
/// unpacked 8/16-bit element the masked ones and the element's CAS that turns into the masked
/// loop (a load also by its containing word).
pub fn element_lowerings(op: AtomicOp, ty: ElemType) -> Vec<ElementLowering> {
    let mut list = vec![ElementLowering::Native, ElementLowering::CasLoop];
    if ty.bits() <= 16 && !ty.is_packed() {
        list.push(ElementLowering::MaskedCasLoop);
        list.push(ElementLowering::CasThenMaskedLoop);
        list.push(ElementLowering::masked(op));
        if op == AtomicOp::Load {
            list.push(ElementLowering::MaskedOp);
        }
    }
    list
}

/// Expands and validates; a validation failure is a test failure naming the expansion.
pub fn expand_valid(inst: &AtomicNode, lowering: impl Into<Lowering>) -> Expansion {
    let lowering = lowering.into();
    let expansion = expand(inst, lowering);
    if let Err(error) = expansion.validate(inst) {
        panic!(
            "{} {} by {lowering:?}: invalid expansion: {error}\n{expansion}",
            inst.op, inst.ty
        );
    }
    expansion
}

/// A small deterministic generator for surroundings and interference.
#[derive(Clone)]
pub struct XorShift(pub u64);

impl XorShift {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    pub fn fill(&mut self, bytes: &mut [u8]) {
        for chunk in bytes.chunks_mut(8) {
            let word = self.next().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
    }
}

pub fn read_le(bytes: &[u8]) -> u128 {
    bytes
        .iter()
        .rev()
        .fold(0, |value, &byte| (value << 8) | u128::from(byte))
}

pub fn write_le(bytes: &mut [u8], value: u128) {
    for (index, byte) in bytes.iter_mut().enumerate() {
        *byte = (value >> (8 * index)) as u8;
    }
}

/// One run of a node's expansion and what it must produce.
pub struct Case<'a> {
    pub inst: &'a AtomicNode,
    pub expansion: &'a Expansion,
    /// Byte offset of the node's first element from `BASE + WORD_OFFSET`.
    pub offset: u64,
    /// Old value, operand and new value of each element.
    pub old: &'a [u128],
    pub operands: &'a [u128],
    pub new_values: &'a [u128],
    /// Seed of the surrounding bytes.
    pub seed: u64,
    /// How many `Cas` executions another thread disturbs (each changes memory).
    pub interference: u32,
}

/// What a checked run did besides being right.
#[derive(Clone, Copy, Debug)]
pub struct Checked {
    /// `Cas` executions (a relaxed or acquire loop runs none when nothing changes).
    pub cas_attempts: u32,
    /// `Cas` executions that did not store (retries of a loop).
    pub cas_failures: u32,
    /// Disturbances the simulated other thread made (each changed memory just before a `Cas`).
    pub interfered: u32,
}

/// Runs `case` and checks it against the reference semantics: each result is the element's
/// value as its last CAS saw it, and memory is that value with `op` applied, every other byte
/// as the other thread left it. The other thread changes every byte of the CAS's range (the
/// first byte surely) before each of the first `case.interference` CASes.
pub fn check(interp: &mut Interpreter, memory: &mut Memory, case: &Case<'_>) -> Checked {
    let mut remaining = case.interference;
    check_with(interp, memory, case, |site: CasSite| {
        if remaining == 0 {
            return Vec::new();
        }
        remaining -= 1;
        let lo = (site.addr - BASE) as usize;
        (lo..lo + site.bytes as usize).collect()
    })
}

/// [`check`], the other thread changing before each CAS the bytes `disturb` names (offsets into
/// the memory; the first surely, the others at random; none where it names none): any bytes,
/// inside the CAS's range or not. `case.interference` is not read.
pub fn check_with(
    interp: &mut Interpreter,
    memory: &mut Memory,
    case: &Case<'_>,
    mut disturb: impl FnMut(CasSite) -> Vec<usize>,
) -> Checked {
    let inst = case.inst;
    let ty = inst.ty;
    let size = ty.bytes() as usize;
    let mut rng = XorShift(case.seed | 1);
    rng.fill(memory.bytes_mut());
    let start = (WORD_OFFSET + case.offset) as usize;
    let element_ranges: Vec<std::ops::Range<usize>> = (0..case.old.len())
        .map(|i| start + i * size..start + (i + 1) * size)
        .collect();
    for (range, &old) in element_ranges.iter().zip(case.old) {
        write_le(&mut memory.bytes_mut()[range.clone()], old);
    }

    // The memory as the interference leaves it: what each element's final CAS sees.
    let mut model = memory.bytes().to_vec();
    let mut flips = rng.clone();
    let mut applied = 0u32;
    let mut interfere = |memory: &mut Memory, site: CasSite| {
        // Another thread may write any byte, this node's elements included: the elements a CAS
        // covers are the ones it carries out (8/16-bit elements sharing a word share its loop),
        // so none of them is done or not yet started while it runs, and the final CAS of each
        // sees what the model holds.
        let mut changed = false;
        for byte in disturb(site) {
            let flip = (flips.next() as u8) | u8::from(!changed);
            memory.bytes_mut()[byte] ^= flip;
            model[byte] ^= flip;
            changed = true;
        }
        applied += u32::from(changed);
    };
    let inputs = Inputs {
        addr: BASE + WORD_OFFSET + case.offset,
        operands: case.operands,
        new_values: case.new_values,
    };
    let outcome = interp
        .run_with(case.expansion, memory, inputs, &mut interfere)
        .unwrap_or_else(|error| panic!("{} {}: {error}\n{}", inst.op, ty, case.expansion));
    let interfered = applied;

    let mut expected = model.clone();
    let mut expected_results = Vec::new();
    for (index, range) in element_ranges.iter().enumerate() {
        let seen = read_le(&model[range.clone()]);
        let new_value = case.new_values.get(index).copied().unwrap_or(0);
        let new = semantics::apply(
            inst.op,
            ty,
            seen,
            case.operands[index],
            new_value,
            FloatMode::Ieee,
        );
        write_le(&mut expected[range.clone()], new);
        expected_results.push(seen);
    }
    let describe = || {
        format!(
            "{} {} offset {} old {:x?} operands {:x?} new {:x?} interference {}",
            inst.op, ty, case.offset, case.old, case.operands, case.new_values, case.interference
        )
    };
    if inst.result_used() {
        assert_eq!(
            outcome.results.as_slice(),
            expected_results.as_slice(),
            "results of {}",
            describe()
        );
    } else {
        assert!(outcome.results.is_empty(), "{}", describe());
    }
    assert_eq!(
        memory.bytes(),
        expected.as_slice(),
        "memory after {}",
        describe()
    );
    Checked {
        cas_attempts: outcome.cas_attempts,
        cas_failures: outcome.cas_failures,
        interfered,
    }
}

/// Values worth testing for a type: edges of the integer range and float classes, per lane for
/// packed types.
pub fn specials(ty: ElemType) -> Vec<u128> {
    let bits = ty.bits();
    let mask = width_mask(bits);
    let lane = ty.lane_type();
    let lane_values: Vec<u128> = match lane {
        ElemType::F16 => vec![
            0, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe01, 1, 0x8001, 0x03ff,
            0x0400, 0x7bff, 0xfbff, 0x3555,
        ],
        ElemType::Bf16 => vec![
            0, 0x8000, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffc1, 1, 0x8001, 0x007f,
            0x0080, 0x7f7f, 0xff7f, 0x3eab,
        ],
        ElemType::F32 => vec![
            0,
            0x8000_0000,
            0x3f80_0000,
            0xbf80_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x7f80_0001,
            0xffc0_0001,
            1,
            0x8000_0001,
            0x007f_ffff,
            0x0080_0000,
            0x7f7f_ffff,
            0xff7f_ffff,
            0x3eaa_aaab,
        ],
        ElemType::F64 => vec![
            0,
            1 << 63,
            0x3ff0 << 48,
            0xbff0 << 48,
            0x7ff0 << 48,
            0xfff0 << 48,
            0x7ff8 << 48,
            (0x7ff0 << 48) | 1,
            (0xfff8 << 48) | 1,
            1,
            (1 << 63) | 1,
            (1 << 52) - 1,
            1 << 52,
            0x7fef_ffff_ffff_ffff,
            0xffef_ffff_ffff_ffff,
            0x3fd5_5555_5555_5555,
        ],
        _ => vec![
            0,
            1,
            2,
            mask,
            mask - 1,
            mask >> 1,
            (mask >> 1) + 1,
            (mask >> 1) - 1,
            0x5555_5555_5555_5555_5555_5555_5555_5555 & mask,
        ],
    };
    if ty.is_packed() {
        let mut values = Vec::new();
        for &lo in &lane_values {
            for &hi in lane_values.iter().step_by(3) {
                values.push(hi << 16 | lo);
            }
        }
        values
    } else {
        lane_values
    }
}

/// Every op `ty` supports.
pub fn supported_ops(ty: ElemType) -> Vec<AtomicOp> {
    AtomicOp::ALL
        .iter()
        .copied()
        .filter(|op| ty.supports(*op))
        .collect()
}
