//! Writes and checks the GPU harness's cases (`tests/gpu/harness.py` runs them).
//!
//! - `gpu_cases gen DIR TARGET...`: for each target, one module `DIR/<target>.ptx` of per-thread
//!   test entries (see `atomir_tests::per_thread`) and `DIR/<target>.json` with every
//!   case's inputs: the initial memory, each thread's address offset and operands.
//! - `gpu_cases gen-cubin DIR TARGET...`: the same, and the module assembled here by ptxas
//!   into `DIR/<sm>.cubin`, which the cases then name (for ISA versions the device's driver
//!   cannot JIT-compile).
//! - `gpu_cases check DIR RESULTS...`: reads what the harness returned (final memory and every
//!   thread's old values) and checks it against `atomir_ir::semantics`: for each element (each
//!   lane of a packed type), the old values and the final value must form a valid
//!   linearization: an order of the threads in which each saw the value the previous one left.
//!   That is an Euler trail from the initial to the final value over the edges
//!   `old -> apply(op, old, operand)`, one per thread. Cases whose result is unused use only
//!   operations whose final value does not depend on the order, and check it exactly.
//! - `gpu_cases simulate DIR SM OUT`: results as a sequential run in thread order would give
//!   them (a self-test of `check`, which must accept them).
//! - `gpu_cases dump TARGET FILE`: the whole lowering matrix for `ptx:TARGET` as one module.
//! - `gpu_cases kernels-gen DIR [PER_POOL [FIRST_SEED]]`, `kernels-check DIR RESULTS`,
//!   `kernels-simulate DIR OUT`: the differential of random kernels, run as one thread as our PTX
//!   for every SM and as llc's PTX from our LLVM IR (see `atomir_tests::gpu_kernels`).
//! - `gpu_cases litmus-gen DIR [TESTS]`, `litmus-check DIR RESULTS [TESTS] [--strict]`,
//!   `litmus-simulate OUT [TESTS]`: litmus tests of the memory model (default TESTS:
//!   `tests/gpu/litmus`; see `atomir_tests::litmus`); `litmus-llvm-gen DIR [TESTS]`: the ones
//!   written as LLVM IR, compiled by llc 22 as they are and after `atomir fix` (default TESTS:
//!   `tests/gpu/litmus-llvm`; see `atomir_tests::litmus::llvm`).

use std::collections::HashMap;
use std::fmt::Write as _;

use atomir_ir::matrix::{cells, Cell};
use atomir_ir::semantics::{apply, width_mask};
use atomir_ir::{
    AddressSpace, AtomicOp, Backend, ElemType, MemoryOrder, Module, Scope, VectorShape,
};
use atomir_ptx::PtxTarget;
use atomir_tests::gpu_kernels;
use atomir_tests::linearize::Linearizer;
use atomir_tests::litmus;
use atomir_tests::per_thread::lower_per_thread;
use atomir_tests::ptx::{legalize_cells, module_text};
use serde_json::{json, Value as Json};
use std::path::Path;

const THREADS: usize = 512;
/// Random kernels per pool of the kernel differential: about two minutes on the device.
const KERNEL_CASES_PER_POOL: usize = 80;
const KERNEL_FIRST_SEED: u64 = 0x6_0010;
const SLOTS: usize = 4;
/// The litmus tests, relative to the workspace root.
const LITMUS_TESTS: &str = "tests/gpu/litmus";

