//! Static code quality per PTX matrix cell on sm_90: our PTX against llc 22's PTX for the same
//! atomic (our `llvm:nvptx64@22` output), both assembled by ptxas 13.5 and read back with
//! nvdisasm: SASS instructions and hardware CAS loops per cell.
//!
//! `cargo run --release -p atomir-bench --bin sass_table` prints a Markdown report; a cell where
//! llc's PTX lost the order or scope is listed as wrong, not compared. The cells where ours is
//! worse are counted by cause, from what the two PTX functions show ([`Worse`]).
//!
//! The full matrix takes long; three variables measure part of it and keep what was measured:
//!
//! - `ATOMIR_SASS_CELLS=ALT,ALT,...`: only cells whose name (`op_order_scope_space_shape_type_used`,
//!   e.g. `max_acquire_gpu_global_scalar_f16_used`) matches one alternative, an alternative being
//!   `+`-separated parts that must all occur in the name; a part starting with `^` must start it
//!   (`^max_+_f16_,^nand_`). `@FILE` reads the alternatives from FILE (separated by commas or
//!   lines), for lists longer than an environment variable holds.
//! - `ATOMIR_SASS_STRIDE=N` or `N:K`: of each group (op, shape, type, as in the table), only the
//!   cells at positions K, K+N, K+2N... of the group (matrix order) that pass the name filter.
//! - `ATOMIR_SASS_KEEP=DIR`: writes `DIR/cells.tsv` (cell, ours, llc, verdict, whether each side
//!   has a CAS loop, and the class of a cell where ours is worse: [`Worse`]'s slug) and, per cell,
//!   `DIR/CELL/{ours,llc}.{ptx,sass}` (the function's PTX and SASS) to read side by side.
//! - `ATOMIR_SASS_TIMES=FILE,FILE,...`: result files of the cell timing harness
//!   (`results.json`); the table of causes then marks each class with the worst measured GPU
//!   time ratio of its rows, ours over llc 22 and over llc 23 ([`class_times`]), a row counted in
//!   the class this run gives its cell (the class it was timed as where the run did not measure
//!   the cell).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use atomir_bench::sass::{
    ptx_functions, ptx_keeps_order_and_scope, sass_functions, summarize_sass, PtxForms, SassSummary,
};
use atomir_bench::{class_times, targets, tools};
use atomir_ir::matrix::{cells, Cell};
use atomir_ir::{verify, AtomicOp, Backend, LowerOptions, Module};

const BATCH: usize = 1500;

/// Which cells to measure (every cell without the variables) and where to keep them.
struct Selection {
    alternatives: Vec<Vec<String>>,
    stride: usize,
    offset: usize,
    keep: Option<std::path::PathBuf>,
    /// `ATOMIR_SASS_TIMES` as named, its files read once before the run so that a bad one
    /// fails at once; the report reads them again, with the classes the run found.
    times: Option<String>,
}

impl Selection {
    fn from_env() -> Result<Selection, String> {
        let mut cells = std::env::var("ATOMIR_SASS_CELLS").unwrap_or_default();
        if let Some(path) = cells.strip_prefix('@') {
            cells = std::fs::read_to_string(path)
                .map_err(|e| format!("ATOMIR_SASS_CELLS: {path}: {e}"))?;
        }
        let alternatives = cells
            .split([',', '\n'])
            .filter(|alternative| !alternative.trim().is_empty())
            .map(|alternative| alternative.split('+').map(str::to_string).collect())
            .collect();
        let (stride, offset) = match std::env::var("ATOMIR_SASS_STRIDE") {
            Err(_) => (1, 0),
            Ok(text) => {
                let (n, k) = text.split_once(':').unwrap_or((&text, "0"));
                let parse = |t: &str| {
                    t.trim()
                        .parse::<usize>()
                        .map_err(|_| format!("ATOMIR_SASS_STRIDE: not N or N:K: {text}"))
                };
                let (n, k) = (parse(n)?, parse(k)?);
                if n == 0 {
                    return Err("ATOMIR_SASS_STRIDE: N must be at least 1".to_string());
                }
                (n, k % n)
            }
        };
        let times = match std::env::var("ATOMIR_SASS_TIMES") {
            Ok(files) => {
                class_times_of(&files, &|_| None)?;
                Some(files)
            }
            Err(_) => None,
        };
        Ok(Selection {
            alternatives,
            stride,
            offset,
            keep: std::env::var_os("ATOMIR_SASS_KEEP").map(Into::into),
            times,
        })
    }

