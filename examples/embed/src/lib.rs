//! A compiler that embeds atomir, as a client outside the workspace would: it builds its atomics
//! in code, binds every IR value to a register (PTX) or SSA value (LLVM) of its own, lowers each
//! atomic on its own with [`Target::splice`], and splices the fragments into one hand-written PTX
//! kernel and one hand-written LLVM function. What a target refuses is left out and reported
//! with its rule and the smallest target that accepts it.
//!
//! The program's data lie in three byte blocks the kernel (or function) gets as pointers:
//! `mem`, the atomics' memory ([`MEMORY_BYTES`]); `args`, the operands, which the client loads
//! into its own registers ([`ARGS_BYTES`]); `out`, where it stores the old values
//! ([`OUT_BYTES`]).

use std::fmt::Write;

use atomir::{
    verify, AddressSpace, AtomicInst, AtomicOp, ElemType, Fragment, Inst, Kernel, LowerError,
    MemoryOrder, Module, Operand, Scalar, Scope, SpliceNames, Target, Value, ValueType,
    VectorShape,
};

/// The bytes of the atomics' memory block.
pub const MEMORY_BYTES: usize = 64;
/// The bytes of the operands block.
pub const ARGS_BYTES: usize = 48;
/// The bytes of the results block.
pub const OUT_BYTES: usize = 48;

/// An operand the client loads from `args` into a register of its own.
#[derive(Clone, Copy, Debug)]
pub struct Input {
    pub value: Value,
    /// The client's name of the register (SSA value).
    pub name: &'static str,
    pub ty: ElemType,
    /// Where it lies in `args`.
    pub offset: usize,
    /// Its bits.
    pub bits: u128,
}

/// One atomic of the program.
#[derive(Clone, Copy, Debug)]
pub struct Atomic {
    pub inst: Inst,
    /// What it is, for messages.
    pub what: &'static str,
    /// The client's name of its pointer, and where the pointer points in `mem`.
    pub pointer: (Value, &'static str, usize),
    /// Where its old value is stored in `out`, when it is used.
    pub out: Option<usize>,
}

/// The program: one kernel of six atomics, the client's inputs, and the initial memory.
pub struct Program {
    pub module: Module,
    pub inputs: Vec<Input>,
    pub atomics: Vec<Atomic>,
    /// The memory block before the kernel runs.
    pub memory: [u8; MEMORY_BYTES],
}

impl Program {
    /// The operands block: every input's bits at its offset.
    pub fn args(&self) -> [u8; ARGS_BYTES] {
        let mut args = [0; ARGS_BYTES];
        for input in &self.inputs {
            let bytes = input.bits.to_le_bytes();
            let size = (input.ty.bits() / 8) as usize;
            args[input.offset..input.offset + size].copy_from_slice(&bytes[..size]);
        }
        args
    }
}

/// Builds the program in code: a dead-result f32 add, a u8 add, a seq_cst system b64 cas, a
/// v4.f32 add, an acquire f16x2 add and a bounded inc, each through a pointer of its own.
pub fn program() -> Program {
    let mut kernel = Kernel::new("embed");
    let global = ValueType::Ptr(AddressSpace::Global);
    let pointer = |kernel: &mut Kernel, name: &'static str, offset: usize| {
        (kernel.add_param(name, global), name, offset)
    };
    let p_f32 = pointer(&mut kernel, "p_f32", 0);
    let p_u8 = pointer(&mut kernel, "p_u8", 5);
    let p_b64 = pointer(&mut kernel, "p_b64", 8);
    let p_v4 = pointer(&mut kernel, "p_v4", 16);
    let p_h2 = pointer(&mut kernel, "p_h2", 32);
    let p_inc = pointer(&mut kernel, "p_inc", 36);

    let mut inputs = Vec::new();
    let mut input = |kernel: &mut Kernel, name, ty: ElemType, offset, bits| {
        let value = kernel.add_param(name, ValueType::scalar(ty));
        inputs.push(Input {
            value,
            name,
            ty,
            offset,
            bits,
        });
        value
    };
    let x = input(&mut kernel, "x", ElemType::F32, 0, 1.5f32.to_bits().into());
    let b = input(&mut kernel, "b", ElemType::U8, 4, 200);
    let expected = input(
        &mut kernel,
        "expected",
        ElemType::B64,
        8,
        0x1122_3344_5566_7788,
    );
    let new = input(&mut kernel, "new", ElemType::B64, 16, 0xCAFE_F00D_DEAD_BEEF);
    let lanes: Vec<Value> = (0..4)
        .map(|lane| {
            let name = ["a0", "a1", "a2", "a3"][lane];
            let bits = (0.25f32 + lane as f32).to_bits().into();
            input(&mut kernel, name, ElemType::F32, 24 + 4 * lane, bits)
        })
        .collect();
    // 1.0 and -2.0 as f16.
    let h2 = input(&mut kernel, "h2", ElemType::F16x2, 40, 0xC000_3C00);
    let bound = input(&mut kernel, "bound", ElemType::U32, 44, 9);

