//! How one element of a node is carried out on a target: natively, by the shared CAS loop, or
//! by a masked word-sized operation, per triple and LLVM version.
//!
//! These are the scalar rules, each with the llc versions it was measured on. The table asks
//! them only once its node-wide checks have passed, and builds the node's lowering from the
//! element's.

use atomir_ir::{
    AddressSpace, AtomicNode, AtomicOp, ElemType, ElementLowering, FloatLaxity, Lowering, Refusal,
    Scope, TypeClass,
};

use super::checks::nvptx_rmw_keeps_order;
use crate::target::{LlvmTarget, Triple};

/// How one element of the node is carried out (scalar rules).
pub(super) fn element_lowering(
    target: &LlvmTarget,
    node: &AtomicNode,
) -> Result<ElementLowering, Refusal> {
    let ty = node.ty;
    let op = node.op;
    let bits = ty.bits();
    let triple = target.triple;
    // Where the target's smallest CAS is 32 bits, 8/16-bit elements live inside a word.
    let small = bits < 32;
    let part_word_cas = ElementLowering::MaskedCasLoop;
    let loop_for = |small: bool| {
        if small {
            part_word_cas
        } else {
            ElementLowering::CasLoop
        }
    };
    let small_native = triple == Triple::X86_64;

    // NVPTX system scope: before 23 only cmpxchg keeps `.sys`.
    if triple == Triple::Nvptx64 && node.scope == Scope::System && !nvptx_rmw_keeps_order(target) {
        return Ok(if op == AtomicOp::Cas && !small {
            ElementLowering::Native
        } else {
            loop_for(small)
        });
    }

    // rules llvm.amdgcn-system-scope-by-cas and llvm.amdgcn-remote-memory-by-cas: on memory
    // that may be fine-grained (host memory) or remote (another device's, over PCIe), llc
    // expands every RMW but exch and integer add into a cmpswap loop of its own, so the rest is
    // atomir's CAS loop there.
    if amd_rmw_expanded_for_host_or_peer_memory(target, node) {
        return Ok(loop_for(small));
    }

    // rule llvm.fminmax-ieee2008: a float min/max of laxity `ieee2008` is `atomicrmw fmin/fmax`
    // itself (minnum/maxnum, LLVM 15 on), which means exactly what it allows; llc expands it
    // where the processor has no instruction. f32/f64 on amdgcn and x86-64 from 15, on nvptx64
    // from 19 (llc 15 and 16 abort on one in shared memory: "Cannot cast between two
    // non-generic address spaces"); the others keep the exact node's form.
    let first_version = match triple {
        Triple::Amdgcn | Triple::X86_64 => 15,
        Triple::Nvptx64 => 19,
        _ => u32::MAX,
    };
    let ieee2008_native = node.laxity == Some(FloatLaxity::Ieee2008MinMax)
        && matches!(op, AtomicOp::Min | AtomicOp::Max)
        && matches!(ty, ElemType::F32 | ElemType::F64)
        && target.major >= first_version;
    if ieee2008_native {
        return Ok(ElementLowering::Native);
    }

    // Float min/max (fminimumnum/fmaximumnum are the same function) on 32/64 bits: the integer
    // min/max `atomicrmw` of the width on the operand's bits, a CAS loop only for NaNs
    // (`ElementLowering::IntMinMax`, proven in the interpreter). SPIR-V keeps the plain CAS loop:
    // how its backends select 64-bit integer min/max is not measured.
    let float_min_max = Lowering::int_min_max_atomics(op, ty).is_some();
    if float_min_max && !small && !triple.is_spirv() {
        return Ok(ElementLowering::IntMinMax);
    }

    // usub_cond, usub_sat, fminimum, fmaximum, fminimumnum and fmaximumnum: `atomicrmw` has
    // them only from LLVM 20 (usub_*) and 21 (fminimum, fmaximum), and how each backend
    // selects them is not measured, so every version takes the shared CAS loop, whose body
    // the interpreter proves against the semantics.
    if matches!(
        op,
        AtomicOp::UsubCond
            | AtomicOp::UsubSat
            | AtomicOp::FMinimum
            | AtomicOp::FMaximum
            | AtomicOp::FMinimumNum
            | AtomicOp::FMaximumNum
    ) {
        return Ok(loop_for(small && !small_native));
    }
    if op == AtomicOp::Cas {
        return Ok(if small && !small_native {
            part_word_cas
        } else {
            ElementLowering::Native
        });
    }
    if ty.is_packed() {
        // rule llvm.nvptx-packed-half-add-by-cas: NVPTX's llc has no f16x2/bf16x2 atom, so
        // the packed add and sub are atomir's own CAS loop there.
        return Ok(match op {
            AtomicOp::Exch => ElementLowering::Native,
            AtomicOp::Add
                if packed_rmw_native(target) && amd_float_add_native(target, node, ty) =>
            {
                ElementLowering::Native
            }
            _ => ElementLowering::CasLoop,
        });
    }
    let float = ty.class() == TypeClass::Float;
    if float && matches!(op, AtomicOp::Min | AtomicOp::Max) {
        // rule llvm.fminmax-signed-zero: atomicrmw fmin/fmax leave -0/+0 unordered.
        return Ok(loop_for(small && !small_native));
    }
    if small && !small_native {
        // `atom.add.noftz.f16` from sm_70, `.bf16` from sm_90 (llc expands it below).
        let native_small_float = float
            && matches!(op, AtomicOp::Add)
            && triple == Triple::Nvptx64
            && target.major >= 22
            && target.cpu.is_some_and(|cpu| cpu.has_small_float_add(ty));
        let native_spirv_half = triple.is_spirv() && ty == ElemType::F16 && op == AtomicOp::Add;
        if native_small_float || native_spirv_half {
            return Ok(ElementLowering::Native);
        }
        return Ok(ElementLowering::masked(op));
    }
    Ok(if full_width_native(target, node) {
        ElementLowering::Native
    } else {
        loop_for(small && !small_native)
    })
}

