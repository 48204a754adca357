//! The opt-in packed form of a scalar f16/bf16 add or sub (`ptx:…+packed-half-add`): the packed
//! `atom.add.noftz.f16x2`/`.bf16x2` on the aligned 32-bit word holding the address, the operand
//! in the addressed half and -0.0 in the other, the old value taken from the addressed half.
//!
//! - The form, step for step as the PTX printer spells it (`lower-ptx/src/emit/native.rs`,
//!   `packed_half`), as an expansion run in the interpreter, whose packed `Rmw` is
//!   `semantics::apply` on `f16x2`/`bf16x2`: for every one of the 65,536 operands against
//!   representative memory values of the addressed half (zeros, subnormals, normals, the largest
//!   finite, infinities, quiet and signalling NaNs of both signs), in both halves of the word, the
//!   addressed half and the old value are the scalar semantics' (`apply` on `f16`/`bf16`; a NaN
//!   result by class, its payload being free), and every one of the 65,536 other-half values
//!   meets every such memory value: a non-NaN one is left bit for bit, a NaN one comes back as a
//!   NaN (the documented exception: the GPU gives the canonical NaN). Bytes around the word are
//!   never touched.
//! - The table: the opt-in changes the verdict of exactly the scalar f16/bf16 add and sub cells
//!   (where the target has the packed atom), and nothing without it.

use atomir::Target;
use atomir::{PrimaryMap, SmallVec};
use atomir_ir::expand::{
    BinaryOp, BlockData, CmpCond, Expansion, MemAttrs, Prim, PrimType, Terminator, UnaryOp, Var,
};
use atomir_ir::interp::{Inputs, Interpreter, Memory};
use atomir_ir::matrix::cells;
use atomir_ir::semantics::{apply, is_nan, same_value, FloatMode};
use atomir_ir::{
    AddressSpace, AtomicNode, AtomicOp, ElemType, MemoryOrder, Rewrite, Scope, VectorShape,
};

const BASE: u64 = 0x1000;
/// The word's offset in the test memory: 8 bytes of guard on each side.
const WORD: u64 = 8;
const GUARD: u8 = 0xa5;

/// Appends primitives to one block of an expansion under construction.
struct Build {
    vars: PrimaryMap<Var, PrimType>,
    prims: Vec<Prim>,
}

impl Build {
    fn var(&mut self, ty: PrimType) -> Var {
        self.vars.push(ty)
    }

    fn constant(&mut self, ty: PrimType, bits: u128) -> Var {
        let dst = self.var(ty);
        self.prims.push(Prim::Const { dst, bits });
        dst
    }

    fn unary(&mut self, op: UnaryOp, src: Var, ty: PrimType) -> Var {
        let dst = self.var(ty);
        self.prims.push(Prim::Unary { dst, op, src });
        dst
    }

    fn binary(&mut self, op: BinaryOp, a: Var, b: Var) -> Var {
        let dst = self.var(self.vars[a]);
        self.prims.push(Prim::Binary { dst, op, a, b });
        dst
    }

    fn select(&mut self, cond: Var, if_true: Var, if_false: Var) -> Var {
        let dst = self.var(self.vars[if_true]);
        self.prims.push(Prim::Select {
            dst,
            cond,
            if_true,
            if_false,
        });
        dst
    }

    /// `mov.b32 word, {low, high}`.
    fn pack(&mut self, low: Var, high: Var) -> Var {
        let low = self.unary(UnaryOp::Zext, low, PrimType::I32);
        let high = self.unary(UnaryOp::Zext, high, PrimType::I32);
        let sixteen = self.constant(PrimType::I32, 16);
        let high = self.binary(BinaryOp::Shl, high, sixteen);
        self.binary(BinaryOp::Or, low, high)
    }
}