    fn name_matches(&self, name: &str) -> bool {
        self.alternatives.is_empty()
            || self.alternatives.iter().any(|parts| {
                parts.iter().all(|part| match part.strip_prefix('^') {
                    Some(head) => name.starts_with(head),
                    None => name.contains(part.as_str()),
                })
            })
    }

    /// The chosen cells, in matrix order.
    fn cells(&self) -> Vec<Cell> {
        let mut position: HashMap<String, usize> = HashMap::new();
        cells()
            .filter(|cell| self.name_matches(&cell.name()))
            .filter(|cell| {
                let n = position.entry(group_of(cell)).or_default();
                *n += 1;
                (*n - 1) % self.stride == self.offset
            })
            .collect()
    }
}

/// The table's group of a cell: op, shape (for a vector) and type.
fn group_of(cell: &Cell) -> String {
    format!(
        "{} {}{}",
        cell.op,
        if cell.shape.is_vector() {
            format!("{}.", cell.shape)
        } else {
            String::new()
        },
        cell.ty
    )
}

struct Row {
    cell: Cell,
    ours: SassSummary,
    llc: Option<(SassSummary, bool)>,
    our_forms: PtxForms,
    llc_forms: PtxForms,
}

/// Why a cell's SASS is worse than llc's: the first of these that our PTX and llc's show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Worse {
    WarpCombined,
    CasB16Loop,
    FloatMinMaxByInteger,
    NativeAgainstLoop,
    /// llc's CAS loop runs a fence on every retry, ours one before the loop and one after it.
    LeanLoopFences,
    /// A vector carried by several accesses, each with the order on it, where llc's are relaxed
    /// between one pair of fences.
    OrderOnEachElement,
    /// Neither: `more` instructions (4 for 4 or more; 0 for a CAS loop where llc has none).
    Other {
        more: usize,
    },
}

impl Worse {
    fn of(row: &Row, llc: SassSummary) -> Self {
        let ours = row.our_forms;
        let float_min_max = row.cell.ty.is_float()
            && matches!(
                row.cell.op,
                AtomicOp::Min | AtomicOp::Max | AtomicOp::FMinimumNum | AtomicOp::FMaximumNum
            );
        if ours.warp_combined {
            Worse::WarpCombined
        } else if ours.cas_b16 {
            Worse::CasB16Loop
        } else if float_min_max && ours.integer_min_max {
            Worse::FloatMinMaxByInteger
        } else if !ours.cas && row.llc_forms.cas {
            Worse::NativeAgainstLoop
        } else if row.llc_forms.fence_in_loop && !ours.fence_in_loop {
            Worse::LeanLoopFences
        } else if ours.ordered_accesses >= 2 && row.llc_forms.ordered_accesses == 0 {
            Worse::OrderOnEachElement
        } else {
            Worse::Other {
                more: row
                    .ours
                    .instructions
                    .saturating_sub(llc.instructions)
                    .min(4),
            }
        }
    }

    /// The class's name in `cells.tsv` and for the cell timing harness (`--class`).
    fn slug(self) -> &'static str {
        match self {
            Worse::WarpCombined => "warp-combined",
            Worse::CasB16Loop => "cas-b16-loop",
            Worse::FloatMinMaxByInteger => "float-min-max-by-integer",
            Worse::NativeAgainstLoop => "native-against-loop",
            Worse::LeanLoopFences => "lean-loop-fences",
            Worse::OrderOnEachElement => "order-on-each-element",
            Worse::Other { .. } => "other",
        }
    }

    fn describe(self) -> String {
        match self {
            Worse::WarpCombined => "warp-combined (relaxed 8/16-bit add/sub/min/max, f32/f64 \
                                    min/max): the grouping and scan code of one atomic per \
                                    address and warp"
                .to_string(),
            Worse::CasB16Loop => "a scalar 16-bit CAS loop on `atom.cas.b16`, which ptxas \
                                  carries out as a 32-bit loop of its own"
                .to_string(),
            Worse::FloatMinMaxByInteger => "f32/f64 min/max by integer `atom.min/max`, its NaN \
                                            loop beside it, against llc's one CAS loop"
                .to_string(),
            Worse::NativeAgainstLoop => "one native atomic, whose expansion by ptxas is longer \
                                         than llc's CAS loop"
                .to_string(),
            Worse::LeanLoopFences => "a CAS loop whose fences run once, before and after it \
                                      (the lean loop), against llc's loop that runs a fence on \
                                      every retry"
                .to_string(),
            Worse::OrderOnEachElement => "a vector's elements, each with the order on its \
                                          own access, against llc's relaxed elements between \
                                          one pair of fences"
                .to_string(),
            Worse::Other { more: 0 } => "other: a CAS loop where llc has none".to_string(),
            Worse::Other { more: 4 } => "other: 4 or more instructions".to_string(),
            Worse::Other { more: 1 } => "other: 1 instruction".to_string(),
            Worse::Other { more } => format!("other: {more} instructions"),
        }
    }
}

