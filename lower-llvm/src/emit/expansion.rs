//! Prints a shared expansion ([`atomir_ir::expand::Expansion`]) as LLVM basic blocks: block
//! parameters become phis, primitives become instructions, memory primitives go to
//! [`super::native`].

use atomir_ir::expand::{BinaryOp, Block, CmpCond, Expansion, Prim, Terminator, UnaryOp, Var};
use atomir_ir::lower::{incoming, FenceBracket, Unprintable};
use atomir_ir::{spell, AtomicInst};
use cranelift_entity::EntityRef;

use super::native::{self, Mem};
use super::{Emitter, Label, Ref, Scal, Ty};
use crate::legal::LlvmPlan;

/// Binds the expansion's inputs: the node's address and operands; every other variable prints
/// as its own register, a constant as its literal.
pub(crate) fn bind(
    em: &mut Emitter<'_>,
    out: &mut String,
    inst: &AtomicInst,
    expansion: &Expansion,
) {
    let index = em.inst;
    let space = em.target.address_space(inst.space).unwrap_or(0);
    em.space = space;
    em.result = None;
    let mut refs = std::mem::take(&mut em.refs);
    refs.clear();
    refs.extend(expansion.vars.keys().map(|v| Ref::Var(index, v)));
    refs[expansion.addr.index()] = em.node_addr(out, inst, space);
    let natural = Scal::natural(inst.ty);
    if let Some(operand) = inst.operand {
        for (element, var) in expansion.operands.iter().enumerate() {
            refs[var.index()] = em.operand_element(out, operand, element, natural);
        }
    }
    if let Some(new_value) = inst.new_value {
        for (element, var) in expansion.new_values.iter().enumerate() {
            refs[var.index()] = em.operand_element(out, new_value, element, natural);
        }
    }
    for block in expansion.blocks.values() {
        for prim in &block.prims {
            if let Prim::Const { dst, bits } = *prim {
                if let Ty::S(scal) = em.prim_ty(expansion.vars[dst], space) {
                    refs[dst.index()] = Ref::Lit(bits, scal);
                }
            }
        }
    }
    if em.target.folds_literal_operations() {
        fold_literal_operations(em, expansion, &mut refs, space);
    }
    em.refs = refs;
}

