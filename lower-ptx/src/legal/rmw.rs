//! The read-modify-write forms: the native `atom`/`red` of a node where the target has one,
//! else the emulation its elements take and the native forms of that emulation's `Rmw`
//! primitives.

use atomir_ir::lower::FencePolicy;
use atomir_ir::{
    AddressSpace, AtomicNode, AtomicOp, ElemType, ElementLowering, FloatLaxity, Legality, Lowering,
    MemoryOrder, Rewrite, Scope, Split, TypeClass, VectorShape, WarpCombine,
};

use super::{
    fence_policy, hint_allowed, printed_scope, reduction_allowed, Form, PtxOp, PtxPlan, PtxRmw,
    PtxRule, PtxType, RmwForms, RuleFailure, LOOP_FENCES,
};
use crate::target::{Feature, PtxTarget};

/// Whether the node is a 64-bit `exch` on `.shared::cluster`, whose order is carried as llc
/// carries it: a relaxed `atom` between one-direction fences. ptxas 13.5 (sm_90) carries such
/// an `atom` as a generic `ATOM` with a fallback store; with the acquire on the `atom` it
/// branches around the fallback, with a trailing `fence.acquire` it predicates it: an acquire
/// exch of u64 at `.gpu` scope, result unused, 11 SASS instructions, 10 so (llc 10); a v2.u64,
/// result used, 26 and 23 (llc 23); as many or fewer in every order, scope and shape measured.
/// A relaxed `atom` followed by `fence.acquire` is an acquire pattern, and `fence.release`
/// followed by it a release pattern: at least as strong as the order on the `atom`.
fn exch_b64_on_cluster_shared(node: &AtomicNode, target: PtxTarget) -> bool {
    node.op == AtomicOp::Exch
        && node.ty.bits() == 64
        && node.space == AddressSpace::SharedCluster
        && target.has(Feature::SplitFences)
}

/// A native form of an operation, and whether it names the type differently (a rewrite).
struct Native {
    op: PtxOp,
    retyped: bool,
}

/// The `atom` operation that carries `op`, if PTX has one: `sub` is the add of the negated
/// operand. Every op is decided here, so a new one is a compile error in this table, never a
/// CAS loop nobody chose.
const fn rmw_of(op: AtomicOp) -> Option<PtxRmw> {
    match op {
        AtomicOp::Add | AtomicOp::Sub => Some(PtxRmw::Add),
        AtomicOp::Inc => Some(PtxRmw::Inc),
        AtomicOp::Dec => Some(PtxRmw::Dec),
        AtomicOp::Min => Some(PtxRmw::Min),
        AtomicOp::Max => Some(PtxRmw::Max),
        AtomicOp::And => Some(PtxRmw::And),
        AtomicOp::Or => Some(PtxRmw::Or),
        AtomicOp::Xor => Some(PtxRmw::Xor),
        AtomicOp::Exch => Some(PtxRmw::Exch),
        AtomicOp::Cas => Some(PtxRmw::Cas),
        // No `atom` computes these; float min/max may take integer ones ([`int_min_max`]).
        AtomicOp::Nand
        | AtomicOp::UsubCond
        | AtomicOp::UsubSat
        | AtomicOp::FMinimum
        | AtomicOp::FMaximum
        | AtomicOp::FMinimumNum
        | AtomicOp::FMaximumNum => None,
        // Not read-modify-writes: `ld`/`st` ([`super::ld_st`]).
        AtomicOp::Load | AtomicOp::Store => None,
    }
}

