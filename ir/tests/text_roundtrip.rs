//! The text form round-trips: parse → print → parse → print is a fixed point, for every
//! qualifier combination.

mod text_common;

use text_common::DESIGN_EXAMPLE;

use atomir_ir::kernel::{AtomicInst, InstData, Module, Predicate};
use atomir_ir::matrix::{all_cells, lax_cells};
use atomir_ir::text::{parse, print};
use atomir_ir::types::{AtomicOp, CacheHint, ElemType, ValueType, VectorShape};
use atomir_ir::{AddressSpace, MemoryOrder, Operand, Scalar, Scope};
use pretty_assertions::assert_eq;

fn atomic(inst: &InstData) -> &AtomicInst {
    inst.as_atomic().expect("an atomic instruction")
}

fn parse_ok(text: &str) -> Module {
    match parse(text) {
        Ok(module) => module,
        Err(errors) => {
            let rendered: Vec<String> = errors.iter().map(|e| e.render("input")).collect();
            panic!(
                "parse failed:\n{}\n--- input ---\n{text}",
                rendered.join("\n")
            )
        }
    }
}

/// print(parse(text)) is canonical: parsing and printing it again changes nothing.
fn assert_fixed_point(text: &str) -> String {
    let printed = print(&parse_ok(text));
    let reprinted = print(&parse_ok(&printed));
    assert_eq!(printed, reprinted);
    printed
}

#[test]
fn design_example_parses_and_prints_canonically() {
    let module = parse_ok(DESIGN_EXAMPLE);
    assert_eq!(module.kernels.len(), 1);
    let kernel = &module.kernels[0];
    assert_eq!(kernel.name, "histogram");
    assert_eq!(kernel.params.len(), 6);
    assert_eq!(kernel.insts.len(), 7);
    let printed = assert_fixed_point(DESIGN_EXAMPLE);
    let expected = "\
kernel histogram(%bins: ptr.global, %x: u32, %f: f32, %lim: u32, %p: pred, %s: ptr.shared) {
  %old = atomic.add.relaxed.device.global.u32 [%bins], %x
  atomic.add.relaxed.device.global.u32 [%bins], 1
  %v = atomic.add.acq_rel.device.global.v4.f32 [%bins], {%f, %f, %f, %f}
  %c = atomic.cas.seq_cst.system.global.b32 [%bins], %x, 7
  @%p %i = atomic.inc.relaxed.block.shared.u32 [%s], %lim
  @!%p atomic.max.release.device.global.f32 [%bins], %f
  %h = atomic.add.relaxed.device.global.u32.evict_last [%bins], %x
}
";
    assert_eq!(printed, expected);
}

#[test]
fn design_example_records_positions() {
    let module = parse_ok(DESIGN_EXAMPLE);
    let kernel = &module.kernels[0];
    assert_eq!((kernel.loc.line, kernel.loc.col), (2, 1));
    let locs: Vec<(u32, u32)> = kernel
        .insts
        .keys()
        .map(|i| (kernel.inst_locs[i].line, kernel.inst_locs[i].col))
        .collect();
    assert_eq!(
        locs,
        [(3, 3), (4, 3), (5, 3), (6, 3), (7, 3), (8, 3), (9, 3)]
    );
    let bins = kernel.params[0].value;
    assert_eq!(
        (kernel.values[bins].loc.line, kernel.values[bins].loc.col),
        (2, 18)
    );
    let inc = atomic(kernel.insts.values().nth(4).unwrap());
    let i = inc.result.unwrap();
    assert_eq!(
        (kernel.values[i].loc.line, kernel.values[i].loc.col),
        (7, 7)
    );
    assert_eq!(inc.predicate.map(|p| p.negated), Some(false));
    assert_eq!(
        atomic(kernel.insts.values().nth(5).unwrap())
            .predicate
            .map(|p| p.negated),
        Some(true)
    );
}

#[test]
fn omitted_qualifiers_take_the_defaults() {
    let module = parse_ok("kernel k(%a: ptr.generic, %x: u32) {\n  atomic.add.u32 [%a], %x\n}\n");
    let inst = *atomic(module.kernels[0].insts.values().next().unwrap());
    assert_eq!(inst.order, MemoryOrder::Relaxed);
    assert_eq!(inst.scope, Scope::Device);
    assert_eq!(inst.space, AddressSpace::Generic);
    assert_eq!(inst.shape, VectorShape::Scalar);
    assert_eq!(inst.hint, None);
    assert_eq!(inst.result, None);
    assert!(print(&module).contains("atomic.add.relaxed.device.generic.u32 [%a], %x"));
}

/// What must survive printing and parsing: every qualifier, which operands there are and
/// whether there is a result (the ids of values and constants may be renumbered).
fn shape_of(inst: &InstData) -> String {
    match inst {
        InstData::Atomic(a) => format!(
            "{:?}",
            (
                a.op,
                a.ty,
                a.shape,
                a.order,
                a.scope,
                a.space,
                a.hint,
                a.laxity,
                a.operand.is_some(),
                a.new_value.is_some(),
                a.result.is_some()
            )
        ),
        InstData::Fence(fence) => format!("{fence:?}"),
    }
}

