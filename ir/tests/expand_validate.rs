//! The validator rejects expansions that weaken an order or scope, or are malformed; the
//! interpreter reports, rather than panics on, what it cannot run.

mod expand_common;

use atomir_ir::expand::{Block, Edge, MemAttrs, Prim, PrimType, Terminator, Var};
use atomir_ir::interp::{Inputs, InterpError, Interpreter, Memory};
use atomir_ir::{
    AddressSpace, AtomicOp, ElemType, ElementLowering, Lowering, MemoryOrder, Scope, VectorShape,
};
use expand_common::{expand_valid, node};
use smallvec::smallvec;

fn loop_expansion() -> (atomir_ir::AtomicNode, atomir_ir::expand::Expansion) {
    let inst = node(AtomicOp::Add, ElemType::F32, VectorShape::Scalar, true);
    let expansion = expand_valid(&inst, ElementLowering::CasLoop);
    (inst, expansion)
}

/// Applies `change` to every memory primitive of a fresh CAS-loop expansion matching `which`.
fn with_mem(which: fn(&Prim) -> bool, change: fn(&mut MemAttrs)) -> Result<(), String> {
    let (inst, mut expansion) = loop_expansion();
    let mut changed = false;
    for data in expansion.blocks.values_mut() {
        for prim in &mut data.prims {
            if !which(prim) {
                continue;
            }
            match prim {
                Prim::Load { mem, .. } | Prim::Cas { mem, .. } | Prim::Rmw { mem, .. } => {
                    change(mem);
                    changed = true;
                }
                _ => {}
            }
        }
    }
    assert!(changed, "no primitive to change");
    expansion.validate(&inst)
}

fn is_cas(prim: &Prim) -> bool {
    matches!(prim, Prim::Cas { .. })
}

fn is_load(prim: &Prim) -> bool {
    matches!(prim, Prim::Load { .. })
}

#[test]
fn every_shipped_expansion_validates() {
    let mut count = 0;
    for &ty in ElemType::ALL {
        for &op in AtomicOp::ALL.iter().filter(|op| ty.supports(**op)) {
            for &shape in VectorShape::ALL {
                for result_used in [false, true] {
                    let inst = node(op, ty, shape, result_used);
                    let mut lowerings = vec![Lowering::whole(ElementLowering::CasLoop)];
                    if ty.bits() <= 16 {
                        lowerings.push(Lowering::whole(ElementLowering::MaskedCasLoop));
                    }
                    for element in [ElementLowering::Native, ElementLowering::CasLoop] {
                        lowerings.push(Lowering::per_element(element, shape));
                    }
                    for lowering in lowerings {
                        expand_valid(&inst, lowering);
                        count += 1;
                    }
                }
            }
        }
    }
    assert!(count > 1000, "{count}");
}

#[test]
fn weakened_cas_order_is_rejected() {
    // The node is acq_rel (see `node`): a relaxed or acquire-only CAS weakens it.
    let error = with_mem(is_cas, |mem| mem.order = MemoryOrder::Acquire).unwrap_err();
    assert!(error.contains("weaker"), "{error}");
    assert!(with_mem(is_cas, |mem| mem.order = MemoryOrder::Relaxed).is_err());
    // Strengthening is allowed.
    with_mem(is_cas, |mem| mem.order = MemoryOrder::SeqCst).unwrap();
}

#[test]
fn narrowed_scope_or_other_space_is_rejected() {
    let error = with_mem(is_cas, |mem| mem.scope = Scope::Block).unwrap_err();
    assert!(error.contains("scope"), "{error}");
    assert!(with_mem(is_load, |mem| mem.scope = Scope::Device).is_err());
    assert!(with_mem(is_load, |mem| mem.space = AddressSpace::Generic).is_err());
    assert!(with_mem(is_load, |mem| mem.hint = None).is_err());
}

#[test]
fn release_load_is_rejected() {
    let error = with_mem(is_load, |mem| mem.order = MemoryOrder::Release).unwrap_err();
    assert!(error.contains("load"), "{error}");
    with_mem(is_load, |mem| mem.order = MemoryOrder::Acquire).unwrap();
}