/// Cells grouped by the code a backend emits for them: cells whose code differs only in the
/// kernel's name share one representative, which alone is assembled.
struct Unique {
    representatives: Vec<Cell>,
    /// For each cell, the index of its representative (`None`: the backend refuses the cell).
    of_cell: Vec<Option<usize>>,
}

fn dedupe(backend: &dyn Backend, cells: &[Cell]) -> Unique {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut unique = Unique {
        representatives: Vec::new(),
        of_cell: Vec::with_capacity(cells.len()),
    };
    let mut text = String::new();
    for cell in cells {
        let module = Module {
            kernels: vec![cell.kernel()],
        };
        text.clear();
        let Ok(verified) = verify::verify(&module) else {
            unique.of_cell.push(None);
            continue;
        };
        if backend
            .lower(&verified, &LowerOptions::module(), &mut text)
            .is_err()
        {
            unique.of_cell.push(None);
            continue;
        }
        let key = text.replace(&cell.name(), "@");
        let next = unique.representatives.len();
        let representative = *index.entry(key).or_insert(next);
        if representative == next {
            unique.representatives.push(*cell);
        }
        unique.of_cell.push(Some(representative));
    }
    unique
}

/// One assembly job: a batch of representatives, ours or through llc.
struct Job<'a> {
    cells: &'a [Cell],
    through_llc: bool,
    stem: String,
}

/// What a job found, by function: SASS summaries, PTX forms, PTX (through llc always, ours
/// when kept) and SASS text (when kept).
#[derive(Default)]
struct JobResult {
    summaries: HashMap<String, SassSummary>,
    forms: HashMap<String, PtxForms>,
    ptx: HashMap<String, String>,
    sass: HashMap<String, String>,
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

    let selection = Selection::from_env()?;
    let all: Vec<Cell> = selection.cells();
    let ours = dedupe(ptx.backend(), &all);
    let theirs = dedupe(llvm.backend(), &all);
    eprintln!(
        "sass_table: {} cells; distinct code: {} ours, {} llc",
        all.len(),
        ours.representatives.len(),
        theirs.representatives.len()
    );
    // Small selections still spread over every core.
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let largest = ours.representatives.len().max(theirs.representatives.len());
    let batch = BATCH.min(largest.div_ceil(workers).max(1));
    let keep = selection.keep.is_some();
    let mut jobs = Vec::new();
    for (n, batch) in ours.representatives.chunks(batch).enumerate() {
        jobs.push(Job {
            cells: batch,
            through_llc: false,
            stem: format!("ours{n}"),
        });
    }
    for (n, batch) in theirs.representatives.chunks(batch).enumerate() {
        jobs.push(Job {
            cells: batch,
            through_llc: true,
            stem: format!("llc{n}"),
        });
    }
    let results = run_jobs(&jobs, |job| {
        let module = Module {
            kernels: job.cells.iter().map(Cell::kernel).collect(),
        };
        let backend = if job.through_llc {
            llvm.backend()
        } else {
            ptx.backend()
        };
        let through = job.through_llc.then_some(llc.as_path());
        let (ptx_text, sass) = sass_of(
            backend, &module, &dir, &job.stem, &ptxas, &nvdisasm, through,
        )?;
        let functions = ptx_functions(&ptx_text);
        let forms = functions
            .iter()
            .map(|(name, text)| (name.to_string(), PtxForms::of(text)))
            .collect();
        let ptx = if job.through_llc || keep {
            functions
                .into_iter()
                .map(|(name, text)| (name.to_string(), text.to_string()))
                .collect()
        } else {
            HashMap::new()
        };
        Ok(JobResult {
            summaries: summarize_sass(&sass),
            forms,
            ptx,
            sass: if keep {
                sass_functions(&sass)
            } else {
                HashMap::new()
            },
        })
    })?;
    let mut our = JobResult::default();
    let mut their = JobResult::default();
    for (job, result) in jobs.iter().zip(results) {
        let side = if job.through_llc {
            &mut their
        } else {
            &mut our
        };
        side.summaries.extend(result.summaries);
        side.forms.extend(result.forms);
        side.ptx.extend(result.ptx);
        side.sass.extend(result.sass);
    }
    let (our_summaries, llc_summaries, llc_functions) =
        (&our.summaries, &their.summaries, &their.ptx);

