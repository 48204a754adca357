//! One policy for cache hints on every backend: a hint is a performance hint only, valid on
//! every access; a target prints it where it has a form of that node with a hint, and
//! otherwise leaves it out and records `Rewrite::CacheHintDropped`. It is never dropped
//! silently and never a refusal.

use atomir_ir::{text, Backend, LowerOptions, Rewrite};
use atomir_tests::tools::{require, run, Tool};

const KERNEL: &str = "kernel k(%g: ptr.global, %s: ptr.shared, %p: ptr.generic, %x: u32) {
  %a = atomic.add.relaxed.device.global.u32.evict_last [%g], %x
  %b = atomic.cas.relaxed.device.global.u32.evict_last [%g], %x, 1
  %c = atomic.add.relaxed.block.shared.u32.evict_first [%s], %x
  %d = atomic.add.relaxed.device.generic.u32.evict_last [%g], %x
  %e = atomic.add.relaxed.device.generic.u32.evict_last [%s], %x
  %f = atomic.add.relaxed.device.generic.u32.evict_last [%p], %x
  %h = atomic.add.relaxed.device.global.u32 [%g], %x
  %l = atomic.load.acquire.device.global.u32.evict_last [%g]
  atomic.store.release.device.global.u32.evict_last [%g], %x
}
";

/// For each instruction, in order: whether the target printed its hint (`None` where it
/// refuses the node for another reason).
fn verdicts(target: &dyn Backend) -> Vec<Option<bool>> {
    let module = text::parse(KERNEL).unwrap();
    let kernel = &module.kernels[0];
    kernel
        .insts
        .keys()
        .map(|inst| {
            let legality = target.legalize_inst(kernel, inst).ok()?;
            let has_hint = kernel
                .atomic(inst)
                .is_some_and(|atomic| atomic.hint.is_some());
            let dropped = legality.rewrites.contains(&Rewrite::CacheHintDropped);
            assert!(
                !dropped || has_hint,
                "a node without a hint has none to drop"
            );
            Some(has_hint && !dropped)
        })
        .collect()
}

#[test]
fn ptx_prints_a_hint_only_where_it_has_the_form_and_records_the_rest() {
    let sm90 = atomir_ptx::parse_target("sm_90").unwrap();
    // global add: printed; cas: no hinted form; shared: none; generic from ptr.global: points
    // to global memory; generic from ptr.shared or an unknown generic pointer: the ISA
    // supports a hint on a generic address only where it points to global memory; loads and
    // stores are printed without one.
    assert_eq!(
        verdicts(sm90.as_ref()),
        [true, false, false, true, false, false, false, false, false].map(Some)
    );
    // Before sm_80 there is no `.L2::cache_hint`.
    let sm70 = atomir_ptx::parse_target("sm_70").unwrap();
    assert_eq!(verdicts(sm70.as_ref()), [Some(false); 9]);

    let module = text::parse(KERNEL).unwrap();
    let mut code = String::new();
    let verified = atomir_ir::verify::verify(&module).unwrap();
    sm90.lower(&verified, &LowerOptions::module(), &mut code)
        .unwrap();
    // In a complete module the `ptr.generic` parameter points to global memory (a launch can
    // only pass a global address), so `%f` is a global add and keeps its hint too.
    assert_eq!(code.matches(".L2::cache_hint").count(), 3, "{code}");
    assert_eq!(code.matches("createpolicy").count(), 3, "{code}");
    assert!(
        code.contains("atom.relaxed.gpu.global.add.L2::cache_hint.u32 %f, [%p],"),
        "{code}"
    );
    if let Some(ptxas) = require(Tool::Ptxas13) {
        let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cache_hints");
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("k.ptx");
        std::fs::write(&file, &code).unwrap();
        let (ok, message) = run(std::process::Command::new(ptxas)
            .arg("-arch=sm_90")
            .arg(&file)
            .arg("-o")
            .arg(dir.join("k.cubin")));
        assert!(ok, "ptxas: {message}\n{code}");
    }
}

#[test]
fn visa_and_llvm_record_every_hint_they_leave_out() {
    for name in ["DG2", "PVC"] {
        let target = atomir_visa::parse_target(name).unwrap();
        // A generic access is refused for its own reason (vISA names the surface).
        let none = None;
        let no = Some(false);
        assert_eq!(
            verdicts(target.as_ref()),
            [no, no, no, none, none, none, no, no, no],
            "visa:{name}"
        );
    }
    for name in ["nvptx64", "amdgcn"] {
        let target = atomir_llvm::parse_target(name).unwrap();
        assert_eq!(verdicts(target.as_ref()), [Some(false); 9], "llvm:{name}");
    }
}
