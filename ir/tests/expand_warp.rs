//! Proof of the warp-combined CAS loops (`WarpMaskedCasLoop`, and `WarpCasLoop` and
//! `WarpCasThenMaskedLoop` for 16-bit types)
//! on a model of a warp (`Interpreter::run_warp`): warps of 1 to 32 lanes on a few 8/16-bit
//! locations that share 32-bit words, random operands and memory, every type and op the lowering is
//! for, the result used and unused, with and without another thread storing to the word. Each
//! location must end as every lane's operation applied once, and the lanes of a location must get
//! the old values of the linearization in which their operations follow each other in lane order
//! (`semantics::apply` is the meaning of each step). Where another thread stores to the word (warps
//! on one location), the chain starts from what the group's loop found. The same for the
//! warp-combined float min/max by integer atomics (`WarpIntMinMax`) on f32 and f64, with NaNs,
//! signed zeros, infinities and subnormals among operands and memory.

mod expand_common;
mod warp_common;

use atomir_ir::expand::{expand, FloatTypes, Prim, Reuse, SoftFloat, SoftFloatNeeds};
use atomir_ir::interp::{CasSite, Inputs, Interpreter, Memory};
use atomir_ir::semantics::{apply, is_nan, FloatMode};
use atomir_ir::{AtomicNode, AtomicOp, ElemType, ElementLowering, Lowering, WarpCombine};
use expand_common::{read_le, specials, XorShift};
use warp_common::{
    assert_relaxed_only, lane_inputs, lane_slots, relaxed, run_undisturbed, BASE, MEMORY_BYTES,
};

const TYPES: [ElemType; 4] = [ElemType::U8, ElemType::S8, ElemType::U16, ElemType::S16];
const OPS: [AtomicOp; 4] = [AtomicOp::Add, AtomicOp::Sub, AtomicOp::Min, AtomicOp::Max];

/// One warp run; returns how many CAS attempts it made.
fn check_warp(
    interp: &mut Interpreter,
    inst: &AtomicNode,
    lowering: Lowering,
    rng: &mut XorShift,
    lanes: usize,
    interfere: bool,
) -> u32 {
    let expansion = expand(inst, lowering);
    expansion
        .validate(inst)
        .unwrap_or_else(|error| panic!("{} {}: {error}\n{expansion}", inst.op, inst.ty));
    let bytes = inst.ty.bytes() as usize;
    let mask = (1u128 << (8 * bytes)) - 1;
    let mut memory = Memory::new(BASE, MEMORY_BYTES);
    rng.fill(memory.bytes_mut());
    let initial = memory.bytes().to_vec();
    let slots = MEMORY_BYTES / bytes;
    // Few distinct locations, so that groups are large; sometimes one for the whole warp.
    let (used_slots, slot_of) = lane_slots(rng, lanes, slots, interfere, 4);
    let operands: Vec<[u128; 1]> = (0..lanes)
        .map(|_| {
            // Small operands make min/max ties and add carries across the element common.
            let value = if rng.next().is_multiple_of(3) {
                rng.next() as u128 % 4
            } else {
                rng.next() as u128
            };
            [value & mask]
        })
        .collect();
    let inputs = lane_inputs(&slot_of, &operands, bytes);
    // Another thread stores a random value to the word of the first CAS, once, where the warp
    // works on one location (so the store comes before that location's one group acts; with
    // several groups on a word it could come after a group that left without a CAS).
    let interfere = interfere && used_slots == 1;
    let mut stored_by_other: Option<u64> = None;
    let mut other_thread = |memory: &mut Memory, site: CasSite| {
        if interfere && stored_by_other.is_none() {
            let value = rng.next() as u128;
            memory.write(site.addr, site.bytes, value).unwrap();
            stored_by_other = Some(site.addr);
        }
    };
    let outcomes = interp
        .run_warp(&expansion, &mut memory, &inputs, &mut other_thread)
        .unwrap_or_else(|error| panic!("{} {}: {error}\n{expansion}", inst.op, inst.ty));

    let read = |bytes_of: &[u8], slot: usize| read_le(&bytes_of[slot * bytes..(slot + 1) * bytes]);
    let word_of = |slot: usize| BASE + ((slot * bytes) & !3) as u64;
    let step = |old: u128, operand: u128| apply(inst.op, inst.ty, old, operand, 0, FloatMode::Ieee);
    for slot in 0..slots {
        let group: Vec<usize> = (0..lanes).filter(|&lane| slot_of[lane] == slot).collect();
        // The store is to the CAS's own location: the word for a masked loop, the element for
        // a loop on the element's width.
        let disturbed = stored_by_other.map(|addr| addr & !3) == Some(word_of(slot));
        let final_value = read(memory.bytes(), slot);
        if group.is_empty() {
            if !disturbed {
                assert_eq!(final_value, read(&initial, slot), "untouched slot {slot}");
            }
            continue;
        }
        let start = if inst.result_used() {
            outcomes[group[0]].results[0]
        } else {
            read(&initial, slot)
        };
        if !disturbed {
            assert_eq!(
                start,
                read(&initial, slot),
                "{} {} slot {slot}: the first lane's old value",
                inst.op,
                inst.ty
            );
        }
        let mut value = start;
        for &lane in &group {
            if inst.result_used() {
                assert_eq!(
                    outcomes[lane].results[0], value,
                    "{} {} slot {slot} lane {lane}: old value out of lane order (group {group:?}, \
                     operands {:x?}, start {start:#x})",
                    inst.op, inst.ty, operands
                );
            }
            value = step(value, operands[lane][0]);
        }
        if inst.result_used() || !disturbed {
            assert_eq!(
                final_value, value,
                "{} {} slot {slot}: final value (group {group:?}, operands {:x?})",
                inst.op, inst.ty, operands
            );
        }
    }
    outcomes.iter().map(|outcome| outcome.cas_attempts).sum()
}

