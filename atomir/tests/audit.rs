//! The audit on seeded weakenings: for each kind (order, scope, flushed subnormals, NaN rule
//! changed or loosened,
//! a split whose elements lost their order, a dropped fence) a PTX that keeps the IR's meaning
//! is clean, and the same PTX with the one weakening seeded is caught as exactly that.

use atomir::audit::{audit, Verdict, Weakening};

const HEAD: &str = ".version 8.8\n.target sm_90\n.address_size 64\n";

fn ir(body: &str) -> String {
    format!(
        "target triple = \"nvptx64-nvidia-cuda\"\n\
         define ptx_kernel void @k(ptr addrspace(1) %p, i32 %x, float %f, <4 x float> %v) {{\n\
         {body}\n  ret void\n}}\n"
    )
}

fn ptx(body: &str) -> String {
    format!(
        "{HEAD}.visible .entry k(.param .u64 p)\n{{\n.reg .pred %p<3>;\n.reg .b32 %r<9>;\n\
         .reg .f32 %f<9>;\n.reg .b64 %rd<3>;\nld.param.u64 %rd1, [p];\n{body}\nret;\n}}\n"
    )
}

/// The verdicts of the one IR atomic (or more) in `ir_body` against `ptx_body`.
fn verdicts(ir_body: &str, ptx_body: &str) -> Vec<Verdict> {
    let report = audit(&ir(ir_body), &ptx(ptx_body), Default::default());
    assert!(report.ir_errors.is_empty(), "{:?}", report.ir_errors);
    assert!(report.ptx_errors.is_empty(), "{:?}", report.ptx_errors);
    report.entries.into_iter().map(|e| e.verdict).collect()
}

fn assert_kept(ir_body: &str, ptx_body: &str) {
    for verdict in verdicts(ir_body, ptx_body) {
        assert!(
            matches!(verdict, Verdict::Kept | Verdict::Strengthened(_)),
            "{ir_body}\n{ptx_body}\n{verdict:?}"
        );
    }
}

fn weakenings(ir_body: &str, ptx_body: &str) -> Vec<Weakening> {
    let found: Vec<Weakening> = verdicts(ir_body, ptx_body)
        .into_iter()
        .flat_map(|v| match v {
            Verdict::Weakened(w) => w,
            _ => Vec::new(),
        })
        .collect();
    assert!(
        !found.is_empty(),
        "nothing weakened:\n{ir_body}\n{ptx_body}"
    );
    found
}

#[test]
fn a_dropped_or_weaker_order_is_caught() {
    let release =
        "  %o = atomicrmw xchg ptr addrspace(1) %p, i32 %x syncscope(\"device\") release, align 4";
    assert_kept(
        release,
        "atom.release.gpu.global.exch.b32 %r1, [%rd1], %r2;",
    );
    assert_kept(
        release,
        "fence.acq_rel.gpu;\natom.global.exch.b32 %r1, [%rd1], %r2;",
    );
    assert_eq!(
        weakenings(release, "atom.global.exch.b32 %r1, [%rd1], %r2;"),
        [Weakening::Order {
            ir: atomir::MemoryOrder::Release,
            ptx: atomir::MemoryOrder::Relaxed,
            split: false
        }]
    );
    let seq_cst =
        "  %o = atomicrmw add ptr addrspace(1) %p, i32 %x syncscope(\"device\") seq_cst, align 4";
    assert_kept(
        seq_cst,
        "fence.sc.gpu;\natom.acquire.gpu.global.add.u32 %r1, [%rd1], %r2;",
    );
    assert_eq!(
        weakenings(
            seq_cst,
            "fence.acq_rel.gpu;\natom.acquire.gpu.global.add.u32 %r1, [%rd1], %r2;"
        ),
        [Weakening::Order {
            ir: atomir::MemoryOrder::SeqCst,
            ptx: atomir::MemoryOrder::AcqRel,
            split: false
        }]
    );
    // A fence of a narrower scope does not give the order.
    let acquire =
        "  %v = load atomic i32, ptr addrspace(1) %p syncscope(\"device\") acquire, align 4";
    assert_kept(
        acquire,
        "ld.relaxed.gpu.global.b32 %r1, [%rd1];\nfence.acq_rel.gpu;",
    );
    assert!(matches!(
        weakenings(
            acquire,
            "ld.relaxed.gpu.global.b32 %r1, [%rd1];\nfence.acq_rel.cta;"
        )[0],
        Weakening::Order { .. }
    ));
}

