//! Helpers for the PTX tests: lowering matrix cells for a target, and judging modules with the
//! real ptxas in batches (one module of many `.entry`s per call, bisecting only on failure).

use std::path::Path;
use std::process::Command;

use atomir_ir::matrix::AnyCell;
use atomir_ir::{Backend, LowerOptions, Module, Strategy};
use atomir_ptx::target::Ptxas;
use atomir_ptx::{PtxIsa, PtxTarget, Sm};

use crate::tools::{self, Tool};

/// The ptxas that judges a target: the strictest release that knows its architecture (12.9 for
/// sm_60/sm_70, which ptxas 13 dropped; 13.5 for everything newer).
pub fn ptxas_for(target: PtxTarget) -> Tool {
    match target.sm.judge() {
        Ptxas::V12_9 => Tool::Ptxas12,
        Ptxas::V13_5 => Tool::Ptxas13,
    }
}

/// One legalized cell: its verdict's strategy, or its refusal. The accepted cells' module is
/// built alongside by [`legalize_cells`].
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
    let verified = atomir_ir::verify::verify(module).expect("cells verify");
    backend
        .lower(&verified, &LowerOptions::module(), &mut text)
        .expect("legalized cells lower");
    text
}

/// One `.entry` of a complete module, by kernel name, with the functions it calls.
pub struct Entry {
    pub name: String,
    pub text: String,
    /// The `.func`s the entry calls (a warp-combined form is one, defined once per module
    /// before the first entry that calls it), in the order of its first calls.
    pub functions: Vec<Definition>,
}

/// One top-level definition of a PTX module: an `.entry` or a `.func`, by name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definition {
    pub name: String,
    pub entry: bool,
    /// From the line that begins it to the line that begins the next (or the end).
    pub text: String,
}

/// `ptx` split at each line that begins a definition (`.entry`, `.func`, either `.visible`):
/// the header before the first, and each definition.
pub fn definitions(ptx: &str) -> (String, Vec<Definition>) {
    let mut starts = Vec::new();
    let mut at = 0;
    for line in ptx.split_inclusive('\n') {
        let bare = line.strip_prefix(".visible ").unwrap_or(line);
        let entry = bare.starts_with(".entry ");
        if entry || bare.starts_with(".func ") {
            let rest = bare.split_once(' ').map_or("", |(_, rest)| rest);
            // `.func (.param .b32 r) name(`: the name follows the return parameters.
            let rest = match rest.strip_prefix('(') {
                Some(returns) => returns.split_once(") ").map_or("", |(_, name)| name),
                None => rest,
            };
            let name = rest.split(['(', ' ', '\n']).next().unwrap_or_default();
            starts.push((at, name.to_string(), entry));
        }
        at += line.len();
    }
    let header = ptx[..starts.first().map_or(ptx.len(), |start| start.0)].to_string();
    let ends = starts
        .iter()
        .skip(1)
        .map(|start| start.0)
        .chain([ptx.len()]);
    let definitions = starts
        .iter()
        .zip(ends)
        .map(|((start, name, entry), end)| Definition {
            name: name.clone(),
            entry: *entry,
            text: ptx[*start..end].to_string(),
        })
        .collect();
    (header, definitions)
}

/// The function among `functions` each `call` line of `text` calls, one per call, in order.
pub fn calls<'f>(text: &str, functions: &'f [Definition]) -> Vec<&'f Definition> {
    let lines = text
        .lines()
        .filter_map(|line| line.trim_start().strip_prefix("call"));
    lines
        .filter_map(|call| {
            let mut words = call.split([' ', '\t', ',', '(', ')', ';']);
            words.find_map(|word| functions.iter().find(|function| function.name == word))
        })
        .collect()
}

