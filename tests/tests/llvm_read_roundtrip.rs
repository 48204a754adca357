//! Round trip: every cell of the lowering matrix that an LLVM target accepts, at every LLVM
//! version, lowered to atomir's own `.ll` and read back with the reader of
//! `atomir_llvm::read`, gives the cell's node or its documented equivalent:
//!
//! - every atomic read has the cell's address space (x86-64's one space reads as generic), a
//!   scope that includes the cell's, and together (accesses and fences) an order that implies
//!   the cell's;
//! - a cell lowered natively reads back as one access of the cell's op, element width, float-ness
//!   and element count, never with a looser float laxity than the cell's (the cells of lax
//!   nodes, `matrix::lax_cells`, are among them: `fmin`/`fmax` read back as `ieee2008`) (integers read unsigned or as bits: LLVM's integers have no sign; a
//!   packed `f16x2`/`bf16x2` is LLVM's `<2 x half>`/`<2 x bfloat>`, read as such);
//! - on spirv64 an atomic load, store or fence is a call of a `__spirv_*` builtin (LLVM 22's
//!   SPIR-V backend prints `load atomic` as a plain `OpLoad`), which the reader does not read:
//!   the test finds the call instead.
//!
//! Cells are lowered a few thousand to a module and each module read once, two targets at a
//! time.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use atomir::llvm::read::{read, LlAtomic, LlKind, ReadOptions};
use atomir::{
    AtomicOp, Backend, ElemType, FloatLaxity, Kernel, Legality, LowerOptions, MemoryOrder, Module,
    Strategy, Target, Triple, VectorShape,
};
use atomir_ir::matrix::{all_cells, lax_cells, AnyCell};

const BATCH: usize = 4000;

/// The order that the accesses and fences of one cell give together.
fn combined_order(atomics: &[&LlAtomic]) -> MemoryOrder {
    let orders = atomics.iter().map(|a| a.node_order());
    let seq_cst = orders.clone().any(|o| o == MemoryOrder::SeqCst);
    let acquire = orders.clone().any(|o| o.has_acquire());
    let release = orders.clone().any(|o| o.has_release());
    match (seq_cst, acquire, release) {
        (true, _, _) => MemoryOrder::SeqCst,
        (_, true, true) => MemoryOrder::AcqRel,
        (_, true, false) => MemoryOrder::Acquire,
        (_, false, true) => MemoryOrder::Release,
        _ => MemoryOrder::Relaxed,
    }
}

/// An element type and shape as the count, width and float-ness of its elements.
fn elements(ty: ElemType, shape: VectorShape) -> (usize, u32, bool) {
    if ty.is_packed() {
        return (2 * shape.len(), ty.lane_type().bits(), true);
    }
    (shape.len(), ty.bits(), ty.is_float())
}

fn check_cell(
    target: &atomir::LlvmTarget,
    cell: &AnyCell,
    legality: &Legality,
    atomics: &[&LlAtomic],
    code: &str,
) -> Result<(), String> {
    let is_ldst_or_fence = match cell {
        AnyCell::Fence(_) => true,
        AnyCell::Access(access) => matches!(access.op, AtomicOp::Load | AtomicOp::Store),
    };
    if target.triple == Triple::Spirv64 && is_ldst_or_fence && code.contains("__spirv_") {
        // The builtins carry the order (the reader reads instructions, not calls); an 8-bit
        // access is also a masked atomic on its 32-bit word, which is read and checked below.
        if atomics
            .iter()
            .all(|a| a.node_order() == MemoryOrder::Relaxed)
        {
            return Ok(());
        }
    }
    if atomics.is_empty() {
        return Err("no atomic read back".into());
    }
    let expected_space = |space| match target.triple {
        Triple::X86_64 => atomir::AddressSpace::Generic,
        _ => space,
    };
    for atomic in atomics {
        if !atomic.scope.scope.includes(cell.scope()) {
            return Err(format!(
                "scope {} does not include {}",
                atomic.scope.scope,
                cell.scope()
            ));
        }
        if let (Some(access), AnyCell::Access(c)) = (&atomic.access, cell) {
            if access.space != expected_space(c.space) {
                return Err(format!("space {} read for {}", access.space, c.space));
            }
        }
    }
    let order = combined_order(atomics);
    if !order.implies(cell.order()) {
        return Err(format!("order {order} read for {}", cell.order()));
    }
    match cell {
        AnyCell::Fence(_) => {
            if atomics.iter().any(|a| a.kind != LlKind::Fence) {
                return Err("a fence cell reads back as an access".into());
            }
        }
        AnyCell::Access(c) if legality.strategy() == Strategy::Native => {
            let accesses: Vec<_> = atomics.iter().filter_map(|a| a.node()).collect();
            let [node] = accesses.as_slice() else {
                return Err(format!(
                    "a native cell reads back as {} accesses",
                    accesses.len()
                ));
            };
            if node.op != c.op {
                return Err(format!("op {} read for {}", node.op, c.op));
            }
            // Never looser than the cell: an exact min/max is never printed as `fmin`/`fmax`.
            if !FloatLaxity::carries(node.laxity, c.laxity) {
                return Err(format!("laxity {:?} read for {:?}", node.laxity, c.laxity));
            }
            let (read, cell) = (elements(node.ty, node.shape), elements(c.ty, c.shape));
            // An op that moves bits (exch, cas, load, store) is printed on an integer of the
            // element's (or packed word's) width.
            let moves_bits = matches!(
                c.op,
                AtomicOp::Exch | AtomicOp::Cas | AtomicOp::Load | AtomicOp::Store
            );
            let same = if moves_bits {
                (
                    read.0 as u32 * read.1,
                    node.ty.is_float() && !c.ty.is_float(),
                ) == (cell.0 as u32 * cell.1, false)
            } else {
                read == cell
            };
            if !same {
                return Err(format!(
                    "{}{} read for {}{}",
                    node.shape, node.ty, c.shape, c.ty
                ));
            }
        }
        AnyCell::Access(_) => {}
    }
    Ok(())
}