#[test]
fn a_narrower_scope_is_caught() {
    let system = "  %o = atomicrmw add ptr addrspace(1) %p, i32 %x monotonic, align 4";
    assert_kept(system, "atom.relaxed.sys.global.add.u32 %r1, [%rd1], %r2;");
    assert_eq!(
        weakenings(system, "atom.global.add.u32 %r1, [%rd1], %r2;"),
        [Weakening::Scope {
            ir: atomir::Scope::System,
            ptx: atomir::Scope::Device
        }]
    );
    let device =
        "  store atomic i32 %x, ptr addrspace(1) %p syncscope(\"device\") monotonic, align 4";
    assert_kept(device, "st.relaxed.gpu.global.b32 [%rd1], %r2;");
    assert_eq!(
        weakenings(device, "st.relaxed.cta.global.b32 [%rd1], %r2;"),
        [Weakening::Scope {
            ir: atomir::Scope::Device,
            ptx: atomir::Scope::Block
        }]
    );
}

#[test]
fn a_flushing_float_add_is_caught() {
    let add = "  %o = atomicrmw fadd ptr addrspace(1) %p, float %f syncscope(\"device\") monotonic, align 4";
    assert_kept(add, "atom.global.add.noftz.f32 %f1, [%rd1], %f2;");
    assert_eq!(
        weakenings(add, "atom.global.add.f32 %f1, [%rd1], %f2;"),
        [Weakening::FlushesSubnormals]
    );
    // On shared memory atom.add.f32 keeps subnormals.
    let shared = "  %o = atomicrmw fadd ptr addrspace(3) %q, float %f syncscope(\"device\") monotonic, align 4";
    let report = audit(
        &ir(shared).replace(
            "ptr addrspace(1) %p,",
            "ptr addrspace(1) %p, ptr addrspace(3) %q,",
        ),
        &ptx("atom.shared.add.f32 %f1, [%rd1], %f2;"),
        Default::default(),
    );
    assert_eq!(report.weakened(), 0, "{}", report.render("ir", "ptx"));
}

/// A float min/max loop as llc prints one: the first load, the op, the CAS.
fn loop_with(op: &str) -> String {
    format!(
        "ld.global.b32 %r1, [%rd1];\n$L__BB0_1:\n mov.b32 %f1, %r1;\n {op} %f3, %f1, %f2;\n \
         mov.b32 %r3, %f3;\n atom.relaxed.gpu.global.cas.b32 %r4, [%rd1], %r1, %r3;\n \
         setp.ne.b32 %p1, %r4, %r1;\n mov.b32 %r1, %r4;\n @%p1 bra $L__BB0_1;"
    )
}

#[test]
fn a_changed_nan_rule_is_caught() {
    let maximum = "  %o = atomicrmw fmaximum ptr addrspace(1) %p, float %f syncscope(\"device\") monotonic, align 4";
    assert_kept(maximum, &loop_with("max.NaN.f32"));
    assert_eq!(
        weakenings(maximum, &loop_with("max.f32")),
        [Weakening::NanRule {
            ir_propagates: true
        }]
    );
    let maximumnum = "  %o = atomicrmw fmaximumnum ptr addrspace(1) %p, float %f syncscope(\"device\") monotonic, align 4";
    assert_kept(maximumnum, &loop_with("max.f32"));
    assert_eq!(
        weakenings(maximumnum, &loop_with("max.NaN.f32")),
        [Weakening::NanRule {
            ir_propagates: false
        }]
    );
}