/// The packed form of a scalar `ty` add (`negate`: sub, the operand negated first, as the
/// printer does) with memory attributes `mem`, in the order the PTX printer emits it.
fn packed_form(ty: ElemType, negate: bool, mem: MemAttrs) -> Expansion {
    let mut b = Build {
        vars: PrimaryMap::new(),
        prims: Vec::new(),
    };
    let addr = b.var(PrimType::Ptr);
    let operand = b.var(PrimType::natural(ty));
    let mut value = b.unary(UnaryOp::Bitcast, operand, PrimType::I16);
    if negate {
        let sign = b.constant(PrimType::I16, 0x8000);
        value = b.binary(BinaryOp::Xor, value, sign);
    }
    // and.b64 word, addr, -4; and.b64 bit, addr, 2; setp.ne.b64 high, bit, 0
    let word = b.var(PrimType::Ptr);
    b.prims.push(Prim::PtrAlignDown {
        dst: word,
        ptr: addr,
        align: 4,
    });
    let low_bits = b.var(PrimType::I32);
    b.prims.push(Prim::PtrLowBits {
        dst: low_bits,
        ptr: addr,
        align: 4,
    });
    let two = b.constant(PrimType::I32, 2);
    let bit = b.binary(BinaryOp::And, low_bits, two);
    let zero = b.constant(PrimType::I32, 0);
    let high = b.var(PrimType::Pred);
    b.prims.push(Prim::Cmp {
        dst: high,
        cond: CmpCond::Ne,
        a: bit,
        b: zero,
    });
    // mov.b16 -0.0; the two placements; selp.b32
    let negative_zero = b.constant(PrimType::I16, 0x8000);
    let in_low = b.pack(value, negative_zero);
    let in_high = b.pack(negative_zero, value);
    let packed = b.select(high, in_high, in_low);
    let old_word = b.var(PrimType::I32);
    b.prims.push(Prim::Rmw {
        dst: Some(old_word),
        op: AtomicOp::Add,
        ty: if ty == ElemType::F16 {
            ElemType::F16x2
        } else {
            ElemType::Bf16x2
        },
        addr: word,
        value: packed,
        mem,
    });
    // mov.b32 {low, high}, old; selp.b16 result, high, low, high
    let old_low = b.unary(UnaryOp::Trunc, old_word, PrimType::I16);
    let sixteen = b.constant(PrimType::I32, 16);
    let shifted = b.binary(BinaryOp::LShr, old_word, sixteen);
    let old_high = b.unary(UnaryOp::Trunc, shifted, PrimType::I16);
    let old = b.select(high, old_high, old_low);
    let result = b.unary(UnaryOp::Bitcast, old, PrimType::natural(ty));
    let mut blocks = PrimaryMap::new();
    blocks.push(BlockData {
        params: SmallVec::new(),
        prims: b.prims,
        terminator: Terminator::Return,
    });
    Expansion {
        vars: b.vars,
        blocks,
        addr,
        operands: SmallVec::from_slice(&[operand]),
        new_values: SmallVec::new(),
        results: SmallVec::from_slice(&[result]),
    }
}

/// Representative values of a 16-bit float layout with `significand` bits: both zeros, the
/// smallest and largest subnormals, the smallest normal, one, the largest finite, infinity,
/// quiet and signalling NaNs, each with both signs, and a few ordinary values.
fn representative(significand: u32) -> Vec<u128> {
    let exponent_mask = (0x7fffu128 >> significand) << significand;
    let fraction = (1u128 << significand) - 1;
    let one = (exponent_mask >> 1) & exponent_mask;
    let quiet = 1u128 << (significand - 1);
    let positive = [
        0,
        1,
        fraction,
        fraction + 1,
        one,
        one | 1,
        exponent_mask - 1,
        exponent_mask,
        exponent_mask | quiet,
        exponent_mask | 1,
        exponent_mask | fraction,
        0x1234 & 0x7fff,
        0x3c5a & 0x7fff,
    ];
    positive
        .into_iter()
        .flat_map(|bits| [bits, bits | 0x8000])
        .collect()
}