#[test]
fn warp_combined_loops_are_exact_lane_order_linearizations() {
    let mut interp = Interpreter::new();
    let mut rng = XorShift(0x5eed_0a66);
    let mut warps = 0u64;
    let mut attempts = 0u64;
    let mut lane_runs = 0u64;
    let mut lowerings_checked = 0;
    for ty in TYPES {
        let lowerings: &[Lowering] = if ty.bits() == 16 {
            &[
                Lowering::whole(ElementLowering::MaskedCasLoop)
                    .with_warp(WarpCombine::Fold)
                    .unwrap(),
                Lowering::whole(ElementLowering::CasLoop)
                    .with_warp(WarpCombine::Fold)
                    .unwrap(),
                Lowering::whole(ElementLowering::CasThenMaskedLoop)
                    .with_warp(WarpCombine::Fold)
                    .unwrap(),
            ]
        } else {
            &[Lowering::whole(ElementLowering::MaskedCasLoop)
                .with_warp(WarpCombine::Fold)
                .unwrap()]
        };
        for &lowering in lowerings {
            lowerings_checked += 1;
            for op in OPS {
                for result_used in [true, false] {
                    let inst = relaxed(op, ty, result_used);
                    for trial in 0..400 {
                        let lanes = 1 + (rng.next() as usize % 32);
                        let interfere = trial % 5 == 4;
                        attempts += u64::from(check_warp(
                            &mut interp,
                            &inst,
                            lowering,
                            &mut rng,
                            lanes,
                            interfere,
                        ));
                        warps += 1;
                        lane_runs += lanes as u64;
                    }
                }
            }
        }
    }
    // The combining is what makes a warp cheap: far fewer CAS attempts than lanes.
    assert!(
        attempts * 4 < lane_runs,
        "{attempts} CAS attempts for {lane_runs} lanes"
    );
    assert_eq!(warps, lowerings_checked * 4 * 2 * 400);
}

