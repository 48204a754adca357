//! The splice contract at its edges: every node a target accepts splices; an input left
//! unbound, a client's name in the fragment's namespace, a vector bound to the wrong number of
//! names and an instruction the target refuses are errors with their rule, leaving the fragment
//! empty.

use atomir::ir::matrix::cells;
use atomir::{
    verify, AddressSpace, AtomicInst, AtomicOp, ElemType, Fragment, Inst, Kernel, Module,
    SpliceNames, Target, Value, ValueType, VectorShape,
};

/// Binds every value of the one kernel of `module` to its own name (lane by lane when `lanes`).
fn bind_all(module: &Module, lanes: bool) -> SpliceNames {
    let mut names = SpliceNames::new("f_").unwrap();
    for (value, data) in module.kernels[0].values.iter() {
        match data.ty {
            ValueType::Data(_, shape) if lanes && shape.is_vector() => {
                let lane_names: Vec<String> = (0..shape.len())
                    .map(|lane| format!("{}_{lane}", data.name))
                    .collect();
                names.bind_lanes(value, lane_names.iter().map(String::as_str));
            }
            _ => {
                names.bind(value, &data.name);
            }
        }
    }
    names
}

#[test]
fn every_accepted_cell_splices() {
    for name in ["ptx:sm_90", "llvm:nvptx64", "llvm:spirv64", "visa:TGLLP"] {
        let target: Target = name.parse().unwrap();
        let lanes = !matches!(target, Target::Llvm(_));
        let mut fragment = Fragment::default();
        let mut spliced = 0;
        let mut calls = 0;
        for cell in cells().filter(|cell| target.legalize(&cell.node()).is_ok()) {
            let module = Module {
                kernels: vec![cell.kernel()],
            };
            let verified = verify::verify(&module).unwrap();
            let names = bind_all(&module, lanes);
            let inst = module.kernels[0].insts.keys().next().unwrap();
            if let Err(error) = target.splice(&verified, 0, inst, &names, &mut fragment) {
                panic!("{target}: {cell}: {error}");
            }
            assert!(!fragment.code.is_empty(), "{target}: {cell}: no code");
            // Every function the code calls is declared.
            for call in fragment.code.split("call ").skip(1) {
                calls += 1;
                let callee = call
                    .split('@')
                    .nth(1)
                    .and_then(|c| c.split('(').next())
                    .unwrap();
                let declared = format!("@{callee}(");
                assert!(
                    fragment.declarations.iter().any(|d| d.contains(&declared)),
                    "{target}: {cell}: `@{callee}` is called but not declared"
                );
            }
            assert_eq!(
                fragment.results.len(),
                usize::from(cell.result_used),
                "{target}: {cell}"
            );
            spliced += 1;
        }
        assert!(spliced > 100, "{target}: only {spliced} cells");
        // SPIR-V spells loads, stores and fences as builtin calls.
        assert_eq!(calls > 0, name == "llvm:spirv64", "{target}: {calls} calls");
    }
}

fn one_add(ty: ElemType, shape: VectorShape) -> (Module, Inst, Vec<Value>) {
    let mut kernel = Kernel::new("k");
    let p = kernel.add_param("p", ValueType::Ptr(AddressSpace::Global));
    let mut values = vec![p];
    let operand = if shape.is_vector() {
        let elements: Vec<atomir::Scalar> = (0..shape.len())
            .map(|i| {
                let v = kernel.add_param(&format!("x{i}"), ValueType::scalar(ty));
                values.push(v);
                atomir::Scalar::Value(v)
            })
            .collect();
        kernel.vector(&elements)
    } else {
        let x = kernel.add_param("x", ValueType::scalar(ty));
        values.push(x);
        x.into()
    };
    let mut add = AtomicInst::new(AtomicOp::Add, ty, p, operand);
    add.space = AddressSpace::Global;
    add.shape = shape;
    let inst = kernel.push(add, Some("old"));
    (
        Module {
            kernels: vec![kernel],
        },
        inst,
        values,
    )
}

