//! The GPU differential of random kernels (`gpu_cases kernels-gen | kernels-check |
//! kernels-simulate`; `tests/gpu/harness.py kernels` runs them on the device).
//!
//! Two pools of random cases ([`crate::cases`]): one whose kernels `ptx:sm_60` accepts (so every
//! SM runs them) and one whose kernels `ptx:sm_90` accepts (clusters, 128-bit and vector
//! atomics). Each target runs every case whose kernel it accepts unchanged, as one thread:
//! our PTX for every SM (sm_60/sm_70 code is JIT-compiled by the driver on a newer GPU too), and
//! llc 22's PTX compiled from our LLVM IR (`llvm:nvptx64@22`, `llc -mcpu=sm_90`). Every module
//! is assembled here with ptxas before it ships. The check compares each run with the reference
//! semantics (the target's documented float mode: a native f32 add on global memory flushes
//! subnormals) and each PTX run with llc's run of the same case, bit for bit.
//!
//! A case our address check says faults (a generic access through a shared-window address) is
//! kept, at most [`FAULTING_PER_TARGET`] per target, last in its module and marked: the harness
//! runs each in a fresh process, since a fault ends the CUDA context.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use atomir_ir::semantics::FloatMode;
use atomir_ir::{AtomicInst, AtomicOp, Backend, ElemType, ElementLowering, Module};
use atomir_llvm::LlvmTarget;
use atomir_ptx::PtxTarget;
use serde_json::{json, Value as Json};

use crate::cases::{
    check, hex, llvm_plain_functions, llvm_wrapper, lower_cases, ptx_functions, ptx_wrapper,
    random_case, reference, unhex, Arg, ByteState, Case, ModeFn, Observed, Region, Semantics,
    Verdict, LLVM_GPU_DECLARATIONS, REGION_BYTES,
};
use crate::judge::shared_window_check;
use crate::tools::{require, run, Tool};

/// The PTX targets of the differential: every SM at the default ISA.
pub const PTX_SMS: [&str; 10] = [
    "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_120",
];
/// The LLVM target whose output llc compiles to PTX for the device (an H100 or H200: sm_90).
pub const LLC_TARGET: &str = "nvptx64@22";
pub const FAULTING_PER_TARGET: usize = 1;

/// The cases of a run: `per_pool` from each pool, seeds from `first_seed`, then the float
/// special values ([`crate::specials`]) and every shape of load and store
/// ([`crate::accesses`]) every SM takes.
pub fn all_cases(per_pool: usize, first_seed: u64) -> Vec<Case> {
    let mut cases = random_cases(per_pool, first_seed);
    let oldest = PtxTarget::parse("sm_60").expect("a PTX target");
    let first = cases.len();
    cases.extend(crate::specials::cases(&oldest, first));
    let first = cases.len();
    cases.extend(crate::accesses::cases(&oldest, first));
    cases
}

fn random_cases(per_pool: usize, first_seed: u64) -> Vec<Case> {
    let mut cases = Vec::new();
    for (pool, sm) in ["sm_60", "sm_90"].iter().enumerate() {
        let base = PtxTarget::parse(sm).expect("a PTX target");
        let mut seed = first_seed + (pool as u64) * 1_000_000;
        let mut made = 0;
        while made < per_pool {
            let name = format!("case{}", cases.len());
            if let Some(case) = random_case(seed, &base, &name) {
                cases.push(case);
                made += 1;
            }
            seed += 1;
        }
    }
    cases
}

