//! Every backend names kernels and values injectively, clear of the names its printer makes up.
//!
//! Kernels and values built in code may have any name; here each module holds names that are
//! equal after mapping to a target's characters, reserved words, the printer's own prefixes and
//! suffixes, and names that are not identifiers at all. Each backend's `--module` output must
//! declare every name once (`tests/regress/*_name*.atom` has the same cases judged by the tools).

use std::collections::HashSet;

use atomir_tests::judge::{judge_target, scratch_dir};

use atomir_ir::{
    AddressSpace, AtomicInst, AtomicOp, ElemType, Kernel, LowerOptions, Module, ValueType,
    VectorShape,
};

const KERNEL_NAMES: &[&str] = &[
    "k",
    "k_param_0",
    "k_out_0",
    "a$b",
    "a_b",
    "a_b_1",
    "_",
    "$",
    "",
    "WARP_SZ",
    "llvm.k",
    "é",
    "k_BB_0",
    "k$",
    "k_",
    "1k",
];

const VALUE_NAMES: &[&str] = &[
    "x", "x__e0", "x__e1", "x__f", "x__d", "x__df", "x__u", "q__in", "a$b", "a_b", "a_b_1", "_r0",
    "tid", "pm0", ".out0", ".0.1", "", "é", "0", "n",
];

fn kernel(name: &str, predicate: bool) -> Kernel {
    let mut kernel = Kernel::new(name);
    let p = kernel.add_param("p", ValueType::Ptr(AddressSpace::Global));
    if predicate {
        kernel.add_param("q", ValueType::Pred);
    }
    let x = kernel.add_param("x", ValueType::Data(ElemType::U32, VectorShape::V2));
    kernel.push(
        AtomicInst {
            shape: VectorShape::V2,
            space: AddressSpace::Global,
            ..AtomicInst::new(AtomicOp::Add, ElemType::U32, p, x.into())
        },
        // Not `r`: the result of the empty-named value below takes that name.
        Some("rv"),
    );
    for name in VALUE_NAMES.iter().skip(1) {
        let ty = if name.ends_with('f') {
            ElemType::F32
        } else {
            ElemType::U32
        };
        let value = kernel.add_param(name, ValueType::scalar(ty));
        let op = if ty == ElemType::F32 {
            AtomicOp::Max
        } else {
            AtomicOp::Add
        };
        let inst = AtomicInst {
            space: AddressSpace::Global,
            ..AtomicInst::new(op, ty, p, value.into())
        };
        kernel.push(inst, Some(&format!("r{name}")));
    }
    kernel
}

/// Every kernel name, each kernel with every value name; `predicate` adds a `pred` parameter.
fn module(predicate: bool) -> Module {
    Module {
        kernels: KERNEL_NAMES
            .iter()
            .map(|name| kernel(name, predicate))
            .collect(),
    }
}

fn lower(target: &str) -> String {
    let module = module(true);
    let backend: atomir::Target = target.parse().unwrap();
    let mut out = String::new();
    let options = LowerOptions::module();
    backend
        .lower(
            &atomir_ir::verify::verify(&module).unwrap(),
            &options,
            &mut out,
        )
        .unwrap();
    out
}

/// Asserts `names` are distinct, and returns them.
fn distinct<'a>(what: &str, names: impl IntoIterator<Item = &'a str>) -> HashSet<&'a str> {
    let mut seen = HashSet::new();
    for name in names {
        assert!(seen.insert(name), "{what} `{name}` declared twice");
    }
    seen
}

/// The word after `marker` on each line that has it, up to one of `ends`.
fn declared<'a>(text: &'a str, marker: &str, ends: &[char]) -> Vec<&'a str> {
    text.lines()
        .filter_map(|line| line.split_once(marker))
        .map(|(_, rest)| rest.split(ends).next().unwrap_or(rest).trim())
        .collect()
}