/// IR `fmax` (IEEE 754-2008 maxNum, laxity `ieee2008`) is kept by PTX's `.noftz` f16/bf16
/// vector max and by an exact max; an exact IR max (`fmaximumnum`) carried by the `.noftz` max
/// has its NaN rule loosened.
#[test]
fn a_loosened_nan_rule_is_caught() {
    let lanes = |prefix: &str| {
        let names: Vec<String> = (0..8).map(|i| format!("%{prefix}{i}")).collect();
        format!("{{{}}}", names.join(", "))
    };
    let native = format!(
        ".reg .b16 %h<9>;
.reg .b16 %g<9>;
atom.relaxed.gpu.global.max.noftz.v8.bf16 {}, [%rd1], {};",
        lanes("h"),
        lanes("g")
    );
    let with = |keyword: &str| {
        format!(
            "  %o = atomicrmw elementwise {keyword} ptr addrspace(1) %p, <8 x bfloat> %w syncscope(\"device\") monotonic, align 16"
        )
    };
    let ir_with_vector =
        |body: &str| ir(body).replace("<4 x float> %v", "<4 x float> %v, <8 x bfloat> %w");
    let judged = |keyword: &str| {
        let report = audit(
            &ir_with_vector(&with(keyword)),
            &ptx(&native),
            Default::default(),
        );
        assert!(report.ir_errors.is_empty(), "{:?}", report.ir_errors);
        assert!(report.ptx_errors.is_empty(), "{:?}", report.ptx_errors);
        report
            .entries
            .into_iter()
            .map(|e| e.verdict)
            .collect::<Vec<_>>()
    };
    for verdict in judged("fmax") {
        assert!(
            matches!(verdict, Verdict::Kept | Verdict::Strengthened(_)),
            "{verdict:?}"
        );
    }
    let loosened = judged("fmaximumnum");
    assert!(!loosened.is_empty());
    for verdict in loosened {
        assert_eq!(verdict, Verdict::Weakened(vec![Weakening::NanLoosened]));
    }
    // An IR fmax carried by an exact max (a CAS loop of max.f32) is kept.
    assert_kept(
        "  %o = atomicrmw fmax ptr addrspace(1) %p, float %f syncscope(\"device\") monotonic, align 4",
        &loop_with("max.f32"),
    );
}

#[test]
fn a_split_whose_elements_lost_their_order_is_caught() {
    let vector = "  %o = atomicrmw fadd ptr addrspace(1) %p, <4 x float> %v syncscope(\"device\") release, align 16";
    let elements = |sems: [&str; 4]| -> String {
        sems.iter()
            .enumerate()
            .map(|(i, sem)| {
                format!(
                    "atom{sem}.gpu.global.add.noftz.f32 %f{i}, [%rd1+{}], %f5;\n",
                    4 * i
                )
            })
            .collect()
    };
    assert_kept(vector, &elements([".release"; 4]));
    assert_kept(
        vector,
        &format!("fence.acq_rel.gpu;\n{}", elements([".relaxed"; 4])),
    );
    // A seq_cst vector is one `fence.sc` before its elements, as `atom.acquire.v4` would be.
    let seq_cst = vector.replace(" release,", " seq_cst,");
    assert_ne!(seq_cst, vector);
    assert_kept(
        &seq_cst,
        &format!("fence.sc.gpu;\n{}", elements([".acquire"; 4])),
    );
    assert!(!weakenings(&seq_cst, &elements([".acquire"; 4])).is_empty());
    assert_eq!(
        weakenings(
            vector,
            &elements([".release", ".relaxed", ".release", ".release"])
        ),
        [Weakening::Order {
            ir: atomir::MemoryOrder::Release,
            ptx: atomir::MemoryOrder::Relaxed,
            split: true
        }]
    );
}

#[test]
fn a_dropped_fence_and_an_unmatched_atomic_are_reported() {
    let fence = "  fence syncscope(\"device\") seq_cst\n  store atomic i32 %x, ptr addrspace(1) %p syncscope(\"device\") monotonic, align 4";
    assert_kept(
        fence,
        "fence.sc.gpu;\nst.relaxed.gpu.global.b32 [%rd1], %r2;",
    );
    assert_eq!(
        weakenings(fence, "st.relaxed.gpu.global.b32 [%rd1], %r2;"),
        [Weakening::FenceDropped]
    );
    let add =
        "  %o = atomicrmw add ptr addrspace(1) %p, i32 %x syncscope(\"device\") monotonic, align 4";
    let found = verdicts(add, "atom.relaxed.gpu.global.or.b32 %r1, [%rd1], %r2;");
    assert!(matches!(&found[..], [Verdict::Unmatched(_)]), "{found:?}");
    let report = audit(&ir(add), &ptx("ret;"), Default::default());
    assert_eq!(report.unmatched(), 1);
    assert!(!report.is_clean());
}