#[test]
fn the_packed_form_is_the_scalar_add_on_its_half_and_keeps_the_other() {
    let mut interp = Interpreter::new();
    let mut memory = Memory::new(BASE, 24);
    let mut checked = 0u64;
    let mut nan_neighbours = 0u64;
    for (ty, significand) in [(ElemType::F16, 10), (ElemType::Bf16, 7)] {
        let values = representative(significand);
        for op in [AtomicOp::Add, AtomicOp::Sub] {
            let mut node = AtomicNode::new(AtomicOp::Add, ty);
            node.order = MemoryOrder::AcqRel;
            node.space = AddressSpace::Global;
            node.pointer_space = AddressSpace::Global;
            node.result_used = true;
            let mem = MemAttrs {
                order: node.order,
                scope: Scope::Device,
                space: node.space,
                hint: None,
            };
            let expansion = packed_form(ty, op == AtomicOp::Sub, mem);
            // The mechanical checks (types, definitions, the order kept on the atomic).
            expansion
                .validate(&node)
                .unwrap_or_else(|e| panic!("{ty}: {e}\n{expansion}"));
            for half in 0..2u64 {
                let (mine, other) = (16 * half, 16 * (1 - half));
                for operand in 0..=0xffffu128 {
                    for (index, &old) in values.iter().enumerate() {
                        // A different bijection of the operands for each memory value: every
                        // other-half value meets every memory value, with a changing operand.
                        let neighbour = (operand * 0x9e37 + index as u128 * 0x2b6d) & 0xffff;
                        let word = (old << mine) | (neighbour << other);
                        memory.bytes_mut().fill(GUARD);
                        memory.bytes_mut()[WORD as usize..WORD as usize + 4]
                            .copy_from_slice(&(word as u32).to_le_bytes());
                        let outcome = interp
                            .run(
                                &expansion,
                                &mut memory,
                                Inputs {
                                    addr: BASE + WORD + 2 * half,
                                    operands: &[operand],
                                    new_values: &[],
                                },
                            )
                            .unwrap_or_else(|e| panic!("{op} {ty}: {e}\n{expansion}"));
                        let bytes = memory.bytes();
                        let after = u32::from_le_bytes(
                            bytes[WORD as usize..WORD as usize + 4].try_into().unwrap(),
                        ) as u128;
                        let (got, kept) = ((after >> mine) & 0xffff, (after >> other) & 0xffff);
                        let want = apply(op, ty, old, operand, 0, FloatMode::Ieee);
                        let context = || {
                            format!(
                                "{op} {ty} in half {half}: memory {old:#06x} (other half \
                                 {neighbour:#06x}), operand {operand:#06x}"
                            )
                        };
                        assert!(
                            same_value(ty, got, want),
                            "{}: {got:#06x}, semantics {want:#06x}",
                            context()
                        );
                        assert!(
                            is_nan(ty, want) || got == want,
                            "{}: {got:#06x}, semantics {want:#06x}",
                            context()
                        );
                        assert_eq!(outcome.results.as_slice(), &[old], "{}", context());
                        if is_nan(ty, neighbour) {
                            nan_neighbours += 1;
                            assert!(
                                is_nan(ty, kept),
                                "{}: the other half {kept:#06x}",
                                context()
                            );
                        } else {
                            assert_eq!(kept, neighbour, "{}: the other half", context());
                        }
                        let guards = bytes[..WORD as usize]
                            .iter()
                            .chain(&bytes[WORD as usize + 4..]);
                        assert!(guards.into_iter().all(|&b| b == GUARD), "{}", context());
                        checked += 1;
                    }
                }
            }
        }
    }
    println!("{checked} runs agree, {nan_neighbours} with a NaN in the other half");
    assert_eq!(checked, 2 * 2 * 2 * 65536 * 26);
    assert!(nan_neighbours > 0);
}

