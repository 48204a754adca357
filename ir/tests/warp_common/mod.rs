//! Shared driver of the warp-model proofs (`Interpreter::run_warp`): relaxed nodes, lane
//! layouts and inputs, a warp run against a memory of random slots with or without another
//! thread's store, the lane-order linearization every lane's old value and every slot's final
//! value must match, and the check that a warp lowering is relaxed only.

#![allow(dead_code)]

use atomir_ir::expand::{expand, Expansion, Prim};
use atomir_ir::interp::{CasSite, Inputs, Interpreter, Memory, Outcome};
use atomir_ir::semantics::{apply, width_mask, FloatMode};
use atomir_ir::{AtomicNode, AtomicOp, ElemType, Lowering, MemoryOrder, VectorShape};

use crate::expand_common::{node, read_le, specials, XorShift};

/// Where a warp's memory starts.
pub const BASE: u64 = 0x4000;
/// Two 32-bit words: the locations of a warp lie in both, several in each.
pub const MEMORY_BYTES: usize = 8;

/// The node of `op` on a scalar `ty`, relaxed (the only order a warp lowering is for).
pub fn relaxed(op: AtomicOp, ty: ElemType, result_used: bool) -> AtomicNode {
    AtomicNode {
        order: MemoryOrder::Relaxed,
        ..node(op, ty, VectorShape::Scalar, result_used)
    }
}

/// A value of `ty`: one of its special values one time in `special_one_in`, else a small one
/// (0 to 3) one time in three, else random bits.
pub fn value(rng: &mut XorShift, ty: ElemType, special_one_in: u64) -> u128 {
    let special = specials(ty);
    let bits = if rng.next().is_multiple_of(special_one_in) {
        special[rng.next() as usize % special.len()]
    } else if rng.next().is_multiple_of(3) {
        u128::from(rng.next() % 4)
    } else {
        u128::from(rng.next())
    };
    bits & width_mask(ty.bits())
}

/// The slot each of `lanes` lanes acts on among `slots`: all on one where `interfere` asks, or
/// (one warp in `one_in`) by chance, else on a random run of slots. Returns the run's length
/// and each lane's slot.
pub fn lane_slots(
    rng: &mut XorShift,
    lanes: usize,
    slots: usize,
    interfere: bool,
    one_in: u64,
) -> (usize, Vec<usize>) {
    let used_slots = if interfere || rng.next().is_multiple_of(one_in) {
        1
    } else {
        1 + (rng.next() as usize % slots)
    };
    let first_slot = rng.next() as usize % (slots - used_slots + 1);
    let slot_of = (0..lanes)
        .map(|_| first_slot + rng.next() as usize % used_slots)
        .collect();
    (used_slots, slot_of)
}

/// Each lane's inputs: the address of its slot (of `bytes` each) and its one operand.
pub fn lane_inputs<'a>(
    slot_of: &[usize],
    operands: &'a [[u128; 1]],
    bytes: usize,
) -> Vec<Inputs<'a>> {
    slot_of
        .iter()
        .zip(operands)
        .map(|(&slot, operands)| Inputs {
            addr: BASE + (slot * bytes) as u64,
            operands,
            new_values: &[],
        })
        .collect()
}

/// Runs a warp of the lanes `slot_of` and `operands` give (slots of `bytes` each) on `memory`
/// with no other thread acting between its reads and its CASes.
pub fn run_undisturbed(
    interp: &mut Interpreter,
    expansion: &Expansion,
    memory: &mut Memory,
    slot_of: &[usize],
    operands: &[[u128; 1]],
    bytes: usize,
) -> Vec<Outcome> {
    let inputs = lane_inputs(slot_of, operands, bytes);
    interp
        .run_warp(expansion, memory, &inputs, &mut |_: &mut Memory, _| {})
        .unwrap_or_else(|error| panic!("{error}\n{expansion}"))
}

/// One warp whose lanes act on the slots `slot_of` names.
pub struct LaneOrderWarp<'a> {
    /// The expansion the lanes run, of `inst`.
    pub expansion: &'a Expansion,
    pub inst: &'a AtomicNode,
    /// Each lane's slot (an element of the node's type) in the memory.
    pub slot_of: &'a [usize],
    /// The memory's size: whole slots.
    pub memory_bytes: usize,
    /// Whether another thread stores a random value to the location of the first CAS, once.
    pub interfere: bool,
    /// How rarely operands and memory take one of the type's special values ([`value`]).
    pub special_one_in: u64,
    /// What the failure messages name besides op and type.
    pub context: &'a str,
}

