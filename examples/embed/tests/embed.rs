//! The embedding client, judged: its hand-written PTX kernel with the atomics spliced in
//! assembles with ptxas (12.9 for sm_70, 13.5 for sm_90); its hand-written LLVM function passes
//! llvm-as, `opt -passes=verify` and llc for nvptx64 and x86-64; the x86-64 one, linked with a C
//! driver and run, leaves the memory and old values the reference semantics say; and a target
//! that refuses some of the atomics names the rule and a smallest target that does accept them.

use std::path::{Path, PathBuf};
use std::process::Command;

use atomir::Target;
use atomir_embed::{
    llvm_function, program, ptx_kernel, sizes_with_plain_loops, Program, Spliced, FENCE, OUT_BYTES,
};
use atomir_ir::semantics::{apply, FloatMode};
use atomir_tests::llvm::{check_file, Codegen, LlvmTools};
use atomir_tests::tools::{require, run, Tool};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("atomir-embed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir.join(name)
}

fn lowered(program: &Program, name: &str) -> (Target, Spliced) {
    let target: Target = name.parse().expect("a target name");
    let spliced = match target {
        Target::Ptx(_) => ptx_kernel(program, target),
        _ => llvm_function(program, target),
    }
    .unwrap_or_else(|error| panic!("{target}: {error}"));
    (target, spliced)
}

#[test]
fn the_spliced_ptx_kernel_assembles() {
    let program = program();
    for (name, tool) in [
        ("ptx:sm_70", Tool::Ptxas12),
        ("ptx:sm_90", Tool::Ptxas13),
        ("ptx:sm_90+plain-loops", Tool::Ptxas13),
    ] {
        let Some(ptxas) = require(tool) else {
            continue;
        };
        let (target, spliced) = lowered(&program, name);
        assert_eq!(spliced.spliced.len(), 6, "{target}: {:?}", spliced.refusals);
        assert!(spliced.fence, "{target}: {:?}", spliced.refusals);
        let Target::Ptx(ptx) = target else {
            unreachable!()
        };
        let file = scratch(&format!("{}.ptx", ptx.sm.name()));
        let assembled = atomir_tests::ptx::assemble(&ptxas, ptx, &spliced.text, &file);
        if let Err(diagnostics) = assembled {
            panic!(
                "{target}: ptxas rejects the kernel:\n{diagnostics}\n{}",
                spliced.text
            );
        }
    }
}

/// Runs llvm-as, opt's verifier and llc over the function; returns llc's output.
fn judge_llvm(target: Target, spliced: &Spliced) -> Option<PathBuf> {
    let Target::Llvm(llvm) = target else {
        unreachable!()
    };
    let tools = LlvmTools::require(llvm.major)?;
    let file = scratch(&format!("{}-{}.ll", llvm.triple.name(), llvm.major));
    std::fs::write(&file, &spliced.text).expect("the module is written");
    let compiled = file.with_extension("s");
    if let Err(diagnostics) = check_file(&tools, &llvm, &file, &compiled, Codegen::Default) {
        panic!(
            "{target}: the tools reject the function:\n{diagnostics}\n{}",
            spliced.text
        );
    }
    Some(compiled)
}

#[test]
fn the_spliced_llvm_function_passes_the_tools_and_its_ptx_assembles() {
    let program = program();
    let (target, spliced) = lowered(&program, "llvm:nvptx64");
    assert_eq!(spliced.spliced.len(), 6, "{target}: {:?}", spliced.refusals);
    assert!(
        spliced.fence && spliced.text.contains("fence syncscope"),
        "{target}"
    );
    let Some(compiled) = judge_llvm(target, &spliced) else {
        return;
    };
    // llc's PTX (for sm_90) assembles too.
    let Some(ptxas) = require(Tool::Ptxas13) else {
        return;
    };
    let (ok, output) = run(Command::new(ptxas)
        .arg("-arch=sm_90")
        .arg(&compiled)
        .args(["-o", "/dev/null"]));
    assert!(ok, "{target}: ptxas rejects llc's PTX:\n{output}");
}

