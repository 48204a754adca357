//! GenX_IR's release build accepts forms the hardware lacks; these tests list them and scan
//! every emitted matrix cell to show that we never emit them.

use std::collections::HashMap;

use atomir_ir::matrix::all_cells;
use atomir_ir::{Backend, LowerOptions, Module};
use atomir_visa::{Platform, VisaTarget};

/// The first hardware-lacking form in `text` (one complete kernel) for `target`, if any.
fn forbidden_form(target: VisaTarget, text: &str) -> Option<String> {
    let mut types: HashMap<&str, &str> = HashMap::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix(".decl ") {
            let name = rest.split_whitespace().next().unwrap();
            let ty = rest
                .split("type=")
                .nth(2)
                .or_else(|| rest.split("type=").nth(1))
                .unwrap_or("");
            types.insert(name, ty.split_whitespace().next().unwrap_or(""));
        }
    }
    for line in text.lines().map(str::trim) {
        let line_no_pred = line
            .strip_prefix('(')
            .map_or(line, |r| r.split_once(") ").map_or(r, |x| x.1));
        let mnemonic = line_no_pred.split_whitespace().next().unwrap_or("");
        let operands: Vec<&str> = line_no_pred.split_whitespace().skip(3).collect();
        // 1. float add/sub in SVM messages (not in the HDC A64 atomics; TGLLP accepts them).
        if mnemonic.starts_with("svm_atomic.fadd") || mnemonic.starts_with("svm_atomic.fsub") {
            return Some(format!("SVM float add/sub: {line}"));
        }
        // 2. float ops with .64 (and .16: fp16 min/max needs Xe-HP+ and LSC).
        if mnemonic.starts_with("svm_atomic.f")
            && (mnemonic.ends_with(".64") || mnemonic.ends_with(".16"))
        {
            return Some(format!("SVM float op wider/narrower than 32 bits: {line}"));
        }
        if mnemonic.starts_with("lsc_atomic_f") {
            let d64 = line.contains(":d64");
            let fadd =
                mnemonic.starts_with("lsc_atomic_fadd") || mnemonic.starts_with("lsc_atomic_fsub");
            if line.contains(":d16c32") || (d64 && !(fadd && target.platform == Platform::Pvc)) {
                return Some(format!(
                    "LSC float op with a data size the hardware lacks: {line}"
                ));
            }
            if fadd && mnemonic.ends_with(".slm") {
                return Some(format!("LSC fadd/fsub on SLM: {line}"));
            }
        }
        if mnemonic.starts_with("lsc_atomic_")
            && mnemonic.ends_with(".slm")
            && line.contains(":d64")
            && !mnemonic.starts_with("lsc_atomic_icas")
        {
            return Some(format!("64-bit SLM atomic other than icas: {line}"));
        }
        // 3. cmpxchg with a %null source.
        if mnemonic.starts_with("svm_atomic.cmpxchg") || mnemonic.starts_with("lsc_atomic_icas") {
            let sources = &operands[operands.len().saturating_sub(2)..];
            if sources.iter().any(|s| s.starts_with("%null")) {
                return Some(format!("compare-exchange with a %null source: {line}"));
            }
        }
        // 4. 64-bit integer (or f64) ALU ops where the platform has no such ALU.
        let is_message = mnemonic.starts_with("svm_")
            || mnemonic.starts_with("lsc_")
            || mnemonic.starts_with("fence")
            || mnemonic == "goto"
            || mnemonic == "ret";
        if !target.platform.has_64bit_alu()
            && !is_message
            && !line.starts_with('.')
            && !line.ends_with(':')
        {
            for operand in line_no_pred.split_whitespace().skip(3) {
                let name = operand
                    .trim_start_matches("(-)")
                    .split(['(', '.'])
                    .next()
                    .unwrap_or("");
                if matches!(types.get(name), Some(&("q" | "uq" | "df"))) {
                    return Some(format!(
                        "64-bit ALU operand `{name}` on {}: {line}",
                        target.platform.as_str()
                    ));
                }
            }
        }
        // 6. Plain (non-atomic) data-port messages: no source makes any of their widths
        // single-copy atomic, and GenX_IR turns `svm_gather.2` into a one-byte read.
        if [
            "lsc_load",
            "lsc_store",
            "svm_gather",
            "svm_scatter",
            "svm_block_",
        ]
        .iter()
        .any(|plain| mnemonic.starts_with(plain))
        {
            return Some(format!("a plain (non-atomic) access: {line}"));
        }
        // 7. An LSC atomic of a data size or vector no atomic message has (GenX_IR rejects
        // most; the hardware has d16c32, d32 and d64, one element each).
        if mnemonic.starts_with("lsc_atomic_") {
            let sizes = line
                .split_whitespace()
                .filter_map(|operand| operand.split_once(':').map(|(_, size)| size))
                .filter(|size| size.starts_with('d'));
            for size in sizes {
                if !matches!(size, "d16c32" | "d32" | "d64") {
                    return Some(format!("LSC atomic of data size `{size}`: {line}"));
                }
            }
        }
        // 5. LSC SIMD width beyond the platform's.
        if mnemonic.starts_with("lsc_") {
            let limit = if target.platform == Platform::Pvc {
                32
            } else {
                16
            };
            let exec: u32 = line
                .split("(M1, ")
                .nth(1)
                .and_then(|r| r.split(')').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            if exec > limit {
                return Some(format!(
                    "LSC SIMD{exec} on {}: {line}",
                    target.platform.as_str()
                ));
            }
        }
    }
    None
}