    let on = |mut atomic: AtomicInst| {
        atomic.space = AddressSpace::Global;
        atomic
    };
    let mut atomics = Vec::new();
    let mut push = |kernel: &mut Kernel,
                    what,
                    atomic: AtomicInst,
                    pointer: (Value, &'static str, usize),
                    out: Option<(&str, usize)>| {
        let inst = kernel.push(atomic, out.map(|(name, _)| name));
        atomics.push(Atomic {
            inst,
            what,
            pointer,
            out: out.map(|(_, offset)| offset),
        });
    };

    let add_f32 = on(AtomicInst::new(
        AtomicOp::Add,
        ElemType::F32,
        p_f32.0,
        x.into(),
    ));
    push(&mut kernel, "dead-result f32 add", add_f32, p_f32, None);

    let add_u8 = on(AtomicInst::new(
        AtomicOp::Add,
        ElemType::U8,
        p_u8.0,
        b.into(),
    ));
    push(&mut kernel, "u8 add", add_u8, p_u8, Some(("o_u8", 0)));

    let mut cas = on(AtomicInst::new(
        AtomicOp::Cas,
        ElemType::B64,
        p_b64.0,
        expected.into(),
    ));
    cas.new_value = Some(new.into());
    cas.order = MemoryOrder::SeqCst;
    cas.scope = Scope::System;
    push(
        &mut kernel,
        "seq_cst system b64 cas",
        cas,
        p_b64,
        Some(("o_cas", 8)),
    );

    let elements: Vec<Scalar> = lanes.iter().map(|&lane| Scalar::Value(lane)).collect();
    let vector: Operand = kernel.vector(&elements);
    let mut add_v4 = on(AtomicInst::new(
        AtomicOp::Add,
        ElemType::F32,
        p_v4.0,
        vector,
    ));
    add_v4.shape = VectorShape::V4;
    push(&mut kernel, "v4.f32 add", add_v4, p_v4, Some(("o_v4", 16)));

    let mut add_h2 = on(AtomicInst::new(
        AtomicOp::Add,
        ElemType::F16x2,
        p_h2.0,
        h2.into(),
    ));
    add_h2.order = MemoryOrder::Acquire;
    push(
        &mut kernel,
        "acquire f16x2 add",
        add_h2,
        p_h2,
        Some(("o_h2", 32)),
    );

    let inc = on(AtomicInst::new(
        AtomicOp::Inc,
        ElemType::U32,
        p_inc.0,
        bound.into(),
    ));
    push(&mut kernel, "bounded inc", inc, p_inc, Some(("o_inc", 36)));

    let mut memory = [0u8; MEMORY_BYTES];
    memory[0..4].copy_from_slice(&2.0f32.to_bits().to_le_bytes());
    memory[4..8].copy_from_slice(&[0x11, 100, 0x33, 0x44]);
    memory[8..16].copy_from_slice(&0x1122_3344_5566_7788u64.to_le_bytes());
    for lane in 0..4 {
        let at = 16 + 4 * lane;
        memory[at..at + 4].copy_from_slice(&(10.0f32 * lane as f32).to_bits().to_le_bytes());
    }
    // 0.5 and 3.0 as f16.
    memory[32..36].copy_from_slice(&0x4200_3800u32.to_le_bytes());
    memory[36..40].copy_from_slice(&5u32.to_le_bytes());

    Program {
        module: Module {
            kernels: vec![kernel],
        },
        inputs,
        atomics,
        memory,
    }
}

/// A hand-written unit with the fragments spliced in, and what was left out.
#[derive(Debug, Default)]
pub struct Spliced {
    /// The PTX module or LLVM IR module.
    pub text: String,
    /// The atomics spliced in, by their index in [`Program::atomics`].
    pub spliced: Vec<usize>,
    /// One line per atomic the target refused: what, the rule, the smallest target.
    pub refusals: Vec<String>,
}

fn refusal_line(atomic: &Atomic, target: Target, error: &LowerError) -> String {
    let refusal = &error.refusal;
    let smallest = refusal
        .smallest_target
        .as_deref()
        .unwrap_or("no target of the backend");
    format!(
        "{}: refused by {target}: {} [rule {}]; smallest target that accepts it: {smallest}",
        atomic.what, refusal.reason, refusal.rule
    )
}

/// The PTX register class of a value of `ty` (8-bit data live in 16-bit registers).
fn ptx_reg(ty: ElemType) -> &'static str {
    match ty.bits() {
        8 | 16 => ".b16",
        32 => ".b32",
        _ => ".b64",
    }
}

