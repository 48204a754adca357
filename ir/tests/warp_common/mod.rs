//! Shared driver of the warp-model proofs (`Interpreter::run_warp`): relaxed nodes, lane
//! layouts and inputs, a warp run in lockstep against a memory of random slots with or without
//! another thread's store, the linearization every lane's old value and every slot's final
//! value must match there, and the check that a warp lowering is relaxed only.

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

/// One warp in lockstep on memory of random values, with its expected linearization.
pub struct LockstepWarp<'a> {
    pub inst: &'a AtomicNode,
    /// Each lane's slot (an element of the node's type) in the memory.
    pub slot_of: &'a [usize],
    /// The memory's size: whole slots.
    pub memory_bytes: usize,
    /// Whether another thread stores a random value where the warp's first CAS acts, once.
    pub interfere: bool,
    /// Whether each lane first makes one attempt of its own, or every lane combines at once.
    pub own_first_attempt: bool,
}

impl LockstepWarp<'_> {
    /// Runs the warp (the interpreter in lockstep) and checks each lane's old value (where the
    /// result is used) and the final memory against [`LockstepWarp::expected`]. Returns the
    /// warp's CAS attempts and how many of them were the lanes' own first attempts.
    pub fn check(
        &self,
        interp: &mut Interpreter,
        expansion: &Expansion,
        rng: &mut XorShift,
    ) -> (u32, u32) {
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
        let (olds, last, first_attempts) = if self.own_first_attempt {
            self.expected(&initial, &operands, store)
        } else {
            let (olds, last) = self.expected_combined(&initial, &operands, store);
            (olds, last, 0)
        };
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
        let attempts = outcomes.iter().map(|outcome| outcome.cas_attempts).sum();
        (attempts, first_attempts)
    }

    /// Each lane's old value and the final memory of the linearization a warp in lockstep
    /// gives a lowering where each lane first makes one attempt of its own, and the number of
    /// those attempts that CAS. On each CAS unit (the element, or the 32-bit word of an
    /// 8/16-bit element), from `initial` memory: the lanes whose operation leaves the loaded
    /// unit as it is read it first; then, in lane order, the first lane whose CAS finds the unit
    /// as loaded (none where `store`, the other thread's store before the first CAS, hit it)
    /// applies its operation; then the lanes whose CAS failed, consecutively in lane order.
    fn expected(
        &self,
        initial: &[u8],
        operands: &[[u128; 1]],
        store: Option<(CasSite, u128)>,
    ) -> (Vec<u128>, Vec<u8>, u32) {
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
        let mut first_attempts = 0;
        for lane in (0..lanes).filter(|&lane| changes[lane]) {
            first_attempts += 1;
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
        (olds, memory, first_attempts)
    }

    /// Each lane's old value and the final memory of the linearization a warp in lockstep
    /// gives a lowering where every lane combines at once. On each CAS unit, from `initial`
    /// memory: where the lanes' operations in lane order leave the unit as loaded, they read it
    /// as loaded and nothing is stored; elsewhere the other thread's store (before the first
    /// CAS, on its unit) comes first, then the lanes' operations, consecutively in lane order.
    fn expected_combined(
        &self,
        initial: &[u8],
        operands: &[[u128; 1]],
        store: Option<(CasSite, u128)>,
    ) -> (Vec<u128>, Vec<u8>) {
        let inst = self.inst;
        let bytes = inst.ty.bytes() as usize;
        let unit_bytes = bytes.max(4);
        let at = |slot: usize| slot * bytes;
        let unit_of = |slot: usize| at(slot) / unit_bytes * unit_bytes;
        let read = |memory: &[u8], slot: usize| read_le(&memory[at(slot)..at(slot) + bytes]);
        let write = |memory: &mut [u8], slot: usize, value: u128| {
            memory[at(slot)..at(slot) + bytes].copy_from_slice(&value.to_le_bytes()[..bytes]);
        };
        let step = |old: u128, lane: usize| {
            apply(inst.op, inst.ty, old, operands[lane][0], 0, FloatMode::Ieee)
        };
        // The lanes of each unit in lane order, from `memory`: their old values, and the unit's
        // bytes after them.
        let run = |memory: &mut [u8], olds: &mut [u128], unit: usize| {
            for (lane, &slot) in self.slot_of.iter().enumerate() {
                if unit_of(slot) == unit {
                    olds[lane] = read(memory, slot);
                    write(memory, slot, step(olds[lane], lane));
                }
            }
        };
        let mut olds = vec![0u128; self.slot_of.len()];
        let mut memory = initial.to_vec();
        if let Some((site, value)) = store {
            let start = (site.addr - BASE) as usize;
            let width = site.bytes as usize;
            memory[start..start + width].copy_from_slice(&value.to_le_bytes()[..width]);
        }
        let mut units: Vec<usize> = self.slot_of.iter().map(|&slot| unit_of(slot)).collect();
        units.sort_unstable();
        units.dedup();
        for unit in units {
            let mut as_loaded = initial.to_vec();
            run(&mut as_loaded, &mut olds, unit);
            if as_loaded[unit..unit + unit_bytes] != initial[unit..unit + unit_bytes] {
                run(&mut memory, &mut olds, unit);
            }
        }
        (olds, memory)
    }
}