fn splice_error(target: &str, module: &Module, inst: Inst, names: &SpliceNames) -> String {
    let target: Target = target.parse().unwrap();
    let verified = verify::verify(module).unwrap();
    let mut fragment = Fragment::default();
    fragment.code.push_str("stale");
    let error = target
        .splice(&verified, 0, inst, names, &mut fragment)
        .expect_err("the splice is refused");
    assert!(
        fragment.code.is_empty() && fragment.temps.is_empty(),
        "{error}"
    );
    format!("{} [{}]", error.refusal.reason, error.refusal.rule.id())
}

#[test]
fn an_unbound_input_is_refused() {
    let (module, inst, values) = one_add(ElemType::U32, VectorShape::Scalar);
    let mut names = SpliceNames::new("f_").unwrap();
    names.bind(values[0], "ptr");
    for target in ["ptx:sm_90", "llvm:x86_64", "visa:PVC"] {
        let error = splice_error(target, &module, inst, &names);
        assert!(
            error.contains("`%x` (the operand) is read but bound")
                && error.contains("lower.splice.unbound"),
            "{error}"
        );
    }
}

#[test]
fn a_name_in_the_fragments_namespace_is_refused() {
    let (module, inst, values) = one_add(ElemType::U32, VectorShape::Scalar);
    let mut names = SpliceNames::new("f_").unwrap();
    names.bind(values[0], "ptr").bind(values[1], "f_r0");
    let error = splice_error("ptx:sm_90", &module, inst, &names);
    assert!(error.contains("lower.splice.name"), "{error}");
    names.bind(values[1], "not an identifier");
    let error = splice_error("llvm:x86_64", &module, inst, &names);
    assert!(error.contains("lower.splice.name"), "{error}");
    names.bind(values[1], "x");
    let names = names.with_blocks("entry", "f_cont");
    let error = splice_error("llvm:x86_64", &module, inst, &names);
    assert!(error.contains("block `f_cont`"), "{error}");
}

#[test]
fn a_vector_bound_to_the_wrong_number_of_names_is_refused() {
    let (module, inst, values) = one_add(ElemType::F32, VectorShape::V4);
    let kernel = &module.kernels[0];
    let old = kernel.atomic(inst).and_then(|a| a.result).unwrap();
    let mut names = SpliceNames::new("f_").unwrap();
    for (value, data) in kernel.values.iter() {
        names.bind(value, &data.name);
    }
    // PTX keeps lanes in registers of their own: one name for four lanes is refused.
    let error = splice_error("ptx:sm_90", &module, inst, &names);
    assert!(
        error.contains("bound to 1 names") && error.contains("lower.splice.name"),
        "{error}"
    );
    // LLVM has vector values: four names for one is refused.
    names.bind_lanes(old, ["a", "b", "c", "d"]);
    let error = splice_error("llvm:x86_64", &module, inst, &names);
    assert!(error.contains("bound to 4 names"), "{error}");
    let _ = values;
}

#[test]
fn a_refused_instruction_names_its_rule_and_smallest_target() {
    let (module, inst, values) = one_add(ElemType::Bf16x2, VectorShape::Scalar);
    let mut names = SpliceNames::new("f_").unwrap();
    names.bind(values[0], "ptr").bind(values[1], "x");
    let target: Target = "llvm:nvptx64@14".parse().unwrap();
    let verified = verify::verify(&module).unwrap();
    let mut fragment = Fragment::default();
    let error = target
        .splice(&verified, 0, inst, &names, &mut fragment)
        .unwrap_err();
    assert!(error.refusal.smallest_target.is_some(), "{error}");
    let missing = Inst::from_u32(7);
    let error = target
        .splice(&verified, 0, missing, &names, &mut fragment)
        .unwrap_err();
    assert_eq!(error.refusal.rule.id(), "lower.no-such-instruction");
    let error = target
        .splice(&verified, 3, inst, &names, &mut fragment)
        .unwrap_err();
    assert_eq!(error.refusal.rule.id(), "lower.no-such-kernel");
}
