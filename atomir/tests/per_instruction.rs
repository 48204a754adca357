//! Per-instruction lowering: one answer per instruction, and lowering only what a target
//! accepts, reporting the rest.

use atomir::{
    verify, AddressSpace, AtomicInst, AtomicOp, ElemType, EntityRef, Fence, Inst, Kernel,
    LowerOptions, MemoryOrder, Module, OnRefusal, Scope, Site, Target, ValueType, VectorShape,
};

/// Candidates for an instruction some target refuses: wide, vector, packed and float forms.
const REFUSABLE: [(AtomicOp, ElemType, VectorShape); 5] = [
    (AtomicOp::Exch, ElemType::B128, VectorShape::Scalar),
    (AtomicOp::Add, ElemType::F32, VectorShape::V4),
    (AtomicOp::Add, ElemType::F64, VectorShape::Scalar),
    (AtomicOp::Add, ElemType::Bf16x2, VectorShape::Scalar),
    (AtomicOp::Min, ElemType::F16, VectorShape::Scalar),
];

/// `k(%p, %x, %y)`: a u32 add, the candidate, an exch that stores the candidate's result, a
/// release fence and a u32 max, leaving out the instructions numbered in `omit` (as a client
/// would rebuild the kernel without them).
fn kernel(candidate: (AtomicOp, ElemType, VectorShape), omit: &[usize]) -> Kernel {
    let (op, ty, shape) = candidate;
    let mut kernel = Kernel::new("k");
    let p = kernel.add_param("p", ValueType::Ptr(AddressSpace::Global));
    let x = kernel.add_param("x", ValueType::scalar(ElemType::U32));
    let y = kernel.add_param("y", ValueType::Data(ty, shape));
    let global = |inst: AtomicInst| AtomicInst {
        space: AddressSpace::Global,
        ..inst
    };
    if !omit.contains(&0) {
        let add = global(AtomicInst::new(AtomicOp::Add, ElemType::U32, p, x.into()));
        kernel.push(add, Some("a"));
    }
    if !omit.contains(&1) {
        let candidate = AtomicInst {
            shape,
            ..global(AtomicInst::new(op, ty, p, y.into()))
        };
        let old = kernel.push(candidate, Some("old"));
        let old = kernel.insts[old].result().unwrap();
        if !omit.contains(&2) {
            let reader = AtomicInst {
                shape,
                ..global(AtomicInst::new(
                    AtomicOp::Exch,
                    ty.bits_type(),
                    p,
                    old.into(),
                ))
            };
            kernel.push(reader, None);
        }
    }
    if !omit.contains(&3) {
        kernel.push_fence(Fence {
            order: MemoryOrder::Release,
            scope: Scope::Device,
        });
    }
    if !omit.contains(&4) {
        let max = global(AtomicInst::new(AtomicOp::Max, ElemType::U32, p, x.into()));
        kernel.push(max, Some("b"));
    }
    kernel
}

fn targets() -> Vec<Target> {
    Target::all()
        .into_iter()
        .filter(|t| {
            [
                "ptx:sm_60@5.0",
                "ptx:sm_70@6.0",
                "visa:TGLLP",
                "visa:XeHPG",
                "llvm:x86_64@22",
                "llvm:nvptx64:sm_86@14",
                "llvm:spirv64@22",
                "llvm:amdgcn:gfx90a@15",
            ]
            .contains(&t.to_string().as_str())
        })
        .collect()
}

/// The first candidate `target` refuses while accepting the first add, and the instructions
/// a lowering that skips refusals leaves out: those refused alone, and the exch that reads the
/// candidate's result.
fn refused_candidate(target: &Target) -> Option<((AtomicOp, ElemType, VectorShape), Vec<usize>)> {
    REFUSABLE.into_iter().find_map(|candidate| {
        let module = Module {
            kernels: vec![kernel(candidate, &[])],
        };
        let verified = verify::verify(&module).expect("the kernel verifies");
        let refused: Vec<bool> = target
            .lower_each(&verified, &LowerOptions::module())
            .iter()
            .map(|answer| answer.result.is_err())
            .collect();
        if refused[0] || !refused[1] {
            return None;
        }
        let omit = (0..5).filter(|&i| refused[i] || i == 2).collect();
        Some((candidate, omit))
    })
}

