//! Litmus tests of the PTX memory model on a GPU, written in atomir's text form and lowered by
//! atomir (`tests/gpu/litmus/*.atom`).
//!
//! A test file holds one kernel per thread of the test (`t0`, `t1`, …), whose `ptr.global`
//! parameters are the test's locations (matched by name) and whose results are what the thread
//! observed, and a header of `#` comments the harness reads:
//!
//! ```text
//! # litmus mp_release_acquire_device
//! # threads t0 t1          the kernels, one thread each, in order
//! # wait t1 flag 1         optional: before its kernel, t1 waits until `flag` holds 1
//! # preload data           optional: the locations preloaded into L1 (default all; `none`)
//! # outcome t1.f t1.d      the observed values: results (thread.name) or final values (location)
//! # weak t1.f=1 t1.d=0     the outcome the test is about
//! # model forbidden        or `allowed`: whether the PTX memory model allows the weak outcome
//! ```
//!
//! [`generate`] lowers each test's kernels with atomir to PTX, turns them into `.func`s called by
//! a wrapper entry [`wrapper`] writes, and assembles the module with ptxas (a cubin, as the
//! device's driver may not JIT-compile the ISA). The wrapper runs many instances per launch:
//! each thread of the test has its own blocks, one instance per thread of a block slot, so the
//! threads of one instance are in different CTAs (and mostly on different SMs: each records
//! `%smid`). Every iteration uses fresh, zeroed locations. Before each iteration every thread
//! loads the preloaded locations of its instance into its L1 (`ld.global.ca`), then the threads
//! of an instance meet at a relaxed barrier (a relaxed barrier invalidates no L1), then run their
//! kernels. Only an acquire at a scope that includes the other thread invalidates a preloaded
//! line, so a missing or too-narrow acquire shows as a stale read. After the kernels, thread 0
//! waits (acquire) for the others' release, reads the results and the final values of the
//! locations, and counts the outcome in a histogram on the device: index `cross × 4^n + key`,
//! where `key` packs the `n` outcome values (each clamped to 3) two bits each, and `cross` says
//! every thread of the instance ran on a different SM. The last slot counts instances whose
//! barrier gave up waiting (never counted as outcomes). What the wrapper adds to a thread (the
//! preload, the relaxed barrier, the wait) is relaxed, so it creates no synchronization: a weak
//! outcome the model forbids for the kernels stays forbidden with it.
//!
//! [`check`] applies the rule: a forbidden weak outcome observed at all fails; an allowed one
//! never observed leaves the test without teeth (reported; an error in strict mode). The threads
//! of an instance always run in different CTAs, so a weak outcome seen with two of them on one
//! SM still shows what a scope that stops at the CTA allows; the verdict says where it was seen.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use atomir_ir::{AtomicOp, Backend, InstData, Kernel, LowerOptions, Module, ValueType};
use atomir_ptx::PtxTarget;
use serde_json::{json, Value as Json};

use crate::cases::ptx_functions;
use crate::tools::run;

/// The target the litmus kernels are lowered for (the device is an sm_90).
pub const TARGET: &str = "sm_90";
/// Outcome values are clamped to this, so each takes two bits of a histogram key.
const VALUE_CLAMP: u32 = 3;
/// How long a thread waits at a barrier (loads of the counter) before giving up.
const SPIN_LIMIT: u32 = 200_000;
const MAX_THREADS: usize = 8;
const MAX_LOCATIONS: usize = 8;
/// Read-modify-writes per iteration of a stress thread.
const STRESS_ROUNDS: u32 = 16;
/// How many times a waiting thread reads the location before it gives up and runs its kernel.
const WAIT_LIMIT: u32 = 4_000;

/// Whether the PTX memory model allows a test's weak outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    Forbidden,
    Allowed,
}