/// Whether llc selects `op` on a 32/64-bit element (or, on x86-64, any element) as one instruction
/// of its own, for the ops the rules above leave: where it does not, or expands it into a loop of
/// its own, the element is atomir's CAS loop.
fn full_width_native(target: &LlvmTarget, node: &AtomicNode) -> bool {
    let (op, ty, bits, triple) = (node.op, node.ty, node.ty.bits(), target.triple);
    let small = bits < 32;
    let float = ty.class() == TypeClass::Float;
    match op {
        // rule llvm.no-uinc-wrap-before-16; SPIR-V has no bounded increment.
        // rule llvm.amdgcn-uinc-wrap-needs-19: llc 16 cannot select them on amdgcn (19 can;
        // 17 and 18 unmeasured), so the CAS loop it is.
        // rule llvm.nvptx-inc-dec-64-by-cas: PTX's atom.inc/dec are 32-bit only, and llc
        // expands a 64-bit uinc_wrap/udec_wrap into a CAS loop of its own.
        // rule llvm.nvptx-inc-dec-by-cas-before-22: llc 16 and 19 expand the 32-bit ones into
        // a CAS loop of their own too; llc 22 selects atom.inc/atom.dec.
        AtomicOp::Inc | AtomicOp::Dec => match triple {
            Triple::Spirv64 | Triple::SpirvVulkan => false,
            Triple::Amdgcn => target.major >= 19,
            Triple::Nvptx64 => target.major >= 22 && bits == 32,
            Triple::X86_64 => target.major >= 16,
        },
        // rule llvm.spirv-no-nand: no SPIR-V instruction and no expansion in its backend.
        // rule llvm.nvptx-old-no-expansion: NVPTX before 22 neither selects nor expands nand;
        // rule llvm.gpu-nand-by-cas: PTX and AMDGPU have no atomic nand, and llc expands it
        // into a CAS loop of its own.
        AtomicOp::Nand => triple == Triple::X86_64,
        AtomicOp::Add | AtomicOp::Sub if float => match triple {
            // SPV_EXT_shader_atomic_float_add covers f32/f64 add; bf16 has no extension.
            Triple::Spirv64 | Triple::SpirvVulkan => ty != ElemType::Bf16 && op == AtomicOp::Add,
            // x86 half/bfloat arithmetic before 22 is not selectable in every version.
            Triple::X86_64 => !small || target.major >= 22,
            // rules llvm.nvptx-f32-add-flushes-before-23, llvm.nvptx-f32-add-by-cas-from-23.
            Triple::Nvptx64 if ty == ElemType::F32 && op == AtomicOp::Add => {
                nvptx_f32_add_native(node)
            }
            // rule llvm.nvptx-old-no-expansion: no fsub before 22; rule llvm.nvptx-fsub-by-cas:
            // PTX has no float `atom.sub`, so llc 22 and 23 expand fsub into a CAS loop of
            // their own.
            Triple::Nvptx64 => op == AtomicOp::Add,
            // What the processor's llc selects (its row in `cpu`); fsub is always llc's loop.
            Triple::Amdgcn => op == AtomicOp::Add && amd_float_add_native(target, node, ty),
        },
        _ => true,
    }
}