/// The native scalar form of `op` on `ty`, if the target has one (not yet a reduction, no hint).
fn scalar_native(op: AtomicOp, ty: ElemType, target: PtxTarget) -> Option<Native> {
    use ElemType::*;
    let rmw = rmw_of(op)?;
    // A bitwise op, `exch` or `cas` names the bits of a typed element (`.b32` for `u32`).
    let bits_of_typed = ty.class() != TypeClass::Bits;
    let (ptx_ty, noftz, retyped) = match rmw {
        PtxRmw::Add => match ty {
            U32 => (PtxType::U32, false, false),
            S32 => (PtxType::S32, false, false),
            U64 => (PtxType::U64, false, false),
            S64 => (PtxType::U64, false, true),
            F32 => (PtxType::F32, target.has(Feature::NoftzF32), false),
            F64 => (PtxType::F64, false, false),
            F16 if target.has(Feature::F16Add) => (PtxType::F16, true, false),
            F16x2 if target.has(Feature::F16x2Add) => (PtxType::F16x2, true, false),
            Bf16 if target.has(Feature::Bf16Add) => (PtxType::Bf16, true, false),
            Bf16x2 if target.has(Feature::Bf16Add) => (PtxType::Bf16x2, true, false),
            _ => return None,
        },
        PtxRmw::Inc | PtxRmw::Dec => match ty {
            U32 => (PtxType::U32, false, false),
            _ => return None,
        },
        PtxRmw::Min | PtxRmw::Max => match ty {
            U32 => (PtxType::U32, false, false),
            S32 => (PtxType::S32, false, false),
            U64 => (PtxType::U64, false, false),
            S64 => (PtxType::S64, false, false),
            _ => return None,
        },
        PtxRmw::And | PtxRmw::Or | PtxRmw::Xor => match ty.bits() {
            32 | 64 => (PtxType::of_bits(ty.bits()), false, bits_of_typed),
            _ => return None,
        },
        PtxRmw::Exch => match ty.bits() {
            32 | 64 => (PtxType::of_bits(ty.bits()), false, bits_of_typed),
            _ if ty == B128 => (PtxType::B128, false, false),
            _ => return None,
        },
        PtxRmw::Cas => match ty.bits() {
            32 | 64 | 128 => (PtxType::of_bits(ty.bits()), false, bits_of_typed),
            16 if target.has(Feature::CasB16) => (PtxType::B16, false, bits_of_typed),
            _ => return None,
        },
    };
    Some(Native {
        op: PtxOp {
            op: rmw,
            ty: ptx_ty,
            noftz,
            negate: op == AtomicOp::Sub,
            reduction: false,
            hint: false,
        },
        retyped,
    })
}

/// `op` as printed for `node`: an f32 add without `.noftz` where the node is `ftz` and its
/// address may be global memory (the only memory where the plain form flushes; elsewhere the
/// node's exact form is printed, which is the plain one on shared memory anyway).
fn with_node_laxity(op: PtxOp, node: &AtomicNode) -> PtxOp {
    let flushes = node.laxity == Some(FloatLaxity::MayFlushSubnormals)
        && matches!(node.space, AddressSpace::Global | AddressSpace::Generic)
        && op.op == PtxRmw::Add
        && op.ty == PtxType::F32;
    PtxOp {
        noftz: op.noftz && !flushes,
        ..op
    }
}

/// Whether the node is an f32 add or sub whose native form would flush where the node does not
/// allow it (rule [`PtxRule::F32AddFlushesWithoutNoftz`]): an exact node (not `ftz`) whose
/// address may be global memory, on a target without `.noftz.f32`. `atom.add.f32` and
/// `red.add.f32` flush subnormal inputs and results there (PTX ISA, `atom`: only shared memory
/// keeps them), so the add is the exact CAS loop instead, its arithmetic `add.rn.f32`, which
/// keeps subnormals.
fn native_f32_add_flushes(node: &AtomicNode, target: PtxTarget) -> bool {
    node.ty == ElemType::F32
        && matches!(node.op, AtomicOp::Add | AtomicOp::Sub)
        && !FloatLaxity::carries(Some(FloatLaxity::MayFlushSubnormals), node.laxity)
        && matches!(node.space, AddressSpace::Global | AddressSpace::Generic)
        && !target.has(Feature::NoftzF32)
}

