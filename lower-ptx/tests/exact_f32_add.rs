//! The f32 add and the subnormals: `atom.add.f32`/`red.add.f32` flush them on global memory
//! (and through a generic address that may point there), so an exact node is printed there as
//! `.add.noftz.f32` from sm_90 and PTX ISA 9.4, and as the exact CAS loop before; a node of
//! laxity `ftz` keeps the native add, and on shared memory the native add is exact and stays.

mod common;

use atomir_ir::semantics::FloatMode;
use atomir_ir::{
    AddressSpace, AtomicNode, AtomicOp, Backend, ElemType, ElementLowering, FloatLaxity, Kernel,
    Lowering, MemoryOrder, Rewrite, Scope, WarpCombine,
};
use atomir_ptx::{PtxRule, PtxTarget};
use common::{first, lower, one};

/// One relaxed device-scope f32 `op` on `space`, of laxity `laxity`.
fn f32_op(op: AtomicOp, space: AddressSpace, laxity: Option<FloatLaxity>, used: bool) -> Kernel {
    let mut kernel = one(
        op,
        ElemType::F32,
        MemoryOrder::Relaxed,
        Scope::Device,
        space,
        used,
    );
    let inst = first(&kernel);
    kernel.atomic_mut(inst).expect("an atomic").laxity = laxity;
    kernel
}

fn node(kernel: &Kernel) -> AtomicNode {
    AtomicNode::of(kernel, kernel.atomic(first(kernel)).expect("an atomic"))
}

const FTZ: Option<FloatLaxity> = Some(FloatLaxity::MayFlushSubnormals);

/// The code's lines without the kernel's comment.
fn body(code: &str) -> Vec<&str> {
    code.lines().filter(|l| !l.starts_with("//")).collect()
}

#[test]
fn below_noftz_an_exact_f32_add_on_global_memory_is_the_exact_cas_loop() {
    let named = Rewrite::ExactForWeakerNative {
        rule: PtxRule::F32AddFlushesWithoutNoftz.rule(),
    };
    for target in [
        "sm_60",
        "sm_70",
        "sm_80",
        "sm_90",
        "sm_90@9.3",
        "sm_89@9.5",
        "sm_88",
    ] {
        let backend = PtxTarget::parse(target).unwrap();
        for space in [AddressSpace::Global, AddressSpace::Generic] {
            for op in [AtomicOp::Add, AtomicOp::Sub] {
                for used in [true, false] {
                    let kernel = f32_op(op, space, None, used);
                    let legality = backend.legalize(&node(&kernel)).unwrap();
                    // Relaxed and scalar: the warp's lanes at one address serially folded
                    // where the target has the warp instructions (sm_70), else a loop per lane.
                    let warp = if target == "sm_60" {
                        WarpCombine::PerLane
                    } else {
                        WarpCombine::SerialFold
                    };
                    assert_eq!(
                        legality.lowering,
                        Lowering::whole(ElementLowering::CasLoop)
                            .with_warp(warp)
                            .unwrap(),
                        "{target} {space:?}"
                    );
                    assert!(legality.rewrites.contains(&named), "{target}: {legality:?}");
                    assert_eq!(backend.float_mode(&node(&kernel)), FloatMode::Ieee);
                    let code = lower(target, kernel);
                    let arithmetic = if op == AtomicOp::Add { "add" } else { "sub" };
                    // The loop's arithmetic rounds to nearest and keeps subnormals (no `.ftz`).
                    assert!(
                        code.contains(&format!("\t{arithmetic}.rn.f32 ")),
                        "{target}: {code}"
                    );
                    assert!(code.contains(".cas.b32 "), "{target}: {code}");
                    assert!(!code.contains("ftz"), "{target}: {code}");
                    assert!(!code.contains(".add.f32"), "{target}: {code}");
                }
            }
        }
    }
}

#[test]
fn an_ftz_node_keeps_the_native_add_and_its_flushing() {
    let backend = PtxTarget::parse("sm_90").unwrap();
    for space in [AddressSpace::Global, AddressSpace::Generic] {
        let kernel = f32_op(AtomicOp::Add, space, FTZ, false);
        let legality = backend.legalize(&node(&kernel)).unwrap();
        assert_eq!(
            legality.lowering,
            Lowering::whole(ElementLowering::Native),
            "{space:?}"
        );
        assert_eq!(
            backend.float_mode(&node(&kernel)),
            FloatMode::FlushSubnormals
        );
        let code = lower("sm_90", kernel);
        assert!(
            code.contains("red.relaxed.gpu.") && code.contains(".add.f32 [%a], %b;"),
            "{code}"
        );
    }
    // From PTX ISA 9.4 too: the node allows flushing, so the plain form is printed.
    let code = lower(
        "sm_90@9.4",
        f32_op(AtomicOp::Add, AddressSpace::Global, FTZ, true),
    );
    assert_eq!(
        body(&code),
        ["\tatom.relaxed.gpu.global.add.f32 %r, [%a], %b;"],
        "{code}"
    );
}

#[test]
fn on_shared_memory_the_native_add_is_exact_and_stays() {
    for target in ["sm_70", "sm_90"] {
        let backend = PtxTarget::parse(target).unwrap();
        for laxity in [None, FTZ] {
            let kernel = f32_op(AtomicOp::Add, AddressSpace::Shared, laxity, true);
            assert_eq!(backend.float_mode(&node(&kernel)), FloatMode::Ieee);
            let legality = backend.legalize(&node(&kernel)).unwrap();
            assert_eq!(
                legality.lowering,
                Lowering::whole(ElementLowering::Native),
                "{target}"
            );
            // `.shared` (`.shared::cta` from sm_90), the plain add, one instruction.
            let code = lower(target, kernel);
            let lines = body(&code);
            assert_eq!(lines.len(), 1, "{target}: {code}");
            assert!(
                lines[0].starts_with("\tatom.relaxed.gpu.shared")
                    && lines[0].ends_with(".add.f32 %r, [%a], %b;"),
                "{target}: {code}"
            );
        }
    }
}

#[test]
fn from_ptx_94_on_sm90_an_exact_f32_add_is_one_noftz_instruction() {
    let global = |used| f32_op(AtomicOp::Add, AddressSpace::Global, None, used);
    assert_eq!(
        body(&lower("sm_90@9.4", global(false))),
        ["\tred.relaxed.gpu.global.add.noftz.f32 [%a], %b;"]
    );
    let code = lower("sm_90@9.4", global(true));
    assert!(
        code.contains("atom.relaxed.gpu.global.add.noftz.f32 %r, [%a], %b;"),
        "{code}"
    );
    for target in ["sm_90@9.4", "sm_120@9.5"] {
        let backend = PtxTarget::parse(target).unwrap();
        for space in [
            AddressSpace::Global,
            AddressSpace::Generic,
            AddressSpace::Shared,
        ] {
            let kernel = f32_op(AtomicOp::Add, space, None, true);
            assert_eq!(backend.float_mode(&node(&kernel)), FloatMode::Ieee);
            let legality = backend.legalize(&node(&kernel)).unwrap();
            assert_eq!(
                legality.lowering,
                Lowering::whole(ElementLowering::Native),
                "{target} {space:?}"
            );
        }
    }
}
