//! Read-modify-write nodes: the message that carries an op on a type and surface, and where
//! none does, the emulation (CAS loop, integer min/max messages for floats) and its ALU needs.

use atomir_ir::{
    AtomicNode, AtomicOp, ElemType, ElementLowering, Lowering, Refusal, Rewrite, TypeClass,
};

use super::{Surface, VisaRule};
use crate::target::{Messages, Platform, VisaTarget};

/// A native atomic message operation, as the vISA text spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MsgOp {
    /// Integer wrapping add: SVM `add`, LSC `iadd`.
    Add,
    /// Integer wrapping subtract: SVM `sub`, LSC `isub`.
    Sub,
    /// Wrapping increment, no operand: SVM `inc`, LSC `iinc`. Carries the IR's bounded `inc`
    /// only where its bound is all ones (the message has no bound).
    Inc,
    /// Wrapping decrement, no operand: SVM `dec`, LSC `idec` (the IR's `dec` with an all-ones
    /// bound).
    Dec,
    /// Unsigned minimum: SVM `min`, LSC `umin`.
    UMin,
    /// Unsigned maximum: SVM `max`, LSC `umax`.
    UMax,
    /// Signed minimum: SVM `minsint`, LSC `smin`.
    SMin,
    /// Signed maximum: SVM `maxsint`, LSC `smax`.
    SMax,
    /// Exchange (and, result unused, an atomic store): SVM `xchg`, LSC `store`.
    Xchg,
    /// Integer compare-and-swap of the bit pattern: SVM `cmpxchg`, LSC `icas`.
    Cas,
    /// Bitwise and: `and` in both.
    And,
    /// Bitwise or: `or` in both.
    Or,
    /// Bitwise xor: `xor` in both.
    Xor,
    /// Float add: `fadd` in both.
    FAdd,
    /// Float subtract: `fsub` in both.
    FSub,
    /// Float minimum: `fmin` in both.
    FMin,
    /// Float maximum: `fmax` in both.
    FMax,
    /// An atomic load: `lsc_atomic_load` (SVM: `or` with zero; SLM 64-bit: `icas` of zero
    /// with zero). An atomic store is [`MsgOp::Xchg`] with its result unused.
    Load,
}

impl MsgOp {
    /// `svm_atomic.<op>` spelling.
    pub const fn svm_name(self) -> &'static str {
        match self {
            MsgOp::Add => "add",
            MsgOp::Sub => "sub",
            MsgOp::Inc => "inc",
            MsgOp::Dec => "dec",
            MsgOp::UMin => "min",
            MsgOp::UMax => "max",
            MsgOp::SMin => "minsint",
            MsgOp::SMax => "maxsint",
            MsgOp::Xchg => "xchg",
            MsgOp::Cas => "cmpxchg",
            MsgOp::And => "and",
            MsgOp::Or => "or",
            MsgOp::Xor => "xor",
            MsgOp::FAdd => "fadd",
            MsgOp::FSub => "fsub",
            MsgOp::FMin => "fmin",
            MsgOp::FMax => "fmax",
            MsgOp::Load => "or",
        }
    }

    /// `lsc_atomic_<op>` spelling.
    pub const fn lsc_name(self) -> &'static str {
        match self {
            MsgOp::Add => "iadd",
            MsgOp::Sub => "isub",
            MsgOp::Inc => "iinc",
            MsgOp::Dec => "idec",
            MsgOp::UMin => "umin",
            MsgOp::UMax => "umax",
            MsgOp::SMin => "smin",
            MsgOp::SMax => "smax",
            MsgOp::Xchg => "store",
            MsgOp::Cas => "icas",
            MsgOp::And => "and",
            MsgOp::Or => "or",
            MsgOp::Xor => "xor",
            MsgOp::FAdd => "fadd",
            MsgOp::FSub => "fsub",
            MsgOp::FMin => "fmin",
            MsgOp::FMax => "fmax",
            MsgOp::Load => "load",
        }
    }

    /// Operations whose message takes no data operand (`%null` sources).
    pub const fn takes_no_source(self) -> bool {
        matches!(self, MsgOp::Inc | MsgOp::Dec | MsgOp::Load)
    }
}

