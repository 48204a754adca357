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
    let sm90 = atomir_ptx::PtxTarget::parse("sm_90").unwrap();
    // global add: printed; cas: no hinted form; shared: none; generic from ptr.global: points
    // to global memory; generic from ptr.shared or an unknown generic pointer: the ISA
    // supports a hint on a generic address only where it points to global memory; the global
    // load's `ld.acquire` and store's `st.release`: printed.
    assert_eq!(
        verdicts(&sm90),
        [true, false, false, true, false, false, false, true, true].map(Some)
    );
    // Before sm_80 there is no `.L2::cache_hint`.
    let sm70 = atomir_ptx::PtxTarget::parse("sm_70").unwrap();
    assert_eq!(verdicts(&sm70), [Some(false); 9]);

    let module = text::parse(KERNEL).unwrap();
    let mut code = String::new();
    let verified = atomir_ir::verify::verify(&module).unwrap();
    sm90.lower(&verified, &LowerOptions::module(), &mut code)
        .unwrap();
    // In a complete module the `ptr.generic` parameter points to global memory (a launch can
    // only pass a global address), so `%f` is a global add and keeps its hint too.
    assert_eq!(code.matches(".L2::cache_hint").count(), 5, "{code}");
    assert_eq!(code.matches("createpolicy").count(), 5, "{code}");
    assert!(
        code.contains("atom.relaxed.gpu.global.add.L2::cache_hint.u32 %f, [%p],"),
        "{code}"
    );
    assert!(
        code.contains("ld.acquire.gpu.global.L2::cache_hint.b32 %l, [%g],"),
        "{code}"
    );
    assert!(
        code.contains("st.release.gpu.global.L2::cache_hint.b32 [%g], %x,"),
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
        let target = atomir_visa::VisaTarget::parse(name).unwrap();
        // A generic access is refused for its own reason (vISA names the surface).
        let none = None;
        let no = Some(false);
        assert_eq!(
            verdicts(&target),
            [no, no, no, none, none, none, no, no, no],
            "visa:{name}"
        );
    }
    for name in ["nvptx64", "amdgcn"] {
        let target = atomir_llvm::LlvmTarget::parse(name).unwrap();
        assert_eq!(verdicts(&target), [Some(false); 9], "llvm:{name}");
    }
}

#[test]
fn ptx_prints_the_hint_on_the_atoms_of_an_expansion_and_not_on_a_cas_loop() {
    const EXPANDED: &str = "kernel k(%g: ptr.global, %s: ptr.shared, %x: f32, %y: f64, %v: v4.f32, %b: u8, %h: u16, %f: f16) {
  %a = atomic.max.relaxed.device.global.f32.evict_last [%g], %x
  %c = atomic.min.acquire.device.global.f64.evict_first [%g], %y
  %d = atomic.max.relaxed.device.global.v4.f32.evict_last [%g], %v
  %e = atomic.or.relaxed.device.global.u16.no_allocate [%g], %h
  %i = atomic.add.relaxed.device.global.u8.evict_last [%g], %b
  %j = atomic.max.relaxed.block.shared.f32.evict_last [%s], %x
  %l = atomic.add.relaxed.device.global.f16.evict_last [%g], %f
  %m = atomic.load.acquire.device.global.v8.u16.evict_last [%g]
}
";
    let module = text::parse(EXPANDED).unwrap();
    let kernel = &module.kernels[0];
    let verified = atomir_ir::verify::verify(&module).unwrap();
    for (name, packed_add) in [("sm_90", false), ("sm_90+packed-half-add", true)] {
        let target = atomir_ptx::PtxTarget::parse(name).unwrap();
        let printed: Vec<bool> = kernel
            .insts
            .keys()
            .map(|inst| {
                let legality = target.legalize_inst(kernel, inst).unwrap();
                !legality.rewrites.contains(&Rewrite::CacheHintDropped)
            })
            .collect();
        // f32/f64 min/max by integer `atom`s (one lane for its warp's, or one per element
        // of a vector), a 16-bit or by the `atom.or.b32` of its word: printed; a u8 add is a
        // CAS loop and shared memory has no hint: left out; a scalar f16 add on global memory
        // is the warp's serial fold, a CAS loop (left out), and with the packed opt-in the
        // packed `atom` (printed); a v8.u16 load is one `ld.acquire.v4.b32` of the words that
        // hold its elements, with the hint.
        assert_eq!(
            printed,
            [true, true, true, true, false, false, packed_add, true],
            "{name}"
        );
        let mut code = String::new();
        target
            .lower(&verified, &LowerOptions::module(), &mut code)
            .unwrap();
        // One policy per hinted node, on every `atom`/`red` but a `cas`.
        let policies = if packed_add { 6 } else { 5 };
        assert_eq!(
            code.matches("createpolicy").count(),
            policies,
            "{name}\n{code}"
        );
        let hinted_loads = code
            .matches("ld.acquire.gpu.global.L2::cache_hint.v4.b32")
            .count();
        assert_eq!(hinted_loads, 1, "{name}\n{code}");
        for line in code.lines().filter(|line| line.contains("cache_hint")) {
            assert!(!line.contains(".cas."), "{name}: {line}");
        }
        // The f32 max's integer pair twice (a lane alone at its address, and the leader of
        // its warp's lanes at one), and one pair for each of the four vector elements.
        let int_min_max = code
            .lines()
            .filter(|line| {
                line.contains(".L2::cache_hint.s32") || line.contains(".L2::cache_hint.u32")
            })
            .count();
        assert_eq!(int_min_max, 2 * 2 + 4 * 2, "{name}\n{code}");
        assert!(
            code.contains("global.or.L2::cache_hint.b32"),
            "{name}\n{code}"
        );
        let packed = code.contains("add.noftz.L2::cache_hint.f16x2");
        assert_eq!(packed, packed_add, "{name}\n{code}");
        if let Some(ptxas) = require(Tool::Ptxas13) {
            let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cache_hints");
            std::fs::create_dir_all(&dir).unwrap();
            let file = dir.join(format!("expanded-{packed_add}.ptx"));
            std::fs::write(&file, &code).unwrap();
            let (ok, message) = run(std::process::Command::new(ptxas)
                .arg("-arch=sm_90")
                .arg(&file)
                .arg("-o")
                .arg(dir.join(format!("expanded-{packed_add}.cubin"))));
            assert!(ok, "ptxas: {message}\n{code}");
        }
    }
}
