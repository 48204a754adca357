//! Random kernels run once each on this CPU as LLVM x86-64 code, their final memory and results
//! compared with the reference semantics (`atomir_tests::cases`), bit for bit where the IR
//! defines them. The kernels of `tests/regress/*.atom` run too (with random inputs, or those a
//! `# input %name = 0x…` line fixes).
//! `ATOMIR_CPU_CASES=N` sets the number of random cases (default [`CI_CASES`]).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

use atomir_ir::{AtomicNode, Backend, ElemType};
use atomir_llvm::{LlvmRule, LlvmTarget};
use atomir_tests::cases::{
    bind, check, describe, ieee, llvm_wrapper, lower_cases, random_case, Arg, Case, Observed,
    Verdict, REGION_BYTES,
};
use atomir_tests::judge::accepted_kernel;
use atomir_tests::specials;
use atomir_tests::tools::{require, run, workspace_root, Tool};

const CI_CASES: usize = 600;
const FIRST_SEED: u64 = 0xC0_0010;

fn regress_cases(backend: &LlvmTarget, first: usize) -> Vec<Case> {
    let dir = workspace_root().join("tests/regress");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "atom"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap();
        let module = atomir_ir::text::parse(&source).unwrap();
        for kernel in module.kernels {
            let origin = format!(
                "tests/regress/{} kernel `{}`",
                file.file_name().unwrap().to_string_lossy(),
                kernel.name
            );
            let Some(mut kernel) = accepted_kernel(backend, kernel) else {
                continue;
            };
            kernel.name = format!("case{}", first + cases.len());
            let mut case = bind(kernel, cases.len() as u64, origin);
            set_inputs(&mut case, &source);
            cases.push(case);
        }
    }
    cases
}

/// Inputs a regression file fixes: lines `# input %name = 0x7f81[, …]` (one value per lane) or
/// `# input %name = true|false` (a predicate) replace the random ones.
fn set_inputs(case: &mut Case, source: &str) {
    for line in source.lines() {
        let Some(rest) = line.strip_prefix("# input %") else {
            continue;
        };
        let (name, value) = rest.split_once(" = ").expect("`# input %name = value`");
        let Some(index) = case
            .kernel
            .params
            .iter()
            .position(|p| case.kernel.value_name(p.value) == name)
        else {
            // A parameter the target refused is dropped with the instructions that use it;
            // an input naming no parameter of the file at all is a mistake in the file.
            let declared = source
                .lines()
                .filter(|l| l.trim_start().starts_with("kernel "))
                .any(|l| l.contains(&format!("%{name}:")));
            assert!(declared, "{}: no parameter %{name}", case.origin);
            continue;
        };
        case.args[index] = match value.trim() {
            "true" => Arg::Pred(true),
            "false" => Arg::Pred(false),
            lanes => Arg::Data(
                lanes
                    .split(',')
                    .map(|v| {
                        u128::from_str_radix(v.trim().trim_start_matches("0x"), 16).expect("hex")
                    })
                    .collect(),
            ),
        };
    }
}

#[test]
fn random_kernels_run_as_the_semantics_say() {
    let (Some(llc), Some(cc)) = (require(Tool::Llc(22)), require(Tool::Cc)) else {
        return;
    };
    let wanted: usize = std::env::var("ATOMIR_CPU_CASES")
        .ok()
        .map_or(CI_CASES, |n| n.parse().expect("ATOMIR_CPU_CASES=N"));
    let target = LlvmTarget::parse("x86_64@22").unwrap();
    let mut cases = Vec::new();
    let mut seed = FIRST_SEED;
    while cases.len() < wanted {
        let name = format!("case{}", cases.len());
        if let Some(case) = random_case(seed, &target, &name) {
            cases.push(case);
        }
        seed += 1;
    }
    let random = cases.len();
    let regress = regress_cases(&target, cases.len());
    cases.extend(regress);
    let summary = format!(
        "{} cases ({random} random, {} from tests/regress)",
        cases.len(),
        cases.len() - random
    );
    run_and_check(&target, &cases, "llvm_kernels_cpu", &summary, &llc, &cc);
}

/// Float min/max (every spelling, `fminimum`/`fmaximum` and the `…num` forms included) and
/// add/sub on every pair of special values (`atomir_tests::specials`): NaNs of different
/// payloads, quiet and signalling, both zeros, subnormals, infinities, ties.
#[test]
fn float_special_values_run_as_the_semantics_say() {
    let (Some(llc), Some(cc)) = (require(Tool::Llc(22)), require(Tool::Cc)) else {
        return;
    };
    let target = LlvmTarget::parse("x86_64@22").unwrap();
    // x86-64 refuses `bfloat` values (llc quiets a signalling NaN moving them through `float`):
    // every special-value op on them is refused by that rule, and no other type is refused.
    for ty in specials::TYPES {
        for op in specials::OPS {
            let verdict = Backend::legalize(&target, &AtomicNode::new(op, ty));
            match (ty, verdict) {
                (ElemType::Bf16 | ElemType::Bf16x2, Err(refusal)) => assert_eq!(
                    refusal.rule,
                    LlvmRule::X86Bf16QuietsSnan.into(),
                    "{op} {ty}: {refusal}"
                ),
                (ElemType::Bf16 | ElemType::Bf16x2, Ok(_)) => {
                    panic!("{op} {ty}: x86-64 takes a `bfloat` value")
                }
                (_, Err(refusal)) => panic!("{op} {ty}: refused: {refusal}"),
                (_, Ok(_)) => {}
            }
        }
    }
    let cases = specials::cases(&target, 0);
    let taken = |ty: &&ElemType| !matches!(ty, ElemType::Bf16 | ElemType::Bf16x2);
    assert_eq!(
        cases.len(),
        specials::TYPES
            .iter()
            .filter(taken)
            .map(|ty| specials::OPS.len()
                * specials::pairs(*ty).len().div_ceil(specials::PER_KERNEL))
            .sum::<usize>(),
        "x86-64 takes every special-value kernel but the bf16 ones"
    );
    let summary = format!("{} special-value cases", cases.len());
    run_and_check(
        &target,
        &cases,
        "llvm_kernels_cpu_specials",
        &summary,
        &llc,
        &cc,
    );
}

