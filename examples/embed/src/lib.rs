//! A compiler that embeds atomir, as a client outside the workspace would: it builds its atomics
//! and a fence in code, asks the target what each instruction's values must be bound to
//! ([`Target::binding_types`]: which register type or LLVM type, how many names), binds them to
//! registers (PTX) or SSA values (LLVM) of its own declared with those types, lowers each
//! instruction on its own with [`Target::splice`], and splices the fragments into one
//! hand-written PTX kernel and one hand-written LLVM function. What a target refuses is left
//! out and reported with its rule and the smallest target that accepts it. The size knob
//! (`+plain-loops`) trades the warp-combined code for the plain loop
//! ([`sizes_with_plain_loops`]).
//!
//! The program's data lie in three byte blocks the kernel (or function) gets as pointers:
//! `mem`, the atomics' memory ([`MEMORY_BYTES`]); `args`, the operands, which the client loads
//! into its own registers ([`ARGS_BYTES`]); `out`, where it stores the old values
//! ([`OUT_BYTES`]).

use std::fmt::Write;

use std::collections::BTreeMap;

use atomir::{
    verify, AddressSpace, AtomicInst, AtomicOp, BindingTypes, ElemType, Fence, Fragment, Inst,
    Kernel, LowerError, MemoryOrder, Module, Operand, Refusal, Refused as _, Scalar, Scope,
    SpliceNames, Target, Value, ValueType, VectorShape, Verified,
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

/// What the client calls the fence in messages.
pub const FENCE: &str = "release fence";

/// The program: one kernel of six atomics and a fence, the client's inputs, and the initial
/// memory.
pub struct Program {
    pub module: Module,
    pub inputs: Vec<Input>,
    pub atomics: Vec<Atomic>,
    /// The fence between the first two atomics: the f32 add is visible before the u8 add.
    pub fence: Inst,
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

/// Builds the program in code: a dead-result f32 add, a release fence, a u8 add, a seq_cst
/// system b64 cas, a v4.f32 add, an acquire f16x2 add and a bounded inc, each atomic through a
/// pointer of its own.
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

    let add_f32 = global_atomic(AtomicOp::Add, ElemType::F32, p_f32.0, x.into());
    push(&mut kernel, "dead-result f32 add", add_f32, p_f32, None);
    let fence = kernel.push_fence(Fence {
        order: MemoryOrder::Release,
        scope: Scope::Device,
    });

    let add_u8 = global_atomic(AtomicOp::Add, ElemType::U8, p_u8.0, b.into());
    push(&mut kernel, "u8 add", add_u8, p_u8, Some(("o_u8", 0)));

    let mut cas = global_atomic(AtomicOp::Cas, ElemType::B64, p_b64.0, expected.into());
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
    let mut add_v4 = global_atomic(AtomicOp::Add, ElemType::F32, p_v4.0, vector);
    add_v4.shape = VectorShape::V4;
    push(&mut kernel, "v4.f32 add", add_v4, p_v4, Some(("o_v4", 16)));

    let mut add_h2 = global_atomic(AtomicOp::Add, ElemType::F16x2, p_h2.0, h2.into());
    add_h2.order = MemoryOrder::Acquire;
    push(
        &mut kernel,
        "acquire f16x2 add",
        add_h2,
        p_h2,
        Some(("o_h2", 32)),
    );

    let inc = global_atomic(AtomicOp::Inc, ElemType::U32, p_inc.0, bound.into());
    push(&mut kernel, "bounded inc", inc, p_inc, Some(("o_inc", 36)));

    Program {
        module: Module {
            kernels: vec![kernel],
        },
        inputs,
        atomics,
        fence,
        memory: initial_memory(),
    }
}

/// An atomic of `op` on `ty` at `pointer` in global memory, the other fields the defaults.
fn global_atomic(op: AtomicOp, ty: ElemType, pointer: Value, operand: Operand) -> AtomicInst {
    AtomicInst {
        space: AddressSpace::Global,
        ..AtomicInst::new(op, ty, pointer, operand)
    }
}

/// The memory block before the kernel runs: what each atomic finds at its pointer.
fn initial_memory() -> [u8; MEMORY_BYTES] {
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
    memory
}

/// A hand-written unit with the fragments spliced in, and what was left out.
#[derive(Debug, Default)]
pub struct Spliced {
    /// The PTX module or LLVM IR module.
    pub text: String,
    /// The atomics spliced in, by their index in [`Program::atomics`].
    pub spliced: Vec<usize>,
    /// Whether the fence was spliced in.
    pub fence: bool,
    /// The instructions of each atomic's code, by its index in [`Program::atomics`].
    pub sizes: Vec<(usize, u32)>,
    /// Each atomic (or the fence) the target refused, with the rule and the smallest target.
    pub refusals: Vec<RefusedInst>,
}

/// An instruction the target refused: what it is, why, and the smallest target that accepts it,
/// typed (a [`Target`] to lower for next). `Display` writes it as one line.
#[derive(Clone, Debug)]
pub struct RefusedInst {
    /// The instruction, as [`Atomic::what`] (or [`FENCE`]) names it.
    pub what: &'static str,
    /// The target that refused it.
    pub target: Target,
    /// The refusal: rule and reason.
    pub refusal: Refusal,
    /// The smallest target of the backend that accepts it, if any does.
    pub smallest: Option<Target>,
}

impl RefusedInst {
    fn of(what: &'static str, target: Target, error: &LowerError) -> RefusedInst {
        RefusedInst {
            what,
            target,
            refusal: error.refusal.clone(),
            smallest: error.smallest_target(),
        }
    }
}

impl std::fmt::Display for RefusedInst {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: refused by {}: {} [rule {}]; smallest target that accepts it: ",
            self.what, self.target, self.refusal.reason, self.refusal.rule
        )?;
        match self.smallest {
            Some(smallest) => write!(f, "{smallest}"),
            None => f.write_str("no target of the backend"),
        }
    }
}