#[test]
fn a_target_that_refuses_names_the_rule_and_a_target_that_accepts() {
    let program = program();
    let (target, spliced) = lowered(&program, "llvm:nvptx64@15");
    assert!(
        !spliced.refusals.is_empty(),
        "{target} refuses none of the six"
    );
    assert_eq!(
        spliced.spliced.len() + usize::from(spliced.fence) + spliced.refusals.len(),
        7
    );
    for refusal in &spliced.refusals {
        println!("{refusal}");
        let smallest = refusal
            .smallest
            .expect("a refusal names its smallest target")
            .to_string();
        assert!(refusal.refusal.rule.id().starts_with("llvm."), "{refusal}");
        // The smallest target accepts every atomic the refusing one left out.
        let (_, on_smallest) = lowered(&program, &smallest);
        let what = refusal.what;
        if what == FENCE {
            assert!(on_smallest.fence, "{smallest} refuses the fence");
            continue;
        }
        let index = program.atomics.iter().position(|a| a.what == what).unwrap();
        assert!(
            on_smallest.spliced.contains(&index),
            "{smallest} refuses {what}"
        );
    }
    // The function with the refused atomics left out still passes the tools.
    judge_llvm(target, &spliced);
}

/// The C driver: reads the memory and operand blocks as hex, calls `embed`, prints the memory
/// and the results as hex.
const DRIVER: &str = r#"
#include <stdio.h>
#include <stdint.h>
#include <string.h>
void embed(uint8_t *mem, uint8_t *args, uint8_t *out);
static void read_hex(const char *hex, uint8_t *bytes, size_t n) {
    for (size_t i = 0; i < n; i++) sscanf(hex + 2 * i, "%2hhx", &bytes[i]);
}
int main(int argc, char **argv) {
    _Alignas(16) uint8_t mem[64], args[48], out[48];
    if (argc != 3) return 2;
    read_hex(argv[1], mem, sizeof mem);
    read_hex(argv[2], args, sizeof args);
    memset(out, 0, sizeof out);
    embed(mem, args, out);
    for (size_t i = 0; i < sizeof mem; i++) printf("%02x", mem[i]);
    printf("\n");
    for (size_t i = 0; i < sizeof out; i++) printf("%02x", out[i]);
    printf("\n");
    return 0;
}
"#;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len() / 2)
        .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

fn read(bytes: &[u8], at: usize, size: usize) -> u128 {
    let mut word = [0u8; 16];
    word[..size].copy_from_slice(&bytes[at..at + size]);
    u128::from_le_bytes(word)
}

fn write(bytes: &mut [u8], at: usize, size: usize, value: u128) {
    bytes[at..at + size].copy_from_slice(&value.to_le_bytes()[..size]);
}

/// The memory and results the reference semantics give for the atomics spliced in, one after
/// another on one thread.
fn expected(program: &Program, spliced: &Spliced) -> (Vec<u8>, Vec<u8>) {
    let kernel = &program.module.kernels[0];
    let mut memory = program.memory.to_vec();
    let mut out = vec![0u8; OUT_BYTES];
    let bits_of = |value| {
        program
            .inputs
            .iter()
            .find(|input| input.value == value)
            .map(|input| input.bits)
            .expect("an operand is an input")
    };
    for &index in &spliced.spliced {
        let atomic = &program.atomics[index];
        let inst = kernel.atomic(atomic.inst).expect("an atomic");
        let size = (inst.ty.bits() / 8) as usize;
        let operand = |operand: Option<atomir::Operand>, lane| {
            let scalar = operand.and_then(|o| kernel.operand_element(o, lane));
            match scalar {
                Some(atomir::Scalar::Value(value)) => bits_of(value),
                Some(atomir::Scalar::Const(constant)) => kernel.constants[constant],
                None => 0,
            }
        };
        for lane in 0..inst.shape.len() {
            let at = atomic.pointer.2 + lane * size;
            let old = read(&memory, at, size);
            let (b, c) = (operand(inst.operand, lane), operand(inst.new_value, lane));
            let new = apply(inst.op, inst.ty, old, b, c, FloatMode::Ieee);
            write(&mut memory, at, size, new);
            if let Some(out_at) = atomic.out {
                write(&mut out, out_at + lane * size, size, old);
            }
        }
    }
    (memory, out)
}