/// The opt-in changes exactly the scalar f16/bf16 add and sub cells where the target has the
/// packed atom, each to the recorded packed rewrite; every other verdict is the default's.
#[test]
fn the_opt_in_changes_only_scalar_half_adds() {
    for (name, packs_bf16) in [
        ("ptx:sm_60@6.2", false),
        ("ptx:sm_70", false),
        ("ptx:sm_90", true),
    ] {
        let default: Target = name.parse().unwrap();
        let opt_in: Target = format!("{name}+packed-half-add").parse().unwrap();
        let mut changed = 0;
        for cell in cells() {
            let node = cell.node();
            let (plain, packed) = (default.legalize(&node), opt_in.legalize(&node));
            let expected = plain.is_ok()
                && matches!(cell.op, AtomicOp::Add | AtomicOp::Sub)
                && cell.shape == VectorShape::Scalar
                && (cell.ty == ElemType::F16 || (cell.ty == ElemType::Bf16 && packs_bf16));
            let marked = packed
                .as_ref()
                .is_ok_and(|l| l.rewrites.contains(&Rewrite::HalfAddOnPackedWord));
            assert_eq!(marked, expected, "{opt_in}: {cell}");
            if expected {
                changed += 1;
                let legality = packed.unwrap();
                assert!(!legality.lowering.is_split(), "{opt_in}: {cell}");
                assert_eq!(
                    legality.lowering,
                    atomir::Lowering::whole(atomir::ElementLowering::Native),
                    "{opt_in}: {cell}"
                );
            } else {
                match (plain, packed) {
                    (Ok(plain), Ok(packed)) => assert_eq!(plain, packed, "{opt_in}: {cell}"),
                    // The reason names the target asked; the rule is the same.
                    (Err(plain), Err(packed)) => {
                        assert_eq!(plain.rule, packed.rule, "{opt_in}: {cell}")
                    }
                    (plain, packed) => panic!("{opt_in}: {cell}: {plain:?} against {packed:?}"),
                }
            }
        }
        assert!(changed > 0, "{opt_in} changed nothing");
        println!("{opt_in}: {changed} cells packed");
    }
}

/// The packed form keeps the node's order and scope on the one packed atom, uses `red` only
/// where the scalar form would, and is printed for every space.
#[test]
fn the_packed_form_keeps_order_scope_and_space() {
    use atomir::{verify, AtomicInst, Kernel, LowerOptions, Module, ValueType};
    let target: Target = "ptx:sm_90+packed-half-add".parse().unwrap();
    let cases = [
        (
            MemoryOrder::Relaxed,
            Scope::Block,
            AddressSpace::Shared,
            false,
            "red.relaxed.cta.shared::cta.add.noftz.f16x2",
        ),
        (
            MemoryOrder::Release,
            Scope::Cluster,
            AddressSpace::Global,
            false,
            "red.release.cluster.global.add.noftz.f16x2",
        ),
        (
            MemoryOrder::Acquire,
            Scope::System,
            AddressSpace::Generic,
            false,
            "atom.acquire.sys.add.noftz.f16x2",
        ),
        (
            MemoryOrder::AcqRel,
            Scope::Device,
            AddressSpace::SharedCluster,
            true,
            "atom.acq_rel.gpu.shared::cluster.add.noftz.f16x2",
        ),
        (
            MemoryOrder::SeqCst,
            Scope::Device,
            AddressSpace::Global,
            true,
            "fence.sc.gpu;\n\tatom.acquire.gpu.global.add.noftz.f16x2",
        ),
    ];
    for (order, scope, space, used, expected) in cases {
        let mut kernel = Kernel::new("k");
        let p = kernel.add_param("p", ValueType::Ptr(space));
        let x = kernel.add_param("x", ValueType::scalar(ElemType::F16));
        let mut add = AtomicInst::new(AtomicOp::Add, ElemType::F16, p, x.into());
        add.order = order;
        add.scope = scope;
        add.space = space;
        kernel.push(add, used.then_some("old"));
        let module = Module {
            kernels: vec![kernel],
        };
        let verified = verify::verify(&module).expect("the kernel verifies");
        let mut code = String::new();
        target
            .lower(&verified, &LowerOptions::fragment(), &mut code)
            .expect("the opt-in target lowers it");
        assert!(code.contains(expected), "{order} {scope} {space}: {code}");
        assert_eq!(code.matches("add.noftz").count(), 1, "{code}");
        assert!(!code.contains(".f16 "), "a scalar f16 atom is left: {code}");
        assert_eq!(code.contains("selp.b16 %old"), used, "{code}");
    }
}
