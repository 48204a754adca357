//! The PTX reader on the forms nvcc and llc write, on PTX's defaults, and on bad input.

use atomir_ir::{
    AddressSpace, AtomicOp, CacheHint, ElemType, MemoryOrder, Node, Scope, VectorShape,
};
use atomir_ptx::read::{read_instruction, read_module, Declarations, PtxScalar};
use atomir_ptx::spell::PtxOpcode;

const HEADER: &str = ".version 8.8\n.target sm_90\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .pred %p<3>;\n\t.reg .b16 %rs<4>;\n\t.reg .b32 %r<10>;\n\t.reg .f32 %f<9>;\n\t.reg .b64 %rd<5>;\n\t.shared .align 4 .b8 buf[64];\n";

fn module(body: &str) -> String {
    format!("{HEADER}{body}\tret;\n}}\n")
}

fn atomic(node: &Node) -> atomir_ir::AtomicNode {
    match node {
        Node::Atomic(node) => *node,
        Node::Fence(fence) => panic!("a fence: {fence:?}"),
    }
}

/// `add.f32` without `.noftz` flushes subnormals on global memory (and generic addresses, which
/// may point there), not on shared memory; `.noftz` f16/bf16 min/max give any NaN for two NaNs.
#[test]
fn loose_float_forms_read_as_their_laxity() {
    let source = module(
        "\tatom.global.add.f32 %f1, [%rd1], %f2;\n\
         \tred.add.f32 [%rd1], %f2;\n\
         \tatom.shared.add.f32 %f1, [buf], %f2;\n\
         \tatom.global.add.noftz.f32 %f1, [%rd1], %f2;\n\
         \tatom.global.v8.bf16.max.noftz {%rs1,%rs1,%rs1,%rs1,%rs1,%rs1,%rs1,%rs1}, [%rd1], {%rs2,%rs2,%rs2,%rs2,%rs2,%rs2,%rs2,%rs2};\n\
         \tatom.global.v2.f16x2.min.noftz {%r1,%r2}, [%rd1], {%r3,%r4};\n",
    );
    let source = source.replace(".version 8.8", ".version 9.4");
    let read = read_module(&source);
    assert_eq!(read.errors, []);
    let laxities: Vec<_> = read
        .atomics
        .iter()
        .map(|a| atomic(&a.node).laxity)
        .collect();
    let (ftz, loose) = (
        Some(atomir_ir::FloatLaxity::MayFlushSubnormals),
        Some(atomir_ir::FloatLaxity::Ieee2008MinMax),
    );
    assert_eq!(laxities, [ftz, ftz, None, None, loose, loose]);
    assert_eq!(atomic(&read.atomics[5].node).op, AtomicOp::Min);
}

#[test]
fn nvcc_qualifier_orders_and_defaults() {
    let source = module(
        "\tatom.add.acquire.gpu.s32 %r1, [%rd1], 1;\n\
         \tatom.global.sys.add.u32 %r2, [%rd1+8], %r1;\n\
         \tatom.acquire.sys.global.add.u32 %r3, [%rd1+-4], %r1;\n\
         \tatom.shared.cas.b16 %rs1, [buf+2], %rs2, %rs3;\n\
         \tatom.global.v4.f32.add {%f1, %f2, %f3, %f4}, [%rd1], {%f5, %f6, %f7, %f8};\n\
         \t@!%p1 red.release.cta.shared::cta.max.s32 [%rd2], %r4;\n",
    );
    let read = read_module(&source);
    assert_eq!(read.errors, []);
    assert_eq!(read.atomics.len(), 6);
    let nodes: Vec<_> = read.atomics.iter().map(|a| atomic(&a.node)).collect();
    assert_eq!(
        (nodes[0].op, nodes[0].ty, nodes[0].order),
        (AtomicOp::Add, ElemType::S32, MemoryOrder::Acquire)
    );
    assert_eq!(
        (nodes[0].scope, nodes[0].space, nodes[0].literal),
        (Scope::Device, AddressSpace::Generic, Some(1))
    );
    assert_eq!(
        (nodes[1].order, nodes[1].scope, nodes[1].space),
        (MemoryOrder::Relaxed, Scope::System, AddressSpace::Global)
    );
    assert_eq!(
        read.atomics[1]
            .values
            .address
            .as_ref()
            .map(|a| (a.base.as_str(), a.offset)),
        Some(("%rd1", 8))
    );
    assert_eq!(
        read.atomics[2].values.address.as_ref().map(|a| a.offset),
        Some(-4)
    );
    assert_eq!(
        (nodes[3].op, nodes[3].ty, nodes[3].space),
        (AtomicOp::Cas, ElemType::B16, AddressSpace::Shared)
    );
    let cas = &read.atomics[3].values;
    assert!(cas
        .address
        .as_ref()
        .is_some_and(|a| a.variable && a.base == "buf" && a.offset == 2));
    assert_eq!(cas.new_value, [PtxScalar::Register("%rs3".into())]);
    assert_eq!(
        (nodes[4].shape, nodes[4].ty, nodes[4].result_used),
        (VectorShape::V4, ElemType::F32, true)
    );
    assert_eq!(read.atomics[4].values.result, ["%f1", "%f2", "%f3", "%f4"]);
    assert_eq!(
        (
            nodes[5].op,
            nodes[5].order,
            nodes[5].scope,
            nodes[5].result_used
        ),
        (AtomicOp::Max, MemoryOrder::Release, Scope::Block, false)
    );
    assert_eq!(
        read.atomics[5].values.guard,
        Some(("%p1".to_string(), true))
    );
    assert_eq!(read.atomics[5].opcode, PtxOpcode::Red);
    assert_eq!((read.atomics[0].line, read.atomics[0].col), (15, 2));
    assert_eq!(read.atomics[5].col, 2, "the guard starts the instruction");
    assert!(read.atomics[1].raw.contains("atom.global.sys.add.u32"));
}