/// One value of an outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Observed {
    /// Result number `index` (in the module's result order) of thread `thread`.
    Result {
        thread: usize,
        index: usize,
        name: String,
    },
    /// The final value of a location.
    Final { location: usize, name: String },
}

impl Observed {
    fn label(&self, threads: &[String]) -> String {
        match self {
            Observed::Result { thread, name, .. } => format!("{}.{name}", threads[*thread]),
            Observed::Final { name, .. } => name.clone(),
        }
    }
}

/// A litmus test read from its file.
#[derive(Clone, Debug)]
pub struct Litmus {
    pub name: String,
    pub file: String,
    pub threads: Vec<String>,
    pub module: Module,
    /// Location names, in order of first appearance among the kernels' parameters.
    pub locations: Vec<String>,
    pub outcome: Vec<Observed>,
    /// The weak outcome: one value per entry of `outcome`.
    pub weak: Vec<u32>,
    pub model: Model,
    /// (thread, location, value): before its kernel, that thread waits until the location
    /// holds the value (relaxed device-scope loads, which neither invalidate nor fill its L1:
    /// outside the test, they let its kernel's first load see the other thread's store).
    pub wait: Option<(usize, usize, u32)>,
    /// The locations every thread loads into its L1 before the barrier.
    pub preload: Vec<usize>,
    /// Per thread: the offset of its first result among all results of the test.
    pub result_offsets: Vec<usize>,
    pub results: usize,
}

/// Result names of a kernel, in program order (the order of its `out` parameters).
fn result_names(kernel: &Kernel) -> Vec<String> {
    kernel
        .insts
        .values()
        .filter_map(|inst| match inst {
            InstData::Atomic(atomic) => atomic.result,
            InstData::Fence(_) => None,
        })
        .map(|value| kernel.values[value].name.to_string())
        .collect()
}

fn param_names(kernel: &Kernel) -> Vec<String> {
    kernel
        .params
        .iter()
        .map(|p| kernel.values[p.value].name.to_string())
        .collect()
}

/// Reads a litmus test; errors name the file and line.
pub fn parse(file: &str, source: &str) -> Result<Litmus, String> {
    let module = atomir_ir::text::parse(source).map_err(|diagnostics| {
        diagnostics
            .iter()
            .map(|d| format!("{file}:{d}"))
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    let header = Header::read(file, source);
    let name = header
        .field("litmus")?
        .1
        .first()
        .copied()
        .unwrap_or_default();
    let threads: Vec<String> = header
        .field("threads")?
        .1
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut kernels = Vec::new();
    for thread in &threads {
        let kernel = module
            .kernels
            .iter()
            .find(|k| &k.name == thread)
            .ok_or_else(|| format!("{file}:{}: no kernel `{thread}`", header.at("threads")))?;
        kernels.push(kernel);
    }
    // The wrapper keeps the threads' SM numbers in 8 registers and the locations in 8.
    if !(2..=MAX_THREADS).contains(&threads.len()) {
        return Err(format!(
            "{file}:{}: a litmus test has 2 to {MAX_THREADS} threads",
            header.at("threads")
        ));
    }
    let (locations, result_offsets, results) = locations_and_results(file, &kernels)?;
    let names = Names {
        file,
        threads: &threads,
        kernels: &kernels,
        locations: &locations,
        result_offsets: &result_offsets,
    };
    let (line, words) = header.field("outcome")?;
    let outcome = words
        .iter()
        .map(|w| names.observed(w, *line))
        .collect::<Result<Vec<_>, _>>()?;
    if outcome.is_empty() || outcome.len() > 6 {
        return Err(format!("{file}:{line}: an outcome has 1 to 6 values"));
    }
    let weak = weak_outcome(&header, &names, &outcome)?;
    let model = match header.field("model")?.1.first().copied() {
        Some("forbidden") => Model::Forbidden,
        Some("allowed") => Model::Allowed,
        _ => {
            return Err(format!(
                "{file}:{}: model is `forbidden` or `allowed`",
                header.at("model")
            ))
        }
    };
    let wait = wait_before_kernel(&header, &names)?;
    let preload = match header.fields.get("preload") {
        None => (0..locations.len()).collect(),
        Some((_, words)) if words.as_slice() == ["none"] => Vec::new(),
        Some((line, words)) => words
            .iter()
            .map(|w| names.location(w, *line))
            .collect::<Result<Vec<_>, _>>()?,
    };
    Ok(Litmus {
        name: name.to_string(),
        file: file.to_string(),
        threads,
        module,
        locations,
        outcome,
        weak,
        model,
        wait,
        preload,
        result_offsets,
        results,
    })
}

/// The `# KEY WORDS…` lines of a test's header, by key: each line's number and words.
struct Header<'s> {
    file: &'s str,
    fields: BTreeMap<&'s str, (usize, Vec<&'s str>)>,
}

