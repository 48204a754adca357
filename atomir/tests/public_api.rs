//! Kernels built in code, valid and malformed, driven through the public API: the library
//! never panics, and every malformed kernel is an error (from the verifier, or from the
//! legality query that names an instruction the kernel does not hold).

use std::panic::{catch_unwind, AssertUnwindSafe};

use atomir::{
    verify, AddressSpace, AtomicInst, AtomicNode, AtomicOp, Backend, ElemType, EntityRef, Fence,
    Inst, Kernel, LowerOptions, MemoryOrder, Module, Operand, Predicate, Refused, Scalar, Scope,
    Target, Value, ValueType, VectorShape,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Targets of every backend, old and new.
const TARGETS: [&str; 8] = [
    "ptx:sm_60",
    "ptx:sm_90",
    "visa:TGLLP",
    "visa:PVC",
    "visa:PVC+svm",
    "llvm:nvptx64",
    "llvm:x86_64",
    "llvm:amdgcn",
];

fn targets() -> Vec<Target> {
    TARGETS.iter().map(|name| name.parse().unwrap()).collect()
}

fn any_of<T: Copy + std::fmt::Debug + 'static>(all: &'static [T]) -> impl Strategy<Value = T> {
    prop::sample::select(all)
}

/// Everything one random instruction is made of, before it is put into a kernel.
#[derive(Clone, Debug)]
struct Draw {
    fence: bool,
    op: AtomicOp,
    ty: ElemType,
    shape: VectorShape,
    order: MemoryOrder,
    scope: Scope,
    space: AddressSpace,
    /// Indices into the kernel's values; past the end means an id the kernel does not have.
    addr: u32,
    operands: Vec<OperandDraw>,
    result: bool,
    predicate: Option<u32>,
}

#[derive(Clone, Debug)]
enum OperandDraw {
    Value(u32),
    Const(u32),
    /// A brace list of this many elements, each a value index or a literal.
    List(Vec<Option<u32>>),
    /// A brace list of another kernel's pool.
    ForeignList(u8),
}

fn value_type() -> impl Strategy<Value = ValueType> {
    prop_oneof![
        any_of(AddressSpace::ALL).prop_map(ValueType::Ptr),
        Just(ValueType::Pred),
        (any_of(ElemType::ALL), any_of(VectorShape::ALL))
            .prop_map(|(ty, shape)| ValueType::Data(ty, shape)),
    ]
}

fn operand_draw() -> impl Strategy<Value = OperandDraw> {
    prop_oneof![
        (0u32..12).prop_map(OperandDraw::Value),
        (0u32..6).prop_map(OperandDraw::Const),
        prop::collection::vec(prop::option::of(0u32..12), 0..9).prop_map(OperandDraw::List),
        (1u8..9).prop_map(OperandDraw::ForeignList),
    ]
}

fn draw() -> impl Strategy<Value = Draw> {
    (
        (
            prop::bool::weighted(0.1),
            any_of(AtomicOp::ALL),
            any_of(ElemType::ALL),
            any_of(VectorShape::ALL),
            any_of(MemoryOrder::ALL),
            any_of(Scope::ALL),
            any_of(AddressSpace::ALL),
        ),
        (
            0u32..12,
            prop::collection::vec(operand_draw(), 0..3),
            any::<bool>(),
            prop::option::of(0u32..12),
        ),
    )
        .prop_map(
            |((fence, op, ty, shape, order, scope, space), (addr, operands, result, predicate))| {
                Draw {
                    fence,
                    op,
                    ty,
                    shape,
                    order,
                    scope,
                    space,
                    addr,
                    operands,
                    result,
                    predicate,
                }
            },
        )
}