/// The lowering only for what it is exact for, and only relaxed: the validator refuses warp
/// primitives in any other order, and the fold exists only for the ops it covers.
#[test]
fn warp_combining_is_relaxed_only_and_exact_only() {
    assert_relaxed_only(
        AtomicOp::Add,
        &[ElemType::U8],
        Lowering::whole(ElementLowering::MaskedCasLoop)
            .with_warp(WarpCombine::Fold)
            .unwrap(),
    );
    for element in [ElementLowering::CasLoop, ElementLowering::CasThenMaskedLoop] {
        assert_relaxed_only(
            AtomicOp::Add,
            &[ElemType::U16],
            Lowering::whole(element)
                .with_warp(WarpCombine::Fold)
                .unwrap(),
        );
    }
    for ty in [ElemType::U8, ElemType::S16] {
        for op in [AtomicOp::Exch, AtomicOp::Cas, AtomicOp::Inc, AtomicOp::Nand] {
            assert_eq!(Lowering::warp_fold(op, ty), None, "{op} {ty}");
        }
    }
    for ty in [ElemType::U32, ElemType::F16, ElemType::B8] {
        assert_eq!(Lowering::warp_fold(AtomicOp::Add, ty), None, "{ty}");
    }
}

/// A warp primitive whose mask names a lane that is elsewhere is an error, not a hang or a
/// guess: one lane runs the expansion alone with a mask it does not match.
#[test]
fn a_lone_lane_is_its_own_group() {
    let mut interp = Interpreter::new();
    let inst = relaxed(AtomicOp::Add, ElemType::U8, true);
    let expansion = expand(
        &inst,
        Lowering::whole(ElementLowering::MaskedCasLoop)
            .with_warp(WarpCombine::Fold)
            .unwrap(),
    );
    let mut memory = Memory::new(BASE, MEMORY_BYTES);
    memory.bytes_mut()[1] = 0xfe;
    let outcome = interp
        .run(
            &expansion,
            &mut memory,
            Inputs {
                addr: BASE + 1,
                operands: &[3],
                new_values: &[],
            },
        )
        .unwrap();
    assert_eq!(outcome.results.as_slice(), [0xfe]);
    assert_eq!(memory.bytes()[1], 0x01);
}

/// The opt-in reassociating fold: f32 add and sub by `WarpNative`, on operands whose every
/// partial sum is exact (small integers and +0.0, a NaN in memory), so that any order of the
/// additions gives the same bits and each lane's old value is exactly the lane-order one. The
/// lowest lane of a group gets the group's old value as it is, a NaN included.
#[test]
fn warp_combined_f32_adds_are_lane_order_sums_where_sums_are_exact() {
    let mut interp = Interpreter::new();
    let mut rng = XorShift(0x5eed_f32a);
    for op in [AtomicOp::Add, AtomicOp::Sub] {
        for result_used in [true, false] {
            let inst = relaxed(op, ElemType::F32, result_used);
            let expansion = expand(
                &inst,
                Lowering::whole(ElementLowering::Native)
                    .with_warp(WarpCombine::Fold)
                    .unwrap(),
            );
            expansion.validate(&inst).unwrap();
            for trial in 0..300 {
                let lanes = 1 + (rng.next() as usize % 32);
                let slots = 2usize;
                let mut memory = Memory::new(BASE, MEMORY_BYTES);
                // No -0.0 anywhere: another order of the additions may give a zero the other
                // sign, which is the rounding difference the client opted into.
                let start: [f32; 2] = if trial % 10 == 0 {
                    [f32::NAN, 0.0]
                } else {
                    [(rng.next() % 64) as f32, -((1 + rng.next() % 64) as f32)]
                };
                for (slot, value) in start.iter().enumerate() {
                    memory
                        .write(BASE + 4 * slot as u64, 4, u128::from(value.to_bits()))
                        .unwrap();
                }
                let slot_of: Vec<usize> = (0..lanes).map(|_| rng.next() as usize % slots).collect();
                let operands: Vec<[u128; 1]> = (0..lanes)
                    .map(|_| {
                        let value = match rng.next() % 4 {
                            0 => 0.0f32,
                            _ => (rng.next() % 512) as f32 - 256.0,
                        };
                        [u128::from(value.to_bits())]
                    })
                    .collect();
                let outcomes =
                    run_undisturbed(&mut interp, &expansion, &mut memory, &slot_of, &operands, 4);
                for (slot, initial) in start.iter().enumerate() {
                    let mut value = u128::from(initial.to_bits());
                    for lane in (0..lanes).filter(|&lane| slot_of[lane] == slot) {
                        if result_used {
                            assert_eq!(
                                outcomes[lane].results[0], value,
                                "{op} slot {slot} lane {lane}: {:x?}",
                                operands
                            );
                        }
                        value = apply(
                            op,
                            ElemType::F32,
                            value,
                            operands[lane][0],
                            0,
                            FloatMode::Ieee,
                        );
                    }
                    let final_value = memory.read(BASE + 4 * slot as u64, 4).unwrap();
                    let both_nan = f32::from_bits(final_value as u32).is_nan()
                        && f32::from_bits(value as u32).is_nan();
                    assert!(
                        final_value == value || both_nan,
                        "{op} slot {slot}: {final_value:#x} against {value:#x}"
                    );
                }
            }
        }
    }
}