/// The native vector form of `op` on `shape × ty` (sm_90, PTX 8.1, `.global`).
///
/// Not on generic addresses: a generic vector `atom` is defined only where the address points
/// to `.global`, and a generic address may point to shared memory. Float min/max only for a
/// node of laxity `ieee2008`: the native f16/bf16 vector min/max give a NaN other than
/// `semantics::canonical_nan` for two NaNs, which an exact node does not allow; its elements
/// take the software min/max instead.
fn vector_native(node: &AtomicNode, target: PtxTarget) -> Option<Native> {
    use ElemType::*;
    use VectorShape::*;
    if !target.has(Feature::Vector) || node.space != AddressSpace::Global {
        return None;
    }
    let nan_loose = node.laxity == Some(FloatLaxity::Ieee2008MinMax);
    // Add (and sub as the add of the negation) has vector forms, and min/max for NaN-loose nodes.
    let op = match rmw_of(node.op)? {
        PtxRmw::Add => PtxRmw::Add,
        PtxRmw::Min if nan_loose => PtxRmw::Min,
        PtxRmw::Max if nan_loose => PtxRmw::Max,
        PtxRmw::Inc
        | PtxRmw::Dec
        | PtxRmw::Min
        | PtxRmw::Max
        | PtxRmw::And
        | PtxRmw::Or
        | PtxRmw::Xor
        | PtxRmw::Exch
        | PtxRmw::Cas => return None,
    };
    let allowed = match (node.ty, node.shape) {
        (F16 | Bf16, V2 | V4 | V8) => true,
        (F16x2 | Bf16x2, V2 | V4) => true,
        (F32, V2 | V4) => op == PtxRmw::Add,
        _ => false,
    };
    let ty = match node.ty {
        F16 => PtxType::F16,
        Bf16 => PtxType::Bf16,
        F16x2 => PtxType::F16x2,
        Bf16x2 => PtxType::Bf16x2,
        _ => PtxType::F32,
    };
    allowed.then_some(Native {
        op: PtxOp {
            op,
            ty,
            noftz: node.ty != F32 || target.has(Feature::NoftzF32),
            negate: node.op == AtomicOp::Sub,
            reduction: false,
            hint: false,
        },
        retyped: false,
    })
}

/// The packed form of a scalar f16/bf16 add or sub where the client opted into it and the
/// target has the packed atom (`.f16x2` from sm_60 and PTX 6.2, `.bf16x2` with scalar `.bf16`
/// from sm_90 and PTX 7.8, in every space ptxas takes the scalar one). ptxas carries out the
/// scalar `atom.add.noftz.f16`/`.bf16` as a CAS loop of its own (H100 SASS), the packed one is
/// the hardware's: 74x (f16) and 16x (bf16) faster at one contended address. Sub is the add of
/// the negated operand, exact as in the scalar form; the other half adds -0.0 either way.
fn packed_half_native(node: &AtomicNode, target: PtxTarget) -> Option<Native> {
    let packed = match node.ty {
        ElemType::F16 if target.has(Feature::F16x2Add) => PtxType::F16x2,
        ElemType::Bf16 if target.has(Feature::Bf16Add) => PtxType::Bf16x2,
        _ => return None,
    };
    let wanted = target.packed_half_add
        && !node.shape.is_vector()
        && matches!(node.op, AtomicOp::Add | AtomicOp::Sub);
    wanted.then_some(Native {
        op: PtxOp {
            op: PtxRmw::Add,
            ty: packed,
            noftz: true,
            negate: node.op == AtomicOp::Sub,
            reduction: false,
            hint: false,
        },
        retyped: false,
    })
}

/// The packed add of a vector of f16/bf16 add or sub without a vector form (outside `.global`,
/// or before sm_90): one `atom.add.noftz.f16x2`/`.bf16x2` per 32-bit word, each half with its
/// own element's operand (sub: negated), where the target has the packed atom. Every element
/// is added exactly as the scalar atom adds it, and the word holds no other data: a vector is
/// aligned to its size. The scalar atoms were each a CAS loop of ptxas's own (v2.f16 add,
/// acquire, `.shared`, sm_90: 33 SASS instructions, against 10 this way).
fn packed_half_words(node: &AtomicNode, target: PtxTarget) -> Option<PtxOp> {
    let ty = match node.ty {
        ElemType::F16 if target.has(Feature::F16x2Add) => PtxType::F16x2,
        ElemType::Bf16 if target.has(Feature::Bf16Add) => PtxType::Bf16x2,
        _ => return None,
    };
    let wanted = node.shape.is_vector() && matches!(node.op, AtomicOp::Add | AtomicOp::Sub);
    wanted.then_some(PtxOp {
        op: PtxRmw::Add,
        ty,
        noftz: true,
        negate: node.op == AtomicOp::Sub,
        reduction: false,
        hint: false,
    })
}

