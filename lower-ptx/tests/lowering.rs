//! Properties of the PTX lowering that the ptxas matrix cannot see: meaning, not syntax.

mod common;

use atomir_ir::{
    AddressSpace, AtomicInst, AtomicOp, Backend, ElemType, ElementLowering, GenericParams, Kernel,
    LowerOptions, Lowering, MemoryOrder, Module, Rewrite, Scope, Strategy, ValueType, VectorShape,
    WarpCombine,
};
use atomir_ptx::PtxTarget;
use common::{first, lower, lower_with, on_global, one};

#[test]
fn seq_cst_is_a_fence_then_acquire_and_the_scope_is_always_printed() {
    let text = lower(
        "sm_90",
        one(
            AtomicOp::Add,
            ElemType::U32,
            MemoryOrder::SeqCst,
            Scope::System,
            AddressSpace::Global,
            true,
        ),
    );
    assert!(
        text.contains("fence.sc.sys;\n\tatom.acquire.sys.global.add.u32 %r, [%a], %b;"),
        "{text}"
    );
    let text = lower(
        "sm_90",
        one(
            AtomicOp::Add,
            ElemType::U32,
            MemoryOrder::Relaxed,
            Scope::Device,
            AddressSpace::Generic,
            true,
        ),
    );
    assert!(text.contains("atom.relaxed.gpu.add.u32"), "{text}");
}

#[test]
fn a_64_bit_exch_on_cluster_shared_memory_is_relaxed_between_fences() {
    let exch = |ty, order, target| {
        lower(
            target,
            one(
                AtomicOp::Exch,
                ty,
                order,
                Scope::Device,
                AddressSpace::SharedCluster,
                false,
            ),
        )
    };
    let text = exch(ElemType::U64, MemoryOrder::Acquire, "sm_90");
    assert!(
        text.contains(
            "\tatom.relaxed.gpu.shared::cluster.exch.b64 %_d0, [%a], %b;\n\tfence.acquire.gpu;"
        ),
        "{text}"
    );
    let text = exch(ElemType::F64, MemoryOrder::AcqRel, "sm_90");
    assert!(
        text.contains("\tfence.release.gpu;\n\tatom.relaxed.gpu.shared::cluster.exch.b64 %_d0, [%a], %b;\n\tfence.acquire.gpu;"),
        "{text}"
    );
    let text = exch(ElemType::U64, MemoryOrder::SeqCst, "sm_90");
    assert!(
        text.contains("\tfence.sc.gpu;\n\tatom.relaxed.gpu.shared::cluster.exch.b64 %_d0, [%a], %b;\n\tfence.acquire.gpu;"),
        "{text}"
    );
    // Without one-direction fences the order stays on the atom (a `fence.acq_rel` after it
    // would be a full fence), as it does for 32 bits.
    let text = exch(ElemType::U64, MemoryOrder::Acquire, "sm_90@8.5");
    assert!(
        text.contains("\tatom.acquire.gpu.shared::cluster.exch.b64") && !text.contains("fence"),
        "{text}"
    );
    let text = exch(ElemType::U32, MemoryOrder::Acquire, "sm_90");
    assert!(
        text.contains("\tatom.acquire.gpu.shared::cluster.exch.b32") && !text.contains("fence"),
        "{text}"
    );
}

#[test]
fn before_sm70_orders_are_membars_around_a_relaxed_op() {
    let text = lower(
        "sm_60",
        one(
            AtomicOp::Add,
            ElemType::U32,
            MemoryOrder::AcqRel,
            Scope::Block,
            AddressSpace::Shared,
            true,
        ),
    );
    assert!(
        text.contains("membar.cta;\n\tatom.cta.shared.add.u32 %r, [%a], %b;\n\tmembar.cta;"),
        "{text}"
    );
    let text = lower(
        "sm_60",
        one(
            AtomicOp::Add,
            ElemType::U32,
            MemoryOrder::Acquire,
            Scope::Device,
            AddressSpace::Global,
            true,
        ),
    );
    assert!(
        text.starts_with(
            "// kernel k (ptx:sm_60@8.8)\n\tatom.gpu.global.add.u32 %r, [%a], %b;\n\tmembar.gl;"
        ),
        "{text}"
    );
}

