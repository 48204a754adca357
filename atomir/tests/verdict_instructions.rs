//! A verdict's size: `Target::instructions` of a node is the size that lowering and splicing
//! the node's one-instruction kernel count (an LLVM fragment's jumps to and from the client's
//! blocks apart), on targets of every backend, and a refused node has the refusal instead.

use atomir::{
    node_kernel, verify, AddressSpace, AtomicNode, AtomicOp, ElemType, Fence, FloatLaxity,
    Fragment, LowerOptions, MemoryOrder, Module, Node, Scope, SpliceNames, Target, VectorShape,
};

const TARGETS: [&str; 12] = [
    "ptx:sm_60",
    "ptx:sm_70",
    "ptx:sm_90",
    "ptx:sm_90+plain-loops",
    "ptx:sm_90+packed-half-add",
    "visa:TGLLP",
    "visa:PVC",
    "llvm:nvptx64:sm_70",
    "llvm:nvptx64",
    "llvm:amdgcn",
    "llvm:x86_64",
    "llvm:spirv64",
];

/// Nodes the IR defines, drawn over ops, types, shapes, orders, scopes, spaces, results and
/// literals (every `stride`-th combination, so every field varies), each with every float
/// laxity its op and type admit too, and every fence.
fn nodes(stride: usize) -> Vec<Node> {
    let orders = [
        MemoryOrder::Relaxed,
        MemoryOrder::Acquire,
        MemoryOrder::Release,
        MemoryOrder::AcqRel,
        MemoryOrder::SeqCst,
    ];
    let scopes = [Scope::Block, Scope::Cluster, Scope::Device, Scope::System];
    let spaces = [
        AddressSpace::Global,
        AddressSpace::Shared,
        AddressSpace::Generic,
    ];
    let mut nodes = Vec::new();
    let (mut count, mut next) = (0usize, stride);
    for &op in AtomicOp::ALL {
        for &ty in ElemType::ALL {
            for &shape in VectorShape::ALL {
                for order in orders {
                    for scope in scopes {
                        for space in spaces {
                            for (result_used, literal) in [(true, None), (false, Some(1))] {
                                count += 1;
                                if count < next {
                                    continue;
                                }
                                next += stride;
                                let mut node = AtomicNode::new(op, ty);
                                node.shape = shape;
                                node.order = order;
                                node.scope = scope;
                                node.space = space;
                                node.pointer_space = space;
                                node.result_used = result_used || op.requires_result();
                                node.result_used &= !op.has_no_result();
                                node.literal = literal.filter(|_| op.operand_count() > 0);
                                let laxities = FloatLaxity::ALL
                                    .iter()
                                    .filter(|laxity| laxity.admits(op, ty))
                                    .map(|&laxity| Some(laxity));
                                for laxity in std::iter::once(None).chain(laxities) {
                                    let node = Node::Atomic(AtomicNode { laxity, ..node });
                                    if node.undefined().is_none() {
                                        nodes.push(node);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    for order in [
        MemoryOrder::Acquire,
        MemoryOrder::Release,
        MemoryOrder::SeqCst,
    ] {
        for scope in scopes {
            nodes.push(Node::Fence(Fence { order, scope }));
        }
    }
    nodes
}

#[test]
fn a_verdicts_size_is_the_size_lowering_and_splicing_count() {
    let nodes = nodes(97);
    assert!(nodes.len() > 150, "{} nodes", nodes.len());
    let mut compared = [0usize; 3];
    for name in TARGETS {
        let target: Target = name.parse().unwrap();
        for node in &nodes {
            let verdict = target.legalize(node);
            let counted = target.instructions(node);
            let Ok(legality) = verdict else {
                assert_eq!(counted.err(), verdict.err(), "{target}: {node:?}");
                continue;
            };
            let counted = counted.unwrap_or_else(|refusal| panic!("{target}: {refusal}"));
            assert!(counted > 0, "{target}: {node:?}: no code");
            let (kernel, inst) = node_kernel(node);
            assert_eq!(Node::of_data(&kernel, &kernel.insts[inst]), *node);
            let module = Module {
                kernels: vec![kernel],
            };
            let verified = verify::verify(&module).expect("a node's kernel verifies");
            let each = target.lower_each(&verified, &LowerOptions::fragment());
            let (lowered, _) = each[0].result.clone().expect("accepted");
            assert_eq!(lowered, legality, "{target}: {node:?}");
            assert_eq!(each[0].instructions, counted, "{target}: {node:?}");
            let types = target.binding_types(&verified, 0, inst).unwrap();
            let mut names = SpliceNames::new("f_").unwrap();
            for value in &types.values {
                let lanes: Vec<String> = (0..value.splice.names)
                    .map(|lane| format!("c_{}_{lane}", value.name))
                    .collect();
                names.bind_lanes(value.value, lanes.iter().map(String::as_str));
            }
            let mut fragment = Fragment::default();
            let spliced = target
                .splice(&verified, 0, inst, &names, &mut fragment)
                .unwrap_or_else(|error| panic!("{target}: {error}"));
            assert_eq!(spliced, legality, "{target}: {node:?}");
            // An LLVM fragment joins the client's blocks: its code runs from a jump out of the
            // client's block to a jump into the continuation, after the phi that defines the
            // result under its name where there is one; a lowering prints the node's code in
            // a function of its own, where none of that is needed.
            let joins = fragment.instructions.checked_sub(counted);
            match target {
                Target::Llvm(_) => assert!(
                    matches!(joins, Some(1..=2)),
                    "{target}: {node:?}: fragment {}, lowering {counted}",
                    fragment.instructions
                ),
                _ => assert_eq!(joins, Some(0), "{target}: {node:?}"),
            }
            compared[["ptx", "visa", "llvm"]
                .iter()
                .position(|backend| *backend == target.backend_name())
                .unwrap()] += 1;
        }
    }
    assert!(compared.iter().all(|&count| count > 50), "{compared:?}");
}