/// The PTX type a value of `ty` is loaded and stored as.
fn ptx_mem(ty: ElemType) -> &'static str {
    match ty.bits() {
        8 => "u8",
        16 => "b16",
        32 => "b32",
        _ => "b64",
    }
}

/// One hand-written PTX kernel for `target` (a `ptx:` target) with every atomic it accepts
/// spliced in.
pub fn ptx_kernel(program: &Program, target: Target) -> Result<Spliced, String> {
    let Target::Ptx(ptx) = target else {
        return Err(format!("{target} is no PTX target"));
    };
    let verified = verify::verify(&program.module).map_err(|d| d[0].to_string())?;
    let kernel = &program.module.kernels[0];
    let mut names = SpliceNames::default();
    for input in &program.inputs {
        names.bind(input.value, input.name);
    }
    for atomic in &program.atomics {
        names.bind(atomic.pointer.0, atomic.pointer.1);
    }
    // The client names every result but the inc's: that one it takes from the fragment.
    let mut result_regs: Vec<(&str, String)> = Vec::new();
    for atomic in &program.atomics {
        let Some(result) = kernel.atomic(atomic.inst).and_then(|a| a.result) else {
            continue;
        };
        let data = &kernel.values[result];
        match data.ty {
            ValueType::Data(ty, shape) if shape.is_vector() => {
                let lanes: Vec<String> = (0..shape.len())
                    .map(|lane| format!("{}_{lane}", data.name))
                    .collect();
                names.bind_lanes(result, lanes.iter().map(String::as_str));
                for lane in lanes {
                    result_regs.push((ptx_reg(ty), lane));
                }
            }
            ValueType::Data(ty, _) if atomic.what != "bounded inc" => {
                names.bind(result, &data.name);
                result_regs.push((ptx_reg(ty), data.name.to_string()));
            }
            _ => {}
        }
    }

    let mut spliced = Spliced::default();
    let mut decls = String::new();
    let mut body = String::new();
    let mut stores = String::new();
    let mut fragment = Fragment::default();
    for (index, atomic) in program.atomics.iter().enumerate() {
        names
            .set_numbered("f", index as u32)
            .map_err(|e| e.to_string())?;
        if let Err(error) = target.splice(&verified, 0, atomic.inst, &names, &mut fragment) {
            spliced.refusals.push(refusal_line(atomic, target, &error));
            continue;
        }
        spliced.spliced.push(index);
        for temp in &fragment.temps {
            let _ = writeln!(decls, "\t.reg {} %{};", temp.ty, temp.name);
        }
        let _ = writeln!(body, "\t// {}", atomic.what);
        body.push_str(&fragment.code);
        let (Some(out), Some(result)) = (atomic.out, fragment.results.first()) else {
            continue;
        };
        let ty = kernel.atomic(atomic.inst).map_or(ElemType::U32, |a| a.ty);
        for (lane, name) in result.names.iter().enumerate() {
            let at = out + lane * (ty.bits() / 8) as usize;
            let _ = writeln!(stores, "\tst.global.{} [%out+{at}], %{name};", ptx_mem(ty));
        }
    }

    let text = &mut spliced.text;
    let _ = writeln!(
        text,
        ".version {}\n.target {}\n.address_size 64\n",
        ptx.isa,
        ptx.sm.name()
    );
    text.push_str(".visible .entry embed(\n\t.param .u64 embed_mem,\n\t.param .u64 embed_args,\n");
    text.push_str("\t.param .u64 embed_out\n)\n{\n\t.reg .b64 %mem, %args, %out;\n");
    for input in &program.inputs {
        let _ = writeln!(text, "\t.reg {} %{};", ptx_reg(input.ty), input.name);
    }
    for atomic in &program.atomics {
        let _ = writeln!(text, "\t.reg .b64 %{};", atomic.pointer.1);
    }
    for (class, name) in &result_regs {
        let _ = writeln!(text, "\t.reg {class} %{name};");
    }
    text.push_str(&decls);
    for block in ["mem", "args", "out"] {
        let _ = writeln!(text, "\tld.param.u64 %{block}, [embed_{block}];");
        let _ = writeln!(text, "\tcvta.to.global.u64 %{block}, %{block};");
    }
    for atomic in &program.atomics {
        let (_, name, offset) = atomic.pointer;
        let _ = writeln!(text, "\tadd.s64 %{name}, %mem, {offset};");
    }
    for input in &program.inputs {
        let (ty, name, at) = (ptx_mem(input.ty), input.name, input.offset);
        let _ = writeln!(text, "\tld.global.{ty} %{name}, [%args+{at}];");
    }
    text.push_str(&body);
    text.push_str(&stores);
    text.push_str("\tret;\n}\n");
    Ok(spliced)
}