/// A warp's lanes at one address folding their operands into one native RMW (a constant, so
/// the axes are checked as the crate compiles).
const WARP_NATIVE: Lowering =
    match Lowering::new(ElementLowering::Native, Split::Whole, WarpCombine::Fold) {
        Ok(lowering) => lowering,
        Err(_) => panic!("a native RMW has a warp fold"),
    };

/// A warp's lanes at one address folding their operands into one integer min/max trick.
const WARP_INT_MIN_MAX: Lowering =
    match Lowering::new(ElementLowering::IntMinMax, Split::Whole, WarpCombine::Fold) {
        Ok(lowering) => lowering,
        Err(_) => panic!("an integer min/max has a warp fold"),
    };

/// A warp's lanes applying their operations one after another in one CAS loop.
const WARP_SERIAL_FOLD: Lowering = match Lowering::new(
    ElementLowering::CasLoop,
    Split::Whole,
    WarpCombine::SerialFold,
) {
    Ok(lowering) => lowering,
    Err(_) => panic!("a CAS loop has a serial fold"),
};

/// How one element of `node` is emulated when the target has no native form for it.
///
/// A scalar 16-bit loop starts on `cas.b16` where the target has it and turns into the masked
/// 32-bit word loop once a CAS fails ([`ElementLowering::CasThenMaskedLoop`]). ptxas carries out
/// each `atom.cas.b16` as a 32-bit CAS loop of its own (a load of the word, then a CAS of the
/// word retried with the word it returns), so each attempt of a loop on `cas.b16` costs two
/// trips to memory, where a failed CAS of the masked word loop returns the word it retries
/// with. Measured on an H200 (bench/RESULTS.md, "Every class on its own cells, and the
/// part-word cas"): ordered u16 add and sub on global memory at one contended address took
/// 36-41 ms on `cas.b16` against 29-30 ms for the masked word loop and for llc 23's code (1.44x
/// slower), while at 4096 addresses `cas.b16` took 0.78-0.88 ms against the word loop's
/// 1.21-1.25 ms. Which is faster depends on contention, and the loop sees contention: its first
/// CAS fails. A vector's 16-bit elements share one masked loop per word instead.
fn element_emulation(node: &AtomicNode, target: PtxTarget) -> ElementLowering {
    match node.ty.bits() {
        8 => ElementLowering::masked(node.op),
        16 if ElementLowering::masked(node.op) == ElementLowering::MaskedOp => {
            ElementLowering::MaskedOp
        }
        16 if !node.shape.is_vector() && target.has(Feature::CasB16) => {
            ElementLowering::CasThenMaskedLoop
        }
        16 => ElementLowering::MaskedCasLoop,
        _ => ElementLowering::CasLoop,
    }
}

/// The element lowering of a node whose emulation is `element`: a relaxed scalar 8/16-bit
/// add/sub/min/max's CAS loop (masked, or starting on `cas.b16`) is run by one lane for all the lanes of
/// its warp whose elements lie in the same 32-bit word, each address's operands folded first
/// ([`WarpCombine::WordFold`] of a masked CAS loop), where the target has the warp instructions.
/// A CAS loop retried by every lane of a warp on one word is what makes an 8-bit add slow (45 s
/// for 2^20 threads on one address on an H200); a group of lanes retries once. Combining per
/// address instead ([`WarpCombine::Fold`] of the element's loop) left the lanes at
/// different addresses of one word each running a loop on it: on an H200 (bench/RESULTS.md,
/// cells against independent baselines), u8 add at 32 addresses took 26.2 ms that way against
/// 26.5 ms for nvcc's code and 3.43 ms for the serial fold, which groups by word too.
fn warp_combined(node: &AtomicNode, target: PtxTarget, element: ElementLowering) -> Lowering {
    let combines = node.order == MemoryOrder::Relaxed
        && !node.shape.is_vector()
        && target.has(Feature::WarpCombine)
        && !target.plain_loops
        && Lowering::warp_fold(node.op, node.ty).is_some();
    match element {
        ElementLowering::MaskedCasLoop
        | ElementLowering::CasLoop
        | ElementLowering::CasThenMaskedLoop
            if combines && per_word(node) =>
        {
            Lowering::whole(ElementLowering::MaskedCasLoop)
                .with_warp(WarpCombine::WordFold)
                .expect("a word fold is a masked CAS loop")
        }
        ElementLowering::MaskedCasLoop
        | ElementLowering::CasLoop
        | ElementLowering::CasThenMaskedLoop
            if combines =>
        {
            Lowering::whole(element)
                .with_warp(WarpCombine::Fold)
                .expect("a per-address fold of a CAS loop")
        }
        // A masked op (and/or/xor) has no fold and stays per lane.
        _ => Lowering::whole(element),
    }
}

