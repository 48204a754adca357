//! What the PTX lowering tests share: one-atomic kernels and lowering them alone.

// Each test binary uses some of these.
#![allow(dead_code)]

use atomir_ir::{
    AddressSpace, AtomicInst, AtomicOp, Backend, ElemType, Kernel, LowerOptions, MemoryOrder,
    Module, Scope, ValueType, VectorShape,
};
use atomir_ptx::PtxTarget;

pub fn one(
    op: AtomicOp,
    ty: ElemType,
    order: MemoryOrder,
    scope: Scope,
    space: AddressSpace,
    used: bool,
) -> Kernel {
    let mut kernel = Kernel::new("k");
    let addr = kernel.add_param("a", ValueType::Ptr(space));
    let b = kernel.add_param("b", ValueType::scalar(ty));
    let mut inst = AtomicInst::new(op, ty, addr, b.into());
    inst.order = order;
    inst.scope = scope;
    inst.space = space;
    if op == AtomicOp::Cas {
        inst.new_value = Some(kernel.add_param("c", ValueType::scalar(ty)).into());
    }
    kernel.push(inst, used.then_some("r"));
    kernel
}

/// One atomic of `shape` on a global pointer, its result used.
pub fn on_global(op: AtomicOp, ty: ElemType, order: MemoryOrder, shape: VectorShape) -> Kernel {
    let mut kernel = Kernel::new("k");
    let addr = kernel.add_param("a", ValueType::Ptr(AddressSpace::Global));
    let b = kernel.add_param("b", ValueType::Data(ty, shape));
    let mut inst = AtomicInst::new(op, ty, addr, b.into());
    inst.order = order;
    inst.shape = shape;
    kernel.push(inst, Some("r"));
    kernel
}

pub fn lower(target: &str, kernel: Kernel) -> String {
    lower_with(target, kernel, &LowerOptions::default())
}

/// `kernel` alone in a module, lowered for `target` with `options`.
pub fn lower_with(target: &str, kernel: Kernel, options: &LowerOptions) -> String {
    let backend = PtxTarget::parse(target).unwrap();
    let mut out = String::new();
    backend
        .lower(
            &atomir_ir::verify::verify(&Module {
                kernels: vec![kernel],
            })
            .unwrap(),
            options,
            &mut out,
        )
        .unwrap();
    out
}

pub fn first(kernel: &Kernel) -> atomir_ir::Inst {
    kernel.insts.keys().next().unwrap()
}
