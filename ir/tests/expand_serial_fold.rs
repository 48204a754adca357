//! Proof of the serial fold (`Lowering::WarpSerialFold`) on the interpreter's model of a warp
//! (`Interpreter::run_warp`): relaxed f16 and bf16 add and sub, the result used and unused,
//! warps of 1 to 32 lanes on a few locations (sometimes one for the whole warp), operands and
//! memory drawn from every float class (NaNs with payloads, signed zeros, infinities,
//! subnormals, the largest finite values) and at random, with and without another thread
//! storing to a location between the group's first read and its CAS. Each lane's old value
//! and the final memory must be those of the group's operations applied consecutively in lane
//! order (`semantics::apply` is each step), starting from the value the group's successful CAS
//! replaced; and the group must make far fewer CAS attempts than lanes.

mod expand_common;

use atomir_ir::expand::{expand, Prim};
use atomir_ir::interp::{CasSite, Inputs, Interpreter, Memory};
use atomir_ir::semantics::{apply, FloatMode};
use atomir_ir::{AtomicNode, AtomicOp, ElemType, Lowering, MemoryOrder, VectorShape};
use expand_common::{node, specials, XorShift};

const BASE: u64 = 0x4000;
const SLOTS: usize = 4;

fn relaxed(op: AtomicOp, ty: ElemType, result_used: bool) -> AtomicNode {
    AtomicNode {
        order: MemoryOrder::Relaxed,
        ..node(op, ty, VectorShape::Scalar, result_used)
    }
}

fn value(rng: &mut XorShift, ty: ElemType) -> u128 {
    let special = specials(ty);
    if rng.next().is_multiple_of(2) {
        special[rng.next() as usize % special.len()]
    } else {
        u128::from(rng.next() as u16)
    }
}

/// One warp run; returns (CAS attempts, lanes).
fn check_warp(
    interp: &mut Interpreter,
    inst: &AtomicNode,
    rng: &mut XorShift,
    interfere: bool,
) -> (u32, usize) {
    let expansion = expand(inst, Lowering::WarpSerialFold);
    expansion
        .validate(inst)
        .unwrap_or_else(|error| panic!("{} {}: {error}\n{expansion}", inst.op, inst.ty));
    let lanes = 1 + rng.next() as usize % 32;
    let used_slots = if interfere || rng.next().is_multiple_of(3) {
        1
    } else {
        1 + rng.next() as usize % SLOTS
    };
    let slot_of: Vec<usize> = (0..lanes)
        .map(|_| rng.next() as usize % used_slots)
        .collect();
    let operands: Vec<[u128; 1]> = (0..lanes).map(|_| [value(rng, inst.ty)]).collect();
    let mut memory = Memory::new(BASE, 2 * SLOTS);
    for slot in 0..SLOTS {
        memory
            .write(BASE + 2 * slot as u64, 2, value(rng, inst.ty))
            .unwrap();
    }
    let initial = memory.bytes().to_vec();
    let inputs: Vec<Inputs<'_>> = (0..lanes)
        .map(|lane| Inputs {
            addr: BASE + 2 * slot_of[lane] as u64,
            operands: &operands[lane],
            new_values: &[],
        })
        .collect();
    let stored = value(rng, inst.ty);
    let mut disturbed = None;
    let mut other_thread = |memory: &mut Memory, site: CasSite| {
        if interfere && disturbed.is_none() {
            memory.write(site.addr, site.bytes, stored).unwrap();
            disturbed = Some(site.addr);
        }
    };
    let outcomes = interp
        .run_warp(&expansion, &mut memory, &inputs, &mut other_thread)
        .unwrap_or_else(|error| panic!("{} {}: {error}\n{expansion}", inst.op, inst.ty));
    let read = |bytes: &[u8], slot: usize| {
        u128::from(u16::from_le_bytes([bytes[2 * slot], bytes[2 * slot + 1]]))
    };
    let step = |old: u128, operand: u128| apply(inst.op, inst.ty, old, operand, 0, FloatMode::Ieee);
    for slot in 0..SLOTS {
        let group: Vec<usize> = (0..lanes).filter(|&lane| slot_of[lane] == slot).collect();
        let final_value = read(memory.bytes(), slot);
        let was_disturbed = disturbed == Some(BASE + 2 * slot as u64);
        if group.is_empty() {
            assert_eq!(final_value, read(&initial, slot), "untouched slot {slot}");
            continue;
        }
        // The chain starts from what the successful CAS replaced: the initial value, or the
        // other thread's store where it came first.
        let start = if was_disturbed {
            stored
        } else {
            read(&initial, slot)
        };
        let mut expected = start;
        for &lane in &group {
            if inst.result_used() {
                assert_eq!(
                    outcomes[lane].results[0], expected,
                    "{} {} slot {slot} lane {lane}: old value out of lane order (group {group:?}, operands {:x?}, start {start:#x})",
                    inst.op, inst.ty, operands
                );
            }
            expected = step(expected, operands[lane][0]);
        }
        assert_eq!(
            final_value, expected,
            "{} {} slot {slot}: final value (group {group:?}, operands {:x?}, start {start:#x})",
            inst.op, inst.ty, operands
        );
    }
    (
        outcomes.iter().map(|outcome| outcome.cas_attempts).sum(),
        lanes,
    )
}

#[test]
fn serial_folds_are_the_lane_order_linearization_bit_for_bit() {
    let mut interp = Interpreter::new();
    let mut rng = XorShift(0x5e7a_1f01);
    let (mut attempts, mut lanes) = (0u64, 0u64);
    let mut warps = 0;
    for ty in [ElemType::F16, ElemType::Bf16] {
        for op in [AtomicOp::Add, AtomicOp::Sub] {
            for result_used in [true, false] {
                let inst = relaxed(op, ty, result_used);
                for trial in 0..300 {
                    let (made, ran) = check_warp(&mut interp, &inst, &mut rng, trial % 5 == 4);
                    attempts += u64::from(made);
                    lanes += ran as u64;
                    warps += 1;
                }
            }
        }
    }
    assert_eq!(warps, 2 * 2 * 2 * 300);
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
        let inst = AtomicNode {
            order,
            ..relaxed(AtomicOp::Add, ElemType::F16, true)
        };
        let expansion = expand(&inst, Lowering::WarpSerialFold);
        assert!(expansion
            .blocks
            .values()
            .any(|block| block.prims.iter().any(Prim::is_warp)));
        let error = expansion.validate(&inst).unwrap_err();
        assert!(error.contains("only a relaxed atomic"), "{order}: {error}");
    }
}
