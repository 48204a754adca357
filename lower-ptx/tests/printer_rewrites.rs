//! The PTX printer's rewrites (see the `Rewrites` list in `lower-ptx/src/emit/mod.rs`): which
//! instructions each one leaves out or chooses, read from the printed text. That the printed
//! code still means what the IR says is for the code that runs it (the GPU harness).

mod common;

use atomir_ir::{
    AddressSpace, AtomicInst, AtomicOp, ElemType, Kernel, LowerOptions, MemoryOrder, Predicate,
    Scope, ValueType, VectorShape,
};
use common::{lower, lower_with, on_global, one};

#[test]
fn byte_loops_mask_only_where_the_high_byte_is_read_and_extract_once() {
    let count = |text: &str, opcode: &str| text.matches(opcode).count();
    // add: the sum's high byte is cleared once, before it is placed in the word.
    let add = lower(
        "sm_90",
        one(
            AtomicOp::Add,
            ElemType::U8,
            MemoryOrder::Release,
            Scope::Device,
            AddressSpace::Global,
            true,
        ),
    );
    assert_eq!(count(&add, "and.b16"), 1, "{add}");
    // The old element is extracted in the loop and reused after it (a release loop leaves by
    // its CAS only, so its exit has one edge).
    assert_eq!(count(&add, "shr.u32"), 1, "{add}");
    // unsigned max compares whole registers: both inputs are masked, the result is not.
    let max = lower(
        "sm_90",
        one(
            AtomicOp::Max,
            ElemType::U8,
            MemoryOrder::Release,
            Scope::Device,
            AddressSpace::Global,
            true,
        ),
    );
    assert_eq!(count(&max, "and.b16"), 2, "{max}");
    assert_eq!(count(&max, "shr.u32"), 1, "{max}");
    // An acquire (or relaxed) loop may also leave without a CAS when nothing changes: its exit
    // has two edges, and the old element the loop extracted leaves with it on both, so it is
    // extracted once. (A relaxed one is warp-combined: two loops, one per path.)
    let relaxed = lower(
        "sm_90",
        one(
            AtomicOp::Add,
            ElemType::U8,
            MemoryOrder::Acquire,
            Scope::Device,
            AddressSpace::Global,
            true,
        ),
    );
    assert_eq!(count(&relaxed, "and.b16"), 1, "{relaxed}");
    assert_eq!(count(&relaxed, "shr.u32"), 1, "{relaxed}");
    assert_eq!(count(&relaxed, "atom."), 1, "{relaxed}");
}

#[test]
fn loops_unpack_float_halves_and_shift_integer_ones() {
    let loop_body = |text: &str| {
        let start = text.find("_b1:").expect("a loop");
        let end = text[start..].find("bra").expect("a back edge") + start;
        text[start..end].to_string()
    };
    let on_shared = |op, ty| {
        let mut kernel = Kernel::new("k");
        let addr = kernel.add_param("a", ValueType::Ptr(AddressSpace::Shared));
        let b = kernel.add_param("b", ValueType::Data(ty, VectorShape::V2));
        let mut inst = AtomicInst::new(op, ty, addr, b.into());
        inst.order = MemoryOrder::Acquire;
        inst.space = AddressSpace::Shared;
        inst.shape = VectorShape::V2;
        kernel.push(inst, Some("r"));
        lower("sm_90", kernel)
    };
    // The upper f16 of the word feeds `max.f16`: unpacked (the lower half is truncated).
    let max = loop_body(&on_shared(AtomicOp::Max, ElemType::F16));
    assert!(max.contains("mov.b32 {"), "{max}");
    assert_eq!(max.matches("cvt.u16.u32").count(), 1, "{max}");
    // The upper u16 feeds an integer add, into which ptxas folds the shift: truncated too.
    let add = loop_body(&on_shared(AtomicOp::Add, ElemType::U16));
    assert!(!add.contains("mov.b32 {"), "{add}");
    assert_eq!(add.matches("cvt.u16.u32").count(), 2, "{add}");
}