/// A path as given, or relative to the workspace root where it does not exist as given.
fn workspace_path(path: &str) -> std::path::PathBuf {
    let given = Path::new(path);
    if given.exists() {
        given.to_path_buf()
    } else {
        atomir_tests::tools::workspace_root().join(path)
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("dump") if args.len() == 4 => {
            let backend = parse_target(&args[2]);
            let all: Vec<_> = cells().collect();
            let (_, module) = legalize_cells(&backend, &all);
            write(&args[3], &module_text(&backend, &module));
        }
        Some("gen") if args.len() >= 4 => {
            for target in &args[3..] {
                generate(&args[2], parse_target(target), false);
            }
        }
        Some("gen-cubin") if args.len() >= 4 => {
            for target in &args[3..] {
                generate(&args[2], parse_target(target), true);
            }
        }
        Some("check") if args.len() >= 4 => {
            let mut failed = 0;
            for results in &args[3..] {
                failed += check(&args[2], results);
            }
            if failed > 0 {
                fail(&format!("{failed} cases failed"));
            }
        }
        Some("simulate") if args.len() == 5 => simulate(&args[2], &args[3], &args[4]),
        Some("kernels-gen") if (3..=5).contains(&args.len()) => {
            let per_pool = args.get(3).map_or(KERNEL_CASES_PER_POOL, |n| {
                n.parse().unwrap_or_else(|_| fail("PER_POOL is a number"))
            });
            let first_seed = args.get(4).map_or(KERNEL_FIRST_SEED, |n| {
                n.parse().unwrap_or_else(|_| fail("FIRST_SEED is a number"))
            });
            match gpu_kernels::generate(Path::new(&args[2]), per_pool, first_seed) {
                Ok(lines) => lines.iter().for_each(|l| println!("{l}")),
                Err(e) => fail(&e),
            }
        }
        Some("kernels-simulate") if args.len() == 4 => {
            let results = gpu_kernels::simulate(Path::new(&args[2])).unwrap_or_else(|e| fail(&e));
            write(&args[3], &results.to_string());
        }
        Some("kernels-check") if args.len() == 4 => {
            let text = std::fs::read_to_string(&args[3]).unwrap_or_else(|e| fail(&e.to_string()));
            let results: Json =
                serde_json::from_str(&text).unwrap_or_else(|e| fail(&e.to_string()));
            let report = gpu_kernels::check_results(Path::new(&args[2]), &results)
                .unwrap_or_else(|e| fail(&e));
            print!("{}", report.text);
            if report.failures > 0 {
                std::process::exit(1);
            }
        }
        Some("litmus-gen") if (3..=4).contains(&args.len()) => {
            let tests = args.get(3).map_or(LITMUS_TESTS, String::as_str);
            let lines = litmus::generate(&workspace_path(tests), Path::new(&args[2]))
                .unwrap_or_else(|e| fail(&e));
            lines.iter().for_each(|l| println!("{l}"));
        }
        Some("litmus-llvm-gen") if (3..=4).contains(&args.len()) => {
            let tests = args.get(3).map_or(litmus::llvm::TESTS, String::as_str);
            let lines = litmus::llvm::generate(&workspace_path(tests), Path::new(&args[2]))
                .unwrap_or_else(|e| fail(&e));
            lines.iter().for_each(|l| println!("{l}"));
        }
        Some("litmus-simulate") if (3..=4).contains(&args.len()) => {
            let tests = args.get(3).map_or(LITMUS_TESTS, String::as_str);
            let results = litmus::simulate(&workspace_path(tests), 1000).unwrap_or_else(|e| fail(&e));
            write(&args[2], &results.to_string());
        }
        Some("litmus-check") if (4..=6).contains(&args.len()) => {
            let strict = args[4..].iter().any(|a| a == "--strict");
            let tests = args[4..]
                .iter()
                .find(|a| *a != "--strict")
                .map_or(LITMUS_TESTS, String::as_str);
            let text = std::fs::read_to_string(&args[3]).unwrap_or_else(|e| fail(&format!("{}: {e}", args[3])));
            let results: Json =
                serde_json::from_str(&text).unwrap_or_else(|e| fail(&e.to_string()));
            let report = litmus::check(Path::new(&args[2]), &workspace_path(tests), &results).unwrap_or_else(|e| fail(&e));
            print!("{}", report.text);
            if report.failures > 0 || (strict && report.toothless > 0) {
                std::process::exit(1);
            }
        }
        _ => fail(
            "usage: gpu_cases gen DIR TARGET... | gen-cubin DIR TARGET... | check DIR RESULTS... | simulate DIR SM OUT | \
             dump TARGET FILE | kernels-gen DIR [PER_POOL [FIRST_SEED]] | kernels-check DIR \
             RESULTS | kernels-simulate DIR OUT | litmus-gen DIR [TESTS] | litmus-llvm-gen DIR [TESTS] | litmus-simulate OUT [TESTS] | litmus-check DIR RESULTS [TESTS] [--strict]",
        ),
    }
}