#[test]
fn loads_stores_fences_and_membars() {
    let source = module(
        "\tfence.sc.gpu;\n\tld.acquire.gpu.u32 %r1, [%rd1];\n\tst.release.gpu.global.u32 [%rd1], %r1;\n\
         \tld.relaxed.cta.shared.v2.b32 {%r2, %r3}, [%rd1];\n\tmembar.gl;\n\tmembar.cta;\n\
         \tld.volatile.global.u32 %r4, [%rd1];\n\tst.volatile.u32 [%rd1], %r4;\n\
         \tld.global.u32 %r5, [%rd1];\n\tst.global.u32 [%rd1], %r5;\n\tld.global.nc.u32 %r6, [%rd1];\n\
         \tld.volatile.local.u32 %r6, [%rd1];\n\tfence.acq_rel.sys;\n\tfence.cluster;\n",
    );
    let read = read_module(&source);
    assert_eq!(read.errors, []);
    let nodes: Vec<Node> = read.atomics.iter().map(|a| a.node).collect();
    assert_eq!(
        nodes.len(),
        10,
        "weak and thread-private accesses are not atomics: {nodes:#?}"
    );
    let fence = |order, scope| Node::Fence(atomir_ir::Fence { order, scope });
    assert_eq!(nodes[0], fence(MemoryOrder::SeqCst, Scope::Device));
    assert_eq!(nodes[4], fence(MemoryOrder::SeqCst, Scope::Device));
    assert_eq!(nodes[5], fence(MemoryOrder::SeqCst, Scope::Block));
    assert_eq!(nodes[8], fence(MemoryOrder::AcqRel, Scope::System));
    assert_eq!(nodes[9], fence(MemoryOrder::AcqRel, Scope::Cluster));
    let load = atomic(&nodes[1]);
    assert_eq!(
        (load.op, load.order, load.result_used),
        (AtomicOp::Load, MemoryOrder::Acquire, true)
    );
    let store = atomic(&nodes[2]);
    assert_eq!(
        (store.op, store.order, store.result_used),
        (AtomicOp::Store, MemoryOrder::Release, false)
    );
    let pair = atomic(&nodes[3]);
    assert_eq!(
        (pair.shape, pair.ty, pair.scope, pair.space),
        (
            VectorShape::V2,
            ElemType::B32,
            Scope::Block,
            AddressSpace::Shared
        )
    );
    let volatile = atomic(&nodes[6]);
    assert_eq!(
        (volatile.order, volatile.scope),
        (MemoryOrder::Relaxed, Scope::System)
    );
    let volatile_store = atomic(&nodes[7]);
    assert_eq!(
        (
            volatile_store.op,
            volatile_store.scope,
            volatile_store.space
        ),
        (AtomicOp::Store, Scope::System, AddressSpace::Generic)
    );
}

#[test]
fn a_cache_hint_reads_the_policy_made_for_it() {
    let source = module(
        "\tcreatepolicy.fractional.L2::evict_last.b64 %rd3, 1.0;\n\
         \tatom.global.add.L2::cache_hint.u32 %r1, [%rd1], %r2, %rd3;\n\
         \tcreatepolicy.fractional.L2::evict_last.b64 %rd4, 0.5;\n\
         \tatom.global.add.L2::cache_hint.u32 %r1, [%rd1], %r2, %rd4;\n",
    );
    let read = read_module(&source);
    assert_eq!(read.atomics.len(), 1);
    assert_eq!(
        atomic(&read.atomics[0].node).hint,
        Some(CacheHint::EvictLast)
    );
    assert_eq!(read.errors.len(), 1);
    assert!(
        read.errors[0]
            .message
            .contains("cache policy `%rd4` is not modelled"),
        "{}",
        read.errors[0]
    );
}