/// A kernel built in code from random draws: anything the builder API lets a client write.
fn arbitrary_kernel(params: &[ValueType], constants: &[u128], draws: &[Draw]) -> Kernel {
    let mut kernel = Kernel::new("random");
    for (index, &ty) in params.iter().enumerate() {
        kernel.add_param(&format!("p{index}"), ty);
    }
    let constants: Vec<_> = constants
        .iter()
        .map(|&bits| kernel.constant(bits))
        .collect();
    let mut foreign = Kernel::new("foreign");
    let foreign_value = foreign.add_param("x", ValueType::scalar(ElemType::U32));
    for (index, draw) in draws.iter().enumerate() {
        if draw.fence {
            kernel.push_fence(Fence {
                order: draw.order,
                scope: draw.scope,
            });
            continue;
        }
        let value = |index: u32| Value::new(index as usize);
        let constant = |index: u32| {
            constants
                .get(index as usize)
                .copied()
                .unwrap_or_else(|| atomir::Constant::new(index as usize + 100))
        };
        let mut operands = draw.operands.iter().map(|operand| match operand {
            OperandDraw::Value(index) => Operand::from(value(*index)),
            OperandDraw::Const(index) => Operand::from(constant(*index)),
            OperandDraw::List(elements) => {
                let elements: Vec<Scalar> = elements
                    .iter()
                    .map(|element| match element {
                        Some(index) => Scalar::Value(value(*index)),
                        None => Scalar::Const(constant(0)),
                    })
                    .collect();
                kernel.vector(&elements)
            }
            OperandDraw::ForeignList(len) => {
                // A long pool, so the list lies past the end of this kernel's.
                for _ in 0..64 {
                    foreign.vector(&[Scalar::Value(foreign_value)]);
                }
                foreign.vector(&vec![Scalar::Value(foreign_value); *len as usize])
            }
        });
        let operand = operands.next();
        let new_value = operands.next();
        let mut inst = AtomicInst::load(draw.ty, value(draw.addr));
        inst.op = draw.op;
        inst.shape = draw.shape;
        inst.order = draw.order;
        inst.scope = draw.scope;
        inst.space = draw.space;
        inst.operand = operand;
        inst.new_value = new_value;
        inst.predicate = draw.predicate.map(|index| Predicate {
            value: value(index),
            negated: index % 2 == 0,
        });
        let name = format!("r{index}");
        kernel.push(inst, draw.result.then_some(name.as_str()));
    }
    kernel
}

/// Runs `f`, turning a panic into a test failure that names `what`.
fn no_panic<R>(what: &str, f: impl FnOnce() -> R) -> Result<R, TestCaseError> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|_| TestCaseError::fail(format!("{what} panicked")))
}

