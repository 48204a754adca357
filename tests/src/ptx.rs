//! Helpers for the PTX tests: lowering matrix cells for a target, and judging modules with the
//! real ptxas in batches (one module of many `.entry`s per call, bisecting only on failure).

use std::path::Path;
use std::process::Command;

use atomir_ir::matrix::AnyCell;
use atomir_ir::{Backend, LowerOptions, Module, Strategy};
use atomir_ptx::{PtxTarget, Sm};

use crate::tools::{self, Tool};

/// The ptxas that judges a target: 12.9 for sm_60/sm_70 (ptxas 13 dropped them), 13.5 else.
pub fn ptxas_for(target: PtxTarget) -> Tool {
    if target.sm.number() < 75 {
        Tool::Ptxas12
    } else {
        Tool::Ptxas13
    }
}

/// One lowered cell: its verdict's strategy and, when accepted, its module text is produced in
/// batches by [`lower_cells`].
#[derive(Clone, Debug)]
pub struct Lowered {
    pub cell: AnyCell,
    pub strategy: Strategy,
    /// The refusal, for illegal cells.
    pub refusal: Option<String>,
}

/// Legalizes every cell; returns the verdicts and the module of the accepted cells.
pub fn legalize_cells<C: Into<AnyCell> + Copy>(
    backend: &PtxTarget,
    cells: &[C],
) -> (Vec<Lowered>, Module) {
    let mut module = Module::default();
    let mut lowered = Vec::with_capacity(cells.len());
    for &cell in cells {
        let cell: AnyCell = cell.into();
        match backend.legalize_node(&cell.node()) {
            Ok(legality) => {
                lowered.push(Lowered {
                    cell,
                    strategy: legality.strategy(),
                    refusal: None,
                });
                module.kernels.push(cell.kernel());
            }
            Err(refusal) => lowered.push(Lowered {
                cell,
                strategy: Strategy::Illegal,
                refusal: Some(refusal.to_string()),
            }),
        }
    }
    (lowered, module)
}

/// Assembles a complete module with ptxas; returns the diagnostics on failure.
pub fn assemble(ptxas: &Path, target: PtxTarget, text: &str, scratch: &Path) -> Result<(), String> {
    std::fs::write(scratch, text).map_err(|e| e.to_string())?;
    let (ok, output) = tools::run(
        Command::new(ptxas)
            .arg(format!("-arch={}", target.sm.name()))
            .arg("-O0")
            .arg(scratch)
            .arg("-o")
            .arg("/dev/null"),
    );
    if ok {
        Ok(())
    } else {
        Err(output)
    }
}

/// Lowers `module` as a complete PTX module for `backend`.
pub fn module_text(backend: &PtxTarget, module: &Module) -> String {
    let mut text = String::new();
    backend
        .lower(
            module,
            &LowerOptions {
                complete_module: true,
            },
            &mut text,
        )
        .expect("legalized cells lower");
    text
}

/// One `.entry` of a complete module, by kernel name.
pub struct Entry {
    pub name: String,
    pub text: String,
}

/// The module header (`.version`, `.target`, `.address_size`) and every kernel's `.entry`.
pub fn entries(backend: &PtxTarget, module: &Module) -> (String, Vec<Entry>) {
    let text = module_text(backend, module);
    let marker = ".visible .entry ";
    let first = text.find(marker).unwrap_or(text.len());
    let header = text[..first].to_string();
    let entries = text[first..]
        .split(marker)
        .filter(|chunk| !chunk.is_empty())
        .map(|chunk| {
            let name = chunk.split('(').next().unwrap_or_default().to_string();
            Entry {
                name,
                text: format!("{marker}{chunk}"),
            }
        })
        .collect();
    (header, entries)
}

/// Judges entries with ptxas: identical entries (up to the kernel name) are assembled once;
/// distinct ones go in batches of `batch` entries per call, bisected only on failure. Returns
/// (distinct entries assembled, failing kernel names with diagnostics).
pub fn judge_entries(
    ptxas: &Path,
    target: PtxTarget,
    header: &str,
    entries: &[Entry],
    batch: usize,
    scratch: &Path,
) -> (usize, Vec<(String, String)>) {
    let mut groups: std::collections::HashMap<String, Vec<usize>> = Default::default();
    let mut order = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let key = entry.text.replace(&entry.name, "K");
        let group = groups.entry(key).or_default();
        if group.is_empty() {
            order.push(index);
        }
        group.push(index);
    }
    let mut failures = Vec::new();
    for chunk in order.chunks(batch.max(1)) {
        bisect(
            ptxas,
            target,
            header,
            entries,
            chunk,
            scratch,
            &mut failures,
        );
    }
    // A failing representative fails every identical entry.
    let mut named = Vec::new();
    for (index, diagnostics) in failures {
        let key = entries[index].text.replace(&entries[index].name, "K");
        for member in &groups[&key] {
            named.push((entries[*member].name.clone(), diagnostics.clone()));
        }
    }
    (order.len(), named)
}

fn bisect(
    ptxas: &Path,
    target: PtxTarget,
    header: &str,
    entries: &[Entry],
    chosen: &[usize],
    scratch: &Path,
    failures: &mut Vec<(usize, String)>,
) {
    if chosen.is_empty() {
        return;
    }
    let mut text = String::from(header);
    for index in chosen {
        text.push_str(&entries[*index].text);
        text.push('\n');
    }
    let Err(diagnostics) = assemble(ptxas, target, &text, scratch) else {
        return;
    };
    if chosen.len() == 1 {
        failures.push((chosen[0], diagnostics));
        return;
    }
    let (left, right) = chosen.split_at(chosen.len() / 2);
    bisect(ptxas, target, header, entries, left, scratch, failures);
    bisect(ptxas, target, header, entries, right, scratch, failures);
}

/// The targets of the PTX matrix test.
pub fn matrix_targets() -> [PtxTarget; 5] {
    [Sm::Sm60, Sm::Sm70, Sm::Sm80, Sm::Sm90, Sm::Sm100]
        .map(|sm| PtxTarget::new(sm, atomir_ptx::PtxIsa::DEFAULT))
}