/// Every matrix cell (loads, stores and fences included) and every lax cell, printed, parses back to the same
/// instruction and prints identically.
#[test]
fn every_matrix_cell_round_trips() {
    let mut module = Module::default();
    module.kernels.extend(
        all_cells()
            .map(|cell| cell.kernel())
            .chain(lax_cells().map(|cell| cell.kernel())),
    );
    let count = module.kernels.len();
    assert!(count > 10_000);
    let printed = print(&module);
    let parsed = parse_ok(&printed);
    assert_eq!(parsed.kernels.len(), count);
    for (original, reparsed) in module.kernels.iter().zip(&parsed.kernels) {
        assert_eq!(original.name, reparsed.name);
        let a = original.insts.values().next().unwrap();
        let b = reparsed.insts.values().next().unwrap();
        assert_eq!(shape_of(a), shape_of(b), "{}", original.name);
        let params: Vec<ValueType> = original.params.iter().map(|p| p.ty).collect();
        let reparams: Vec<ValueType> = reparsed.params.iter().map(|p| p.ty).collect();
        assert_eq!(params, reparams);
    }
    assert_eq!(print(&parsed), printed);
}

/// Predicates, hints, literals and both operand forms on top of every op × type × shape.
#[test]
fn predicates_hints_and_literals_round_trip() {
    let mut text = String::new();
    for (index, &op) in AtomicOp::ALL.iter().enumerate() {
        for &ty in ElemType::ALL {
            if !ty.supports(op) {
                continue;
            }
            for &shape in VectorShape::ALL {
                let hint = CacheHint::ALL[index % CacheHint::ALL.len()];
                let shape_q = if shape.is_vector() {
                    format!(".{shape}")
                } else {
                    String::new()
                };
                let data = if shape.is_vector() {
                    format!("{shape}.{ty}")
                } else {
                    ty.to_string()
                };
                let literal = if ty.is_packed() {
                    "0x3c00bc00"
                } else if ty.is_float() {
                    "-1.5"
                } else {
                    "7"
                };
                let operand = if shape.is_vector() {
                    let mut items = vec!["%x".to_string(); shape.len()];
                    items[0] = literal.to_string();
                    format!("{{{}}}", items.join(", "))
                } else {
                    literal.to_string()
                };
                let second = if op == AtomicOp::Cas { ", %v" } else { "" };
                // A load has no operand; a store has no result.
                let (operand, plain) = if op == AtomicOp::Load {
                    (String::new(), String::new())
                } else {
                    (format!(", {operand}{second}"), format!(", %v{second}"))
                };
                let result = if op == AtomicOp::Store { "" } else { "%r = " };
                text.push_str(&format!(
                    "kernel k_{op}_{ty}_{shape}(%a: ptr.global, %x: {ty}, %v: {data}, %p: pred) {{\n\
                     \x20 @%p {result}atomic.{op}.global{shape_q}.{ty}.{hint} [%a]{operand}\n\
                     \x20 @!%p {result}atomic.{op}.seq_cst.system{shape_q}.{ty} [%a]{plain}\n\
                     \x20 fence.acq_rel.cluster\n\
                     }}\n"
                ));
            }
        }
    }
    let printed = assert_fixed_point(&text);
    let module = parse_ok(&printed);
    assert!(module.kernels.len() > 100);
    for kernel in &module.kernels {
        let first = atomic(kernel.insts.values().next().unwrap());
        assert!(first.hint.is_some());
        assert!(matches!(
            first.predicate,
            Some(Predicate { negated: false, .. })
        ));
        match first.operand {
            Some(Operand::Scalar(Scalar::Const(_))) => assert!(!first.shape.is_vector()),
            Some(Operand::Vector(list)) => assert_eq!(list.len(), first.shape.len()),
            None => assert_eq!(first.op, AtomicOp::Load),
            other => panic!("unexpected operand {other:?}"),
        }
        assert_eq!(first.result.is_some(), first.op != AtomicOp::Store);
        let fence = kernel.insts.values().nth(2).unwrap().as_fence().copied();
        assert_eq!(
            fence,
            Some(atomir_ir::Fence {
                order: MemoryOrder::AcqRel,
                scope: Scope::Cluster
            })
        );
    }
}