#[test]
fn red_only_for_unused_relaxed_or_release_results() {
    for order in MemoryOrder::ALL {
        let kernel = one(
            AtomicOp::Add,
            ElemType::U32,
            *order,
            Scope::Device,
            AddressSpace::Global,
            false,
        );
        let text = lower("sm_90", kernel);
        let red = matches!(order, MemoryOrder::Relaxed | MemoryOrder::Release);
        assert_eq!(text.contains("\tred."), red, "{order}: {text}");
        assert_eq!(text.contains("\tatom."), !red, "{order}: {text}");
    }
}

#[test]
fn cluster_scope_is_widened_before_sm90_and_kept_after() {
    let kernel = one(
        AtomicOp::Or,
        ElemType::B32,
        MemoryOrder::Relaxed,
        Scope::Cluster,
        AddressSpace::Global,
        true,
    );
    let old = PtxTarget::parse("sm_80").unwrap();
    let legality = old.legalize_inst(&kernel, first(&kernel)).unwrap();
    assert!(legality.rewrites.contains(&Rewrite::ScopeWidened {
        from: Scope::Cluster,
        to: Scope::Device
    }));
    assert!(lower("sm_80", kernel.clone()).contains("atom.relaxed.gpu.global.or.b32"));
    assert!(lower("sm_90", kernel).contains("atom.relaxed.cluster.global.or.b32"));
}

#[test]
fn sub_negates_in_registers_and_constants_at_compile_time() {
    let text = lower(
        "sm_90",
        one(
            AtomicOp::Sub,
            ElemType::S32,
            MemoryOrder::Relaxed,
            Scope::Device,
            AddressSpace::Global,
            true,
        ),
    );
    assert!(
        text.contains("neg.s32 %_r0, %b;\n\tatom.relaxed.gpu.global.add.s32 %r, [%a], %_r0;"),
        "{text}"
    );
    // INT_MIN negates to itself: the literal is computed, never written as `-(-2147483648)`.
    let mut kernel = Kernel::new("k");
    let addr = kernel.add_param("a", ValueType::Ptr(AddressSpace::Global));
    let int_min = kernel.constant(0x8000_0000);
    kernel.push(
        AtomicInst::new(AtomicOp::Sub, ElemType::S32, addr, int_min.into()),
        Some("r"),
    );
    let text = lower("sm_90", kernel);
    assert!(text.contains("mov.b32 %_r0, 0x80000000;"), "{text}");
    assert!(!text.contains("--"), "{text}");
}

#[test]
fn refusals_name_the_rule_and_the_smallest_target() {
    let kernel = one(
        AtomicOp::Cas,
        ElemType::B128,
        MemoryOrder::Relaxed,
        Scope::Device,
        AddressSpace::Global,
        true,
    );
    let backend = PtxTarget::parse("sm_80").unwrap();
    let refusal = backend.legalize_inst(&kernel, first(&kernel)).unwrap_err();
    assert_eq!(refusal.rule.id(), "ptx.b128-needs-sm90");
    assert_eq!(
        refusal.smallest_target.as_ref().map(|t| t.name()),
        Some("ptx:sm_90@8.3")
    );
    let system = one(
        AtomicOp::Exch,
        ElemType::B128,
        MemoryOrder::Relaxed,
        Scope::System,
        AddressSpace::Global,
        true,
    );
    let refusal = backend.legalize_inst(&system, first(&system)).unwrap_err();
    assert_eq!(
        refusal.smallest_target.as_ref().map(|t| t.name()),
        Some("ptx:sm_90@8.4")
    );
}

