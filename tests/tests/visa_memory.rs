//! vISA atomic loads, stores and fences: which message carries each width, where the fences of
//! an order stand, and what is refused with which rule and smallest target.

use atomir_ir::verify::verify;
use atomir_ir::{text, Backend, LowerError, LowerOptions, Module};
use atomir_visa::VisaTarget;

fn module(body: &str, params: &str) -> Module {
    let source = format!("kernel k({params}) {{\n{body}\n}}\n");
    let module = text::parse(&source).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    verify(&module).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    module
}

fn lower(target: &str, body: &str, params: &str) -> Result<String, LowerError> {
    let target = VisaTarget::parse(target).unwrap();
    let mut out = String::new();
    let module = module(body, params);
    target
        .lower(
            &verify(&module).unwrap(),
            &LowerOptions::default(),
            &mut out,
        )
        .map(|_| out)
}

/// The message and fence lines, in order.
fn memory_lines(code: &str) -> Vec<&str> {
    code.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("lsc_") || l.starts_with("svm_") || l.starts_with("fence_"))
        .collect()
}

const GLOBAL: &str = "%p: ptr.global, %v: u32";

#[test]
fn an_acquire_load_has_its_fence_after_and_a_release_store_before() {
    let code = lower(
        "DG2",
        "%a = atomic.load.acquire.device.global.u32 [%p]\n\
         atomic.store.release.device.global.u32 [%p], %v",
        GLOBAL,
    )
    .unwrap();
    assert_eq!(
        memory_lines(&code),
        [
            "lsc_atomic_load.ugm (M1, 16) v_a:d32 flat[v_p]:a64 %null %null",
            "lsc_fence.ugm.invalidate.gpu",
            "lsc_fence.slm.none.group",
            "lsc_fence.ugm.clean.gpu",
            "lsc_fence.slm.none.group",
            "lsc_atomic_store.ugm (M1, 16) %null:d32 flat[v_p]:a64 v_v %null",
        ],
        "{code}"
    );
    let code = lower(
        "TGLLP",
        "%a = atomic.load.acquire.device.global.u32 [%p]\n\
         atomic.store.release.device.global.u32 [%p], %v",
        GLOBAL,
    )
    .unwrap();
    let lines = memory_lines(&code);
    assert!(
        lines[0].starts_with("svm_atomic.or (M1, 8) v_p.0 v_a.0 "),
        "{code}"
    );
    assert_eq!(
        lines[1..4],
        ["fence_global.EL1", "fence_local.E", "fence_global.E"]
    );
    assert!(
        lines[5].starts_with("svm_atomic.xchg (M1, 8) v_p.0 %null.0 v_v.0"),
        "{code}"
    );
}

#[test]
fn seq_cst_accesses_and_fences_share_the_rmw_bracket() {
    let code = lower(
        "PVC",
        "%a = atomic.load.seq_cst.system.global.u32 [%p]\n\
         %b = atomic.add.seq_cst.system.global.u32 [%p], %v\n\
         fence.seq_cst.system",
        GLOBAL,
    )
    .unwrap();
    let lines = memory_lines(&code);
    let fences = |l: &[&str]| -> Vec<String> {
        l.iter()
            .filter(|l| l.starts_with("lsc_fence"))
            .map(|l| l.to_string())
            .collect()
    };
    let load = fences(&lines[..5]);
    let add = fences(&lines[5..10]);
    assert_eq!(load, add, "{code}");
    assert_eq!(fences(&lines[10..]), load, "{code}");
    assert_eq!(
        load,
        [
            "lsc_fence.ugm.evict.sysrel",
            "lsc_fence.slm.none.group",
            "lsc_fence.ugm.evict.sysacq",
            "lsc_fence.slm.none.group"
        ]
    );
    // Below system scope both halves of an acq_rel fence spell the same: printed once.
    let code = lower("DG2", "fence.acq_rel.device", "").unwrap();
    assert_eq!(
        memory_lines(&code),
        ["lsc_fence.ugm.evict.gpu", "lsc_fence.slm.none.group"]
    );
}

#[test]
fn widths_take_the_atomic_message_they_have() {
    // 8 bits: one atomic load of the aligned dword, no write.
    let code = lower(
        "DG2",
        "%a = atomic.load.relaxed.device.global.u8 [%p]",
        GLOBAL,
    )
    .unwrap();
    assert_eq!(
        memory_lines(&code),
        ["lsc_atomic_load.ugm (M1, 16) t3:d32 flat[t2]:a64 %null %null"],
        "{code}"
    );
    // 16 bits: d16c32 / .16.
    let code = lower(
        "DG2",
        "atomic.store.relaxed.device.shared.u16 [%s], %h",
        "%s: ptr.shared, %h: u16",
    )
    .unwrap();
    assert_eq!(
        memory_lines(&code),
        ["lsc_atomic_store.slm (M1, 16) %null:d16c32 flat[v_s]:a32 v_h %null"]
    );
    // 64-bit SLM: no lsc_atomic_load/store d64 there; icas of zero with zero, a CAS loop.
    let params = "%s: ptr.shared, %w: u64";
    let code = lower(
        "PVC",
        "%a = atomic.load.relaxed.device.shared.u64 [%s]",
        params,
    )
    .unwrap();
    assert!(
        memory_lines(&code)[0].starts_with("lsc_atomic_icas.slm (M1, 16) v_a:d64 flat[v_s]:a32"),
        "{code}"
    );
    let code = lower(
        "PVC",
        "atomic.store.relaxed.device.shared.u64 [%s], %w",
        params,
    )
    .unwrap();
    assert!(
        memory_lines(&code)
            .iter()
            .all(|l| l.starts_with("lsc_atomic_icas.slm")),
        "{code}"
    );
    // Vectors: one atomic message per element.
    let code = lower(
        "PVC",
        "%a = atomic.load.relaxed.device.global.v4.f32 [%p]",
        GLOBAL,
    )
    .unwrap();
    let lines = memory_lines(&code);
    assert_eq!(lines.len(), 4, "{code}");
    assert!(lines.iter().all(|l| l.contains(":d32 ")), "{code}");
}

#[test]
fn what_no_message_carries_is_refused_with_its_rule() {
    let error = lower(
        "PVC",
        "%a = atomic.load.relaxed.device.global.b128 [%p]",
        GLOBAL,
    )
    .unwrap_err();
    assert_eq!(error.refusal.rule.id(), "visa.no-128-bit");
    assert_eq!(error.refusal.smallest_target, None);
    let error = lower(
        "TGLLP",
        "atomic.store.release.block.shared.u32 [%s], %v",
        "%s: ptr.shared, %v: u32",
    )
    .unwrap_err();
    assert_eq!(error.refusal.rule.id(), "visa.svm-no-slm");
    assert_eq!(
        error.refusal.smallest_target.as_ref().map(|t| t.name()),
        Some("visa:DG2")
    );
}
