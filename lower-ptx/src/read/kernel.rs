//! One read atomic as a one-instruction atomir kernel: the registers it reads become
//! parameters, its destination the result, its literals constants.

use atomir_ir::{
    AtomicInst, ElemType, Kernel, Node, Operand, Predicate, Scalar, Value, ValueType, VectorShape,
};

use super::{PtxScalar, ReadAtomic};

/// Names of the kernel's values: the PTX names without `%`, made unique.
struct Names {
    used: Vec<String>,
}

impl Names {
    fn fresh(&mut self, wanted: &str) -> String {
        let base = wanted.trim_start_matches('%');
        let base = if base.is_empty() || base == "_" {
            "old"
        } else {
            base
        };
        let mut name = base.to_string();
        let mut number = 1;
        while self.used.contains(&name) {
            number += 1;
            name = format!("{base}_{number}");
        }
        self.used.push(name.clone());
        name
    }
}

/// The kernel's parameters so far, by PTX name and type.
struct Builder {
    kernel: Kernel,
    names: Names,
    params: Vec<(String, ValueType, Value)>,
}

impl Builder {
    fn param(&mut self, register: &str, ty: ValueType) -> Value {
        if let Some((_, _, value)) = self
            .params
            .iter()
            .find(|(name, param_ty, _)| name == register && *param_ty == ty)
        {
            return *value;
        }
        let value = self.kernel.add_param(&self.names.fresh(register), ty);
        self.params.push((register.to_string(), ty, value));
        value
    }

    fn operand(
        &mut self,
        lanes: &[PtxScalar],
        ty: ElemType,
        shape: VectorShape,
    ) -> Option<Operand> {
        let scalars: Vec<Scalar> = lanes
            .iter()
            .map(|lane| match lane {
                PtxScalar::Register(register) => {
                    Scalar::Value(self.param(register, ValueType::scalar(ty)))
                }
                PtxScalar::Literal { bits, .. } => Scalar::Const(self.kernel.constant(*bits)),
            })
            .collect();
        match scalars.as_slice() {
            [] => None,
            [scalar] if shape == VectorShape::Scalar => Some(Operand::Scalar(*scalar)),
            _ => Some(self.kernel.vector(&scalars)),
        }
    }
}

/// The kernel of one read atomic (see [`ReadAtomic::module`]).
pub(crate) fn kernel_of(read: &ReadAtomic) -> Kernel {
    kernel_and_registers(read).0
}

/// The kernel of one read atomic and, per parameter in order, the PTX name it stands for.
pub(crate) fn kernel_and_registers(read: &ReadAtomic) -> (Kernel, Vec<String>) {
    let name = if read.function.is_empty() {
        "ptx"
    } else {
        read.function.as_str()
    };
    let mut builder = Builder {
        kernel: Kernel::new(name),
        names: Names { used: Vec::new() },
        params: Vec::new(),
    };
    let node = match read.node {
        Node::Fence(fence) => {
            builder.kernel.push_fence(fence);
            return (builder.kernel, Vec::new());
        }
        Node::Atomic(node) => node,
    };
    let address = read
        .values
        .address
        .as_ref()
        .map_or("addr", |address| address.base.as_str());
    let addr = builder.param(address, ValueType::Ptr(node.space));
    let predicate = read
        .values
        .guard
        .as_ref()
        .map(|(register, negated)| Predicate {
            value: builder.param(register, ValueType::Pred),
            negated: *negated,
        });
    let operand = builder.operand(&read.values.operand, node.ty, node.shape);
    let new_value = builder.operand(&read.values.new_value, node.ty, node.shape);
    let inst = AtomicInst {
        op: node.op,
        ty: node.ty,
        shape: node.shape,
        order: node.order,
        scope: node.scope,
        space: node.space,
        hint: node.hint,
        laxity: node.laxity,
        predicate,
        addr,
        operand,
        new_value,
        result: None,
    };
    let result = node.result_used.then(|| {
        let first = read.values.result.first().map_or("old", String::as_str);
        let wanted = if node.shape.is_vector() {
            format!("{}_v", first.trim_start_matches('%'))
        } else {
            first.to_string()
        };
        builder.names.fresh(&wanted)
    });
    builder.kernel.push(inst, result.as_deref());
    let registers = builder
        .params
        .into_iter()
        .map(|(name, _, _)| name)
        .collect();
    (builder.kernel, registers)
}