/// The functions among `functions` that `text` calls, each once, in the order of its first
/// call.
pub fn called<'f>(text: &str, functions: &'f [Definition]) -> Vec<&'f Definition> {
    let mut called: Vec<&Definition> = Vec::new();
    for function in calls(text, functions) {
        if !called.iter().any(|known| known.name == function.name) {
            called.push(function);
        }
    }
    called
}

/// Each `.entry` of `ptx` by name, its text followed by the `.func`s it calls: all the code it
/// runs.
pub fn entry_code(ptx: &str) -> Vec<(String, String)> {
    let (_, definitions) = definitions(ptx);
    let functions: Vec<Definition> = definitions.iter().filter(|d| !d.entry).cloned().collect();
    definitions
        .iter()
        .filter(|definition| definition.entry)
        .map(|entry| {
            let mut text = entry.text.clone();
            for function in called(&entry.text, &functions) {
                text.push_str(&function.text);
            }
            (entry.name.clone(), text)
        })
        .collect()
}

/// The module header (`.version`, `.target`, `.address_size`) and every kernel's `.entry`.
pub fn entries(backend: &PtxTarget, module: &Module) -> (String, Vec<Entry>) {
    let text = module_text(backend, module);
    let (header, definitions) = definitions(&text);
    let functions: Vec<Definition> = definitions.iter().filter(|d| !d.entry).cloned().collect();
    let entries = definitions
        .into_iter()
        .filter(|definition| definition.entry)
        .map(|entry| Entry {
            functions: called(&entry.text, &functions)
                .into_iter()
                .cloned()
                .collect(),
            name: entry.name,
            text: entry.text,
        })
        .collect();
    (header, entries)
}