/// Drives every public entry point over `module` for every target; returns whether the
/// verifier accepted it.
fn drive(module: &Module, targets: &[Target]) -> Result<bool, TestCaseError> {
    let verified = no_panic("verify", || verify::verify(module))?;
    for kernel in &module.kernels {
        for target in targets {
            let instructions = kernel.insts.len();
            for index in 0..instructions + 2 {
                let inst = Inst::new(index);
                let verdict = no_panic(&format!("{target}: legalize_inst"), || {
                    target.legalize_inst(kernel, inst)
                })?;
                if index >= instructions {
                    prop_assert!(
                        verdict.is_err(),
                        "{target}: an instruction not in the kernel"
                    );
                }
            }
            let _ = no_panic(&format!("{target}: legalize_signature"), || {
                target.legalize_signature(&kernel.params)
            })?;
        }
    }
    if let Ok(verified) = &verified {
        for target in targets {
            for complete_module in [false, true] {
                let options = LowerOptions::fragment().with_complete_module(complete_module);
                let mut out = String::new();
                let lowered = no_panic(&format!("{target}: lower"), || {
                    target.lower(verified, &options, &mut out)
                })?;
                if let Err(error) = lowered {
                    prop_assert!(
                        error.refusal.rule.id() != "lower.unprintable",
                        "{target}: the printer could not print what the table accepted: {error}"
                    );
                    prop_assert!(out.is_empty(), "{target}: a refusal left code behind");
                }
            }
        }
    }
    Ok(verified.is_ok())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Anything the builder lets a client write: no entry point panics.
    #[test]
    fn arbitrary_built_kernels_never_panic(
        params in prop::collection::vec(value_type(), 0..4),
        constants in prop::collection::vec(any::<u128>(), 0..3),
        draws in prop::collection::vec(draw(), 0..5),
    ) {
        let kernel = arbitrary_kernel(&params, &constants, &draws);
        let module = Module { kernels: vec![kernel] };
        drive(&module, &targets())?;
    }

    /// A node asked about on its own: no panic, and a node the IR does not define (an op its
    /// type has no meaning for, an order its op has no part for) is refused by every target.
    #[test]
    fn arbitrary_nodes_never_panic_and_undefined_ones_are_refused(
        op in any_of(AtomicOp::ALL),
        ty in any_of(ElemType::ALL),
        shape in any_of(VectorShape::ALL),
        order in any_of(MemoryOrder::ALL),
        scope in any_of(Scope::ALL),
        space in any_of(AddressSpace::ALL),
        pointer_space in any_of(AddressSpace::ALL),
        result_used in any::<bool>(),
        literal in prop::option::of(any::<u128>()),
    ) {
        let mut node = AtomicNode::new(op, ty);
        node.shape = shape;
        node.order = order;
        node.scope = scope;
        node.space = space;
        node.pointer_space = pointer_space;
        node.result_used = result_used;
        node.literal = literal;
        let undefined = !ty.supports(op) || !op.admits_order(order)
            || (op.requires_result() && !result_used) || (op.has_no_result() && result_used);
        for target in targets() {
            let verdict = no_panic(&format!("{target}: legalize"), || target.legalize(&node))?;
            if undefined {
                prop_assert!(verdict.is_err(), "{target} accepts {node:?}");
            }
            // A refusal's smallest target is a `Target` of the same backend that accepts the
            // node, and the one the refusal's text names.
            if let Err(refusal) = &verdict {
                if let Some(smallest) = refusal.smallest_target() {
                    prop_assert_eq!(smallest.backend_name(), target.backend_name());
                    prop_assert!(smallest.legalize(&node).is_ok(), "{smallest} refuses it too");
                    let text = refusal.to_string();
                    prop_assert!(text.ends_with(&format!("accepts it: {smallest}")), "{text}");
                }
            }
        }
    }
}

/// One well-formed instruction: a defined node, fed by parameters and literals of its type.
#[derive(Clone, Debug)]
struct Valid {
    op: AtomicOp,
    ty: ElemType,
    shape: VectorShape,
    order: MemoryOrder,
    scope: Scope,
    generic: bool,
    literal: bool,
    list: bool,
    result: bool,
    bits: u128,
}

fn valid() -> impl Strategy<Value = Valid> {
    let defined = (
        any_of(AtomicOp::ALL),
        any_of(ElemType::ALL),
        any_of(MemoryOrder::ALL),
    )
        .prop_filter("a node the IR defines", |(op, ty, order)| {
            ty.supports(*op) && op.admits_order(*order)
        });
    (
        defined,
        any_of(VectorShape::ALL),
        any_of(Scope::ALL),
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
        any::<u128>(),
    )
        .prop_map(
            |((op, ty, order), shape, scope, (generic, literal, list, result), bits)| Valid {
                op,
                ty,
                shape,
                order,
                scope,
                generic,
                literal,
                list,
                result,
                bits,
            },
        )
}

