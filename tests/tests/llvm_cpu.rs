//! The x86-64 output, run. Every cell of `llvm:x86_64@22` is either refused with a rule or run:
//! cells whose functions are identical up to their name share one function, which llc compiles
//! once; each distinct function (and a predicated variant of it, with the predicate holding and
//! not holding) is called through a uniform wrapper by the threaded C driver
//! (`tests/cpu/driver.c`), several threads contending for one memory block. Every element of a
//! vector is checked; the expectations come from `atomir_ir::semantics`.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::Instant;

use atomir_ir::matrix::{cells, Cell};
use atomir_ir::semantics::{apply_vector, width_mask, FloatMode};
use atomir_ir::{
    AtomicOp, Backend, ElemType, InstData, Kernel, LowerOptions, Module, Predicate, TypeClass,
    ValueType,
};
use atomir_llvm::LlvmTarget;
use atomir_tests::llvm::lower_module;
use atomir_tests::tools::{require, run, workspace_root, Tool};

const THREADS: usize = 4;
const ITERS: usize = 100;
/// Calls on one memory block with fixed operands.
const STEPS: usize = THREADS * ITERS;
/// Links of a cas chain: every one must succeed exactly once.
const CHAIN: usize = 200;

/// What the driver does with one function.
struct Case {
    /// Index of the function (and its wrapper) in the compiled modules.
    function: usize,
    cell: Cell,
    /// `Some(negated)` for the predicated variant.
    predicate: Option<bool>,
    /// Whether the atomic executes (the predicate holds, or there is none).
    executes: bool,
}

/// The low and high words the driver sees; must match `mix` in driver.c.
fn mix(value: u128) -> u64 {
    fn splitmix(mut x: u64) -> u64 {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }
    splitmix(value as u64 ^ splitmix((value >> 64) as u64))
}

fn float_bits(lane: ElemType, value: f64) -> u128 {
    match lane {
        ElemType::F16 => u128::from(half::f16::from_f64(value).to_bits()),
        ElemType::Bf16 => u128::from(half::bf16::from_f64(value).to_bits()),
        ElemType::F32 => u128::from((value as f32).to_bits()),
        _ => u128::from(value.to_bits()),
    }
}

/// Packs one value per lane (lane 0 lowest).
fn floats(ty: ElemType, lane_value: impl Fn(f64) -> f64) -> u128 {
    let lane = ty.lane_type();
    (0..ty.lanes()).fold(0, |acc, i| {
        acc | float_bits(lane, lane_value(f64::from(i))) << (i * lane.bits())
    })
}

/// A 64-bit pattern, widened with a distinct high half for 128-bit elements.
fn wide(low: u64) -> u128 {
    u128::from(low) | u128::from(low ^ 0xA5A5_A5A5_A5A5_A5A5) << 64
}

