//! The one place that spells LLVM's read-modify-write atomics: `atomicrmw`, `cmpxchg`, the
//! atomic `load` a CAS loop starts from, and the fences that carry an order NVPTX's llc would
//! drop. Stand-alone loads, stores and fences are spelled by [`super::ldst`].

use atomir_ir::{spell, AtomicInst, AtomicOp, ElemType, MemoryOrder};

use atomir_ir::lower::{Fence, FenceBracket};

use super::{Emitter, Ref, Scal, Ty};
use crate::legal::LlvmPlan;
use crate::target::Triple;

/// Order and place of one memory instruction, as printed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mem {
    /// The fences around the instruction and the order left on it.
    pub bracket: FenceBracket,
    pub syncscope: &'static str,
    pub space: u32,
}

impl Mem {
    pub(crate) fn of(
        em: &Emitter<'_>,
        bracket: FenceBracket,
        plan: &LlvmPlan,
        space: atomir_ir::AddressSpace,
    ) -> Mem {
        let mut bracket = bracket;
        if let (MemoryOrder::Relaxed, Some(order)) = (bracket.order, plan.relaxed_as) {
            bracket.order = order;
        }
        Mem {
            bracket,
            syncscope: em.target.syncscope_name(plan.scope),
            space: em.target.address_space(space).unwrap_or(0),
        }
    }

    /// The order spelled on the instruction.
    fn order(&self) -> MemoryOrder {
        self.bracket.order
    }
}

pub(crate) const fn ordering(order: MemoryOrder) -> &'static str {
    crate::spelling::ordering_name(order)
}

/// A cmpxchg failure ordering: the load part of the success ordering, never release/acq_rel.
pub(crate) const fn failure_ordering(order: MemoryOrder) -> &'static str {
    ordering(failure_order(order))
}

/// The failure order atomir prints with a cmpxchg of success order `order`.
pub const fn failure_order(order: MemoryOrder) -> MemoryOrder {
    match order {
        MemoryOrder::Relaxed | MemoryOrder::Release => MemoryOrder::Relaxed,
        MemoryOrder::Acquire | MemoryOrder::AcqRel => MemoryOrder::Acquire,
        MemoryOrder::SeqCst => MemoryOrder::SeqCst,
    }
}

pub(crate) fn write_syncscope(out: &mut String, name: &str) {
    if !name.is_empty() {
        spell!(out, " syncscope(\"", name, "\")");
    }
}

/// Spells a fence of the bracket: `fence [syncscope] <order>`.
pub(crate) fn fence(out: &mut String, mem: &Mem, fence: Option<Fence>) {
    let Some(fence) = fence else { return };
    out.push_str("  fence");
    write_syncscope(out, mem.syncscope);
    spell!(out, ' ', ordering(fence.order), '\n');
}

/// A pointer of `(len, scal)` for a memory instruction: the raw pointer itself, or (typed
/// pointers) a bitcast of it.
pub(crate) fn typed_addr(
    em: &mut Emitter<'_>,
    out: &mut String,
    addr: Ref,
    space: u32,
    len: u32,
    scal: Scal,
) -> (Ref, Ty) {
    let ty = em.elem_ptr(space, len, scal);
    if !em.target.typed_pointers() {
        return (addr, ty);
    }
    let raw = em.raw_ptr(space);
    if raw == ty {
        return (addr, ty);
    }
    let dst = em.fresh();
    spell!(
        out,
        "  ",
        em.show(dst),
        " = bitcast ",
        raw,
        ' ',
        em.show(addr),
        " to ",
        ty,
        '\n'
    );
    (dst, ty)
}

/// `atomicrmw` of `value: ty` between the fences of its bracket.
#[allow(clippy::too_many_arguments)]
fn atomicrmw(
    em: &mut Emitter<'_>,
    out: &mut String,
    dst: Ref,
    keyword: &str,
    ty: Ty,
    addr: Ref,
    value: Ref,
    mem: &Mem,
) {
    // `+coarse-grained` promises every address is coarse-grained memory: said on every RMW, it
    // lets llc keep the float adds and, on memory that may be remote, the integer ops native.
    let fine_grained_hint = em.target.coarse_grained && em.target.triple == Triple::Amdgcn;
    let (len, scal, bytes) = match ty {
        Ty::S(Scal::I(bits)) => (1, Scal::I(bits), bits / 8),
        Ty::S(s) => (1, s, float_bytes(s)),
        Ty::V(len, s) => (len, s, len * float_bytes(s)),
        Ty::Ptr { .. } => unreachable!("no pointer atomics"),
    };
    let (ptr, ptr_ty) = typed_addr(em, out, addr, mem.space, len, scal);
    fence(out, mem, mem.bracket.leading);
    let order = mem.order();
    spell!(
        out,
        "  ",
        em.show(dst),
        " = atomicrmw ",
        keyword,
        ' ',
        ptr_ty,
        ' ',
        em.show(ptr),
        ", ",
        ty,
        ' ',
        em.show(value)
    );
    write_syncscope(out, mem.syncscope);
    spell!(out, ' ', ordering(order), ", align ", bytes);
    if fine_grained_hint {
        out.push_str(", !amdgpu.no.fine.grained.memory !0");
    }
    out.push('\n');
    fence(out, mem, mem.bracket.trailing);
}

const fn float_bytes(s: Scal) -> u32 {
    match s {
        Scal::Half | Scal::BFloat => 2,
        Scal::F32 => 4,
        Scal::F64 => 8,
        Scal::I(bits) => bits / 8,
    }
}