#[test]
fn skipping_lowers_exactly_what_a_client_would_rebuild_by_hand() {
    let mut tested = Vec::new();
    for target in targets() {
        let Some((candidate, omit)) = refused_candidate(&target) else {
            continue;
        };
        for options in [LowerOptions::module(), LowerOptions::fragment()] {
            let module = Module {
                kernels: vec![kernel(candidate, &[])],
            };
            let verified = verify::verify(&module).unwrap();
            let stopped = target.lower(&verified, &options, &mut String::new());
            let first = stopped.expect_err("the candidate is refused");
            assert_eq!(first.site, Site::Inst(Inst::from_u32(1)), "{target}");

            let mut skipped = String::new();
            let report = target
                .lower(
                    &verified,
                    &options.clone().with_on_refusal(OnRefusal::Skip),
                    &mut skipped,
                )
                .unwrap_or_else(|error| panic!("{target}: {error}"));
            let refusals = report.refusals();
            let sites: Vec<Site> = refusals.iter().map(|error| error.site).collect();
            let omitted: Vec<Site> = omit
                .iter()
                .map(|&i| Site::Inst(Inst::from_u32(i as u32)))
                .collect();
            assert_eq!(sites, omitted, "{target}: {refusals:?}");
            assert_eq!(refusals[0], first, "{target}");
            assert_eq!(refusals[1].refusal.rule.id(), "lower.reads-refused-result");
            let decided: Vec<usize> = report.decisions().map(|(_, i, _)| i.index()).collect();
            let kept: Vec<usize> = (0..5).filter(|i| !omit.contains(i)).collect();
            assert_eq!(decided, kept, "{target}");

            // What a client would have had to build: the kernel without those two.
            let by_hand = Module {
                kernels: vec![kernel(candidate, &omit)],
            };
            let mut expected = String::new();
            target
                .lower(&verify::verify(&by_hand).unwrap(), &options, &mut expected)
                .unwrap();
            assert_eq!(skipped, expected, "{target}");
        }
        tested.push(target.to_string());
    }
    assert!(
        tested.len() >= 4,
        "too few targets refuse a candidate: {tested:?}"
    );
    for backend in ["ptx:", "visa:", "llvm:"] {
        assert!(
            tested.iter().any(|t| t.starts_with(backend)),
            "{backend} {tested:?}"
        );
    }
}

#[test]
fn each_instruction_gets_its_own_answer() {
    let mut tested = 0;
    for target in targets() {
        let Some((candidate, _)) = refused_candidate(&target) else {
            continue;
        };
        let module = Module {
            kernels: vec![kernel(candidate, &[])],
        };
        let verified = verify::verify(&module).unwrap();
        let each = target.lower_each(&verified, &LowerOptions::fragment());
        assert_eq!(each.len(), 5, "{target}");
        for (index, answer) in each.iter().enumerate() {
            assert_eq!(answer.inst, Inst::from_u32(index as u32), "{target}");
            assert_eq!(answer.kernel, 0);
            let kernel = &module.kernels[0];
            let alone = Module {
                kernels: vec![kernel.slice(|inst| inst == answer.inst)],
            };
            let mut code = String::new();
            let direct = target.lower(
                &verify::verify(&alone).unwrap(),
                &LowerOptions::fragment(),
                &mut code,
            );
            match (&answer.result, direct) {
                (Ok((legality, each_code)), Ok(report)) => {
                    assert_eq!(each_code, &code, "{target} {index}");
                    assert!(!code.is_empty(), "{target} {index}");
                    assert_eq!(report.decisions().next().unwrap().2, legality);
                }
                (Err(error), Err(direct)) => {
                    assert_eq!(error.refusal, direct.refusal, "{target} {index}");
                    assert_eq!(error.site, Site::Inst(answer.inst), "{target} {index}");
                }
                (each, direct) => panic!("{target} {index}: {each:?} but {direct:?}"),
            }
        }
        tested += 1;
    }
    assert!(tested >= 4, "too few targets refuse a candidate");
}