/// Binds the destination of every integer `Binary` and `Not` whose operands are all literals
/// to its value, to a fixed point (a folded value may make a later operation's operands all
/// literals); [`primitive`] then prints nothing for it. See
/// [`crate::LlvmTarget::folds_literal_operations`] for why.
fn fold_literal_operations(em: &Emitter<'_>, expansion: &Expansion, refs: &mut [Ref], space: u32) {
    let literal = |r: Ref| match r {
        Ref::Lit(bits, Scal::I(_)) => Some(bits),
        _ => None,
    };
    loop {
        let mut changed = false;
        for prim in expansion.blocks.values().flat_map(|block| &block.prims) {
            let (dst, a, b, op) = match *prim {
                Prim::Binary { dst, op, a, b } => (dst, a, Some(b), Some(op)),
                Prim::Unary {
                    dst,
                    op: UnaryOp::Not,
                    src,
                } => (dst, src, None, None),
                _ => continue,
            };
            let Ty::S(Scal::I(bits)) = em.prim_ty(expansion.vars[dst], space) else {
                continue;
            };
            if literal(refs[dst.index()]).is_some() {
                continue;
            }
            let Some(x) = literal(refs[a.index()]) else {
                continue;
            };
            let value = match (op, b.map(|b| literal(refs[b.index()]))) {
                // `Not` is printed as `xor` with all ones, which llc folds too.
                (None, None) => BinaryOp::Xor.on_integers(bits, x, u128::MAX),
                (Some(op), Some(Some(y))) => op.on_integers(bits, x, y),
                _ => None,
            };
            if let Some(value) = value {
                refs[dst.index()] = Ref::Lit(value, Scal::I(bits));
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
}

/// Whether `prim` was folded into a literal by [`fold_literal_operations`].
fn folded(refs: &[Ref], prim: &Prim) -> bool {
    match *prim {
        Prim::Binary { dst, .. }
        | Prim::Unary {
            dst,
            op: UnaryOp::Not,
            ..
        } => matches!(refs[dst.index()], Ref::Lit(..)),
        _ => false,
    }
}

/// A block's label (the entry is the instruction's first block) and its parameters as phis over
/// the edges into it.
pub(crate) fn block(
    em: &mut Emitter<'_>,
    out: &mut String,
    expansion: &Expansion,
    block: Block,
    entry: bool,
) {
    let index = em.inst;
    let label = Label::Block(index, block.as_u32());
    if !entry {
        spell!(out, em.show_label(label), ":\n");
    }
    em.label = label;
    for (position, param) in expansion.blocks[block].params.iter().enumerate() {
        let ty = em.prim_ty(expansion.vars[*param], em.space);
        spell!(out, "  ", em.show(em.refs[param.index()]), " = phi ", ty);
        for (number, (pred, edge)) in incoming(expansion, block).enumerate() {
            let arg = em.refs[edge.args[position].index()];
            spell!(
                out,
                if number == 0 { "" } else { "," },
                " [ ",
                em.show(arg),
                ", %",
                em.show_label(Label::Block(index, pred.as_u32())),
                " ]"
            );
        }
        out.push('\n');
    }
}

/// A block's terminator: `br`, or at the return the node's old value gathered.
pub(crate) fn terminator(
    em: &mut Emitter<'_>,
    out: &mut String,
    inst: &AtomicInst,
    expansion: &Expansion,
    block: Block,
) {
    let index = em.inst;
    match &expansion.blocks[block].terminator {
        Terminator::Jump(target) => {
            spell!(
                out,
                "  br label %",
                em.show_label(Label::Block(index, target.block.as_u32())),
                '\n'
            );
        }
        Terminator::Branch {
            cond,
            then,
            otherwise,
        } => {
            spell!(
                out,
                "  br i1 ",
                em.show(em.refs[cond.index()]),
                ", label %",
                em.show_label(Label::Block(index, then.block.as_u32())),
                ", label %",
                em.show_label(Label::Block(index, otherwise.block.as_u32())),
                '\n'
            );
        }
        Terminator::Return => {
            let refs = std::mem::take(&mut em.refs);
            em.result = gather_results(em, out, inst, expansion, &refs);
            em.refs = refs;
        }
    }
}

/// The node's old value: the single element, or the elements inserted into a vector.
fn gather_results(
    em: &mut Emitter<'_>,
    out: &mut String,
    inst: &AtomicInst,
    expansion: &Expansion,
    refs: &[Ref],
) -> Option<Ref> {
    inst.result?;
    if !inst.shape.is_vector() {
        return Some(refs[expansion.results[0].index()]);
    }
    let scal = Scal::natural(inst.ty);
    let vector = Ty::V(inst.shape.len() as u32, scal);
    let mut current: Option<Ref> = None;
    for (index, var) in expansion.results.iter().enumerate() {
        let element = refs[var.index()];
        current = Some(em.insert_element(out, vector, current, scal, element, index));
    }
    current
}

/// One primitive; memory primitives go to [`super::native`] with their fence bracket.
pub(crate) fn primitive(
    em: &mut Emitter<'_>,
    out: &mut String,
    plan: &LlvmPlan,
    expansion: &Expansion,
    prim: &Prim,
    bracket: Option<FenceBracket>,
) -> Result<(), Unprintable> {
    let refs = std::mem::take(&mut em.refs);
    let printed = primitive_with(em, out, plan, expansion, &refs, prim, bracket);
    em.refs = refs;
    printed
}

#[allow(clippy::too_many_arguments)]
fn primitive_with(
    em: &mut Emitter<'_>,
    out: &mut String,
    plan: &LlvmPlan,
    expansion: &Expansion,
    refs: &[Ref],
    prim: &Prim,
    bracket: Option<FenceBracket>,
) -> Result<(), Unprintable> {
    let space = em.space;
    let bracket = |order| bracket.unwrap_or(FenceBracket::bare(order));
    let r = |var: Var| refs[var.index()];
    let ty = |em: &Emitter<'_>, var: Var| em.prim_ty(expansion.vars[var], space);
    if folded(refs, prim) {
        return Ok(());
    }
    match *prim {
        Prim::Const { .. } => {}
        Prim::Load { dst, addr, mem } => {
            let mem = Mem::of(em, bracket(mem.order), plan, mem.space);
            native::load(em, out, r(dst), expansion.vars[dst].bits(), r(addr), &mem);
        }
        Prim::Cas {
            dst,
            addr,
            expected,
            new,
            mem,
        } => {
            let mem = Mem::of(em, bracket(mem.order), plan, mem.space);
            native::cmpxchg(
                em,
                out,
                r(dst),
                expansion.vars[dst].bits(),
                r(addr),
                r(expected),
                r(new),
                &mem,
            );
        }
        Prim::Rmw {
            dst,
            op,
            ty: elem,
            addr,
            value,
            mem,
        } => {
            let mem = Mem::of(em, bracket(mem.order), plan, mem.space);
            let dst = match dst {
                Some(dst) => r(dst),
                None => em.fresh(),
            };
            native::rmw(em, out, dst, op, elem, r(addr), r(value), &mem);
        }
        Prim::Unary { dst, op, src } => {
            let (from, to) = (ty(em, src), ty(em, dst));
            let (d, s) = (em.show(r(dst)), em.show(r(src)));
            let cast = match op {
                UnaryOp::Not => None,
                UnaryOp::Copy | UnaryOp::Bitcast => Some("bitcast"),
                UnaryOp::Zext => Some("zext"),
                UnaryOp::Trunc => Some("trunc"),
            };
            match cast {
                None => spell!(out, "  ", d, " = xor ", to, ' ', s, ", -1\n"),
                Some(cast) => {
                    spell!(out, "  ", d, " = ", cast, ' ', from, ' ', s, " to ", to, '\n')
                }
            }
        }
        Prim::Binary { dst, op, a, b } => {
            return binary(em, out, ty(em, a), r(dst), op, r(a), r(b));
        }
        Prim::Cmp { dst, cond, a, b } => {
            let cond = match cond {
                CmpCond::Eq => "eq",
                CmpCond::Ne => "ne",
                CmpCond::Ult => "ult",
                CmpCond::Ule => "ule",
                CmpCond::Ugt => "ugt",
                CmpCond::Uge => "uge",
            };
            let operands = (ty(em, a), r(a), r(b));
            two_operand(em, out, r(dst), "icmp", Some(cond), operands);
        }
        Prim::Select {
            dst,
            cond,
            if_true,
            if_false,
        } => {
            let t = ty(em, dst);
            spell!(
                out,
                "  ",
                em.show(r(dst)),
                " = select i1 ",
                em.show(r(cond)),
                ", ",
                t,
                ' ',
                em.show(r(if_true)),
                ", ",
                t,
                ' ',
                em.show(r(if_false)),
                '\n'
            );
        }
        Prim::PtrAlignDown { .. } | Prim::PtrLowBits { .. } | Prim::PtrAdd { .. } => {
            pointer(em, out, expansion, refs, prim);
        }
        Prim::WarpActive { .. }
        | Prim::WarpBallot { .. }
        | Prim::WarpPeers { .. }
        | Prim::WarpLeads { .. }
        | Prim::WarpFirst { .. }
        | Prim::WarpScan { .. }
        | Prim::WarpBroadcast { .. }
        | Prim::WarpFromRank { .. }
        | Prim::WarpSync { .. } => {
            return Err(Unprintable(
                "warp primitives: no LLVM table combines lanes".into(),
            ));
        }
    }
    Ok(())
}

/// A pointer primitive: the address aligned down, its low bits, or an offset address.
fn pointer(
    em: &mut Emitter<'_>,
    out: &mut String,
    expansion: &Expansion,
    refs: &[Ref],
    prim: &Prim,
) {
    let (Prim::PtrAlignDown { dst, ptr, .. }
    | Prim::PtrLowBits { dst, ptr, .. }
    | Prim::PtrAdd { dst, ptr, .. }) = *prim
    else {
        return;
    };
    let ptr_ty = em.prim_ty(expansion.vars[ptr], em.space);
    let (dst, ptr) = (refs[dst.index()], refs[ptr.index()]);
    match *prim {
        Prim::PtrAlignDown { align, .. } => {
            let low = low_bits(em, out, ptr_ty, ptr, align);
            let negated = em.fresh();
            spell!(
                out,
                "  ",
                em.show(negated),
                " = sub i64 0, ",
                em.show(low),
                '\n'
            );
            gep(em, out, ptr_ty, dst, ptr, negated);
        }
        Prim::PtrLowBits { align, .. } => {
            let low = low_bits(em, out, ptr_ty, ptr, align);
            spell!(
                out,
                "  ",
                em.show(dst),
                " = trunc i64 ",
                em.show(low),
                " to i32\n"
            );
        }
        Prim::PtrAdd { bytes, .. } => {
            let offset = Ref::Lit(u128::from(bytes), Scal::I(64));
            gep(em, out, ptr_ty, dst, ptr, offset);
        }
        _ => {}
    }
}

fn low_bits(em: &mut Emitter<'_>, out: &mut String, ptr_ty: Ty, ptr: Ref, align: u32) -> Ref {
    let int = em.fresh();
    spell!(
        out,
        "  ",
        em.show(int),
        " = ptrtoint ",
        ptr_ty,
        ' ',
        em.show(ptr),
        " to i64\n"
    );
    let low = em.fresh();
    spell!(
        out,
        "  ",
        em.show(low),
        " = and i64 ",
        em.show(int),
        ", ",
        align - 1,
        '\n'
    );
    low
}

/// `dst = ptr + bytes`, as a byte GEP (keeps the pointer's provenance, unlike an int round trip).
fn gep(em: &mut Emitter<'_>, out: &mut String, ptr_ty: Ty, dst: Ref, ptr: Ref, bytes: Ref) {
    spell!(
        out,
        "  ",
        em.show(dst),
        " = getelementptr i8, ",
        ptr_ty,
        ' ',
        em.show(ptr),
        ", i64 ",
        em.show(bytes),
        '\n'
    );
}

/// `  dst = opcode[ condition] ty a, b`: a binary instruction, or a compare under its condition.
fn two_operand(
    em: &Emitter<'_>,
    out: &mut String,
    dst: Ref,
    opcode: &str,
    condition: Option<&str>,
    (ty, a, b): (Ty, Ref, Ref),
) {
    spell!(out, "  ", em.show(dst), " = ", opcode);
    if let Some(condition) = condition {
        spell!(out, ' ', condition);
    }
    spell!(out, ' ', ty, ' ', em.show(a), ", ", em.show(b), '\n');
}

fn binary(
    em: &mut Emitter<'_>,
    out: &mut String,
    ty: Ty,
    dst: Ref,
    op: BinaryOp,
    a: Ref,
    b: Ref,
) -> Result<(), Unprintable> {
    let simple = match op {
        BinaryOp::Add => Some("add"),
        BinaryOp::Sub => Some("sub"),
        BinaryOp::And => Some("and"),
        BinaryOp::Or => Some("or"),
        BinaryOp::Xor => Some("xor"),
        BinaryOp::Shl => Some("shl"),
        BinaryOp::LShr => Some("lshr"),
        BinaryOp::FAdd => Some("fadd"),
        BinaryOp::FSub => Some("fsub"),
        _ => None,
    };
    if let Some(name) = simple {
        two_operand(em, out, dst, name, None, (ty, a, b));
        return Ok(());
    }
    let pick_a = match op {
        BinaryOp::SMin => "slt",
        BinaryOp::SMax => "sgt",
        BinaryOp::UMin => "ult",
        BinaryOp::UMax => "ugt",
        // Rewritten by the soft-float pass before printing (`LlvmTarget::passes`).
        _ => {
            return Err(Unprintable(format!(
                "{op:?} is rewritten by the soft-float pass"
            )))
        }
    };
    let cond = em.fresh();
    two_operand(em, out, cond, "icmp", Some(pick_a), (ty, a, b));
    spell!(
        out,
        "  ",
        em.show(dst),
        " = select i1 ",
        em.show(cond),
        ", ",
        ty,
        ' ',
        em.show(a),
        ", ",
        ty,
        ' ',
        em.show(b),
        '\n'
    );
    Ok(())
}