/// Compiles `cases` for x86-64, runs each once, and fails with every case that differs from
/// the semantics.
fn run_and_check(
    target: &LlvmTarget,
    cases: &[Case],
    scratch: &str,
    summary: &str,
    llc: &std::path::Path,
    cc: &std::path::Path,
) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(scratch);
    std::fs::create_dir_all(&dir).unwrap();
    let mut ll = lower_cases(target, cases).unwrap();
    ll.push('\n');
    for (index, case) in cases.iter().enumerate() {
        llvm_wrapper(case, &ll.clone(), index, false, &mut ll).unwrap();
    }
    let ll_path = dir.join("cases.ll");
    std::fs::write(&ll_path, &ll).unwrap();
    let obj = dir.join("cases.o");
    let (ok, message) = run(Command::new(llc)
        .args([
            "-mtriple=x86_64-unknown-linux-gnu",
            "-mattr=+cx16",
            "-filetype=obj",
        ])
        .arg(&ll_path)
        .arg("-o")
        .arg(&obj));
    assert!(ok, "llc: {message}");

    let mut header = format!(
        "#define CASES {}\n#define REGION {REGION_BYTES}\n",
        cases.len()
    );
    for index in 0..cases.len() {
        writeln!(header, "extern void atomir_case_w{index}(void);").unwrap();
    }
    header.push_str("static void *const case_fns[] = {\n");
    for index in 0..cases.len() {
        writeln!(header, "  (void *)atomir_case_w{index},").unwrap();
    }
    header.push_str("};\n");
    std::fs::write(dir.join("kernel_cases.h"), header).unwrap();
    let mut input = Vec::new();
    for case in cases {
        let args = case.arg_bytes();
        input.extend_from_slice(&(args.len() as u64).to_le_bytes());
        input.extend_from_slice(&(case.out_bytes() as u64).to_le_bytes());
        input.extend_from_slice(&args);
        input.extend_from_slice(&case.memory[0]);
        input.extend_from_slice(&case.memory[1]);
    }
    std::fs::write(dir.join("input.bin"), input).unwrap();
    let exe = dir.join("kernels_driver");
    let (ok, message) = run(Command::new(cc)
        .args(["-O1", "-I"])
        .arg(&dir)
        .arg(workspace_root().join("tests/cpu/kernels_driver.c"))
        .arg(&obj)
        .arg("-o")
        .arg(&exe)
        .arg("-latomic"));
    assert!(ok, "cc: {message}");
    let (ok, message) = run(Command::new(&exe)
        .arg(dir.join("input.bin"))
        .arg(dir.join("output.bin")));
    assert!(ok, "driver: {message}");

    let output = std::fs::read(dir.join("output.bin")).unwrap();
    let mut at = 0;
    let mut failures = Vec::new();
    let (mut passed, mut skipped, mut two_nans) = (0, 0, 0);
    for case in cases {
        let take = |at: &mut usize, n: usize| {
            let bytes = output[*at..*at + n].to_vec();
            *at += n;
            bytes
        };
        let outcome = take(&mut at, 1)[0];
        let observed = Observed {
            memory: [take(&mut at, REGION_BYTES), take(&mut at, REGION_BYTES)],
            out: take(&mut at, case.out_bytes()),
        };
        if outcome != 0 {
            let what = if outcome == 1 {
                "still running after 2 s (a loop that never ends)"
            } else {
                "died (a signal)"
            };
            failures.push(format!(
                "{} ({}):\n{}  => {what}",
                case.kernel.name,
                case.origin,
                describe(case)
            ));
            continue;
        }
        let report = |what: &str| {
            format!(
                "{} ({}):\n{}  => {what}",
                case.kernel.name,
                case.origin,
                describe(case)
            )
        };
        match check(case, &ieee, &observed) {
            Verdict::Matches { undefined } => {
                passed += 1;
                skipped += undefined;
            }
            // x86-64 has no flush-to-zero mode: a run that only that explains still differs.
            Verdict::FlushToZero => failures.push(report("differs unless subnormals flush")),
            Verdict::TwoNanMinMax => {
                two_nans += 1;
                failures.push(report(
                    "float min/max of two NaNs gives an operand NaN, not the canonical quiet NaN",
                ));
            }
            Verdict::Differs(differences) => failures.push(format!(
                "{} ({}):\n{}  => {}",
                case.kernel.name,
                case.origin,
                describe(case),
                differences.join("\n     ")
            )),
        }
    }
    assert_eq!(at, output.len());
    println!(
        "llvm:x86_64@22: {summary}: {passed} as the semantics say ({skipped} undefined result \
         lanes not compared), {} differ ({two_nans} of them only in min/max of two NaNs)",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} cases differ from the semantics:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