/// Whether the warp combines an 8/16-bit node per 32-bit word ([`WarpCombine::WordFold`])
/// rather than per address ([`WarpCombine::Fold`]): add and sub on global or generic memory.
/// Timed on an H200 (bench/RESULTS.md, "The per-word fold against the per-address fold"): on
/// global memory the word fold is 10-16x faster at 32 and 4096 addresses and as fast at one;
/// on shared memory, and for min/max anywhere, the per-address fold is 2-6x faster.
fn per_word(node: &AtomicNode) -> bool {
    matches!(node.op, AtomicOp::Add | AtomicOp::Sub)
        && matches!(node.space, AddressSpace::Global | AddressSpace::Generic)
}

/// With `+serial-fold`: a relaxed scalar f16/bf16 or 8/16-bit integer add or sub carried
/// out once per 32-bit word by a warp's lanes, their operations applied one after another in
/// lane order ([`WarpCombine::SerialFold`]), instead of the scalar `atom` (which ptxas makes a
/// CAS loop per lane), a CAS loop per lane, or the default fold per word. By default too (never
/// with `+plain-loops`), where the GPU showed it faster at 1, 32 and 4096 addresses on an H200
/// (bench/RESULTS.md):
/// - an exact f32 add or sub whose native form would flush ([`native_f32_add_flushes`];
///   `+reassociate-float-add` combines it natively instead): 66x faster than a CAS loop per
///   lane at one contended address and as fast at 32 and 4096 ("The exact f32 add on the
///   GPU"); where the native f32 add is exact it stays;
/// - a scalar f16/bf16 add or sub on global or generic memory (`+packed-half-add` takes the
///   packed atom instead): 2-52x faster than ptxas's CAS loop for the scalar `atom` (287 against
///   5.5 ms for f16 at one address, 194 against 34 at 32, 1.6 against 0.71 at 4096: "Emitted
///   cells against independent baselines"). On shared memory ptxas's loop stays: the fold was
///   2-9x slower there at 32 and 4096 addresses.
fn serial_folded(node: &AtomicNode, target: PtxTarget) -> bool {
    let exact_f32_add = node.ty == ElemType::F32
        && native_f32_add_flushes(node, target)
        && !target.reassociate_float_add;
    let half_add_in_global = matches!(node.ty, ElemType::F16 | ElemType::Bf16)
        && matches!(node.space, AddressSpace::Global | AddressSpace::Generic);
    let by_default = (exact_f32_add || half_add_in_global) && !target.plain_loops;
    (target.serial_fold || by_default)
        && node.order == MemoryOrder::Relaxed
        && !node.shape.is_vector()
        && target.has(Feature::WarpCombine)
        && target.has(Feature::CasB16)
        && matches!(node.op, AtomicOp::Add | AtomicOp::Sub)
        && match node.ty {
            ElemType::F16
            | ElemType::Bf16
            | ElemType::U8
            | ElemType::S8
            | ElemType::U16
            | ElemType::S16 => true,
            ElemType::F32 => native_f32_add_flushes(node, target),
            _ => false,
        }
}

/// Opt-in only (`+reassociate-float-add`): a relaxed scalar f32 add or sub whose lanes of a
/// warp at one address sum their operands first, one of them adding the sum
/// ([`WarpCombine::Fold`] of the native RMW). At one contended address a warp's 32 atomics become one. An
/// exact node whose native add would flush ([`native_f32_add_flushes`]) is combined too: the
/// option's client accepts the native `atom.add.f32` and its flushing (its help says so) in
/// place of the exact CAS loop.
fn reassociated_float_add(node: &AtomicNode, target: PtxTarget) -> bool {
    target.reassociate_float_add
        && node.order == MemoryOrder::Relaxed
        && !node.shape.is_vector()
        && target.has(Feature::WarpCombine)
        && Lowering::warp_fold_reassociating(node.op, node.ty).is_some()
}

