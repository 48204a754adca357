//! NVPTX's llc drops the order and scope of a plain `atomicrmw` before LLVM 23, and before 22
//! cannot select ordered loads, stores or fences. The output for `llvm:nvptx64@22` and `@23`
//! must survive it: after `llc -mcpu=sm_90`, each kernel's PTX still carries the seq_cst fence,
//! the acquire and release, and a scope at least as wide as the IR asked for, on every RMW, load,
//! store and fence; and an atomic load or store is never a plain (non-atomic) `ld`/`st`.

use std::process::Command;

use atomir_ir::matrix::{all_cells, AnyCell};
use atomir_ir::{AddressSpace, AtomicOp, Backend, ElemType, MemoryOrder, Scope, VectorShape};
use atomir_llvm::LlvmTarget;
use atomir_tests::llvm::lower_module;
use atomir_tests::tools::{require, run, Tool};

/// PTX's scope qualifiers, narrowest first; an `atom` without one runs at `.gpu`, and a
/// `.volatile` access has the synchronizing semantics of `.relaxed.sys`.
const SCOPES: [(&str, Scope); 5] = [
    (".cta", Scope::Block),
    (".cluster", Scope::Cluster),
    (".gpu", Scope::Device),
    (".sys", Scope::System),
    (".volatile", Scope::System),
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

/// The qualifiers that make an `ld`/`st` an atomic (strong) access.
const STRONG: [&str; 4] = [".relaxed", ".acquire", ".release", ".volatile"];

/// Whether a line is a load or store that is not atomic (`ld.global.u32`, not `ld.param`).
fn plain(line: &str, prefix: &str) -> bool {
    line.starts_with(prefix)
        && !line.contains(".param")
        && !STRONG.iter().any(|strong| line.contains(strong))
}

/// What is wrong with one kernel's PTX, if anything. `op` is `None` for a fence.
fn check(ptx: &str, op: Option<AtomicOp>, order: MemoryOrder, scope: Scope) -> Option<String> {
    let lines: Vec<&str> = ptx.lines().map(str::trim).collect();
    let strong = |l: &&str| {
        (l.starts_with("ld.") || l.starts_with("st.")) && STRONG.iter().any(|s| l.contains(s))
    };
    let accesses: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("atom.") || strong(l))
        .collect();
    match op {
        Some(_) if accesses.is_empty() => return Some("no atomic access".into()),
        Some(AtomicOp::Load) => {
            if let Some(line) = lines.iter().find(|l| plain(l, "ld.")) {
                return Some(format!("`{line}` is a plain load"));
            }
        }
        Some(AtomicOp::Store) => {
            if let Some(line) = lines.iter().find(|l| plain(l, "st.")) {
                return Some(format!("`{line}` is a plain store"));
            }
        }
        _ => {}
    }
    for access in &accesses {
        if !scope_of(access).includes(scope) {
            return Some(format!("`{access}` is narrower than {scope}"));
        }
    }
    let scoped = token(scope);
    let has = |sems: &[&str]| {
        lines.iter().any(|l| {
            (l.starts_with("fence.") || l.starts_with("atom.") || strong(l))
                && l.contains(scoped)
                && sems.iter().any(|s| l.contains(s))
        })
    };
    if order == MemoryOrder::SeqCst && !has(&[".sc"]) {
        return Some(format!("no fence.sc{scoped}"));
    }
    if order.has_acquire() && !has(&[".acquire", ".acq_rel", ".sc"]) {
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
        .args(target.llc_args())
        .arg(&file)
        .arg("-o")
        .arg(&out));
    assert!(ok, "llc failed on {}: {message}", file.display());
    std::fs::read_to_string(out).unwrap()
}

/// Whether the test judges a cell: every RMW op the table lowers, every load, store and fence,
/// on types and shapes that exercise each way llc prints them.
fn judged(cell: &AnyCell) -> bool {
    let Some(access) = cell.access() else {
        return true;
    };
    let lowered_rmw = access.op.is_read_modify_write()
        && !matches!(
            access.op,
            AtomicOp::UsubCond
                | AtomicOp::UsubSat
                | AtomicOp::FMinimum
                | AtomicOp::FMaximum
                | AtomicOp::FMinimumNum
                | AtomicOp::FMaximumNum
        );
    let load_store = !access.op.is_read_modify_write();
    let types: &[ElemType] = if load_store {
        &[
            ElemType::U8,
            ElemType::U16,
            ElemType::U32,
            ElemType::U64,
            ElemType::F16,
            ElemType::F32,
            ElemType::B128,
        ]
    } else {
        &[ElemType::U32, ElemType::U64, ElemType::F32, ElemType::U16]
    };
    let shapes: &[VectorShape] = if load_store {
        &[VectorShape::Scalar, VectorShape::V2]
    } else {
        &[VectorShape::Scalar]
    };
    (lowered_rmw || load_store)
        && shapes.contains(&access.shape)
        && (access.result_used || access.op == AtomicOp::Store)
        && types.contains(&access.ty)
        && access.space != AddressSpace::SharedCluster
}