/// The `atomicrmw` keyword of `op` on `ty`, from [`crate::spelling::RMW_OPS`]. The legality
/// table never sends cas, loads or stores here, and a float min/max only for a node of laxity
/// `ieee2008` (an exact one is carried in software), which `fmin`/`fmax` mean.
fn keyword(op: AtomicOp, ty: ElemType) -> &'static str {
    let loose = Some(atomir_ir::FloatLaxity::Ieee2008MinMax);
    crate::spelling::rmw_keyword(op, ty, None)
        .or_else(|| crate::spelling::rmw_keyword(op, ty, loose))
        .unwrap_or("xchg")
}

fn packed_lane(ty: ElemType) -> Scal {
    if ty.lane_type() == ElemType::Bf16 {
        Scal::BFloat
    } else {
        Scal::Half
    }
}

/// A native read-modify-write of one element: `dst = *addr; *addr = op(dst, value)`. `value` and
/// `dst` have `ty`'s natural type; a packed float op runs on `<2 x half>` / `<2 x bfloat>`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rmw(
    em: &mut Emitter<'_>,
    out: &mut String,
    dst: Ref,
    op: AtomicOp,
    ty: ElemType,
    addr: Ref,
    value: Ref,
    mem: &Mem,
) {
    if ty.is_packed() && matches!(op, AtomicOp::Add | AtomicOp::Sub) {
        let lane = packed_lane(ty);
        let vector = Ty::V(2, lane);
        let cast = em.fresh();
        spell!(
            out,
            "  ",
            em.show(cast),
            " = bitcast i32 ",
            em.show(value),
            " to ",
            vector,
            '\n'
        );
        let old = em.fresh();
        atomicrmw(em, out, old, keyword(op, ty), vector, addr, cast, mem);
        spell!(
            out,
            "  ",
            em.show(dst),
            " = bitcast ",
            vector,
            ' ',
            em.show(old),
            " to i32\n"
        );
        return;
    }
    atomicrmw(
        em,
        out,
        dst,
        keyword(op, ty),
        Ty::S(Scal::natural(ty)),
        addr,
        value,
        mem,
    );
}

/// `dst = cmpxchg(addr, expected, new)` on `bits`-wide integers; orders kept on the cmpxchg.
#[allow(clippy::too_many_arguments)]
pub(crate) fn cmpxchg(
    em: &mut Emitter<'_>,
    out: &mut String,
    dst: Ref,
    bits: u32,
    addr: Ref,
    expected: Ref,
    new: Ref,
    mem: &Mem,
) {
    let scal = Scal::I(bits);
    let (ptr, ptr_ty) = typed_addr(em, out, addr, mem.space, 1, scal);
    let pair = em.fresh();
    spell!(
        out,
        "  ",
        em.show(pair),
        " = cmpxchg ",
        ptr_ty,
        ' ',
        em.show(ptr),
        ", ",
        scal,
        ' ',
        em.show(expected),
        ", ",
        scal,
        ' ',
        em.show(new)
    );
    write_syncscope(out, mem.syncscope);
    spell!(
        out,
        ' ',
        ordering(mem.order()),
        ' ',
        failure_ordering(mem.order()),
        ", align ",
        bits / 8,
        '\n'
    );
    spell!(
        out,
        "  ",
        em.show(dst),
        " = extractvalue { ",
        scal,
        ", i1 } ",
        em.show(pair),
        ", 0\n"
    );
}

/// `dst = load atomic` of `bits` width (the guess a CAS loop starts from).
pub(crate) fn load(
    em: &mut Emitter<'_>,
    out: &mut String,
    dst: Ref,
    bits: u32,
    addr: Ref,
    mem: &Mem,
) {
    let scal = Scal::I(bits);
    let (ptr, ptr_ty) = typed_addr(em, out, addr, mem.space, 1, scal);
    // A load has no release part; the expansions only ever load relaxed.
    let order = if mem.order().has_acquire() {
        mem.order()
    } else {
        MemoryOrder::Relaxed
    };
    let order = if order == MemoryOrder::AcqRel {
        MemoryOrder::Acquire
    } else {
        order
    };
    spell!(
        out,
        "  ",
        em.show(dst),
        " = load atomic ",
        scal,
        ", ",
        ptr_ty,
        ' ',
        em.show(ptr)
    );
    write_syncscope(out, mem.syncscope);
    spell!(out, ' ', ordering(order), ", align ", bits / 8, '\n');
}

/// A whole FP vector node as one `atomicrmw` on `<N x T>`; returns the old vector.
pub(crate) fn vector_rmw(
    em: &mut Emitter<'_>,
    out: &mut String,
    inst: &AtomicInst,
    plan: &LlvmPlan,
    bracket: FenceBracket,
) -> Option<Ref> {
    let space = em.target.address_space(inst.space).unwrap_or(0);
    let addr = em.node_addr(out, inst, space);
    let scal = Scal::natural(inst.ty);
    let len = inst.shape.len() as u32;
    let vector = Ty::V(len, scal);
    let mut value = None;
    // Every op the table accepts has an operand (loads are refused).
    let operand = inst.operand?;
    for index in 0..inst.shape.len() {
        let element = em.operand_element(out, operand, index, scal);
        value = Some(em.insert_element(out, vector, value, scal, element, index));
    }
    let value = value.unwrap_or(Ref::Lit(0, scal));
    let mem = Mem::of(em, bracket, plan, inst.space);
    let dst = em.fresh();
    atomicrmw(
        em,
        out,
        dst,
        keyword(inst.op, inst.ty),
        vector,
        addr,
        value,
        &mem,
    );
    Some(dst)
}