    let mut rows = Vec::new();
    for (n, cell) in all.iter().enumerate() {
        let Some(representative) = ours.of_cell[n] else {
            continue;
        };
        let name = ours.representatives[representative].name();
        let our_summary = *our_summaries
            .get(&name)
            .ok_or(format!("no SASS for our {name}"))?;
        let llc_name = theirs.of_cell[n].map(|r| theirs.representatives[r].name());
        let llc = llc_name.as_ref().and_then(|name| {
            let summary = llc_summaries.get(name)?;
            let kept = llc_functions
                .get(name)
                .is_some_and(|f| ptx_keeps_order_and_scope(f, cell));
            Some((*summary, kept))
        });
        rows.push(Row {
            cell: *cell,
            ours: our_summary,
            llc,
            our_forms: our.forms.get(&name).copied().unwrap_or_default(),
            llc_forms: llc_name
                .and_then(|name| their.forms.get(&name).copied())
                .unwrap_or_default(),
        });
    }
    report(&rows, selection.times.as_deref())?;
    if let Some(keep) = &selection.keep {
        keep_cells(keep, &all, &rows, &ours, &theirs, &our, &their)?;
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// Writes the per-cell files of `ATOMIR_SASS_KEEP` (see the top of the file).
fn keep_cells(
    keep: &Path,
    all: &[Cell],
    rows: &[Row],
    ours: &Unique,
    theirs: &Unique,
    our: &JobResult,
    their: &JobResult,
) -> Result<(), String> {
    let write = |path: &Path, text: &str| {
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    std::fs::create_dir_all(keep).map_err(|e| format!("{}: {e}", keep.display()))?;
    let mut table = String::from("cell\tours\tllc\tverdict\tour_cas_loop\tllc_cas_loop\tclass\n");
    let by_name: HashMap<String, &Row> = rows.iter().map(|row| (row.cell.name(), row)).collect();
    for (n, cell) in all.iter().enumerate() {
        let name = cell.name();
        let Some(row) = by_name.get(&name) else {
            continue;
        };
        let llc_loop = row
            .llc
            .map_or("-", |(llc, _)| if llc.cas_loop { "loop" } else { "no" });
        let (llc, verdict) = match row.llc {
            None => ("-".to_string(), "llc-absent"),
            Some((llc, kept)) => (
                llc.instructions.to_string(),
                if !kept {
                    "llc-wrong"
                } else if row.ours.instructions < llc.instructions {
                    "fewer"
                } else if row.ours.instructions == llc.instructions {
                    "equal"
                } else {
                    "more"
                },
            ),
        };
        // The table's class of a cell where ours is worse than a correct llc.
        let class = match row.llc {
            Some((llc, true))
                if row.ours.instructions > llc.instructions
                    || (row.ours.cas_loop && !llc.cas_loop) =>
            {
                Worse::of(row, llc).slug()
            }
            _ => "-",
        };
        table.push_str(&format!(
            "{name}\t{}\t{llc}\t{verdict}\t{}\t{llc_loop}\t{class}\n",
            row.ours.instructions,
            if row.ours.cas_loop { "loop" } else { "no" }
        ));
        let cell_dir = keep.join(&name);
        std::fs::create_dir_all(&cell_dir).map_err(|e| format!("{}: {e}", cell_dir.display()))?;
        for (side, unique, result) in [("ours", ours, our), ("llc", theirs, their)] {
            let Some(representative) = unique.of_cell[n] else {
                continue;
            };
            let function = unique.representatives[representative].name();
            for (ext, texts) in [("ptx", &result.ptx), ("sass", &result.sass)] {
                if let Some(text) = texts.get(&function) {
                    write(&cell_dir.join(format!("{side}.{ext}")), text)?;
                }
            }
        }
    }
    write(&keep.join("cells.tsv"), &table)
}

/// Runs every job on as many threads as the machine has cores, keeping the jobs' order.
fn run_jobs<F>(jobs: &[Job], work: F) -> Result<Vec<JobResult>, String>
where
    F: Fn(&Job) -> Result<JobResult, String> + Sync,
{
    let next = AtomicUsize::new(0);
    let done = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(index) else { break };
                let result = work(job);
                eprintln!("sass_table: {} done", job.stem);
                done.lock().expect("no worker panics").push((index, result));
            });
        }
    });
    let mut done = done.into_inner().expect("no worker panics");
    done.sort_by_key(|(index, _)| *index);
    done.into_iter().map(|(_, result)| result).collect()
}

