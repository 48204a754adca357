//! The LLVM targets follow their processor (llc's `-mcpu`), judged by llc with the target's own
//! flags: cluster scope below sm_90 is printed (and recorded) widened to device, sm_90 keeps it;
//! `.shared::cluster` and 128-bit accesses are refused below sm_90, naming sm_90 as the smallest
//! target; a 128-bit exch needs the PTX version the target's flags name; amdgcn's float adds are
//! native exactly where the processor's llc selects the instruction.

use std::path::PathBuf;
use std::process::Command;

use atomir_ir::matrix::Cell;
use atomir_ir::{
    AddressSpace, AtomicOp, Backend, ElemType, ElementLowering, Legality, Lowering, MemoryOrder,
    Rewrite, Scope, VectorShape,
};
use atomir_llvm::LlvmTarget;
use atomir_tests::llvm::lower_module;
use atomir_tests::tools::{require, run, Tool};

fn cell(op: AtomicOp, ty: ElemType, scope: Scope, space: AddressSpace) -> Cell {
    Cell {
        op,
        ty,
        shape: VectorShape::Scalar,
        order: MemoryOrder::Acquire,
        scope,
        space,
        result_used: true,
        laxity: None,
    }
}

fn target(spec: &str) -> LlvmTarget {
    LlvmTarget::parse(spec).unwrap()
}

fn verdict(spec: &str, cell: &Cell) -> Result<Legality, atomir_ir::Refusal> {
    target(spec).legalize(&cell.node())
}

/// Runs the target's llc (with `extra` flags after its own) over `text`: its message on failure.
fn llc(target: &LlvmTarget, text: &str, tag: &str, flags: Option<&[&str]>) -> Option<String> {
    let llc = require(Tool::Llc(target.major))?;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("llvm_processors");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{tag}.ll"));
    std::fs::write(&file, text).unwrap();
    let mut command = Command::new(llc);
    match flags {
        Some(flags) => command.args(flags),
        None => command.args(target.llc_args()),
    };
    let (ok, message) = run(command
        .arg(&file)
        .arg("-o")
        .arg(dir.join(format!("{tag}.s"))));
    Some(if ok { String::new() } else { message })
}

/// A cluster-scope acquire load: sm_80 prints it at device scope (the verdict says so) and
/// llc 22 compiles it; sm_90 keeps `syncscope("cluster")`, which llc 22 compiles for sm_90.
#[test]
fn cluster_scope_is_widened_below_sm_90_and_kept_on_sm_90() {
    let load = cell(
        AtomicOp::Load,
        ElemType::U32,
        Scope::Cluster,
        AddressSpace::Global,
    );
    let widened = verdict("nvptx64:sm_80@22", &load).unwrap();
    assert!(
        widened.rewrites.contains(&Rewrite::ScopeWidened {
            from: Scope::Cluster,
            to: Scope::Device
        }),
        "{widened:?}"
    );
    let sm80 = target("nvptx64:sm_80@22");
    let code = lower_module(&sm80, &[load.kernel()]).unwrap();
    assert!(!code.contains("syncscope(\"cluster\")"), "{code}");
    assert!(code.contains("syncscope(\"device\") acquire"), "{code}");
    assert!(
        code.contains("; llc -march=nvptx64 -mcpu=sm_80 -mattr=+ptx87"),
        "{code}"
    );
    if let Some(message) = llc(&sm80, &code, "load_sm80", None) {
        assert_eq!(message, "", "llc 22 -mcpu=sm_80 rejects {code}");
    }

    let kept = verdict("nvptx64:sm_90@22", &load).unwrap();
    assert!(kept.rewrites.is_empty(), "{kept:?}");
    let sm90 = target("nvptx64:sm_90@22");
    let code = lower_module(&sm90, &[load.kernel()]).unwrap();
    assert!(code.contains("syncscope(\"cluster\") acquire"), "{code}");
    if let Some(message) = llc(&sm90, &code, "load_sm90", None) {
        assert_eq!(message, "", "llc 22 -mcpu=sm_90 rejects {code}");
        // The widening is needed: sm_90's code is what llc refuses for sm_80.
        let sm80_flags = sm80.llc_args();
        let flags: Vec<&str> = sm80_flags.iter().map(String::as_str).collect();
        let refused = llc(&sm80, &code, "load_sm90_on_sm80", Some(&flags)).unwrap();
        assert!(refused.contains("cluster scope"), "{refused}");
    }
}