fn parse_target(text: &str) -> PtxTarget {
    PtxTarget::parse(text).unwrap_or_else(|e| fail(e.message()))
}

fn write(path: &str, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
}

fn fail(message: &str) -> ! {
    eprintln!("gpu_cases: {message}");
    std::process::exit(2)
}

/// xorshift64*: deterministic operands per case.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn wide(&mut self) -> u128 {
        (u128::from(self.next()) << 64) | u128::from(self.next())
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The bits of a small float value of a scalar float type.
fn float_bits(ty: ElemType, value: f32) -> u128 {
    match ty {
        ElemType::F16 => u128::from(half::f16::from_f32(value).to_bits()),
        ElemType::Bf16 => u128::from(half::bf16::from_f32(value).to_bits()),
        ElemType::F32 => u128::from(value.to_bits()),
        _ => u128::from(f64::from(value).to_bits()),
    }
}

/// One element value for `cell`: small exact floats (with signed zeros for min/max), small
/// integers where collisions make the check interesting (cas, inc/dec bounds), random bits else.
/// With `subnormal_f32_add`, f32 add/sub values are subnormals instead (the same small integers
/// times 2^-149), whose sums stay exact: a flushing add leaves zeros, an exact one does not.
fn element_value(cell: &Cell, rng: &mut Rng, role: Role, subnormal_f32_add: bool) -> u128 {
    let ty = cell.ty;
    if subnormal_f32_add && ty == ElemType::F32 && matches!(cell.op, AtomicOp::Add | AtomicOp::Sub)
    {
        let magnitude: i64 = match role {
            Role::Operand if !cell.result_used => 1,
            _ => rng.below(17) as i64 - 8,
        };
        let sign = if magnitude < 0 { 1u128 << 31 } else { 0 };
        return sign | u128::from(magnitude.unsigned_abs());
    }
    if ty.is_float() {
        let lane = ty.lane_type();
        let pick = |rng: &mut Rng| -> f32 {
            match (cell.op, role) {
                (AtomicOp::Add, Role::Operand) if !cell.result_used => 1.0,
                (AtomicOp::Cas, _) => [0.0, 1.5, -2.0, 4.0][rng.below(4) as usize],
                (AtomicOp::Min | AtomicOp::Max, _) => {
                    [0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 7.0, -8.0][rng.below(8) as usize]
                }
                _ => rng.below(17) as f32 - 8.0,
            }
        };
        let mut bits = 0;
        for index in 0..ty.lanes() {
            bits |= float_bits(lane, pick(rng)) << (index * lane.bits());
        }
        return bits;
    }
    let mask = width_mask(ty.bits());
    match (cell.op, role) {
        (AtomicOp::Cas, _) => u128::from(rng.below(4)),
        (AtomicOp::Inc | AtomicOp::Dec, _) => u128::from(rng.below(24)),
        (AtomicOp::Add | AtomicOp::Sub, Role::Operand) if !cell.result_used => {
            u128::from(rng.below(100))
        }
        _ => rng.wide() & mask,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Memory,
    Operand,
}

/// Whether a cell with an unused result has a final value independent of the order.
fn order_independent(cell: &Cell) -> bool {
    match cell.op {
        AtomicOp::And | AtomicOp::Or | AtomicOp::Xor | AtomicOp::Min | AtomicOp::Max => true,
        AtomicOp::Add | AtomicOp::Sub => !cell.ty.is_float() || cell.op == AtomicOp::Add,
        _ => false,
    }
}

/// The cells the GPU runs for a target: every valid op × type × shape on global or generic
/// memory at device or system scope, cycling through the orders, with the result used; plus
/// the order-independent ones with the result unused (reductions).
fn gpu_cells(backend: &PtxTarget) -> Vec<Cell> {
    let mut chosen = Vec::new();
    let mut index = 0usize;
    for &op in AtomicOp::ALL {
        for &ty in ElemType::ALL {
            for &shape in VectorShape::ALL {
                for result_used in [true, false] {
                    let cell = Cell {
                        op,
                        ty,
                        shape,
                        order: MemoryOrder::ALL[index % MemoryOrder::ALL.len()],
                        scope: if index % 3 == 2 {
                            Scope::System
                        } else {
                            Scope::Device
                        },
                        space: if index.is_multiple_of(2) {
                            AddressSpace::Global
                        } else {
                            AddressSpace::Generic
                        },
                        result_used,
                        laxity: None,
                    };
                    if !cell.is_valid() || (!result_used && !order_independent(&cell)) {
                        continue;
                    }
                    let kernel = cell.kernel();
                    let inst = kernel.insts.keys().next().expect("one instruction");
                    if backend.legalize_inst(&kernel, inst).is_ok() {
                        chosen.push(cell);
                        index += 1;
                    }
                }
            }
        }
    }
    chosen
}

fn hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len() / 2)
        .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