/// The PTX type a value of `ty` is loaded and stored as: the client's own memory layout.
fn ptx_mem(ty: ElemType) -> &'static str {
    match ty.bits() {
        8 => "u8",
        16 => "b16",
        32 => "b32",
        _ => "b64",
    }
}

/// The client's name of `value`: an input's or a pointer's own name, a result's name in the
/// kernel; `None` for the inc's result, which the client leaves to the fragment.
fn client_name(program: &Program, value: Value) -> Option<String> {
    let kernel = &program.module.kernels[0];
    if let Some(input) = program.inputs.iter().find(|input| input.value == value) {
        return Some(input.name.to_owned());
    }
    if let Some(atomic) = program.atomics.iter().find(|a| a.pointer.0 == value) {
        return Some(atomic.pointer.1.to_owned());
    }
    let inc = program.atomics.iter().find(|a| a.what == "bounded inc")?;
    let inc_result = kernel.atomic(inc.inst).and_then(|a| a.result);
    (inc_result != Some(value)).then(|| kernel.values[value].name.to_string())
}

/// What the client binds and declares for `target`: per instruction, the binding types the
/// target states; and every name of the client's with the type the target wants it declared
/// as (a name per lane where the target keeps lanes apart).
struct Bindings {
    per_inst: Vec<(Inst, BindingTypes)>,
    declared: BTreeMap<String, String>,
}

impl Bindings {
    fn of(program: &Program, verified: &Verified<'_>, target: Target) -> Result<Self, String> {
        let kernel = &program.module.kernels[0];
        let mut bindings = Bindings {
            per_inst: Vec::new(),
            declared: BTreeMap::new(),
        };
        for inst in kernel.insts.keys() {
            let types = target
                .binding_types(verified, 0, inst)
                .map_err(|error| error.to_string())?;
            for value in &types.values {
                for name in lane_names(program, value.value, value.splice.names) {
                    bindings.declared.insert(name, value.splice.ty.clone());
                }
            }
            bindings.per_inst.push((inst, types));
        }
        Ok(bindings)
    }

