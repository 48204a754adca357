//! The PTX reader on the checked-in corpus (`tests/ptx-corpus`, made by `scripts/ptx-corpus`):
//! nvcc 13.5's PTX of the corpus's own CUDA sources for sm_75 to sm_120, and llc 14-23's PTX
//! of atomir's LLVM output for the examples, for sm_60 and sm_70.
//!
//! Every file reads without an error; the atomics found are as many as a line count of the
//! PTX text finds (an independent count); each nvcc kernel's atomics mean what its source
//! says (`K(name, "expect", …)` in `src/*.cu`), as many as the source states; each llc access
//! is one of its example's operations or part of llc's emulation of one; and every
//! atomic of the corpus is judged by visa:PVC, llvm:amdgcn and llvm:spirv64.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use atomir::{
    AtomicNode, AtomicOp, Backend, ElemType, FloatLaxity, MemoryOrder, Node, ReadAtomic, Scope,
    Target, TypeClass, VectorShape,
};

fn corpus() -> PathBuf {
    atomir_tests::tools::workspace_root().join("tests/ptx-corpus")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "ptx") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The memory-model instructions of a PTX text counted statement by statement of each line,
/// without the reader:
/// `atom`/`red`, `fence`/`membar`, and `ld`/`st` with a sem other than on thread-private or
/// read-only memory.
fn line_count(text: &str) -> usize {
    text.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .flat_map(|line| line.split(';'))
        .map(|statement| statement.trim().trim_start_matches(['{', '}']).trim_start())
        .filter(|statement| {
            let mut words = statement
                .split_whitespace()
                .skip_while(|w| w.ends_with(':') || w.starts_with('@'));
            let Some(opcode) = words.next() else {
                return false;
            };
            let parts: Vec<&str> = opcode.trim_end_matches(';').split('.').collect();
            match parts[0] {
                "atom" | "red" | "fence" | "membar" => true,
                "ld" | "st" => {
                    parts
                        .iter()
                        .any(|p| matches!(*p, "relaxed" | "acquire" | "release" | "volatile"))
                        && !parts
                            .iter()
                            .any(|p| matches!(*p, "local" | "param" | "const"))
                }
                _ => false,
            }
        })
        .count()
}

/// One expected atomic: `op.order.scope[.shape].type[.laxity]` or `fence.order.scope`.
#[derive(Debug)]
struct Expected {
    op: String,
    order: MemoryOrder,
    scope: Scope,
    shape: VectorShape,
    ty: String,
    laxity: Option<FloatLaxity>,
}

/// Each kernel's expected atomics; an item may name alternatives (`a|b`), the forms the
/// source's headers choose between by architecture.
fn expectations(source: &str) -> BTreeMap<String, Vec<Vec<Expected>>> {
    let mut kernels = BTreeMap::new();
    for line in source.lines() {
        let Some(rest) = line.strip_prefix("K(").or_else(|| line.strip_prefix("KS(")) else {
            continue;
        };
        let mut fields = rest.splitn(3, ", ");
        let name = fields.next().expect("a kernel name").to_string();
        let expect = fields.next().expect("an expectation").trim_matches('"');
        let items = expect
            .split(';')
            .map(|item| item.split('|').map(parse_expected).collect())
            .collect();
        kernels.insert(name, items);
    }
    kernels
}

fn parse_expected(item: &str) -> Expected {
    let mut parts: Vec<&str> = item.trim().split('.').collect();
    let laxity = parts
        .last()
        .and_then(|last| FloatLaxity::from_name(last))
        .inspect(|_| {
            parts.pop();
        });
    let order = MemoryOrder::from_name(parts[1]).expect("an order");
    let scope = Scope::from_name(parts[2]).expect("a scope");
    let (shape, ty) = match parts.len() {
        3 => (VectorShape::Scalar, String::new()),
        4 => (VectorShape::Scalar, parts[3].to_string()),
        _ => (
            VectorShape::from_name(parts[3]).expect("a shape"),
            parts[4].to_string(),
        ),
    };
    Expected {
        op: parts[0].to_string(),
        order,
        scope,
        shape,
        ty,
        laxity,
    }
}

fn type_matches(wanted: &str, ty: ElemType) -> bool {
    match wanted.strip_prefix('i') {
        Some(bits) => {
            ty.bits().to_string() == bits
                && matches!(
                    ty.class(),
                    TypeClass::Unsigned | TypeClass::Signed | TypeClass::Bits
                )
        }
        None => ty.as_str() == wanted,
    }
}

