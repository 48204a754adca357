//! NVPTX's llc drops the order and scope of a plain `atomicrmw`. The output for `llvm:nvptx64@22`
//! must survive it: after `llc -mcpu=sm_90`, each kernel's PTX still carries the seq_cst fence,
//! the acquire and release, and a scope at least as wide as the IR asked for.

use std::process::Command;

use atomir_ir::matrix::cells;
use atomir_ir::{AddressSpace, AtomicOp, Backend, ElemType, MemoryOrder, Scope, VectorShape};
use atomir_llvm::LlvmTarget;
use atomir_tests::llvm::{llc_args, lower_module};
use atomir_tests::tools::{require, run, Tool};

/// PTX's scope qualifiers, narrowest first; an `atom` without one runs at `.gpu`.
const SCOPES: [(&str, Scope); 4] = [
    (".cta", Scope::Block),
    (".cluster", Scope::Cluster),
    (".gpu", Scope::Device),
    (".sys", Scope::System),
];

fn scope_of(line: &str) -> Scope {
    SCOPES
        .iter()
        .find(|(token, _)| line.contains(token))
        .map_or(Scope::Device, |(_, s)| *s)
}

fn token(scope: Scope) -> &'static str {
    SCOPES.iter().find(|(_, s)| *s == scope).unwrap().0
}

/// What is wrong with one kernel's PTX, if anything.
fn check(ptx: &str, order: MemoryOrder, scope: Scope) -> Option<String> {
    let lines: Vec<&str> = ptx.lines().map(str::trim).collect();
    let atoms: Vec<&&str> = lines.iter().filter(|l| l.starts_with("atom.")).collect();
    if atoms.is_empty() {
        return Some("no atom instruction".into());
    }
    for atom in &atoms {
        if !scope_of(atom).includes(scope) {
            return Some(format!("`{atom}` is narrower than {scope}"));
        }
    }
    let scoped = token(scope);
    let has = |sems: &[&str]| {
        lines.iter().any(|l| {
            (l.starts_with("fence.") || l.starts_with("atom."))
                && l.contains(scoped)
                && sems.iter().any(|s| l.contains(s))
        })
    };
    if order == MemoryOrder::SeqCst && !has(&[".sc"]) {
        return Some(format!("no fence.sc{scoped}"));
    }
    if order.has_acquire() && !has(&[".acquire", ".acq_rel"]) {
        return Some(format!("no acquire at {scoped}"));
    }
    if order.has_release() && !has(&[".release", ".acq_rel", ".sc"]) {
        return Some(format!("no release at {scoped}"));
    }
    None
}

/// The PTX of each `.entry`, by name.
fn entries(ptx: &str) -> Vec<(&str, &str)> {
    let mut found = Vec::new();
    let starts: Vec<usize> = ptx.match_indices(".entry ").map(|(i, _)| i).collect();
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(ptx.len());
        let body = &ptx[start..end];
        let name = body[".entry ".len()..].split('(').next().unwrap().trim();
        found.push((name, body));
    }
    found
}

fn llc_ptx(llc: &std::path::Path, target: &LlvmTarget, text: &str, tag: &str) -> String {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("llvm_nvptx_order");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{tag}.ll"));
    let out = dir.join(format!("{tag}.ptx"));
    std::fs::write(&file, text).unwrap();
    let (ok, message) = run(Command::new(llc)
        .args(llc_args(target))
        .arg(&file)
        .arg("-o")
        .arg(&out));
    assert!(ok, "llc failed on {}: {message}", file.display());
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn orders_and_scopes_survive_nvptx_llc() {
    let Some(llc) = require(Tool::Llc(22)) else {
        return;
    };
    let target = LlvmTarget::parse("nvptx64@22").unwrap();
    let mut kernels = Vec::new();
    let mut expected = std::collections::HashMap::new();
    // The RMW ops the LLVM table covers; loads, stores and the newer RMW ops
    // (usub_cond, usub_sat, fminimum, fmaximum, fminimumnum, fmaximumnum) are refused with
    // `llvm.unsupported-node` until it lowers them.
    let covered = |op: AtomicOp| {
        op.is_read_modify_write()
            && !matches!(
                op,
                AtomicOp::UsubCond
                    | AtomicOp::UsubSat
                    | AtomicOp::FMinimum
                    | AtomicOp::FMaximum
                    | AtomicOp::FMinimumNum
                    | AtomicOp::FMaximumNum
            )
    };
    for cell in cells().filter(|c| {
        covered(c.op)
            && c.shape == VectorShape::Scalar
            && c.result_used
            && matches!(
                c.ty,
                ElemType::U32 | ElemType::U64 | ElemType::F32 | ElemType::U16
            )
            && c.space != AddressSpace::SharedCluster
    }) {
        let kernel = cell.kernel();
        let inst = kernel.insts.keys().next().unwrap();
        target
            .legalize_inst(&kernel, inst)
            .expect("nvptx64@22 accepts every such cell");
        expected.insert(cell.name(), (cell.order, cell.scope));
        kernels.push(kernel);
    }
    let ptx = llc_ptx(
        &llc,
        &target,
        &lower_module(&target, &kernels).unwrap(),
        "cells",
    );
    let mut checked = 0;
    let mut failures = Vec::new();
    for (name, body) in entries(&ptx) {
        let (order, scope) = expected[name];
        if let Some(problem) = check(body, order, scope) {
            failures.push(format!("{name}: {problem}"));
        }
        checked += 1;
    }
    println!("nvptx64@22: {checked} kernels' PTX keep their order and scope");
    assert_eq!(checked, kernels.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The check above catches the fault it guards against: a plain ordered `atomicrmw` loses its
/// acquire, its seq_cst and its `.sys` scope in llc.
#[test]
fn plain_ordered_atomicrmw_fails_the_check() {
    let Some(llc) = require(Tool::Llc(22)) else {
        return;
    };
    let target = LlvmTarget::parse("nvptx64@22").unwrap();
    let text = "target triple = \"nvptx64-nvidia-cuda\"\n\
        define ptx_kernel void @acq(ptr addrspace(1) %p, i32 %v) {\n\
          %o = atomicrmw add ptr addrspace(1) %p, i32 %v syncscope(\"block\") acquire, align 4\n  ret void\n}\n\
        define ptx_kernel void @sc(ptr addrspace(1) %p, i32 %v) {\n\
          %o = atomicrmw add ptr addrspace(1) %p, i32 %v seq_cst, align 4\n  ret void\n}\n";
    let ptx = llc_ptx(&llc, &target, text, "plain");
    let found = entries(&ptx);
    assert_eq!(found.len(), 2);
    assert!(check(found[0].1, MemoryOrder::Acquire, Scope::Block).is_some());
    assert!(check(found[1].1, MemoryOrder::SeqCst, Scope::System).is_some());
}