/// The ISA a 128-bit refusal names is the one of its smallest target: `.sys` needs PTX ISA 8.4
/// in every space (ptxas 13.5), so a system-scope node below that is refused by the `.sys` rule.
#[test]
fn b128_refusals_name_the_isa_of_their_smallest_target() {
    let atomics = ["sm_80", "sm_90@8.2", "sm_90@8.3"];
    let loads = ["sm_70@8.2", "sm_80@8.3", "sm_90@8.3"];
    for (op, used, rule, targets) in [
        (AtomicOp::Cas, true, "ptx.b128-sys-needs-ptx84", atomics),
        (AtomicOp::Exch, true, "ptx.b128-sys-needs-ptx84", atomics),
        (
            AtomicOp::Store,
            false,
            "ptx.ld-st-b128-sys-needs-ptx84",
            loads,
        ),
    ] {
        let isa = "8.4";
        for space in [
            AddressSpace::Global,
            AddressSpace::Shared,
            AddressSpace::Generic,
        ] {
            for target in targets {
                let kernel = one(
                    op,
                    ElemType::B128,
                    MemoryOrder::Relaxed,
                    Scope::System,
                    space,
                    used,
                );
                let backend = PtxTarget::parse(target).unwrap();
                let refusal = backend.legalize_inst(&kernel, first(&kernel)).unwrap_err();
                let smallest = refusal
                    .smallest_target
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                assert_eq!(refusal.rule.id(), rule, "{op:?} {space:?} {target}");
                assert!(smallest.ends_with(&format!("@{isa}")), "{smallest}");
                assert!(
                    refusal.reason.contains(&format!("PTX ISA {isa}")),
                    "{target}: {}",
                    refusal.reason
                );
            }
        }
    }
}

#[test]
fn emulations_follow_the_target() {
    let check = |target: &str, op, ty, expected: Lowering| {
        let kernel = one(
            op,
            ty,
            MemoryOrder::Relaxed,
            Scope::Device,
            AddressSpace::Global,
            true,
        );
        let backend = PtxTarget::parse(target).unwrap();
        let legality = backend.legalize_inst(&kernel, first(&kernel)).unwrap();
        assert_eq!(legality.lowering, expected, "{target} {op} {ty}");
    };
    // A scalar 16-bit loop starts on `cas.b16` where it exists and turns into the masked loop
    // on its 32-bit word once contended; below, it is the masked loop from the start.
    check(
        "sm_70",
        AtomicOp::Exch,
        ElemType::U16,
        Lowering::whole(ElementLowering::CasThenMaskedLoop),
    );
    check(
        "sm_60",
        AtomicOp::Exch,
        ElemType::U16,
        Lowering::whole(ElementLowering::MaskedCasLoop),
    );
    check(
        "sm_90",
        AtomicOp::Or,
        ElemType::U8,
        Lowering::whole(ElementLowering::MaskedOp),
    );
    // Float max by the integer min/max atomics, a CAS loop only for NaNs; relaxed, once per
    // warp and address where the target has the warp instructions.
    check(
        "sm_90",
        AtomicOp::Max,
        ElemType::F32,
        Lowering::whole(ElementLowering::IntMinMax)
            .with_warp(WarpCombine::Fold)
            .unwrap(),
    );
    check(
        "sm_60",
        AtomicOp::Min,
        ElemType::F64,
        Lowering::whole(ElementLowering::IntMinMax),
    );
    // The NaN-propagating maximum has no integer form.
    check(
        "sm_90",
        AtomicOp::FMaximum,
        ElemType::F32,
        Lowering::whole(ElementLowering::CasLoop),
    );
    check(
        "sm_90",
        AtomicOp::Inc,
        ElemType::U64,
        Lowering::whole(ElementLowering::CasLoop),
    );
    // A relaxed scalar f16/bf16 add on global memory: the warp's serial fold, whether the
    // scalar atom is ptxas's CAS loop (bf16 on sm_90) or the target has none (bf16 on sm_80).
    let serial_fold = Lowering::whole(ElementLowering::CasLoop)
        .with_warp(WarpCombine::SerialFold)
        .unwrap();
    check("sm_80", AtomicOp::Add, ElemType::Bf16, serial_fold);
    check("sm_90", AtomicOp::Sub, ElemType::Bf16, serial_fold);
    check(
        "sm_60",
        AtomicOp::Add,
        ElemType::F16,
        Lowering::whole(ElementLowering::MaskedCasLoop),
    );
}