fn push_bits(bytes: &mut Vec<u8>, bits: u128, width: usize) {
    bytes.extend_from_slice(&bits.to_le_bytes()[..width]);
}

fn read_bits(bytes: &[u8], offset: usize, width: usize) -> u128 {
    let mut buffer = [0u8; 16];
    buffer[..width].copy_from_slice(&bytes[offset..offset + width]);
    u128::from_le_bytes(buffer)
}

/// Whether a cell's f32 add values are subnormals: where its code is exact (`.noftz`, or the
/// CAS loop of an exact add where the native one flushes), so the GPU checks that it keeps them.
fn subnormal_f32_add(target: PtxTarget, cell: &Cell) -> bool {
    target.float_mode(&cell.node()) == atomir_ir::semantics::FloatMode::Ieee
}

/// Writes the module and the cases of `target`; with `cubin`, also assembles the module here
/// with the ptxas that judges the target and points the cases at the cubin (a driver JIT-compiles
/// PTX only up to its own CUDA version's ISA: CUDA 13.0 stops at PTX 9.0).
fn generate(dir: &str, target: PtxTarget, cubin: bool) {
    let backend = target;
    let chosen = gpu_cells(&backend);
    let module = Module {
        kernels: chosen.iter().map(Cell::kernel).collect(),
    };
    let mut text = String::new();
    let verified = atomir_ir::verify::verify(&module).unwrap();
    lower_per_thread(&backend, &verified, &mut text).unwrap_or_else(|e| fail(&e.to_string()));
    write(&format!("{dir}/{}.ptx", target.sm.name()), &text);

    let mut cases = Vec::new();
    for (number, cell) in chosen.iter().enumerate() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ ((number as u64 + 1) * 0x1000_0000_01b3));
        let subnormal = subnormal_f32_add(target, cell);
        let width = cell.ty.bytes() as usize;
        let lanes = cell.shape.len();
        let stride = width * lanes;
        let mut memory = Vec::new();
        for _ in 0..SLOTS * lanes {
            push_bits(
                &mut memory,
                element_value(cell, &mut rng, Role::Memory, subnormal),
                width,
            );
        }
        let offsets: Vec<u64> = (0..THREADS)
            .map(|t| ((t % SLOTS) * stride) as u64)
            .collect();
        let mut params = vec![json!({"kind": "addr", "offsets": offsets})];
        // One parameter per vector element and operand, as `Cell::kernel` declares them (a
        // load has none, so its output pointer follows the address).
        for _ in 0..cell.op.operand_count() {
            let mut per_lane = vec![Vec::new(); lanes];
            for _ in 0..THREADS {
                for lane in per_lane.iter_mut() {
                    push_bits(
                        lane,
                        element_value(cell, &mut rng, Role::Operand, subnormal),
                        width,
                    );
                }
            }
            for lane in per_lane {
                params.push(json!({"kind": "data", "bytes": width, "data": hex(&lane)}));
            }
        }
        // The harness passes these in order, then the outputs: a count that differs from the
        // kernel's signature would shift every pointer after it.
        let declared = module.kernels[number].params.len();
        if params.len() != declared {
            fail(&format!(
                "{}: {} parameters in the case, {declared} in the kernel",
                cell.name(),
                params.len()
            ));
        }
        let results: Vec<Json> = if cell.result_used {
            vec![json!({"bytes": stride})]
        } else {
            vec![]
        };
        cases.push(json!({
            "kernel": cell.name(),
            "threads": THREADS,
            "memory": hex(&memory),
            "params": params,
            "results": results,
        }));
    }
    let mut module_name = format!("{}.ptx", target.sm.name());
    if cubin {
        let tool = atomir_tests::ptx::ptxas_for(target);
        let ptxas = tool.find().unwrap_or_else(|| {
            fail(&format!(
                "{} not found; run scripts/install-oracles",
                tool.name()
            ))
        });
        let cubin_name = format!("{}.cubin", target.sm.name());
        let (ok, output) = atomir_tests::tools::run(
            std::process::Command::new(ptxas)
                .arg(format!("-arch={}", target.sm.name()))
                .arg(format!("{dir}/{module_name}"))
                .arg("-o")
                .arg(format!("{dir}/{cubin_name}")),
        );
        if !ok {
            fail(&format!("ptxas rejected {dir}/{module_name}: {output}"));
        }
        module_name = cubin_name;
    }
    let document = json!({"target": target.to_string(), "module": module_name, "cases": cases});
    write(
        &format!("{dir}/{}.json", target.sm.name()),
        &document.to_string(),
    );
    println!("ptx:{target}: {} GPU cases", chosen.len());
}

