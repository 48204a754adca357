//! The vISA legality table: the one place that decides, per node and target, what is native,
//! rewritten, emulated or refused. Every refusal names a rule id (`visa.*`).
//!
//! Stricter than GenX_IR on purpose: its release build accepts `svm_atomic.fadd` on TGLLP, float
//! ops with `.64`, `cmpxchg` with a `%null` src1 and 64-bit integer ALU ops on TGLLP/DG2/MTL,
//! none of which the hardware has. This table never asks for them.

use atomir_ir::{
    AddressSpace, AtomicNode, AtomicOp, ElemType, Legality, Lowering, Param, Refusal, Rewrite,
    Scope, TypeClass, ValueType, Verdict,
};

use atomir_ir::lower::{Access, FencePolicy, Plan};

use crate::target::{Messages, Platform, VisaTarget};
use std::fmt::Write;

atomir_ir::rules! {
    /// The rules of the vISA table.
    pub enum VisaRule {
        No128Bit = "visa.no-128-bit": "no vISA message is atomic on more than 64 bits",
        NoSharedCluster = "visa.no-shared-cluster":
            "vISA has no distributed shared memory (shared_cluster)",
        GenericSpaceUnresolved = "visa.generic-space-unresolved":
            "vISA atomics name their surface; a generic pointer must be resolved first",
        SvmNoSlm = "visa.svm-no-slm": "SVM messages address global memory only",
        NoF64Alu = "visa.no-f64-alu": "a CAS loop on f64 needs an f64 ALU the platform lacks",
        InputsBeyondRegisters = "visa.inputs-beyond-registers":
            "a kernel's inputs (one lane per SIMD channel) must fit the registers they are bound to",
        NoInt64Alu = "visa.no-int64-alu":
            "a CAS loop on 64-bit integers needs a 64-bit integer ALU the platform lacks",
    }
}

/// The registers GenX_IR binds inputs to: the kernel's initial register file (128 registers;
/// it asserts `INPUT payload execeeds the register number` past it).
const INPUT_REGISTERS: u32 = 128;

/// Where the inputs begin: the first 64 bytes are the thread payload.
const FIRST_INPUT: u32 = 64;

/// The bytes of a parameter's input: one lane of every SIMD channel per element, each lane of a
/// vector starting on a register (see [`VisaTarget::lane_bytes`]); a predicate arrives as a dword
/// per channel, a shared pointer as a 32-bit offset.
pub(crate) fn input_bytes(target: VisaTarget, ty: ValueType) -> u32 {
    let (per_channel, lanes) = match ty {
        ValueType::Pred | ValueType::Ptr(AddressSpace::Shared) => (4, 1),
        ValueType::Ptr(_) => (8, 1),
        ValueType::Data(elem, shape) => (if elem.bits() == 64 { 8 } else { 4 }, shape.len() as u32),
    };
    if lanes > 1 {
        lanes * target.lane_bytes(per_channel)
    } else {
        target.simd() * per_channel
    }
}

/// The offset and size of each parameter's input, in order (each on a 64-byte boundary).
pub(crate) fn input_layout(
    target: VisaTarget,
    params: &[Param],
) -> impl Iterator<Item = (u32, u32)> + '_ {
    params.iter().scan(FIRST_INPUT, move |offset, param| {
        let size = input_bytes(target, param.ty);
        let at = *offset;
        *offset += size.div_ceil(64) * 64;
        Some((at, size))
    })
}

/// The table's answer for a kernel's parameters: every type is carried, as long as the inputs
/// fit the registers they are bound to, short of the registers a message on the last input may
/// reach past it ([`VisaTarget::message_overhang`]: an input is the message's operand itself,
/// and cannot be declared wider than the payload it arrives in).
pub(crate) fn signature(target: VisaTarget, params: &[Param]) -> Result<(), (usize, Refusal)> {
    let grf = target.platform.grf_bytes();
    let bytes = INPUT_REGISTERS * grf - target.message_overhang();
    match input_layout(target, params).position(|(offset, size)| offset + size > bytes) {
        None => Ok(()),
        Some(index) => {
            let mut reason = format!(
                "the kernel's inputs need more than the {} registers of {grf} bytes they can be \
                 bound to ({} bytes at SIMD{})",
                bytes / grf,
                input_layout(target, params)
                    .last()
                    .map_or(0, |(offset, size)| offset + size),
                target.simd()
            );
            if target.message_overhang() > 0 {
                let _ = write!(
                    reason,
                    "; the last {} stay free because GenX_IR gives a message here the \
                     registers of SIMD{}",
                    target.message_overhang() / grf,
                    target.message_channels()
                );
            }
            Err((index, Refusal::new(VisaRule::InputsBeyondRegisters, reason)))
        }
    }
}

