//! How a vector carried by several instructions carries its order: the fences of one vector
//! instruction around all its accesses (ARCHITECTURE, "A vector carried by several
//! instructions").

use atomir_ir::{Backend, LowerOptions};
use atomir_ptx::PtxTarget;

/// `source` in the text form, lowered for `target`, without its register copies.
fn lower_text(target: &str, source: &str) -> String {
    let module = atomir_ir::text::parse(source).unwrap();
    let backend = PtxTarget::parse(target).unwrap();
    let mut out = String::new();
    backend
        .lower(
            &atomir_ir::verify::verify(&module).unwrap(),
            &LowerOptions::default(),
            &mut out,
        )
        .unwrap();
    out.lines()
        .filter(|line| !line.trim_start().starts_with("mov."))
        .map(|line| format!("{}\n", line.trim()))
        .collect()
}

#[test]
fn a_vector_carried_by_several_instructions_takes_the_fences_of_one() {
    // PTX models a vector access as its elements' accesses in an unspecified order, so the
    // elements of a split vector between one bracket mean what its vector instruction between
    // it would: `fence.sc; atom.acquire.v2` for a native seq_cst vector.
    let kernel = |body: &str| {
        format!("kernel k(%a: ptr.global, %x: s32, %y: s32, %z: u32) {{\n{body}\n}}\n")
    };
    let rmw = kernel("  %r = atomic.add.seq_cst.system.global.v2.s32 [%a], {%x, %y}");
    assert!(
        lower_text("sm_90", &rmw).contains(
            "fence.sc.sys;\n\
             atom.acquire.sys.global.add.s32 %_r2, [%_d0], %_r0;\n\
             atom.acquire.sys.global.add.s32 %_r3, [%_d0+4], %_r1;\n"
        ),
        "{}",
        lower_text("sm_90", &rmw)
    );
    let load = kernel("  %l = atomic.load.seq_cst.device.global.v8.u32 [%a]");
    assert!(
        lower_text("sm_90", &load).contains(
            "fence.sc.gpu;\n\
             ld.acquire.gpu.global.v4.b32 {%l$0, %l$1, %l$2, %l$3}, [%a];\n\
             ld.acquire.gpu.global.v4.b32 {%l$4, %l$5, %l$6, %l$7}, [%a+16];\n"
        ),
        "{}",
        lower_text("sm_90", &load)
    );
    let store = kernel(
        "  atomic.store.seq_cst.device.global.v8.u32 [%a], {%z, %z, %z, %z, %z, %z, %z, %z}",
    );
    let stored = lower_text("sm_90", &store);
    assert_eq!(stored.matches("fence.sc.gpu;").count(), 1, "{stored}");
    assert_eq!(
        stored.matches("st.relaxed.gpu.global.v4.b32").count(),
        2,
        "{stored}"
    );
    // Before sm_70 the bracket is a membar before and after all the elements.
    let acq_rel = kernel("  %r = atomic.add.acq_rel.device.global.v2.s32 [%a], {%x, %y}");
    assert!(
        lower_text("sm_60", &acq_rel).contains(
            "membar.gl;\n\
             atom.gpu.global.add.s32 %_r2, [%_d0], %_r0;\n\
             atom.gpu.global.add.s32 %_r3, [%_d0+4], %_r1;\n\
             membar.gl;\n"
        ),
        "{}",
        lower_text("sm_60", &acq_rel)
    );
    // An order the target spells on the access stays on each element.
    let on_each = lower_text("sm_90", &acq_rel);
    assert_eq!(
        on_each.matches("atom.acq_rel.gpu.global.add.s32").count(),
        2,
        "{on_each}"
    );
    assert!(!on_each.contains("fence"), "{on_each}");
    // Two seq_cst atomics are two: each keeps its own fence.
    let two = kernel(
        "  %t = atomic.add.seq_cst.device.global.s32 [%a], %x\n  \
         %u = atomic.add.seq_cst.device.global.s32 [%a], %y",
    );
    assert_eq!(
        lower_text("sm_90", &two).matches("fence.sc.gpu;").count(),
        2
    );
}