/// Matches a kernel's read atomics against what its source states; seq_cst is `fence.sc` at
/// the scope, then the access acquire (an RMW or load; a load may also be relaxed then
/// `fence.acquire`... as the ABI allows) or relaxed (a store). Returns how many were matched.
fn matches(
    kernel: &str,
    reads: &[&ReadAtomic],
    expected: &[Vec<Expected>],
) -> Result<usize, String> {
    let mut at = 0;
    for alternatives in expected {
        let found = alternatives
            .iter()
            .find_map(|want| match_one(kernel, reads, at, want).ok());
        match found {
            Some(next) => at = next,
            None => return match_one(kernel, reads, at, &alternatives[0]).map(|_| 0),
        }
    }
    if at != reads.len() {
        return Err(format!(
            "{kernel}: {} atomics beyond what the source states: {reads:#?}",
            reads.len() - at
        ));
    }
    Ok(expected.len())
}

/// Matches one expected atomic at `at`; the position after it.
fn match_one(
    kernel: &str,
    reads: &[&ReadAtomic],
    mut at: usize,
    want: &Expected,
) -> Result<usize, String> {
    {
        let start = at;
        let describe = || format!("{kernel}: expected {want:?} at {start} of {reads:#?}");
        if want.op == "fence" {
            return match reads.get(at).map(|r| r.node) {
                Some(Node::Fence(fence))
                    if fence.scope == want.scope && fence.order.implies(want.order) =>
                {
                    Ok(at + 1)
                }
                _ => Err(describe()),
            };
        }
        let seq_cst = want.order == MemoryOrder::SeqCst;
        if seq_cst {
            match reads.get(at).map(|r| r.node) {
                Some(Node::Fence(fence))
                    if fence.order == MemoryOrder::SeqCst && fence.scope == want.scope =>
                {
                    at += 1
                }
                _ => return Err(describe()),
            }
        }
        let Some(Node::Atomic(node)) = reads.get(at).map(|r| r.node) else {
            return Err(describe());
        };
        at += 1;
        let op = AtomicOp::from_name(&want.op).expect("an op");
        let order_ok = if seq_cst {
            match op {
                AtomicOp::Store => {
                    matches!(node.order, MemoryOrder::Relaxed | MemoryOrder::Release)
                }
                AtomicOp::Load => {
                    node.order == MemoryOrder::Acquire || node.order == MemoryOrder::Relaxed
                }
                _ => node.order == MemoryOrder::Acquire,
            }
        } else {
            node.order == want.order
        };
        let node_ok = |node: &AtomicNode| {
            node.op == op
                && order_ok
                && node.scope == want.scope
                && node.shape == want.shape
                && type_matches(&want.ty, node.ty)
                && node.laxity == want.laxity
        };
        if !node_ok(&node) {
            return Err(describe());
        }
        // A seq_cst load carried as relaxed then `fence.acquire` has its fence after it.
        if seq_cst && op == AtomicOp::Load && node.order == MemoryOrder::Relaxed {
            match reads.get(at).map(|r| r.node) {
                Some(Node::Fence(fence)) if fence.order.has_acquire() => at += 1,
                _ => return Err(describe()),
            }
        }
    }
    Ok(at)
}