/// A kernel whose every instruction is well formed, built as a client would.
fn valid_kernel(space: AddressSpace, draws: &[Valid]) -> Kernel {
    let mut kernel = Kernel::new("valid");
    let p = kernel.add_param("p", ValueType::Ptr(space));
    for (index, draw) in draws.iter().enumerate() {
        let operand = |kernel: &mut Kernel, which: u32| -> Operand {
            let bits = draw.bits.rotate_left(which * 17) & mask(draw.ty.bits());
            let scalar = if draw.literal {
                Scalar::Const(kernel.constant(bits))
            } else {
                let name = format!("x{index}_{which}");
                Scalar::Value(kernel.add_param(&name, ValueType::scalar(draw.ty)))
            };
            match (draw.shape.is_vector(), draw.list) {
                (false, _) => Operand::Scalar(scalar),
                (true, true) => kernel.vector(&vec![scalar; draw.shape.len()]),
                (true, false) => {
                    let name = format!("v{index}_{which}");
                    let ty = ValueType::Data(draw.ty, draw.shape);
                    Operand::from(kernel.add_param(&name, ty))
                }
            }
        };
        let mut inst = AtomicInst::load(draw.ty, p);
        inst.op = draw.op;
        inst.shape = draw.shape;
        inst.order = draw.order;
        inst.scope = draw.scope;
        inst.space = if draw.generic {
            AddressSpace::Generic
        } else {
            space
        };
        let operands = draw.op.operand_count() as u32;
        inst.operand = (operands > 0).then(|| operand(&mut kernel, 0));
        inst.new_value = (operands > 1).then(|| operand(&mut kernel, 1));
        let result = draw.op.requires_result() || (draw.result && !draw.op.has_no_result());
        let name = format!("r{index}");
        kernel.push(inst, result.then_some(name.as_str()));
    }
    kernel
}

fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Well-formed kernels built in code verify, and every target lowers them or refuses them
    /// with a rule, never panicking and never failing to print what its table accepted.
    #[test]
    fn well_formed_built_kernels_verify_and_lower_or_refuse(
        space in any_of(AddressSpace::ALL),
        draws in prop::collection::vec(valid(), 1..5),
    ) {
        let module = Module { kernels: vec![valid_kernel(space, &draws)] };
        if let Err(errors) = verify::verify(&module) {
            return Err(TestCaseError::fail(format!("{}", errors[0])));
        }
        prop_assert!(drive(&module, &targets())?);
    }
}

/// A well-formed kernel: one instruction of every kind the defects below break.
fn well_formed() -> (Kernel, Value, Value) {
    let mut kernel = Kernel::new("client");
    let p = kernel.add_param("p", ValueType::Ptr(AddressSpace::Global));
    let x = kernel.add_param("x", ValueType::scalar(ElemType::F64));
    let n = kernel.add_param("n", ValueType::scalar(ElemType::U32));
    let mut add = AtomicInst::new(AtomicOp::Add, ElemType::F64, p, x.into());
    add.space = AddressSpace::Global;
    kernel.push(add, Some("old"));
    let mut inc = AtomicInst::new(AtomicOp::Inc, ElemType::U32, p, n.into());
    inc.space = AddressSpace::Global;
    kernel.push(inc, None);
    let four = kernel.vector(&[Scalar::Value(n); 4]);
    let mut vector = AtomicInst::new(AtomicOp::Add, ElemType::U32, p, four);
    vector.shape = VectorShape::V4;
    vector.space = AddressSpace::Global;
    kernel.push(vector, None);
    (kernel, p, n)
}

/// Each defect a client can build in code, applied to the well-formed kernel.
#[derive(Clone, Copy, Debug)]
enum Defect {
    OperandOutOfRange,
    AddressOutOfRange,
    ResultOutOfRange,
    PredicateOutOfRange,
    ForeignList,
    ForeignConstant,
    ShortList,
    F64AddFedU32,
    AddOnB128,
    U32AsAddress,
    IncOnS32,
    RelaxedFence,
    ParamOutOfRange,
}

const DEFECTS: [Defect; 13] = [
    Defect::OperandOutOfRange,
    Defect::AddressOutOfRange,
    Defect::ResultOutOfRange,
    Defect::PredicateOutOfRange,
    Defect::ForeignList,
    Defect::ForeignConstant,
    Defect::ShortList,
    Defect::F64AddFedU32,
    Defect::AddOnB128,
    Defect::U32AsAddress,
    Defect::IncOnS32,
    Defect::RelaxedFence,
    Defect::ParamOutOfRange,
];