fn cell_by_name(backend: &PtxTarget) -> HashMap<String, Cell> {
    gpu_cells(backend)
        .into_iter()
        .map(|cell| (cell.name(), cell))
        .collect()
}

/// Checks one results file; returns the number of failed cases.
fn check(dir: &str, results_path: &str) -> usize {
    let results: Json = serde_json::from_str(
        &std::fs::read_to_string(results_path)
            .unwrap_or_else(|e| fail(&format!("{results_path}: {e}"))),
    )
    .unwrap_or_else(|e| fail(&e.to_string()));
    let target = parse_target(results["target"].as_str().unwrap_or_default());
    let backend = target;
    let inputs_path = format!("{dir}/{}.json", target.sm.name());
    let inputs: Json = serde_json::from_str(
        &std::fs::read_to_string(&inputs_path)
            .unwrap_or_else(|e| fail(&format!("{inputs_path}: {e}"))),
    )
    .unwrap_or_else(|e| fail(&e.to_string()));
    let cells = cell_by_name(&backend);
    let outputs: HashMap<&str, &Json> = results["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|case| (case["kernel"].as_str().unwrap_or_default(), case))
        .collect();
    let (mut passed, mut failed) = (0, 0);
    for case in inputs["cases"].as_array().into_iter().flatten() {
        let name = case["kernel"].as_str().unwrap_or_default();
        let cell = cells[name];
        let verdict = match outputs.get(name) {
            None => Err("no result returned".to_string()),
            Some(output) => check_case(&backend, &cell, case, output),
        };
        match verdict {
            Ok(()) => passed += 1,
            Err(reason) => {
                failed += 1;
                println!("FAIL ptx:{target} {name}: {reason}");
            }
        }
    }
    println!("ptx:{target}: {passed} passed, {failed} failed");
    failed
}

fn check_case(backend: &PtxTarget, cell: &Cell, case: &Json, output: &Json) -> Result<(), String> {
    if let Some(error) = output["error"].as_str() {
        return Err(error.to_string());
    }
    let mode = backend.float_mode(&cell.node());
    let width = cell.ty.bytes() as usize;
    let lanes = cell.shape.len();
    let initial = unhex(case["memory"].as_str().unwrap_or_default());
    let last = unhex(output["memory"].as_str().unwrap_or_default());
    let params: Vec<Vec<u8>> = case["params"]
        .as_array()
        .into_iter()
        .flatten()
        .skip(1)
        .map(|p| unhex(p["data"].as_str().unwrap_or_default()))
        .collect();
    let olds = output["results"]
        .as_array()
        .and_then(|r| r.first())
        .map(|r| unhex(r.as_str().unwrap_or_default()));
    let operand = |thread: usize, lane: usize| operand_bits(&params, lane, thread, width);
    let new_value = |thread: usize, lane: usize| {
        if cell.op == AtomicOp::Cas {
            read_bits(&params[lanes + lane], thread * width, width)
        } else {
            0
        }
    };
    // Per-lane checks of packed types (each half is its own atomic element) except for the
    // moves, which treat the 32 bits as one.
    let (sub_ty, subs) = if cell.ty.is_packed() && !cell.op.is_move() {
        (cell.ty.lane_type(), 2)
    } else {
        (cell.ty, 1)
    };
    let sub_bits = sub_ty.bits();
    let sub = |bits: u128, index: u32| (bits >> (index * sub_bits)) & width_mask(sub_bits);
    let mut linearizer = Linearizer::new();
    for slot in 0..SLOTS {
        for lane in 0..lanes {
            let offset = (slot * lanes + lane) * width;
            let init = read_bits(&initial, offset, width);
            let end = read_bits(&last, offset, width);
            let threads = (slot..THREADS).step_by(SLOTS);
            for index in 0..subs {
                let (init, end) = (sub(init, index), sub(end, index));
                match &olds {
                    Some(olds) => {
                        let edges: Vec<(u128, u128)> = threads
                            .clone()
                            .map(|t| {
                                let old =
                                    sub(read_bits(olds, (t * lanes + lane) * width, width), index);
                                let new = apply(
                                    cell.op,
                                    sub_ty,
                                    old,
                                    sub(operand(t, lane), index),
                                    sub(new_value(t, lane), index),
                                    mode,
                                );
                                (old, new)
                            })
                            .collect();
                        if !linearizer.is_trail(init, end, &edges) {
                            return Err(format!(
                                "slot {slot} lane {lane}.{index}: initial {init:#x}, final {end:#x}: the old values are no linearization"
                            ));
                        }
                    }
                    None => {
                        let expected = threads.clone().fold(init, |value, t| {
                            apply(
                                cell.op,
                                sub_ty,
                                value,
                                sub(operand(t, lane), index),
                                0,
                                mode,
                            )
                        });
                        if expected != end {
                            return Err(format!(
                                "slot {slot} lane {lane}.{index}: final {end:#x}, expected {expected:#x}"
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// Runs the cases of `DIR/<sm>.json` sequentially in thread order on the reference semantics.
/// A thread's operand of one lane (the first operand parameters, one per lane); 0 for a load,
/// which has none and whose semantics do not read it.
fn operand_bits(params: &[Vec<u8>], lane: usize, thread: usize, width: usize) -> u128 {
    params
        .get(lane)
        .map_or(0, |lane| read_bits(lane, thread * width, width))
}

fn simulate(dir: &str, sm: &str, out: &str) {
    let path = format!("{dir}/{sm}.json");
    let inputs: Json = serde_json::from_str(
        &std::fs::read_to_string(&path).unwrap_or_else(|e| fail(&format!("{path}: {e}"))),
    )
    .unwrap_or_else(|e| fail(&e.to_string()));
    let target = parse_target(inputs["target"].as_str().unwrap_or_default());
    let backend = target;
    let cells = cell_by_name(&backend);
    let mut results = Vec::new();
    for case in inputs["cases"].as_array().into_iter().flatten() {
        let name = case["kernel"].as_str().unwrap_or_default();
        let cell = cells[name];
        let mode = backend.float_mode(&cell.node());
        let width = cell.ty.bytes() as usize;
        let lanes = cell.shape.len();
        let mut memory = unhex(case["memory"].as_str().unwrap_or_default());
        let params: Vec<Vec<u8>> = case["params"]
            .as_array()
            .into_iter()
            .flatten()
            .skip(1)
            .map(|p| unhex(p["data"].as_str().unwrap_or_default()))
            .collect();
        let mut olds = Vec::new();
        for thread in 0..THREADS {
            for lane in 0..lanes {
                let offset = ((thread % SLOTS) * lanes + lane) * width;
                let old = read_bits(&memory, offset, width);
                let operand = operand_bits(&params, lane, thread, width);
                let new_value = if cell.op == AtomicOp::Cas {
                    read_bits(&params[lanes + lane], thread * width, width)
                } else {
                    0
                };
                let new = apply(cell.op, cell.ty, old, operand, new_value, mode);
                memory[offset..offset + width].copy_from_slice(&new.to_le_bytes()[..width]);
                push_bits(&mut olds, old, width);
            }
        }
        let outputs: Vec<Json> = if cell.result_used {
            vec![json!(hex(&olds))]
        } else {
            vec![]
        };
        results.push(json!({"kernel": name, "memory": hex(&memory), "results": outputs}));
    }
    let document = json!({"target": target.to_string(), "cases": results});
    write(out, &document.to_string());
}