    /// Binds exactly the values of the instruction spliced, as the target states them.
    fn bind(&self, program: &Program, inst: Inst, names: &mut SpliceNames) {
        names.clear();
        let Some((_, types)) = self.per_inst.iter().find(|(at, _)| *at == inst) else {
            return;
        };
        for value in &types.values {
            let lanes = lane_names(program, value.value, value.splice.names);
            if !lanes.is_empty() {
                names.bind_lanes(value.value, lanes.iter().map(String::as_str));
            }
        }
    }

    /// The type the target keeps `value` in.
    fn type_of(&self, value: Value) -> Option<&str> {
        self.per_inst
            .iter()
            .find_map(|(_, types)| types.get(value))
            .map(|value| value.splice.ty.as_str())
    }
}

/// The client's names of `value`: one, or `<name>_<lane>` per lane; none where it leaves the
/// value to the fragment.
fn lane_names(program: &Program, value: Value, lanes: usize) -> Vec<String> {
    let Some(name) = client_name(program, value) else {
        return Vec::new();
    };
    if lanes == 1 {
        vec![name]
    } else {
        (0..lanes).map(|lane| format!("{name}_{lane}")).collect()
    }
}

/// What an instruction is, for messages.
fn what(program: &Program, inst: Inst) -> &'static str {
    program
        .atomics
        .iter()
        .find(|atomic| atomic.inst == inst)
        .map_or(FENCE, |atomic| atomic.what)
}

/// Splices every instruction of the program for `target`, in program order, each bound as the
/// target states, and hands `each` every fragment spliced with its instruction's number (LLVM
/// fragments continue to the block `after<number>`).
fn splice_all(
    program: &Program,
    verified: &Verified<'_>,
    target: Target,
    bindings: &Bindings,
    mut each: impl FnMut(usize, &Fragment),
) -> Result<Spliced, String> {
    let kernel = &program.module.kernels[0];
    let mut spliced = Spliced::default();
    let mut names = SpliceNames::default();
    let mut fragment = Fragment::default();
    let mut predecessor = String::from("entry");
    for (number, inst) in kernel.insts.keys().enumerate() {
        bindings.bind(program, inst, &mut names);
        names
            .set_numbered("f", number as u32)
            .map_err(|e| e.to_string())?;
        let continuation = format!("after{number}");
        names.set_blocks(&predecessor, &continuation);
        if let Err(error) = target.splice(verified, 0, inst, &names, &mut fragment) {
            let what = what(program, inst);
            spliced.refusals.push(RefusedInst::of(what, target, &error));
            continue;
        }
        predecessor = continuation;
        match program
            .atomics
            .iter()
            .position(|atomic| atomic.inst == inst)
        {
            Some(index) => {
                spliced.spliced.push(index);
                spliced.sizes.push((index, fragment.instructions));
            }
            None => spliced.fence = true,
        }
        each(number, &fragment);
    }
    Ok(spliced)
}