fn broken(defect: Defect, far: usize) -> Kernel {
    let (mut kernel, p, n) = well_formed();
    let first = Inst::new(0);
    let missing = Value::new(kernel.values.len() + far);
    match defect {
        Defect::OperandOutOfRange => {
            kernel.atomic_mut(first).unwrap().operand = Some(missing.into())
        }
        Defect::AddressOutOfRange => kernel.atomic_mut(first).unwrap().addr = missing,
        Defect::ResultOutOfRange => kernel.atomic_mut(first).unwrap().result = Some(missing),
        Defect::PredicateOutOfRange => {
            kernel.atomic_mut(first).unwrap().predicate = Some(Predicate {
                value: missing,
                negated: false,
            })
        }
        Defect::ForeignList => {
            let mut other = Kernel::new("other");
            let y = other.add_param("y", ValueType::scalar(ElemType::U32));
            for _ in 0..far + 8 {
                other.vector(&[Scalar::Value(y)]);
            }
            let list = other.vector(&[Scalar::Value(y); 4]);
            kernel.atomic_mut(Inst::new(2)).unwrap().operand = Some(list);
        }
        Defect::ForeignConstant => {
            let mut other = Kernel::new("other");
            for bits in 0..far as u128 + 4 {
                other.constant(bits);
            }
            let constant = other.constant(1);
            kernel.atomic_mut(Inst::new(1)).unwrap().operand = Some(constant.into());
        }
        Defect::ShortList => {
            let two = kernel.vector(&[Scalar::Value(n); 2]);
            kernel.atomic_mut(Inst::new(2)).unwrap().operand = Some(two);
        }
        Defect::F64AddFedU32 => kernel.atomic_mut(first).unwrap().operand = Some(n.into()),
        Defect::AddOnB128 => {
            let wide = kernel.add_param("w", ValueType::scalar(ElemType::B128));
            let mut add = AtomicInst::new(AtomicOp::Add, ElemType::B128, p, wide.into());
            add.space = AddressSpace::Global;
            kernel.push(add, None);
        }
        Defect::U32AsAddress => kernel.atomic_mut(Inst::new(1)).unwrap().addr = n,
        Defect::IncOnS32 => {
            let s = kernel.add_param("s", ValueType::scalar(ElemType::S32));
            let mut inc = AtomicInst::new(AtomicOp::Inc, ElemType::S32, p, s.into());
            inc.space = AddressSpace::Global;
            kernel.push(inc, None);
        }
        Defect::RelaxedFence => {
            kernel.push_fence(Fence {
                order: MemoryOrder::Relaxed,
                scope: Scope::Device,
            });
        }
        Defect::ParamOutOfRange => kernel.params[1].value = missing,
    }
    kernel
}

#[test]
fn the_well_formed_kernel_verifies_and_lowers() {
    let (kernel, _, _) = well_formed();
    let module = Module {
        kernels: vec![kernel],
    };
    let verified = verify::verify(&module).expect("well formed");
    let mut lowered = 0;
    for target in targets() {
        let mut out = String::new();
        if target
            .lower(&verified, &LowerOptions::default(), &mut out)
            .is_ok()
        {
            assert!(!out.is_empty(), "{target}");
            lowered += 1;
        }
    }
    assert!(lowered > 0, "no target lowers the well-formed kernel");
}

proptest! {
    /// Every defect the builder lets a client make is an error of the verifier, whatever else
    /// the kernel holds, and no entry point panics on it.
    #[test]
    fn every_malformed_kernel_is_an_error(
        defect in any_of(&DEFECTS),
        far in 0usize..1000,
        space in any_of(AddressSpace::ALL),
        draws in prop::collection::vec(valid(), 0..3),
    ) {
        // Beside a well-formed kernel, so the defect is found wherever it lies.
        let module = Module { kernels: vec![valid_kernel(space, &draws), broken(defect, far)] };
        let accepted = drive(&module, &targets())?;
        prop_assert!(!accepted, "{defect:?} verified");
    }
}
