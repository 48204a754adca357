//! Drafting a kernel (parameters and instructions the verifier accepts, results read by later
//! instructions) and building it through the public API.

use super::names::Namer;
use super::spell::literal;
use super::{Config, Rng};
use atomir_ir::{
    AddressSpace, AtomicInst, AtomicOp, CacheHint, ElemType, Fence, Kernel, MemoryOrder, Operand,
    Predicate, Scalar, Scope, TypeClass, Value, ValueType, VectorShape,
};

/// Where an operand element comes from, before the kernel is built.
#[derive(Clone, Debug)]
pub(super) enum Src {
    Param(usize),
    /// The result of draft instruction `n`.
    Result(usize),
    Literal(u128, String),
}

#[derive(Clone, Debug)]
pub(super) enum DraftOperand {
    Scalar(Src),
    List(Vec<Src>),
}

#[derive(Clone, Debug)]
pub(super) struct DraftAccess {
    node: AtomicInst,
    addr: usize,
    predicate: Option<(usize, bool)>,
    /// `None` for a load.
    operand: Option<DraftOperand>,
    new_value: Option<DraftOperand>,
    result: Option<String>,
}

/// One drafted instruction (a test generator's few drafts: the size difference is no concern).
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
pub(super) enum DraftInst {
    Access(DraftAccess),
    Fence(Fence),
}

impl DraftInst {
    fn access(&self) -> Option<&DraftAccess> {
        match self {
            DraftInst::Access(access) => Some(access),
            DraftInst::Fence(_) => None,
        }
    }
}

pub(super) struct DraftParam {
    name: String,
    ty: ValueType,
}

/// Builds one kernel's draft: parameters are created on demand, instructions refer to them and
/// to earlier results by index.
pub(super) struct Draft<'r> {
    rng: &'r mut Rng,
    config: &'r Config,
    namer: Namer,
    params: Vec<DraftParam>,
    insts: Vec<DraftInst>,
}

/// Every element type of a width, for the operands of an untyped `bN` node.
pub(super) fn types_of_width(bits: u32) -> Vec<ElemType> {
    ElemType::ALL
        .iter()
        .copied()
        .filter(|t| t.bits() == bits)
        .collect()
}

/// Whether a value of element type `found` may feed a node of element type `wanted`.
pub(super) fn feeds(wanted: ElemType, found: ElemType) -> bool {
    found == wanted || (wanted.class() == TypeClass::Bits && found.bits() == wanted.bits())
}