/// The module text of `cases` for a target, ready for the device: `Err` with the tool's message.
fn device_module(target: &str, cases: &[Case], scratch: &Path) -> Result<String, String> {
    std::fs::create_dir_all(scratch).map_err(|e| e.to_string())?;
    let ptx = if let Some(sm) = target.strip_prefix("ptx:") {
        let backend = PtxTarget::parse(sm).map_err(|error| error.to_string())?;
        let code = lower_cases(&backend, cases)?;
        let mut text = ptx_functions(&code);
        for case in cases {
            let index: usize = case.kernel.name[4..].parse().map_err(|_| "a case name")?;
            ptx_wrapper(case, &code, index, &mut text)?;
        }
        text
    } else {
        let llvm = LlvmTarget::parse(LLC_TARGET).map_err(|error| error.to_string())?;
        let code = lower_cases(&llvm, cases)?;
        let mut ir = llvm_plain_functions(&code);
        ir.push_str(LLVM_GPU_DECLARATIONS);
        for case in cases {
            let index: usize = case.kernel.name[4..].parse().map_err(|_| "a case name")?;
            llvm_wrapper(case, &code, index, true, &mut ir)?;
        }
        let llc = require(Tool::Llc(22)).ok_or("llc 22 is missing")?;
        let file = scratch.join("cases.ll");
        std::fs::write(&file, &ir).map_err(|e| e.to_string())?;
        let out = scratch.join("cases.ptx");
        let (ok, message) = run(Command::new(llc)
            .args(llvm.llc_args())
            .arg(&file)
            .arg("-o")
            .arg(&out));
        if !ok {
            return Err(format!("llc 22: {message}"));
        }
        std::fs::read_to_string(&out).map_err(|e| e.to_string())?
    };
    let arch = match target.strip_prefix("ptx:") {
        Some(sm) => sm.to_string(),
        None => "sm_90".to_string(),
    };
    let number: u32 = arch[3..].trim_end_matches('a').parse().unwrap_or(90);
    let ptxas = require(if number < 75 {
        Tool::Ptxas12
    } else {
        Tool::Ptxas13
    })
    .ok_or("ptxas is missing")?;
    let file = scratch.join("module.ptx");
    std::fs::write(&file, &ptx).map_err(|e| e.to_string())?;
    let (ok, message) = run(Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg(&file)
        .arg("-o")
        .arg(scratch.join("module.cubin")));
    if ok {
        Ok(ptx)
    } else {
        Err(format!("ptxas: {message}"))
    }
}

/// Every target of the differential, PTX first.
pub fn targets() -> Vec<String> {
    let mut names: Vec<String> = PTX_SMS.iter().map(|sm| format!("ptx:{sm}")).collect();
    names.push(format!("llvm:{LLC_TARGET}"));
    names
}

fn file_of(target: &str) -> String {
    format!(
        "kernels-{}.ptx",
        target.replace([':', '@'], "-").replace("-22", "")
    )
}

/// Writes the device modules and `kernels.json` into `dir`; returns a line per target.
pub fn generate(dir: &Path, per_pool: usize, first_seed: u64) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let cases = all_cases(per_pool, first_seed);
    let scratch = dir.join("scratch");
    let targets = targets();
    // ptxas takes most of the time, one single-threaded process per target: one worker per core
    // takes the targets in turn.
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(targets.len());
    let mut prepared: Vec<(usize, Result<PreparedTarget, String>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let position = next.fetch_add(1, Ordering::Relaxed);
                        let Some(target) = targets.get(position) else {
                            break;
                        };
                        let scratch = scratch.join(file_of(target).trim_end_matches(".ptx"));
                        done.push((position, prepare_target(dir, target, &cases, &scratch)));
                    }
                    done
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().expect("a generating worker"))
            .collect()
    });
    prepared.sort_by_key(|(position, _)| *position);
    let mut lines = Vec::new();
    let mut documents = Vec::new();
    for (_, result) in prepared {
        let (line, document) = result?;
        lines.push(line);
        documents.push(document);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let document = json!({
        "per_pool": per_pool,
        "first_seed": first_seed,
        "region_bytes": REGION_BYTES,
        "targets": documents,
    });
    std::fs::write(dir.join("kernels.json"), document.to_string()).map_err(|e| e.to_string())?;
    Ok(lines)
}

/// A target's summary line and its entry in `kernels.json`.
type PreparedTarget = (String, Json);

