//! The linearised walk keeps every expansion's meaning: run as the PTX and vISA printers print
//! it (copies sequentialised, some hoisted before a branch, edge blocks), each expansion leaves
//! memory and results exactly as its blocks do, with another thread interfering; and every fact
//! a printer may read of its variables (`atomir_ir::lower::Facts`) holds wherever it is read,
//! in both runs.

mod expand_common;

use atomir_ir::expand::{
    expand, BinaryOp, Block, BlockData, CmpCond, Edge, Expansion, Prim, PrimType, Reuse,
    Terminator, Var,
};
use atomir_ir::interp::{CasSite, Inputs, Interpreter, Memory};
use atomir_ir::lower::{Linear, Params, Step};
use atomir_ir::{AtomicNode, AtomicOp, ElemType, Lowering, MemoryOrder, VectorShape};
use cranelift_entity::PrimaryMap;
use expand_common::{
    element_lowerings, node, specials, supported_ops, write_le, XorShift, BASE, MEMORY_BYTES,
    WORD_OFFSET,
};

/// The other thread: flips bytes of the first `count` CASes' ranges, the same ones in any run
/// that executes the same CASes.
fn interference(count: u32, seed: u64) -> impl FnMut(&mut Memory, CasSite) {
    let mut flips = XorShift(seed | 1);
    move |memory: &mut Memory, site: CasSite| {
        if site.index >= count {
            return;
        }
        let lo = (site.addr - BASE) as usize;
        for byte in lo..lo + site.bytes as usize {
            memory.bytes_mut()[byte] ^= (flips.next() as u8) | 1;
        }
    }
}

/// Runs `expansion` by its blocks and by its walk from the same memory; both must agree.
fn agree(node: &AtomicNode, expansion: &Expansion, steps: &[Step], values: &[u128], round: u64) {
    let lanes = node.shape.len();
    let pick = |k: usize| values[k % values.len()];
    let old: Vec<u128> = (0..lanes).map(pick).collect();
    let operands: Vec<u128> = (0..lanes).map(|e| pick(e + 1)).collect();
    let new_values: Vec<u128> = if node.op == AtomicOp::Cas {
        (0..lanes).map(|e| pick(e + 2)).collect()
    } else {
        Vec::new()
    };
    let size = node.ty.bytes() as usize;
    let offset = WORD_OFFSET as usize
        + if node.ty.bits() < 32 {
            (round as usize % 2) * size * lanes
        } else {
            0
        };
    let mut start = Memory::new(BASE, MEMORY_BYTES);
    XorShift(round * 31 + 7).fill(start.bytes_mut());
    for (lane, &value) in old.iter().enumerate() {
        let at = offset + lane * size;
        write_le(&mut start.bytes_mut()[at..at + size], value);
    }
    let inputs = Inputs {
        addr: BASE + offset as u64,
        operands: &operands,
        new_values: &new_values,
    };
    let disturbances = (round % 3) as u32;
    let mut interp = Interpreter::new();
    interp.check_facts = true;
    let mut by_blocks = start.clone();
    let blocks = interp
        .run_with(
            expansion,
            &mut by_blocks,
            inputs,
            &mut interference(disturbances, round),
        )
        .unwrap_or_else(|error| panic!("{error}\n{expansion}"));
    let mut by_steps = start;
    let walked = interp
        .run_steps(
            expansion,
            steps,
            &mut by_steps,
            inputs,
            &mut interference(disturbances, round),
        )
        .unwrap_or_else(|error| panic!("{error}\n{expansion}\n{steps:?}"));
    let describe = || {
        format!(
            "{} {} {} {:?}, old {old:x?} operands {operands:x?} new {new_values:x?}, \
             {disturbances} disturbances\n{expansion}\n{steps:#?}",
            node.op, node.shape, node.ty, node.order
        )
    };
    assert_eq!(blocks.results, walked.results, "results: {}", describe());
    assert_eq!(
        by_blocks.bytes(),
        by_steps.bytes(),
        "memory: {}",
        describe()
    );
    assert_eq!(blocks.cas_attempts, walked.cas_attempts, "{}", describe());
}

/// Whether the walk binds a parameter before a branch that may leave the loop holding it: a
/// copy right before a conditional branch whose destination the expansion's results read.
fn hoists_a_read_parameter(expansion: &Expansion, steps: &[Step]) -> bool {
    steps.windows(2).any(|pair| match pair {
        [Step::Copy { dst, .. }, Step::Branch { .. }] => expansion.results.contains(dst),
        _ => false,
    })
}