/// The float min/max ops `WarpIntMinMax` is for.
const MIN_MAX_OPS: [AtomicOp; 4] = [
    AtomicOp::Max,
    AtomicOp::Min,
    AtomicOp::FMaximumNum,
    AtomicOp::FMinimumNum,
];

/// Float bits worth folding: the special values (NaNs of several payloads and both signs, both
/// zeros and infinities, subnormals, the largest finite values), more NaNs, and values next to
/// each other, so that ties, -0 against +0 and NaNs beside numbers come up in most groups.
fn float_pool(ty: ElemType) -> Vec<u128> {
    let mut pool = specials(ty);
    let (sign, quiet) = if ty == ElemType::F32 {
        (1u128 << 31, 0x7fc0_0000u128)
    } else {
        (1u128 << 63, 0x7ff8u128 << 48)
    };
    let one = if ty == ElemType::F32 {
        0x3f80_0000u128
    } else {
        0x3ffu128 << 52
    };
    pool.extend([
        quiet | 0x1234,
        sign | quiet,
        sign | quiet | 7,
        (sign << 1) - 1,
        sign - 1,
        one + 1,
        sign | (one + 1),
        sign | one,
    ]);
    assert!(pool.iter().filter(|&&bits| is_nan(ty, bits)).count() >= 6);
    pool
}

