//! Exhaustive proof of the 8-bit part-word expansions: every op each 8-bit type supports, every
//! old value × operand (65536 pairs), at every byte offset of the 32-bit word, with the masked
//! CAS loop and (for and/or/xor and load) the single widened access. The other bytes of the
//! word and the words around it are random and must come back unchanged.

mod expand_common;

use atomir_ir::interp::{Inputs, Interpreter, Memory};
use atomir_ir::semantics::{apply, FloatMode};
use atomir_ir::{AtomicOp, ElemType, ElementLowering, VectorShape};
use expand_common::{expand_valid, node, supported_ops, XorShift};

const WORD: usize = 4;

fn prove_type(ty: ElemType) {
    let mut interp = Interpreter::new();
    let mut memory = Memory::new(0x2000, 12);
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15 ^ ty.bits() as u64);
    let mut runs = 0u64;
    for op in supported_ops(ty) {
        let mut loops = vec![true];
        // A load reads the containing word with one atomic load (vISA's 8-bit loads).
        if ElementLowering::masked(op) == ElementLowering::MaskedOp || op == AtomicOp::Load {
            loops.push(false);
        }
        for needs_loop in loops {
            let inst = node(op, ty, VectorShape::Scalar, true);
            let lowering = if needs_loop {
                ElementLowering::MaskedCasLoop
            } else {
                ElementLowering::MaskedOp
            };
            let expansion = expand_valid(&inst, lowering);
            assert_eq!(expansion.has_loop(), needs_loop, "{op} {ty}: {expansion}");
            for offset in 0..4usize {
                let addr = 0x2000 + (WORD + offset) as u64;
                let mut run = |old: u8, operand: u8, new_value: u8, rng: &mut XorShift| {
                    let before = rng.next().to_le_bytes();
                    let after = rng.next().to_le_bytes();
                    let bytes = memory.bytes_mut();
                    bytes[..8].copy_from_slice(&before);
                    bytes[8..].copy_from_slice(&after[..4]);
                    bytes[WORD + offset] = old;
                    let mut expected = [0u8; 12];
                    expected.copy_from_slice(bytes);
                    let operands = [operand as u128];
                    let new_values = [new_value as u128];
                    let inputs = Inputs {
                        addr,
                        operands: &operands,
                        new_values: if op == AtomicOp::Cas {
                            &new_values
                        } else {
                            &[]
                        },
                    };
                    let outcome = interp
                        .run(&expansion, &mut memory, inputs)
                        .unwrap_or_else(|e| {
                            panic!("{op} {ty} loop={needs_loop} offset {offset}: {e}")
                        });
                    let new = apply(
                        op,
                        ty,
                        old as u128,
                        operand as u128,
                        new_value as u128,
                        FloatMode::Ieee,
                    );
                    expected[WORD + offset] = new as u8;
                    assert!(
                        outcome.results.as_slice() == [old as u128] && memory.bytes() == expected,
                        "{op} {ty} loop={needs_loop} offset {offset} old {old:#x} operand \
                         {operand:#x} new {new_value:#x}: result {:x?} memory {:x?}, expected \
                         {new:#x} in {expected:x?}",
                        outcome.results,
                        memory.bytes()
                    );
                    runs += 1;
                };
                for old in 0..=255u8 {
                    for operand in 0..=255u8 {
                        let new_value = rng.next() as u8;
                        run(old, operand, new_value, &mut rng);
                    }
                    if op == AtomicOp::Cas {
                        // The matching case for every new value.
                        for new_value in 0..=255u8 {
                            run(old, old, new_value, &mut rng);
                        }
                    }
                }
            }
        }
    }
    let pairs = 65536 * 4;
    assert!(
        runs >= pairs * supported_ops(ty).len() as u64,
        "{runs} runs"
    );
    println!("{ty}: {runs} runs");
}

#[test]
fn u8_every_op_value_and_offset() {
    prove_type(ElemType::U8);
}

#[test]
fn s8_every_op_value_and_offset() {
    prove_type(ElemType::S8);
}

#[test]
fn b8_every_op_value_and_offset() {
    prove_type(ElemType::B8);
}
