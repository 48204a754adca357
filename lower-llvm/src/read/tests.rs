//! The reader on hand-written lines of every form.

use atomir_ir::{AddressSpace, AtomicOp, ElemType, MemoryOrder, Scope, VectorShape};

use super::*;

fn read_one(triple: &str, line: &str) -> Result<LlAtomic, String> {
    let source = format!(
        "target triple = \"{triple}\"\ndefine void @f(ptr %p) {{\n{line}\n  ret void\n}}\n"
    );
    let reading = read(&source, &ReadOptions::default());
    if let Some(d) = reading.diagnostics.first() {
        return Err(d.to_string());
    }
    let [atomic] = reading.module.atomics.as_slice() else {
        return Err(format!("{} atomics", reading.module.atomics.len()));
    };
    Ok(atomic.clone())
}

fn node(triple: &str, line: &str) -> atomir_ir::AtomicNode {
    read_one(triple, line).unwrap().node().unwrap()
}

const NV: &str = "nvptx64-nvidia-cuda";
const AMD: &str = "amdgcn-amd-amdhsa";

#[test]
fn reads_every_rmw_op() {
    let ops = [
        ("xchg", "i32", AtomicOp::Exch, ElemType::B32),
        ("add", "i64", AtomicOp::Add, ElemType::U64),
        ("sub", "i8", AtomicOp::Sub, ElemType::U8),
        ("and", "i16", AtomicOp::And, ElemType::U16),
        ("nand", "i32", AtomicOp::Nand, ElemType::U32),
        ("or", "i32", AtomicOp::Or, ElemType::U32),
        ("xor", "i32", AtomicOp::Xor, ElemType::U32),
        ("max", "i32", AtomicOp::Max, ElemType::S32),
        ("min", "i64", AtomicOp::Min, ElemType::S64),
        ("umax", "i32", AtomicOp::Max, ElemType::U32),
        ("umin", "i32", AtomicOp::Min, ElemType::U32),
        ("fadd", "float", AtomicOp::Add, ElemType::F32),
        ("fsub", "double", AtomicOp::Sub, ElemType::F64),
        ("fmax", "half", AtomicOp::Max, ElemType::F16),
        ("fmin", "bfloat", AtomicOp::Min, ElemType::Bf16),
        ("uinc_wrap", "i32", AtomicOp::Inc, ElemType::U32),
        ("udec_wrap", "i32", AtomicOp::Dec, ElemType::U32),
        ("usub_cond", "i32", AtomicOp::UsubCond, ElemType::U32),
        ("usub_sat", "i64", AtomicOp::UsubSat, ElemType::U64),
        ("fmaximum", "float", AtomicOp::FMaximum, ElemType::F32),
        ("fminimum", "double", AtomicOp::FMinimum, ElemType::F64),
        ("fmaximumnum", "float", AtomicOp::FMaximumNum, ElemType::F32),
        ("fminimumnum", "half", AtomicOp::FMinimumNum, ElemType::F16),
        ("xchg", "float", AtomicOp::Exch, ElemType::F32),
    ];
    for (keyword, ty, op, elem) in ops {
        let line = format!("  %r = atomicrmw {keyword} ptr addrspace(1) %p, {ty} %x syncscope(\"device\") acq_rel, align 4");
        let n = node(NV, &line);
        assert_eq!(
            (n.op, n.ty, n.order, n.scope, n.space),
            (
                op,
                elem,
                MemoryOrder::AcqRel,
                Scope::Device,
                AddressSpace::Global
            ),
            "{line}"
        );
    }
    let fmax = read_one(NV, "  %r = atomicrmw fmax ptr %p, float %x monotonic").unwrap();
    assert_eq!(
        fmax.node().unwrap().laxity,
        Some(atomir_ir::FloatLaxity::Ieee2008MinMax)
    );
    let fmaximumnum = read_one(
        NV,
        "  %r = atomicrmw fmaximumnum ptr %p, float %x monotonic",
    )
    .unwrap();
    assert_eq!(fmaximumnum.node().unwrap().laxity, None);
}

#[test]
fn reads_cmpxchg_loads_stores_and_fences() {
    let cas = read_one(NV, "  %c = cmpxchg weak volatile ptr addrspace(3) %p, i64 %a, i64 %b syncscope(\"block\") release acquire, align 8").unwrap();
    let access = cas.access.clone().unwrap();
    assert!(access.weak && access.volatile);
    assert_eq!(access.align, Some(8));
    let n = cas.node().unwrap();
    assert_eq!(
        (n.op, n.ty, n.order, n.scope, n.space),
        (
            AtomicOp::Cas,
            ElemType::B64,
            MemoryOrder::AcqRel,
            Scope::Block,
            AddressSpace::Shared
        )
    );
    let load = node(
        NV,
        "  %v = load atomic i32, ptr addrspace(1) %p syncscope(\"cluster\") acquire, align 4",
    );
    assert_eq!(
        (load.op, load.ty, load.order, load.scope),
        (
            AtomicOp::Load,
            ElemType::B32,
            MemoryOrder::Acquire,
            Scope::Cluster
        )
    );
    let store = node(
        NV,
        "  store atomic float %v, ptr addrspace(7) %p release, align 4",
    );
    assert_eq!(
        (store.op, store.ty, store.scope, store.space),
        (
            AtomicOp::Store,
            ElemType::F32,
            Scope::System,
            AddressSpace::SharedCluster
        )
    );
    let fence = read_one(AMD, "  fence syncscope(\"workgroup-one-as\") seq_cst").unwrap();
    assert_eq!(
        fence.fence(),
        Some(atomir_ir::Fence {
            order: MemoryOrder::SeqCst,
            scope: Scope::Block
        })
    );
    assert!(fence.scope.one_address_space);
    // Plain loads and stores are not atomics.
    assert!(read_one(NV, "  %v = load i32, ptr %p, align 4").is_err());
}