#[test]
fn signed_byte_lanes_are_sign_extended_from_their_word() {
    let mut kernel = Kernel::new("k");
    let addr = kernel.add_param("a", ValueType::Ptr(AddressSpace::Global));
    let b = kernel.add_param("b", ValueType::Data(ElemType::S8, VectorShape::V4));
    let mut inst = AtomicInst::new(AtomicOp::Max, ElemType::S8, addr, b.into());
    inst.order = MemoryOrder::Release;
    inst.shape = VectorShape::V4;
    kernel.push(inst, Some("r"));
    let max = lower("sm_90", kernel);
    // Each byte of the loaded word is read as signed by one field extraction at its offset;
    // the operands, parameters of the kernel, are sign-extended from their registers.
    for at in ["0x0", "0x8", "0x10", "0x18"] {
        let extraction = format!(", {at}, 0x8;");
        assert_eq!(max.matches(&extraction).count(), 1, "{at}: {max}");
    }
    assert_eq!(max.matches("bfe.s32").count(), 4, "{max}");
    assert_eq!(max.matches("cvt.s16.s8").count(), 4, "{max}");
}

#[test]
fn an_entry_stores_a_result_of_byte_lanes_as_the_words_that_hold_them() {
    let entry = |predicated: bool| {
        let mut kernel = Kernel::new("k");
        let addr = kernel.add_param("a", ValueType::Ptr(AddressSpace::Global));
        let b = kernel.add_param("b", ValueType::Data(ElemType::U8, VectorShape::V8));
        let p = kernel.add_param("p", ValueType::Pred);
        let mut inst = AtomicInst::new(AtomicOp::Xor, ElemType::U8, addr, b.into());
        inst.shape = VectorShape::V8;
        if predicated {
            inst.predicate = Some(Predicate {
                value: p,
                negated: false,
            });
        }
        kernel.push(inst, Some("r"));
        lower_with("sm_90", kernel, &LowerOptions::module())
    };
    // The two words the xors return are the result: stored as they are.
    let plain = entry(false);
    let words: Vec<&str> = plain
        .lines()
        .filter(|line| line.contains("atom.") && line.contains(".xor.b32"))
        .map(|line| {
            line.split_whitespace()
                .nth(1)
                .unwrap()
                .trim_end_matches(',')
        })
        .collect();
    assert_eq!(words.len(), 2, "{plain}");
    let stored = format!("+0], {{{}, {}}};", words[0], words[1]);
    assert!(
        plain
            .lines()
            .any(|line| line.contains("st.global.v2.b32") && line.ends_with(&stored)),
        "{stored}: {plain}"
    );
    // Skipped, the instruction leaves its words unwritten and its result zero: the lanes are
    // stored.
    let predicated = entry(true);
    assert!(!predicated.contains("st.global.v2.b32"), "{predicated}");
    assert!(predicated.contains("st.global.v4.u8"), "{predicated}");
}

#[test]
fn word_addresses_are_folded_into_their_accesses_and_top_bytes_are_not_masked() {
    let lines = |text: &str, opcode: &str| text.lines().filter(|l| l.contains(opcode)).count();
    // A v8.u8 exch takes two words; the second word's load and CAS read `[base+4]`, and no
    // register holds that address.
    let exch = lower(
        "sm_90",
        on_global(
            AtomicOp::Exch,
            ElemType::U8,
            MemoryOrder::Release,
            VectorShape::V8,
        ),
    );
    assert_eq!(lines(&exch, "+4]"), 2, "{exch}");
    assert_eq!(lines(&exch, "add.u64"), 0, "{exch}");
    // Each word's four operand bytes are zero-extended and shifted into place; the byte shifted
    // by 24 loses its high byte to the shift, so only the three others are masked, per word.
    assert_eq!(lines(&exch, "and.b16"), 6, "{exch}");
    // A float min/max element is read by its integer atomic and by its fallback loop's load and
    // CAS: its address stays in a register.
    let max = lower(
        "sm_90",
        on_global(
            AtomicOp::Max,
            ElemType::F32,
            MemoryOrder::Relaxed,
            VectorShape::V2,
        ),
    );
    assert_eq!(lines(&max, "add.u64"), 1, "{max}");
    assert_eq!(lines(&max, "+4]"), 0, "{max}");
}

