//! Where the order of a CAS retry loop goes, read from the emitted code of every ordered loop
//! cell of the matrix: on a target that carries a loop's order by fences, one leading fence
//! before the loop for a release part and one trailing fence after it for an acquire part, none
//! between the loop's label and its backward branch (a retry runs no fence), and every access
//! inside relaxed; on a target that keeps the ordered `cmpxchg`, no fence at all and the order on
//! the `cmpxchg` of every retry. On PTX the float min/max by integer atomics, whose NaN path is a
//! loop, is bracketed as one loop too: its `atom.min/max` relaxed between the same fences.

use atomir::Target;
use atomir_ir::matrix::{self, cells, Cell};
use atomir_ir::{
    AddressSpace, AtomicOp, ElemType, ElementLowering, LowerOptions, Lowering, MemoryOrder, Scope,
    WarpCombine,
};
use atomir_tests::loops::Listing;

/// How a target is expected to carry a loop's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// Fences around the loop, every access inside relaxed.
    Fences,
    /// The order on the loop's `cmpxchg`, no fence.
    OnCmpxchg,
}

/// The language `target` prints.
fn listing(target: &str) -> Listing {
    match target.split(':').next() {
        Some("ptx") => Listing::Ptx,
        Some("visa") => Listing::Visa,
        Some("llvm") => Listing::LlvmIr,
        _ => panic!("{target}: no listing known"),
    }
}

fn is_fence(line: &str) -> bool {
    line.contains("fence") || line.contains("membar") || line.contains("MemoryBarrier")
}

/// Which lowerings a check reads: the CAS retry loops, or with them every lowering that has one
/// (float min/max by integer atomics, whose NaN path is a loop).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loops {
    Retrying,
    WithIntMinMax,
}

impl Loops {
    fn has(self, lowering: Lowering) -> bool {
        match self {
            Loops::Retrying => lowering.retries(),
            Loops::WithIntMinMax => lowering.has_retry_loop(),
        }
    }
}

/// Every third loop cell of `target` whose order is not relaxed (each op, type, order, scope and
/// space still comes up), and their code.
fn ordered_loop_cells(target: &Target, loops: Loops) -> Vec<(Cell, String)> {
    let backend = target.backend();
    let chosen: Vec<Cell> = cells()
        .filter(|cell| cell.order != MemoryOrder::Relaxed)
        .step_by(3)
        .filter(|cell| {
            backend
                .legalize(&cell.node())
                .is_ok_and(|legality| loops.has(legality.lowering))
        })
        .collect();
    matrix::run(backend, chosen, &LowerOptions::default())
        .into_iter()
        .filter_map(|outcome| match outcome.cell {
            matrix::AnyCell::Access(cell) => Some((cell, outcome.code)),
            matrix::AnyCell::Fence(_) => None,
        })
        .collect()
}

fn check(name: &str, read: Loops, expect: impl Fn(&Cell) -> Expect) -> usize {
    let target: Target = name.parse().unwrap();
    let lowered = ordered_loop_cells(&target, read);
    assert!(
        lowered.len() > 100,
        "{name}: only {} loop cells",
        lowered.len()
    );
    for (cell, code) in &lowered {
        let lines: Vec<&str> = code.lines().collect();
        let found = listing(name).loops(code);
        assert!(!found.is_empty(), "{name} {cell}: no loop found\n{code}");
        let first = found.iter().map(|l| l.label).min().unwrap_or(0);
        let last = found.iter().map(|l| l.back).max().unwrap_or(0);
        let fences_before = lines[..first].iter().filter(|l| is_fence(l)).count();
        let fences_after = lines[last..].iter().filter(|l| is_fence(l)).count();
        let inside = &lines[first..=last];
        let what = format!("{name} {cell}\n{code}");
        assert!(
            !inside.iter().any(|l| is_fence(l)),
            "a fence inside the loops: {what}"
        );
        match expect(cell) {
            Expect::Fences => {
                assert_eq!(fences_before > 0, cell.order.has_release(), "{what}");
                assert_eq!(fences_after > 0, cell.order.has_acquire(), "{what}");
                for line in inside {
                    for ordered in [".release", ".acquire", ".acq_rel", ".sc."] {
                        assert!(!line.contains(ordered), "{ordered} in the loop: {what}");
                    }
                    if line.contains("= cmpxchg ") {
                        assert!(line.contains("monotonic monotonic"), "{what}");
                    }
                }
            }
            Expect::OnCmpxchg => {
                assert_eq!(fences_before + fences_after, 0, "{what}");
                let ordering = match cell.order {
                    MemoryOrder::Relaxed => "monotonic",
                    MemoryOrder::Acquire => "acquire",
                    MemoryOrder::Release => "release",
                    MemoryOrder::AcqRel => "acq_rel",
                    MemoryOrder::SeqCst => "seq_cst",
                };
                assert!(
                    inside
                        .iter()
                        .any(|l| l.contains("cmpxchg") && l.contains(&format!(" {ordering} "))),
                    "{what}"
                );
            }
        }
    }
    lowered.len()
}

#[test]
fn ptx_loops_are_fenced_once() {
    for name in ["ptx:sm_90", "ptx:sm_70", "ptx:sm_60"] {
        let checked = check(name, Loops::WithIntMinMax, |_| Expect::Fences);
        println!("{name}: {checked} ordered loop cells");
    }
}

#[test]
fn visa_loops_are_fenced_once() {
    for name in ["visa:DG2", "visa:TGLLP"] {
        let checked = check(name, Loops::Retrying, |_| Expect::Fences);
        println!("{name}: {checked} ordered loop cells");
    }
}