impl<'s> Header<'s> {
    fn read(file: &'s str, source: &'s str) -> Header<'s> {
        let mut fields = BTreeMap::new();
        for (number, line) in source.lines().enumerate() {
            let Some(rest) = line.strip_prefix("# ") else {
                continue;
            };
            let mut words = rest.split_whitespace();
            if let Some(
                key @ ("litmus" | "threads" | "wait" | "preload" | "outcome" | "weak" | "model"),
            ) = words.next()
            {
                fields.insert(key, (number + 1, words.collect()));
            }
        }
        Header { file, fields }
    }

    /// The line of a field that must be there.
    fn field(&self, key: &str) -> Result<&(usize, Vec<&'s str>), String> {
        self.fields
            .get(key)
            .ok_or_else(|| format!("{}: no `# {key}` line", self.file))
    }

    /// The line number of a field, 1 where it is missing.
    fn at(&self, key: &str) -> usize {
        self.fields.get(key).map_or(1, |(line, _)| *line)
    }
}

/// The locations (every kernel parameter, which must be a `ptr.global`, in order of first
/// appearance), each thread's offset of its first result among all results, and the number of
/// results (32 bits wide each).
fn locations_and_results(
    file: &str,
    kernels: &[&Kernel],
) -> Result<(Vec<String>, Vec<usize>, usize), String> {
    let mut locations: Vec<String> = Vec::new();
    let mut result_offsets = Vec::new();
    let mut results = 0;
    for kernel in kernels {
        for (param, name) in kernel.params.iter().zip(param_names(kernel)) {
            if param.ty != ValueType::Ptr(atomir_ir::AddressSpace::Global) {
                return Err(format!(
                    "{file}: kernel `{}`: parameter `%{name}` is not a ptr.global location",
                    kernel.name
                ));
            }
            if !locations.contains(&name) {
                locations.push(name);
            }
        }
        for inst in kernel.insts.values() {
            if let InstData::Atomic(atomic) = inst {
                if atomic.result.is_some() && atomic.ty.bits() != 32 {
                    return Err(format!(
                        "{file}: kernel `{}`: results are 32 bits wide in a litmus test",
                        kernel.name
                    ));
                }
            }
        }
        result_offsets.push(results);
        results += result_names(kernel).len();
    }
    if locations.len() > MAX_LOCATIONS {
        return Err(format!("{file}: at most {MAX_LOCATIONS} locations"));
    }
    Ok((locations, result_offsets, results))
}

/// What the header's words may name: threads, their results, locations.
struct Names<'a> {
    file: &'a str,
    threads: &'a [String],
    kernels: &'a [&'a Kernel],
    locations: &'a [String],
    result_offsets: &'a [usize],
}

