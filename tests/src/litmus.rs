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
//! never observed across SMs leaves the test without teeth (reported; an error in strict mode).

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
    let mut header: BTreeMap<&str, (usize, Vec<&str>)> = BTreeMap::new();
    for (number, line) in source.lines().enumerate() {
        let Some(rest) = line.strip_prefix("# ") else {
            continue;
        };
        let mut words = rest.split_whitespace();
        if let Some(
            key @ ("litmus" | "threads" | "wait" | "preload" | "outcome" | "weak" | "model"),
        ) = words.next()
        {
            header.insert(key, (number + 1, words.collect()));
        }
    }
    let field = |key: &str| -> Result<&(usize, Vec<&str>), String> {
        header
            .get(key)
            .ok_or_else(|| format!("{file}: no `# {key}` line"))
    };
    let at = |key: &str| header.get(key).map_or(1, |(line, _)| *line);
    let name = field("litmus")?.1.first().copied().unwrap_or_default();
    let threads: Vec<String> = field("threads")?.1.iter().map(|s| s.to_string()).collect();
    let mut kernels = Vec::new();
    for thread in &threads {
        let kernel = module
            .kernels
            .iter()
            .find(|k| &k.name == thread)
            .ok_or_else(|| format!("{file}:{}: no kernel `{thread}`", at("threads")))?;
        kernels.push(kernel);
    }
    // The wrapper keeps the threads' SM numbers in 8 registers and the locations in 8.
    if !(2..=MAX_THREADS).contains(&threads.len()) {
        return Err(format!(
            "{file}:{}: a litmus test has 2 to {MAX_THREADS} threads",
            at("threads")
        ));
    }
    let mut locations: Vec<String> = Vec::new();
    let mut result_offsets = Vec::new();
    let mut results = 0;
    for kernel in &kernels {
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
    let lookup = |word: &str, line: usize| -> Result<Observed, String> {
        if let Some((thread, result)) = word.split_once('.') {
            let index = threads
                .iter()
                .position(|t| t == thread)
                .ok_or_else(|| format!("{file}:{line}: no thread `{thread}`"))?;
            let position = result_names(kernels[index])
                .iter()
                .position(|r| r == result)
                .ok_or_else(|| {
                    format!("{file}:{line}: thread `{thread}` has no result `%{result}`")
                })?;
            Ok(Observed::Result {
                thread: index,
                index: result_offsets[index] + position,
                name: result.to_string(),
            })
        } else {
            let location = locations
                .iter()
                .position(|l| l == word)
                .ok_or_else(|| format!("{file}:{line}: no location `{word}`"))?;
            Ok(Observed::Final {
                location,
                name: word.to_string(),
            })
        }
    };
    let (line, words) = field("outcome")?;
    let outcome = words
        .iter()
        .map(|w| lookup(w, *line))
        .collect::<Result<Vec<_>, _>>()?;
    if outcome.is_empty() || outcome.len() > 6 {
        return Err(format!("{file}:{line}: an outcome has 1 to 6 values"));
    }
    let (line, words) = field("weak")?;
    let mut weak = vec![None; outcome.len()];
    for word in words {
        let (what, value) = word
            .split_once('=')
            .ok_or_else(|| format!("{file}:{line}: `{word}` is not name=value"))?;
        let observed = lookup(what, *line)?;
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
    let weak = weak
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| format!("{file}:{line}: the weak outcome names every outcome value"))?;
    let model = match field("model")?.1.first().copied() {
        Some("forbidden") => Model::Forbidden,
        Some("allowed") => Model::Allowed,
        _ => {
            return Err(format!(
                "{file}:{}: model is `forbidden` or `allowed`",
                at("model")
            ))
        }
    };
    let location = |word: &str, line: usize| -> Result<usize, String> {
        locations
            .iter()
            .position(|l| l == word)
            .ok_or_else(|| format!("{file}:{line}: no location `{word}`"))
    };
    let wait = match header.get("wait") {
        None => None,
        Some((line, words)) => {
            let [thread, at, value] = words.as_slice() else {
                return Err(format!("{file}:{line}: wait THREAD LOCATION VALUE"));
            };
            let thread = threads
                .iter()
                .position(|t| t == thread)
                .ok_or_else(|| format!("{file}:{line}: no thread `{thread}`"))?;
            let value = value
                .parse()
                .map_err(|_| format!("{file}:{line}: `{value}` is not a number"))?;
            Some((thread, location(at, *line)?, value))
        }
    };
    let preload = match header.get("preload") {
        None => (0..locations.len()).collect(),
        Some((_, words)) if words.as_slice() == ["none"] => Vec::new(),
        Some((line, words)) => words
            .iter()
            .map(|w| location(w, *line))
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

/// The wrapper entry `litmus(locs, scratch, smids, sync, hist, sink, iterations, per_role,
/// layout, stress, stress_mask)` around the test's kernels (made `.func`s): see the module
/// documentation. `per_role` blocks run each thread of the test; with `layout` 0, block `b`
/// runs thread `b % threads` of slot `b / threads` (neighbouring blocks pair up), with 1 thread
/// `b / per_role` of slot `b % per_role` (blocks half a grid apart pair up): which of the two
/// puts the threads of an instance on different SMs more often depends on the block scheduler,
/// and `%smid` tells. Blocks beyond `threads × per_role` stress the memory system: they read and
/// write words of `stress` (`stress_mask + 1` words, a power of two) all along.
pub fn wrapper(test: &Litmus) -> String {
    let roles = test.threads.len();
    let locations = test.locations.len();
    let mut o = String::new();
    let _ = writeln!(o, ".visible .entry litmus(");
    for p in ["locs", "scratch", "smids", "sync", "hist", "sink"] {
        let _ = writeln!(o, "\t.param .u64 p_{p},");
    }
    o.push_str(
        "\t.param .u32 p_iters,\n\t.param .u32 p_per_role,\n\t.param .u32 p_layout,\n\
         \t.param .u64 p_stress,\n\t.param .u32 p_stress_mask\n)\n{\n",
    );
    o.push_str(
        "\t.reg .b64 %ld<16>;\n\t.reg .b64 %la<8>;\n\t.reg .b32 %lr<40>;\n\t.reg .pred %lp<8>;\n",
    );
    // %ld0 locs, %ld1 scratch, %ld2 smids, %ld3 sync, %ld4 hist, %ld5 sink, %ld14 stress,
    // %lr0 iterations, %lr5 blocks per thread, %lr22 layout, %lr23 stress mask.
    for (i, p) in ["locs", "scratch", "smids", "sync", "hist", "sink"]
        .iter()
        .enumerate()
    {
        let _ = writeln!(o, "\tld.param.u64 %ld{i}, [p_{p}];");
    }
    o.push_str(
        "\tld.param.u32 %lr0, [p_iters];\n\tld.param.u32 %lr5, [p_per_role];\n\
         \tld.param.u32 %lr22, [p_layout];\n\tld.param.u64 %ld14, [p_stress];\n\
         \tld.param.u32 %lr23, [p_stress_mask];\n",
    );
    let _ = writeln!(
        o,
        "\tmov.u32 %lr1, %ctaid.x;\n\tmov.u32 %lr3, %tid.x;\n\tmov.u32 %lr4, %ntid.x;\n\
         \tmul.lo.u32 %lr2, %lr5, {roles};\n\tsetp.ge.u32 %lp0, %lr1, %lr2;\n\t@%lp0 bra STRESS;\n\
         \tsetp.eq.u32 %lp0, %lr22, 0;\n\t@%lp0 rem.u32 %lr6, %lr1, {roles};\n\
         \t@%lp0 div.u32 %lr7, %lr1, {roles};\n\t@!%lp0 div.u32 %lr6, %lr1, %lr5;\n\
         \t@!%lp0 rem.u32 %lr7, %lr1, %lr5;\n\tmad.lo.u32 %lr8, %lr7, %lr4, %lr3;\n\
         \tmul.lo.u32 %lr9, %lr5, %lr4;"
    );
    // %lr6 role, %lr8 instance, %lr9 instances; record this thread's SM.
    let _ = writeln!(
        o,
        "\tmov.u32 %lr10, %smid;\n\tmad.lo.u32 %lr11, %lr8, {roles}, %lr6;\n\
         \tmul.wide.u32 %ld6, %lr11, 4;\n\tadd.u64 %ld6, %ld2, %ld6;\n\tst.global.u32 [%ld6], %lr10;\n\
         \tmul.lo.u32 %lr15, %lr0, %lr9;\n\tmov.u32 %lr12, 0;\n\tmov.u32 %lr13, 0;"
    );
    // Scratch results of this instance: %ld7.
    let _ = writeln!(
        o,
        "\tmul.lo.u32 %lr11, %lr8, {};\n\tmul.wide.u32 %ld7, %lr11, 4;\n\tadd.u64 %ld7, %ld1, %ld7;",
        test.results.max(1)
    );
    o.push_str("LOOP:\n\tmad.lo.u32 %lr14, %lr12, %lr9, %lr8;\n");
    // Location j of this iteration and instance: locs + (j × iterations × instances + index) × 4.
    for j in 0..locations {
        let _ = writeln!(
            o,
            "\tmad.lo.u32 %lr16, %lr15, {j}, %lr14;\n\tmul.wide.u32 %ld8, %lr16, 4;\n\
             \tadd.u64 %la{j}, %ld0, %ld8;"
        );
    }
    for j in &test.preload {
        let _ = writeln!(
            o,
            "\tld.global.ca.u32 %lr17, [%la{j}];\n\tadd.u32 %lr13, %lr13, %lr17;"
        );
    }
    // The barrier before the kernels: relaxed, so that it invalidates no L1.
    let _ = writeln!(
        o,
        "\tmul.wide.u32 %ld8, %lr14, 8;\n\tadd.u64 %ld9, %ld3, %ld8;\n\tadd.u64 %ld10, %ld9, 4;\n\
         \tred.relaxed.gpu.global.add.u32 [%ld9], 1;\n\tmov.u32 %lr18, 0;\nSPIN1:\n\
         \tld.relaxed.gpu.global.u32 %lr17, [%ld9];\n\tsetp.ge.u32 %lp1, %lr17, {roles};\n\
         \t@%lp1 bra GO;\n\tadd.u32 %lr18, %lr18, 1;\n\tsetp.lt.u32 %lp2, %lr18, {SPIN_LIMIT};\n\
         \t@%lp2 bra SPIN1;\nGO:"
    );
    for role in 0..roles {
        let _ = writeln!(
            o,
            "\tsetp.eq.u32 %lp1, %lr6, {role};\n\t@%lp1 bra ROLE{role};"
        );
    }
    o.push_str("\tbra AFTER;\n");
    for (role, thread) in test.threads.iter().enumerate() {
        let kernel = test.kernel(role);
        let _ = writeln!(o, "ROLE{role}:");
        if let Some((_, at, value)) = test.wait.filter(|(thread, ..)| *thread == role) {
            let _ = writeln!(
                o,
                "\tmov.u32 %lr19, 0;\nWAIT{role}:\n\tld.relaxed.gpu.global.u32 %lr17, [%la{at}];\n\
                 \tsetp.eq.u32 %lp1, %lr17, {value};\n\t@%lp1 bra RUN{role};\n\
                 \tadd.u32 %lr19, %lr19, 1;\n\tsetp.lt.u32 %lp2, %lr19, {WAIT_LIMIT};\n\
                 \t@%lp2 bra WAIT{role};\nRUN{role}:"
            );
        }
        o.push_str("\t{\n");
        let mut args = Vec::new();
        for (i, name) in param_names(kernel).iter().enumerate() {
            let j = test
                .locations
                .iter()
                .position(|l| l == name)
                .expect("a location");
            let _ = writeln!(o, "\t.param .u64 a{i};\n\tst.param.u64 [a{i}], %la{j};");
            args.push(format!("a{i}"));
        }
        let first = kernel.params.len();
        for k in 0..result_names(kernel).len() {
            let slot = test.result_offsets[role] + k;
            let _ = writeln!(
                o,
                "\t.param .u64 a{n};\n\tadd.u64 %ld11, %ld7, {};\n\tst.param.u64 [a{n}], %ld11;",
                slot * 4,
                n = first + k
            );
            args.push(format!("a{}", first + k));
        }
        let _ = writeln!(o, "\tcall {thread}, ({});\n\t}}", args.join(", "));
        o.push_str("\tbra AFTER;\n");
    }
    // After the kernels: the others release, thread 0 acquires, reads and counts.
    let _ = writeln!(
        o,
        "AFTER:\n\tsetp.ne.u32 %lp1, %lr6, 0;\n\t@%lp1 bra ARRIVE;\n\tmov.u32 %lr18, 0;\nSPIN2:\n\
         \tld.acquire.gpu.global.u32 %lr17, [%ld10];\n\tsetp.ge.u32 %lp1, %lr17, {};\n\
         \t@%lp1 bra COUNT;\n\tadd.u32 %lr18, %lr18, 1;\n\tsetp.lt.u32 %lp2, %lr18, {SPIN_LIMIT};\n\
         \t@%lp2 bra SPIN2;\n\tadd.u64 %ld12, %ld4, {};\n\tred.global.add.u64 [%ld12], 1;\n\
         \tbra NEXT;\nCOUNT:\n\tmov.u32 %lr20, 0;",
        roles - 1,
        2 * keys(test) * 8
    );
    for (i, observed) in test.outcome.iter().enumerate() {
        match observed {
            Observed::Result { index, .. } => {
                let _ = writeln!(
                    o,
                    "\tld.relaxed.gpu.global.u32 %lr17, [%ld7+{}];",
                    index * 4
                );
            }
            Observed::Final { location, .. } => {
                let _ = writeln!(o, "\tld.relaxed.gpu.global.u32 %lr17, [%la{location}];");
            }
        }
        let _ = writeln!(
            o,
            "\tmin.u32 %lr17, %lr17, {VALUE_CLAMP};\n\tshl.b32 %lr17, %lr17, {};\n\
             \tor.b32 %lr20, %lr20, %lr17;",
            2 * i
        );
    }
    // cross: the SMs of the instance's threads are pairwise different.
    let _ = writeln!(
        o,
        "\tmul.lo.u32 %lr11, %lr8, {roles};\n\tmul.wide.u32 %ld13, %lr11, 4;\n\
         \tadd.u64 %ld13, %ld2, %ld13;\n\tmov.u32 %lr21, 1;"
    );
    for a in 0..roles {
        let _ = writeln!(
            o,
            "\tld.relaxed.gpu.global.u32 %lr{}, [%ld13+{}];",
            24 + a.min(7),
            a * 4
        );
    }
    for a in 0..roles {
        for b in a + 1..roles {
            let _ = writeln!(
                o,
                "\tsetp.eq.u32 %lp3, %lr{}, %lr{};\n\t@%lp3 mov.u32 %lr21, 0;",
                24 + a,
                24 + b
            );
        }
    }
    let _ = writeln!(
        o,
        "\tmad.lo.u32 %lr20, %lr21, {}, %lr20;\n\tmul.wide.u32 %ld12, %lr20, 8;\n\
         \tadd.u64 %ld12, %ld4, %ld12;\n\tred.global.add.u64 [%ld12], 1;\n\tbra NEXT;\nARRIVE:\n\
         \tred.release.gpu.global.add.u32 [%ld10], 1;\nNEXT:\n\tadd.u32 %lr12, %lr12, 1;\n\
         \tsetp.lt.u32 %lp1, %lr12, %lr0;\n\t@%lp1 bra LOOP;\n\
         \tsetp.eq.u32 %lp1, %lr13, 0x7f4a7c15;\n\t@%lp1 st.global.u32 [%ld5], %lr13;\n\tret;",
        keys(test)
    );
    // Stress: STRESS_ROUNDS read-modify-writes per iteration, each thread on its own lines.
    let _ = writeln!(
        o,
        "STRESS:\n\tmad.lo.u32 %lr16, %lr1, %lr4, %lr3;\n\tmul.lo.u32 %lr16, %lr16, 4099;\n\
         \tmul.lo.u32 %lr18, %lr0, {STRESS_ROUNDS};\n\tmov.u32 %lr19, 0;\nSLOOP:\n\
         \tmad.lo.u32 %lr17, %lr19, 131, %lr16;\n\tand.b32 %lr17, %lr17, %lr23;\n\
         \tmul.wide.u32 %ld8, %lr17, 4;\n\tadd.u64 %ld8, %ld14, %ld8;\n\
         \tld.global.cg.u32 %lr20, [%ld8];\n\tadd.u32 %lr20, %lr20, 1;\n\
         \tst.global.cg.u32 [%ld8], %lr20;\n\tadd.u32 %lr19, %lr19, 1;\n\
         \tsetp.lt.u32 %lp0, %lr19, %lr18;\n\t@%lp0 bra SLOOP;\n\tret;\n}}"
    );
    o
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

/// The PTX module of a test: its kernels lowered by atomir for `target` as `.func`s, and the
/// wrapper.
pub fn module_text(test: &Litmus, target: PtxTarget) -> Result<String, String> {
    let mut code = String::new();
    target
        .lower(
            &test.module,
            &LowerOptions {
                complete_module: true,
            },
            &mut code,
        )
        .map_err(|e| format!("{}: {e}", test.file))?;
    let mut text = ptx_functions(&code);
    text.push('\n');
    text.push_str(&wrapper(test));
    text.push('\n');
    Ok(text)
}

/// Writes `DIR/litmus.json` and one cubin per test (assembled by the ptxas that judges the
/// target); returns a line per test.
pub fn generate(tests: &Path, dir: &Path) -> Result<Vec<String>, String> {
    let target = PtxTarget::parse(TARGET)?;
    let tool = crate::ptx::ptxas_for(target);
    let ptxas = tool
        .find()
        .ok_or_else(|| format!("{} not found; run scripts/install-oracles", tool.name()))?;
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let mut entries = Vec::new();
    let mut lines = Vec::new();
    for test in load(tests)? {
        let text = module_text(&test, target)?;
        let ptx = dir.join(format!("{}.ptx", test.name));
        let cubin = format!("{}.cubin", test.name);
        std::fs::write(&ptx, &text).map_err(|e| e.to_string())?;
        let (ok, message) = run(Command::new(&ptxas)
            .arg(format!("-arch={}", target.sm.name()))
            .arg(&ptx)
            .arg("-o")
            .arg(dir.join(&cubin)));
        if !ok {
            return Err(format!("ptxas rejected {}: {message}", ptx.display()));
        }
        entries.push(json!({
            "name": test.name,
            "module": cubin,
            "threads": test.threads.len(),
            "locations": test.locations.len(),
            "results": test.results.max(1),
            "keys": keys(&test),
        }));
        lines.push(format!(
            "{}: {} threads, {} locations, outcome {}",
            test.name,
            test.threads.len(),
            test.locations.len(),
            outcome_label(&test)
        ));
    }
    let document = json!({"target": format!("ptx:{target}"), "tests": entries});
    std::fs::write(dir.join("litmus.json"), document.to_string()).map_err(|e| e.to_string())?;
    Ok(lines)
}

fn outcome_label(test: &Litmus) -> String {
    test.outcome
        .iter()
        .map(|o| o.label(&test.threads))
        .collect::<Vec<_>>()
        .join(" ")
}

fn values_label(test: &Litmus, values: &[u32]) -> String {
    test.outcome
        .iter()
        .zip(values)
        .map(|(o, v)| format!("{}={v}", o.label(&test.threads)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The outcome of running the threads one after the other, in order, each to completion (a
/// waiting thread once its value is there): one sequentially consistent execution, what
/// `litmus-simulate` stands in for a device with (it never shows a weak outcome of these tests).
pub fn sequential_outcome(test: &Litmus) -> Vec<u32> {
    let mut memory = vec![0u128; test.locations.len()];
    let mut results = vec![0u32; test.results];
    for role in 0..test.threads.len() {
        let kernel = test.kernel(role);
        let names = param_names(kernel);
        let mut k = test.result_offsets[role];
        for inst in kernel.insts.values() {
            let InstData::Atomic(atomic) = inst else {
                continue;
            };
            let slot = match kernel.values[atomic.addr].def {
                atomir_ir::ValueDef::Param(i) => test
                    .locations
                    .iter()
                    .position(|l| *l == names[i as usize])
                    .expect("a location"),
                _ => unreachable!("litmus addresses are parameters"),
            };
            let operand = match atomic.operand {
                Some(atomir_ir::Operand::Scalar(atomir_ir::Scalar::Const(c))) => {
                    kernel.constants[c]
                }
                _ => 0,
            };
            let old = memory[slot];
            match atomic.op {
                AtomicOp::Load => {}
                AtomicOp::Store => memory[slot] = operand,
                op => {
                    memory[slot] = atomir_ir::semantics::apply(
                        op,
                        atomic.ty,
                        old,
                        operand,
                        0,
                        atomir_ir::semantics::FloatMode::Ieee,
                    )
                }
            }
            if atomic.result.is_some() {
                results[k] = old as u32;
                k += 1;
            }
        }
    }
    test.outcome
        .iter()
        .map(|o| match o {
            Observed::Result { index, .. } => results[*index],
            Observed::Final { location, .. } => memory[*location] as u32,
        })
        .collect()
}

/// What a device that runs every instance as [`sequential_outcome`] would return: every
/// instance counted as cross-SM with the sequential outcome.
pub fn simulate(tests: &Path, instances: u64) -> Result<Json, String> {
    let mut out = Vec::new();
    for test in load(tests)? {
        let mut histogram = vec![0u64; 2 * keys(&test) + 1];
        histogram[keys(&test) + key(&sequential_outcome(&test))] = instances;
        out.push(
            json!({"name": test.name, "histogram": histogram, "launches": 1,
                        "iterations": 1, "instances": instances}),
        );
    }
    Ok(json!({"device": "simulated", "tests": out}))
}

/// The verdict of one run.
pub struct Report {
    pub text: String,
    /// Tests that observed a forbidden outcome, or whose results are missing.
    pub failures: usize,
    /// Allowed weak outcomes never observed across SMs.
    pub toothless: usize,
}

/// Applies the rules to the harness's results: see the module documentation. `dir` is what
/// [`generate`] wrote; its tests must be the ones in `tests` (a stale directory is an error).
pub fn check(dir: &Path, tests: &Path, results: &Json) -> Result<Report, String> {
    let generated: Json = serde_json::from_str(
        &std::fs::read_to_string(dir.join("litmus.json"))
            .map_err(|e| format!("{}: {e}", dir.join("litmus.json").display()))?,
    )
    .map_err(|e| e.to_string())?;
    let generated: Vec<(&str, u64)> = generated["tests"]
        .as_array()
        .ok_or("litmus.json: no `tests` list")?
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or_default(),
                t["keys"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let loaded = load(tests)?;
    let expected: Vec<(&str, u64)> = loaded
        .iter()
        .map(|t| (t.name.as_str(), keys(t) as u64))
        .collect();
    if generated != expected {
        return Err(format!(
            "{}: generated from other tests than {}; run litmus-gen again",
            dir.display(),
            tests.display()
        ));
    }
    let by_name: BTreeMap<&str, &Json> = results["tests"]
        .as_array()
        .ok_or("results: no `tests` list")?
        .iter()
        .map(|t| (t["name"].as_str().unwrap_or_default(), t))
        .collect();
    let mut text = String::new();
    let _ = writeln!(
        text,
        "device: {}",
        results["device"].as_str().unwrap_or("unknown")
    );
    let _ = writeln!(
        text,
        "{:<28} {:<9} {:>12} {:>12} {:>10} {:>10} {:>7}  verdict",
        "test", "model", "cross-SM", "same-SM", "weak(x)", "weak(s)", "lost"
    );
    let (mut failures, mut toothless) = (0, 0);
    for test in loaded {
        let n = keys(&test);
        let Some(result) = by_name.get(test.name.as_str()) else {
            failures += 1;
            let _ = writeln!(text, "{:<28} no result", test.name);
            continue;
        };
        if let Some(error) = result["error"].as_str() {
            failures += 1;
            let _ = writeln!(text, "{:<28} error: {error}", test.name);
            continue;
        }
        let histogram: Vec<u64> = result["histogram"]
            .as_array()
            .map(|h| h.iter().map(|v| v.as_u64().unwrap_or(0)).collect())
            .unwrap_or_default();
        if histogram.len() != 2 * n + 1 {
            failures += 1;
            let _ = writeln!(
                text,
                "{:<28} histogram of {} slots, expected {}",
                test.name,
                histogram.len(),
                2 * n + 1
            );
            continue;
        }
        let weak = key(&test.weak);
        let same: u64 = histogram[..n].iter().sum();
        let cross: u64 = histogram[n..2 * n].iter().sum();
        let (weak_same, weak_cross) = (histogram[weak], histogram[n + weak]);
        let verdict = match test.model {
            Model::Forbidden if weak_same + weak_cross > 0 => {
                failures += 1;
                "FAIL: forbidden outcome observed"
            }
            Model::Forbidden if cross == 0 => {
                failures += 1;
                "FAIL: no cross-SM instance ran"
            }
            Model::Forbidden => "ok (never observed)",
            Model::Allowed if weak_cross > 0 => "ok (observed)",
            Model::Allowed => {
                toothless += 1;
                "TOOTHLESS: allowed weak outcome not observed across SMs"
            }
        };
        let model = match test.model {
            Model::Forbidden => "forbidden",
            Model::Allowed => "allowed",
        };
        let _ = writeln!(
            text,
            "{:<28} {:<9} {:>12} {:>12} {:>10} {:>10} {:>7}  {verdict}",
            test.name,
            model,
            cross,
            same,
            weak_cross,
            weak_same,
            histogram[2 * n]
        );
        let _ = writeln!(text, "    weak: {}", values_label(&test, &test.weak));
        for run in result["runs"].as_array().into_iter().flatten() {
            let counts = |index: usize| run["histogram"][index].as_u64().unwrap_or(0);
            let all: u64 = (0..2 * n).map(counts).sum();
            let _ = writeln!(
                text,
                "    layout {} {}: {} launches, {} instances ({} cross-SM), weak {} cross-SM, {} same-SM",
                run["layout"],
                if run["stress"] == true { "with stress" } else { "no stress" },
                run["launches"],
                all,
                (n..2 * n).map(counts).sum::<u64>(),
                counts(n + weak),
                counts(weak)
            );
        }
        let mut seen: Vec<(u64, u64, Vec<u32>)> = (0..n)
            .filter(|k| histogram[*k] + histogram[n + k] > 0)
            .map(|k| {
                let values = (0..test.outcome.len())
                    .map(|i| ((k >> (2 * i)) & 3) as u32)
                    .collect();
                (histogram[n + k], histogram[k], values)
            })
            .collect();
        seen.sort_by_key(|(cross, same, _)| std::cmp::Reverse(cross + same));
        for (c, s, values) in seen {
            let _ = writeln!(
                text,
                "    {:>12} {:>12}  {}",
                c,
                s,
                values_label(&test, &values)
            );
        }
    }
    let _ = writeln!(
        text,
        "{failures} failed, {toothless} toothless (values of 3 stand for 3 or more)"
    );
    Ok(Report {
        text,
        failures,
        toothless,
    })
}
