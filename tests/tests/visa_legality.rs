//! Named rewrites and refusals of the vISA legality table, and their printed form.

use atomir_ir::{
    AddressSpace, AtomicInst, AtomicOp, Backend, ElemType, Kernel, LowerOptions, MemoryOrder,
    Module, Rewrite, Scope, Strategy, ValueType,
};
use atomir_visa::{Platform, VisaTarget};

fn one(op: AtomicOp, ty: ElemType, bound_all_ones: bool, scope: Scope) -> Kernel {
    let mut kernel = Kernel::new("k");
    let addr = kernel.add_param("a", ValueType::Ptr(AddressSpace::Global));
    let operand = if bound_all_ones {
        kernel.constant((1u128 << ty.bits()) - 1).into()
    } else {
        kernel.add_param("b", ValueType::scalar(ty)).into()
    };
    let mut inst = AtomicInst::new(op, ty, addr, operand);
    inst.space = AddressSpace::Global;
    inst.scope = scope;
    inst.order = MemoryOrder::AcqRel;
    kernel.push(inst, Some("r"));
    kernel
}

#[test]
fn inc_with_all_ones_bound_is_native_unbounded_otherwise_a_cas_loop() {
    let target = VisaTarget::new(Platform::Tgllp);
    let k = one(AtomicOp::Inc, ElemType::U32, true, Scope::Device);
    let legality = target
        .legalize_inst(&k, k.insts.keys().next().unwrap())
        .unwrap();
    assert!(legality.rewrites.contains(&Rewrite::UnboundedIncDec));
    assert_eq!(legality.strategy(), Strategy::Rewrite);
    let mut out = String::new();
    target
        .lower(
            &atomir_ir::verify::verify(&Module { kernels: vec![k] }).unwrap(),
            &LowerOptions::default(),
            &mut out,
        )
        .unwrap();
    assert!(
        out.contains("svm_atomic.inc (M1, 8) v_a.0 v_r.0 %null.0 %null.0"),
        "{out}"
    );
    assert!(
        out.contains("fence_global.E\n") && out.contains("fence_global.EL1\n"),
        "{out}"
    );

    let k = one(AtomicOp::Inc, ElemType::U32, false, Scope::Device);
    let legality = target
        .legalize_inst(&k, k.insts.keys().next().unwrap())
        .unwrap();
    assert_eq!(legality.strategy(), Strategy::CasLoop);
    assert!(!legality.rewrites.contains(&Rewrite::UnboundedIncDec));
}

#[test]
fn cluster_scope_widens_to_gpu_and_says_so() {
    let target = VisaTarget::new(Platform::Dg2);
    let k = one(AtomicOp::Add, ElemType::U32, false, Scope::Cluster);
    let legality = target
        .legalize_inst(&k, k.insts.keys().next().unwrap())
        .unwrap();
    assert!(legality.rewrites.contains(&Rewrite::ScopeWidened {
        from: Scope::Cluster,
        to: Scope::Device
    }));
    let mut out = String::new();
    target
        .lower(
            &atomir_ir::verify::verify(&Module { kernels: vec![k] }).unwrap(),
            &LowerOptions::default(),
            &mut out,
        )
        .unwrap();
    assert!(out.contains("lsc_fence.ugm.evict.gpu"), "{out}");
    assert!(
        out.contains("lsc_atomic_iadd.ugm (M1, 16) v_r:d32 flat[v_a]:a64 v_b %null"),
        "{out}"
    );
}

#[test]
fn refusals_name_rules() {
    for (platform, op, ty, rule) in [
        (
            Platform::Pvc,
            AtomicOp::Cas,
            ElemType::B128,
            "visa.no-128-bit",
        ),
        (
            Platform::Tgllp,
            AtomicOp::Add,
            ElemType::F64,
            "visa.no-f64-alu",
        ),
        (
            Platform::Dg2,
            AtomicOp::Inc,
            ElemType::U64,
            "visa.no-int64-alu",
        ),
    ] {
        let k = one(op, ty, false, Scope::Device);
        let refusal = VisaTarget::new(platform)
            .legalize_inst(&k, k.insts.keys().next().unwrap())
            .unwrap_err();
        assert_eq!(refusal.rule.id(), rule, "{platform:?} {op} {ty}");
    }
    // PVC has f64 atomic add (LSC d64) natively.
    let k = one(AtomicOp::Add, ElemType::F64, false, Scope::Device);
    let legality = VisaTarget::new(Platform::Pvc)
        .legalize_inst(&k, k.insts.keys().next().unwrap())
        .unwrap();
    assert_eq!(
        legality.lowering,
        atomir_ir::Lowering::whole(atomir_ir::ElementLowering::Native)
    );
}

#[test]
fn target_names() {
    assert_eq!(
        VisaTarget::parse("PVC+svm").unwrap().to_string(),
        "visa:PVC+svm"
    );
    assert_eq!(
        VisaTarget::parse("tgllp").unwrap().to_string(),
        "visa:TGLLP"
    );
    assert!(VisaTarget::parse("SKL").is_err());
    assert!(atomir_visa::VisaTarget::parse("MTL+lsc").is_err());
}