/// NVPTX from LLVM 22 fences release, acquire and acq_rel loops; seq_cst and every other
/// triple keep the ordered `cmpxchg` (NVPTX before 22 refuses ordered loops).
#[test]
fn llvm_loops_fence_only_where_shown_sound() {
    let nvptx = |cell: &Cell| match cell.order {
        MemoryOrder::SeqCst => Expect::OnCmpxchg,
        _ => Expect::Fences,
    };
    for name in ["llvm:nvptx64", "llvm:nvptx64@23"] {
        println!(
            "{name}: {} ordered loop cells",
            check(name, Loops::Retrying, nvptx)
        );
    }
    for name in ["llvm:x86_64", "llvm:amdgcn", "llvm:spirv64"] {
        println!(
            "{name}: {} ordered loop cells",
            check(name, Loops::Retrying, |_| Expect::OnCmpxchg)
        );
    }
}

/// PTX float min/max on 32/64 bits (`fminimumnum`/`fmaximumnum` alike) takes the integer
/// atomics on every target, all having them (`.s32/.u32` everywhere, `.s64/.u64` from sm_32);
/// every other float min/max keeps its loop. A relaxed scalar one is warp-combined from sm_70
/// (`WarpIntMinMax`). Each element's code has the signed and the unsigned `atom` of its width,
/// mirrored for min, at the node's printed scope and space, relaxed between the loop's fences
/// (read by the checks above), and the NaN loop's CAS: once, or twice where combined (a lane
/// alone at its address, and the lane that acts for a group).
#[test]
fn ptx_float_min_max_by_integer_atomics() {
    use atomir_ir::matrix::AnyCell;
    for name in ["ptx:sm_60", "ptx:sm_70", "ptx:sm_90"] {
        let target: Target = name.parse().unwrap();
        let backend = target.backend();
        // The warp instructions, from sm_70.
        let warps = name != "ptx:sm_60";
        let mut chosen = Vec::new();
        for cell in cells() {
            let Ok(legality) = backend.legalize(&cell.node()) else {
                continue;
            };
            let float_min_max = matches!(
                cell.op,
                AtomicOp::Min | AtomicOp::Max | AtomicOp::FMinimumNum | AtomicOp::FMaximumNum
            ) && matches!(cell.ty, ElemType::F32 | ElemType::F64);
            assert_eq!(
                legality.lowering.element() == ElementLowering::IntMinMax,
                float_min_max,
                "{name} {cell}: {:?}",
                legality.lowering
            );
            let combined = float_min_max
                && warps
                && cell.order == MemoryOrder::Relaxed
                && !cell.shape.is_vector();
            assert_eq!(
                legality.lowering
                    == Lowering::whole(ElementLowering::IntMinMax)
                        .with_warp(WarpCombine::Fold)
                        .unwrap(),
                combined,
                "{name} {cell}: {:?}",
                legality.lowering
            );
            if float_min_max {
                chosen.push(cell);
            }
        }
        assert!(chosen.len() > 100, "{name}: only {} cells", chosen.len());
        let has_cluster = name == "ptx:sm_90";
        let has_sem = name != "ptx:sm_60";
        for outcome in matrix::run(backend, chosen, &LowerOptions::default()) {
            let AnyCell::Access(cell) = outcome.cell else {
                continue;
            };
            let code = &outcome.code;
            let what = format!("{name} {cell}\n{code}");
            let bits = cell.ty.bits();
            let (signed, unsigned) = match cell.op {
                AtomicOp::Max | AtomicOp::FMaximumNum => ("max", "min"),
                _ => ("min", "max"),
            };
            let scope = match cell.scope {
                Scope::Block => "cta",
                Scope::Cluster if has_cluster => "cluster",
                Scope::Cluster | Scope::Device => "gpu",
                Scope::System => "sys",
            };
            let space = match cell.space {
                AddressSpace::Generic => None,
                AddressSpace::Global => Some("global"),
                AddressSpace::Shared if has_cluster => Some("shared::cta"),
                AddressSpace::Shared => Some("shared"),
                AddressSpace::SharedCluster => Some("shared::cluster"),
            };
            let atoms: Vec<&str> = code
                .lines()
                .map(str::trim)
                .filter(|line| line.starts_with("atom"))
                .collect();
            let combined = warps && cell.order == MemoryOrder::Relaxed && !cell.shape.is_vector();
            let copies = if combined { 2 } else { 1 };
            let elements = cell.shape.len() * copies;
            let count = |form: &str| atoms.iter().filter(|l| l.contains(form)).count();
            assert_eq!(count(&format!(".{signed}.s{bits} ")), elements, "{what}");
            assert_eq!(count(&format!(".{unsigned}.u{bits} ")), elements, "{what}");
            assert_eq!(count(&format!(".cas.b{bits} ")), elements, "{what}");
            assert_eq!(atoms.len(), 3 * elements, "{what}");
            for atom in &atoms {
                let head = atom.split_whitespace().next().unwrap_or_default();
                let parts: Vec<&str> = head.split('.').collect();
                assert!(parts.contains(&scope), "{atom}: {what}");
                assert_eq!(parts.contains(&"relaxed"), has_sem, "{atom}: {what}");
                let spaces: Vec<&&str> = parts
                    .iter()
                    .filter(|part| part.starts_with("global") || part.starts_with("shared"))
                    .collect();
                assert_eq!(spaces, Vec::from_iter(space.as_ref()), "{atom}: {what}");
            }
        }
    }
}