/// One warp of `WarpIntMinMax`; returns how many atomics (RMWs and CASes) it ran.
fn check_float_min_max_warp(
    interp: &mut Interpreter,
    expansion: &atomir_ir::expand::Expansion,
    inst: &AtomicNode,
    rng: &mut XorShift,
    lanes: usize,
    interfere: bool,
) -> u32 {
    const BYTES: usize = 16;
    let ty = inst.ty;
    let bytes = ty.bytes() as usize;
    let slots = BYTES / bytes;
    let pool = float_pool(ty);
    let pick = |rng: &mut XorShift| -> u128 {
        match rng.next() % 8 {
            // A random float now and then: distinct values, rare NaNs.
            0 => u128::from(rng.next()) & ((1u128 << ty.bits()) - 1),
            _ => pool[rng.next() as usize % pool.len()],
        }
    };
    let mut memory = Memory::new(BASE, BYTES);
    let initial: Vec<u128> = (0..slots)
        .map(|slot| {
            // Memory a NaN, -0 or +0 in most warps.
            let value = match rng.next() % 5 {
                0 => pool[6],
                1 => pool[1],
                2 => 0,
                3 => pool[8],
                _ => pick(rng),
            };
            memory
                .write(BASE + (slot * bytes) as u64, bytes as u32, value)
                .unwrap();
            value
        })
        .collect();
    let (used_slots, slot_of) = lane_slots(rng, lanes, slots, interfere, 3);
    // A few warps of NaNs alone, or of one value.
    let operands: Vec<[u128; 1]> = match rng.next() % 10 {
        0 => {
            let nans: Vec<u128> = pool.iter().copied().filter(|&b| is_nan(ty, b)).collect();
            (0..lanes)
                .map(|_| [nans[rng.next() as usize % nans.len()]])
                .collect()
        }
        1 => vec![[pick(rng)]; lanes],
        _ => (0..lanes).map(|_| [pick(rng)]).collect(),
    };
    let inputs = lane_inputs(&slot_of, &operands, bytes);
    // Another thread stores a float of the pool before the first atomic (RMW or CAS), once,
    // where the warp works on one location.
    let interfere = interfere && used_slots == 1;
    let stored = pick(rng);
    let mut disturbed = false;
    let mut atomics = 0u32;
    let mut other_thread = |memory: &mut Memory, site: CasSite| {
        atomics += 1;
        if interfere && !disturbed {
            memory.write(site.addr, site.bytes, stored).unwrap();
            disturbed = true;
        }
    };
    let outcomes = interp
        .run_warp(expansion, &mut memory, &inputs, &mut other_thread)
        .unwrap_or_else(|error| panic!("{} {}: {error}\n{expansion}", inst.op, inst.ty));

    let step = |old: u128, operand: u128| apply(inst.op, ty, old, operand, 0, FloatMode::Ieee);
    for (slot, &initial) in initial.iter().enumerate() {
        let group: Vec<usize> = (0..lanes).filter(|&lane| slot_of[lane] == slot).collect();
        let final_value = memory
            .read(BASE + (slot * bytes) as u64, bytes as u32)
            .unwrap();
        if group.is_empty() {
            assert_eq!(final_value, initial, "untouched slot {slot}");
            continue;
        }
        let start = if inst.result_used() {
            outcomes[group[0]].results[0]
        } else if disturbed {
            stored
        } else {
            initial
        };
        if !disturbed {
            assert_eq!(start, initial, "{} {}: first lane's old", inst.op, ty);
        }
        let mut value = start;
        for &lane in &group {
            if inst.result_used() {
                assert_eq!(
                    outcomes[lane].results[0], value,
                    "{} {} slot {slot} lane {lane}: old value out of lane order (group \
                     {group:?}, operands {:x?}, start {start:#x})",
                    inst.op, ty, operands
                );
            }
            value = step(value, operands[lane][0]);
        }
        // Unused results: after a store from another thread, the chain starts from that
        // store only if it came before the group's first atomic, which it did.
        assert_eq!(
            final_value, value,
            "{} {} slot {slot}: final value (group {group:?}, operands {:x?}, start {start:#x})",
            inst.op, ty, operands
        );
    }
    atomics
}