#[test]
fn bad_input_is_an_error_at_its_place_and_the_rest_is_read() {
    let source = module(
        "\tatom.global.add.s64 %rd3, [%rd1], %rd2;\n\
         \tatom.global.foo.add.u32 %r1, [%rd1], 1;\n\
         \tatom.global.add.f32 %f1, [%rd1], %rd2;\n\
         \tatom.global.add.u32 %r1, %rd1, 1;\n\
         \tatom.global.add.u32 %r1, [%rd1];\n\
         \tatom.global.add.f16 %rs1, [%rd1], %rs2;\n\
         \tred.acquire.gpu.global.add.u32 [%rd1], %r1;\n\
         \tatom.global.add.u32 %r1, [%rd9], 1;\n\
         \tld.release.gpu.u32 %r1, [%rd1];\n\
         \tatom.global.max.noftz.bf16 %rs1, [%rd1], %rs2;\n\
         \tmultimem.red.relaxed.gpu.global.add.u32 [%rd1], %r1;\n\
         \tred.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%rd1], %r1, [%rd2];\n\
         \tfence.proxy.async;\n\
         \tld.mmio.relaxed.sys.global.u32 %r1, [%rd1];\n\
         \t@%r1 atom.global.add.u32 %r1, [%rd1], 1;\n\
         \tatom.global.add.u32 %r1, [%rd1], 1;\n",
    );
    let read = read_module(&source);
    let expected = [
        (15, 2, "PTX has no `atom.add.s64`"),
        (16, 14, "unknown qualifier `.foo`"),
        (
            17,
            35,
            "`%rd2` is a `.b64` register; expected a 32-bit register for f32",
        ),
        (18, 27, "expected an address"),
        (19, 2, "takes d, [a], b; found 2 operands"),
        (20, 2, "requires `.noftz`"),
        (21, 2, "`red` has no `.acquire`"),
        (22, 27, "`%rd9` is not a declared register"),
        (23, 2, "`ld.release` does not exist"),
        (24, 2, "PTX has no `atom.max.bf16`"),
        (
            25,
            2,
            "`multimem.red.relaxed.gpu.global.add.u32` is not modelled",
        ),
        (26, 6, "`red.async` is not modelled"),
        (27, 8, "`fence.proxy` is not modelled"),
        (28, 2, "`ld.mmio` is not modelled"),
        (
            29,
            2,
            "the guard `%r1` is a `.b32` register; expected a `.pred`",
        ),
    ];
    let found: Vec<(u32, u32, String)> = read
        .errors
        .iter()
        .map(|e| (e.line, e.col, e.message.clone()))
        .collect();
    assert_eq!(found.len(), expected.len(), "{found:#?}");
    for ((line, col, message), (want_line, want_col, want)) in found.iter().zip(expected) {
        assert_eq!((*line, *col), (want_line, want_col), "{message}");
        assert!(message.contains(want), "`{message}` should say `{want}`");
    }
    assert_eq!(read.atomics.len(), 1, "the line after the errors is read");
    assert_eq!(read.atomics[0].line, 30);
}

#[test]
fn one_instruction_for_a_translator() {
    let read = read_instruction(
        "atom.global.add.f32 %f1, [%rd1], %f2;",
        &Declarations::new(),
    )
    .unwrap();
    let node = atomic(&read.node);
    assert_eq!(
        (node.op, node.ty, node.space, node.scope),
        (
            AtomicOp::Add,
            ElemType::F32,
            AddressSpace::Global,
            Scope::Device
        )
    );
    assert_eq!(read.values.operand, [PtxScalar::Register("%f2".into())]);
    let error =
        read_instruction("atom.global.add.q32 %f1, [%rd1], %f2", &Declarations::new()).unwrap_err();
    assert_eq!((error.line, error.col), (1, 17));
    assert!(read_instruction("add.u32 %r1, %r2, %r3;", &Declarations::new()).is_err());
}

#[test]
fn garbage_never_panics() {
    let pieces = [
        "atom", ".", "global", "add", "u32", "%r1", ",", "[", "]", "+", "-", "{", "}", "@", "!",
        "%p1", ";", "\n", "/*", "*/", "//", "\"", ".reg", ".b32", "%r<", ">", "fence", "sc",
        "membar", "ld", "acquire", "v4", "0x", "0f", "buf", ":", "::", "(", ")", ".entry", " ",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..20_000 {
        let mut text = String::new();
        for _ in 0..(seed % 24) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            text.push_str(pieces[(seed % pieces.len() as u64) as usize]);
        }
        let _ = read_module(&text);
        let _ = read_instruction(&text, &Declarations::new());
    }
}