#[test]
fn ptx_names_are_injective_and_clear_of_parameter_symbols() {
    let code = lower("ptx:sm_90");
    let entries = distinct("entry", declared(&code, ".entry ", &['(']));
    assert_eq!(entries.len(), KERNEL_NAMES.len());
    // The entries' parameters (a call's, declared in the block around it, and a shared
    // function's are scoped to those).
    let signatures: String = code
        .lines()
        .filter(|line| line.starts_with("\t.param ") && !line.ends_with(';'))
        .flat_map(|line| [line, "\n"])
        .collect();
    let params = distinct(
        "parameter symbol",
        declared(&signatures, ".param ", &[',', '\n'])
            .into_iter()
            .map(|decl| decl.rsplit(' ').next().unwrap()),
    );
    assert!(
        entries.is_disjoint(&params),
        "an entry named like a parameter"
    );
    // Registers are declared once in each entry and in each shared function.
    for definition in atomir_tests::ptx::definitions(&code).1 {
        distinct(
            "register",
            declared(&definition.text, ".reg ", &[';'])
                .into_iter()
                .map(|d| d.rsplit(' ').next().unwrap()),
        );
    }
    for name in &entries {
        assert_ne!(*name, "WARP_SZ");
        assert!(name.len() > 1 || name.starts_with(|c: char| c.is_ascii_alphabetic()));
    }
}

#[test]
fn visa_variables_are_injective() {
    let code = lower("visa:PVC");
    let kernels = distinct("kernel", declared(&code, ".kernel ", &['\n']));
    assert_eq!(kernels.len(), KERNEL_NAMES.len());
    for kernel in code.split(".kernel ").skip(1) {
        distinct("variable", declared(kernel, ".decl ", &[' ']));
        let inputs = declared(kernel, ".input ", &[' ']);
        distinct("input", inputs);
    }
}

#[test]
fn llvm_names_are_injective_and_clear_of_generated_names() {
    let code = lower("llvm:x86_64");
    let functions = distinct("function", declared(&code, " void @", &['(']));
    assert_eq!(functions.len(), KERNEL_NAMES.len());
    assert!(functions.iter().all(|name| !name.starts_with("llvm.")));
    for define in code.split("define ").skip(1) {
        let signature = define
            .split_once('(')
            .unwrap()
            .1
            .split_once(") {")
            .unwrap()
            .0;
        let params = signature.split(", ").map(|p| p.rsplit(' ').next().unwrap());
        distinct("parameter", params.clone());
        // Every printed parameter but the result pointers (`%.out<i>`) is an IR value's.
        let values = params.filter(|p| !p.starts_with("%.out")).count();
        assert_eq!(values, VALUE_NAMES.len() + 2);
    }
}

/// The same names, judged by each backend's tool: ptxas (12.9 and 13.5), GenX_IR (SVM and LSC),
/// llvm-as + opt + llc for every triple. No `pred` parameter here: the tools judge a predicate's
/// input through `tests/regress/`.
#[test]
fn every_tool_accepts_the_names() {
    let module = module(false);
    let mut rejected = Vec::new();
    for name in [
        "ptx:sm_70",
        "ptx:sm_90",
        "visa:TGLLP",
        "visa:PVC",
        "llvm:nvptx64@22",
        "llvm:amdgcn@22",
        "llvm:spirv64@22",
        "llvm:x86_64@22",
    ] {
        let Some(target) = judge_target(name) else {
            continue;
        };
        let mut code = String::new();
        let options = LowerOptions::module();
        target
            .backend
            .lower(
                &atomir_ir::verify::verify(&module).unwrap(),
                &options,
                &mut code,
            )
            .unwrap_or_else(|error| panic!("{name}: {error:?}"));
        let scratch = scratch_dir(&format!("names-{}", name.replace([':', '@'], "-")));
        if let Err(message) = target.judge(&module, &code, &scratch) {
            let message: String = message.lines().take(3).collect::<Vec<_>>().join("\n");
            rejected.push(format!("{name} rejects the names:\n{message}"));
        }
    }
    assert!(rejected.is_empty(), "{}", rejected.join("\n"));
}