/// One target's device module, written into `dir`: its summary line and its `kernels.json`
/// entry.
fn prepare_target(
    dir: &Path,
    target: &str,
    cases: &[Case],
    scratch: &Path,
) -> Result<PreparedTarget, String> {
    let name = if target.starts_with("ptx:") {
        target.to_string()
    } else {
        format!("llvm:{LLC_TARGET}")
    };
    let backend: atomir::Target = name.parse().map_err(|e| format!("{e}"))?;
    let mut chosen: Vec<Case> = Vec::new();
    let mut faulting: Vec<Case> = Vec::new();
    let (mut refused, mut faulting_left_out, mut rejected) = (0, 0, 0);
    for case in cases {
        let Ok(code) = lower_cases(&backend, std::slice::from_ref(case)) else {
            refused += 1;
            continue;
        };
        let module = Module {
            kernels: vec![case.kernel.clone()],
        };
        let faults = target.starts_with("ptx:") && shared_window_check(&module, &code).is_err();
        if !faults {
            chosen.push(case.clone());
        } else if faulting.len() < FAULTING_PER_TARGET {
            faulting.push(case.clone());
        } else {
            faulting_left_out += 1;
        }
    }
    let expect_fault: Vec<String> = faulting.iter().map(|c| c.kernel.name.clone()).collect();
    chosen.extend(faulting);
    // A case whose module a tool rejects (the kernel judge test reports those) stays here.
    let module = match device_module(target, &chosen, scratch) {
        Ok(module) => module,
        Err(_) => {
            let before = chosen.len();
            chosen.retain(|case| {
                match device_module(target, std::slice::from_ref(case), scratch) {
                    Ok(_) => true,
                    Err(message) => {
                        if std::env::var_os("ATOMIR_GPU_DEBUG").is_some() {
                            eprintln!("{target} {}: {message}", case.kernel.name);
                        }
                        false
                    }
                }
            });
            rejected = before - chosen.len();
            device_module(target, &chosen, scratch)?
        }
    };
    let module_file = file_of(target);
    std::fs::write(dir.join(&module_file), module).map_err(|e| e.to_string())?;
    let entries: Vec<Json> = chosen
        .iter()
        .map(|case| {
            json!({
                "case": case.kernel.name,
                "wrapper": format!("atomir_case_w{}", &case.kernel.name[4..]),
                "global": hex(&case.memory[0]),
                "shared": hex(&case.memory[1]),
                "args": hex(&case.arg_bytes()),
                "out_bytes": case.out_bytes(),
                "expect_fault": expect_fault.contains(&case.kernel.name),
            })
        })
        .collect();
    let shared = chosen.iter().filter(|c| uses_shared(c)).count();
    let expected_faults = entries.iter().filter(|e| e["expect_fault"] == true).count();
    let line = format!(
        "{target}: {} cases ({shared} reach the shared region; {expected_faults} expected to \
         fault: a generic access through a shared-window address, {faulting_left_out} more \
         such left out); {refused} refused; {rejected} left out because a tool rejects them",
        entries.len()
    );
    let document = json!({"target": target, "module": module_file, "cases": entries});
    Ok((line, document))
}

/// The float mode a target's code has for a node reaching `region`.
fn ptx_mode(backend: PtxTarget) -> impl Fn(&AtomicInst, Region) -> FloatMode {
    move |inst, region| match region {
        Region::Global => backend.float_mode(&atomir_ir::AtomicNode::of_inst(inst)),
        Region::Shared => FloatMode::Ieee,
    }
}

/// The float mode llc's code for our LLVM IR has for a node reaching `region`: llc compiles a
/// native `atomicrmw fadd float` to `atom.add.f32`, which flushes on global memory; our IR is
/// that only where the target's verdict is native (on shared memory, where the instruction is
/// exact: rule `llvm.nvptx-f32-add-flushes-before-23`), an exact CAS loop elsewhere.
fn llc_mode(backend: LlvmTarget) -> impl Fn(&AtomicInst, Region) -> FloatMode {
    move |inst, region| {
        let node = atomir_ir::AtomicNode::of_inst(inst);
        let native = backend
            .legalize(&node)
            .is_ok_and(|legality| legality.lowering.element() == ElementLowering::Native);
        let f32_add = inst.ty == ElemType::F32 && inst.op == AtomicOp::Add;
        if region == Region::Global && f32_add && native {
            FloatMode::FlushSubnormals
        } else {
            FloatMode::Ieee
        }
    }
}

fn load_json(path: &Path) -> Result<Json, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The cases `kernels.json` in `dir` names, regenerated (and checked to be the ones written).
fn regenerate(dir: &Path) -> Result<(Json, BTreeMap<String, Case>), String> {
    let spec = load_json(&dir.join("kernels.json"))?;
    let per_pool = spec["per_pool"].as_u64().ok_or("per_pool")? as usize;
    let first_seed = spec["first_seed"].as_u64().ok_or("first_seed")?;
    let cases: BTreeMap<String, Case> = all_cases(per_pool, first_seed)
        .into_iter()
        .map(|c| (c.kernel.name.clone(), c))
        .collect();
    for target in spec["targets"].as_array().into_iter().flatten() {
        for entry in target["cases"].as_array().into_iter().flatten() {
            let name = entry["case"].as_str().unwrap_or_default();
            let case = cases.get(name).ok_or(format!("unknown case {name}"))?;
            if entry["global"].as_str() != Some(&hex(&case.memory[0]))
                || entry["args"].as_str() != Some(&hex(&case.arg_bytes()))
            {
                return Err(format!(
                    "{name} is not the case kernels.json was written with: rebuild and run \
                     kernels-gen again"
                ));
            }
        }
    }
    Ok((spec, cases))
}