impl Draft<'_> {
    fn param(&mut self, ty: ValueType, prefix: &str) -> usize {
        let name = self.namer.name(self.rng, prefix);
        self.params.push(DraftParam { name, ty });
        self.params.len() - 1
    }

    /// An existing parameter of exactly `ty` (half the time), or a new one.
    fn param_of(&mut self, ty: ValueType, prefix: &str) -> usize {
        let existing: Vec<usize> = (0..self.params.len())
            .filter(|&i| self.params[i].ty == ty)
            .collect();
        if !existing.is_empty() && self.rng.percent(50) {
            return *self.rng.pick(&existing);
        }
        self.param(ty, prefix)
    }

    fn pointer_for(&mut self, space: AddressSpace) -> usize {
        let choices: &[AddressSpace] = match space {
            AddressSpace::Generic => &[
                AddressSpace::Generic,
                AddressSpace::Generic,
                AddressSpace::Global,
                AddressSpace::Shared,
                AddressSpace::SharedCluster,
            ],
            AddressSpace::SharedCluster => &[AddressSpace::SharedCluster, AddressSpace::Shared],
            other => match other {
                AddressSpace::Global => &[AddressSpace::Global],
                _ => &[AddressSpace::Shared],
            },
        };
        let pointer = *self.rng.pick(choices);
        self.param_of(ValueType::Ptr(pointer), "p")
    }

    /// Earlier results whose type is `ty` exactly (for vector values) or that feed `wanted`
    /// as a scalar.
    fn results_feeding(&self, wanted: ElemType, shape: VectorShape) -> Vec<usize> {
        (0..self.insts.len())
            .filter(|&i| {
                self.insts[i].access().is_some_and(|inst| {
                    inst.result.is_some() && inst.node.shape == shape && feeds(wanted, inst.node.ty)
                })
            })
            .collect()
    }

    fn scalar_src(&mut self, ty: ElemType) -> Src {
        let roll = self.rng.below(100);
        if roll < 30 {
            let results = self.results_feeding(ty, VectorShape::Scalar);
            if !results.is_empty() {
                return Src::Result(*self.rng.pick(&results));
            }
        }
        if roll < 65 {
            let found = if ty.class() == TypeClass::Bits {
                *self.rng.pick(&types_of_width(ty.bits()))
            } else {
                ty
            };
            return Src::Param(self.param_of(ValueType::scalar(found), "x"));
        }
        let (bits, spelling) = literal(self.rng, ty);
        Src::Literal(bits, spelling)
    }

    fn operand(&mut self, ty: ElemType, shape: VectorShape) -> DraftOperand {
        if !shape.is_vector() {
            return DraftOperand::Scalar(self.scalar_src(ty));
        }
        if self.rng.percent(30) {
            let results = self.results_feeding(ty, shape);
            if !results.is_empty() && self.rng.percent(50) {
                return DraftOperand::Scalar(Src::Result(*self.rng.pick(&results)));
            }
            let found = if ty.class() == TypeClass::Bits {
                *self.rng.pick(&types_of_width(ty.bits()))
            } else {
                ty
            };
            return DraftOperand::Scalar(Src::Param(
                self.param_of(ValueType::Data(found, shape), "v"),
            ));
        }
        DraftOperand::List((0..shape.len()).map(|_| self.scalar_src(ty)).collect())
    }

    fn node(&mut self) -> AtomicInst {
        let op = *self.rng.pick(AtomicOp::ALL);
        let types: Vec<ElemType> = ElemType::ALL
            .iter()
            .copied()
            .filter(|t| t.supports(op))
            .collect();
        let ty = *self.rng.pick(&types);
        let shape = if self.rng.percent(55) {
            VectorShape::Scalar
        } else {
            *self.rng.pick(&VectorShape::ALL[1..])
        };
        let spaces: &[AddressSpace] = if self.config.spaces.is_empty() {
            AddressSpace::ALL
        } else {
            &self.config.spaces
        };
        let space = *self.rng.pick(spaces);
        // A placeholder address; the real one is set when the kernel is built.
        let placeholder = Value::from_u32(0);
        let mut node = if op == AtomicOp::Load {
            AtomicInst::load(ty, placeholder)
        } else {
            AtomicInst::new(op, ty, placeholder, placeholder.into())
        };
        node.shape = shape;
        let orders: Vec<MemoryOrder> = MemoryOrder::ALL
            .iter()
            .copied()
            .filter(|order| op.admits_order(*order))
            .collect();
        node.order = *self.rng.pick(&orders);
        node.scope = *self.rng.pick(Scope::ALL);
        node.space = space;
        if matches!(space, AddressSpace::Global | AddressSpace::Generic) && self.rng.percent(25) {
            node.hint = Some(*self.rng.pick(CacheHint::ALL));
        }
        node
    }

    fn inst(&mut self) {
        // A repeated atomic: the same node on the same address with the same operands.
        if !self.insts.is_empty() && self.rng.percent(12) {
            let mut copy = self.insts[self.rng.below(self.insts.len())].clone();
            if let DraftInst::Access(copy) = &mut copy {
                copy.result = copy
                    .result
                    .is_some()
                    .then(|| self.namer.name(self.rng, "r"));
            }
            self.insts.push(copy);
            return;
        }
        if self.rng.percent(8) {
            let orders: Vec<MemoryOrder> = MemoryOrder::ALL
                .iter()
                .copied()
                .filter(|order| order.is_fence_order())
                .collect();
            let fence = Fence {
                order: *self.rng.pick(&orders),
                scope: *self.rng.pick(Scope::ALL),
            };
            self.insts.push(DraftInst::Fence(fence));
            return;
        }
        let node = self.node();
        let predicate = self.rng.percent(self.config.predicated_percent).then(|| {
            let p = self.param_of(ValueType::Pred, "q");
            (p, self.rng.percent(50))
        });
        let addr = self.pointer_for(node.space);
        let operand = (node.op.operand_count() > 0).then(|| self.operand(node.ty, node.shape));
        let new_value = (node.op == AtomicOp::Cas).then(|| self.operand(node.ty, node.shape));
        let used = if node.op.requires_result() {
            true
        } else {
            !node.op.has_no_result() && self.rng.percent(60)
        };
        let result = used.then(|| self.namer.name(self.rng, "r"));
        self.insts.push(DraftInst::Access(DraftAccess {
            node,
            addr,
            predicate,
            operand,
            new_value,
            result,
        }));
    }

    fn unused_params(&mut self) {
        for _ in 0..self.rng.below(4) {
            let ty = random_value_type(self.rng);
            let param = self.param(ty, "u");
            // Somewhere in the list, not always at the end.
            let at = self.rng.below(self.params.len());
            let moved = self.params.remove(param);
            self.params.insert(at, moved);
            for inst in &mut self.insts {
                if let DraftInst::Access(access) = inst {
                    remap_params(access, param, at);
                }
            }
        }
    }
}