/// Lowers a module (through llc when given) and assembles it for sm_90: its PTX and its SASS.
fn sass_of(
    backend: &dyn Backend,
    module: &Module,
    dir: &Path,
    stem: &str,
    ptxas: &Path,
    nvdisasm: &Path,
    through_llc: Option<&Path>,
) -> Result<(String, String), String> {
    let mut text = String::new();
    let module = verify::verify(module).map_err(|d| d[0].to_string())?;
    backend
        .lower(&module, &LowerOptions::module(), &mut text)
        .map_err(|e| e.to_string())?;
    let ptx_path = dir.join(format!("{stem}.ptx"));
    let ptx_text = match through_llc {
        Some(llc) => {
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
            std::fs::read_to_string(&ptx_path).map_err(|e| e.to_string())?
        }
        None => {
            std::fs::write(&ptx_path, &text).map_err(|e| e.to_string())?;
            text
        }
    };
    let cubin = dir.join(format!("{stem}.cubin"));
    tools::run(
        Command::new(ptxas)
            .args(["-arch=sm_90", "-O3", "-o"])
            .arg(&cubin)
            .arg(&ptx_path),
    )?;
    let sass = tools::run(Command::new(nvdisasm).arg("-c").arg(&cubin))?;
    Ok((ptx_text, sass))
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

fn report(rows: &[Row], times_files: Option<&str>) -> Result<(), String> {
    let mut by_group: BTreeMap<String, Tally> = BTreeMap::new();
    let mut total = Tally::default();
    let mut worse_cells = Vec::new();
    let mut worse_by_cause: BTreeMap<Worse, usize> = BTreeMap::new();
    // Each measured cell's class (none where ours is no worse), for the timed rows, where the
    // table marks its classes with them.
    let mut class_of_cell: HashMap<String, Option<&'static str>> = HashMap::new();
    for row in rows {
        let group = group_of(&row.cell);
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
            let worse =
                row.ours.instructions > llc.instructions || (row.ours.cas_loop && !llc.cas_loop);
            let cause = worse.then(|| Worse::of(row, llc));
            if times_files.is_some() {
                class_of_cell.insert(row.cell.name(), cause.map(Worse::slug));
            }
            if let Some(cause) = cause {
                *worse_by_cause.entry(cause).or_default() += 1;
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
        "SASS instructions per cell, ptx:sm_90, ours vs llc 22 (ptxas 13.5 -O3, nvdisasm 13.5), \
         code of commit {}\n",
        code_commit()
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
        "\nCells where we are worse than a correct llc: {}, by what our PTX and llc's show (the \
         first that applies):\n",
        worse_cells.len()
    );
    let times: ClassTimes = match times_files {
        Some(files) => Some((
            files.to_string(),
            class_times_of(files, &|cell| class_of_cell.get(cell).copied())?,
        )),
        None => None,
    };
    print_causes(&worse_by_cause, &times);
    println!();
    for cell in worse_cells.iter().take(50) {
        println!("- {cell}");
    }
    warp_combined_sizes(rows);
    Ok(())
}

/// `ATOMIR_SASS_TIMES` as read: the files as named and each class's times.
type ClassTimes = Option<(String, BTreeMap<String, class_times::ClassTime>)>;

/// Each class's times from the `,`-separated result `files`, a row in the class `class_of`
/// gives its cell.
fn class_times_of(
    files: &str,
    class_of: class_times::ClassOf,
) -> Result<BTreeMap<String, class_times::ClassTime>, String> {
    let paths: Vec<&Path> = files.split(',').map(Path::new).collect();
    class_times::read(&paths, class_of).map_err(|error| format!("ATOMIR_SASS_TIMES: {error}"))
}

/// The table of causes; with `ATOMIR_SASS_TIMES`, each class marked with its worst measured
/// GPU time ratio.
fn print_causes(worse_by_cause: &BTreeMap<Worse, usize>, times: &ClassTimes) {
    match times {
        Some((files, _)) => {
            println!(
                "| cause | cells | worst GPU time, ours / llc 22 / llc 23 ({files}) |\n|---|---:|---|"
            );
        }
        None => println!("| cause | cells |\n|---|---:|"),
    }
    for (cause, count) in worse_by_cause {
        match times {
            Some((_, times)) => {
                let measured = times
                    .get(cause.slug())
                    .map_or("not timed".to_string(), |time| time.describe());
                println!("| {} | {count} | {measured} |", cause.describe());
            }
            None => println!("| {} | {count} |", cause.describe()),
        }
    }
}

/// The code size of every warp-combined form beside llc's code for the same cells: a form is
/// the cells of one op, shape and type with the result used or not, split by the cell's class
/// (the worse class, or the verdict where ours is not worse), with the spread of SASS
/// instructions and PTX instructions of each side over those cells.
fn warp_combined_sizes(rows: &[Row]) {
    #[derive(Default)]
    struct Sizes {
        ours_sass: Vec<usize>,
        llc_sass: Vec<usize>,
        ours_ptx: Vec<usize>,
        llc_ptx: Vec<usize>,
    }
    let mut forms: BTreeMap<(String, &str, &str), Sizes> = BTreeMap::new();
    for row in rows.iter().filter(|row| row.our_forms.warp_combined) {
        let Some((llc, true)) = row.llc else {
            continue;
        };
        let class =
            if row.ours.instructions > llc.instructions || (row.ours.cas_loop && !llc.cas_loop) {
                Worse::of(row, llc).slug()
            } else if row.ours.instructions == llc.instructions {
                "equal"
            } else {
                "fewer"
            };
        let result = if row.cell.result_used { "used" } else { "dead" };
        let sizes = forms
            .entry((group_of(&row.cell), result, class))
            .or_default();
        sizes.ours_sass.push(row.ours.instructions);
        sizes.llc_sass.push(llc.instructions);
        sizes.ours_ptx.push(row.our_forms.instructions);
        sizes.llc_ptx.push(row.llc_forms.instructions);
    }
    let spread = |values: &mut Vec<usize>| {
        values.sort_unstable();
        let (low, middle, high) = (
            values[0],
            values[values.len() / 2],
            values[values.len() - 1],
        );
        if low == high {
            low.to_string()
        } else {
            format!("{low}-{high} ({middle})")
        }
    };
    println!(
        "\nWarp-combined forms (`match.any.sync` or `redux.sync` in our PTX): code size beside \
         llc's for the same cells, by class (the worse class, else the verdict); min-max \
         (median) over the cells; PTX counts the kernel's instructions, its parameter loads \
         and result stores included:\n"
    );
    println!("| group | result | class | cells | ours SASS | llc SASS | ours PTX | llc PTX |");
    println!("|---|---|---|---:|---:|---:|---:|---:|");
    for ((group, result, class), mut sizes) in forms {
        println!(
            "| {group} | {result} | {class} | {} | {} | {} | {} | {} |",
            sizes.ours_sass.len(),
            spread(&mut sizes.ours_sass),
            spread(&mut sizes.llc_sass),
            spread(&mut sizes.ours_ptx),
            spread(&mut sizes.llc_ptx)
        );
    }
}

/// The commit the tables describe, `+` marking changes not committed; `unknown` outside a
/// git checkout.
fn code_commit() -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
    };
    match git(&["rev-parse", "--short", "HEAD"]) {
        Some(commit) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|changes| !changes.is_empty());
            if dirty {
                format!("{commit}+")
            } else {
                commit
            }
        }
        None => "unknown".to_string(),
    }
}