/// The LLVM type of a value of `ty` and `lanes` elements.
fn llvm_type(ty: ElemType, lanes: usize) -> String {
    let scalar = match ty {
        ElemType::F32 => "float",
        // atomir's LLVM IR carries packed halves as their 32 bits.
        ElemType::F16x2 => "i32",
        _ => match ty.bits() {
            8 => "i8",
            16 => "i16",
            32 => "i32",
            _ => "i64",
        },
    };
    if lanes > 1 {
        format!("<{lanes} x {scalar}>")
    } else {
        scalar.to_owned()
    }
}

/// One hand-written LLVM function `@embed(mem, args, out)` for `target` (an `llvm:` target)
/// with every atomic it accepts spliced in, as a module its tools take.
pub fn llvm_function(program: &Program, target: Target) -> Result<Spliced, String> {
    let Target::Llvm(llvm) = target else {
        return Err(format!("{target} is no LLVM target"));
    };
    // The client's pointers: global memory is address space 1 on NVPTX.
    let gp = match llvm.triple {
        atomir::Triple::Nvptx64 => "ptr addrspace(1)",
        _ => "ptr",
    };
    let verified = verify::verify(&program.module).map_err(|d| d[0].to_string())?;
    let kernel = &program.module.kernels[0];
    let mut names = SpliceNames::default();
    for input in &program.inputs {
        names.bind(input.value, input.name);
    }
    for atomic in &program.atomics {
        names.bind(atomic.pointer.0, atomic.pointer.1);
    }
    // SSA values: the client names every result but the inc's.
    for atomic in &program.atomics {
        let result = kernel.atomic(atomic.inst).and_then(|a| a.result);
        if let Some(result) = result.filter(|_| atomic.what != "bounded inc") {
            names.bind(result, &kernel.values[result].name);
        }
    }

    let mut spliced = Spliced::default();
    let text = &mut spliced.text;
    let _ = writeln!(
        text,
        "target triple = \"{}\"\n",
        llvm.triple.triple_string()
    );
    let _ = writeln!(
        text,
        "define void @embed({gp} %mem, {gp} %args, {gp} %out) {{\nentry:"
    );
    for atomic in &program.atomics {
        let (_, name, offset) = atomic.pointer;
        let _ = writeln!(
            text,
            "  %{name} = getelementptr i8, {gp} %mem, i64 {offset}"
        );
    }
    for input in &program.inputs {
        let (name, at, ty) = (input.name, input.offset, llvm_type(input.ty, 1));
        let _ = writeln!(
            text,
            "  %{name}_at = getelementptr i8, {gp} %args, i64 {at}"
        );
        let _ = writeln!(text, "  %{name} = load {ty}, {gp} %{name}_at");
    }
    let mut fragment = Fragment::default();
    let mut predecessor = String::from("entry");
    let mut stores = String::new();
    for (index, atomic) in program.atomics.iter().enumerate() {
        names
            .set_numbered("f", index as u32)
            .map_err(|e| e.to_string())?;
        let continuation = format!("after{index}");
        names.set_blocks(&predecessor, &continuation);
        if let Err(error) = target.splice(&verified, 0, atomic.inst, &names, &mut fragment) {
            spliced.refusals.push(refusal_line(atomic, target, &error));
            continue;
        }
        spliced.spliced.push(index);
        text.push_str(&fragment.code);
        let _ = writeln!(text, "{continuation}:");
        predecessor = continuation;
        let (Some(out), Some(result)) = (atomic.out, fragment.results.first()) else {
            continue;
        };
        let inst = kernel.atomic(atomic.inst).copied();
        let ty = inst.map_or(String::new(), |a| llvm_type(a.ty, a.shape.len()));
        let name = &result.names[0];
        let _ = writeln!(
            stores,
            "  %{name}_to = getelementptr i8, {gp} %out, i64 {out}"
        );
        let _ = writeln!(stores, "  store {ty} %{name}, {gp} %{name}_to");
    }
    text.push_str(&stores);
    text.push_str("  ret void\n}\n");
    Ok(spliced)
}
