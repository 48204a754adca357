//! The PTX reader against the whole lowering matrix: on every PTX architecture (each at its
//! default ISA, and sm_90 at 9.4), every cell's code (native and rewritten forms) reads
//! without an error; a native cell's code reads back to the cell's node or its documented
//! equivalent, and re-lowering what was read gives the same instructions byte for byte. The
//! cells of lax nodes (`matrix::lax_cells`) are among them.
//!
//! One module per target holds every accepted cell as an `.entry` of its own (generic
//! parameters left generic), so each target is one lowering and one read.

use atomir::{
    AddressSpace, AtomicNode, AtomicOp, Backend, ElemType, ElementLowering, FloatLaxity,
    GenericParams, LowerOptions, Lowering, MemoryOrder, Module, Node, PtxIsa, PtxTarget,
    ReadAtomic, Scope, Sm, Target, TypeClass,
};
use atomir_ir::matrix::{all_cells, lax_cells, AnyCell};
use std::collections::HashMap;

/// Every architecture at its default ISA, and sm_90 at 9.4 (the exact f32 add), each with
/// the cells it reads: all of them on sm_60, sm_70, sm_80, sm_90, sm_90@9.4 and sm_100 (the
/// architectures whose tables differ), every 16th elsewhere (the same tables, to keep the
/// test short).
fn targets() -> Vec<(PtxTarget, usize)> {
    let full = [Sm::Sm60, Sm::Sm70, Sm::Sm80, Sm::Sm90, Sm::Sm100];
    let mut targets: Vec<(PtxTarget, usize)> = Sm::ALL
        .iter()
        .map(|&sm| {
            (
                PtxTarget::new(sm, sm.default_isa()),
                if full.contains(&sm) { 1 } else { 16 },
            )
        })
        .collect();
    targets.push((PtxTarget::new(Sm::Sm90, PtxIsa::new(9, 4)), 1));
    targets
}

/// Whether `read` is what `cell` means, up to the documented equivalents: an unused result
/// may read as used (an `atom` with a temporary destination), and as unused only from `red`;
/// seq_cst is carried by a `fence.sc` (a `membar` before sm_70) before an acquire RMW or
/// load, or a relaxed store; before sm_70 every order is relaxed between `membar`s, and an
/// atomic load or store is `.volatile` (relaxed, system scope); the cluster scope widens to
/// the device before sm_90; sub reads as add (of the negated operand); an integer type reads
/// as the type PTX spells (bits for bitwise ops, exch, cas, loads and stores; u64 for s64 add);
/// a `.shared` cell reads as shared. A float laxity reads as the cell's or as a stronger one,
/// never looser: an exact f32 add or sub on global or generic memory is never printed as the
/// flushing `atom.add.f32` (without `.noftz` it is a CAS loop, not a native cell).
fn equivalent(
    cell: &AtomicNode,
    read: &AtomicNode,
    (before, after): (Option<MemoryOrder>, Option<MemoryOrder>),
    target: PtxTarget,
) -> bool {
    let op_same = read.op == cell.op || (cell.op == AtomicOp::Sub && read.op == AtomicOp::Add);
    let ty_same = read.ty == cell.ty
        || (read.ty.bits() == cell.ty.bits()
            && (read.ty.class() == TypeClass::Bits
                || (cell.ty == ElemType::S64 && read.ty == ElemType::U64)));
    let sem = target.sm.number() >= 70;
    let acquire = read.order.has_acquire() || after.is_some_and(MemoryOrder::has_acquire);
    let release = read.order.has_release() || before.is_some_and(MemoryOrder::has_release);
    let order_same = match cell.order {
        MemoryOrder::Relaxed => {
            read.order == MemoryOrder::Relaxed && before.is_none() && after.is_none()
        }
        MemoryOrder::Acquire => acquire,
        MemoryOrder::Release => release,
        MemoryOrder::AcqRel => acquire && release,
        MemoryOrder::SeqCst => {
            before == Some(MemoryOrder::SeqCst)
                && (acquire || matches!(cell.op, AtomicOp::Load | AtomicOp::Store))
        }
    };
    let scope_same = read.scope == cell.scope
        || (!sem
            && read.scope == Scope::System
            && matches!(cell.op, AtomicOp::Load | AtomicOp::Store))
        || (cell.scope == Scope::Cluster && read.scope == Scope::Device && target.sm.number() < 90);
    let result_same =
        read.result_used == cell.result_used || (read.result_used && !cell.result_used);
    let laxity_same = FloatLaxity::carries(read.laxity, cell.laxity);
    op_same
        && ty_same
        && order_same
        && scope_same
        && read.space == cell.space
        && read.shape == cell.shape
        && result_same
        && laxity_same
}