/// Results as the reference gives them, in the harness's format (a self-test of the check).
pub fn simulate(dir: &Path) -> Result<Json, String> {
    let (spec, cases) = regenerate(dir)?;
    let mut targets = Vec::new();
    for target in spec["targets"].as_array().into_iter().flatten() {
        let name = target["target"].as_str().unwrap_or_default();
        let mode = mode_of(name)?;
        let mut results = Vec::new();
        for entry in target["cases"].as_array().into_iter().flatten() {
            let case = &cases[entry["case"].as_str().unwrap_or_default()];
            let expected = reference(
                case,
                Semantics {
                    mode: &*mode,
                    two_nan_min_max_any_nan: false,
                },
            );
            let mut out = vec![0u8; case.out_bytes()];
            for (index, (ty, lanes)) in expected.results.iter().enumerate() {
                let width = ty.bytes() as usize;
                for (lane, value) in lanes.iter().enumerate() {
                    let at = index * crate::cases::RESULT_SLOT + lane * width;
                    out[at..at + width].copy_from_slice(&value.bits.to_le_bytes()[..width]);
                }
            }
            results.push(json!({
                "case": entry["case"],
                "global": hex(&expected.memory[0]),
                "shared": hex(&expected.memory[1]),
                "out": hex(&out),
            }));
        }
        targets.push(json!({"target": name, "cases": results}));
    }
    Ok(json!({"device": "simulated by the reference semantics", "targets": targets}))
}

type BoxedMode = Box<dyn Fn(&AtomicInst, Region) -> FloatMode>;

fn mode_of(target: &str) -> Result<BoxedMode, String> {
    Ok(match target.strip_prefix("ptx:") {
        Some(sm) => Box::new(ptx_mode(
            PtxTarget::parse(sm).map_err(|error| error.to_string())?,
        )),
        None => Box::new(llc_mode(
            LlvmTarget::parse(target.strip_prefix("llvm:").unwrap_or(target))
                .map_err(|error| error.to_string())?,
        )),
    })
}

fn observed(result: &Json) -> Option<Observed> {
    Some(Observed {
        memory: [
            unhex(result["global"].as_str()?)?,
            unhex(result["shared"].as_str()?)?,
        ],
        out: unhex(result["out"].as_str()?)?,
    })
}

/// The outcome of a check.
#[derive(Default, Debug)]
pub struct Report {
    pub text: String,
    /// Cases that differ from the semantics or from llc, faults nobody expected, missing results.
    pub failures: usize,
}

