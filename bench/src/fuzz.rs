//! The fuzz run: mutated text and kernels built (and broken) through the public API, through
//! parse, print/re-parse, verify and lowering for every target.
//!
//! Each input is one of two kinds, by seed:
//! - **text**: the text of a random valid module (`atomir_tests::random`) or an example, hit by
//!   a few mutations (bytes flipped, tokens and names inserted, spans deleted, lines duplicated,
//!   dropped, swapped or spliced from another module, truncation);
//! - **built**: a random valid module built in code, then (most of the time) broken through the
//!   public API: ids out of range, vector lists and literals from another kernel, a `v4` node
//!   with a two-element list, operands, results and parameters of the wrong type, `add` on
//!   `b128`, `inc` on `s32`, a `u32` as an address, a predicate that is not `pred`, `cas`
//!   without its new value, a result used before it is defined, a literal too wide for its type,
//!   duplicate names, a hint on shared memory.
//!
//! For each input: parse (text), verify, print, re-parse the print (the module must come back
//! the same, and the print must be a fixed point), and lowering for every chosen target when
//! the module verifies. Every stage runs under `catch_unwind`: a panic is counted with its stage
//! and kept as a sample. An input that takes longer than [`Limits::slow`] is a hang.
//!
//! A module that does NOT verify cannot be lowered (lowering takes the verifier's proof); its
//! instructions are still put to every chosen target's legality queries, which take any kernel.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use atomir_ir::{
    text, verify, AddressSpace, AtomicInst, AtomicOp, Backend, CacheHint, Constant, ElemType, Inst,
    InstData, Kernel, LowerOptions, MemoryOrder, Module, Operand, Predicate, Scalar, Value,
    ValueDef, ValueType, VectorShape,
};
use atomir_tests::random::{self, same_module, Config, Rng};

mod counts;
mod llvm_ir;
mod ptx;

pub use counts::Counts;

/// A backend for one target.
pub type TargetBackend = atomir::Target;

/// Thresholds of a run.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// An input that takes more CPU time than this (the least of three runs) is a hang.
    pub slow: Duration,
    /// Targets each verified module is lowered for (all of them when 0): a rotating subset,
    /// so that a short run still reaches every target.
    pub targets_per_input: usize,
}

/// Runs `f`, turning a panic into its message.
pub(crate) fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic without a message".into())
    })
}

// ---- text mutations ----------------------------------------------------------------------------

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    "(",
    ")",
    "%",
    "%x",
    "%$",
    "%_",
    "%0",
    "@",
    "@!",
    "=",
    ":",
    "\n",
    "#",
    " ",
    "kernel",
    "kernel k(",
    "atomic.",
    "atomic.add.u32",
    "atomic.cas.b128",
    ".u32",
    ".b128",
    ".s32",
    ".v2",
    ".v4",
    ".v8",
    ".global",
    ".shared",
    ".shared_cluster",
    ".generic",
    ".seq_cst",
    ".acquire",
    ".system",
    ".block",
    ".evict_last",
    ".no_allocate",
    "-",
    "0x",
    "0X",
    "1e",
    "1e-400",
    "nan",
    "-nan",
    "inf",
    "-inf",
    "-0",
    "99999999999999999999999999999999999999999",
    "0xffffffffffffffffffffffffffffffffff",
    "340282366920938463463374607431768211456",
    "ptr.",
    "ptr.global",
    "ptr.shared",
    "pred",
    "u32",
    "v4.f32",
    "v2.b64",
    "f16x2",
    "é",
    "\u{0}",
    "\t",
    ".",
    "..",
    "{{{{{{",
    "}}}}",
    "§",
    "\r\n",
    "%WARP_SZ",
    "%tid",
    "%a$b",
    "%a_b",
];