/// Float min/max by the integer atomics combines a warp's lanes (`WarpIntMinMax`) exactly where
/// it is relaxed, scalar, f32 or f64, and the target has the warp instructions (sm_70 on); every
/// other cell keeps what it had: `IntMinMax` (split for a vector) at other orders and on sm_60,
/// the CAS loop (or a native form) for f16 and the NaN-propagating maximum. The combined code
/// groups the lanes, shuffles 64-bit keys as two halves for f64, and keeps both integer `atom`s.
#[test]
fn relaxed_scalar_float_min_max_combines_the_warp() {
    let warp_int_min_max = Lowering::whole(ElementLowering::IntMinMax)
        .with_warp(WarpCombine::Fold)
        .unwrap();
    let mut combined = 0;
    for target in ["sm_60", "sm_70", "sm_80", "sm_90"] {
        let backend = PtxTarget::parse(target).unwrap();
        let warps = target != "sm_60";
        for op in [
            AtomicOp::Max,
            AtomicOp::Min,
            AtomicOp::FMaximumNum,
            AtomicOp::FMinimumNum,
            AtomicOp::FMaximum,
        ] {
            for ty in [ElemType::F16, ElemType::F32, ElemType::F64] {
                for order in [
                    MemoryOrder::Relaxed,
                    MemoryOrder::Acquire,
                    MemoryOrder::Release,
                    MemoryOrder::AcqRel,
                    MemoryOrder::SeqCst,
                ] {
                    for shape in [VectorShape::Scalar, VectorShape::V2] {
                        let kernel = on_global(op, ty, order, shape);
                        let Ok(legality) = backend.legalize_inst(&kernel, first(&kernel)) else {
                            continue;
                        };
                        let by_int =
                            op != AtomicOp::FMaximum && matches!(ty, ElemType::F32 | ElemType::F64);
                        let expected = match () {
                            _ if !by_int => legality.lowering,
                            _ if shape.is_vector() => {
                                Lowering::per_element(ElementLowering::IntMinMax, shape)
                            }
                            _ if order == MemoryOrder::Relaxed && warps => warp_int_min_max,
                            _ => Lowering::whole(ElementLowering::IntMinMax),
                        };
                        let what = format!("{target} {op} {ty} {order} {shape:?}");
                        assert_eq!(legality.lowering, expected, "{what}");
                        assert_ne!(
                            by_int,
                            matches!(
                                legality.lowering.element(),
                                ElementLowering::CasLoop
                                    | ElementLowering::CasThenMaskedLoop
                                    | ElementLowering::MaskedCasLoop
                                    | ElementLowering::Native
                            ),
                            "{what}: {:?}",
                            legality.lowering
                        );
                        let code = lower(target, kernel);
                        let is_combined = expected == warp_int_min_max;
                        assert_eq!(
                            code.contains("match.any.sync.b64"),
                            is_combined,
                            "{what}:\n{code}"
                        );
                        if is_combined {
                            combined += 1;
                            let bits = ty.bits();
                            let (signed, unsigned) = match op {
                                AtomicOp::Max | AtomicOp::FMaximumNum => ("max", "min"),
                                _ => ("min", "max"),
                            };
                            for atom in [
                                format!(".{signed}.s{bits} "),
                                format!(".{unsigned}.u{bits} "),
                            ] {
                                assert!(code.contains(&atom), "{what}: no {atom}\n{code}");
                            }
                            // The key's fold on the key's width.
                            let fold = format!("{signed}.u{bits} ");
                            assert!(code.contains(&fold), "{what}: no {fold}\n{code}");
                            assert!(code.contains("bar.warp.sync"), "{what}:\n{code}");
                            assert!(code.contains(".cas.b"), "{what}: no NaN loop\n{code}");
                        }
                    }
                }
            }
        }
    }
    // sm_70, sm_80 and sm_90: four ops on two types.
    assert_eq!(combined, 3 * 4 * 2);
}