impl Names<'_> {
    /// `THREAD.RESULT` or `LOCATION`, on header line `line`.
    fn observed(&self, word: &str, line: usize) -> Result<Observed, String> {
        let file = self.file;
        let Some((thread, result)) = word.split_once('.') else {
            return Ok(Observed::Final {
                location: self.location(word, line)?,
                name: word.to_string(),
            });
        };
        let index = self.thread(thread, line)?;
        let position = result_names(self.kernels[index])
            .iter()
            .position(|r| r == result)
            .ok_or_else(|| format!("{file}:{line}: thread `{thread}` has no result `%{result}`"))?;
        Ok(Observed::Result {
            thread: index,
            index: self.result_offsets[index] + position,
            name: result.to_string(),
        })
    }

    fn thread(&self, word: &str, line: usize) -> Result<usize, String> {
        self.threads
            .iter()
            .position(|t| t == word)
            .ok_or_else(|| format!("{}:{line}: no thread `{word}`", self.file))
    }

    fn location(&self, word: &str, line: usize) -> Result<usize, String> {
        self.locations
            .iter()
            .position(|l| l == word)
            .ok_or_else(|| format!("{}:{line}: no location `{word}`", self.file))
    }
}

/// The `# weak NAME=VALUE…` line: a value for every entry of `outcome`, in its order.
fn weak_outcome(header: &Header, names: &Names, outcome: &[Observed]) -> Result<Vec<u32>, String> {
    let file = header.file;
    let (line, words) = header.field("weak")?;
    let mut weak = vec![None; outcome.len()];
    for word in words {
        let (what, value) = word
            .split_once('=')
            .ok_or_else(|| format!("{file}:{line}: `{word}` is not name=value"))?;
        let observed = names.observed(what, *line)?;
        let slot = outcome
            .iter()
            .position(|o| *o == observed)
            .ok_or_else(|| format!("{file}:{line}: `{what}` is not in the outcome"))?;
        let value: u32 = value
            .parse()
            .ok()
            .filter(|v| *v <= VALUE_CLAMP)
            .ok_or_else(|| format!("{file}:{line}: `{value}` is not a value 0 to {VALUE_CLAMP}"))?;
        weak[slot] = Some(value);
    }
    weak.into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| format!("{file}:{line}: the weak outcome names every outcome value"))
}

/// The optional `# wait THREAD LOCATION VALUE` line.
fn wait_before_kernel(
    header: &Header,
    names: &Names,
) -> Result<Option<(usize, usize, u32)>, String> {
    let Some((line, words)) = header.fields.get("wait") else {
        return Ok(None);
    };
    let file = header.file;
    let [thread, at, value] = words.as_slice() else {
        return Err(format!("{file}:{line}: wait THREAD LOCATION VALUE"));
    };
    let thread = names.thread(thread, *line)?;
    let value = value
        .parse()
        .map_err(|_| format!("{file}:{line}: `{value}` is not a number"))?;
    Ok(Some((thread, names.location(at, *line)?, value)))
}

/// Reads every `*.atom` test of a directory, by file name.
pub fn load(tests: &Path) -> Result<Vec<Litmus>, String> {
    let mut files: Vec<_> = std::fs::read_dir(tests)
        .map_err(|e| format!("{}: {e}", tests.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "atom"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
            let file = path.file_name().unwrap_or_default().to_string_lossy();
            parse(&file, &text)
        })
        .collect()
}

/// The histogram key of outcome values (each clamped).
pub fn key(values: &[u32]) -> usize {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| (v.min(&VALUE_CLAMP) << (2 * i)) as usize)
        .sum()
}

fn keys(test: &Litmus) -> usize {
    1 << (2 * test.outcome.len())
}

impl Litmus {
    /// The kernel of thread `role`.
    fn kernel(&self, role: usize) -> &Kernel {
        let thread = &self.threads[role];
        self.module
            .kernels
            .iter()
            .find(|k| &k.name == thread)
            .expect("parsed")
    }
}

mod check;
pub mod llvm;
mod wrapper;

pub use check::{
    check, generate, generate_from, module_text, sequential_outcome, simulate, Report,
};
pub use wrapper::wrapper;