#[test]
fn every_atomic_of_the_corpus_is_found_and_means_what_its_source_says() {
    let root = corpus();
    let targets: Vec<Target> = ["visa:PVC", "llvm:amdgcn", "llvm:spirv64"]
        .iter()
        .map(|name| name.parse().expect("a target"))
        .collect();
    let mut stated = 0;
    let mut found = 0;
    let mut judged = 0;
    let mut files_read = 0;
    let mut mismatches = Vec::new();
    for path in files(&root) {
        let text = std::fs::read_to_string(&path).expect("a corpus file");
        let read = atomir::read_ptx(&text);
        let name = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        assert!(read.errors.is_empty(), "{name}: {:#?}", read.errors);
        assert_eq!(
            read.atomics.len(),
            line_count(&text),
            "{name}: the reader and the line count disagree"
        );
        assert!(!read.atomics.is_empty(), "{name}: no atomics");
        found += read.atomics.len();
        files_read += 1;
        for atomic in &read.atomics {
            for target in &targets {
                // A verdict, native, emulated or refused with a rule: every atomic is covered.
                let _ = match atomic.node {
                    Node::Atomic(node) => target.legalize(&node),
                    Node::Fence(fence) => target.legalize_fence(&fence),
                };
                judged += 1;
            }
        }
        if name.starts_with("llc") {
            explained_by_example(&name, &path, &read.atomics);
        }
        if !name.starts_with("nvcc") {
            continue;
        }
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a file name");
        let source = std::fs::read_to_string(root.join("src").join(format!("{stem}.cu")))
            .expect("the source");
        let expected = expectations(&source);
        let mut by_kernel: BTreeMap<&str, Vec<&ReadAtomic>> = BTreeMap::new();
        for atomic in &read.atomics {
            by_kernel
                .entry(atomic.function.as_str())
                .or_default()
                .push(atomic);
        }
        let kernels: Vec<&str> = by_kernel.keys().copied().collect();
        let wanted: Vec<&str> = expected.keys().map(String::as_str).collect();
        assert_eq!(
            kernels, wanted,
            "{name}: the kernels with atomics are the source's"
        );
        for (kernel, reads) in &by_kernel {
            match matches(kernel, reads, &expected[*kernel]) {
                Ok(count) => stated += count,
                Err(_) => {
                    let seen: Vec<String> = reads
                        .iter()
                        .map(|r| atomir_cli::ptx::canonical(r))
                        .collect();
                    mismatches.push(format!("{name}: {kernel}: {seen:?}"));
                }
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(files_read > 40, "the corpus has {files_read} files");
    println!("{files_read} files, {found} atomics found, {stated} stated by the sources and matched, {judged} verdicts");
}

/// llc's code of an example: every access read is one of the example's operations at a scope
/// that includes the example's narrowest, or a part of llc's emulations of them (a CAS loop's
/// load and cas, the integer min/max of a float min/max).
fn explained_by_example(name: &str, path: &Path, reads: &[ReadAtomic]) {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .expect("a file name");
    let example = atomir_tests::tools::workspace_root().join(format!("examples/{stem}.atom"));
    let source = std::fs::read_to_string(&example).expect("the example");
    let module = atomir::text::parse(&source).expect("the example parses");
    let mut ops = vec![AtomicOp::Cas, AtomicOp::Load, AtomicOp::Min, AtomicOp::Max];
    let mut narrowest = Scope::System;
    for kernel in &module.kernels {
        for (_, inst) in kernel.atomics() {
            ops.push(if inst.op == AtomicOp::Sub {
                AtomicOp::Add
            } else {
                inst.op
            });
            narrowest = narrowest.min(inst.scope);
        }
    }
    for read in reads {
        if let Node::Atomic(node) = read.node {
            assert!(
                ops.contains(&node.op) && node.scope.includes(narrowest),
                "{name}:{}: {node:?} is none of {stem}'s operations",
                read.line
            );
        }
    }
}

/// A missing tool: a failure where CI requires every tool, a printed skip otherwise.
fn skip_or_fail(tool: &str) {
    assert!(
        !atomir_tests::tools::tools_required(),
        "{tool} is required but not installed; run scripts/install-oracles"
    );
    eprintln!("SKIPPED: {tool} not found; run scripts/install-oracles to install it");
}

/// The checked-in nvcc PTX is what `scripts/ptx-corpus` makes today (for sm_90, the one
/// architecture every source is compiled for).
#[test]
fn the_nvcc_corpus_regenerates_alike() {
    let oracles = atomir_tests::tools::oracle_dir();
    let Some(cu13) = std::fs::read_dir(oracles.join("cu13/lib"))
        .ok()
        .and_then(|mut entries| entries.next())
        .map(|entry| {
            entry
                .expect("an entry")
                .path()
                .join("site-packages/nvidia/cu13")
        })
    else {
        return skip_or_fail("nvcc-13.5 (the cu13 venv of scripts/install-oracles)");
    };
    if !cu13.join("bin/nvcc").exists() || !cu13.join("include/cccl/cuda").exists() {
        return skip_or_fail("nvcc-13.5 with the CCCL headers (scripts/install-oracles)");
    }
    let out = std::env::temp_dir().join(format!("atomir-ptx-corpus-{}", std::process::id()));
    let script = atomir_tests::tools::workspace_root().join("scripts/ptx-corpus");
    let status = std::process::Command::new("bash")
        .arg(&script)
        .args(["--check", out.to_str().expect("a path"), "90"])
        .env("ATOMIR_ORACLES", &oracles)
        .status()
        .expect("bash runs");
    assert!(status.success(), "scripts/ptx-corpus --check failed");
    for path in files(&out.join("nvcc/sm_90")) {
        let fresh = std::fs::read_to_string(&path).expect("generated");
        let name = path.file_name().expect("a name");
        let kept =
            std::fs::read_to_string(corpus().join("nvcc/sm_90").join(name)).expect("checked in");
        assert!(
            fresh == kept,
            "{}: regenerated PTX differs from the checked-in file",
            name.to_string_lossy()
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}