#[test]
fn an_exch_loop_does_not_take_its_old_word_apart() {
    let exch = lower(
        "sm_90",
        on_global(
            AtomicOp::Exch,
            ElemType::U16,
            MemoryOrder::Release,
            VectorShape::V2,
        ),
    );
    let start = exch.find("_b1:").expect("a loop");
    let end = exch[start..].find("bra").expect("a back edge") + start;
    let body = &exch[start..end];
    // The loop only compares and swaps: the operand word is built before it, and the old
    // halves are unpacked once, after it.
    assert!(
        !body.contains("shr") && !body.contains("cvt") && !body.contains("or.b32"),
        "{exch}"
    );
    assert!(exch[end..].contains("mov.b32 {"), "{exch}");
}

#[test]
fn operand_bytes_are_joined_by_adds_and_halves_by_ors() {
    let lines = |text: &str, opcode: &str| text.lines().filter(|l| l.contains(opcode)).count();
    let and = |ty| {
        lower(
            "sm_90",
            on_global(AtomicOp::And, ty, MemoryOrder::Release, VectorShape::V8),
        )
    };
    // Two words of four bytes: three joins each, which ptxas fuses with the shifts.
    let bytes = and(ElemType::U8);
    assert_eq!(lines(&bytes, "add.u32"), 6, "{bytes}");
    assert_eq!(lines(&bytes, "or.b32"), 0, "{bytes}");
    // Four words of two halves: one join each, which ptxas turns into one `PRMT`.
    let halves = and(ElemType::U16);
    assert_eq!(lines(&halves, "or.b32"), 4, "{halves}");
    assert_eq!(lines(&halves, "add.u32"), 0, "{halves}");
}

#[test]
fn a_loop_that_may_skip_its_cas_leaves_with_its_loaded_word() {
    let loop_moves = |order| {
        let text = lower(
            "sm_90",
            on_global(AtomicOp::UsubSat, ElemType::U64, order, VectorShape::Scalar),
        );
        let start = text.find("_b1:").expect("a loop");
        let end = text.find("_done:").expect("an exit");
        let moves = text[start..end]
            .lines()
            .filter(|line| line.contains("mov.b64") && !line.contains("0x"))
            .count();
        (moves, text)
    };
    // Relaxed: both exits leave with the word the attempt loaded (the CAS returned it), so the
    // only copy is the back edge's.
    let (moves, text) = loop_moves(MemoryOrder::Relaxed);
    assert_eq!(moves, 1, "{text}");
    // Release: one exit, from the CAS, whose result it passes on.
    let (moves, text) = loop_moves(MemoryOrder::Release);
    assert_eq!(moves, 2, "{text}");
}