#[test]
fn the_walk_keeps_every_expansion_meaning() {
    let mut linear = Linear::new();
    let mut reuse = Reuse::new();
    let (mut walks, mut hoisted) = (0, 0);
    for &ty in ElemType::ALL.iter().filter(|ty| ty.bits() <= 64) {
        for op in supported_ops(ty) {
            for shape in [VectorShape::Scalar, VectorShape::V2, VectorShape::V4] {
                for order in [
                    MemoryOrder::Relaxed,
                    MemoryOrder::Acquire,
                    MemoryOrder::SeqCst,
                ] {
                    for result_used in [true, false] {
                        let mut node = node(op, ty, shape, result_used);
                        if op.admits_order(order) {
                            node.order = order;
                        }
                        for element in element_lowerings(op, ty) {
                            let lowering = Lowering::per_element(element, shape);
                            for passed in [false, true] {
                                let mut expansion = expand(&node, lowering);
                                if passed {
                                    reuse.run(&mut expansion);
                                }
                                let steps = linear.walk(&mut expansion, Params::Copies).to_vec();
                                walks += 1;
                                hoisted += usize::from(hoists_a_read_parameter(&expansion, &steps));
                                let values = specials(ty);
                                for (round, window) in values.windows(3).enumerate() {
                                    agree(&node, &expansion, &steps, window, round as u64);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(walks > 1000, "{walks} walks");
    // Relaxed and acquire loops leave with the attempt's loaded word, which the back edge's
    // copy, hoisted before the exit branch, overwrites with the equal value the CAS returned.
    assert!(
        hoisted > 0,
        "no walk hoisted a copy of a parameter read at the end"
    );
}

/// A loop whose exit reads the loop's parameter `p`: `p' = p + 1` is passed back where
/// `cond(p', p)` fails. Returns the expansion, the loop block and the branch's condition.
fn loop_reading_its_parameter(cond: CmpCond, read_at_end: bool) -> (Expansion, Block, Var) {
    let mut vars = PrimaryMap::new();
    let addr = vars.push(PrimType::Ptr);
    let one = vars.push(PrimType::I32);
    let p = vars.push(PrimType::I32);
    let next = vars.push(PrimType::I32);
    let leave = vars.push(PrimType::Pred);
    let mut blocks: PrimaryMap<Block, BlockData> = PrimaryMap::new();
    let (body, exit) = (Block::from_u32(1), Block::from_u32(2));
    let edge = |block, args: &[Var]| Edge {
        block,
        args: args.iter().copied().collect(),
    };
    blocks.push(BlockData {
        params: Default::default(),
        prims: vec![Prim::Const { dst: one, bits: 1 }],
        terminator: Terminator::Jump(edge(body, &[one])),
    });
    blocks.push(BlockData {
        params: [p].into_iter().collect(),
        prims: vec![
            Prim::Binary {
                dst: next,
                op: BinaryOp::Add,
                a: p,
                b: one,
            },
            Prim::Cmp {
                dst: leave,
                cond,
                a: next,
                b: p,
            },
        ],
        terminator: Terminator::Branch {
            cond: leave,
            then: edge(exit, &[]),
            otherwise: edge(body, &[next]),
        },
    });
    blocks.push(BlockData {
        params: Default::default(),
        prims: Vec::new(),
        terminator: Terminator::Return,
    });
    let results = if read_at_end {
        [p].into_iter().collect()
    } else {
        Default::default()
    };
    let expansion = Expansion {
        vars,
        blocks,
        addr,
        operands: Default::default(),
        new_values: Default::default(),
        results,
    };
    (expansion, body, leave)
}

#[test]
fn a_copy_is_hoisted_past_an_exit_that_reads_its_parameter_only_where_it_changes_nothing() {
    let hoists = |cond, read_at_end| {
        let (expansion, body, leave) = loop_reading_its_parameter(cond, read_at_end);
        let Terminator::Branch {
            then, otherwise, ..
        } = &expansion.blocks[body].terminator
        else {
            unreachable!()
        };
        expansion.binds_independently(body, leave, then, otherwise)
    };
    // The exit reads `p`, which the back edge's copy overwrites with `p + 1`.
    assert!(!hoists(CmpCond::Ult, true));
    // Nothing after the loop reads `p`.
    assert!(hoists(CmpCond::Ult, false));
    // The exit is taken only where `p + 1` equals `p` (never here): the copy changes nothing.
    assert!(hoists(CmpCond::Eq, true));
    // Taken where they differ: the copy would change what the exit reads.
    assert!(!hoists(CmpCond::Ne, true));
}

#[test]
fn steps_that_name_what_the_expansion_lacks_are_an_error() {
    let (expansion, body, _) = loop_reading_its_parameter(CmpCond::Eq, true);
    let inputs = Inputs {
        addr: BASE,
        operands: &[],
        new_values: &[],
    };
    let mut interp = Interpreter::new();
    for steps in [
        vec![Step::Prim {
            block: body,
            index: 7,
        }],
        vec![Step::Prim {
            block: Block::from_u32(9),
            index: 0,
        }],
        vec![Step::Jump(atomir_ir::lower::Label::Block(Block::from_u32(
            9,
        )))],
    ] {
        let mut memory = Memory::new(BASE, MEMORY_BYTES);
        let run = interp.run_steps(
            &expansion,
            &steps,
            &mut memory,
            inputs,
            &mut |_: &mut Memory, _: CasSite| {},
        );
        assert!(run.is_err(), "{steps:?}");
    }
}