#[test]
fn reads_vectors_and_typed_pointers() {
    let packed = node(NV, "  %r = atomicrmw fadd ptr addrspace(1) %p, <2 x half> %v syncscope(\"device\") monotonic, align 4");
    assert_eq!(
        (packed.ty, packed.shape),
        (ElemType::F16x2, VectorShape::Scalar)
    );
    let split = read_one(
        NV,
        "  %r = atomicrmw elementwise fadd ptr addrspace(1) %p, <2 x half> %v monotonic, align 4",
    )
    .unwrap();
    let access = split.access.clone().unwrap();
    assert_eq!(
        (access.ty, access.shape, access.whole_vector),
        (ElemType::F16, VectorShape::V2, false)
    );
    let whole = read_one(
        NV,
        "  %r = atomicrmw fadd ptr addrspace(1) %p, <4 x float> %v monotonic, align 16",
    )
    .unwrap();
    assert!(whole.access.unwrap().whole_vector);
    let typed = read_one(
        NV,
        "  %r = atomicrmw add i32 addrspace(1)* %p, i32 1 seq_cst",
    )
    .unwrap();
    let access = typed.access.unwrap();
    assert_eq!(access.space, AddressSpace::Global);
    assert!(matches!(
        access.pointer_type,
        LlType::Ptr {
            space: 1,
            pointee: Some(_)
        }
    ));
    let gep = read_one(NV, "  %r = atomicrmw add ptr addrspace(1) getelementptr inbounds ([4 x i32], ptr addrspace(1) @g, i64 0, i64 1), i32 1 monotonic, align 4").unwrap();
    assert_eq!(gep.access.unwrap().operands.len(), 1);
}

#[test]
fn refuses_what_it_cannot_read() {
    for (triple, line, words) in [
        (
            NV,
            "  %r = atomicrmw add ptr addrspace(5) %p, i32 1 monotonic",
            "address space 5",
        ),
        (
            AMD,
            "  %r = atomicrmw add ptr %p, i32 1 syncscope(\"wavefront\") monotonic",
            "wavefront",
        ),
        (
            NV,
            "  %r = atomicrmw add ptr %p, i32 1 syncscope(\"singlethread\") monotonic",
            "singlethread",
        ),
        (NV, "  %r = atomicrmw add ptr %p, i24 1 monotonic", "i24"),
        (
            NV,
            "  %r = atomicrmw xchg ptr %p, ptr %q monotonic",
            "pointer-valued",
        ),
        (
            NV,
            "  %v = load atomic i32, ptr %p unordered, align 4",
            "unordered",
        ),
        (
            NV,
            "  %r = atomicrmw frob ptr %p, i32 1 monotonic",
            "atomicrmw operation",
        ),
        (
            NV,
            "  %r = atomicrmw add ptr %p, float 1.0 monotonic",
            "integers",
        ),
        (
            NV,
            "  %r = atomicrmw add ptr %p, i32 1 monotonic, align",
            "alignment",
        ),
        (NV, "  %r = atomicrmw add ptr %p, i32 (1 monotonic", "value"),
    ] {
        let error = read_one(triple, line).unwrap_err();
        assert!(error.contains(words), "{line}: {error}");
        assert!(error.starts_with("3:"), "{error}");
    }
}

#[test]
fn finds_blocks_results_and_functions() {
    let source = "target triple = \"nvptx64-nvidia-cuda\"\n\
define ptx_kernel void @k(ptr addrspace(1) %0, i32 %1) {\n\
  %3 = atomicrmw add ptr addrspace(1) %0, i32 %1 monotonic, align 4\n\
  br label %4\n\
4:                                                ; preds = %2\n\
  %5 = atomicrmw add ptr addrspace(1) %0, i32 %3 monotonic, align 4\n\
  ret void\n\
}\n";
    let reading = read(source, &ReadOptions::default());
    assert!(reading.diagnostics.is_empty(), "{:?}", reading.diagnostics);
    let [first, second] = reading.module.atomics.as_slice() else {
        panic!()
    };
    assert_eq!(reading.module.functions[0].entry_block, "2");
    assert_eq!((first.block.as_str(), second.block.as_str()), ("2", "4"));
    assert!(first.result_used && !second.result_used);
    assert_eq!(
        &source[first.span.clone()],
        "%3 = atomicrmw add ptr addrspace(1) %0, i32 %1 monotonic, align 4"
    );
    let kernels = to_module(source, &reading.module, false);
    assert_eq!(kernels.module.kernels.len(), 1);
    assert!(atomir_ir::verify::verify(&kernels.module).is_ok());
}

#[test]
fn a_module_without_a_triple_takes_the_given_one() {
    let source = "define void @f(ptr %p) {\n  %r = atomicrmw add ptr %p, i32 1 syncscope(\"agent\") monotonic\n  ret void\n}\n";
    assert_eq!(read(source, &ReadOptions::default()).diagnostics.len(), 1);
    let reading = read(
        source,
        &ReadOptions {
            triple: Some(Triple::Amdgcn),
        },
    );
    assert_eq!(reading.module.atomics[0].scope.scope, Scope::Device);
}
