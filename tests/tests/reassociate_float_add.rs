//! The opt-in warp-combined f32 add (`ptx:…+reassociate-float-add`): it changes exactly the
//! relaxed scalar f32 add and sub cells, each to `WarpNative` with the recorded rewrite (an exact
//! one whose native add flushes, on global or generic memory before PTX ISA 9.4, from its
//! default CAS loop: the option accepts the flushing add, and its code flushes); every other
//! verdict is the default's; and the combined add keeps the node's scope and space on
//! its one atom. (Its meaning is proven in `atomir-ir`'s `expand_warp` test, its syntax by the
//! PTX matrix, its results on the GPU by the contention benchmark.)

use atomir::ptx::PtxRule;
use atomir::Target;
use atomir_ir::matrix::cells;
use atomir_ir::semantics::FloatMode;
use atomir_ir::{
    AddressSpace, AtomicOp, ElemType, ElementLowering, FloatLaxity, Lowering, MemoryOrder, Rewrite,
    VectorShape, WarpCombine,
};

#[test]
fn the_opt_in_changes_only_relaxed_scalar_f32_adds() {
    for (name, f32_flushes) in [
        ("ptx:sm_70", true),
        ("ptx:sm_90", true),
        ("ptx:sm_90@9.4", false),
    ] {
        let default: Target = name.parse().unwrap();
        let opt_in: Target = format!("{name}+reassociate-float-add").parse().unwrap();
        let mut changed = 0;
        for cell in cells() {
            let node = cell.node();
            let (plain, combined) = (default.legalize(&node), opt_in.legalize(&node));
            let f32_add = matches!(cell.op, AtomicOp::Add | AtomicOp::Sub)
                && cell.ty == ElemType::F32
                && cell.shape == VectorShape::Scalar
                && cell.order == MemoryOrder::Relaxed;
            let exact_by_loop = f32_flushes
                && cell.laxity.is_none()
                && matches!(cell.space, AddressSpace::Global | AddressSpace::Generic);
            let by_loop = Rewrite::ExactForWeakerNative {
                rule: PtxRule::F32AddFlushesWithoutNoftz.rule(),
            };
            if f32_add && exact_by_loop {
                let default = plain.as_ref().expect("an f32 add is accepted");
                // Relaxed and scalar: serially folded by the warp (sm_70 and later).
                assert_eq!(
                    Ok(default.lowering),
                    Lowering::whole(ElementLowering::CasLoop).with_warp(WarpCombine::SerialFold),
                    "{name}: {cell}"
                );
                assert!(default.rewrites.contains(&by_loop), "{name}: {cell}");
                let node = cell.node();
                let Target::Ptx(ptx) = &opt_in else {
                    unreachable!("a PTX target")
                };
                assert_eq!(ptx.float_mode(&node), FloatMode::FlushSubnormals, "{cell}");
            }
            let expected = plain.is_ok() && f32_add;
            let marked = combined
                .as_ref()
                .is_ok_and(|l| l.rewrites.contains(&Rewrite::FloatAddReassociated));
            assert_eq!(marked, expected, "{opt_in}: {cell}");
            if expected {
                changed += 1;
                let legality = combined.unwrap();
                assert_eq!(
                    legality.lowering,
                    Lowering::whole(ElementLowering::Native)
                        .with_warp(WarpCombine::Fold)
                        .unwrap(),
                    "{opt_in}: {cell}"
                );
                // The rest of the verdict is the default's native add's (sub as add of the
                // negation, `red`): where the default is the exact CAS loop, the `ftz` node's.
                let mut rest = legality.rewrites.clone();
                rest.retain(|rewrite| *rewrite != Rewrite::FloatAddReassociated);
                let native = if exact_by_loop {
                    let mut ftz = cell.node();
                    ftz.laxity = Some(FloatLaxity::MayFlushSubnormals);
                    default.legalize(&ftz).expect("the ftz add is accepted")
                } else {
                    plain.unwrap()
                };
                assert_eq!(
                    native.lowering,
                    Lowering::whole(ElementLowering::Native),
                    "{name}: {cell}"
                );
                assert_eq!(rest, native.rewrites, "{opt_in}: {cell}");
            } else {
                match (plain, combined) {
                    (Ok(plain), Ok(combined)) => {
                        assert_eq!(plain, combined, "{opt_in}: {cell}")
                    }
                    (Err(plain), Err(combined)) => {
                        assert_eq!(plain.rule, combined.rule, "{opt_in}: {cell}")
                    }
                    (plain, combined) => {
                        panic!("{opt_in}: {cell}: {plain:?} against {combined:?}")
                    }
                }
            }
        }
        assert!(changed > 0, "{opt_in} changed nothing");
        println!("{opt_in}: {changed} cells combined");
    }
    // Before sm_70 a warp cannot combine: the option is refused with the feature it needs.
    let refused = "ptx:sm_60+reassociate-float-add"
        .parse::<Target>()
        .unwrap_err();
    assert!(refused.to_string().contains("sm_70"), "{refused}");
}

/// The combined add is one `atom`/`red` per path with the node's scope and space, and the
/// order it needs (relaxed: the only one the option changes).
#[test]
fn the_combined_add_keeps_scope_and_space() {
    use atomir::{
        verify, AddressSpace, AtomicInst, Kernel, LowerOptions, Module, Scope, ValueType,
    };
    let target: Target = "ptx:sm_90+reassociate-float-add".parse().unwrap();
    for (scope, space, used, spelled) in [
        (
            Scope::Device,
            AddressSpace::Global,
            true,
            "atom.relaxed.gpu.global.add.f32",
        ),
        (
            Scope::System,
            AddressSpace::Global,
            false,
            "red.relaxed.sys.global.add.f32",
        ),
        (
            Scope::Block,
            AddressSpace::Shared,
            true,
            "atom.relaxed.cta.shared::cta.add.f32",
        ),
    ] {
        let mut kernel = Kernel::new("k");
        let a = kernel.add_param("a", ValueType::Ptr(space));
        let x = kernel.add_param("x", ValueType::scalar(ElemType::F32));
        let mut inst = AtomicInst::new(AtomicOp::Add, ElemType::F32, a, x.into());
        inst.scope = scope;
        inst.space = space;
        kernel.push(inst, used.then_some("r"));
        let module = Module {
            kernels: vec![kernel],
        };
        let module = verify::verify(&module).unwrap();
        let mut ptx = String::new();
        target
            .lower(&module, &LowerOptions::default(), &mut ptx)
            .unwrap();
        // The lane alone and the group's highest lane: one atomic on each path.
        assert_eq!(ptx.matches(spelled).count(), 2, "{spelled}:\n{ptx}");
        assert!(ptx.contains("shfl.sync.idx.b32"), "{ptx}");
        assert!(ptx.contains("add.rn.f32"), "{ptx}");
    }
}
