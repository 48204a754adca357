//! A vector of native elements first attempted as one CAS of the whole vector
//! ([`Split::WholeCasThenPerElement`]).
//!
//! [`Split::WholeCasThenPerElement`]: crate::legal::Split::WholeCasThenPerElement

use smallvec::SmallVec;

use super::apply::apply_op;
use super::attempt::first_load;
use super::{mem_attrs, native_element, Builder};
use crate::expand::{BinaryOp, CmpCond, PrimType, UnaryOp, Var};
use crate::node::AtomicNode;

/// Emits the node as one CAS of all its elements and, where that CAS fails, one native access
/// per element; returns each element's old value in its natural type (where the result is
/// used) and leaves the builder in the exit block.
///
/// The attempt loads the vector relaxed (a guess the CAS validates), applies every element's
/// operation to its part of it, and CASes the whole with the node's attributes: where it
/// stores, the node's operations all took effect in that one atomic access, a linearization in
/// which they are adjacent, each with the node's order and scope. Where it fails it wrote
/// nothing, and the elements go their own way as a split node does.
pub(super) fn whole_cas_then_elements(
    b: &mut Builder,
    node: &AtomicNode,
    element_addrs: &[Var],
) -> SmallVec<[Var; 4]> {
    let ty = node.ty;
    let bits = ty.bits();
    let count = element_addrs.len() as u32;
    let element_ty = PrimType::int(bits);
    let whole_ty = PrimType::int(bits * count);
    let mem = mem_attrs(node);
    let base = element_addrs[0];

    // The whole vector, loaded as a guess; the elements lie in it lowest address lowest.
    let loaded = first_load(b, base, whole_ty, mem, false);
    let mut found = SmallVec::<[Var; 4]>::new();
    let mut new_whole = None;
    for index in 0..count {
        // The first element lies in the low bits: no shift.
        let shift = (index > 0).then(|| b.constant(whole_ty, u128::from(index * bits)));
        let shifted = match shift {
            Some(shift) => b.binary(BinaryOp::LShr, loaded, shift),
            None => loaded,
        };
        let element = b.unary(UnaryOp::Trunc, shifted, element_ty);
        let operand = b.expansion.operands[index as usize];
        let new_value = b.expansion.new_values.get(index as usize).copied();
        let applied = apply_op(b, node.op, ty, element, operand, new_value);
        let wide = b.unary(UnaryOp::Zext, applied, whole_ty);
        let placed = match shift {
            Some(shift) => b.binary(BinaryOp::Shl, wide, shift),
            None => wide,
        };
        new_whole = Some(match new_whole {
            None => placed,
            Some(acc) => b.binary(BinaryOp::Or, acc, placed),
        });
        found.push(element);
    }
    let new_whole = new_whole.expect("a vector has elements");
    let seen = b.cas(base, loaded, new_whole, mem);
    let stored = b.cmp(CmpCond::Eq, seen, loaded);
    let attempt = b.current;

    let used = node.result_used();
    let done_params: SmallVec<[PrimType; 4]> = if used {
        (0..count).map(|_| element_ty).collect()
    } else {
        SmallVec::new()
    };
    let (each, _) = b.block(&[]);
    b.switch_to(each);
    let mut olds = SmallVec::<[Var; 4]>::new();
    for (index, &addr) in element_addrs.iter().enumerate() {
        let operand = b.expansion.operands[index];
        let new_value = b.expansion.new_values.get(index).copied();
        let old = native_element(b, node, ty, addr, operand, new_value);
        olds.push(b.bits_of(old));
    }
    let (done, params) = b.block(&done_params);
    let (at_once, separately): (&[Var], &[Var]) = if used { (&found, &olds) } else { (&[], &[]) };
    b.jump(done, separately);
    b.branch_from(attempt, stored, (done, at_once), (each, &[]));
    b.switch_to(done);
    let natural = PrimType::natural(ty);
    params
        .iter()
        .map(|&param| b.unary(UnaryOp::Bitcast, param, natural))
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::expand::{expand, Prim, PrimType};
    use crate::legal::Lowering;
    use crate::node::AtomicNode;
    use crate::types::{AtomicOp, ElemType, MemoryOrder, VectorShape};

    /// The attempt is one relaxed load and one CAS of the whole 64 bits, before the elements'
    /// own accesses, which keep the node's order.
    #[test]
    fn the_attempt_covers_the_whole_vector() {
        let node = AtomicNode {
            shape: VectorShape::V2,
            order: MemoryOrder::SeqCst,
            result_used: true,
            ..AtomicNode::new(AtomicOp::Add, ElemType::S32)
        };
        let expansion = expand(&node, Lowering::WHOLE_CAS_THEN_SPLIT_NATIVE);
        let memory: Vec<&Prim> = expansion.memory_prims().collect();
        let wide = |var| expansion.vars[var] == PrimType::I64;
        assert!(matches!(memory[0], Prim::Load { dst, mem, .. }
            if wide(*dst) && mem.order == MemoryOrder::Relaxed));
        assert!(matches!(memory[1], Prim::Cas { dst, mem, .. }
            if wide(*dst) && mem.order == MemoryOrder::SeqCst));
        let elements = memory[2..]
            .iter()
            .filter(
                |prim| matches!(prim, Prim::Rmw { mem, .. } if mem.order == MemoryOrder::SeqCst),
            )
            .count();
        assert_eq!((memory.len(), elements), (4, 2));
        assert_eq!(expansion.results.len(), 2);
    }
}
