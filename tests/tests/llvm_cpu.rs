//! The x86-64 output, run: every scalar integer and f32/f64 cell of `llvm:x86_64@22` is compiled
//! by llc into an object, linked with the threaded C driver (`tests/cpu/driver.c`) and run with
//! several threads contending for one address. Expectations come from the reference semantics.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

use atomir_ir::matrix::{cells, Cell};
use atomir_ir::{AddressSpace, AtomicOp, ElemType, Scope, TypeClass, VectorShape};
use atomir_llvm::LlvmTarget;
use atomir_tests::llvm::{llc_args, lower_module};
use atomir_tests::tools::{require, run, workspace_root, Tool};

const THREADS: usize = 4;
const ITERS: usize = 200;

/// Reference semantics of one element: `op(old, operand[, new_value])` on raw bits.
/// The same contract as `atomir_ir::semantics::apply` (to which it defers once that lands).
fn reference(op: AtomicOp, ty: ElemType, old: u128, operand: u128, new_value: u128) -> u128 {
    let bits = ty.bits();
    let mask = if bits == 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    };
    let signed = |v: u128| ((v << (128 - bits)) as i128) >> (128 - bits);
    match ty.class() {
        TypeClass::Float if !op.is_move() => {
            if bits == 32 {
                let (a, b) = (f32::from_bits(old as u32), f32::from_bits(operand as u32));
                u128::from(float_op32(op, a, b).to_bits())
            } else {
                let (a, b) = (f64::from_bits(old as u64), f64::from_bits(operand as u64));
                u128::from(float_op64(op, a, b).to_bits())
            }
        }
        _ => {
            let r = match op {
                AtomicOp::Add => old.wrapping_add(operand),
                AtomicOp::Sub => old.wrapping_sub(operand),
                AtomicOp::And => old & operand,
                AtomicOp::Or => old | operand,
                AtomicOp::Xor => old ^ operand,
                AtomicOp::Nand => !(old & operand),
                AtomicOp::Exch => operand,
                AtomicOp::Cas => {
                    if old == operand {
                        new_value
                    } else {
                        old
                    }
                }
                AtomicOp::Inc => {
                    if old >= operand {
                        0
                    } else {
                        old + 1
                    }
                }
                AtomicOp::Dec => {
                    if old == 0 || old > operand {
                        operand
                    } else {
                        old - 1
                    }
                }
                AtomicOp::Min if ty.class() == TypeClass::Signed => {
                    if signed(old) <= signed(operand) {
                        old
                    } else {
                        operand
                    }
                }
                AtomicOp::Max if ty.class() == TypeClass::Signed => {
                    if signed(old) >= signed(operand) {
                        old
                    } else {
                        operand
                    }
                }
                AtomicOp::Min => old.min(operand),
                AtomicOp::Max => old.max(operand),
            };
            r & mask
        }
    }
}

macro_rules! float_op {
    ($name:ident, $t:ty) => {
        fn $name(op: AtomicOp, a: $t, b: $t) -> $t {
            let min_num = |a: $t, b: $t, min: bool| {
                if a.is_nan() {
                    return b;
                }
                if b.is_nan() {
                    return a;
                }
                if a == b {
                    // -0 < +0
                    return if (a.is_sign_negative() == min) { a } else { b };
                }
                if (a < b) == min {
                    a
                } else {
                    b
                }
            };
            match op {
                AtomicOp::Add => a + b,
                AtomicOp::Sub => a - b,
                AtomicOp::Min => min_num(a, b, true),
                AtomicOp::Max => min_num(a, b, false),
                other => unreachable!("no float {other}"),
            }
        }
    };
}
float_op!(float_op32, f32);
float_op!(float_op64, f64);

/// Operand, new value and initial memory for a cell: chosen so the sequence moves (no op is a
/// no-op from the start) and float adds stay exact.
fn inputs(cell: &Cell) -> (u128, u128, u128) {
    let float = |v: f64| match cell.ty {
        ElemType::F32 => u128::from((v as f32).to_bits()),
        _ => u128::from(v.to_bits()),
    };
    let mask = (1u128 << cell.ty.bits().min(64)) - 1;
    match (cell.op, cell.ty.is_float()) {
        (AtomicOp::Cas, true) => (float(1.5), float(-2.0), float(1.5)),
        (AtomicOp::Cas, false) => (5, 9, 5),
        (AtomicOp::Exch, true) => (float(3.0), 0, float(0.0)),
        (AtomicOp::Min, true) => (float(-0.0), 0, float(0.0)),
        (AtomicOp::Max, true) => (float(0.0), 0, float(-0.0)),
        (_, true) => (float(0.25), 0, float(-7.0)),
        (AtomicOp::Inc | AtomicOp::Dec, false) => (600 & mask, 0, 3),
        (AtomicOp::Min, false) => (0x80 & mask, 0, 0x7F),
        (AtomicOp::Max, false) => (0x80 & mask, 0, 0x7F),
        (AtomicOp::And, false) => (0xF0F0_F0F0_F0F0_F0F0 & mask, 0, mask),
        (AtomicOp::Or, false) | (AtomicOp::Xor, false) | (AtomicOp::Nand, false) => (
            0x0F0F_0F0F_0F0F_0F0F & mask,
            0,
            0x1111_1111_1111_1111 & mask,
        ),
        (_, false) => (0x0102_0304_0506_0708 & mask, 0, 0x10),
    }
}