/// A cluster-scope f32 max (a CAS loop whose first load carries the scope) prints no cluster
/// scope anywhere below sm_90, as its verdict says.
#[test]
fn a_widened_loop_prints_its_scope_widened() {
    let max = cell(
        AtomicOp::Max,
        ElemType::F32,
        Scope::Cluster,
        AddressSpace::Global,
    );
    let sm70 = target("nvptx64:sm_70@22");
    let legality = verdict("nvptx64:sm_70@22", &max).unwrap();
    assert!(legality.rewrites.contains(&Rewrite::ScopeWidened {
        from: Scope::Cluster,
        to: Scope::Device
    }));
    let code = lower_module(&sm70, &[max.kernel()]).unwrap();
    assert!(!code.contains("syncscope(\"cluster\")"), "{code}");
    if let Some(message) = llc(&sm70, &code, "max_sm70", None) {
        assert_eq!(message, "", "{code}");
    }
}

/// `.shared::cluster` and 128-bit accesses exist from sm_90: refused below it, naming
/// `llvm:nvptx64:sm_90@22`; at sm_90 llc compiles the 128-bit exch with the target's flags,
/// and without its `-mattr=+ptx87` answers "unsupported cmpxchg".
#[test]
fn cluster_memory_and_128_bit_need_sm_90() {
    let remote = cell(
        AtomicOp::Add,
        ElemType::U32,
        Scope::Cluster,
        AddressSpace::SharedCluster,
    );
    let exch = cell(
        AtomicOp::Exch,
        ElemType::B128,
        Scope::Device,
        AddressSpace::Global,
    );
    for (cell, rule) in [
        (&remote, "llvm.nvptx-shared-cluster-needs-sm90"),
        (&exch, "llvm.no-128-bit-cas"),
    ] {
        for spec in ["nvptx64:sm_60@22", "nvptx64:sm_80@23"] {
            let refusal = verdict(spec, cell).unwrap_err();
            assert_eq!(refusal.rule.id(), rule, "{spec}: {refusal}");
            let smallest = refusal.smallest_target.as_ref().map(|t| t.name());
            // The smallest: the oldest version, then the oldest processor, that accepts it.
            assert_eq!(smallest, Some("llvm:nvptx64:sm_90@22"), "{spec}: {refusal}");
        }
        assert!(verdict("nvptx64:sm_90@22", cell).is_ok());
    }
    let sm90 = target("nvptx64:sm_90@22");
    let code = lower_module(&sm90, &[exch.kernel()]).unwrap();
    if let Some(message) = llc(&sm90, &code, "exch128_sm90", None) {
        assert_eq!(message, "", "{code}");
        let without_ptx = llc(
            &sm90,
            &code,
            "exch128_sm90_default_ptx",
            Some(&["-march=nvptx64", "-mcpu=sm_90"]),
        )
        .unwrap();
        assert!(without_ptx.contains("unsupported cmpxchg"), "{without_ptx}");
    }
}

/// f16 add is native from sm_70 and bf16 add from sm_90 (llc 22 selects `atom.add.noftz`);
/// below, atomir's masked loop.
#[test]
fn small_float_add_follows_the_sm() {
    let lowering = |spec: &str, ty| {
        let add = cell(AtomicOp::Add, ty, Scope::Device, AddressSpace::Global);
        verdict(spec, &add).unwrap().lowering
    };
    assert_ne!(
        lowering("nvptx64:sm_60@22", ElemType::F16),
        Lowering::whole(ElementLowering::Native)
    );
    assert_eq!(
        lowering("nvptx64:sm_70@22", ElemType::F16),
        Lowering::whole(ElementLowering::Native)
    );
    assert_ne!(
        lowering("nvptx64:sm_80@22", ElemType::Bf16),
        Lowering::whole(ElementLowering::Native)
    );
    assert_eq!(
        lowering("nvptx64:sm_90@22", ElemType::Bf16),
        Lowering::whole(ElementLowering::Native)
    );
}

