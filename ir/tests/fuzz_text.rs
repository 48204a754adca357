//! Mutated and hostile inputs: parse, verify and print never panic or hang, and whatever parses
//! prints to a fixed point.

mod text_common;

use text_common::DESIGN_EXAMPLE;

use std::time::{Duration, Instant};

use atomir_ir::kernel::Module;
use atomir_ir::matrix::all_cells;
use atomir_ir::text::{parse, print};
use proptest::prelude::*;

const LITERALS: &str = "\
kernel lits(%a: ptr.generic, %h: f16x2, %q: v2.b64) {
  atomic.exch.s8 [%a], -128
  atomic.exch.b16 [%a], 0xFFFF
  %r = atomic.cas.f64 [%a], -0.0, 1e-300
  atomic.exch.f32 [%a], nan
  atomic.exch.v2.f16 [%a], {inf, -1.5}
  atomic.add.f16x2 [%a], %h
  atomic.exch.v2.b64 [%a], %q
  atomic.exch.b128 [%a], 340282366920938463463374607431768211455
}
";

fn seeds() -> Vec<String> {
    let mut seeds = vec![DESIGN_EXAMPLE.to_string(), LITERALS.to_string()];
    // Every 997th cell, and every fence (the fences come last and are few).
    let sample: Vec<_> = all_cells()
        .enumerate()
        .filter(|(index, cell)| index % 997 == 0 || cell.access().is_none())
        .map(|(_, cell)| cell.kernel())
        .collect();
    seeds.push(print(&Module { kernels: sample }));
    seeds
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    "(",
    ")",
    "%x",
    "%",
    "@",
    "@!",
    "=",
    ":",
    "\n",
    "#",
    " ",
    "kernel",
    "atomic.",
    "atomic.add.u32",
    "%v = atomic.load.acquire.u32 [%x]",
    "atomic.store.release.u32",
    "fence.acq_rel.device",
    "fence.",
    ".usub_sat",
    ".fminimum",
    ".u32",
    ".v8",
    ".global",
    ".evict_last",
    "-",
    "0x",
    "1e",
    "nan",
    "-inf",
    "99999999999999999999999999999999999999999",
    "0xffffffffffffffffffffffffffffffffff",
    "ptr.",
    "pred",
    "v4.f32",
    "é",
    "\u{0}",
    "\t",
    ".",
    "..",
    "{{{{{{{{{{{{",
    "}}}}}}}}",
    "§",
    "\r\n",
];

#[derive(Clone, Debug)]
enum Mutation {
    FlipByte { at: usize, to: u8 },
    Insert { at: usize, token: usize },
    Delete { at: usize, len: usize },
    Truncate { at: usize },
    DuplicateLine { line: usize },
    DeleteLine { line: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        1 => (any::<usize>(), any::<u8>()).prop_map(|(at, to)| Mutation::FlipByte { at, to }),
        1 => (any::<usize>(), 0..TOKENS.len()).prop_map(|(at, token)| Mutation::Insert { at, token }),
        1 => (any::<usize>(), 1..12usize).prop_map(|(at, len)| Mutation::Delete { at, len }),
        1 => any::<usize>().prop_map(|at| Mutation::Truncate { at }),
        3 => any::<usize>().prop_map(|line| Mutation::DuplicateLine { line }),
        2 => any::<usize>().prop_map(|line| Mutation::DeleteLine { line }),
    ]
}

fn apply(bytes: &mut Vec<u8>, mutation: &Mutation) {
    let len = bytes.len().max(1);
    match *mutation {
        Mutation::FlipByte { at, to } => {
            if !bytes.is_empty() {
                bytes[at % len] = to;
            }
        }
        Mutation::Insert { at, token } => {
            let at = at % (bytes.len() + 1);
            bytes.splice(at..at, TOKENS[token].bytes());
        }
        Mutation::Delete { at, len: count } => {
            let at = at % len;
            let end = (at + count).min(bytes.len());
            if at < end {
                bytes.drain(at..end);
            }
        }
        Mutation::Truncate { at } => bytes.truncate(at % len),
        Mutation::DuplicateLine { line } | Mutation::DeleteLine { line } => {
            let text = String::from_utf8_lossy(bytes).into_owned();
            let mut lines: Vec<&str> = text.split('\n').collect();
            let index = line % lines.len();
            if matches!(mutation, Mutation::DuplicateLine { .. }) {
                lines.insert(index, lines[index]);
            } else {
                lines.remove(index);
            }
            *bytes = lines.join("\n").into_bytes();
        }
    }
}