/// Relaxed 8/16-bit add/sub/min/max combine a warp's lanes from sm_70 (`match.any.sync`): add
/// and sub on global memory one masked loop per 32-bit word, min and max one loop per address; any other order, an op without an exact fold, a vector or an
/// older target keeps one loop per lane. From sm_70 a lone lane's scalar 16-bit loop starts on
/// `cas.b16` and turns into the masked loop on its 32-bit word once contended, an 8-bit one (or
/// 16-bit on sm_60) is masked in its 32-bit word from the start.
#[test]
fn relaxed_small_integer_loops_combine_the_warp() {
    let check = |target: &str, op, ty, order, shape, expected: Lowering| {
        let kernel = on_global(op, ty, order, shape);
        let backend = PtxTarget::parse(target).unwrap();
        let legality = backend.legalize_inst(&kernel, first(&kernel)).unwrap();
        assert_eq!(legality.lowering, expected, "{target} {op} {ty} {order}");
        let code = lower(target, kernel);
        let combined = code.contains("match.any.sync.b64");
        assert_eq!(
            combined,
            expected.warp() != WarpCombine::PerLane,
            "{target} {op} {ty} {order}:\n{code}"
        );
        // A 16-bit loop starts on `cas.b16` and goes on as the masked loop on its word.
        let on_cas_b16 = code.contains(".cas.b16");
        let starts_on_cas_b16 = expected.element() == ElementLowering::CasThenMaskedLoop;
        assert_eq!(
            on_cas_b16, starts_on_cas_b16,
            "{target} {op} {ty} {order}:\n{code}"
        );
        assert!(
            !starts_on_cas_b16 || code.contains(".cas.b32"),
            "{target} {op} {ty} {order}: no word loop\n{code}"
        );
        // From sm_80 a cheap test that every key is distinct runs first; `match.any.sync`
        // runs only where it fails.
        let tested = code.contains("redux.sync.or.b32");
        let from_sm80 = target != "sm_70" && target != "sm_60";
        assert_eq!(
            tested,
            combined && from_sm80,
            "{target} {op} {ty} {order}:\n{code}"
        );
    };
    let scalar = VectorShape::Scalar;
    let relaxed = MemoryOrder::Relaxed;
    for (op, ty) in [
        (AtomicOp::Add, ElemType::U8),
        (AtomicOp::Sub, ElemType::S16),
        (AtomicOp::Min, ElemType::S8),
        (AtomicOp::Max, ElemType::U16),
    ] {
        let loop_alone = if ty.bits() == 16 {
            ElementLowering::CasThenMaskedLoop
        } else {
            ElementLowering::MaskedCasLoop
        };
        // Add and sub on global memory per 32-bit word, min and max per address.
        let combined = if matches!(op, AtomicOp::Add | AtomicOp::Sub) {
            Lowering::whole(ElementLowering::MaskedCasLoop).with_warp(WarpCombine::WordFold)
        } else {
            Lowering::whole(loop_alone).with_warp(WarpCombine::Fold)
        }
        .unwrap();
        let alone = Lowering::whole(loop_alone);
        check("sm_70", op, ty, relaxed, scalar, combined);
        check("sm_90", op, ty, relaxed, scalar, combined);
        check(
            "sm_60",
            op,
            ty,
            relaxed,
            scalar,
            Lowering::whole(ElementLowering::MaskedCasLoop),
        );
        for order in [
            MemoryOrder::Acquire,
            MemoryOrder::Release,
            MemoryOrder::SeqCst,
        ] {
            check("sm_90", op, ty, order, scalar, alone);
        }
        check(
            "sm_90",
            op,
            ty,
            relaxed,
            VectorShape::V2,
            Lowering::per_element(ElementLowering::MaskedCasLoop, VectorShape::V2),
        );
    }
    check(
        "sm_90",
        AtomicOp::Exch,
        ElemType::U8,
        relaxed,
        scalar,
        Lowering::whole(ElementLowering::MaskedCasLoop),
    );
    check(
        "sm_90",
        AtomicOp::Exch,
        ElemType::U16,
        relaxed,
        scalar,
        Lowering::whole(ElementLowering::CasThenMaskedLoop),
    );
}