/// One hand-written PTX kernel for `target` (a `ptx:` target) with every instruction it
/// accepts spliced in. Every register of the client's is declared with the type the target
/// states for it ([`Target::binding_types`]).
pub fn ptx_kernel(program: &Program, target: Target) -> Result<Spliced, String> {
    let Target::Ptx(ptx) = target else {
        return Err(format!("{target} is no PTX target"));
    };
    let verified = verify::verify(&program.module).map_err(|d| d[0].to_string())?;
    let kernel = &program.module.kernels[0];
    let bindings = Bindings::of(program, &verified, target)?;
    let mut decls = String::new();
    let mut body = String::new();
    let mut stores = String::new();
    let mut spliced = splice_all(program, &verified, target, &bindings, |number, fragment| {
        for temp in &fragment.temps {
            let _ = writeln!(decls, "\t.reg {} %{};", temp.ty, temp.name);
        }
        let inst = kernel.insts.keys().nth(number).expect("an instruction");
        let _ = writeln!(body, "\t// {}", what(program, inst));
        body.push_str(&fragment.code);
        let atomic = program.atomics.iter().find(|atomic| atomic.inst == inst);
        let (Some(out), Some(result)) = (atomic.and_then(|a| a.out), fragment.results.first())
        else {
            return;
        };
        let ty = kernel.atomic(inst).map_or(ElemType::U32, |a| a.ty);
        for (lane, name) in result.names.iter().enumerate() {
            let at = out + lane * (ty.bits() / 8) as usize;
            let _ = writeln!(stores, "\tst.global.{} [%out+{at}], %{name};", ptx_mem(ty));
        }
    })?;

    let text = &mut spliced.text;
    let _ = writeln!(
        text,
        ".version {}\n.target {}\n.address_size 64\n",
        ptx.isa,
        ptx.sm.name()
    );
    text.push_str(".visible .entry embed(\n\t.param .u64 embed_mem,\n\t.param .u64 embed_args,\n");
    text.push_str("\t.param .u64 embed_out\n)\n{\n\t.reg .b64 %mem, %args, %out;\n");
    for (name, ty) in &bindings.declared {
        let _ = writeln!(text, "\t.reg {ty} %{name};");
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

/// One hand-written LLVM function `@embed(mem, args, out)` for `target` (an `llvm:` target)
/// with every instruction it accepts spliced in, as a module its tools take. Its pointers,
/// loads and stores use the types the target states ([`Target::binding_types`]).
pub fn llvm_function(program: &Program, target: Target) -> Result<Spliced, String> {
    let Target::Llvm(llvm) = target else {
        return Err(format!("{target} is no LLVM target"));
    };
    let verified = verify::verify(&program.module).map_err(|d| d[0].to_string())?;
    let kernel = &program.module.kernels[0];
    let bindings = Bindings::of(program, &verified, target)?;
    // The client's own pointers have the type of the atomics' (global) pointers.
    let gp = bindings
        .type_of(program.atomics[0].pointer.0)
        .ok_or("the first atomic has no address")?
        .to_owned();
    let mut code = String::new();
    let mut stores = String::new();
    let mut spliced = splice_all(program, &verified, target, &bindings, |number, fragment| {
        code.push_str(&fragment.code);
        let _ = writeln!(code, "after{number}:");
        let inst = kernel.insts.keys().nth(number).expect("an instruction");
        let atomic = program.atomics.iter().find(|atomic| atomic.inst == inst);
        let (Some(out), Some(result)) = (atomic.and_then(|a| a.out), fragment.results.first())
        else {
            return;
        };
        let ty = bindings.type_of(result.value).unwrap_or("i32");
        let name = &result.names[0];
        let _ = writeln!(
            stores,
            "  %{name}_to = getelementptr i8, {gp} %out, i64 {out}"
        );
        let _ = writeln!(stores, "  store {ty} %{name}, {gp} %{name}_to");
    })?;
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
        let (name, at) = (input.name, input.offset);
        let ty = bindings
            .type_of(input.value)
            .ok_or("an input no atomic reads")?;
        let _ = writeln!(
            text,
            "  %{name}_at = getelementptr i8, {gp} %args, i64 {at}"
        );
        let _ = writeln!(text, "  %{name} = load {ty}, {gp} %{name}_at");
    }
    text.push_str(&code);
    text.push_str(&stores);
    text.push_str("  ret void\n}\n");
    Ok(spliced)
}

/// The size knob: each atomic's instruction count on `target` and on the same target with
/// plain loops (`+plain-loops`), for the atomics both accept.
pub fn sizes_with_plain_loops(
    program: &Program,
    target: Target,
) -> Result<Vec<(&'static str, u32, u32)>, String> {
    let Target::Ptx(ptx) = target else {
        return Err(format!("{target} has no plain-loops option"));
    };
    let plain = Target::Ptx(atomir::PtxTarget {
        plain_loops: true,
        ..ptx
    });
    let default = ptx_kernel(program, target)?;
    let small = ptx_kernel(program, plain)?;
    Ok(default
        .sizes
        .iter()
        .filter_map(|&(index, size)| {
            let (_, plain) = small.sizes.iter().find(|(at, _)| *at == index)?;
            Some((program.atomics[index].what, size, *plain))
        })
        .collect())
}
