//! Float laxity (`ftz`, `ieee2008`) on every target of every backend:
//!
//! - a lax node is accepted wherever its exact node is (the exact code is always a valid
//!   lowering of it), and lowered the same way except by a native instruction of its laxity;
//! - an exact node is never printed as a loose instruction: no `.noftz` f16/bf16 min/max on
//!   PTX, no `atom`/`red` `.add.f32` without `.noftz` outside shared memory (it flushes
//!   subnormals there on every target; the exact add is `.noftz` or a CAS loop), no `atomicrmw
//!   fmin`/`fmax` on LLVM;
//! - LLVM's `fmin`/`fmax` of the lax f32/f64 cells are accepted by llvm-as, opt's verifier and
//!   llc of every version and triple that prints them.

use atomir::{
    AddressSpace, AtomicOp, ElemType, ElementLowering, FloatLaxity, LowerOptions, Lowering, Module,
    Target,
};
use atomir_ir::matrix::{lax_cells, Cell};
use atomir_tests::llvm::{check_file, lower_module, Codegen, LlvmTools};

/// The cell with its laxity taken away.
fn exact(cell: &Cell) -> Cell {
    Cell {
        laxity: None,
        ..*cell
    }
}

/// The code of `cell` alone on `target` (a fragment, not a module).
fn code(target: &Target, cell: &Cell) -> String {
    let module = Module {
        kernels: vec![cell.kernel()],
    };
    let verified = atomir::verify::verify(&module).expect("matrix cells verify");
    let mut out = String::new();
    target
        .lower(&verified, &LowerOptions::default(), &mut out)
        .expect("an accepted cell lowers");
    out
}

/// The loose instruction a target prints for a lax node, if `line` is one.
fn loose_instruction(target: &Target, line: &str) -> bool {
    match target {
        Target::Ptx(_) => {
            // Integer min/max have no `.noftz`.
            let half_min_max = line.contains(".min.noftz") || line.contains(".max.noftz");
            let atomic =
                line.trim_start().starts_with("atom.") || line.trim_start().starts_with("red.");
            let flushing_add = atomic
                && line.contains(".add.")
                && line.contains(".f32 ")
                && !line.contains("noftz")
                && !line.contains(".shared");
            half_min_max || flushing_add
        }
        Target::Llvm(_) => line.contains("atomicrmw fmax") || line.contains("atomicrmw fmin"),
        _ => false,
    }
}

#[test]
fn lax_nodes_are_accepted_where_exact_ones_are_and_exact_ones_never_print_loose_forms() {
    let cells: Vec<Cell> = lax_cells().collect();
    let mut loose_printed = 0;
    let mut compared = 0;
    for target in Target::all() {
        // Every cell on every target would take minutes: every 61st cell, and the device-scope
        // vector float max and scalar f32 add cells, where the loose forms are.
        for (index, cell) in cells.iter().enumerate() {
            let focus = (cell.ty.is_float() && cell.shape.is_vector() && cell.op == AtomicOp::Max)
                || (cell.ty == ElemType::F32
                    && cell.op == AtomicOp::Add
                    && !cell.shape.is_vector());
            if index % 61 != 0 && !(focus && cell.scope == atomir::Scope::Device) {
                continue;
            }
            let lax = target.legalize(&cell.node());
            let exact_cell = exact(cell);
            let strict = target.legalize(&exact_cell.node());
            assert!(
                strict.is_err() || lax.is_ok(),
                "{target} {}: the exact node is accepted, the lax one refused: {lax:?}",
                cell.name()
            );
            let (Ok(lax), Ok(strict)) = (lax, strict) else {
                continue;
            };
            compared += 1;
            // A loose instruction is only ever a native form.
            if strict.lowering != Lowering::whole(ElementLowering::Native)
                && lax.lowering != Lowering::whole(ElementLowering::Native)
            {
                continue;
            }
            let exact_code = code(&target, &exact_cell);
            for line in exact_code.lines() {
                assert!(
                    !loose_instruction(&target, line),
                    "{target} {}: the exact node printed as `{line}`",
                    exact_cell.name()
                );
            }
            if lax != strict {
                // Only where a loose native instruction carries it.
                let lax_code = code(&target, cell);
                assert_eq!(
                    lax.lowering,
                    Lowering::whole(ElementLowering::Native),
                    "{target} {}",
                    cell.name()
                );
                assert!(
                    lax_code.lines().any(|line| loose_instruction(&target, line)),
                    "{target} {}: lowered otherwise than the exact node, by no loose form:\n{lax_code}",
                    cell.name()
                );
                loose_printed += 1;
            }
        }
    }
    println!("{compared} lax cells compared with their exact nodes, {loose_printed} by a loose native form");
    assert!(compared > 0 && loose_printed > 0);
}

#[test]
fn llvm_fmin_fmax_of_lax_cells_pass_every_llvm_version() {
    let cells: Vec<Cell> = lax_cells()
        .filter(|cell| {
            cell.laxity == Some(FloatLaxity::Ieee2008MinMax)
                && matches!(cell.ty, ElemType::F32 | ElemType::F64)
                && cell.space != AddressSpace::SharedCluster
                && cell.result_used
        })
        .collect();
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("float_laxity");
    std::fs::create_dir_all(&dir).unwrap();
    let mut judged = 0;
    for target in Target::all() {
        let Target::Llvm(llvm) = target else {
            continue;
        };
        let kernels: Vec<_> = cells
            .iter()
            .filter(|cell| {
                target.legalize(&cell.node()).is_ok_and(|legality| {
                    legality.lowering == Lowering::whole(ElementLowering::Native)
                })
            })
            .enumerate()
            .map(|(index, cell)| {
                let mut kernel = cell.kernel();
                kernel.name = format!("k{index}");
                kernel
            })
            .collect();
        if kernels.is_empty() {
            continue;
        }
        let text = lower_module(&llvm, &kernels).unwrap_or_else(|e| panic!("{target}: {e}"));
        assert!(
            text.contains("atomicrmw fm"),
            "{target}: no fmin/fmax printed"
        );
        let Some(tools) = LlvmTools::require(llvm.major) else {
            continue;
        };
        let path = dir.join(format!(
            "{}.ll",
            target.to_string().replace([':', '@'], "-")
        ));
        std::fs::write(&path, &text).unwrap();
        check_file(
            &tools,
            &llvm,
            &path,
            &path.with_extension("out"),
            Codegen::Fast,
        )
        .unwrap_or_else(|error| panic!("{target}: {error}"));
        judged += 1;
    }
    println!("{judged} LLVM targets judged their fmin/fmax");
}