pub(crate) fn mutate_text(rng: &mut Rng, text: &str, other: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = bytes.len().max(1);
        match rng.below(9) {
            0 if !bytes.is_empty() => {
                let at = rng.below(len);
                bytes[at] = rng.next_u64() as u8;
            }
            1 | 2 => {
                let at = rng.below(bytes.len() + 1);
                let token = *rng.pick(TOKENS);
                bytes.splice(at..at, token.bytes());
            }
            3 if !bytes.is_empty() => {
                let at = rng.below(len);
                let end = (at + 1 + rng.below(12)).min(bytes.len());
                bytes.drain(at..end);
            }
            4 if rng.percent(20) => bytes.truncate(rng.below(len)),
            _ => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let mut lines: Vec<String> = text.split('\n').map(String::from).collect();
                let other: Vec<&str> = other.lines().collect();
                let at = rng.below(lines.len());
                match rng.below(4) {
                    0 => lines.insert(at, lines[at].clone()),
                    1 => {
                        lines.remove(at);
                    }
                    2 => {
                        let with = rng.below(lines.len());
                        lines.swap(at, with);
                    }
                    _ if !other.is_empty() => {
                        lines.insert(at, rng.pick(&other).to_string());
                    }
                    _ => {}
                }
                bytes = lines.join("\n").into_bytes();
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

// ---- API mutations -----------------------------------------------------------------------------

fn any_inst(rng: &mut Rng, kernel: &Kernel) -> Option<Inst> {
    let count = kernel.insts.len();
    (count > 0).then(|| Inst::from_u32(rng.below(count) as u32))
}

/// A value of `kernel` whose type is not `pred`, not a pointer, or not `ty`, when there is one.
fn value_where(
    rng: &mut Rng,
    kernel: &Kernel,
    wanted: impl Fn(ValueType) -> bool,
) -> Option<Value> {
    let found: Vec<Value> = kernel
        .values
        .iter()
        .filter(|(_, d)| wanted(d.ty))
        .map(|(v, _)| v)
        .collect();
    (!found.is_empty()).then(|| *rng.pick(&found))
}

/// Breaks a valid module through the public API; returns what was done.
fn break_module(rng: &mut Rng, module: &mut Module, donor: &Module) -> &'static str {
    let k = rng.below(module.kernels.len());
    let kernel = &mut module.kernels[k];
    let Some(inst) = any_inst(rng, kernel) else {
        return "none";
    };
    let far_value = Value::from_u32(10_000 + rng.below(1000) as u32);
    let what = rng.below(27);
    let node = match &mut kernel.insts[inst] {
        InstData::Atomic(node) => node,
        InstData::Fence(fence) => {
            fence.order = MemoryOrder::Relaxed;
            return "relaxed fence";
        }
    };
    match what {
        0..=4 => break_reference(rng, node, donor, what, far_value),
        6 | 7 | 11 | 12 | 18 | 21..=25 => misfit_fields(node, what),
        15..=17 | 19 => {
            let result = node.result;
            break_records(rng, kernel, result, what)
        }
        5 | 8..=10 | 13 | 14 | 20 => break_with_kernel(rng, kernel, inst, what, far_value),
        _ => {
            let name = module.kernels[0].name.clone();
            module.kernels.push(Kernel::new(name));
            "duplicate kernel name"
        }
    }
}

/// Points one of the node's references out of its kernel's range, or into another kernel's
/// pools (`what` in 0..=4).
fn break_reference(
    rng: &mut Rng,
    node: &mut AtomicInst,
    donor: &Module,
    what: usize,
    far_value: Value,
) -> &'static str {
    match what {
        0 => {
            node.addr = far_value;
            "address id out of range"
        }
        1 => {
            node.operand = Some(Operand::Scalar(Scalar::Value(far_value)));
            "operand id out of range"
        }
        2 => {
            node.operand = Some(Operand::Scalar(Scalar::Const(Constant::from_u32(50_000))));
            "literal id out of range"
        }
        3 => {
            // A list from another kernel's pool (its range may not exist here).
            let mut other = donor.kernels[0].clone();
            let elements = vec![Scalar::Value(Value::from_u32(0)); 1 + rng.below(8)];
            for _ in 0..rng.below(50) {
                other.vector(&elements);
            }
            node.operand = Some(other.vector(&elements));
            "vector list from another kernel"
        }
        _ => {
            let constant = donor.kernels[0].constants.keys().next_back();
            node.operand = Some(Operand::Scalar(Scalar::Const(
                constant.unwrap_or_else(|| Constant::from_u32(3)),
            )));
            "literal from another kernel"
        }
    }
}