/// The memory a node's messages address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Surface {
    /// Global memory: SVM A64 or LSC `ugm` with `flat[..]:a64`.
    Global,
    /// Shared local memory: LSC `slm` with `flat[..]:a32`.
    Slm,
}

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
pub const fn msg_op(op: AtomicOp, ty: ElemType) -> Option<MsgOp> {
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
pub fn has_message(target: VisaTarget, op: MsgOp, bits: u32, surface: Surface) -> bool {
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
pub fn bound_is_all_ones(node: &AtomicNode) -> bool {
    node.literal == Some(atomir_ir::semantics::width_mask(node.ty.bits()))
}

/// The surface a node's space maps to, or the refusal.
pub fn surface(target: VisaTarget, space: AddressSpace) -> Result<Surface, Refusal> {
    match space {
        AddressSpace::Global => Ok(Surface::Global),
        AddressSpace::Shared if target.messages == Messages::Svm => Err(Refusal::new(
            VisaRule::SvmNoSlm,
            "SVM messages address global memory only; shared atomics need LSC `slm` messages",
        )),
        AddressSpace::Shared => Ok(Surface::Slm),
        AddressSpace::SharedCluster => Err(Refusal::new(
            VisaRule::NoSharedCluster,
            "vISA has no distributed shared memory (shared_cluster)",
        )),
        AddressSpace::Generic => Err(Refusal::new(
            VisaRule::GenericSpaceUnresolved,
            "vISA atomics name their surface (ugm or slm); resolve the generic pointer to global \
             or shared before lowering",
        )),
    }
}

/// Messages carry no order: fences before and after them do.
pub(crate) const FENCES: FencePolicy = FencePolicy::RelaxedBetweenFences;

/// What the vISA table decided for one node: the verdict, and the message that carries each
/// native element (a split element, or the widened op of a masked op).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VisaPlan {
    /// The verdict: the lowering chosen, or the refusal.
    pub legality: Legality,
    /// The message op of each native element (the node's op, or for a masked op its op on the
    /// containing 32-bit word); `None` for CAS loops, whose `Cas` is the expansion's, and for
    /// stand-alone fences.
    pub message: Option<MsgOp>,
}

impl Plan for VisaPlan {
    fn legality(&self) -> &Legality {
        &self.legality
    }

    /// vISA prints every node through its expansion (a native one as its one message).
    fn is_whole(&self) -> bool {
        false
    }

    fn fences(&self, _access: Access) -> FencePolicy {
        FENCES
    }
}

/// The one legality table.
pub fn plan(target: VisaTarget, node: &AtomicNode) -> Result<VisaPlan, Refusal> {
    let legality = table(target, node)?;
    let message = match legality.lowering.element() {
        Lowering::Native => msg_op(node.op, node.ty),
        Lowering::MaskedOp => msg_op(node.op, ElemType::B32),
        _ => None,
    };
    Ok(VisaPlan { legality, message })
}

/// The platforms a refusal's smallest target is searched among, oldest first
/// ([`Platform::ALL`]), each with its default messages.
pub fn candidates() -> Vec<VisaTarget> {
    Platform::ALL.into_iter().map(VisaTarget::new).collect()
}

fn table(target: VisaTarget, node: &AtomicNode) -> Verdict {
    let ty = node.ty;
    if ty.bits() > 64 {
        return Err(Refusal::new(
            VisaRule::No128Bit,
            format!(
                "no vISA message is atomic on {} bits; a {ty} access cannot be made atomic",
                ty.bits()
            ),
        ));
    }
    let surface = surface(target, node.space)?;
    let mut rewrites = smallvec::SmallVec::<[Rewrite; 3]>::new();
    if node.scope == Scope::Cluster {
        rewrites.push(Rewrite::ScopeWidened {
            from: Scope::Cluster,
            to: Scope::Device,
        });
    }
    rewrites.extend(FENCES.rewrite(node.order));
    // No vISA message here carries an L2 eviction policy.
    if node.hint.is_some() {
        rewrites.push(Rewrite::CacheHintDropped);
    }

    let element = match element_lowering(target, node, surface, &mut rewrites)? {
        Lowering::CasLoop if int_min_max_messages(target, node, surface) => Lowering::IntMinMax,
        element => element,
    };
    Ok(Legality {
        rewrites,
        lowering: Lowering::per_element(element, node.shape),
    })
}

/// Whether an f32/f64 min/max that would be a CAS loop can be [`Lowering::IntMinMax`]: the
/// integer min/max messages of its width, signed and unsigned, on its surface (exact, proven in
/// `atomir_ir::expand`; the CAS loop stays for NaNs, so the loop's own rules still apply).
fn int_min_max_messages(target: VisaTarget, node: &AtomicNode, surface: Surface) -> bool {
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

fn element_lowering(
    target: VisaTarget,
    node: &AtomicNode,
    surface: Surface,
    rewrites: &mut smallvec::SmallVec<[Rewrite; 3]>,
) -> Result<Lowering, Refusal> {
    let (op, ty) = (node.op, node.ty);
    if ty.bits() == 8 {
        // No 8-bit atomics anywhere: the containing 32-bit word.
        return Ok(crate::memory::part_word(op));
    }
    let cas_loop = |rewrites: &mut smallvec::SmallVec<[Rewrite; 3]>| {
        if let Some(refusal) = loop_alu_refusal(target, op, ty) {
            return Err(refusal);
        }
        rewrites.retain(|r| *r != Rewrite::UnboundedIncDec);
        Ok(Lowering::CasLoop)
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
    Ok(Lowering::Native)
}

#[cfg(test)]
mod tests {
    use super::*;

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
                    Ok(Lowering::IntMinMax),
                    "{target} {op} {ty}"
                );
            }
            // The NaN-propagating ones have no integer form.
            assert_eq!(
                lowering(target, AtomicOp::FMaximum, ElemType::F32),
                Ok(Lowering::CasLoop)
            );
        }
        assert_eq!(
            lowering("DG2", AtomicOp::Max, ElemType::F32),
            Ok(Lowering::Native)
        );
        assert!(lowering("DG2", AtomicOp::Min, ElemType::F64).is_err());
    }
}