/// Lowers, reads back and checks every accepted cell of `target`; returns the cells checked
/// and the failures (at most a few per target).
fn round_trip(
    target: Target,
    cells: &[AnyCell],
    seen: &Mutex<HashSet<u64>>,
) -> (usize, Vec<String>) {
    let Target::Llvm(llvm) = target else {
        return (0, Vec::new());
    };
    let mut failures = Vec::new();
    let mut checked = 0;
    let t0 = std::time::Instant::now();
    let accepted: Vec<(&AnyCell, Legality)> = cells
        .iter()
        .filter_map(|cell| target.legalize_node(&cell.node()).ok().map(|l| (cell, l)))
        .collect();
    if std::env::var("ATOMIR_ROUNDTRIP_TIMES").is_ok() {
        eprintln!("legalized in {:.1?}", t0.elapsed());
    }
    for batch in accepted.chunks(BATCH) {
        let t1 = std::time::Instant::now();
        let module = Module {
            kernels: batch
                .iter()
                .map(|(cell, _)| cell.kernel())
                .collect::<Vec<Kernel>>(),
        };
        let verified = atomir::verify::verify(&module).expect("matrix cells verify");
        let mut text = String::new();
        if let Err(error) = target.lower(&verified, &LowerOptions::fragment(), &mut text) {
            failures.push(format!("{target}: {error}"));
            continue;
        }
        // A module already read for another target (the same cells, the same text: versions
        // whose printing does not differ) is not read again.
        let mut hasher = DefaultHasher::new();
        text.hash(&mut hasher);
        if !seen.lock().unwrap().insert(hasher.finish()) {
            checked += batch.len();
            continue;
        }
        let lowered = std::time::Instant::now();
        if std::env::var("ATOMIR_ROUNDTRIP_TIMES").is_ok() {
            eprintln!("lowered in {:.1?}", t1.elapsed());
        }
        let reading = read(
            &text,
            &ReadOptions {
                triple: Some(llvm.triple),
            },
        );
        if std::env::var("ATOMIR_ROUNDTRIP_TIMES").is_ok() {
            eprintln!("read {} bytes in {:.1?}", text.len(), lowered.elapsed());
        }
        if let Some(d) = reading.diagnostics.first() {
            failures.push(format!(
                "{target}: {} diagnostics, first: {d}",
                reading.diagnostics.len()
            ));
        }
        let mut by_function: HashMap<&str, Vec<&LlAtomic>> = HashMap::new();
        for atomic in &reading.module.atomics {
            let name = reading.module.functions[atomic.function].name.as_str();
            by_function.entry(name).or_default().push(atomic);
        }
        let bodies: HashMap<&str, &str> = reading
            .module
            .functions
            .iter()
            .map(|f| (f.name.as_str(), &text[f.body.clone()]))
            .collect();
        for (cell, legality) in batch {
            let name = cell.name();
            let atomics = by_function
                .get(name.as_str())
                .map_or(&[][..], Vec::as_slice);
            let code = bodies.get(name.as_str()).copied().unwrap_or("");
            checked += 1;
            if let Err(why) = check_cell(&llvm, cell, legality, atomics, code) {
                if failures.len() < 5 {
                    failures.push(format!("{target} {name}: {why}"));
                }
            }
        }
    }
    (checked, failures)
}

#[test]
fn every_accepted_cell_reads_back_to_its_node() {
    let cells: Vec<AnyCell> = all_cells()
        .chain(lax_cells().map(AnyCell::Access))
        .collect();
    // ATOMIR_ROUNDTRIP_TARGETS=llvm:nvptx64@22,… narrows the run while debugging.
    let only = std::env::var("ATOMIR_ROUNDTRIP_TARGETS").ok();
    let targets: Vec<Target> = Target::all()
        .into_iter()
        .filter(|t| matches!(t, Target::Llvm(_)))
        .filter(|t| {
            only.as_deref()
                .is_none_or(|list| list.split(',').any(|n| n == t.to_string()))
        })
        .collect();
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    let seen = Mutex::new(HashSet::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(target) = targets.get(index) else {
                    break;
                };
                let start = std::time::Instant::now();
                let outcome = round_trip(*target, &cells, &seen);
                println!("{target}: {} cells in {:.1?}", outcome.0, start.elapsed());
                results.lock().unwrap().push((*target, outcome));
            });
        }
    });
    let results = results.into_inner().unwrap();
    let mut failures = Vec::new();
    let mut total = 0;
    for (_, (checked, target_failures)) in &results {
        total += checked;
        failures.extend(target_failures.iter().cloned());
    }
    println!(
        "{} LLVM targets, {total} accepted cells read back",
        results.len()
    );
    assert_eq!(results.len(), targets.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
