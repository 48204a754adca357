//! Proof of the serial fold (`WarpSerialFold`) on the interpreter's model of a warp
//! (`Interpreter::run_warp`): relaxed f16 and bf16 add and sub, 8/16-bit integer add, sub, min,
//! max and exch, and f32 add, the result used and unused, warps of 1 to 32 lanes on a few
//! locations (sometimes one for the whole warp; 8/16-bit locations share 32-bit words, whose
//! lanes form one group), operands and memory drawn from every float class (NaNs with
//! payloads, signed zeros, infinities, subnormals, the largest finite values) and at random,
//! with and without another thread storing to the CAS's location between the group's first
//! read and its CAS. Each lane's old value and the final memory must be those of the
//! operations on each location applied consecutively in lane order (`semantics::apply` is each
//! step), from the value the group's successful CAS replaced; and the groups must make far
//! fewer CAS attempts than lanes.

mod expand_common;

use atomir_ir::expand::{expand, Prim};
use atomir_ir::interp::{CasSite, Inputs, Interpreter, Memory};
use atomir_ir::semantics::{apply, width_mask, FloatMode};
use atomir_ir::{
    AtomicNode, AtomicOp, ElemType, ElementLowering, Lowering, MemoryOrder, VectorShape,
    WarpCombine,
};
use expand_common::{node, read_le, specials, XorShift};

const BASE: u64 = 0x4000;
/// Two 32-bit words (four for 64-bit elements).
const MEMORY_BYTES: usize = 8;

fn relaxed(op: AtomicOp, ty: ElemType, result_used: bool) -> AtomicNode {
    AtomicNode {
        order: MemoryOrder::Relaxed,
        ..node(op, ty, VectorShape::Scalar, result_used)
    }
}

fn value(rng: &mut XorShift, ty: ElemType) -> u128 {
    let special = specials(ty);
    let bits = if rng.next().is_multiple_of(2) {
        special[rng.next() as usize % special.len()]
    } else if rng.next().is_multiple_of(3) {
        u128::from(rng.next() % 4)
    } else {
        u128::from(rng.next())
    };
    bits & width_mask(ty.bits())
}

/// One warp run; returns (CAS attempts, lanes).
fn check_warp(
    interp: &mut Interpreter,
    inst: &AtomicNode,
    rng: &mut XorShift,
    interfere: bool,
) -> (u32, usize) {
    let expansion = expand(
        inst,
        Lowering::whole(ElementLowering::CasLoop)
            .with_warp(WarpCombine::SerialFold)
            .unwrap(),
    );
    expansion
        .validate(inst)
        .unwrap_or_else(|error| panic!("{} {}: {error}\n{expansion}", inst.op, inst.ty));
    let bytes = inst.ty.bytes() as usize;
    let memory_bytes = MEMORY_BYTES.max(2 * bytes);
    let slots = memory_bytes / bytes;
    let lanes = 1 + rng.next() as usize % 32;
    // Few locations, so that groups are large: one for the whole warp where another thread
    // interferes (so that its store comes before the one group's CAS) and now and then besides.
    let used = if interfere || rng.next().is_multiple_of(3) {
        1
    } else {
        1 + rng.next() as usize % slots
    };
    let first = rng.next() as usize % (slots - used + 1);
    let slot_of: Vec<usize> = (0..lanes)
        .map(|_| first + rng.next() as usize % used)
        .collect();
    let operands: Vec<[u128; 1]> = (0..lanes).map(|_| [value(rng, inst.ty)]).collect();
    let mut memory = Memory::new(BASE, memory_bytes);
    for slot in 0..slots {
        let at = BASE + (slot * bytes) as u64;
        memory
            .write(at, inst.ty.bytes(), value(rng, inst.ty))
            .unwrap();
    }
    let initial = memory.bytes().to_vec();
    let inputs: Vec<Inputs<'_>> = (0..lanes)
        .map(|lane| Inputs {
            addr: BASE + (slot_of[lane] * bytes) as u64,
            operands: &operands[lane],
            new_values: &[],
        })
        .collect();
    let mut after_store = initial.clone();
    let mut stored = false;
    let mut other_thread = |memory: &mut Memory, site: CasSite| {
        if interfere && !stored {
            memory
                .write(site.addr, site.bytes, u128::from(rng.next()))
                .unwrap();
            after_store.copy_from_slice(memory.bytes());
            stored = true;
        }
    };
    let outcomes = interp
        .run_warp(&expansion, &mut memory, &inputs, &mut other_thread)
        .unwrap_or_else(|error| panic!("{} {}: {error}\n{expansion}", inst.op, inst.ty));
    // Where another thread stored, each location's chain starts from what the store left.
    let start_bytes = if stored { &after_store } else { &initial };
    let read = |bytes_of: &[u8], slot: usize| read_le(&bytes_of[slot * bytes..(slot + 1) * bytes]);
    let step = |old: u128, operand: u128| apply(inst.op, inst.ty, old, operand, 0, FloatMode::Ieee);
    for slot in 0..slots {
        let group: Vec<usize> = (0..lanes).filter(|&lane| slot_of[lane] == slot).collect();
        let start = read(start_bytes, slot);
        let mut expected = start;
        for &lane in &group {
            if inst.result_used() {
                assert_eq!(
                    outcomes[lane].results[0], expected,
                    "{} {} slot {slot} lane {lane}: old value out of lane order (group {group:?}, \
                     operands {:x?}, start {start:#x})",
                    inst.op, inst.ty, operands
                );
            }
            expected = step(expected, operands[lane][0]);
        }
        assert_eq!(
            read(memory.bytes(), slot),
            expected,
            "{} {} slot {slot}: final value (group {group:?}, operands {:x?}, start {start:#x})",
            inst.op,
            inst.ty,
            operands
        );
    }
    let attempts = outcomes.iter().map(|outcome| outcome.cas_attempts).sum();
    (attempts, lanes)
}