/// Initial memory, operand and (cas) new value of element `e`: chosen so that sequences move,
/// elements differ, float adds stay exact, and min/max meet -0/+0.
fn inputs(op: AtomicOp, ty: ElemType, e: usize) -> (u128, u128, u128) {
    let mask = width_mask(ty.bits());
    let ef = e as f64;
    let eu = e as u128;
    if ty.class() == TypeClass::Float {
        let f = |v: &dyn Fn(f64) -> f64| floats(ty, v);
        return match op {
            AtomicOp::Add => (f(&|i| -200.0 - ef - i), f(&|_| 1.0), 0),
            AtomicOp::Sub => (f(&|i| 200.0 + ef + i), f(&|_| 1.0), 0),
            AtomicOp::Min if e == 0 => (f(&|_| 0.0), f(&|_| -0.0), 0),
            AtomicOp::Max if e == 0 => (f(&|_| -0.0), f(&|_| 0.0), 0),
            AtomicOp::Min => (f(&|_| 1.0), f(&|i| ef - 3.5 + i), 0),
            AtomicOp::Max => (f(&|_| -1.0), f(&|i| ef + 0.5 + i), 0),
            AtomicOp::Cas => (f(&|_| 1.5 + ef), f(&|_| 1.5 + ef), f(&|i| -2.0 - i)),
            _ => (f(&|_| 0.5), f(&|i| 3.0 + ef + i), 0),
        };
    }
    let (init, operand, new_value) = match op {
        AtomicOp::Add | AtomicOp::Sub => (0x10 + eu, wide(0x0102_0304_0506_0708) + eu, 0),
        AtomicOp::And => (mask ^ eu, wide(0xF0F0_F0F0_F0F0_F0F0), 0),
        AtomicOp::Or | AtomicOp::Xor | AtomicOp::Nand => (
            wide(0x1111_1111_1111_1111),
            wide(0x0F0F_0F0F_0F0F_0F0F) + eu,
            0,
        ),
        AtomicOp::Inc | AtomicOp::Dec => (3 + eu, 150 + eu, 0),
        AtomicOp::Min | AtomicOp::Max => (0x7F + eu, 0x80 + eu, 0),
        AtomicOp::Exch | AtomicOp::Store | AtomicOp::Load => {
            (wide(0x33), wide(0x5A5A_5A5A_5A5A_5A5A) + eu, 0)
        }
        AtomicOp::Cas => (wide(0x44) + eu, wide(0x44) + eu, wide(0x99) + eu),
        // Repeated subtractions reach both sides of the condition.
        AtomicOp::UsubCond | AtomicOp::UsubSat => (0x90 + eu, 0x20 + eu, 0),
        AtomicOp::FMinimum | AtomicOp::FMaximum | AtomicOp::FMinimumNum | AtomicOp::FMaximumNum => {
            (0x7F + eu, 0x80 + eu, 0)
        }
    };
    (init & mask, operand & mask, new_value & mask)
}

/// First value of element `e`'s cas chain; the chain adds 1 to the low word (never a NaN).
fn chain_base(ty: ElemType, e: usize) -> u128 {
    let offset = (e as u128) * 0x100;
    let base = if ty.class() == TypeClass::Float {
        floats(ty, |_| 1.0)
    } else {
        wide(0x10)
    };
    (base + offset) & width_mask(ty.bits())
}

fn llvm_type(ty: ValueType) -> String {
    match ty {
        ValueType::Ptr(_) => "ptr".into(),
        ValueType::Pred => "i1".into(),
        ValueType::Data(ElemType::F16, _) => "half".into(),
        ValueType::Data(ElemType::Bf16, _) => "bfloat".into(),
        ValueType::Data(ElemType::F32, _) => "float".into(),
        ValueType::Data(ElemType::F64, _) => "double".into(),
        ValueType::Data(other, _) => format!("i{}", other.bits()),
    }
}

/// `void @w<index>(ptr mem, ptr args, ptr out)`: loads every parameter after the address from
/// its 16-byte slot in `args` and calls the function, whose result (if any) goes to `out`.
fn wrapper(kernel: &Kernel, index: usize, out: &mut String) {
    writeln!(
        out,
        "define void @w{index}(ptr %mem, ptr %args, ptr %out) {{"
    )
    .unwrap();
    let mut call = String::from("ptr %mem");
    for (slot, param) in kernel.params.iter().skip(1).enumerate() {
        let ty = llvm_type(param.ty);
        writeln!(
            out,
            "  %s{slot} = getelementptr i8, ptr %args, i64 {}",
            slot * 16
        )
        .unwrap();
        if param.ty == ValueType::Pred {
            writeln!(out, "  %l{slot} = load i8, ptr %s{slot}, align 16").unwrap();
            writeln!(out, "  %v{slot} = trunc i8 %l{slot} to i1").unwrap();
        } else {
            writeln!(out, "  %v{slot} = load {ty}, ptr %s{slot}, align 16").unwrap();
        }
        write!(call, ", {ty} %v{slot}").unwrap();
    }
    if kernel.insts.values().any(|inst| inst.result().is_some()) {
        call.push_str(", ptr %out");
    }
    writeln!(
        out,
        "  call void @{}({call})\n  ret void\n}}\n",
        kernel.name
    )
    .unwrap();
}