/// Parses, verifies and prints `text`; checks the fixed point and the time taken.
fn exercise(text: &str) -> Result<(), TestCaseError> {
    let start = Instant::now();
    let parsed = parse(text);
    if let Ok(module) = &parsed {
        let verdict = verify(module);
        let printed = print(module);
        let reparsed = parse(&printed);
        prop_assert!(
            reparsed.is_ok(),
            "printed text does not parse: {reparsed:?}\n{printed}"
        );
        let reparsed = reparsed.unwrap();
        prop_assert_eq!(&print(&reparsed), &printed);
        // The verdict survives printing (positions move, the violations do not).
        let count = |v: &Result<(), Vec<_>>| v.as_ref().map_or_else(Vec::len, |_| 0);
        prop_assert_eq!(count(&verify(&reparsed)), count(&verdict));
    } else if let Err(errors) = &parsed {
        prop_assert!(!errors.is_empty());
        for error in errors {
            prop_assert!(error.loc.line >= 1 && error.loc.col >= 1, "{error}");
            prop_assert!(!error.message.is_empty());
        }
    }
    prop_assert!(
        start.elapsed() < Duration::from_secs(2),
        "took {:?}",
        start.elapsed()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn mutated_inputs_never_break_the_front_end(
        seed in 0..3usize,
        mutations in prop::collection::vec(mutation(), 1..5),
    ) {
        let seeds = seeds();
        let mut bytes = seeds[seed].clone().into_bytes();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        exercise(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn arbitrary_text_never_breaks_the_front_end(text in "\\PC{0,200}") {
        exercise(&text)?;
    }

    #[test]
    fn token_soup_never_breaks_the_front_end(
        tokens in prop::collection::vec(0..TOKENS.len(), 0..80),
    ) {
        let text: String = tokens.iter().map(|&t| TOKENS[t]).collect::<Vec<_>>().join(" ");
        exercise(&format!("kernel k(%x: ptr.global) {{\n{text}\n}}\n"))?;
        exercise(&text)?;
    }
}

#[test]
fn seeds_are_valid_and_stable() {
    for seed in seeds() {
        let module = parse(&seed).expect("seed parses");
        assert_eq!(verify(&module), Ok(()), "{seed}");
        exercise(&seed).unwrap();
    }
}

#[test]
fn hostile_inputs() {
    let deep_open = format!(
        "kernel k(%a: ptr.global) {{\n  atomic.add.u32 [%a], {}\n}}\n",
        "{".repeat(100_000)
    );
    let deep_close = format!("kernel k() {{{}", "}".repeat(100_000));
    let huge_number = format!(
        "kernel k(%a: ptr.global) {{\n  atomic.add.u32 [%a], {}\n}}\n",
        "9".repeat(10_000)
    );
    let huge_hex = format!(
        "kernel k(%a: ptr.global) {{\n  atomic.add.f64 [%a], 0x{}\n}}\n",
        "f".repeat(10_000)
    );
    let huge_float = format!(
        "kernel k(%a: ptr.global) {{\n  atomic.add.f32 [%a], 1{}.5e99999999999999999999\n}}\n",
        "0".repeat(10_000)
    );
    let long_qualifiers = format!(
        "kernel k(%a: ptr.global) {{\n  atomic.add{} [%a], 1\n}}\n",
        ".relaxed".repeat(10_000)
    );
    let many_kernels = "kernel k(\n".repeat(10_000);
    let cases: Vec<String> = vec![
        String::new(),
        "\n\n\n".into(),
        "kernel".into(),
        "kernel k(".into(),
        "kernel k(%".into(),
        "kernel k(%a: ptr.global) {".into(),
        "kernel k(%a: ptr.global) {\n  @".into(),
        "kernel k(%a: ptr.global) {\n  @!%".into(),
        "kernel k(%a: ptr.global) {\n  atomic.add.u32 [%a], {1, 2".into(),
        "\u{0}\u{1}\u{7f}\u{feff}kernel\u{2028}".into(),
        "}}}}]]]]))))".into(),
        "kernel k(%a: ptr.global) {\n  atomic.add.u32 [%a], -\n}".into(),
        "kernel k(%a: ptr.global) {\n  atomic.add.f32 [%a], 1e\n}".into(),
        "kernel k(%a: ptr.global) {\n  atomic.add.f32 [%a], 1e+\n}".into(),
        "kernel k(%a: ptr.global) {\n  atomic.add.f32 [%a], 0x\n}".into(),
        "kernel k(%a: ptr.global) {\n  atomic.add.f32 [%a], --1\n}".into(),
        deep_open,
        deep_close,
        huge_number,
        huge_hex,
        huge_float,
        long_qualifiers,
        many_kernels,
    ];
    for case in &cases {
        let start = Instant::now();
        let result = parse(case);
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "slow on {:?}",
            &case[..case.len().min(60)]
        );
        if let Ok(module) = &result {
            let _ = verify(module);
            exercise(case).unwrap();
        }
    }
    // Every one of these is broken somewhere.
    let accepted: Vec<&str> = cases
        .iter()
        .filter(|c| parse(c).is_ok())
        .map(|c| &c[..c.len().min(80)])
        .collect();
    assert!(accepted.is_empty(), "{accepted:?}");
}

/// A duplicated instruction line still parses; the verifier then objects only to redefined
/// results, and printing keeps both the text and the verdict stable.
#[test]
fn duplicated_lines_keep_the_fixed_point() {
    let lines: Vec<&str> = DESIGN_EXAMPLE.lines().collect();
    let mut parsed = 0;
    for index in 2..lines.len() - 1 {
        let mut mutated = lines.clone();
        mutated.insert(index, lines[index]);
        let text = mutated.join("\n");
        let module = parse(&text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        parsed += 1;
        let defines_result = lines[index].trim_start().starts_with('%')
            || lines[index].trim_start().starts_with("@%p %");
        match verify(&module) {
            Ok(()) => assert!(!defines_result, "{text}"),
            Err(errors) => {
                assert!(defines_result, "{errors:?}");
                assert_eq!(errors.len(), 1);
                assert!(errors[0].message.contains("is already defined"));
                assert_eq!(errors[0].loc.line as usize, index + 2);
            }
        }
        exercise(&text).unwrap();
    }
    assert_eq!(parsed, 7);
}

mod literal_bits {
    use super::*;
    use atomir_ir::kernel::{AtomicInst, Kernel, Operand, Scalar};
    use atomir_ir::types::{AtomicOp, ElemType, TypeClass, ValueType, VectorShape};
    use atomir_ir::AddressSpace;

    fn constant_of(kernel: &Kernel) -> u128 {
        let inst = kernel.atomics().next().unwrap().1;
        match inst.operand {
            Some(Operand::Scalar(Scalar::Const(c))) => kernel.constants[c],
            Some(Operand::Vector(list)) => match kernel.vector_elements(list)[1] {
                Scalar::Const(c) => kernel.constants[c],
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Any bits of any element type print to a literal that parses back to the same bits
        /// (NaN payloads included), in scalar and vector position.
        #[test]
        fn printed_literals_parse_to_the_same_bits(
            type_index in 0..ElemType::ALL.len(),
            raw in any::<u128>(),
            small in any::<bool>(),
            vector in any::<bool>(),
        ) {
            let ty = ElemType::ALL[type_index];
            let width = ty.bits();
            let mask = if width == 128 { u128::MAX } else { (1u128 << width) - 1 };
            // Half the cases near zero, where integer and float spellings are most varied.
            let bits = if small { raw % 1024 } else { raw } & mask;
            let mut kernel = Kernel::new("lit");
            let a = kernel.add_param("a", ValueType::Ptr(AddressSpace::Global));
            let constant = kernel.constant(bits);
            let mut inst = AtomicInst::new(AtomicOp::Exch, ty, a, constant.into());
            if vector {
                let x = kernel.add_param("x", ValueType::scalar(ty));
                inst.shape = VectorShape::V2;
                inst.operand = Some(kernel.vector(&[Scalar::Value(x), Scalar::Const(constant)]));
            }
            kernel.push(inst, Some("r"));
            let module = Module { kernels: vec![kernel] };
            prop_assert_eq!(verify(&module), Ok(()));
            let printed = print(&module);
            let reparsed = parse(&printed);
            prop_assert!(reparsed.is_ok(), "{:?}\n{}", reparsed, printed);
            let reparsed = reparsed.unwrap();
            prop_assert_eq!(constant_of(&reparsed.kernels[0]), bits, "{}", printed);
            prop_assert_eq!(print(&reparsed), printed.clone());
            if ty.class() == TypeClass::Float && !printed.contains("0x") {
                prop_assert!(printed.lines().nth(1).unwrap().rsplit(", ").next().unwrap()
                    .contains(['.', 'e']), "{}", printed);
            }
        }
    }
}

/// The verifier's answer without the proof, to compare with `Ok(())`.
fn verify(module: &atomir_ir::Module) -> Result<(), Vec<atomir_ir::Diagnostic>> {
    atomir_ir::verify::verify(module).map(|_| ())
}