/// `WarpIntMinMax` gives every lane its lane-order old value and every location the
/// lane-order result, bit for bit (the canonical NaN of two NaNs, a NaN in memory kept by the
/// lowest lane, -0 below +0), on f32 and f64, min and max under both spellings, the result
/// used and unused, with and without another thread storing before the group's first atomic.
#[test]
fn warp_combined_float_min_max_are_exact_lane_order_linearizations() {
    let mut interp = Interpreter::new();
    interp.interfere_before_rmw = true;
    let mut rng = XorShift(0x5eed_f1a7);
    let (mut atomics, mut lane_runs, mut warps) = (0u64, 0u64, 0u64);
    for ty in [ElemType::F32, ElemType::F64] {
        for op in MIN_MAX_OPS {
            for result_used in [true, false] {
                let inst = relaxed(op, ty, result_used);
                let expansion = expand(
                    &inst,
                    Lowering::whole(ElementLowering::IntMinMax)
                        .with_warp(WarpCombine::Fold)
                        .unwrap(),
                );
                // The integer trick, combined: a scan, and no float min/max atomic.
                let prims = || expansion.blocks.values().flat_map(|block| &block.prims);
                assert!(prims().any(|prim| matches!(prim, Prim::WarpScan { .. })));
                assert!(prims().all(|prim| match prim {
                    Prim::Rmw { ty: rmw_ty, .. } => !rmw_ty.is_float(),
                    _ => true,
                }));
                // As built, and as a backend prints it: after reuse and the soft-float min/max
                // (the target's min/max plus the NaN fix-up as on PTX, or integer compares).
                let mut variants = vec![expansion.clone()];
                for exact in [
                    FloatTypes::NONE,
                    FloatTypes {
                        f32: true,
                        f64: true,
                        ..FloatTypes::NONE
                    },
                ] {
                    let mut passed = expansion.clone();
                    Reuse::new().run(&mut passed);
                    let needs = SoftFloatNeeds {
                        min_max: true,
                        exact_min_max: exact,
                        bf16_narrowing: false,
                    };
                    assert!(SoftFloat::new().run(&mut passed, needs) > 0);
                    variants.push(passed);
                }
                for variant in &variants {
                    variant
                        .validate(&inst)
                        .unwrap_or_else(|error| panic!("{op} {ty}: {error}\n{variant}"));
                }
                for trial in 0..600 {
                    let lanes = 1 + (rng.next() as usize % 32);
                    atomics += u64::from(check_float_min_max_warp(
                        &mut interp,
                        &variants[trial % variants.len()],
                        &inst,
                        &mut rng,
                        lanes,
                        trial % 5 == 4,
                    ));
                    lane_runs += lanes as u64;
                    warps += 1;
                }
            }
        }
    }
    assert_eq!(warps, 2 * 4 * 2 * 600);
    // One atomic per group, not per lane.
    assert!(
        atomics * 4 < lane_runs,
        "{atomics} atomics for {lane_runs} lanes"
    );
}

/// Every lane at one address, every operand from the pool in every lane position: a warp of 32
/// lanes whose operands are the pool in a rotating order, on memory holding each value of the
/// pool in turn, so that every (memory, operand) pair and every NaN next to every number is a
/// step of some lane-order chain.
#[test]
fn warp_combined_float_min_max_every_pool_value_in_memory() {
    let mut interp = Interpreter::new();
    for ty in [ElemType::F32, ElemType::F64] {
        let pool = float_pool(ty);
        let bytes = ty.bytes();
        for op in MIN_MAX_OPS {
            let inst = relaxed(op, ty, true);
            let expansion = expand(
                &inst,
                Lowering::whole(ElementLowering::IntMinMax)
                    .with_warp(WarpCombine::Fold)
                    .unwrap(),
            );
            expansion.validate(&inst).unwrap();
            for (index, &start) in pool.iter().enumerate() {
                let lanes = 32.min(pool.len());
                let operands: Vec<[u128; 1]> = (0..lanes)
                    .map(|lane| [pool[(index * 7 + lane) % pool.len()]])
                    .collect();
                let mut memory = Memory::new(BASE, 8);
                memory.write(BASE, bytes, start).unwrap();
                let outcomes = run_undisturbed(
                    &mut interp,
                    &expansion,
                    &mut memory,
                    &vec![0; lanes],
                    &operands,
                    bytes as usize,
                );
                let mut value = start;
                for (lane, operand) in operands.iter().enumerate() {
                    assert_eq!(
                        outcomes[lane].results[0], value,
                        "{op} {ty} start {start:#x} lane {lane}: {operands:x?}"
                    );
                    value = apply(op, ty, value, operand[0], 0, FloatMode::Ieee);
                }
                assert_eq!(
                    memory.read(BASE, bytes).unwrap(),
                    value,
                    "{op} {ty} {start:#x}"
                );
            }
        }
    }
}

/// The combined float min/max is relaxed only, like the other warp lowerings: the validator
/// refuses its warp primitives in any other order.
#[test]
fn warp_combined_float_min_max_is_relaxed_only() {
    assert_relaxed_only(
        AtomicOp::Max,
        &[ElemType::F32, ElemType::F64],
        Lowering::whole(ElementLowering::IntMinMax)
            .with_warp(WarpCombine::Fold)
            .unwrap(),
    );
}