/// Sets fields of the node that do not fit together: an op on a type or order it does not
/// take, a new value or operand where the op has none or needs one, a hint where the space
/// takes none.
fn misfit_fields(node: &mut AtomicInst, what: usize) -> &'static str {
    match what {
        6 => {
            node.op = AtomicOp::Add;
            node.ty = ElemType::B128;
            node.new_value = None;
            "add on b128"
        }
        7 => {
            node.op = AtomicOp::Inc;
            node.ty = ElemType::S32;
            node.new_value = None;
            "inc on s32"
        }
        11 => {
            node.op = AtomicOp::Cas;
            node.new_value = None;
            "cas without a new value"
        }
        12 => {
            node.op = AtomicOp::Exch;
            node.new_value = node.operand;
            "exch with a new value"
        }
        18 => {
            node.space = AddressSpace::Shared;
            node.hint = Some(CacheHint::EvictLast);
            "hint on shared memory"
        }
        21 => {
            node.op = AtomicOp::Load;
            "load with an operand"
        }
        22 => {
            node.op = AtomicOp::Store;
            "store (a result may be named)"
        }
        23 => {
            node.op = AtomicOp::Load;
            node.order = MemoryOrder::Release;
            node.operand = None;
            "release load"
        }
        24 => {
            node.op = AtomicOp::UsubSat;
            node.ty = ElemType::F32;
            node.new_value = None;
            "usub_sat on f32"
        }
        _ => {
            node.operand = None;
            "an operand missing"
        }
    }
}

/// Makes the kernel's records of its values and parameters contradict each other or the
/// node's `result`.
fn break_records(
    rng: &mut Rng,
    kernel: &mut Kernel,
    result: Option<Value>,
    what: usize,
) -> &'static str {
    match what {
        15 => {
            if let Some(result) = result {
                kernel.values[result].ty = ValueType::Pred;
            }
            "result of the wrong type"
        }
        16 => {
            if let Some(result) = result {
                kernel.values[result].def = ValueDef::Param(7);
            }
            "result recorded as a parameter"
        }
        17 => {
            if let Some(param) = kernel.params.first_mut() {
                param.ty = random::random_value_type(rng);
            }
            "parameter type differs from its value's"
        }
        _ => {
            let name = kernel.values.values().next().map(|d| d.name.clone());
            if let (Some(name), Some(last)) = (name, kernel.values.keys().next_back()) {
                kernel.values[last].name = name;
            }
            "duplicate value name"
        }
    }
}

/// Gives the node `inst` something of the kernel it may not take: a value, parameter or
/// constant of the wrong type or width, a list of the wrong length, a value defined later.
fn break_with_kernel(
    rng: &mut Rng,
    kernel: &mut Kernel,
    inst: Inst,
    what: usize,
    far_value: Value,
) -> &'static str {
    match what {
        5 => {
            if let Some(node) = kernel.atomic_mut(inst) {
                node.shape = VectorShape::V4;
            }
            let c = kernel.constant(1);
            let list = kernel.vector(&[Scalar::Const(c), Scalar::Const(c)]);
            if let Some(node) = kernel.atomic_mut(inst) {
                node.operand = Some(list);
            }
            "v4 node with a two-element list"
        }
        8 => {
            let address = kernel.add_param("not_a_pointer", ValueType::scalar(ElemType::U32));
            if let Some(node) = kernel.atomic_mut(inst) {
                node.addr = address;
            }
            "u32 used as an address"
        }
        9 => {
            let ty = *rng.pick(ElemType::ALL);
            let value =
                value_where(rng, kernel, |t| t != ValueType::scalar(ty)).unwrap_or(far_value);
            if let Some(node) = kernel.atomic_mut(inst) {
                node.ty = ty;
                node.operand = Some(value.into());
            }
            "operand of another type"
        }
        10 => {
            let value = value_where(rng, kernel, |t| t != ValueType::Pred).unwrap_or(far_value);
            let negated = rng.percent(50);
            if let Some(node) = kernel.atomic_mut(inst) {
                node.predicate = Some(Predicate { value, negated });
            }
            "predicate that is not pred"
        }
        13 => {
            let later = kernel.values.keys().next_back().unwrap_or(far_value);
            if let Some(node) = kernel.insts.values_mut().find_map(InstData::as_atomic_mut) {
                node.operand = Some(later.into());
            }
            "value used before it is defined"
        }
        14 => {
            let c = kernel.constant(u128::MAX);
            let ty = *rng.pick(&[ElemType::U8, ElemType::F16, ElemType::S32, ElemType::F64]);
            if let Some(node) = kernel.atomic_mut(inst) {
                node.shape = VectorShape::Scalar;
                node.ty = ty;
                node.operand = Some(Operand::Scalar(Scalar::Const(c)));
            }
            "literal too wide"
        }
        _ => {
            let parameter = kernel.params.first().map_or(far_value, |p| p.value);
            if let Some(node) = kernel.atomic_mut(inst) {
                node.result = Some(parameter);
            }
            "a parameter as a result"
        }
    }
}

// ---- one input ---------------------------------------------------------------------------------

/// The time this thread spent on a CPU, from `/proc/thread-self/schedstat` (nanoseconds), so
/// that other work on a busy machine does not make an input look slow; wall time where that
/// file is missing.
enum Clock {
    Cpu(u64),
    Wall(Instant),
}

