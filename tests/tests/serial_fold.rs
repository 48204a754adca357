//! The serial fold. The option (`ptx:…+serial-fold`) changes exactly the relaxed scalar
//! f16/bf16 and 8/16-bit integer add and sub cells, and the exact f32 ones on global or generic
//! memory where the native f32 add flushes (before PTX ISA 9.4), each to `WarpSerialFold`; every
//! other verdict is the default's. The default folds the exact f32 ones and the f16/bf16 ones on
//! global or generic memory. (Its meaning is proven in `atomir-ir`'s `expand_serial_fold` test,
//! its syntax by the PTX matrix, its speed by the cell timing harness on the GPU.)

use atomir::Target;
use atomir_ir::matrix::cells;
use atomir_ir::{
    AddressSpace, AtomicOp, ElemType, ElementLowering, Lowering, MemoryOrder, VectorShape,
    WarpCombine,
};

#[test]
fn the_option_changes_only_relaxed_scalar_narrow_adds() {
    for (name, f32_flushes) in [
        ("ptx:sm_70", true),
        ("ptx:sm_80", true),
        ("ptx:sm_90", true),
        ("ptx:sm_90@9.4", false),
    ] {
        let default: Target = name.parse().unwrap();
        let folded: Target = format!("{name}+serial-fold").parse().unwrap();
        let mut changed = 0;
        for cell in cells() {
            let node = cell.node();
            let (plain, serial) = (default.legalize(&node), folded.legalize(&node));
            let exact_f32_flushing = cell.ty == ElemType::F32
                && f32_flushes
                && cell.laxity.is_none()
                && matches!(cell.space, AddressSpace::Global | AddressSpace::Generic);
            let expected = plain.is_ok()
                && matches!(cell.op, AtomicOp::Add | AtomicOp::Sub)
                && (matches!(
                    cell.ty,
                    ElemType::F16
                        | ElemType::Bf16
                        | ElemType::U8
                        | ElemType::S8
                        | ElemType::U16
                        | ElemType::S16
                ) || exact_f32_flushing)
                && cell.shape == VectorShape::Scalar
                && cell.order == MemoryOrder::Relaxed;
            if expected {
                changed += 1;
                let legality = serial.unwrap_or_else(|e| panic!("{folded}: {cell}: {e:?}"));
                assert_eq!(
                    legality.lowering,
                    Lowering::whole(ElementLowering::CasLoop)
                        .with_warp(WarpCombine::SerialFold)
                        .unwrap(),
                    "{folded}: {cell}"
                );
                continue;
            }
            match (plain, serial) {
                (Ok(plain), Ok(serial)) => assert_eq!(plain, serial, "{folded}: {cell}"),
                (Err(plain), Err(serial)) => {
                    assert_eq!(plain.rule, serial.rule, "{folded}: {cell}")
                }
                (plain, serial) => panic!("{folded}: {cell}: {plain:?} against {serial:?}"),
            }
        }
        assert!(changed > 0, "{folded} changed nothing");
    }
    // Before sm_70 there is neither `atom.cas.b16` nor a warp to combine.
    let refused = "ptx:sm_60+serial-fold".parse::<Target>().unwrap_err();
    assert!(refused.to_string().contains("sm_70"), "{refused}");
}

/// Without the option the serial fold is the lowering of exactly the relaxed scalar add and sub
/// cells where the GPU showed it faster than the alternative at 1, 32 and 4096 addresses: the
/// exact f32 ones whose native add flushes, and the f16/bf16 ones on global or generic memory
/// (not with `+plain-loops`, and `+packed-half-add` takes the packed atom for f16/bf16).
#[test]
fn by_default_it_folds_exact_f32_and_half_adds_in_global_memory() {
    for (name, f32_flushes, half) in [
        ("ptx:sm_80", true, true),
        ("ptx:sm_90", true, true),
        ("ptx:sm_90@9.4", false, true),
        ("ptx:sm_90+packed-half-add", true, false),
        ("ptx:sm_90+plain-loops", false, false),
    ] {
        let target: Target = name.parse().unwrap();
        let mut folded = 0;
        for cell in cells() {
            let Ok(legality) = target.legalize(&cell.node()) else {
                continue;
            };
            let in_global = matches!(cell.space, AddressSpace::Global | AddressSpace::Generic);
            let candidate = in_global
                && matches!(cell.op, AtomicOp::Add | AtomicOp::Sub)
                && cell.shape == VectorShape::Scalar
                && cell.order == MemoryOrder::Relaxed;
            let expected = candidate
                && match cell.ty {
                    ElemType::F16 | ElemType::Bf16 => half,
                    ElemType::F32 => f32_flushes && cell.laxity.is_none(),
                    _ => false,
                };
            let is_folded = legality.lowering.warp() == WarpCombine::SerialFold;
            assert_eq!(
                is_folded, expected,
                "{name}: {cell}: {:?}",
                legality.lowering
            );
            folded += usize::from(is_folded);
        }
        assert_eq!(
            folded > 0,
            f32_flushes || half,
            "{name}: {folded} cells folded"
        );
    }
}