/// A relaxed scalar f16/bf16 add or sub is serially folded by a warp's lanes on global and
/// generic memory (faster than ptxas's CAS loop for the scalar atom at 1, 32 and 4096
/// addresses on an H200); on shared memory, ordered, with `+plain-loops` or where the client
/// opted into the packed atom, the lowering is what it was.
#[test]
fn scalar_half_add_is_serially_folded_on_global_memory() {
    let check = |target: &str, ty, order, space, expected: Lowering| {
        let kernel = one(AtomicOp::Add, ty, order, Scope::Device, space, true);
        let backend = PtxTarget::parse(target).unwrap();
        let legality = backend.legalize_inst(&kernel, first(&kernel)).unwrap();
        assert_eq!(legality.lowering, expected, "{target} {ty} {order} {space}");
    };
    let serial_fold = Lowering::whole(ElementLowering::CasLoop)
        .with_warp(WarpCombine::SerialFold)
        .unwrap();
    let native = Lowering::whole(ElementLowering::Native);
    let relaxed = MemoryOrder::Relaxed;
    for ty in [ElemType::F16, ElemType::Bf16] {
        for space in [AddressSpace::Global, AddressSpace::Generic] {
            check("sm_90", ty, relaxed, space, serial_fold);
            check("sm_90+plain-loops", ty, relaxed, space, native);
            check("sm_90", ty, MemoryOrder::Acquire, space, native);
        }
        check("sm_90", ty, relaxed, AddressSpace::Shared, native);
        let packed = PtxTarget::parse("sm_90+packed-half-add").unwrap();
        let kernel = one(
            AtomicOp::Add,
            ty,
            relaxed,
            Scope::Device,
            AddressSpace::Global,
            true,
        );
        let legality = packed.legalize_inst(&kernel, first(&kernel)).unwrap();
        assert!(
            legality.rewrites.contains(&Rewrite::HalfAddOnPackedWord),
            "{ty}: {legality:?}"
        );
    }
}

#[test]
fn vectors_are_native_only_on_global_from_sm90() {
    let vector = |op, ty, space, target: &str| {
        let mut kernel = Kernel::new("k");
        let addr = kernel.add_param("a", ValueType::Ptr(space));
        let b = kernel.add_param("b", ValueType::Data(ty, VectorShape::V4));
        let mut inst = AtomicInst::new(op, ty, addr, b.into());
        inst.shape = VectorShape::V4;
        inst.space = space;
        kernel.push(inst, Some("r"));
        let backend = PtxTarget::parse(target).unwrap();
        backend
            .legalize_inst(&kernel, first(&kernel))
            .unwrap()
            .strategy()
    };
    // The exact f32 add is native on global memory where it is `.noftz` (PTX ISA 9.4); before,
    // the vector `atom.add.f32` flushes subnormals and the elements are exact CAS loops.
    let add = |space, target| vector(AtomicOp::Add, ElemType::F32, space, target);
    assert_eq!(add(AddressSpace::Global, "sm_90@9.4"), Strategy::Native);
    assert_eq!(add(AddressSpace::Global, "sm_90"), Strategy::Split);
    assert_eq!(add(AddressSpace::Shared, "sm_90@9.4"), Strategy::Split);
    assert_eq!(add(AddressSpace::Global, "sm_90@8.0"), Strategy::Split);
    assert_eq!(add(AddressSpace::Global, "sm_80"), Strategy::Split);
    // A generic address may point to shared memory, where a vector atom is undefined.
    assert_eq!(add(AddressSpace::Generic, "sm_90@9.4"), Strategy::Split);
    // The native f16/bf16 vector min/max do not give the canonical NaN for two NaNs.
    for ty in [
        ElemType::F16,
        ElemType::Bf16,
        ElemType::F16x2,
        ElemType::Bf16x2,
    ] {
        assert_eq!(
            vector(AtomicOp::Add, ty, AddressSpace::Global, "sm_90"),
            Strategy::Native
        );
        for op in [AtomicOp::Min, AtomicOp::Max] {
            assert_eq!(
                vector(op, ty, AddressSpace::Global, "sm_90"),
                Strategy::Split
            );
        }
    }
}

