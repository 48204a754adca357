//! Static code quality per PTX matrix cell on sm_90: our PTX against llc 22's PTX for the same
//! atomic (our `llvm:nvptx64@22` output), both assembled by ptxas 13.5 and read back with
//! nvdisasm: SASS instructions and hardware CAS loops per cell.
//!
//! `cargo run --release -p atomir-bench --bin sass_table` prints a Markdown report; a cell where
//! llc's PTX lost the order or scope is listed as wrong, not compared.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Command;

use atomir_bench::sass::{ptx_functions, ptx_keeps_order_and_scope, summarize_sass, SassSummary};
use atomir_bench::{targets, tools};
use atomir_ir::matrix::{cells, Cell};
use atomir_ir::{Backend, LowerOptions, Module};

const BATCH: usize = 2000;

struct Row {
    cell: Cell,
    ours: SassSummary,
    llc: Option<(SassSummary, bool)>,
}

fn main() {
    if let Err(error) = table() {
        eprintln!("sass_table: {error}");
        std::process::exit(1);
    }
}

fn table() -> Result<(), String> {
    let (llc, ptxas, nvdisasm) = (tools::llc()?, tools::ptxas()?, tools::nvdisasm()?);
    let ptx = targets::backend("ptx:sm_90")?;
    let llvm = targets::backend("llvm:nvptx64@22")?;
    let dir = std::env::temp_dir().join(format!("atomir-sass-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;

    let lowerable: Vec<Cell> = cells()
        .filter(|cell| {
            let kernel = cell.kernel();
            let inst = kernel.insts.keys().next().expect("one instruction");
            ptx.legalize(&kernel, inst).is_ok()
        })
        .collect();
    eprintln!("sass_table: {} cells lower on ptx:sm_90", lowerable.len());

    let mut rows = Vec::new();
    for (batch_index, batch) in lowerable.chunks(BATCH).enumerate() {
        let module = Module {
            kernels: batch.iter().map(Cell::kernel).collect(),
        };
        let ours = sass_of(
            ptx.as_ref(),
            &module,
            &dir,
            &format!("ours{batch_index}"),
            &ptxas,
            &nvdisasm,
            None,
        )?;
        let llc_module = Module {
            kernels: batch
                .iter()
                .filter(|cell| {
                    let kernel = cell.kernel();
                    let inst = kernel.insts.keys().next().expect("one instruction");
                    llvm.legalize(&kernel, inst).is_ok()
                })
                .map(Cell::kernel)
                .collect(),
        };
        let mut llc_ptx = String::new();
        let theirs = sass_of(
            llvm.as_ref(),
            &llc_module,
            &dir,
            &format!("llc{batch_index}"),
            &ptxas,
            &nvdisasm,
            Some((&llc, &mut llc_ptx)),
        )?;
        let llc_functions = ptx_functions(&llc_ptx);
        for cell in batch {
            let name = cell.name();
            let Some(our_summary) = ours.get(&name) else {
                return Err(format!("no SASS for our {name}"));
            };
            let llc = theirs.get(&name).map(|summary| {
                let kept = llc_functions
                    .get(name.as_str())
                    .is_some_and(|f| ptx_keeps_order_and_scope(f, cell));
                (*summary, kept)
            });
            rows.push(Row {
                cell: *cell,
                ours: *our_summary,
                llc,
            });
        }
        eprintln!(
            "sass_table: batch {} done ({} cells)",
            batch_index + 1,
            rows.len()
        );
    }
    report(&rows);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// Lowers a module (through llc when given), assembles it for sm_90 and summarizes its SASS.
fn sass_of(
    backend: &dyn Backend,
    module: &Module,
    dir: &Path,
    stem: &str,
    ptxas: &Path,
    nvdisasm: &Path,
    through_llc: Option<(&Path, &mut String)>,
) -> Result<HashMap<String, SassSummary>, String> {
    let mut text = String::new();
    backend
        .lower(
            module,
            &LowerOptions {
                complete_module: true,
            },
            &mut text,
        )
        .map_err(|e| e.to_string())?;
    let ptx_path = dir.join(format!("{stem}.ptx"));
    match through_llc {
        Some((llc, ptx_text)) => {
            let ll_path = dir.join(format!("{stem}.ll"));
            std::fs::write(&ll_path, &text).map_err(|e| e.to_string())?;
            tools::run(
                Command::new(llc)
                    .args([
                        "-O3",
                        "-march=nvptx64",
                        "-mcpu=sm_90",
                        "-mattr=+ptx87",
                        "-o",
                    ])
                    .arg(&ptx_path)
                    .arg(&ll_path),
            )?;
            *ptx_text = std::fs::read_to_string(&ptx_path).map_err(|e| e.to_string())?;
        }
        None => std::fs::write(&ptx_path, &text).map_err(|e| e.to_string())?,
    }
    let cubin = dir.join(format!("{stem}.cubin"));
    tools::run(
        Command::new(ptxas)
            .args(["-arch=sm_90", "-O3", "-o"])
            .arg(&cubin)
            .arg(&ptx_path),
    )?;
    let sass = tools::run(Command::new(nvdisasm).arg("-c").arg(&cubin))?;
    Ok(summarize_sass(&sass))
}

#[derive(Default)]
struct Tally {
    cells: usize,
    better: usize,
    equal: usize,
    worse: usize,
    llc_wrong: usize,
    llc_absent: usize,
    loops_removed: usize,
}

fn report(rows: &[Row]) {
    let mut by_group: BTreeMap<String, Tally> = BTreeMap::new();
    let mut total = Tally::default();
    let mut worse_cells = Vec::new();
    for row in rows {
        let group = format!(
            "{} {}{}",
            row.cell.op,
            if row.cell.shape.is_vector() {
                format!("{}.", row.cell.shape)
            } else {
                String::new()
            },
            row.cell.ty
        );
        for tally in [by_group.entry(group).or_default(), &mut total] {
            tally.cells += 1;
            match row.llc {
                None => tally.llc_absent += 1,
                Some((_, false)) => tally.llc_wrong += 1,
                Some((llc, true)) => {
                    if row.ours.instructions < llc.instructions {
                        tally.better += 1;
                    } else if row.ours.instructions == llc.instructions {
                        tally.equal += 1;
                    } else {
                        tally.worse += 1;
                    }
                    if llc.cas_loop && !row.ours.cas_loop {
                        tally.loops_removed += 1;
                    }
                }
            }
        }
        if let Some((llc, true)) = row.llc {
            if row.ours.instructions > llc.instructions || (row.ours.cas_loop && !llc.cas_loop) {
                worse_cells.push(format!(
                    "{} (ours {} / llc {})",
                    row.cell.name(),
                    row.ours.instructions,
                    llc.instructions
                ));
            }
        }
    }
    println!(
        "SASS instructions per cell, ptx:sm_90, ours vs llc 22 (ptxas 13.5 -O3, nvdisasm 13.5)\n"
    );
    println!("| group | cells | fewer | equal | more | llc loses order/scope | llc has no lowering | CAS loops we avoid |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let line = |name: &str, t: &Tally| {
        println!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} |",
            t.cells, t.better, t.equal, t.worse, t.llc_wrong, t.llc_absent, t.loops_removed
        )
    };
    for (group, tally) in &by_group {
        line(group, tally);
    }
    line("**all**", &total);
    println!(
        "\nCells where we are worse than a correct llc: {}",
        worse_cells.len()
    );
    for cell in worse_cells.iter().take(50) {
        println!("- {cell}");
    }
}