#[test]
fn wide_vector_loads_and_stores_take_the_widest_vector_accesses() {
    let access = |op: AtomicOp, ty: ElemType, shape: VectorShape| {
        let mut kernel = Kernel::new("k");
        let addr = kernel.add_param("a", ValueType::Ptr(AddressSpace::Global));
        let mut inst = if op == AtomicOp::Load {
            AtomicInst::load(ty, addr)
        } else {
            let b = kernel.add_param("b", ValueType::Data(ty, shape));
            AtomicInst::new(op, ty, addr, b.into())
        };
        inst.order = if op == AtomicOp::Load {
            MemoryOrder::Acquire
        } else {
            MemoryOrder::Release
        };
        inst.shape = shape;
        inst.space = AddressSpace::Global;
        kernel.push(inst, (op == AtomicOp::Load).then_some("r"));
        let text = lower("sm_90", kernel);
        let accesses: Vec<String> = text
            .lines()
            .filter(|line| {
                line.trim_start()
                    .starts_with(if op == AtomicOp::Load { "ld." } else { "st." })
            })
            .map(|line| line.trim().to_string())
            .collect();
        (accesses, text)
    };
    // Eight bytes: two `.v4` loads, at +0 and +4, each acquire (not eight `ld.b8`).
    let (loads, text) = access(AtomicOp::Load, ElemType::U8, VectorShape::V8);
    assert_eq!(loads.len(), 2, "{text}");
    assert!(
        loads[0].starts_with("ld.acquire.gpu.global.v4.b8 {"),
        "{text}"
    );
    assert!(loads[1].ends_with("[%a+4];"), "{text}");
    // Four 64-bit elements: two `.v2` stores, at +0 and +16, each after its release fence.
    let (stores, text) = access(AtomicOp::Store, ElemType::U64, VectorShape::V4);
    assert_eq!(stores.len(), 2, "{text}");
    assert!(
        stores
            .iter()
            .all(|s| s.starts_with("st.release.gpu.global.v2.b64")),
        "{text}"
    );
    assert!(stores[1].contains("[%a+16]"), "{text}");
    // A vector the target reads in one access stays one.
    let (loads, text) = access(AtomicOp::Load, ElemType::F32, VectorShape::V4);
    assert_eq!(loads.len(), 1, "{text}");
    // Eight halves: one `.v4` of the four words that hold them, each word's halves moved into
    // the result's lanes.
    let (loads, text) = access(AtomicOp::Load, ElemType::U16, VectorShape::V8);
    assert_eq!(loads.len(), 1, "{text}");
    assert!(
        loads[0].starts_with("ld.acquire.gpu.global.v4.b32 {"),
        "{text}"
    );
    let word = loads[0]["ld.acquire.gpu.global.v4.b32 {".len()..]
        .split(',')
        .next()
        .unwrap();
    assert!(
        text.contains(&format!("mov.b32 {{%r$0, %r$1}}, {word};")),
        "{text}"
    );
    // Four halves stored: one `.v2` of the two words packed from them.
    let (stores, text) = access(AtomicOp::Store, ElemType::F16, VectorShape::V4);
    assert_eq!(
        stores,
        ["st.release.gpu.global.v2.b32 [%a], {%_r0, %_r1};"],
        "{text}"
    );
    assert!(text.contains("mov.b32 %_r0, {%b$0, %b$1};"), "{text}");
    assert!(text.contains("mov.b32 %_r1, {%b$2, %b$3};"), "{text}");
}

#[test]
fn an_entry_reads_its_16_bit_parameters_zero_extended_for_the_body_to_widen_by() {
    let kernel = || {
        on_global(
            AtomicOp::And,
            ElemType::U16,
            MemoryOrder::Release,
            VectorShape::V4,
        )
    };
    let module_text = lower_with("sm_90", kernel(), &LowerOptions::module());
    // Each lane is read twice, as 16 bits and zero-extended into a 32-bit register ...
    let wide: Vec<String> = (0..4)
        .map(|lane| {
            let load = format!(", [k_param_1+{}];", 2 * lane);
            let line = module_text
                .lines()
                .find(|line| {
                    line.trim_start().starts_with("ld.param.u16 %_r") && line.ends_with(&load)
                })
                .unwrap_or_else(|| panic!("lane {lane}: {module_text}"));
            line.split_whitespace()
                .nth(1)
                .unwrap()
                .trim_end_matches(',')
                .to_string()
        })
        .collect();
    // ... which the words of the two `atom.and.b32` are built from, with no `cvt` of the lanes.
    for register in &wide {
        let copy = format!(", {register};");
        assert!(
            module_text
                .lines()
                .any(|line| line.trim_start().starts_with("mov.b32") && line.ends_with(&copy)),
            "{register}: {module_text}"
        );
    }
    assert!(!module_text.contains("cvt.u32.u16"), "{module_text}");
    // Spliced into a client's code the operands are its 16-bit registers, widened by `cvt`.
    let listing = lower("sm_90", kernel());
    assert_eq!(listing.matches("cvt.u32.u16").count(), 4, "{listing}");
    // A lane the body reads only as 16 bits (a native f16 add's operand) is read once.
    let native = lower_with(
        "sm_90",
        on_global(
            AtomicOp::Add,
            ElemType::F16,
            MemoryOrder::Relaxed,
            VectorShape::Scalar,
        ),
        &LowerOptions::module(),
    );
    assert_eq!(native.matches("k_param_1+0]").count(), 1, "{native}");
}