fn literal_in(ty: &str, literal: &str) -> Result<u128, String> {
    let text = format!("kernel k(%a: ptr.global) {{\n  atomic.exch.{ty} [%a], {literal}\n}}\n");
    match parse(&text) {
        Ok(module) => {
            let kernel = &module.kernels[0];
            let inst = atomic(kernel.insts.values().next().unwrap());
            match inst.operand {
                Some(Operand::Scalar(Scalar::Const(c))) => Ok(kernel.constants[c]),
                other => panic!("unexpected operand {other:?}"),
            }
        }
        Err(errors) => Err(errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; ")),
    }
}

#[test]
fn literal_range_edges() {
    assert_eq!(literal_in("u8", "255"), Ok(255));
    let err = literal_in("u8", "256").unwrap_err();
    assert!(
        err.starts_with("2:24: error: literal 256 does not fit u8"),
        "{err}"
    );
    assert!(literal_in("u8", "-1").is_err());
    assert_eq!(literal_in("s8", "-128"), Ok(0x80));
    assert_eq!(literal_in("s8", "127"), Ok(0x7f));
    assert!(literal_in("s8", "-129")
        .unwrap_err()
        .contains("does not fit s8"));
    assert!(literal_in("s8", "128")
        .unwrap_err()
        .contains("does not fit s8"));
    assert_eq!(literal_in("b16", "-1"), Ok(0xffff));
    assert_eq!(literal_in("b16", "0xFFFF"), Ok(0xffff));
    assert_eq!(literal_in("b16", "-32768"), Ok(0x8000));
    assert!(literal_in("b16", "-32769")
        .unwrap_err()
        .contains("does not fit b16"));
    assert!(literal_in("b16", "0x10000")
        .unwrap_err()
        .contains("does not fit b16"));
    assert_eq!(
        literal_in("u64", "18446744073709551615"),
        Ok(u64::MAX as u128)
    );
    assert!(literal_in("u64", "18446744073709551616").is_err());
    assert_eq!(
        literal_in("u64", "0xffffffffffffffff"),
        Ok(u64::MAX as u128)
    );
    assert_eq!(
        literal_in("b128", "340282366920938463463374607431768211455"),
        Ok(u128::MAX)
    );
    assert_eq!(
        literal_in("b128", "0xffffffffffffffffffffffffffffffff"),
        Ok(u128::MAX)
    );
    assert!(literal_in("b128", "340282366920938463463374607431768211456").is_err());
    assert!(literal_in("b128", "0x1ffffffffffffffffffffffffffffffff").is_err());
    assert!(literal_in("u32", "99999999999999999999999999999999999999999999999999").is_err());
    assert_eq!(literal_in("s64", "-9223372036854775808"), Ok(1u128 << 63));
    assert_eq!(literal_in("f32", "1.5"), Ok(1.5f32.to_bits() as u128));
    assert_eq!(literal_in("f32", "-0.0"), Ok(0x8000_0000));
    assert_eq!(literal_in("f32", "1e-3"), Ok(1e-3f32.to_bits() as u128));
    assert_eq!(literal_in("f32", "inf"), Ok(0x7f80_0000));
    assert_eq!(literal_in("f32", "-inf"), Ok(0xff80_0000));
    assert_eq!(literal_in("f32", "nan"), Ok(0x7fc0_0000));
    assert_eq!(literal_in("f32", "0x3f800000"), Ok(0x3f80_0000));
    assert_eq!(literal_in("f64", "2"), Ok(2.0f64.to_bits() as u128));
    assert_eq!(literal_in("f16", "1.0"), Ok(0x3c00));
    assert_eq!(literal_in("bf16", "1.0"), Ok(0x3f80));
    assert!(literal_in("u32", "1.5")
        .unwrap_err()
        .contains("float literal"));
    assert!(literal_in("f16x2", "1.0").unwrap_err().contains("hex bits"));
    assert_eq!(literal_in("f16x2", "0x3c003c00"), Ok(0x3c00_3c00));
    assert_eq!(literal_in("b32", "0xffffffff"), Ok(0xffff_ffff));
}

#[test]
fn literals_print_canonically() {
    let text = "kernel k(%a: ptr.global) {\n\
                  atomic.exch.s8 [%a], 0xff\n\
                  atomic.exch.b16 [%a], -1\n\
                  atomic.exch.f32 [%a], 1\n\
                  atomic.exch.f32 [%a], 1e-7\n\
                  atomic.exch.f64 [%a], 1e300\n\
                  atomic.exch.f32 [%a], nan\n\
                  atomic.exch.f16 [%a], -inf\n\
                  atomic.exch.f16x2 [%a], 0x3c00\n\
                  atomic.exch.f64 [%a], 0.1\n\
                }\n";
    let printed = assert_fixed_point(text);
    let literals: Vec<&str> = printed
        .lines()
        .filter_map(|line| line.split(", ").nth(1))
        .collect();
    assert_eq!(
        literals,
        [
            "-1",
            "65535",
            "1.0",
            "1e-7",
            "1e300",
            "0x7fc00000",
            "0xfc00",
            "0x00003c00",
            "0.1"
        ]
    );
}

#[test]
fn several_kernels_and_comments() {
    let text = "# leading comment\n\n\
                kernel a(%p: ptr.shared, %x: v2.u64) { # trailing\n\
                  atomic.or.shared.v2.u64 [%p], %x\n\
                }\n\
                kernel b(\n  %p: ptr.shared_cluster,\n  %x: s32\n) {\n\
                  %r = atomic.min.shared_cluster.s32 [%p], -5\n}\n";
    let module = parse_ok(text);
    assert_eq!(module.kernels.len(), 2);
    assert_eq!(
        module.kernels[1].params[0].ty,
        ValueType::Ptr(AddressSpace::SharedCluster)
    );
    assert_fixed_point(text);
}