/// The instruction `text` with its qualifiers in the reverse order, and (for `atom`/`red`, and
/// the scope of an ordered `ld`/`st`) with the defaults `.relaxed` and `.gpu` left out.
fn spelled_otherwise(text: &str) -> Vec<String> {
    let text = text.trim();
    let (guard, rest) = match text.strip_prefix('@') {
        Some(_) => text
            .split_once(' ')
            .map_or(("", text), |(g, r)| (g, r.trim_start())),
        None => ("", text),
    };
    let Some((opcode, operands)) = rest.split_once(|c: char| c.is_ascii_whitespace()) else {
        return Vec::new();
    };
    let mut parts: Vec<&str> = opcode.split('.').collect();
    let head = parts.remove(0);
    if !matches!(head, "atom" | "red" | "ld" | "st") {
        return Vec::new();
    }
    let join = |parts: &[&str]| {
        let mut spelled = String::from(guard);
        if !guard.is_empty() {
            spelled.push(' ');
        }
        spelled.push_str(head);
        for part in parts {
            spelled.push('.');
            spelled.push_str(part);
        }
        format!("{spelled} {operands};")
    };
    let mut reversed = parts.clone();
    reversed.reverse();
    let rmw = matches!(head, "atom" | "red");
    let omitted: Vec<&str> = parts
        .iter()
        .copied()
        .filter(|part| *part != "gpu" && !(rmw && *part == "relaxed"))
        .collect();
    let mut variants = vec![join(&reversed)];
    if omitted.len() != parts.len() {
        variants.push(join(&omitted));
    }
    variants
}

/// Checks one native cell's reads; returns (instructions re-lowered byte for byte,
/// respellings read alike).
fn check_native(
    ptx: PtxTarget,
    target: &Target,
    code: &str,
    cell: &AnyCell,
    reads: &[&ReadAtomic],
) -> (usize, usize) {
    let mut relowered = 0;
    let mut variants = 0;
    match cell {
        AnyCell::Fence(fence) => {
            let fences: Vec<_> = reads
                .iter()
                .filter_map(|r| match r.node {
                    Node::Fence(f) => Some(f),
                    Node::Atomic(_) => None,
                })
                .collect();
            assert_eq!(fences.len(), 1, "{ptx} {}: {reads:#?}", cell.name());
            let f = fences[0];
            let order_ok = f.order == fence.order || f.order.implies(fence.order);
            let scope_ok = f.scope.includes(fence.scope);
            assert!(order_ok && scope_ok, "{ptx} {}: read {f:?}", cell.name());
        }
        AnyCell::Access(_) => {
            let accesses: Vec<(usize, &AtomicNode)> = reads
                .iter()
                .enumerate()
                .filter_map(|(i, r)| match &r.node {
                    Node::Atomic(node) => Some((i, node)),
                    Node::Fence(_) => None,
                })
                .collect();
            let cell_node = cell.node();
            let Node::Atomic(cell_node) = cell_node else {
                unreachable!()
            };
            for (position, node) in &accesses {
                let fence_at =
                    |at: Option<usize>| match at.and_then(|at| reads.get(at)).map(|r| r.node) {
                        Some(Node::Fence(fence)) => Some(fence.order),
                        _ => None,
                    };
                let fences = (
                    fence_at(position.checked_sub(1)),
                    fence_at(Some(position + 1)),
                );
                let mut node = **node;
                if cell_node.space == AddressSpace::Shared && node.space == AddressSpace::Shared {
                    node.space = cell_node.space;
                }
                // A vector load or store may be carried by several narrower accesses.
                let shape_free = matches!(cell_node.op, AtomicOp::Load | AtomicOp::Store);
                if shape_free {
                    node.shape = cell_node.shape;
                    node.ty = if node.ty.bits() == cell_node.ty.bits() {
                        node.ty
                    } else {
                        cell_node.ty
                    };
                }
                assert!(
                    equivalent(&cell_node, &node, fences, ptx),
                    "{ptx} {}: read {node:?} from {}",
                    cell.name(),
                    reads[*position].raw
                );
            }
            assert!(
                !accesses.is_empty(),
                "{ptx} {}: no access read",
                cell.name()
            );
        }
    }
    for atomic in reads {
        for variant in spelled_otherwise(&code[atomic.span.clone()]) {
            let again = atomir::read_ptx_instruction(&variant, &atomir::PtxDeclarations::new())
                .unwrap_or_else(|error| panic!("{ptx} {}: `{variant}`: {error}", cell.name()));
            assert_eq!(
                again.node,
                atomic.node,
                "{ptx} {}: `{variant}`",
                cell.name()
            );
            variants += 1;
        }
    }
    // Re-lowering each read instruction gives its own text back.
    for (number, atomic) in reads.iter().enumerate() {
        let mut notes = Vec::new();
        let spliced = atomir_cli::ptx::splice(atomic, target, number as u32, &mut notes)
            .unwrap_or_else(|error| panic!("{ptx} {}: {error}", cell.name()));
        let original = format!("{};", code[atomic.span.clone()].trim());
        if spliced.before.is_empty()
            && spliced.after.is_empty()
            && spliced.code.lines().count() == 1
        {
            assert_eq!(spliced.code.trim(), original, "{ptx} {}", cell.name());
            relowered += 1;
        }
    }
    (relowered, variants)
}