/// Checks the harness's results against the semantics and PTX runs against llc's.
pub fn check_results(dir: &Path, results: &Json) -> Result<Report, String> {
    let (spec, cases) = regenerate(dir)?;
    let mut report = Report::default();
    let _ = writeln!(
        report.text,
        "device: {}",
        results["device"].as_str().unwrap_or("?")
    );
    let by_target: BTreeMap<&str, BTreeMap<&str, &Json>> = results["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            let cases = t["cases"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| (c["case"].as_str().unwrap_or_default(), c))
                .collect();
            (t["target"].as_str().unwrap_or_default(), cases)
        })
        .collect();
    let skipped: BTreeMap<&str, &str> = results["targets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| Some((t["target"].as_str()?, t["skipped"].as_str()?)))
        .collect();
    let llc_name = format!("llvm:{LLC_TARGET}");
    let mut details = Vec::new();
    for target in spec["targets"].as_array().into_iter().flatten() {
        let name = target["target"].as_str().unwrap_or_default();
        if let Some(reason) = skipped.get(name) {
            // The device cannot load this target's code (an SM newer than its own): nothing
            // ran, and nothing is claimed for it.
            let _ = writeln!(report.text, "{name}: not run, {reason}");
            continue;
        }
        let mode = mode_of(name)?;
        let mode: ModeFn<'_> = &*mode;
        let got = by_target.get(name);
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for entry in target["cases"].as_array().into_iter().flatten() {
            let case_name = entry["case"].as_str().unwrap_or_default();
            let case = &cases[case_name];
            let expect_fault = entry["expect_fault"] == true;
            let Some(result) = got.and_then(|g| g.get(case_name)) else {
                *counts.entry("no result").or_default() += 1;
                report.failures += 1;
                continue;
            };
            if let Some(error) = result["error"].as_str() {
                if expect_fault {
                    *counts
                        .entry("faulted as the address check predicts")
                        .or_default() += 1;
                } else {
                    *counts.entry("FAULTED").or_default() += 1;
                    report.failures += 1;
                    details.push(format!(
                        "{name} {case_name} ({}): {error}\n{}",
                        case.origin,
                        crate::cases::describe(case)
                    ));
                }
                continue;
            }
            let Some(observed) = observed(result) else {
                *counts.entry("unreadable result").or_default() += 1;
                report.failures += 1;
                continue;
            };
            let verdict = check(case, mode, &observed);
            let label = match &verdict {
                Verdict::Matches { .. } if expect_fault => "ran although a fault was predicted",
                Verdict::Matches { .. } => "as the semantics say",
                Verdict::FlushToZero => "as the semantics say with FTZ (documented)",
                Verdict::TwoNanMinMax => "DIFFER: min/max of two NaNs",
                Verdict::Differs(_) => "DIFFER",
            };
            *counts.entry(label).or_default() += 1;
            match verdict {
                Verdict::Differs(differences) => {
                    report.failures += 1;
                    details.push(format!(
                        "{name} {case_name} ({}):\n{}  => {}",
                        case.origin,
                        crate::cases::describe(case),
                        differences.join("\n     ")
                    ));
                }
                Verdict::TwoNanMinMax => {
                    report.failures += 1;
                    details.push(format!(
                        "{name} {case_name} ({}): min/max of two NaNs gave a NaN other than the \
                         canonical one",
                        case.origin
                    ));
                }
                _ => {}
            }
            // Bit for bit against llc's run of the same case, where the IR defines the bytes.
            if name != llc_name {
                if let Some(other) = by_target
                    .get(llc_name.as_str())
                    .and_then(|g| g.get(case_name))
                    .and_then(|r| observed_if_ran(r))
                {
                    let differs = differ_where_defined(case, mode, &observed, &other);
                    if !differs.is_empty() {
                        *counts.entry("bits differ from llc's run").or_default() += 1;
                        details.push(format!(
                            "{name} vs {llc_name} {case_name}: {}",
                            differs.join("; ")
                        ));
                    }
                }
            }
        }
        let parts: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
        let _ = writeln!(report.text, "{name}: {}", parts.join(", "));
    }
    for detail in details.iter().take(40) {
        let _ = writeln!(report.text, "\n{detail}");
    }
    if details.len() > 40 {
        let _ = writeln!(report.text, "\n… and {} more", details.len() - 40);
    }
    let _ = writeln!(report.text, "\n{} failures", report.failures);
    Ok(report)
}

fn observed_if_ran(result: &Json) -> Option<Observed> {
    if result.get("error").is_some() {
        return None;
    }
    observed(result)
}

/// Bytes two runs disagree on where the IR defines them exactly (free NaN payloads and
/// undefined bytes aside).
fn differ_where_defined(case: &Case, mode: ModeFn<'_>, a: &Observed, b: &Observed) -> Vec<String> {
    let expected = reference(
        case,
        Semantics {
            mode,
            two_nan_min_max_any_nan: false,
        },
    );
    let mut differences = Vec::new();
    for region in [Region::Global, Region::Shared] {
        let r = region as usize;
        let differs = (0..REGION_BYTES)
            .filter(|&i| {
                expected.state[r][i] == ByteState::Exact && a.memory[r].get(i) != b.memory[r].get(i)
            })
            .count();
        if differs > 0 {
            differences.push(format!("{differs} bytes of the {} region", region.name()));
        }
    }
    let mut result_bytes = 0;
    for (index, (ty, lanes)) in expected.results.iter().enumerate() {
        let width = ty.bytes() as usize;
        for (lane, value) in lanes.iter().enumerate() {
            let at = index * crate::cases::RESULT_SLOT + lane * width;
            if value.defined
                && value.loose.is_none()
                && a.out.get(at..at + width) != b.out.get(at..at + width)
            {
                result_bytes += 1;
            }
        }
    }
    if result_bytes > 0 {
        differences.push(format!("{result_bytes} result lanes"));
    }
    differences
}

/// Whether a case has a pointer into the shared region.
fn uses_shared(case: &Case) -> bool {
    case.args.iter().any(|a| {
        matches!(
            a,
            Arg::Pointer {
                region: Region::Shared,
                ..
            }
        )
    })
}