fn orders_and_scopes_survive(spec: &str) {
    let target = LlvmTarget::parse(spec).unwrap();
    let Some(llc) = require(Tool::Llc(target.major)) else {
        return;
    };
    let mut kernels = Vec::new();
    let mut expected = std::collections::HashMap::new();
    for cell in all_cells().filter(judged) {
        let kernel = cell.kernel();
        let inst = kernel.insts.keys().next().unwrap();
        target
            .legalize_inst(&kernel, inst)
            .unwrap_or_else(|e| panic!("{spec} accepts {}: {e}", cell.name()));
        let op = cell.access().map(|access| access.op);
        expected.insert(cell.name(), (op, cell.order(), cell.scope()));
        kernels.push(kernel);
    }
    let ptx = llc_ptx(
        &llc,
        &target,
        &lower_module(&target, &kernels).unwrap(),
        &spec.replace('@', "_"),
    );
    let mut checked = 0;
    let mut failures = Vec::new();
    for (name, body) in entries(&ptx) {
        let (op, order, scope) = expected[name];
        if let Some(problem) = check(body, op, order, scope) {
            failures.push(format!("{name}: {problem}"));
        }
        checked += 1;
    }
    println!("{spec}: {checked} kernels' PTX keep their order and scope");
    assert_eq!(checked, kernels.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn orders_and_scopes_survive_nvptx_llc_22() {
    orders_and_scopes_survive("nvptx64@22");
}

#[test]
fn orders_and_scopes_survive_nvptx_llc_23() {
    orders_and_scopes_survive("nvptx64@23");
}

/// The check above catches the faults it guards against: a plain ordered `atomicrmw` loses its
/// acquire, its seq_cst and its `.sys` scope in llc; a plain load is no atomic load; a block
/// scope release store is no seq_cst system one; an acquire fence is no acq_rel one.
#[test]
fn weakened_accesses_fail_the_check() {
    let Some(llc) = require(Tool::Llc(22)) else {
        return;
    };
    let target = LlvmTarget::parse("nvptx64@22").unwrap();
    let text = "target triple = \"nvptx64-nvidia-cuda\"\n\
        define ptx_kernel void @acq(ptr addrspace(1) %p, i32 %v) {\n\
          %o = atomicrmw add ptr addrspace(1) %p, i32 %v syncscope(\"block\") acquire, align 4\n  ret void\n}\n\
        define ptx_kernel void @sc(ptr addrspace(1) %p, i32 %v) {\n\
          %o = atomicrmw add ptr addrspace(1) %p, i32 %v seq_cst, align 4\n  ret void\n}\n\
        define ptx_kernel void @ld(ptr addrspace(1) %p, ptr addrspace(1) %q) {\n\
          %v = load i32, ptr addrspace(1) %p, align 4\n\
          store i32 %v, ptr addrspace(1) %q, align 4\n  ret void\n}\n\
        define ptx_kernel void @st(ptr addrspace(1) %p, i32 %v) {\n\
          store atomic i32 %v, ptr addrspace(1) %p syncscope(\"block\") release, align 4\n  ret void\n}\n\
        define ptx_kernel void @fence() {\n\
          fence syncscope(\"device\") acquire\n  ret void\n}\n";
    let ptx = llc_ptx(&llc, &target, text, "plain");
    let found = entries(&ptx);
    assert_eq!(found.len(), 5);
    let add = Some(AtomicOp::Add);
    assert!(check(found[0].1, add, MemoryOrder::Acquire, Scope::Block).is_some());
    assert!(check(found[1].1, add, MemoryOrder::SeqCst, Scope::System).is_some());
    let load = Some(AtomicOp::Load);
    let store = Some(AtomicOp::Store);
    assert!(check(found[2].1, load, MemoryOrder::Relaxed, Scope::Block).is_some());
    assert!(check(found[3].1, store, MemoryOrder::SeqCst, Scope::System).is_some());
    assert!(check(found[3].1, store, MemoryOrder::Release, Scope::Block).is_none());
    assert!(check(found[4].1, None, MemoryOrder::AcqRel, Scope::Device).is_some());
}