fn push_words(bytes: &mut Vec<u8>, words: &[u64]) {
    for word in words {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
}

fn push_value(bytes: &mut Vec<u8>, value: u128) {
    push_words(bytes, &[value as u64, (value >> 64) as u64]);
}

/// One record of the expectation file (layout in driver.c).
fn record(case: &Case, kernel: &Kernel, bytes: &mut Vec<u8>) {
    let cell = &case.cell;
    let elements = cell.shape.len();
    let chain = cell.op == AtomicOp::Cas && cell.result_used && case.executes;
    let slots = kernel.params.len() - 1;
    push_words(
        bytes,
        &[
            u64::from(chain),
            elements as u64,
            u64::from(cell.ty.bytes()),
            u64::from(cell.result_used),
            slots as u64,
            if chain { CHAIN } else { STEPS } as u64,
        ],
    );
    let per_element: Vec<(u128, u128, u128)> =
        (0..elements).map(|e| inputs(cell.op, cell.ty, e)).collect();
    // Slots: the operands (a load has none), the new values of a cas, then the predicate.
    let mut args = Vec::with_capacity(slots);
    if cell.op != AtomicOp::Load {
        args.extend(per_element.iter().map(|v| v.1));
    }
    if cell.op == AtomicOp::Cas {
        args.extend(per_element.iter().map(|v| v.2));
    }
    if let Some(negated) = case.predicate {
        args.push(u128::from(case.executes != negated));
    }
    assert_eq!(args.len(), slots, "{}", kernel.name);
    for arg in args {
        push_value(bytes, arg);
    }
    if chain {
        for e in 0..elements {
            let base = chain_base(cell.ty, e);
            let link = |k: usize| (base + k as u128) & width_mask(cell.ty.bits());
            let hash = (0..CHAIN).fold(0u64, |h, k| h.wrapping_add(mix(link(k))));
            push_value(bytes, base);
            push_value(bytes, base);
            push_words(bytes, &[hash]);
            push_value(bytes, link(CHAIN));
        }
        return;
    }
    let init: Vec<u128> = per_element.iter().map(|v| v.0).collect();
    let operands: Vec<u128> = per_element.iter().map(|v| v.1).collect();
    let new_values: Vec<u128> = per_element.iter().map(|v| v.2).collect();
    let mut hashes = vec![0u64; elements];
    let mut memory = init.clone();
    for _ in 0..STEPS {
        if !case.executes {
            // Not executed: memory untouched, the result reads as zero.
            for hash in &mut hashes {
                *hash = hash.wrapping_add(mix(0));
            }
            continue;
        }
        for (hash, &old) in hashes.iter_mut().zip(&memory) {
            *hash = hash.wrapping_add(mix(old));
        }
        memory = apply_vector(
            cell.op,
            cell.ty,
            &memory,
            &operands,
            &new_values,
            FloatMode::Ieee,
        )
        .to_vec();
    }
    for e in 0..elements {
        push_value(bytes, init[e]);
        push_value(bytes, 0);
        push_words(bytes, &[hashes[e]]);
        push_value(bytes, memory[e]);
    }
}

fn compile(llc: &Path, target: &LlvmTarget, ll: &Path, obj: &Path) -> Result<(), String> {
    let (ok, message) = run(Command::new(llc)
        .args(target.llc_args())
        // cmpxchg16b for the 128-bit cells.
        .arg("-mattr=+cx16")
        .arg("-filetype=obj")
        .arg(ll)
        .arg("-o")
        .arg(obj));
    if ok {
        Ok(())
    } else {
        Err(format!("llc: {message}"))
    }
}

#[test]
fn every_x86_64_cell_runs_correctly_under_contention() {
    let (Some(llc), Some(cc)) = (require(Tool::Llc(22)), require(Tool::Cc)) else {
        return;
    };
    let started = Instant::now();
    let target = LlvmTarget::parse("x86_64@22").unwrap();
    let options = LowerOptions::default();
    let mut seen = HashSet::new();
    let mut kernels: Vec<Kernel> = Vec::new();
    let mut cases: Vec<Case> = Vec::new();
    let (mut total, mut refused, mut shared) = (0, 0, 0);
    let mut module = Module::default();
    let mut text = String::new();
    for cell in cells() {
        total += 1;
        module.kernels.clear();
        module.kernels.push(cell.kernel());
        let inst = module.kernels[0].insts.keys().next().unwrap();
        if let Err(refusal) = target.legalize_inst(&module.kernels[0], inst) {
            assert!(refusal.rule.id().starts_with("llvm."), "{cell}: {refusal}");
            assert!(!refusal.reason.is_empty(), "{cell}");
            refused += 1;
            continue;
        }
        text.clear();
        target
            .lower(
                &atomir_ir::verify::verify(&module).unwrap(),
                &options,
                &mut text,
            )
            .unwrap();
        let mut hasher = DefaultHasher::new();
        text[text.find('(').unwrap()..].hash(&mut hasher);
        if !seen.insert(hasher.finish()) {
            shared += 1;
            continue;
        }
        cases.push(Case {
            function: kernels.len(),
            cell,
            predicate: None,
            executes: true,
        });
        kernels.append(&mut module.kernels);
        // The predicated variant (alternately negated), with the predicate holding and not.
        let negated = kernels.len() % 4 == 1;
        let mut guarded = cell.kernel();
        guarded.name.push_str("_p");
        let p = guarded.add_param("p", ValueType::Pred);
        let inst = guarded.insts.keys().next().unwrap();
        if let InstData::Atomic(node) = &mut guarded.insts[inst] {
            node.predicate = Some(Predicate { value: p, negated });
        }
        for executes in [true, false] {
            cases.push(Case {
                function: kernels.len(),
                cell,
                predicate: Some(negated),
                executes,
            });
        }
        kernels.push(guarded);
    }
    let distinct = kernels.len() / 2;
    println!(
        "llvm:x86_64@22: {total} cells: {refused} refused, {distinct} distinct functions \
         ({shared} cells share one), {} runs",
        cases.len()
    );

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("llvm_cpu");
    std::fs::create_dir_all(&dir).unwrap();
    // Two modules, compiled in parallel.
    let half = kernels.len().div_ceil(2);
    let objects: Vec<PathBuf> = thread::scope(|scope| {
        let handles: Vec<_> = kernels
            .chunks(half)
            .enumerate()
            .map(|(part, chunk)| {
                let (llc, target, dir) = (&llc, &target, &dir);
                scope.spawn(move || {
                    let mut ll = lower_module(target, chunk).unwrap();
                    ll.push('\n');
                    for (offset, kernel) in chunk.iter().enumerate() {
                        wrapper(kernel, part * half + offset, &mut ll);
                    }
                    let path = dir.join(format!("cells{part}.ll"));
                    std::fs::write(&path, ll).unwrap();
                    let obj = path.with_extension("o");
                    compile(llc, target, &path, &obj).unwrap();
                    obj
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    println!("lowered and compiled in {:.1?}", started.elapsed());

    let mut header = format!(
        "#define CELLS {}\n#define THREADS {THREADS}\n#define ITERS {ITERS}\n\
         struct cell_fn {{ const char *name; void *fn; }};\n",
        cases.len()
    );
    for index in 0..kernels.len() {
        writeln!(header, "extern void w{index}(void);").unwrap();
    }
    header.push_str("static const struct cell_fn cell_fns[] = {\n");
    let mut expectations: Vec<u8> = Vec::new();
    for case in &cases {
        let kernel = &kernels[case.function];
        let suffix = match case.predicate {
            None => "",
            Some(_) if case.executes => " (predicate holds)",
            Some(_) => " (predicate fails)",
        };
        writeln!(
            header,
            "  {{\"{}{suffix}\", (void *)w{}}},",
            kernel.name, case.function
        )
        .unwrap();
        record(case, kernel, &mut expectations);
    }
    header.push_str("};\n");
    std::fs::write(dir.join("cells.h"), header).unwrap();
    let expect = dir.join("expect.bin");
    std::fs::write(&expect, expectations).unwrap();
    let exe = dir.join("driver");
    let (ok, message) = run(Command::new(&cc)
        .args(["-O1", "-pthread", "-I"])
        .arg(&dir)
        .arg(workspace_root().join("tests/cpu/driver.c"))
        .args(&objects)
        .arg("-o")
        .arg(&exe)
        .arg("-latomic"));
    assert!(ok, "cc: {message}");
    let (ok, message) = run(Command::new(&exe).arg(&expect));
    println!("{message}");
    println!("total {:.1?}", started.elapsed());
    assert!(ok, "{message}");
    assert!(message.contains(&format!("{} cells, 0 failures", cases.len())));
    assert_eq!(refused + shared + distinct, total);
}
