//! Every misuse of the splice API is an error with its rule, never a panic and never work
//! proportional to an id: ids of another kernel, ids out of range, huge ids, bindings of the
//! wrong kind, values the instruction does not have. And the binding types a target states are
//! the ones a splice accepts.

use std::time::{Duration, Instant};

use atomir::{
    verify, AddressSpace, AtomicInst, AtomicOp, ElemType, EntityRef, Fence, Fragment, Inst, Kernel,
    MemoryOrder, Module, Predicate, Scope, SpliceNames, Target, Value, ValueRole, ValueType,
    VectorShape,
};
use proptest::prelude::*;

/// Two kernels whose value ids overlap: `a` (p, x, old) and `b` (q, y, g, old2), and a fence.
fn two_kernels() -> Module {
    Module {
        kernels: vec![kernel_a(), kernel_b()],
    }
}

/// `a` (p, x, old): a u32 add.
fn kernel_a() -> Kernel {
    let mut a = Kernel::new("a");
    let p = a.add_param("p", ValueType::Ptr(AddressSpace::Global));
    let x = a.add_param("x", ValueType::scalar(ElemType::U32));
    let mut add = AtomicInst::new(AtomicOp::Add, ElemType::U32, p, x.into());
    add.space = AddressSpace::Global;
    a.push(add, Some("old"));
    a
}

/// `b` (q, y, g, old2): a predicated v4 f32 max, and a fence. Each call is a new kernel, whose
/// ids have the indices of every other's.
fn kernel_b() -> Kernel {
    let mut b = Kernel::new("b");
    let q = b.add_param("q", ValueType::Ptr(AddressSpace::Shared));
    let y = b.add_param("y", ValueType::Data(ElemType::F32, VectorShape::V4));
    let g = b.add_param("g", ValueType::Pred);
    let mut max = AtomicInst::new(AtomicOp::Max, ElemType::F32, q, y.into());
    max.space = AddressSpace::Shared;
    max.shape = VectorShape::V4;
    max.predicate = Some(Predicate {
        value: g,
        negated: false,
    });
    b.push(max, Some("old2"));
    b.push_fence(Fence {
        order: MemoryOrder::SeqCst,
        scope: Scope::Block,
    });
    b
}

/// Binds the instruction's values as its binding types say (one name, or one per lane).
fn bind_as_stated(target: Target, module: &Module, kernel: usize, inst: Inst) -> SpliceNames {
    let verified = verify::verify(module).unwrap();
    let types = target.binding_types(&verified, kernel, inst).unwrap();
    let mut names = SpliceNames::new("f_").unwrap();
    for value in &types.values {
        let lanes: Vec<String> = (0..value.splice.names)
            .map(|lane| format!("c_{}_{lane}", value.name))
            .collect();
        names.bind_lanes(value.value, lanes.iter().map(String::as_str));
    }
    names
}

const TARGETS: [&str; 5] = [
    "ptx:sm_90",
    "ptx:sm_70",
    "visa:PVC",
    "llvm:x86_64",
    "llvm:nvptx64",
];

#[test]
fn binding_as_the_target_states_splices() {
    let module = two_kernels();
    let verified = verify::verify(&module).unwrap();
    for name in TARGETS {
        let target: Target = name.parse().unwrap();
        for (kernel, inst) in [(0, Inst::new(0)), (1, Inst::new(0)), (1, Inst::new(1))] {
            let names = bind_as_stated(target, &module, kernel, inst);
            let mut fragment = Fragment::default();
            match target.splice(&verified, kernel, inst, &names, &mut fragment) {
                Ok(_) => assert!(fragment.instructions > 0, "{target}: no code"),
                // Refused by the target, not for the bindings.
                Err(error) => assert!(
                    !error.refusal.rule.blames_caller(),
                    "{target}: {kernel}/{inst}: {error}"
                ),
            }
        }
    }
}