/// The message op that carries `op` on `ty`, ignoring whether the target has it.
pub(crate) const fn msg_op(op: AtomicOp, ty: ElemType) -> Option<MsgOp> {
    let class = ty.class();
    let float = matches!(class, TypeClass::Float);
    let signed = matches!(class, TypeClass::Signed);
    Some(match op {
        AtomicOp::Add if float => MsgOp::FAdd,
        AtomicOp::Sub if float => MsgOp::FSub,
        AtomicOp::Min if float => MsgOp::FMin,
        AtomicOp::Max if float => MsgOp::FMax,
        AtomicOp::Add => MsgOp::Add,
        AtomicOp::Sub => MsgOp::Sub,
        AtomicOp::Min if signed => MsgOp::SMin,
        AtomicOp::Max if signed => MsgOp::SMax,
        AtomicOp::Min => MsgOp::UMin,
        AtomicOp::Max => MsgOp::UMax,
        AtomicOp::Inc => MsgOp::Inc,
        AtomicOp::Dec => MsgOp::Dec,
        AtomicOp::And => MsgOp::And,
        AtomicOp::Or => MsgOp::Or,
        AtomicOp::Xor => MsgOp::Xor,
        AtomicOp::Exch => MsgOp::Xchg,
        AtomicOp::Cas => MsgOp::Cas,
        AtomicOp::Load => MsgOp::Load,
        AtomicOp::Store => MsgOp::Xchg,
        AtomicOp::Nand
        | AtomicOp::UsubCond
        | AtomicOp::UsubSat
        | AtomicOp::FMinimum
        | AtomicOp::FMaximum
        | AtomicOp::FMinimumNum
        | AtomicOp::FMaximumNum => return None,
    })
}

/// Whether the hardware has `op` with a `bits`-wide datum on `surface` (never GenX_IR's looser
/// answer). 16-bit data travel unpacked in dwords (`.16` / `d16c32`).
pub(crate) fn has_message(target: VisaTarget, op: MsgOp, bits: u32, surface: Surface) -> bool {
    if !matches!(bits, 16 | 32 | 64) {
        return false;
    }
    let float = matches!(op, MsgOp::FAdd | MsgOp::FSub | MsgOp::FMin | MsgOp::FMax);
    match target.messages {
        Messages::Svm => {
            if surface != Surface::Global {
                return false;
            }
            match op {
                // No float add/sub in the HDC A64 atomics (GenX_IR accepts them anyway).
                MsgOp::FAdd | MsgOp::FSub => false,
                // fmin/fmax: 32-bit only (fp16 min/max needs Xe-HP; no .64 float ops).
                MsgOp::FMin | MsgOp::FMax => bits == 32,
                MsgOp::Load => true,
                _ => true,
            }
        }
        Messages::Lsc => {
            if surface == Surface::Slm && bits == 64 && op != MsgOp::Cas && op != MsgOp::Load {
                return false;
            }
            if surface == Surface::Slm && bits == 64 && op == MsgOp::Load {
                // Carried by an `icas` of zero with zero.
                return true;
            }
            if float {
                return match op {
                    MsgOp::FAdd | MsgOp::FSub => {
                        surface == Surface::Global
                            && (bits == 32 || (bits == 64 && target.platform == Platform::Pvc))
                    }
                    _ => bits == 32,
                };
            }
            true
        }
    }
}

/// Whether a CAS loop computing `op` on `ty` needs an ALU the platform lacks.
fn loop_alu_refusal(target: VisaTarget, op: AtomicOp, ty: ElemType) -> Option<Refusal> {
    if target.platform.has_64bit_alu() || ty.bits() != 64 {
        return None;
    }
    if ty == ElemType::F64 && !op.is_move() {
        return Some(Refusal::new(
            VisaRule::NoF64Alu,
            format!(
                "{op}.f64 needs an f64 ALU inside its CAS loop; {} has none",
                target.platform.as_str()
            ),
        ));
    }
    let needs_arith = matches!(
        op,
        AtomicOp::Add
            | AtomicOp::Sub
            | AtomicOp::Min
            | AtomicOp::Max
            | AtomicOp::Inc
            | AtomicOp::Dec
            | AtomicOp::UsubCond
            | AtomicOp::UsubSat
    );
    needs_arith.then(|| {
        Refusal::new(
            VisaRule::NoInt64Alu,
            format!(
                "{op}.{ty} must be emulated here and its CAS loop needs 64-bit integer add/compare, \
                 which {} lacks",
                target.platform.as_str()
            ),
        )
    })
}

/// Whether the `inc`/`dec` bound is a literal with every bit of the type set.
pub(crate) fn bound_is_all_ones(node: &AtomicNode) -> bool {
    node.literal == Some(atomir_ir::semantics::width_mask(node.ty.bits()))
}