/// The element lowering of a float min/max by the integer `atom`s ([`int_min_max`]): a relaxed
/// scalar one is run by one lane for all the lanes of its warp with the same address
/// ([`WarpCombine::Fold`] of [`ElementLowering::IntMinMax`]) where the target has the warp
/// instructions. At one contended address with increasing operands (f32 max, 2^20 threads) an
/// H100 took 0.036 ms this way against 0.780 ms with one `atom` per lane.
fn warp_int_min_max(node: &AtomicNode, target: PtxTarget) -> Lowering {
    let combines = node.order == MemoryOrder::Relaxed
        && !node.shape.is_vector()
        && target.has(Feature::WarpCombine)
        && !target.plain_loops;
    if combines {
        WARP_INT_MIN_MAX
    } else {
        Lowering::whole(ElementLowering::IntMinMax)
    }
}

/// The integer `atom`s of a 32/64-bit float min/max (`fminimumnum`/`fmaximumnum` are the same
/// function) without a native form, where the target has them: [`ElementLowering::IntMinMax`],
/// exact (proven in `atomir_ir::expand`), a CAS loop only for NaNs. `atom.min/max` on `.s32/.u32`
/// exist on every target, on `.s64/.u64` from sm_32 (PTX ISA, `atom`), below every target here,
/// with every `.sem`, scope and space an integer min/max has; each is asked of
/// [`scalar_native`], so a target without one keeps the CAS loop. At one contended address with
/// increasing operands an H100 runs f32 max 510x faster this way than by nvcc's CAS loop.
fn int_min_max(node: &AtomicNode, target: PtxTarget) -> Option<RmwForms> {
    if !matches!(node.ty, ElemType::F32 | ElemType::F64) {
        return None;
    }
    let [(signed_op, signed), (unsigned_op, unsigned)] =
        Lowering::int_min_max_atomics(node.op, node.ty)?;
    Some(RmwForms::IntMinMax {
        signed: scalar_native(signed_op, signed, target)?.op,
        unsigned: scalar_native(unsigned_op, unsigned, target)?.op,
    })
}

