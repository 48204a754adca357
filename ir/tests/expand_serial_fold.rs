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

use atomir_ir::interp::{CasSite, Interpreter, Memory};
use atomir_ir::semantics::{apply, FloatMode};
use atomir_ir::{AtomicNode, AtomicOp, ElemType, ElementLowering, Lowering, WarpCombine};
use expand_common::{expand_valid, read_le, XorShift};
use warp_common::{
    assert_relaxed_only, lane_inputs, lane_slots, relaxed, value, BASE, MEMORY_BYTES,
};

/// The lowering proved here.
fn serial_fold() -> Lowering {
    Lowering::whole(ElementLowering::CasLoop)
        .with_warp(WarpCombine::SerialFold)
        .unwrap()
}

/// One warp run; returns (CAS attempts, lanes).
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
    let attempts = LockstepWarp {
        inst,
        slot_of: &slot_of,
        memory_bytes,
        interfere,
    }
    .check(interp, &expansion, rng);
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
    // At most one first attempt per lane; the fold's attempts beyond those are few.
    assert!(
        attempts.saturating_sub(lanes) * 4 < lanes,
        "{attempts} CAS attempts for {lanes} lanes"
    );
}

/// Relaxed only: the validator refuses the warp primitives in any other order.
#[test]
fn serial_folds_are_relaxed_only() {
    assert_relaxed_only(AtomicOp::Add, &[ElemType::F16, ElemType::U8], serial_fold());
}

/// One warp in lockstep on memory of random values, with its expected linearization.
struct LockstepWarp<'a> {
    inst: &'a AtomicNode,
    /// Each lane's slot (an element of the node's type) in the memory.
    slot_of: &'a [usize],
    memory_bytes: usize,
    /// Whether another thread stores a random value where the warp's first CAS acts, once.
    interfere: bool,
}

impl LockstepWarp<'_> {
    /// Runs the warp and checks each lane's old value (where the result is used) and the final
    /// memory against [`LockstepWarp::expected`]. Returns the warp's CAS attempts.
    fn check(
        &self,
        interp: &mut Interpreter,
        expansion: &atomir_ir::expand::Expansion,
        rng: &mut XorShift,
    ) -> u32 {
        let inst = self.inst;
        let bytes = inst.ty.bytes() as usize;
        let operands: Vec<[u128; 1]> = (0..self.slot_of.len())
            .map(|_| [value(rng, inst.ty, 2)])
            .collect();
        let mut memory = Memory::new(BASE, self.memory_bytes);
        for slot in 0..self.memory_bytes / bytes {
            let initial = value(rng, inst.ty, 2);
            memory
                .write(BASE + (slot * bytes) as u64, inst.ty.bytes(), initial)
                .unwrap();
        }
        let initial = memory.bytes().to_vec();
        let inputs = lane_inputs(self.slot_of, &operands, bytes);
        let mut store: Option<(CasSite, u128)> = None;
        let mut other_thread = |memory: &mut Memory, site: CasSite| {
            if self.interfere && store.is_none() {
                let stored = u128::from(rng.next());
                memory.write(site.addr, site.bytes, stored).unwrap();
                store = Some((site, stored));
            }
        };
        let outcomes = interp
            .run_warp(expansion, &mut memory, &inputs, &mut other_thread)
            .unwrap_or_else(|error| panic!("{} {}: {error}\n{expansion}", inst.op, inst.ty));
        let (olds, last) = self.expected(&initial, &operands, store);
        let context = || {
            format!(
                "{} {}: slots {:?}, operands {operands:x?}, initial {initial:x?}, store {:?}",
                inst.op,
                inst.ty,
                self.slot_of,
                store.map(|(site, stored)| (site.addr, stored))
            )
        };
        if inst.result_used() {
            for (lane, outcome) in outcomes.iter().enumerate() {
                assert_eq!(outcome.results[0], olds[lane], "lane {lane}: {}", context());
            }
        }
        assert_eq!(memory.bytes(), &last[..], "final memory: {}", context());
        outcomes.iter().map(|outcome| outcome.cas_attempts).sum()
    }

    /// Each lane's old value and the final memory of the lockstep linearization (module doc),
    /// from `initial` memory, with `store` the other thread's store before the first CAS.
    fn expected(
        &self,
        initial: &[u8],
        operands: &[[u128; 1]],
        store: Option<(CasSite, u128)>,
    ) -> (Vec<u128>, Vec<u8>) {
        let inst = self.inst;
        let bytes = inst.ty.bytes() as usize;
        let unit_bytes = bytes.max(4);
        let mut memory = initial.to_vec();
        let at = |slot: usize| slot * bytes;
        let unit_of = |slot: usize| at(slot) / unit_bytes * unit_bytes;
        let read = |memory: &[u8], slot: usize| read_le(&memory[at(slot)..at(slot) + bytes]);
        let write = |memory: &mut Vec<u8>, slot: usize, value: u128| {
            memory[at(slot)..at(slot) + bytes].copy_from_slice(&value.to_le_bytes()[..bytes]);
        };
        let step = |old: u128, lane: usize| {
            apply(inst.op, inst.ty, old, operands[lane][0], 0, FloatMode::Ieee)
        };
        let lanes = self.slot_of.len();
        let mut olds = vec![0u128; lanes];
        // Every lane loads before any CAS: each reads its element as the memory starts.
        let changes: Vec<bool> = (0..lanes)
            .map(|lane| {
                let old = read(initial, self.slot_of[lane]);
                olds[lane] = old;
                step(old, lane) != old
            })
            .collect();
        // The first CASes, in lane order; the other thread stores before the first of them.
        let mut failed = Vec::new();
        let mut stored = false;
        for lane in (0..lanes).filter(|&lane| changes[lane]) {
            let slot = self.slot_of[lane];
            let unit = unit_of(slot);
            if let (Some((site, value)), false) = (store, stored) {
                let start = (site.addr - BASE) as usize;
                let width = site.bytes as usize;
                memory[start..start + width].copy_from_slice(&value.to_le_bytes()[..width]);
                stored = true;
            }
            if memory[unit..unit + unit_bytes] == initial[unit..unit + unit_bytes] {
                write(&mut memory, slot, step(olds[lane], lane));
            } else {
                failed.push(lane);
            }
        }
        // The lanes whose CAS failed, one after another in lane order.
        for lane in failed {
            let slot = self.slot_of[lane];
            olds[lane] = read(&memory, slot);
            write(&mut memory, slot, step(olds[lane], lane));
        }
        (olds, memory)
    }
}