#[test]
fn malformed_graphs_are_rejected() {
    let (inst, expansion) = loop_expansion();

    // An unreachable block.
    let mut broken = expansion.clone();
    broken.blocks.push(atomir_ir::expand::BlockData {
        params: smallvec![],
        prims: vec![],
        terminator: Terminator::Return,
    });
    assert!(broken.validate(&inst).unwrap_err().contains("unreachable"));

    // A loop that never reaches Return.
    let mut broken = expansion.clone();
    let retry = Block::from_u32(1);
    if let Terminator::Branch { then, .. } = &mut broken.blocks[retry].terminator {
        then.block = retry;
    }
    assert!(broken
        .validate(&inst)
        .unwrap_err()
        .contains("never reaches a return"));

    // A jump with the wrong number of arguments.
    let mut broken = expansion.clone();
    if let Terminator::Jump(target) = &mut broken.blocks[Block::from_u32(0)].terminator {
        target.args.clear();
    }
    assert!(broken.validate(&inst).unwrap_err().contains("arguments"));

    // A use not defined on every path: the entry jumps with a register only the loop defines.
    let mut broken = expansion.clone();
    let loop_value = broken.blocks[retry].prims.iter().find_map(|p| match p {
        Prim::Cas { dst, .. } => Some(*dst),
        _ => None,
    });
    broken.blocks[Block::from_u32(0)].terminator = Terminator::Jump(Edge {
        block: retry,
        args: smallvec![loop_value.unwrap()],
    });
    assert!(broken.validate(&inst).unwrap_err().contains("undefined"));

    // A primitive dropped: its result is used but never defined.
    let mut broken = expansion.clone();
    broken.blocks[retry].prims.remove(0);
    assert!(broken.validate(&inst).is_err());

    // An ill-typed primitive.
    let mut broken = expansion.clone();
    let pred = broken.vars.push(PrimType::Pred);
    broken.blocks[retry]
        .prims
        .insert(0, Prim::Const { dst: pred, bits: 1 });
    broken.blocks[retry].prims.push(Prim::Load {
        dst: pred,
        addr: broken.addr,
        mem: atomir_ir::expand::mem_attrs(&inst),
    });
    assert!(broken.validate(&inst).is_err());

    // No atomic primitive at all.
    let mut broken = expansion.clone();
    for data in broken.blocks.values_mut() {
        data.prims.retain(|p| !is_cas(p));
    }
    assert!(broken.validate(&inst).is_err());

    // Results that do not match the node.
    let unused = node(AtomicOp::Add, ElemType::F32, VectorShape::Scalar, false);
    assert!(expansion.validate(&unused).unwrap_err().contains("results"));
    let vector = node(AtomicOp::Add, ElemType::F32, VectorShape::V2, true);
    assert!(expansion.validate(&vector).is_err());
}

#[test]
fn interpreter_reports_errors() {
    let (_, expansion) = loop_expansion();
    let mut interp = Interpreter::new();
    let mut memory = Memory::new(0x100, 16);
    let run = |interp: &mut Interpreter, memory: &mut Memory, addr: u64, operands: &[u128]| {
        interp.run(
            &expansion,
            memory,
            Inputs {
                addr,
                operands,
                new_values: &[],
            },
        )
    };
    assert_eq!(
        run(&mut interp, &mut memory, 0x102, &[0]),
        Err(InterpError::Misaligned {
            addr: 0x102,
            bytes: 4
        })
    );
    assert_eq!(
        run(&mut interp, &mut memory, 0x200, &[0]),
        Err(InterpError::OutOfBounds {
            addr: 0x200,
            bytes: 4
        })
    );
    assert_eq!(
        run(&mut interp, &mut memory, 0x100, &[]),
        Err(InterpError::InputCount {
            expected: 1,
            found: 0
        })
    );
    assert!(run(&mut interp, &mut memory, 0x104, &[0x3f80_0000]).is_ok());

    // Another thread that always changes the value: the loop never ends.
    interp.step_limit = 500;
    let mut always = |memory: &mut Memory, site: atomir_ir::interp::CasSite| {
        let value = memory.read(site.addr, site.bytes).unwrap();
        memory.write(site.addr, site.bytes, value ^ 1).unwrap();
    };
    let inputs = Inputs {
        addr: 0x100,
        operands: &[0],
        new_values: &[],
    };
    assert_eq!(
        interp.run_with(&expansion, &mut memory, inputs, &mut always),
        Err(InterpError::StepLimitExceeded { limit: 500 })
    );

    // An undefined register and an ill-typed primitive.
    let mut broken = expansion.clone();
    let ghost = Var::from_u32(10_000);
    broken.blocks[Block::from_u32(0)].prims.insert(
        0,
        Prim::PtrAdd {
            dst: broken.addr,
            ptr: ghost,
            bytes: 0,
        },
    );
    let inputs = Inputs {
        addr: 0x100,
        operands: &[0],
        new_values: &[],
    };
    assert_eq!(
        interp.run(&broken, &mut memory, inputs),
        Err(InterpError::UndefinedVar(ghost))
    );
    let mut broken = expansion.clone();
    let operand = broken.operands[0];
    broken.blocks[Block::from_u32(0)].prims.insert(
        0,
        Prim::PtrAdd {
            dst: broken.addr,
            ptr: operand,
            bytes: 0,
        },
    );
    assert!(matches!(
        interp.run(&broken, &mut memory, inputs),
        Err(InterpError::Type(_))
    ));
}