/// What makes two entries the same code up to their names: the entry's text and its
/// functions', with the entry's name and each function's made anonymous.
fn code_key(entry: &Entry) -> String {
    let mut names: Vec<(&str, String)> = vec![(&entry.name, "K".to_string())];
    names.extend(
        (entry.functions.iter().enumerate()).map(|(n, f)| (f.name.as_str(), format!("F{n}"))),
    );
    // Longer names first, so that no name is replaced inside a longer one.
    names.sort_by_key(|(name, _)| std::cmp::Reverse(name.len()));
    let mut key = entry.text.clone();
    for function in &entry.functions {
        key.push_str(&function.text);
    }
    for (name, anonymous) in names {
        key = key.replace(name, &anonymous);
    }
    key
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
        let key = code_key(entry);
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
        let key = code_key(&entries[index]);
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
    let mut defined: Vec<&str> = Vec::new();
    for index in chosen {
        for function in &entries[*index].functions {
            if !defined.contains(&function.name.as_str()) {
                defined.push(&function.name);
                text.push_str(&function.text);
            }
        }
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

/// How much of the matrix a target is judged on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// Every cell.
    Full,
    /// Every `stride`-th cell from `offset`, and every f32 add at device scope (the form that
    /// changes with the ISA version), in every shape, order, space and result use; and every
    /// fence.
    Sample { stride: usize, offset: usize },
    /// Every scalar f16/bf16 add and sub cell: all that an opt-in `+packed-half-add` target
    /// lowers otherwise than the same target without it (`tests/packed_half_add.rs` checks
    /// that every other verdict is the default's).
    HalfAdds,
    /// Every scalar f32 add and sub cell: all that an opt-in `+reassociate-float-add` target
    /// lowers otherwise than the same target without it (`atomir-ptx`'s lowering test checks
    /// that every other verdict is the default's).
    FloatAdds,
    /// Every relaxed scalar add, sub, min, max, fminimumnum and fmaximumnum cell: all that a
    /// `+plain-loops` target can lower otherwise than the same target without it (the
    /// warp-combined forms it leaves out are only of those).
    PlainLoops,
    /// Every relaxed scalar f16, bf16 and 8/16-bit integer add and sub cell: all that a
    /// `+serial-fold` target lowers otherwise than the same target without it
    /// (`tests/serial_fold.rs` checks that every other verdict is the default's).
    NarrowAdds,
}

impl Coverage {
    /// Whether the cell at `index` of the judged cells (of [`atomir_ir::matrix::all_cells`]) is
    /// judged. A sample keeps every fence: they are few, and each is its own spelling.
    pub fn includes(self, index: usize, cell: &AnyCell) -> bool {
        match self {
            Coverage::Full => true,
            Coverage::Sample { stride, offset } => match cell {
                AnyCell::Fence(_) => true,
                AnyCell::Access(cell) => {
                    index % stride == offset % stride
                        || (cell.op == atomir_ir::AtomicOp::Add
                            && cell.ty == atomir_ir::ElemType::F32
                            && cell.scope == atomir_ir::Scope::Device)
                }
            },
            Coverage::FloatAdds => match cell {
                AnyCell::Fence(_) => false,
                AnyCell::Access(cell) => {
                    matches!(cell.op, atomir_ir::AtomicOp::Add | atomir_ir::AtomicOp::Sub)
                        && cell.ty == atomir_ir::ElemType::F32
                        && !cell.shape.is_vector()
                }
            },
            Coverage::PlainLoops => match cell {
                AnyCell::Fence(_) => false,
                AnyCell::Access(cell) => {
                    use atomir_ir::AtomicOp as Op;
                    matches!(
                        cell.op,
                        Op::Add | Op::Sub | Op::Min | Op::Max | Op::FMinimumNum | Op::FMaximumNum
                    ) && cell.order == atomir_ir::MemoryOrder::Relaxed
                        && !cell.shape.is_vector()
                }
            },
            Coverage::HalfAdds => match cell {
                AnyCell::Fence(_) => false,
                AnyCell::Access(cell) => {
                    matches!(cell.op, atomir_ir::AtomicOp::Add | atomir_ir::AtomicOp::Sub)
                        && matches!(
                            cell.ty,
                            atomir_ir::ElemType::F16 | atomir_ir::ElemType::Bf16
                        )
                        && !cell.shape.is_vector()
                }
            },
            Coverage::NarrowAdds => match cell {
                AnyCell::Fence(_) => false,
                AnyCell::Access(cell) => {
                    use atomir_ir::ElemType as Ty;
                    matches!(cell.op, atomir_ir::AtomicOp::Add | atomir_ir::AtomicOp::Sub)
                        && matches!(
                            cell.ty,
                            Ty::F16 | Ty::Bf16 | Ty::U8 | Ty::S8 | Ty::U16 | Ty::S16
                        )
                        && cell.order == atomir_ir::MemoryOrder::Relaxed
                        && !cell.shape.is_vector()
                }
            },
        }
    }
}

/// The stride of a sampled target: each sees a different 1/64 of the matrix (plus the f32 adds),
/// so the ~50 sampled targets together cost about what one full one does.
const SAMPLE_STRIDE: usize = 64;

/// The environment variable that narrows the matrix to some targets, judged in full:
/// `ATOMIR_PTX_MATRIX=sm_90@9.4,sm_110` (the part of each target name after `ptx:`).
pub const MATRIX_ENV: &str = "ATOMIR_PTX_MATRIX";

/// The targets of the PTX matrix test and how much of the matrix each is judged on.
///
/// In full: sm_60, sm_70, sm_80, sm_90, sm_100 at their default ISA and sm_90 at PTX 9.4 (the
/// first with the exact f32 add). Sampled, each on its own 1/64 of the cells plus every f32
/// add (see [`Coverage::Sample`]): every other architecture at its default and at its oldest
/// ISA, and sm_90 at every other ISA from 9.0 to 9.5. With `+packed-half-add`, on the cells it
/// changes ([`Coverage::HalfAdds`]): every architecture at its default ISA, sm_60 at PTX 6.2
/// (the first with the packed f16 add) and sm_90 at 7.8 (the first with bf16x2). With
/// `+reassociate-float-add`, on the cells it changes ([`Coverage::FloatAdds`]): sm_70 and sm_80
/// at their default ISA (the oldest with it, and the first with `redux.sync`), sm_90 at its
/// default and at 9.4 (the exact `.noftz` f32 add), sm_100. With `+plain-loops`, on the cells
/// it changes ([`Coverage::PlainLoops`]): sm_70 (ptxas 12.9) and sm_90 at their default ISA.
/// With `+serial-fold`, on the cells it changes ([`Coverage::NarrowAdds`]): sm_70, sm_80 and
/// sm_90 at their default ISA.
/// [`MATRIX_ENV`] replaces the list by the targets it names, each in full.
pub fn matrix_targets() -> Result<Vec<(PtxTarget, Coverage)>, String> {
    if let Ok(list) = std::env::var(MATRIX_ENV) {
        return list
            .split(',')
            .filter(|name| !name.trim().is_empty())
            .map(|name| match PtxTarget::parse(name.trim()) {
                Ok(target) => Ok((target, Coverage::Full)),
                Err(error) => Err(error.to_string()),
            })
            .collect();
    }
    let at_default = |sm: Sm| PtxTarget::new(sm, sm.default_isa());
    let mut full: Vec<PtxTarget> = [Sm::Sm60, Sm::Sm70, Sm::Sm80, Sm::Sm90, Sm::Sm100]
        .map(at_default)
        .to_vec();
    full.push(PtxTarget::new(Sm::Sm90, PtxIsa::new(9, 4)));
    let mut sampled: Vec<PtxTarget> = Vec::new();
    for &sm in Sm::ALL {
        for target in [at_default(sm), PtxTarget::new(sm, sm.min_isa())] {
            if !full.contains(&target) && !sampled.contains(&target) {
                sampled.push(target);
            }
        }
    }
    for minor in 0..=5 {
        let target = PtxTarget::new(Sm::Sm90, PtxIsa::new(9, minor));
        if !full.contains(&target) && !sampled.contains(&target) {
            sampled.push(target);
        }
    }
    let packed_half_add = Sm::ALL
        .iter()
        .map(|&sm| at_default(sm))
        .chain([
            PtxTarget::new(Sm::Sm60, PtxIsa::new(6, 2)),
            PtxTarget::new(Sm::Sm90, PtxIsa::new(7, 8)),
        ])
        .map(|target| {
            let target = PtxTarget {
                packed_half_add: true,
                ..target
            };
            (target, Coverage::HalfAdds)
        });
    let reassociate_float_add = [
        at_default(Sm::Sm70),
        at_default(Sm::Sm80),
        at_default(Sm::Sm90),
        PtxTarget::new(Sm::Sm90, PtxIsa::new(9, 4)),
        at_default(Sm::Sm100),
    ]
    .map(|target| {
        let target = PtxTarget {
            reassociate_float_add: true,
            ..target
        };
        (target, Coverage::FloatAdds)
    });
    let plain_loops = [at_default(Sm::Sm70), at_default(Sm::Sm90)].map(|target| {
        let target = PtxTarget {
            plain_loops: true,
            ..target
        };
        (target, Coverage::PlainLoops)
    });
    let serial_fold = [
        at_default(Sm::Sm70),
        at_default(Sm::Sm80),
        at_default(Sm::Sm90),
    ]
    .map(|target| {
        let target = PtxTarget {
            serial_fold: true,
            ..target
        };
        (target, Coverage::NarrowAdds)
    });
    let sampled = sampled.into_iter().enumerate().map(|(offset, target)| {
        (
            target,
            Coverage::Sample {
                stride: SAMPLE_STRIDE,
                offset,
            },
        )
    });
    Ok(full
        .into_iter()
        .map(|target| (target, Coverage::Full))
        .chain(sampled)
        .chain(packed_half_add)
        .chain(reassociate_float_add)
        .chain(plain_loops)
        .chain(serial_fold)
        .collect())
}