/// amdgcn: each processor's row says where llc selects the float add; where it does not, the
/// verdict is a CAS loop, and llc's code for a native verdict has no compare-and-swap.
#[test]
fn amdgcn_float_add_follows_the_processor() {
    let add = |ty, space| cell(AtomicOp::Add, ty, Scope::Device, space);
    let cases = [
        (
            "amdgcn:gfx942@22",
            ElemType::F64,
            AddressSpace::Global,
            true,
        ),
        (
            "amdgcn:gfx1100@22",
            ElemType::F64,
            AddressSpace::Global,
            false,
        ),
        (
            "amdgcn:gfx1100@22",
            ElemType::F64,
            AddressSpace::Shared,
            false,
        ),
        (
            "amdgcn:gfx90a@22",
            ElemType::F64,
            AddressSpace::Shared,
            true,
        ),
        (
            "amdgcn:gfx90a@22",
            ElemType::F32,
            AddressSpace::Global,
            false,
        ),
        (
            "amdgcn:gfx1100@22+coarse-grained",
            ElemType::F32,
            AddressSpace::Global,
            true,
        ),
        (
            "amdgcn:gfx1100@22",
            ElemType::F32,
            AddressSpace::Global,
            false,
        ),
    ];
    for (spec, ty, space, native) in cases {
        let tag = format!("{}_{ty}_{space}", spec.replace([':', '@', '+'], "_"));
        let Some(asm) = amdgcn_asm_of_verdict(spec, &add(ty, space), native, &tag) else {
            continue;
        };
        if native {
            assert!(!asm.contains("cmpswap") && !asm.contains("cmpst"), "{asm}");
            assert!(asm.contains("add_f"), "{asm}");
        }
    }
}

/// Checks that `cell`'s verdict on amdgcn target `spec` is native or atomir's CAS loop as
/// `native` says, and returns llc's assembly of its lowering (`None` where that llc is missing;
/// llc must accept the code).
fn amdgcn_asm_of_verdict(spec: &str, cell: &Cell, native: bool, tag: &str) -> Option<String> {
    let lowering = verdict(spec, cell).unwrap().lowering;
    let expected = if native {
        Lowering::whole(ElementLowering::Native)
    } else {
        Lowering::whole(ElementLowering::CasLoop)
    };
    assert_eq!(lowering, expected, "{spec} {}", cell.name());
    let amdgcn = target(spec);
    let code = lower_module(&amdgcn, &[cell.kernel()]).unwrap();
    let message = llc(&amdgcn, &code, tag, None)?;
    assert_eq!(message, "", "{spec}: {code}");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("llvm_processors");
    Some(std::fs::read_to_string(dir.join(format!("{tag}.s"))).unwrap())
}

/// amdgcn: from LLVM 20 gfx90a and gfx1100 expand a device-scope xor on global memory (which may
/// be another device's) into a cmpswap loop, so the verdict is atomir's CAS loop there; gfx942
/// (system scope only), llc 19 and `+coarse-grained` keep it native, and llc's code for each
/// native verdict has no compare-and-swap.
#[test]
fn amdgcn_device_rmw_on_memory_that_may_be_remote() {
    let xor = cell(
        AtomicOp::Xor,
        ElemType::U32,
        Scope::Device,
        AddressSpace::Global,
    );
    let cases = [
        ("amdgcn:gfx90a@22", false),
        ("amdgcn:gfx1100@23", false),
        ("amdgcn:gfx942@22", true),
        ("amdgcn:gfx90a@19", true),
        ("amdgcn:gfx1100@22+coarse-grained", true),
    ];
    for (spec, native) in cases {
        let tag = format!("xor_{}", spec.replace([':', '@', '+'], "_"));
        let Some(asm) = amdgcn_asm_of_verdict(spec, &xor, native, &tag) else {
            continue;
        };
        let has_cas = asm.contains("cmpswap") || asm.contains("cmpst");
        assert_eq!(has_cas, !native, "{spec}: {asm}");
        if native {
            assert!(asm.contains("atomic_xor"), "{spec}: {asm}");
        }
    }
}