fn thread_cpu_nanos() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

impl Clock {
    fn start() -> Clock {
        match thread_cpu_nanos() {
            Some(nanos) => Clock::Cpu(nanos),
            None => Clock::Wall(Instant::now()),
        }
    }

    fn elapsed(&self) -> Duration {
        match self {
            Clock::Cpu(start) => {
                Duration::from_nanos(thread_cpu_nanos().unwrap_or(*start).saturating_sub(*start))
            }
            Clock::Wall(start) => start.elapsed(),
        }
    }
}

/// Everything one fuzz worker keeps between inputs.
pub struct Fuzzer {
    targets: Vec<(String, TargetBackend)>,
    examples: Vec<String>,
    limits: Limits,
    config: Config,
    out: String,
}

impl Fuzzer {
    pub fn new(
        targets: Vec<(String, TargetBackend)>,
        examples: Vec<String>,
        limits: Limits,
    ) -> Self {
        Fuzzer {
            targets,
            examples,
            limits,
            config: Config::default(),
            out: String::new(),
        }
    }

    /// Runs inputs `first..first + count` (each input's content depends only on its number).
    pub fn run(&mut self, first: u64, count: u64) -> Counts {
        let mut counts = Counts::default();
        for number in first..first + count {
            self.input(number, &mut counts);
        }
        counts
    }

    fn input(&mut self, number: u64, counts: &mut Counts) {
        counts.inputs += 1;
        let mut took = self.input_once(number, counts);
        // A slow input is run again, counting nothing: a cold cache or a page fault makes one
        // run slow, a real hang makes every run slow.
        for _ in 0..2 {
            if took <= self.limits.slow {
                break;
            }
            took = took.min(self.input_once(number, &mut Counts::default()));
        }
        counts.slowest = counts.slowest.max(took);
        if took > self.limits.slow {
            counts.hangs += 1;
            counts.sample(
                "hang",
                &format!("input {number} (run it alone with --first {number} --inputs 1)"),
                format!("took {took:.1?} (the least of three runs)"),
            );
        }
    }

    /// One run of input `number`; returns how long it took.
    fn input_once(&mut self, number: u64, counts: &mut Counts) -> Duration {
        let started = Clock::start();
        let mut rng = Rng::new(number.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xF022);
        let generated = random::module(rng.next_u64(), &self.config);
        if number % 10 == 9 {
            counts.ptx_inputs += 1;
            self.ptx_input(&mut rng, number, &generated.module, counts);
            return started.elapsed();
        }
        if number % 10 == 8 {
            llvm_ir::input(&mut rng, &generated.module, counts);
            return started.elapsed();
        }
        let mut source = None;
        let mut what = "valid";
        let module = if rng.percent(50) {
            counts.text_inputs += 1;
            let base = if rng.percent(85) || self.examples.is_empty() {
                generated.text.clone()
            } else {
                rng.pick(&self.examples).clone()
            };
            let other = random::module(rng.next_u64(), &self.config).text;
            let text = mutate_text(&mut rng, &base, &other);
            let parsed = guarded(|| text::parse(&text));
            source = Some(text);
            match parsed {
                Err(message) => {
                    let label = source.unwrap_or_default();
                    self.panicked(counts, "parse", &label, message);
                    return started.elapsed();
                }
                Ok(Err(_)) => return started.elapsed(),
                Ok(Ok(module)) => module,
            }
        } else {
            counts.built_inputs += 1;
            let mut module = generated.module;
            if rng.percent(70) {
                let donor = random::module(rng.next_u64(), &self.config).module;
                what = break_module(&mut rng, &mut module, &donor);
                if rng.percent(25) {
                    break_module(&mut rng, &mut module, &donor);
                }
            }
            module
        };
        // What a finding shows of the input: its text, or how it was built and broken.
        let label = |module: &Module| match &source {
            Some(text) => text.clone(),
            None => format!(
                "(built in code, input {number}: {what})\n{}",
                guarded(|| text::print(module)).unwrap_or_default()
            ),
        };
        counts.parsed += 1;
        let verified = match guarded(|| verify::verify(&module)) {
            Err(message) => {
                self.panicked(counts, "verify", &label(&module), message);
                return started.elapsed();
            }
            Ok(result) => result.ok(),
        };
        let printed = match guarded(|| text::print(&module)) {
            Err(message) => {
                self.panicked(counts, "print", &label(&module), message);
                return started.elapsed();
            }
            Ok(printed) => printed,
        };
        if verified.is_some() {
            counts.verified += 1;
            self.round_trip(counts, &module, &printed, &label);
        }
        for index in self.chosen_targets(number) {
            let (name, backend) = &self.targets[index];
            self.out.clear();
            let out = &mut self.out;
            let options = LowerOptions::fragment().with_complete_module(number.is_multiple_of(2));
            let Some(verified) = &verified else {
                // Only a verified module can be lowered (the type says so); the legality
                // queries take any kernel and must answer every one without panicking.
                counts.unverified_queries += 1;
                let legalized = guarded(|| {
                    for kernel in &module.kernels {
                        for inst in kernel.insts.keys() {
                            let _ = backend.legalize_inst(kernel, inst);
                        }
                        let _ = backend.legalize_signature(&kernel.params);
                    }
                });
                if let Err(message) = legalized {
                    let stage = format!("legalize unverified {name}");
                    *counts.panics.entry(stage.clone()).or_default() += 1;
                    counts.sample(&format!("panic in {stage}"), &label(&module), message);
                }
                continue;
            };
            let lowered = guarded(|| backend.lower(verified, &options, out).is_ok());
            counts.lowerings += 1;
            match lowered {
                Ok(true) => {}
                Ok(false) => counts.refusals += 1,
                Err(message) => {
                    *counts.panics.entry(format!("lower {name}")).or_default() += 1;
                    counts.sample(&format!("panic in lower {name}"), &label(&module), message);
                }
            }
        }
        started.elapsed()
    }