#[test]
fn the_spliced_x86_64_function_runs_as_the_semantics_say() {
    let program = program();
    let (target, spliced) = lowered(&program, "llvm:x86_64");
    assert_eq!(spliced.spliced.len(), 6, "{target}: {:?}", spliced.refusals);
    assert!(spliced.fence, "{target}: {:?}", spliced.refusals);
    let Some(compiled) = judge_llvm(target, &spliced) else {
        return;
    };
    let Some(cc) = require(Tool::Cc) else {
        return;
    };
    let driver = scratch("driver.c");
    std::fs::write(&driver, DRIVER).expect("the driver is written");
    let binary = scratch("embed");
    let (ok, output) = run(Command::new(cc)
        .arg(&driver)
        .arg(&compiled)
        .arg("-o")
        .arg(&binary));
    assert!(ok, "cc cannot link the driver and the function:\n{output}");
    let (ok, output) = run(Command::new(Path::new(&binary))
        .arg(hex(&program.memory))
        .arg(hex(&program.args())));
    assert!(ok, "the program fails:\n{output}");
    let mut lines = output.lines();
    let memory = unhex(lines.next().expect("the memory"));
    let out = unhex(lines.next().expect("the results"));
    let (want_memory, want_out) = expected(&program, &spliced);
    assert_eq!(memory, want_memory, "memory after the atomics");
    assert_eq!(out, want_out, "the old values");
    // The run moved something: every atomic's memory changed.
    for atomic in &program.atomics {
        let at = atomic.pointer.2;
        assert_ne!(
            memory[at..at + 4],
            program.memory[at..at + 4],
            "{}",
            atomic.what
        );
    }
}

#[test]
fn the_client_prints_its_code_and_refusals() {
    let (ok, output) = run(&mut Command::new(env!("CARGO_BIN_EXE_atomir-embed")));
    assert!(ok, "the client fails:\n{output}");
    assert!(output.contains(".visible .entry embed("), "{output}");
    assert!(output.contains("define void @embed("), "{output}");
    let refusals: Vec<&str> = output
        .lines()
        .filter(|l| l.starts_with("// refused: "))
        .collect();
    assert!(!refusals.is_empty(), "{output}");
    for line in refusals {
        assert!(
            line.contains("[rule ") && line.contains("smallest target"),
            "{line}"
        );
    }
}

#[test]
fn plain_loops_make_the_warp_combined_atomics_smaller_and_nothing_larger() {
    let program = program();
    let target: Target = "ptx:sm_90".parse().unwrap();
    let sizes = sizes_with_plain_loops(&program, target).expect("both targets splice");
    assert_eq!(sizes.len(), 6, "{sizes:?}");
    for (what, default, plain) in &sizes {
        assert!(plain <= default, "{what}: {plain} > {default}");
    }
    // The u8 add is warp-combined by default (a masked CAS loop run once per 32-bit word).
    let (_, default, plain) = sizes.iter().find(|(what, ..)| *what == "u8 add").unwrap();
    assert!(plain < default, "u8 add: {plain} against {default}");
}

#[test]
fn each_verdict_counts_the_code_its_fragment_splices() {
    let program = program();
    let kernel = &program.module.kernels[0];
    for name in ["ptx:sm_70", "ptx:sm_90", "ptx:sm_90+plain-loops"] {
        let (target, spliced) = lowered(&program, name);
        assert!(!spliced.sizes.is_empty(), "{target}");
        for &(index, size) in &spliced.sizes {
            let inst = program.atomics[index].inst;
            let node = atomir::Node::of_data(kernel, &kernel.insts[inst]);
            // Asked of the node alone, no kernel and no names: the size of the code spliced.
            assert_eq!(target.instructions(&node), Ok(size), "{target}: {index}");
        }
    }
}