/// llc's PTX for one plain `atomicrmw <op> <ty>` on `space` (address space number), with the
/// target's flags; `None` where that llc is missing.
fn llc_ptx_of_rmw(
    target: &LlvmTarget,
    op: &str,
    ty: &str,
    space: u32,
    tag: &str,
) -> Option<String> {
    let text = format!(
        "target triple = \"nvptx64-nvidia-cuda\"\n\
         define ptx_kernel void @k(ptr addrspace({space}) %p, {ty} %v, ptr addrspace(1) %out) {{\n\
         \x20 %r = atomicrmw {op} ptr addrspace({space}) %p, {ty} %v syncscope(\"block\") monotonic, align 4\n\
         \x20 store {ty} %r, ptr addrspace(1) %out\n\
         \x20 ret void\n}}\n"
    );
    let message = llc(target, &text, tag, None)?;
    assert_eq!(message, "", "{tag}: {text}");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("llvm_processors");
    Some(std::fs::read_to_string(dir.join(format!("{tag}.s"))).unwrap())
}

/// A relaxed block-scope node, which every NVPTX version and SM accepts.
fn relaxed(op: AtomicOp, ty: ElemType, space: AddressSpace) -> Cell {
    Cell {
        order: MemoryOrder::Relaxed,
        ..cell(op, ty, Scope::Block, space)
    }
}

/// NVPTX float adds, per llc version and SM, against what that llc makes of the plain
/// `atomicrmw`: packed f16x2/bf16x2 add and sub are native exactly where llc selects the
/// packed `atom` (it never does: its code is a CAS loop), and an f32 add on global or generic
/// memory is native exactly where llc's code does not flush subnormals (`atom.add.f32`
/// without `.noftz` there); otherwise atomir's own CAS loop, which llc compiles.
#[test]
fn nvptx_float_adds_follow_what_llc_selects() {
    let packed = [
        (ElemType::F16x2, "<2 x half>", "f16x2"),
        (ElemType::Bf16x2, "<2 x bfloat>", "bf16x2"),
    ];
    for major in [19, 22, 23] {
        for &cpu in atomir_llvm::Cpu::ALL {
            if cpu.triple() != atomir_llvm::Triple::Nvptx64 || !cpu.known_at(major) {
                continue;
            }
            let spec = format!("nvptx64:{}@{major}", cpu.name());
            let nvptx = target(&spec);
            let tag = |what: &str| format!("{}_{major}_{what}", cpu.name());
            for (ty, spelled, ptx) in packed {
                for (op, keyword) in [(AtomicOp::Add, "fadd"), (AtomicOp::Sub, "fsub")] {
                    let node = relaxed(op, ty, AddressSpace::Global);
                    let lowering = verdict(&spec, &node).unwrap().lowering;
                    let Some(code) = llc_ptx_of_rmw(&nvptx, keyword, spelled, 1, &tag(ptx)) else {
                        return;
                    };
                    let selected = code.contains(&format!(".noftz.{ptx}"));
                    let looped = code.contains("atom.") && code.contains(".cas.");
                    assert!(selected || looped, "{spec} {keyword} {spelled}: {code}");
                    assert_eq!(
                        lowering == Lowering::whole(ElementLowering::Native),
                        selected,
                        "{spec} {op} {ty}"
                    );
                    assert_eq!(
                        lowering,
                        Lowering::whole(ElementLowering::CasLoop),
                        "{spec} {op} {ty}"
                    );
                    let ours = lower_module(&nvptx, &[node.kernel()]).unwrap();
                    let own = format!("{}_own", tag(ptx));
                    assert_eq!(llc(&nvptx, &ours, &own, None).unwrap(), "", "{ours}");
                }
            }
            for (space, number) in [
                (AddressSpace::Global, 1),
                (AddressSpace::Generic, 0),
                (AddressSpace::Shared, 3),
            ] {
                let node = relaxed(AtomicOp::Add, ElemType::F32, space);
                let lowering = verdict(&spec, &node).unwrap().lowering;
                let name = tag(&format!("f32_{space}"));
                let code = llc_ptx_of_rmw(&nvptx, "fadd", "float", number, &name).unwrap();
                let flushes = code.lines().any(|line| {
                    let line = line.trim_start();
                    line.starts_with("atom.")
                        && line.contains(".add.f32")
                        && !line.contains(".shared.")
                });
                // llc 23 expands it on global and generic memory into a CAS loop of its own.
                let looped = code.lines().any(|line| {
                    let line = line.trim_start();
                    line.starts_with("atom.") && line.contains(".cas.")
                });
                assert_eq!(
                    lowering == Lowering::whole(ElementLowering::Native),
                    !flushes && !looped,
                    "{spec} f32 add {space}: {code}"
                );
            }
        }
    }
}