#[test]
fn binding_types_name_each_role_and_type() {
    let module = two_kernels();
    let verified = verify::verify(&module).unwrap();
    let max = Inst::new(0);
    let expect = [
        ("ptx:sm_90", ".b64", ".b32", 4, ".pred"),
        ("llvm:x86_64", "ptr", "<4 x float>", 1, "i1"),
        ("llvm:nvptx64", "ptr addrspace(3)", "<4 x float>", 1, "i1"),
        (
            "visa:PVC",
            "v_type=G type=ud num_elts=16 align=GRF",
            "v_type=G type=ud num_elts=16 align=GRF",
            4,
            "v_type=P num_elts=16",
        ),
    ];
    for (name, pointer, lane, lanes, predicate) in expect {
        let target: Target = name.parse().unwrap();
        let types = target.binding_types(&verified, 1, max).unwrap();
        let roles: Vec<ValueRole> = types.values.iter().map(|value| value.role).collect();
        assert_eq!(
            roles,
            [
                ValueRole::Address,
                ValueRole::Operand,
                ValueRole::Predicate,
                ValueRole::Result
            ],
            "{name}"
        );
        let address = types.of_role(ValueRole::Address).next().unwrap();
        assert_eq!(address.splice.ty, pointer, "{name}");
        assert_eq!(address.space, Some(AddressSpace::Shared), "{name}");
        let operand = types.of_role(ValueRole::Operand).next().unwrap();
        assert_eq!(
            (operand.splice.ty.as_str(), operand.splice.names),
            (lane, lanes)
        );
        let guard = types.of_role(ValueRole::Predicate).next().unwrap();
        assert_eq!(guard.splice.ty, predicate, "{name}");
        assert!(!types.of_role(ValueRole::Result).next().unwrap().required);
        let text = types.to_string();
        assert!(text.contains(&format!(
            "address %q (ptr.shared): 1 name of type {pointer}"
        )));
        // A fence reads and defines nothing.
        let fence = target.binding_types(&verified, 1, Inst::new(1)).unwrap();
        assert!(fence.values.is_empty(), "{name}: {fence}");
    }
    // f16x2 lives in a 32-bit register on PTX and is an `i32` in LLVM IR.
    let mut kernel = Kernel::new("h");
    let p = kernel.add_param("p", ValueType::Ptr(AddressSpace::Global));
    let h = kernel.add_param("h", ValueType::scalar(ElemType::F16x2));
    let inst = kernel.push(
        AtomicInst::new(AtomicOp::Add, ElemType::F16x2, p, h.into()),
        None,
    );
    let module = Module {
        kernels: vec![kernel],
    };
    let verified = verify::verify(&module).unwrap();
    for (name, ty) in [("ptx:sm_90", ".b32"), ("llvm:nvptx64", "i32")] {
        let target: Target = name.parse().unwrap();
        let types = target.binding_types(&verified, 0, inst).unwrap();
        assert_eq!(types.get(h).unwrap().splice.ty, ty, "{name}");
    }
}

/// The splice's error for `names`, checking that it leaves the fragment empty.
fn refusal(
    target: Target,
    module: &Module,
    kernel: usize,
    inst: Inst,
    names: &SpliceNames,
) -> String {
    let verified = verify::verify(module).unwrap();
    let mut fragment = Fragment::default();
    fragment.code.push_str("stale");
    let error = target
        .splice(&verified, kernel, inst, names, &mut fragment)
        .expect_err("a misuse is refused");
    assert!(fragment.code.is_empty() && fragment.temps.is_empty());
    assert!(error.refusal.rule.blames_caller(), "{error}");
    let text = error.to_string();
    assert!(!text.starts_with("0:0"), "{text}");
    assert!(text.contains("the call's input is at fault"), "{text}");
    text
}