/// The decision for a read-modify-write node (not a load or store) on one target.
pub(super) fn plan(node: &AtomicNode, target: PtxTarget) -> Result<PtxPlan, RuleFailure> {
    // The system-scope rule is asked first: its requirement includes the other's, so the
    // message names the same ISA as the smallest target (ptxas 13.5: "Feature '.b128 with
    // .sys' requires PTX ISA .version 8.4", in every space).
    if node.ty == ElemType::B128 {
        if node.scope == Scope::System && !target.has(Feature::B128System) {
            return Err((
                PtxRule::B128SysNeedsPtx84,
                "a 128-bit atomic (cas/exch .b128) with system scope needs sm_90 and PTX ISA \
                 8.4; no narrower operation can make 128 bits atomic"
                    .into(),
            ));
        }
        if !target.has(Feature::B128) {
            return Err((
                PtxRule::B128NeedsSm90,
                "a 128-bit atomic (cas/exch .b128) needs sm_90 and PTX ISA 8.3; no narrower \
                 operation can make 128 bits atomic"
                    .into(),
            ));
        }
    }

    let mut legality = Legality::native();
    let scope = printed_scope(node.scope, target, &mut legality);
    let fences = if exch_b64_on_cluster_shared(node, target) {
        FencePolicy::RelaxedBetweenFences
    } else {
        fence_policy(target)
    };
    legality.rewrites.extend(fences.rewrite(node.order));

    let hint = node.hint.is_some() && hint_allowed(node, target);

    let packed = packed_half_native(node, target);
    let flushing_add =
        native_f32_add_flushes(node, target) && !reassociated_float_add(node, target);
    if flushing_add {
        legality.rewrites.push(Rewrite::ExactForWeakerNative {
            rule: PtxRule::F32AddFlushesWithoutNoftz.rule(),
        });
    }
    let native = if packed.is_some() {
        packed
    } else if serial_folded(node, target) || flushing_add {
        None
    } else if node.shape.is_vector() {
        vector_native(node, target)
    } else {
        scalar_native(node.op, node.ty, target)
    };
    let form = match native {
        Some(Native { mut op, retyped }) => {
            op = with_node_laxity(op, node);
            note_native(&mut legality, node, op, retyped);
            op.reduction = reduction_allowed(node) && op.op.has_reduction();
            op = op.hinted(hint);
            if matches!(op.ty, PtxType::F16x2 | PtxType::Bf16x2) && !node.ty.is_packed() {
                legality.rewrites.push(Rewrite::HalfAddOnPackedWord);
                Form::PackedHalf(op)
            } else if reassociated_float_add(node, target) {
                legality.rewrites.push(Rewrite::FloatAddReassociated);
                legality.lowering = WARP_NATIVE;
                Form::Expand {
                    rmw: RmwForms::Each(op),
                }
            } else {
                Form::Native(op)
            }
        }
        None => {
            // A vector's 16-bit cas shares one masked loop per word as its other ops do: each
            // `atom.cas.b16` is a 32-bit loop of ptxas's own, one per element (v2.u16 cas on
            // sm_90, release: 55 SASS instructions against 32).
            let per_element =
                !(node.op == AtomicOp::Cas && node.shape.is_vector() && node.ty.bits() == 16);
            let native = (per_element && !serial_folded(node, target) && !flushing_add)
                .then(|| scalar_native(node.op, node.ty, target))
                .flatten();
            let (element, op) = match (packed_half_words(node, target), native) {
                (Some(op), _) => {
                    note_native(&mut legality, node, op, false);
                    (Lowering::whole(ElementLowering::MaskedOp), Some(op))
                }
                (None, Some(Native { op, retyped })) => {
                    let op = with_node_laxity(op, node);
                    note_native(&mut legality, node, op, retyped);
                    (Lowering::whole(ElementLowering::Native), Some(op))
                }
                _ if serial_folded(node, target) => (WARP_SERIAL_FOLD, None),
                (None, None) => {
                    let element = warp_combined(node, target, element_emulation(node, target));
                    let masked_op = element.element() == ElementLowering::MaskedOp;
                    if masked_op && reduction_allowed(node) {
                        legality.rewrites.push(Rewrite::DeadResultAsReduction);
                    }
                    // A masked op is the node's bitwise op on the containing 32-bit word.
                    let widened = masked_op
                        .then(|| scalar_native(node.op, ElemType::B32, target))
                        .flatten()
                        .map(|native| native.op);
                    (element, widened)
                }
            };
            let (element, rmw) = match int_min_max(node, target) {
                Some(forms) => (warp_int_min_max(node, target), forms),
                None => (
                    element,
                    op.map_or(RmwForms::None, |op| {
                        RmwForms::Each(PtxOp {
                            reduction: reduction_allowed(node) && op.op.has_reduction(),
                            ..op
                        })
                    }),
                ),
            };
            legality.lowering = element.for_shape(node.shape);
            Form::Expand {
                rmw: rmw.hinted(hint),
            }
        }
    };
    if legality.lowering.has_retry_loop() && fences != LOOP_FENCES {
        // The verdict names how the loop carries its order, not how a single access would.
        let per_access = fences.rewrite(node.order);
        legality
            .rewrites
            .retain(|rewrite| Some(*rewrite) != per_access);
        legality.rewrites.extend(LOOP_FENCES.rewrite(node.order));
    }
    Ok(PtxPlan::of_access(node, legality, scope, form, fences))
}

/// The rewrites a native form stands for.
fn note_native(legality: &mut Legality, node: &AtomicNode, op: PtxOp, retyped: bool) {
    if op.negate {
        legality.rewrites.push(Rewrite::SubAsAddOfNegation);
    }
    if retyped {
        legality.rewrites.push(Rewrite::RetypedSameBits);
    }
    if reduction_allowed(node) && op.op.has_reduction() {
        legality.rewrites.push(Rewrite::DeadResultAsReduction);
    }
}