/// NVPTX: whether atomir's f32 add (exact: it keeps subnormals) is printed as LLVM's own
/// `atomicrmw fadd float`: on shared memory only, where the instruction keeps subnormals. On
/// global and generic memory llc 14 to 22 select `atom.add.f32` at every scope and on every SM,
/// which flushes subnormals there (rule `llvm.nvptx-f32-add-flushes-before-23`), and llc 23
/// expands the `atomicrmw` into an exact CAS loop of its own (rule
/// `llvm.nvptx-f32-add-by-cas-from-23`): either way the add is atomir's CAS loop there.
fn nvptx_f32_add_native(node: &AtomicNode) -> bool {
    !matches!(node.space, AddressSpace::Global | AddressSpace::Generic)
}

/// AMDGPU: whether the processor's llc selects the hardware's float add for `ty` (f32, f64,
/// f16x2 or bf16x2) on the node's space, as measured per processor in `cpu`.
fn amd_float_add_native(target: &LlvmTarget, node: &AtomicNode, ty: ElemType) -> bool {
    target.cpu.is_some_and(|cpu| {
        cpu.amd_float_add_native(ty, node.space, target.major, target.coarse_grained)
    })
}

/// AMDGPU: whether an RMW on global or generic memory is one llc would expand into a cmpswap
/// loop because the memory may be fine-grained host memory or another device's memory over
/// PCIe (`+coarse-grained` promises neither): all but exch and integer add, at system scope
/// (rule llvm.amdgcn-system-scope-by-cas) and, from LLVM 20 on processors that do not emulate
/// system-scope atomics, at every scope (rule llvm.amdgcn-remote-memory-by-cas). The LLVM
/// matrix's check that a native verdict is no llc CAS loop found each of these.
pub(super) fn amd_rmw_expanded_for_host_or_peer_memory(
    target: &LlvmTarget,
    node: &AtomicNode,
) -> bool {
    let kept = match node.op {
        AtomicOp::Exch | AtomicOp::Cas => true,
        AtomicOp::Add => matches!(node.ty.class(), TypeClass::Unsigned | TypeClass::Signed),
        _ => false,
    };
    let expanded_at_this_scope = node.scope == Scope::System
        || target
            .cpu
            .is_some_and(|cpu| cpu.expands_rmw_that_may_be_remote(target.major));
    target.triple == Triple::Amdgcn
        && !target.coarse_grained
        && expanded_at_this_scope
        && matches!(node.space, AddressSpace::Global | AddressSpace::Generic)
        && !kept
}

/// `atomicrmw fadd <2 x half>` (a packed element) printed as one instruction (AMDGPU, where
/// the processor's llc selects it; NVPTX's llc expands it into a CAS loop of its own).
fn packed_rmw_native(target: &LlvmTarget) -> bool {
    // rule llvm.fp-vector-rmw-needs-19: llvm-as 16 rejects FP vector atomicrmw, 19 accepts it.
    target.major >= 19 && target.triple == Triple::Amdgcn
}

/// Whether a whole vector node is one `atomicrmw` on an LLVM FP vector.
pub(super) fn vector_rmw_native(target: &LlvmTarget, node: &AtomicNode) -> bool {
    let bits = node.ty.bits() * node.shape.len() as u32;
    let fits = match target.triple {
        // <2 x half>/<2 x bfloat> (pk_add) where the processor's llc selects it; AMDGPU
        // rejects <4 x float>.
        Triple::Amdgcn => {
            let packed = match node.ty {
                ElemType::F16 => ElemType::F16x2,
                ElemType::Bf16 => ElemType::Bf16x2,
                other => other,
            };
            bits == 32
                && node.op == AtomicOp::Add
                && amd_float_add_native(target, node, packed)
                && !amd_rmw_expanded_for_host_or_peer_memory(target, node)
        }
        // NVPTX's llc expands it into one 32- or 64-bit CAS loop of its own (rule
        // llvm.nvptx-packed-half-add-by-cas): the vector is split, each element as its scalar
        // rules say.
        Triple::Nvptx64 | Triple::Spirv64 | Triple::X86_64 | Triple::SpirvVulkan => false,
    };
    fits && target.major >= 19
        && node.ty.class() == TypeClass::Float
        && matches!(node.op, AtomicOp::Add | AtomicOp::Sub)
}