#[test]
fn each_misuse_is_an_error_that_says_so() {
    let module = two_kernels();
    let target: Target = "ptx:sm_90".parse().unwrap();
    let max = Inst::new(0);
    // Kernel `a`'s names used for kernel `b`'s instruction.
    let names = bind_as_stated(target, &module, 0, Inst::new(0));
    let text = refusal(target, &module, 1, max, &names);
    assert!(text.contains("in kernel `b`, instruction 0"), "{text}");
    assert!(text.contains("kernel `b` did not hand it out"), "{text}");
    // A value of the kernel that the instruction does not have (a fence has none).
    let names = bind_as_stated(target, &module, 1, max);
    let text = refusal(target, &module, 1, Inst::new(1), &names);
    assert!(text.contains("neither reads nor defines"), "{text}");
    // A vector bound to one name where the target keeps four lanes.
    let mut names = bind_as_stated(target, &module, 1, max);
    names.bind(Value::new(1), "y");
    let text = refusal(target, &module, 1, max, &names);
    assert!(
        text.contains("bound to 1 names") && text.contains("bind_lanes"),
        "{text}"
    );
    // A value bound to no name at all.
    names.bind_lanes(Value::new(1), []);
    let text = refusal(target, &module, 1, max, &names);
    assert!(text.contains("bound to 0 names"), "{text}");
    // A huge id.
    let mut names = bind_as_stated(target, &module, 1, max);
    names.bind(Value::new(20_000_000), "far");
    let text = refusal(target, &module, 1, max, &names);
    assert!(
        text.contains("v20000000 is bound") && text.contains("has 4 values"),
        "{text}"
    );
    // No such instruction, no such kernel.
    let names = SpliceNames::new("f_").unwrap();
    let text = refusal(target, &module, 0, Inst::new(9), &names);
    assert!(text.contains("holds no instruction 9"), "{text}");
    let text = refusal(target, &module, 5, max, &names);
    assert!(text.contains("no kernel number 5"), "{text}");
}

#[test]
fn binding_the_largest_id_costs_nothing() {
    let module = two_kernels();
    let verified = verify::verify(&module).unwrap();
    let target: Target = "llvm:x86_64".parse().unwrap();
    let started = Instant::now();
    let mut names = bind_as_stated(target, &module, 0, Inst::new(0));
    for id in [u32::MAX - 1, u32::MAX - 2, 1 << 31, 20_000_000] {
        names.bind(Value::from_u32(id), "far");
    }
    let mut fragment = Fragment::default();
    let error = target
        .splice(&verified, 0, Inst::new(0), &names, &mut fragment)
        .unwrap_err();
    assert_eq!(error.refusal.rule.id(), "lower.splice.value");
    // A table indexed by id would allocate gigabytes here (16 GiB of bindings at u32::MAX)
    // and take seconds, or fail.
    assert!(
        started.elapsed() < Duration::from_millis(200),
        "{:?}",
        started.elapsed()
    );
}

/// A misuse drawn at random: which kernel's ids, which instruction, which kind of binding.
#[derive(Clone, Debug)]
enum Misuse {
    /// The other kernel's binding types, bound for this kernel's instruction.
    OtherKernel,
    /// A twin kernel's values (built the same way: the same indices, types and lanes), bound
    /// as the target states for the twin's instruction.
    TwinKernel,
    /// An id at or past this kernel's values.
    OutOfRange(u32),
    /// A value bound to `names` names where the target wants another number.
    WrongLanes(usize),
    /// A value of the kernel the instruction does not have.
    NotOfTheInstruction,
}

fn misuse() -> impl Strategy<Value = Misuse> {
    prop_oneof![
        Just(Misuse::OtherKernel),
        Just(Misuse::TwinKernel),
        (4u32..=u32::MAX).prop_map(Misuse::OutOfRange),
        (0usize..9).prop_map(Misuse::WrongLanes),
        Just(Misuse::NotOfTheInstruction),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn misuses_are_errors_quickly(misuse in misuse(), target in 0usize..TARGETS.len()) {
        let module = two_kernels();
        let verified = verify::verify(&module).unwrap();
        let target: Target = TARGETS[target].parse().unwrap();
        let max = Inst::new(0);
        let mut names = bind_as_stated(target, &module, 1, max);
        let (kernel, inst) = match misuse {
            Misuse::OtherKernel => {
                names = bind_as_stated(target, &module, 0, Inst::new(0));
                (1, max)
            }
            Misuse::TwinKernel => {
                let twin = Module { kernels: vec![kernel_b()] };
                names = bind_as_stated(target, &twin, 0, max);
                (1, max)
            }
            Misuse::OutOfRange(id) => {
                names.bind(Value::from_u32(id.max(4)), "far");
                (1, max)
            }
            Misuse::WrongLanes(count) => {
                let types = target.binding_types(&verified, 1, max).unwrap();
                let operand = types.of_role(ValueRole::Operand).next().unwrap();
                let count = if count == operand.splice.names { count + 1 } else { count };
                let lanes: Vec<String> = (0..count).map(|lane| format!("l{lane}")).collect();
                names.bind_lanes(operand.value, lanes.iter().map(String::as_str));
                (1, max)
            }
            Misuse::NotOfTheInstruction => (1, Inst::new(1)),
        };
        let started = Instant::now();
        let mut fragment = Fragment::default();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            target.splice(&verified, kernel, inst, &names, &mut fragment)
        }));
        let error = match outcome {
            Ok(Err(error)) => error,
            Ok(Ok(_)) => panic!("{target}: {misuse:?} spliced"),
            Err(_) => panic!("{target}: {misuse:?} panicked"),
        };
        prop_assert!(error.refusal.rule.blames_caller(), "{}", error);
        if matches!(misuse, Misuse::OtherKernel | Misuse::TwinKernel) {
            let text = error.to_string();
            prop_assert!(text.contains("kernel `b` did not hand it out"), "{}", text);
        }
        prop_assert!(fragment.code.is_empty());
        prop_assert!(started.elapsed() < Duration::from_millis(200));
    }
}