/// Reads back one target's cells (every `every`th); the line of the report.
fn read_back_target(ptx: PtxTarget, every: usize, cells: &[AnyCell]) -> String {
    let target = Target::Ptx(ptx);
    let mut module = Module::default();
    let mut native = Vec::new();
    let mut accepted = Vec::new();
    for cell in cells.iter().step_by(every) {
        let Ok(legality) = target.legalize_node(&cell.node()) else {
            continue;
        };
        let mut kernel = cell.kernel();
        kernel.name = format!("k{}", module.kernels.len());
        if legality.lowering == Lowering::whole(ElementLowering::Native) {
            native.push((module.kernels.len(), *cell));
        }
        accepted.push(*cell);
        module.kernels.push(kernel);
    }
    let verified = atomir::verify::verify(&module).expect("matrix cells verify");
    let options = LowerOptions::module().with_generic_params(GenericParams::Anywhere);
    let mut code = String::new();
    target
        .lower(&verified, &options, &mut code)
        .unwrap_or_else(|error| panic!("{ptx}: {error}"));
    let read = atomir::read_ptx(&code);
    let shown: Vec<String> = read
        .errors
        .iter()
        .take(5)
        .map(ToString::to_string)
        .collect();
    assert!(
        read.errors.is_empty(),
        "{ptx}: {} errors reading atomir's own code: {shown:#?}",
        read.errors.len()
    );
    // A shared function's atomics belong to every kernel that calls it.
    let callers = callers(&code);
    let mut by_kernel: Vec<Vec<&ReadAtomic>> = vec![Vec::new(); module.kernels.len()];
    for atomic in &read.atomics {
        let kernels = match atomic.function.strip_prefix('k') {
            Some(n) => n.parse::<usize>().ok().into_iter().collect(),
            None => callers
                .get(atomic.function.as_str())
                .cloned()
                .unwrap_or_default(),
        };
        for index in kernels {
            by_kernel[index].push(atomic);
        }
    }
    assert!(
        read.atomics
            .iter()
            .all(|atomic| atomic.function.starts_with('k')
                || callers.contains_key(atomic.function.as_str())),
        "{ptx}: an atomic outside any entry or called function"
    );
    // No cell, native or emulated, is carried by an instruction looser than the cell: an exact
    // f32 add's CAS loop reads as a `cas`, never as the flushing add.
    for (cell, reads) in accepted.iter().zip(&by_kernel) {
        let Node::Atomic(cell_node) = cell.node() else {
            continue;
        };
        for read in reads {
            if let Node::Atomic(node) = read.node {
                assert!(
                    FloatLaxity::carries(node.laxity, cell_node.laxity),
                    "{ptx} {}: `{}` is looser than the cell",
                    cell.name(),
                    read.raw
                );
            }
        }
    }
    let mut relowered = 0;
    let mut variants = 0;
    for (index, cell) in &native {
        let (lines, respelled) = check_native(ptx, &target, &code, cell, &by_kernel[*index]);
        relowered += lines;
        variants += respelled;
    }
    assert!(
        !native.is_empty() && relowered > 0,
        "{ptx}: nothing checked"
    );
    format!(
        "{ptx}: {} cells read, {} native checked, {relowered} re-lowered byte for byte, \
         {variants} respellings read alike",
        module.kernels.len(),
        native.len()
    )
}

/// The entries (by the index in their name, `k<index>`) that call each function of `code`,
/// from its `call` lines.
fn callers(code: &str) -> HashMap<String, Vec<usize>> {
    let (_, definitions) = atomir_tests::ptx::definitions(code);
    let (entries, functions): (Vec<_>, Vec<_>) = definitions.into_iter().partition(|d| d.entry);
    let mut callers: HashMap<String, Vec<usize>> = HashMap::new();
    for entry in &entries {
        let Some(kernel) = entry
            .name
            .strip_prefix('k')
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        for function in atomir_tests::ptx::calls(&entry.text, &functions) {
            callers
                .entry(function.name.clone())
                .or_default()
                .push(kernel);
        }
    }
    callers
}

#[test]
fn every_cell_reads_back_and_native_cells_relower_byte_for_byte() {
    let cells: Vec<AnyCell> = all_cells()
        .chain(lax_cells().map(AnyCell::Access))
        .collect();
    let targets = targets();
    // The targets in turn on a few threads (each target is one lowering and one read).
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(4);
    let mut report: Vec<(usize, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&(ptx, every)) = targets.get(index) else {
                            return done;
                        };
                        done.push((index, read_back_target(ptx, every, &cells)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().expect("a worker"))
            .collect()
    });
    report.sort();
    assert_eq!(report.len(), targets.len());
    let lines: Vec<String> = report.into_iter().map(|(_, line)| line).collect();
    println!("{}", lines.join("\n"));
}