impl LaneOrderWarp<'_> {
    /// Runs the warp on memory of random values and random operands, and checks that each
    /// lane's old value (where the result is used) and each slot's final value are those of the
    /// operations on the slot applied consecutively in lane order (`semantics::apply` is each
    /// step), from what the other thread's store left where it stored, else from the initial
    /// memory. Returns the warp's CAS attempts.
    pub fn check(&self, interp: &mut Interpreter, rng: &mut XorShift) -> u32 {
        let (inst, slot_of, context) = (self.inst, self.slot_of, self.context);
        let bytes = inst.ty.bytes() as usize;
        let slots = self.memory_bytes / bytes;
        let lanes = slot_of.len();
        let operands: Vec<[u128; 1]> = (0..lanes)
            .map(|_| [value(rng, inst.ty, self.special_one_in)])
            .collect();
        let mut memory = Memory::new(BASE, self.memory_bytes);
        for slot in 0..slots {
            let at = BASE + (slot * bytes) as u64;
            let initial = value(rng, inst.ty, self.special_one_in);
            memory.write(at, inst.ty.bytes(), initial).unwrap();
        }
        let initial = memory.bytes().to_vec();
        let inputs = lane_inputs(slot_of, &operands, bytes);
        let mut after_store = initial.clone();
        let mut stored = false;
        let mut other_thread = |memory: &mut Memory, site: CasSite| {
            if self.interfere && !stored {
                memory
                    .write(site.addr, site.bytes, u128::from(rng.next()))
                    .unwrap();
                after_store.copy_from_slice(memory.bytes());
                stored = true;
            }
        };
        let expansion = self.expansion;
        let outcomes = interp
            .run_warp(expansion, &mut memory, &inputs, &mut other_thread)
            .unwrap_or_else(|error| panic!("{} {}: {error}\n{expansion}", inst.op, inst.ty));
        // Where another thread stored, each location's chain starts from what the store left.
        let start_bytes = if stored { &after_store } else { &initial };
        let read =
            |bytes_of: &[u8], slot: usize| read_le(&bytes_of[slot * bytes..(slot + 1) * bytes]);
        let step =
            |old: u128, operand: u128| apply(inst.op, inst.ty, old, operand, 0, FloatMode::Ieee);
        for slot in 0..slots {
            let group: Vec<usize> = (0..lanes).filter(|&lane| slot_of[lane] == slot).collect();
            let start = read(start_bytes, slot);
            let mut expected = start;
            for &lane in &group {
                if inst.result_used() {
                    assert_eq!(
                        outcomes[lane].results[0], expected,
                        "{} {} {context} slot {slot} lane {lane}: old value out of lane order \
                         (group {group:?}, slots {slot_of:?}, operands {operands:x?}, start \
                         {start:#x})",
                        inst.op, inst.ty
                    );
                }
                expected = step(expected, operands[lane][0]);
            }
            assert_eq!(
                read(memory.bytes(), slot),
                expected,
                "{} {} {context} slot {slot}: final value (group {group:?}, slots {slot_of:?}, \
                 operands {operands:x?}, start {start:#x})",
                inst.op,
                inst.ty
            );
        }
        outcomes.iter().map(|outcome| outcome.cas_attempts).sum()
    }
}

/// The validator refuses `lowering`'s warp primitives (which its expansion has) for `op` on
/// each of `types` in every order but relaxed.
pub fn assert_relaxed_only(op: AtomicOp, types: &[ElemType], lowering: Lowering) {
    for order in [
        MemoryOrder::Acquire,
        MemoryOrder::Release,
        MemoryOrder::AcqRel,
        MemoryOrder::SeqCst,
    ] {
        for &ty in types {
            let inst = AtomicNode {
                order,
                ..relaxed(op, ty, true)
            };
            let expansion = expand(&inst, lowering);
            assert!(
                expansion
                    .blocks
                    .values()
                    .any(|block| block.prims.iter().any(Prim::is_warp)),
                "{op} {ty} {order}: no warp primitive\n{expansion}"
            );
            let error = expansion.validate(&inst).unwrap_err();
            assert!(
                error.contains("only a relaxed atomic"),
                "{op} {ty} {order}: {error}"
            );
        }
    }
}