fn cases() -> Vec<(AtomicOp, ElemType)> {
    let mut cases = Vec::new();
    for ty in [ElemType::F16, ElemType::Bf16, ElemType::F32] {
        cases.extend([(AtomicOp::Add, ty), (AtomicOp::Sub, ty)]);
    }
    for ty in [ElemType::U8, ElemType::S8, ElemType::U16, ElemType::S16] {
        for op in [
            AtomicOp::Add,
            AtomicOp::Sub,
            AtomicOp::Min,
            AtomicOp::Max,
            AtomicOp::Exch,
        ] {
            cases.push((op, ty));
        }
    }
    cases
}

#[test]
fn serial_folds_are_the_lane_order_linearization_bit_for_bit() {
    let mut interp = Interpreter::new();
    let mut rng = XorShift(0x5e7a_1f01);
    let (mut attempts, mut lanes) = (0u64, 0u64);
    let mut warps = 0;
    for (op, ty) in cases() {
        for result_used in [true, false] {
            let inst = relaxed(op, ty, result_used);
            for trial in 0..200 {
                let (made, ran) = check_warp(&mut interp, &inst, &mut rng, trial % 5 == 4);
                attempts += u64::from(made);
                lanes += ran as u64;
                warps += 1;
            }
        }
    }
    assert_eq!(warps, cases().len() * 2 * 200);
    assert!(
        attempts * 4 < lanes,
        "{attempts} CAS attempts for {lanes} lanes"
    );
}

/// Relaxed only: the validator refuses the warp primitives in any other order.
#[test]
fn serial_folds_are_relaxed_only() {
    for order in [
        MemoryOrder::Acquire,
        MemoryOrder::Release,
        MemoryOrder::AcqRel,
        MemoryOrder::SeqCst,
    ] {
        for ty in [ElemType::F16, ElemType::U8] {
            let inst = AtomicNode {
                order,
                ..relaxed(AtomicOp::Add, ty, true)
            };
            let expansion = expand(
                &inst,
                Lowering::whole(ElementLowering::CasLoop)
                    .with_warp(WarpCombine::SerialFold)
                    .unwrap(),
            );
            assert!(expansion
                .blocks
                .values()
                .any(|block| block.prims.iter().any(Prim::is_warp)));
            let error = expansion.validate(&inst).unwrap_err();
            assert!(error.contains("only a relaxed atomic"), "{order}: {error}");
        }
    }
}
