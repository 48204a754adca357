//! Lowering and assembling the tests, and judging a device's outcome counts.

use super::*;

/// The PTX module of a test: its kernels lowered by atomir for `target` as `.func`s, and the
/// wrapper.
pub fn module_text(test: &Litmus, target: PtxTarget) -> Result<String, String> {
    let mut code = String::new();
    let verified =
        atomir_ir::verify::verify(&test.module).map_err(|d| format!("{}: {}", test.file, d[0]))?;
    target
        .lower(&verified, &LowerOptions::module(), &mut code)
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
    let target = PtxTarget::parse(TARGET).map_err(|error| error.to_string())?;
    generate_from(tests, dir, |test| module_text(test, target))
}

/// [`generate`] with each test's PTX module (its threads' `.func`s and the [`wrapper`]) from
/// `module`.
pub fn generate_from(
    tests: &Path,
    dir: &Path,
    module: impl Fn(&Litmus) -> Result<String, String>,
) -> Result<Vec<String>, String> {
    let target = PtxTarget::parse(TARGET).map_err(|error| error.to_string())?;
    let tool = crate::ptx::ptxas_for(target);
    let ptxas = tool
        .find()
        .ok_or_else(|| format!("{} not found; run scripts/install-oracles", tool.name()))?;
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let mut entries = Vec::new();
    let mut lines = Vec::new();
    for test in load(tests)? {
        let text = module(&test)?;
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
    /// Allowed weak outcomes never observed.
    pub toothless: usize,
}

/// Applies the rules to the harness's results: see the module documentation. `dir` is what
/// [`generate`] wrote; its tests must be the ones in `tests` (a stale directory is an error).
pub fn check(dir: &Path, tests: &Path, results: &Json) -> Result<Report, String> {
    let loaded = tests_generated_in(dir, tests)?;
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
        match judge(&mut text, &test, by_name.get(test.name.as_str()).copied()) {
            Standing::Passed => {}
            Standing::Failed => failures += 1,
            Standing::Toothless => toothless += 1,
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

/// The tests of `tests`, once `dir/litmus.json` is found to list exactly them (by name and
/// number of outcomes): results of other tests would be judged against the wrong models.
fn tests_generated_in(dir: &Path, tests: &Path) -> Result<Vec<Litmus>, String> {
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
    Ok(loaded)
}

/// How one test came out.
enum Standing {
    Passed,
    Failed,
    /// An allowed weak outcome never observed: the run could not have caught a forbidden one.
    Toothless,
}

/// Judges one test's `result` against its model and writes its lines of the report.
fn judge(text: &mut String, test: &Litmus, result: Option<&Json>) -> Standing {
    let n = keys(test);
    let Some(result) = result else {
        let _ = writeln!(text, "{:<28} no result", test.name);
        return Standing::Failed;
    };
    if let Some(error) = result["error"].as_str() {
        let _ = writeln!(text, "{:<28} error: {error}", test.name);
        return Standing::Failed;
    }
    let histogram: Vec<u64> = result["histogram"]
        .as_array()
        .map(|h| h.iter().map(|v| v.as_u64().unwrap_or(0)).collect())
        .unwrap_or_default();
    if histogram.len() != 2 * n + 1 {
        let _ = writeln!(
            text,
            "{:<28} histogram of {} slots, expected {}",
            test.name,
            histogram.len(),
            2 * n + 1
        );
        return Standing::Failed;
    }
    let weak = key(&test.weak);
    let same: u64 = histogram[..n].iter().sum();
    let cross: u64 = histogram[n..2 * n].iter().sum();
    let (weak_same, weak_cross) = (histogram[weak], histogram[n + weak]);
    let (standing, verdict) = match test.model {
        Model::Forbidden if weak_same + weak_cross > 0 => {
            (Standing::Failed, "FAIL: forbidden outcome observed")
        }
        Model::Forbidden if cross == 0 => (Standing::Failed, "FAIL: no cross-SM instance ran"),
        Model::Forbidden => (Standing::Passed, "ok (never observed)"),
        Model::Allowed if weak_cross > 0 => (Standing::Passed, "ok (observed)"),
        Model::Allowed if weak_same > 0 => (
            Standing::Passed,
            "ok (observed, only with threads sharing an SM)",
        ),
        Model::Allowed => (
            Standing::Toothless,
            "TOOTHLESS: allowed weak outcome never observed",
        ),
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
    let _ = writeln!(text, "    weak: {}", values_label(test, &test.weak));
    write_runs(text, result, n, weak);
    write_outcomes_seen(text, test, &histogram);
    standing
}

/// A line per run (layout and stress) of a test of `n` outcomes, with its counts.
fn write_runs(text: &mut String, result: &Json, n: usize, weak: usize) {
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
}

/// A line per outcome observed, the most frequent first: its cross-SM and same-SM counts and
/// its values.
fn write_outcomes_seen(text: &mut String, test: &Litmus, histogram: &[u64]) {
    let n = keys(test);
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
            values_label(test, &values)
        );
    }
}