/// A kernel of one v4.f32 add of laxity `ftz` (so that its native form is the plain
/// `atom.add.f32`) through a parameter of `pointer` (the instruction's space `generic`),
/// lowered for sm_90 as a complete module or as a fragment.
fn generic_vector_add(pointer: AddressSpace, options: &LowerOptions) -> String {
    let mut kernel = Kernel::new("k");
    let addr = kernel.add_param("a", ValueType::Ptr(pointer));
    let b = kernel.add_param("b", ValueType::Data(ElemType::F32, VectorShape::V4));
    let mut inst = AtomicInst::new(AtomicOp::Add, ElemType::F32, addr, b.into());
    inst.shape = VectorShape::V4;
    inst.order = MemoryOrder::AcqRel;
    inst.laxity = Some(atomir_ir::FloatLaxity::MayFlushSubnormals);
    kernel.push(inst, Some("r"));
    lower_with("sm_90", kernel, options)
}

#[test]
fn a_module_entry_takes_its_generic_pointer_parameters_as_global() {
    // A launch hands an `.entry` only global addresses: the entry converts the parameter and
    // the node is a `.global` one, with the vector form only global memory has, its order kept.
    let entry = generic_vector_add(AddressSpace::Generic, &LowerOptions::module());
    assert!(entry.contains("cvta.to.global.u64 %a, %a;"), "{entry}");
    assert!(
        entry.contains("atom.acq_rel.gpu.global.add.v4.f32 {%r$0, %r$1, %r$2, %r$3}, [%a],"),
        "{entry}"
    );
    // A fragment's generic register may hold any address: split, generic, unconverted.
    let fragment = generic_vector_add(AddressSpace::Generic, &LowerOptions::fragment());
    assert!(!fragment.contains("cvta"), "{fragment}");
    assert!(!fragment.contains(".global"), "{fragment}");
    assert_eq!(
        fragment.matches("atom.acq_rel.gpu.add.f32").count(),
        4,
        "{fragment}"
    );
    // A module whose client says its generic parameters may point anywhere (it calls the
    // kernels as functions with shared addresses, say): as the fragment, inside an entry.
    let anywhere = generic_vector_add(
        AddressSpace::Generic,
        &LowerOptions::module().with_generic_params(GenericParams::Anywhere),
    );
    assert!(anywhere.contains(".entry k("), "{anywhere}");
    assert!(!anywhere.contains("cvta.to.global.u64 %a"), "{anywhere}");
    assert!(!anywhere.contains("atom.acq_rel.gpu.global"), "{anywhere}");
    assert_eq!(
        anywhere.matches("atom.acq_rel.gpu.add.f32").count(),
        4,
        "{anywhere}"
    );
    // A generic node through a shared window stays generic in an entry too.
    let window = generic_vector_add(AddressSpace::Shared, &LowerOptions::module());
    assert!(window.contains("cvta.shared"), "{window}");
    assert!(!window.contains("atom.acq_rel.gpu.global"), "{window}");
    assert_eq!(
        window.matches("atom.acq_rel.gpu.add.f32").count(),
        4,
        "{window}"
    );
}

#[test]
fn a_million_atomics_lower_quickly() {
    let mut kernel = Kernel::new("big");
    let addr = kernel.add_param("a", ValueType::Ptr(AddressSpace::Global));
    let b = kernel.add_param("b", ValueType::scalar(ElemType::U32));
    for _ in 0..1_000_000 {
        let mut inst = AtomicInst::new(AtomicOp::Add, ElemType::U32, addr, b.into());
        inst.space = AddressSpace::Global;
        kernel.push(inst, None);
    }
    let module = Module {
        kernels: vec![kernel],
    };
    let backend = PtxTarget::parse("sm_90").unwrap();
    let mut out = String::with_capacity(64 << 20);
    let module = atomir_ir::verify::verify(&module).unwrap();
    let start = std::time::Instant::now();
    backend
        .lower(&module, &LowerOptions::module(), &mut out)
        .unwrap();
    let elapsed = start.elapsed();
    assert_eq!(
        out.matches("red.relaxed.gpu.global.add.u32").count(),
        1_000_000
    );
    println!("1M atomics lowered in {elapsed:?}");
}