/// A relaxed u8 add and a relaxed f32 max with their results used, on global memory.
fn warp_combined_pair() -> Module {
    let mut kernel = Kernel::new("pair");
    let p = kernel.add_param("p", ValueType::Ptr(AddressSpace::Global));
    let b = kernel.add_param("b", ValueType::scalar(ElemType::U8));
    let f = kernel.add_param("f", ValueType::scalar(ElemType::F32));
    let mut add = AtomicInst::new(AtomicOp::Add, ElemType::U8, p, b.into());
    add.space = AddressSpace::Global;
    kernel.push(add, Some("old_b"));
    let mut max = AtomicInst::new(AtomicOp::Max, ElemType::F32, p, f.into());
    max.space = AddressSpace::Global;
    kernel.push(max, Some("old_f"));
    Module {
        kernels: vec![kernel],
    }
}

#[test]
fn plain_loops_trade_size_and_every_route_counts_the_same_code() {
    use atomir::{ElementLowering, LowerOptions, Lowering, WarpCombine};
    let module = warp_combined_pair();
    let verified = verify::verify(&module).unwrap();
    let default: Target = "ptx:sm_90".parse().unwrap();
    let plain: Target = "ptx:sm_90+plain-loops".parse().unwrap();
    let sizes = |target: Target| -> Vec<(Lowering, u32)> {
        let options = LowerOptions::fragment();
        target
            .lower_each(&verified, &options)
            .into_iter()
            .map(|answer| {
                let (legality, _) = answer.result.expect("accepted");
                (legality.lowering, answer.instructions)
            })
            .collect()
    };
    let (combined, small) = (sizes(default), sizes(plain));
    assert_eq!(
        combined.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
        [
            Lowering::whole(ElementLowering::MaskedCasLoop)
                .with_warp(WarpCombine::WordFold)
                .unwrap(),
            Lowering::whole(ElementLowering::IntMinMax)
                .with_warp(WarpCombine::Fold)
                .unwrap(),
        ]
    );
    assert_eq!(
        small.iter().map(|(l, _)| *l).collect::<Vec<_>>(),
        [ElementLowering::MaskedCasLoop, ElementLowering::IntMinMax].map(Lowering::whole)
    );
    for ((_, big), (_, little)) in combined.iter().zip(&small) {
        assert!(little * 2 < *big, "{little} against {big}");
    }
    // The option on a lowering is the target option.
    let mut by_option = String::new();
    let mut by_target = String::new();
    let options = LowerOptions::fragment().with_count_instructions(true);
    let report = default
        .lower(
            &verified,
            &options.clone().with_plain_loops(true),
            &mut by_option,
        )
        .unwrap();
    plain.lower(&verified, &options, &mut by_target).unwrap();
    assert_eq!(by_option, by_target);
    let counted: Vec<u32> = small.iter().map(|(_, count)| *count).collect();
    assert_eq!(report.instructions(), counted.as_slice());
    // A spliced fragment counts the same code as the lowering of the instruction alone.
    for (index, inst) in module.kernels[0].insts.keys().enumerate() {
        for (target, expected) in [(default, combined[index].1), (plain, small[index].1)] {
            let names = bind_as_stated(target, &module, 0, inst);
            let mut fragment = Fragment::default();
            target
                .splice(&verified, 0, inst, &names, &mut fragment)
                .unwrap();
            assert_eq!(fragment.instructions, expected, "{target}: {inst}");
        }
    }
}