fn c_kind(ty: ElemType) -> char {
    match ty {
        ElemType::F32 => 'f',
        ElemType::F64 => 'd',
        _ => 'u',
    }
}

#[test]
fn x86_64_cells_run_correctly_under_contention() {
    let (Some(llc), Some(cc)) = (require(Tool::Llc(22)), require(Tool::Cc)) else {
        return;
    };
    let target = LlvmTarget::parse("x86_64@22").unwrap();
    let chosen: Vec<Cell> = cells()
        .filter(|c| {
            c.shape == VectorShape::Scalar
                && c.result_used
                && c.scope == Scope::Device
                && c.space == AddressSpace::Global
                && !matches!(
                    c.ty,
                    ElemType::F16
                        | ElemType::Bf16
                        | ElemType::F16x2
                        | ElemType::Bf16x2
                        | ElemType::B128
                )
        })
        .collect();
    let kernels: Vec<_> = chosen.iter().map(Cell::kernel).collect();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("llvm_cpu");
    std::fs::create_dir_all(&dir).unwrap();
    let ll = dir.join("cells.ll");
    std::fs::write(&ll, lower_module(&target, &kernels).unwrap()).unwrap();
    let obj = dir.join("cells.o");
    let (ok, message) = run(Command::new(&llc)
        .args(llc_args(&target))
        .arg("-filetype=obj")
        .arg(&ll)
        .arg("-o")
        .arg(&obj));
    assert!(ok, "llc: {message}");

    let n = THREADS * ITERS;
    let mut header = format!(
        "#define CELLS {}\n#define THREADS {THREADS}\n#define ITERS {ITERS}\n",
        chosen.len()
    );
    header.push_str(
        "struct cell_fn { const char *name; void *fn; char kind; int bytes; int arity; };\n",
    );
    let mut table = String::from("static const struct cell_fn cell_fns[] = {\n");
    let mut expectations: Vec<u8> = Vec::new();
    for cell in &chosen {
        let name = cell.name();
        writeln!(header, "extern void {name}(void);").unwrap();
        let arity = if cell.op == AtomicOp::Cas { 2 } else { 1 };
        writeln!(
            table,
            "  {{\"{name}\", (void *){name}, '{}', {}, {arity}}},",
            c_kind(cell.ty),
            cell.ty.bytes()
        )
        .unwrap();
        let (operand, new_value, init) = inputs(cell);
        let mut sequence = Vec::with_capacity(n + 1);
        let mut value = init;
        for _ in 0..=n {
            sequence.push(value as u64);
            value = reference(cell.op, cell.ty, value, operand, new_value);
        }
        let final_value = sequence.pop().unwrap();
        sequence.sort_unstable();
        for word in [init as u64, operand as u64, new_value as u64]
            .into_iter()
            .chain(sequence)
            .chain([final_value])
        {
            expectations.extend_from_slice(&word.to_le_bytes());
        }
    }
    table.push_str("};\n");
    header.push_str(&table);
    std::fs::write(dir.join("cells.h"), header).unwrap();
    let expect = dir.join("expect.bin");
    std::fs::write(&expect, expectations).unwrap();
    let driver = workspace_root().join("tests/cpu/driver.c");
    let exe = dir.join("driver");
    let (ok, message) = run(Command::new(&cc)
        .args(["-O1", "-pthread", "-I"])
        .arg(&dir)
        .arg(&driver)
        .arg(&obj)
        .arg("-o")
        .arg(&exe)
        .arg("-latomic"));
    assert!(ok, "cc: {message}");
    let (ok, message) = run(Command::new(&exe).arg(&expect));
    println!("{message}");
    assert!(ok, "{message}");
    assert!(message.contains(&format!("{} cells, 0 failures", chosen.len())));
}