/// Moves parameter `from` to position `to` in every reference of `inst`.
pub(super) fn remap_params(inst: &mut DraftAccess, from: usize, to: usize) {
    let remap = |index: &mut usize| {
        if *index == from {
            *index = to;
        } else if from < to && *index > from && *index <= to {
            *index -= 1;
        } else if to < from && *index >= to && *index < from {
            *index += 1;
        }
    };
    let remap_src = |src: &mut Src| {
        if let Src::Param(index) = src {
            remap(index);
        }
    };
    let remap_operand = |operand: &mut DraftOperand| match operand {
        DraftOperand::Scalar(src) => remap_src(src),
        DraftOperand::List(list) => list.iter_mut().for_each(remap_src),
    };
    remap(&mut inst.addr);
    if let Some((pred, _)) = &mut inst.predicate {
        remap(pred);
    }
    if let Some(operand) = &mut inst.operand {
        remap_operand(operand);
    }
    if let Some(new_value) = &mut inst.new_value {
        remap_operand(new_value);
    }
}

/// Any parameter type: every pointer space, `pred`, every element type, every vector type.
pub fn random_value_type(rng: &mut Rng) -> ValueType {
    match rng.below(8) {
        0 => ValueType::Ptr(*rng.pick(AddressSpace::ALL)),
        1 => ValueType::Pred,
        2 | 3 => ValueType::Data(*rng.pick(ElemType::ALL), *rng.pick(&VectorShape::ALL[1..])),
        _ => ValueType::scalar(*rng.pick(ElemType::ALL)),
    }
}

pub(super) fn draft_kernel(rng: &mut Rng, config: &Config) -> (Vec<DraftParam>, Vec<DraftInst>) {
    let mut draft = Draft {
        rng,
        config,
        namer: Namer::new(config.wild_names),
        params: Vec::new(),
        insts: Vec::new(),
    };
    let count = 1 + draft.rng.below(config.max_insts.max(1));
    for _ in 0..count {
        draft.inst();
    }
    if config.unused_params {
        draft.unused_params();
    }
    (draft.params, draft.insts)
}

/// Builds the kernel of a draft through the public API; literals are created in the order the
/// parser creates them (operand before new value, elements left to right).
pub(super) fn build(
    name: &str,
    params: &[DraftParam],
    insts: &[DraftInst],
) -> (Kernel, Vec<String>) {
    let mut kernel = Kernel::new(name);
    let values: Vec<Value> = params
        .iter()
        .map(|p| kernel.add_param(&p.name, p.ty))
        .collect();
    let mut results: Vec<Option<Value>> = Vec::with_capacity(insts.len());
    let mut spellings = Vec::new();
    for inst in insts {
        let inst = match inst {
            DraftInst::Access(access) => access,
            DraftInst::Fence(fence) => {
                kernel.push_fence(*fence);
                results.push(None);
                continue;
            }
        };
        let mut scalar = |kernel: &mut Kernel, src: &Src| -> Scalar {
            match src {
                Src::Param(index) => Scalar::Value(values[*index]),
                Src::Result(index) => Scalar::Value(results[*index].expect("a used result")),
                Src::Literal(bits, spelling) => {
                    spellings.push(spelling.clone());
                    Scalar::Const(kernel.constant(*bits))
                }
            }
        };
        let mut operand = |kernel: &mut Kernel, operand: &DraftOperand| -> Operand {
            match operand {
                DraftOperand::Scalar(src) => Operand::Scalar(scalar(kernel, src)),
                DraftOperand::List(list) => {
                    let elements: Vec<Scalar> = list.iter().map(|s| scalar(kernel, s)).collect();
                    kernel.vector(&elements)
                }
            }
        };
        let mut node = inst.node;
        node.addr = values[inst.addr];
        node.predicate = inst.predicate.map(|(p, negated)| Predicate {
            value: values[p],
            negated,
        });
        node.operand = inst.operand.as_ref().map(|o| operand(&mut kernel, o));
        node.new_value = inst.new_value.as_ref().map(|o| operand(&mut kernel, o));
        let id = kernel.push(node, inst.result.as_deref());
        results.push(kernel.insts[id].result());
    }
    (kernel, spellings)
}
