//! Proof of the serial fold (`WarpSerialFold`) on the interpreter's model of a warp
//! (`Interpreter::run_warp`): relaxed f16 and bf16 add and sub, 8/16-bit integer add, sub, min,
//! max and exch, and f32 add, the result used and unused, warps of 1 to 32 lanes on a few
//! locations (sometimes one for the whole warp; 8/16-bit locations share 32-bit words, whose
//! lanes form one group), operands and memory drawn from every float class (NaNs with
//! payloads, signed zeros, infinities, subnormals, the largest finite values) and at random,
//! with and without another thread storing to the location of the warp's first CAS.
//!
//! Each lane first makes one attempt of its own; only the lanes whose CAS failed fold. The
//! lanes run in lockstep (`Interpreter::lockstep`: every lane loads before any lane CASes), so
//! that first attempts collide and the fold runs. The linearization every lane's old value and
//! the final memory must match, computed here from the reference semantics (`semantics::apply`
//! is each step): on each CAS unit (the element, or the 32-bit word of an 8/16-bit element), the
//! lanes whose operation leaves the loaded unit as it is read it first; then, in lane order, the
//! first lane whose CAS finds the unit as loaded (none after another thread's store there)
//! applies its operation; then the lanes whose CAS failed, consecutively in lane order. And the
//! fold must make far fewer CAS attempts than lanes.

mod expand_common;
mod warp_common;

use atomir_ir::interp::Interpreter;
use atomir_ir::{AtomicNode, AtomicOp, ElemType, ElementLowering, Lowering, WarpCombine};
use expand_common::{expand_valid, XorShift};
use warp_common::{assert_relaxed_only, lane_slots, relaxed, LockstepWarp, MEMORY_BYTES};

/// The lowering proved here.
fn serial_fold() -> Lowering {
    Lowering::whole(ElementLowering::CasLoop)
        .with_warp(WarpCombine::SerialFold)
        .unwrap()
}

/// One warp run; returns (CAS attempts beyond the lanes' own first attempts, lanes).
fn check_warp(
    interp: &mut Interpreter,
    inst: &AtomicNode,
    rng: &mut XorShift,
    interfere: bool,
) -> (u32, usize) {
    let expansion = expand_valid(inst, serial_fold());
    let bytes = inst.ty.bytes() as usize;
    // Two 32-bit words, or two elements of 64 bits.
    let memory_bytes = MEMORY_BYTES.max(2 * bytes);
    let lanes = 1 + rng.next() as usize % 32;
    // Few locations, so that groups are large: one for the whole warp where another thread
    // interferes (so that its store comes before the one group's CAS) and now and then besides.
    let (_, slot_of) = lane_slots(rng, lanes, memory_bytes / bytes, interfere, 3);
    let (attempts, first_attempts) = LockstepWarp {
        inst,
        slot_of: &slot_of,
        memory_bytes,
        interfere,
        own_first_attempt: true,
    }
    .check(interp, &expansion, rng);
    let attempts = attempts - first_attempts;
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
fn serial_folds_are_the_lockstep_linearization_bit_for_bit() {
    let mut interp = Interpreter::new();
    interp.lockstep = true;
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
    // Beyond each lane's own first attempt, the fold's attempts are few.
    assert!(
        attempts * 4 < lanes,
        "{attempts} CAS attempts for {lanes} lanes"
    );
}

/// Relaxed only: the validator refuses the warp primitives in any other order.
#[test]
fn serial_folds_are_relaxed_only() {
    assert_relaxed_only(AtomicOp::Add, &[ElemType::F16, ElemType::U8], serial_fold());
}