    fn chosen_targets(&self, number: u64) -> Vec<usize> {
        let all = self.targets.len();
        let take = match self.limits.targets_per_input {
            0 => all,
            n => n.min(all),
        };
        let start = (number as usize).wrapping_mul(take) % all.max(1);
        (0..take).map(|i| (start + i) % all).collect()
    }

    fn round_trip(
        &mut self,
        counts: &mut Counts,
        module: &Module,
        printed: &str,
        label: &dyn Fn(&Module) -> String,
    ) {
        let reparsed = match guarded(|| text::parse(printed)) {
            Err(message) => return self.panicked(counts, "re-parse", &label(module), message),
            Ok(Err(errors)) => {
                counts.round_trip_mismatches += 1;
                return counts.sample(
                    "round-trip mismatch",
                    &label(module),
                    format!("the print does not parse: {}", errors[0]),
                );
            }
            Ok(Ok(reparsed)) => reparsed,
        };
        let problem = match same_module(module, &reparsed) {
            Err(difference) => Some(difference),
            Ok(()) if text::print(&reparsed) != printed => {
                Some("the print is not a fixed point".to_string())
            }
            Ok(()) if verify::verify(&reparsed).is_err() => {
                Some("the re-parsed module does not verify".to_string())
            }
            Ok(()) => None,
        };
        if let Some(problem) = problem {
            counts.round_trip_mismatches += 1;
            counts.sample("round-trip mismatch", &label(module), problem);
        }
    }

    fn panicked(&self, counts: &mut Counts, stage: &str, label: &str, message: String) {
        *counts.panics.entry(stage.to_string()).or_default() += 1;
        counts.sample(&format!("panic in {stage}"), label, message);
    }
}

/// Every target the fuzz run lowers for: the backends' targets the judge test uses.
pub fn all_targets() -> Vec<(String, TargetBackend)> {
    atomir_tests::judge::all_target_names()
        .into_iter()
        .map(|name| {
            let backend = crate::targets::backend(&name).expect("a known target");
            (name, backend)
        })
        .collect()
}

/// The example kernels, as text seeds for mutation.
pub fn examples() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "atom"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .collect();
    found.sort();
    found
}

/// Runs `count` inputs from `first` on `threads` threads; panic messages are not printed
/// while it runs (each is counted and sampled instead).
pub fn run_parallel(first: u64, count: u64, threads: usize, limits: Limits) -> Counts {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let threads = threads.max(1) as u64;
    let per = count.div_ceil(threads);
    let examples = examples();
    let counts = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let examples = examples.clone();
                scope.spawn(move || {
                    let start = first + t * per;
                    let end = (start + per).min(first + count);
                    let mut fuzzer = Fuzzer::new(all_targets(), examples, limits);
                    fuzzer.run(start, end.saturating_sub(start))
                })
            })
            .collect();
        let mut total = Counts::default();
        for handle in handles {
            total.merge(handle.join().expect("fuzz worker"));
        }
        total
    });
    std::panic::set_hook(hook);
    counts
}