/// Whether an f32/f64 min/max that would be a CAS loop can be [`ElementLowering::IntMinMax`]: the
/// integer min/max messages of its width, signed and unsigned, on its surface (exact, proven in
/// `atomir_ir::expand`; the CAS loop stays for NaNs, so the loop's own rules still apply).
pub(super) fn int_min_max_messages(
    target: VisaTarget,
    node: &AtomicNode,
    surface: Surface,
) -> bool {
    if !matches!(node.ty, ElemType::F32 | ElemType::F64) {
        return false;
    }
    let Some(atomics) = Lowering::int_min_max_atomics(node.op, node.ty) else {
        return false;
    };
    atomics.iter().all(|&(op, ty)| {
        msg_op(op, ty).is_some_and(|message| has_message(target, message, ty.bits(), surface))
    })
}

pub(super) fn element_lowering(
    target: VisaTarget,
    node: &AtomicNode,
    surface: Surface,
    rewrites: &mut smallvec::SmallVec<[Rewrite; 3]>,
) -> Result<ElementLowering, Refusal> {
    let (op, ty) = (node.op, node.ty);
    if ty.bits() == 8 {
        // No 8-bit atomics anywhere: the containing 32-bit word.
        return Ok(super::ld_st::part_word(op));
    }
    let cas_loop = |rewrites: &mut smallvec::SmallVec<[Rewrite; 3]>| {
        if let Some(refusal) = loop_alu_refusal(target, op, ty) {
            return Err(refusal);
        }
        rewrites.retain(|r| *r != Rewrite::UnboundedIncDec);
        Ok(ElementLowering::CasLoop)
    };
    if (ty.is_packed() || ty == ElemType::Bf16) && !op.is_move() {
        return cas_loop(rewrites);
    }
    let Some(message) = msg_op(op, ty) else {
        return cas_loop(rewrites);
    };
    if matches!(op, AtomicOp::Inc | AtomicOp::Dec) {
        if !bound_is_all_ones(node) {
            return cas_loop(rewrites);
        }
        rewrites.push(Rewrite::UnboundedIncDec);
    }
    if !has_message(target, message, ty.bits(), surface) {
        return cas_loop(rewrites);
    }
    let retyped = match ty.class() {
        TypeClass::Signed => !matches!(op, AtomicOp::Min | AtomicOp::Max),
        TypeClass::Float => op.is_move(),
        TypeClass::Bits => true,
        _ => false,
    };
    if retyped {
        rewrites.push(Rewrite::RetypedSameBits);
    }
    Ok(ElementLowering::Native)
}

#[cfg(test)]
mod tests {
    use super::super::table;
    use super::*;
    use atomir_ir::AddressSpace;

    fn lowering(target: &str, op: AtomicOp, ty: ElemType) -> Result<Lowering, Refusal> {
        let target = VisaTarget::parse(target).unwrap();
        let mut node = AtomicNode::new(op, ty);
        node.space = AddressSpace::Global;
        node.pointer_space = AddressSpace::Global;
        node.result_used = true;
        table(target, &node).map(|legality| legality.lowering)
    }

    /// A float min/max that would be a CAS loop is the integer min/max messages where the
    /// platform has both (a CAS loop only for NaNs); a native float message stays native, and a
    /// platform whose NaN loop has no ALU still refuses.
    #[test]
    fn float_min_max_by_integer_messages_where_both_exist() {
        for target in ["PVC", "PVC+svm"] {
            for (op, ty) in [
                (AtomicOp::Min, ElemType::F64),
                (AtomicOp::Max, ElemType::F64),
                (AtomicOp::FMaximumNum, ElemType::F32),
                (AtomicOp::FMinimumNum, ElemType::F64),
            ] {
                assert_eq!(
                    lowering(target, op, ty),
                    Ok(Lowering::whole(ElementLowering::IntMinMax)),
                    "{target} {op} {ty}"
                );
            }
            // The NaN-propagating ones have no integer form.
            assert_eq!(
                lowering(target, AtomicOp::FMaximum, ElemType::F32),
                Ok(Lowering::whole(ElementLowering::CasLoop))
            );
        }
        assert_eq!(
            lowering("DG2", AtomicOp::Max, ElemType::F32),
            Ok(Lowering::whole(ElementLowering::Native))
        );
        assert!(lowering("DG2", AtomicOp::Min, ElemType::F64).is_err());
    }
}
