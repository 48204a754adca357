//! Warp-combined forms printed once per lowering as a `.func` and called by each instruction of
//! the form (`emit/shared.rs`): where the definitions go, which instructions share one, and
//! where the form stays in place.

use atomir_ir::{
    AddressSpace, AtomicInst, AtomicOp, Backend, ElemType, Kernel, LowerOptions, Module, Operand,
    Predicate, Scalar, ValueType,
};
use atomir_ptx::PtxTarget;

/// A kernel of exact f32 adds on global memory (each a serial fold on `sm_90`): with a
/// register operand and its result used, with a constant operand and its result used, with
/// its result dead, and predicated; and a u8 add (a word fold).
fn adds(name: &str) -> Kernel {
    let mut kernel = Kernel::new(name);
    let p = kernel.add_param("p", ValueType::Ptr(AddressSpace::Global));
    let v = kernel.add_param("v", ValueType::scalar(ElemType::F32));
    let b = kernel.add_param("b", ValueType::scalar(ElemType::U8));
    let guard = kernel.add_param("g", ValueType::Pred);
    let add = |operand: Operand| AtomicInst::new(AtomicOp::Add, ElemType::F32, p, operand);
    kernel.push(add(v.into()), Some("r0"));
    let one = kernel.constant(1.0f32.to_bits().into());
    kernel.push(add(Operand::Scalar(Scalar::Const(one))), Some("r1"));
    kernel.push(add(v.into()), None);
    let mut guarded = add(v.into());
    guarded.predicate = Some(Predicate {
        value: guard,
        negated: false,
    });
    kernel.push(guarded, Some("r2"));
    kernel.push(
        AtomicInst::new(AtomicOp::Add, ElemType::U8, p, b.into()),
        Some("r3"),
    );
    kernel
}

fn lower(kernels: Vec<Kernel>, options: &LowerOptions) -> String {
    let module = Module { kernels };
    let verified = atomir_ir::verify::verify(&module).expect("the kernels verify");
    let mut out = String::new();
    PtxTarget::parse("sm_90")
        .unwrap()
        .lower(&verified, options, &mut out)
        .expect("sm_90 lowers the adds");
    out
}

/// The names of the functions `text` defines, in order.
fn definitions(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|line| line.strip_prefix(".func "))
        .map(|rest| {
            let rest = rest.rsplit_once(") ").map_or(rest, |(_, name)| name);
            rest.split('(').next().unwrap_or_default()
        })
        .collect()
}

/// The functions `text` calls, in order.
fn calls(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|line| line.trim_start().strip_prefix("call "))
        .filter_map(|call| {
            call.split([' ', ',', '(', ')', ';'])
                .find(|word| word.starts_with("__atomir_"))
        })
        .collect()
}

#[test]
fn a_module_defines_each_form_once_before_the_first_entry_that_calls_it() {
    let text = lower(vec![adds("ka"), adds("kb")], &LowerOptions::module());
    let defined = definitions(&text);
    // The used and the constant operand's adds print the same function; the dead one its own.
    assert_eq!(
        defined,
        [
            "__atomir_WarpSerialFold_0",
            "__atomir_WarpSerialFold_1",
            "__atomir_WarpWordFold_2"
        ],
        "{text}"
    );
    let called = calls(&text);
    assert_eq!(
        called.len(),
        10,
        "every add of both kernels is a call: {text}"
    );
    for name in &defined {
        let definition = text
            .find(&format!(") {name}("))
            .or(text.find(&format!(".func {name}(")));
        let first_call = text
            .find(&format!(", {name},"))
            .or(text.find(&format!("call {name},")));
        let first_entry = text.find(".visible .entry").unwrap();
        assert!(
            definition < Some(first_entry) && first_entry < first_call.unwrap(),
            "{name}: {text}"
        );
    }
    // The atomics are in the functions only; the kernels hold calls.
    let entries = &text[text.find(".visible .entry").unwrap()..];
    assert!(
        !entries.contains("atom.") && !entries.contains("red."),
        "{entries}"
    );
    // The predicate guards the call, and the skipped result is zero.
    assert!(
        text.contains("\tmov.b32 %r2, 0;\n\t@!%g bra $L3_end;\n\t{\n"),
        "{text}"
    );
    // A constant operand is the call's, stored from a register of the kernel.
    assert!(text.contains("\tst.param.b32 [_op0], %_r"), "{text}");
}

#[test]
fn a_listing_defines_each_form_after_the_first_kernel_that_calls_it() {
    let text = lower(vec![adds("ka"), adds("kb")], &LowerOptions::default());
    let second = text.find("// kernel kb").unwrap();
    assert_eq!(definitions(&text[..second]).len(), 3, "{text}");
    assert!(definitions(&text[second..]).is_empty(), "{text}");
    assert_eq!(calls(&text[second..]).len(), 5, "{text}");
    let first_definition = text.find(".func ").unwrap();
    assert!(calls(&text[..first_definition]).len() == 5, "{text}");
}

#[test]
fn counting_each_instructions_code_prints_every_form_where_it_stands() {
    let options = LowerOptions::default().with_count_instructions(true);
    let module = Module {
        kernels: vec![adds("ka")],
    };
    let verified = atomir_ir::verify::verify(&module).unwrap();
    let mut text = String::new();
    let report = PtxTarget::parse("sm_90")
        .unwrap()
        .lower(&verified, &options, &mut text)
        .unwrap();
    assert!(
        definitions(&text).is_empty() && calls(&text).is_empty(),
        "{text}"
    );
    assert!(text.contains("match.any.sync.b64"), "{text}");
    // Each add's count is its whole form: more than a hundred instructions.
    assert!(
        report.instructions().iter().all(|&count| count > 100),
        "{:?}",
        report.instructions()
    );
}

#[test]
fn a_function_is_named_apart_from_every_entry() {
    let text = lower(
        vec![
            adds("__atomir_WarpSerialFold_0"),
            adds("__atomir_WarpSerialFold_1"),
        ],
        &LowerOptions::module(),
    );
    let defined = definitions(&text);
    assert!(
        defined
            .iter()
            .all(|name| !text.contains(&format!(".entry {name}("))),
        "{defined:?}: {text}"
    );
    let mut distinct = defined.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), defined.len(), "{defined:?}");
}