#[test]
fn diagnostics_of_a_kernel_built_in_code_name_it_and_never_start_with_0_0() {
    let mut kernel = Kernel::new("built");
    let p = kernel.add_param("p", ValueType::Ptr(AddressSpace::Global));
    let x = kernel.add_param("x", ValueType::scalar(ElemType::F32));
    // An integer op on a float type: the verifier refuses it.
    kernel.push(
        AtomicInst::new(AtomicOp::And, ElemType::F32, p, x.into()),
        None,
    );
    let module = Module {
        kernels: vec![kernel],
    };
    let diagnostics = verify::verify(&module).expect_err("and.f32 is malformed");
    for diagnostic in &diagnostics {
        let text = diagnostic.to_string();
        assert!(text.starts_with("error: "), "{text}");
        assert!(text.contains("kernel `built`, instruction 0"), "{text}");
    }
    // A refusal of a built kernel's instruction names the kernel and the instruction, and a
    // refusal by a target (not the caller's input) still names the smallest target.
    let mut kernel = Kernel::new("wide");
    let p = kernel.add_param("p", ValueType::Ptr(AddressSpace::Global));
    let x = kernel.add_param("x", ValueType::scalar(ElemType::B128));
    let mut exch = AtomicInst::new(AtomicOp::Exch, ElemType::B128, p, x.into());
    exch.space = AddressSpace::Global;
    kernel.push(exch, None);
    let module = Module {
        kernels: vec![kernel],
    };
    let verified = verify::verify(&module).unwrap();
    let target: Target = "ptx:sm_80".parse().unwrap();
    let error = target
        .lower(
            &verified,
            &atomir::LowerOptions::fragment(),
            &mut String::new(),
        )
        .unwrap_err();
    let text = error.to_string();
    assert!(
        text.starts_with("error: in kernel `wide`, instruction 0: "),
        "{text}"
    );
    assert!(
        text.contains("smallest target that accepts it: ptx:sm_90"),
        "{text}"
    );
    let smallest = Target::smallest_accepting(&error.refusal).expect("a smallest target");
    assert!(matches!(smallest, Target::Ptx(ptx) if ptx.sm == atomir::Sm::Sm90));
}

#[test]
fn an_instruction_reading_another_kernels_value_does_not_verify() {
    let a = kernel_a();
    let mut b = kernel_b();
    // `x` of kernel `a` has index 1, which is `y` in kernel `b`.
    let foreign = a.params[1].value;
    let q = b.params[0].value;
    let mut add = AtomicInst::new(AtomicOp::Add, ElemType::U32, q, foreign.into());
    add.space = AddressSpace::Shared;
    b.push(add, None);
    // A clone hands out the same ids: it is the same kernel.
    let twin = b.clone();
    for kernel in [b, twin] {
        let module = Module {
            kernels: vec![kernel],
        };
        let diagnostics = verify::verify(&module).expect_err("a value of another kernel");
        let text: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
        assert!(
            text.iter()
                .any(|line| line.contains("kernel `b`, instruction 2")
                    && line.contains("v1, which another kernel handed out")),
            "{text:?}"
        );
    }
}

#[test]
fn fences_are_legalized_like_any_node() {
    let cluster = Fence {
        order: MemoryOrder::AcqRel,
        scope: Scope::Cluster,
    };
    let accepting = atomir::supported_targets(&cluster);
    let sm90: Target = "ptx:sm_90".parse().unwrap();
    let vulkan: Target = "llvm:spirv-vulkan".parse().unwrap();
    assert!(accepting.contains(&sm90) && !accepting.contains(&vulkan));
    let refusal = vulkan.legalize(&cluster).unwrap_err();
    assert_eq!(refusal.rule.id(), "llvm.vulkan-no-fence", "{refusal}");
    // The same answer through a `Node` and through the fence itself.
    let node = atomir::Node::from(cluster);
    for target in atomir::Target::all() {
        assert_eq!(
            target.legalize(&node),
            target.legalize(&cluster),
            "{target}"
        );
    }
}