#[test]
fn the_scan_catches_each_form() {
    let tgllp = VisaTarget::new(Platform::Tgllp);
    let dg2 = VisaTarget::new(Platform::Dg2);
    let kernel =
        |decls: &str, line: &str| format!("{decls}\nk_BB_0:\n    {line}\n    ret (M1, 1)\n");
    let decls = ".decl a v_type=G type=uq num_elts=8 align=GRF\n.decl x v_type=G type=ud num_elts=8 align=GRF\n.decl q v_type=G type=uq num_elts=8 align=GRF";
    for (target, line) in [
        (tgllp, "svm_atomic.fadd (M1, 8) a.0 x.0 x.0 %null.0"),
        (tgllp, "svm_atomic.fmax.64 (M1, 8) a.0 q.0 q.0 %null.0"),
        (tgllp, "svm_atomic.cmpxchg (M1, 8) a.0 x.0 x.0 %null.0"),
        (tgllp, "add (M1, 8) q(0,0)<1> q(0,0)<1;1,0> q(0,0)<1;1,0>"),
        (dg2, "min (M1, 8) q(0,0)<1> q(0,0)<1;1,0> q(0,0)<1;1,0>"),
        (
            dg2,
            "lsc_atomic_fadd.slm (M1, 16) x:d32 flat[x]:a32 x %null",
        ),
        (
            dg2,
            "lsc_atomic_iadd.slm (M1, 16) q:d64 flat[x]:a32 q %null",
        ),
        (
            dg2,
            "lsc_atomic_iadd.ugm (M1, 32) x:d32 flat[a]:a64 x %null",
        ),
        (dg2, "lsc_load.ugm (M1, 16) x:d32 flat[a]:a64"),
        (dg2, "lsc_store.slm (M1, 16) flat[x]:a32 x:d16"),
        (tgllp, "svm_gather.4.1 (M1, 8) a.0 x.0"),
        (tgllp, "svm_scatter.2.1 (M1, 8) a.0 x.0"),
        (tgllp, "svm_block_ld (1) a(0,0)<0;1,0> x.0"),
        (
            dg2,
            "lsc_atomic_load.ugm (M1, 16) x:d16 flat[a]:a64 %null %null",
        ),
        (
            dg2,
            "lsc_atomic_store.ugm (M1, 16) %null:d32x2 flat[a]:a64 x %null",
        ),
    ] {
        assert!(
            forbidden_form(target, &kernel(decls, line)).is_some(),
            "not caught: {line}"
        );
    }
    let fine = kernel(decls, "svm_atomic.cmpxchg.64 (M1, 8) a.0 q.0 q.0 q.0");
    assert_eq!(forbidden_form(tgllp, &fine), None);
    let fine = kernel(
        decls,
        "lsc_atomic_store.ugm (M1, 16) %null:d16c32 flat[a]:a64 x %null",
    );
    assert_eq!(forbidden_form(dg2, &fine), None);
}

#[test]
fn no_emitted_cell_uses_a_form_the_hardware_lacks() {
    let mut targets: Vec<VisaTarget> = Platform::ALL.into_iter().map(VisaTarget::new).collect();
    targets.push(VisaTarget::parse("PVC+svm").unwrap());
    targets.push(VisaTarget::parse("DG2+svm").unwrap());
    targets.push(VisaTarget::parse("MTL+svm").unwrap());
    let mut out = String::new();
    for target in targets {
        let mut scanned = 0;
        for cell in all_cells() {
            let kernel = cell.kernel();
            let inst = kernel.insts.keys().next().unwrap();
            if target.legalize_inst(&kernel, inst).is_err() {
                continue;
            }
            out.clear();
            target
                .lower(
                    &atomir_ir::verify::verify(&Module {
                        kernels: vec![kernel],
                    })
                    .unwrap(),
                    &LowerOptions::module(),
                    &mut out,
                )
                .unwrap();
            if let Some(form) = forbidden_form(target, &out) {
                panic!("{target}: cell {cell} emits {form}");
            }
            scanned += 1;
        }
        println!("{target}: {scanned} emitted cells scanned");
        assert!(scanned > 1000);
    }
}
