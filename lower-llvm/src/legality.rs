//! The LLVM legality table: the one place that decides, per node and target, whether it is
//! printed as one native `atomicrmw`/`cmpxchg`, through the shared expansions, or refused.
//!
//! Every refusal and every non-obvious emulation names a rule id (`llvm.*`). The printer follows
//! the [`Plan`] it is given and decides nothing itself, so `legalize` and `lower` cannot disagree.
//!
//! Measured facts behind the rules (llc of each version, see `tests/tests/llvm_matrix.rs`):
//! - NVPTX's llc (22 and older) drops the order and scope of a plain `atomicrmw` (it always emits
//!   `atom.relaxed.gpu`), while `cmpxchg` and `fence syncscope(…)` keep theirs (22). Before 22 the
//!   NVPTX backend cannot select a fence at all and drops the order of `cmpxchg` as well.
//! - The SPIR-V backend has no CAS expansion of its own; only ops with a SPIR-V instruction are
//!   left to it.
//! - `atomicrmw fmin/fmax` mean `llvm.minnum/maxnum`, whose order of -0.0 and +0.0 LangRef has
//!   left unspecified; atomir's min/max order -0.0 < +0.0, so float min/max is our own CAS loop.

use atomir_ir::{
    AddressSpace, AtomicInst, AtomicOp, ElemType, ElementLowering, Emulation, Legality,
    MemoryOrder, Refusal, Rewrite, Scope, TypeClass,
};

use crate::target::{LlvmTarget, Triple};

/// How the printer emits a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    /// Through [`atomir_ir::expand::expand`] with this emulation. A natively lowered scalar node
    /// is a one-element split whose element is native: one `atomicrmw` or `cmpxchg`.
    Expand(Emulation),
    /// One `atomicrmw` on an LLVM floating-point vector (`<2 x half>`, `<2 x float>`).
    VectorRmw,
}

/// The legality table's full answer: the verdict, and what the printer needs to honour it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub legality: Legality,
    pub form: Form,
    /// The scope printed (equal to the node's, or a wider one recorded as a rewrite).
    pub scope: Scope,
    /// Whether each `atomicrmw` is printed monotonic between fences that carry the node's order
    /// (NVPTX, whose llc drops the order of a plain `atomicrmw`).
    pub fenced_rmw: bool,
}

/// The node's element lowering before any vector handling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element {
    Native,
    CasLoop,
    PartWord { needs_loop: bool },
}

/// Decides the plan for one node.
/// The atomic node of `data`, or a refusal for the nodes this table does not cover yet: fences,
/// loads, stores and the RMW ops that came with them.
pub(crate) fn supported_node(data: &atomir_ir::InstData) -> Result<&AtomicInst, Refusal> {
    use AtomicOp::*;
    match data {
        atomir_ir::InstData::Atomic(inst)
            if !matches!(
                inst.op,
                Load | Store | UsubCond | UsubSat | FMinimum | FMaximum | FMinimumNum | FMaximumNum
            ) =>
        {
            Ok(inst)
        }
        _ => Err(Refusal::new(
            "llvm.unsupported-node",
            "the LLVM backend does not lower this node yet (fences, loads, stores, usub_cond, \
             usub_sat, fminimum, fmaximum, fminimumnum, fmaximumnum)",
        )),
    }
}

pub(crate) fn plan(target: &LlvmTarget, inst: &AtomicInst) -> Result<Plan, Refusal> {
    check_target_wide(target, inst)?;
    let mut legality = Legality::native();
    let scope = printed_scope(target, inst.scope, &mut legality);

    let element = element_lowering(target, inst)?;
    let vector_native = inst.shape.is_vector() && vector_rmw_native(target, inst);
    let form = if vector_native {
        Form::VectorRmw
    } else if inst.shape.is_vector() {
        Form::Expand(Emulation::Split {
            elements: inst.shape.len() as u32,
            element: element_as_split(element, inst.ty),
        })
    } else {
        match element {
            Element::Native => Form::Expand(Emulation::Split {
                elements: 1,
                element: ElementLowering::Native,
            }),
            Element::CasLoop => Form::Expand(Emulation::CasLoop {
                bits: inst.ty.bits(),
            }),
            Element::PartWord { needs_loop } => Form::Expand(Emulation::PartWord {
                element_bits: inst.ty.bits(),
                needs_loop,
            }),
        }
    };

    match form {
        Form::Expand(Emulation::Split { elements: 1, .. }) | Form::VectorRmw => {}
        Form::Expand(emulation) => legality.emulation = Some(emulation),
    }

    let uses_rmw = match form {
        Form::VectorRmw => true,
        Form::Expand(_) => match element {
            Element::Native => inst.op != AtomicOp::Cas,
            Element::PartWord { needs_loop } => !needs_loop,
            Element::CasLoop => false,
        },
    };
    let fenced_rmw = uses_rmw && target.triple == Triple::Nvptx64;
    if fenced_rmw && inst.order != MemoryOrder::Relaxed {
        legality.rewrites.push(Rewrite::OrderAsFences);
    }
    if fenced_rmw && inst.scope < Scope::Device {
        // NVPTX's atom for a plain atomicrmw runs at gpu scope: wider than asked, never narrower.
        legality.rewrites.push(Rewrite::ScopeWidened {
            from: inst.scope,
            to: Scope::Device,
        });
    }
    Ok(Plan {
        legality,
        form,
        scope,
        fenced_rmw,
    })
}

/// Rules that refuse a node whatever its op.
fn check_target_wide(target: &LlvmTarget, inst: &AtomicInst) -> Result<(), Refusal> {
    let spirv22 = "llvm:spirv64@22";
    let ptx22 = "llvm:nvptx64@22";
    if target.triple == Triple::Spirv64 && target.major < 22 {
        return Err(Refusal::new(
            "llvm.spirv-backend-needs-22",
            format!(
                "the llc of LLVM {} measured here has no spirv64 target (the SPIR-V backend is \
                 built by default in the LLVM 22 used here)",
                target.major
            ),
        )
        .accepted_by(spirv22));
    }
    if target.address_space(inst.space).is_none() {
        let rule = match target.triple {
            Triple::Amdgcn => "llvm.amdgcn-no-shared-cluster",
            _ => "llvm.spirv-no-shared-cluster",
        };
        return Err(Refusal::new(
            rule,
            format!(
                "{} has no address space for another block's shared memory (shared_cluster); \
                 widening it to generic would change which memory the address names",
                target.triple.name()
            ),
        )
        .accepted_by(ptx22));
    }
    if target.triple == Triple::Nvptx64 && target.major < 22 {
        if inst.space == AddressSpace::SharedCluster {
            return Err(Refusal::new(
                "llvm.nvptx-shared-cluster-needs-22",
                format!(
                    "the NVPTX backend of LLVM {} cannot select atomics on addrspace(7)",
                    target.major
                ),
            )
            .accepted_by(ptx22));
        }
        if inst.order != MemoryOrder::Relaxed {
            return Err(Refusal::new(
                "llvm.nvptx-ordered-needs-22",
                format!(
                    "the NVPTX backend of LLVM {} drops the order of atomicrmw and cmpxchg and \
                     cannot select a fence, so a {} order cannot survive llc",
                    target.major, inst.order
                ),
            )
            .accepted_by(ptx22));
        }
        if inst.scope == Scope::System {
            return Err(Refusal::new(
                "llvm.nvptx-system-scope-needs-22",
                format!(
                    "the NVPTX backend of LLVM {} emits every atomic at gpu scope, narrower \
                     than system",
                    target.major
                ),
            )
            .accepted_by(ptx22));
        }
    }
    let bf16_values =
        inst.ty == ElemType::Bf16 || (inst.ty == ElemType::Bf16x2 && !inst.op.is_move());
    if target.major < 15 && bf16_values {
        return Err(Refusal::new(
            "llvm.bf16-needs-15",
            "the backends of LLVM 14 can neither pass nor compute `bfloat` values",
        )
        .accepted_by(format!("llvm:{}@15", target.triple.name())));
    }
    let gpu = matches!(target.triple, Triple::Nvptx64 | Triple::Amdgcn);
    if gpu && target.major < 19 && bf16_values {
        // Measured: llc 15 and 16 cannot select `bfloat` parameters, conversions or arithmetic
        // on nvptx64 (sm_86/sm_90) and amdgcn (gfx90a/gfx940); 19 can. 17 and 18 are unmeasured.
        return Err(Refusal::new(
            "llvm.gpu-bf16-needs-19",
            format!(
                "the {} backend of LLVM {} cannot select `bfloat` values and arithmetic",
                target.triple.name(),
                target.major
            ),
        )
        .accepted_by(format!("llvm:{}@19", target.triple.name())));
    }
    if target.triple == Triple::Spirv64 && bf16_values {
        // Measured with llc 22: a `bfloat` value needs SPV_KHR_bfloat16 and any arithmetic on it
        // SPV_INTEL_bfloat16_arithmetic, a vendor extension a portable consumer may lack.
        return Err(Refusal::new(
            "llvm.spirv-no-bfloat16",
            "SPIR-V has bfloat16 values and arithmetic only through extensions \
             (SPV_KHR_bfloat16, SPV_INTEL_bfloat16_arithmetic) that a consumer may not support",
        )
        .accepted_by(ptx22));
    }
    if inst.ty == ElemType::B128 && !cas128_native(target) {
        return Err(Refusal::new(
            "llvm.no-128-bit-cas",
            format!(
                "{} at LLVM {} has no 128-bit atomic compare-and-swap",
                target.triple.name(),
                target.major
            ),
        )
        .accepted_by(ptx22));
    }
    Ok(())
}

/// The scope that is printed: the node's, or the narrowest wider one the triple names.
fn printed_scope(target: &LlvmTarget, scope: Scope, legality: &mut Legality) -> Scope {
    let printed = match (target.triple, scope) {
        // A CPU has one coherence domain: every GPU scope is the whole system.
        (Triple::X86_64, _) => Scope::System,
        (Triple::Spirv64, Scope::Cluster) => Scope::Device,
        (Triple::Amdgcn, Scope::Cluster) if target.major < 22 => Scope::Device,
        (_, scope) => scope,
    };
    if printed != scope {
        legality.rewrites.push(Rewrite::ScopeWidened {
            from: scope,
            to: printed,
        });
    }
    printed
}

fn cas128_native(target: &LlvmTarget) -> bool {
    match target.triple {
        // sm_90 with PTX 8.3+ has atom.cas.b128.
        Triple::Nvptx64 => target.major >= 22,
        // cmpxchg16b, or libatomic's __atomic_compare_exchange_16.
        Triple::X86_64 => true,
        Triple::Amdgcn | Triple::Spirv64 => false,
    }
}

/// How one element of the node is carried out (scalar rules).
fn element_lowering(target: &LlvmTarget, inst: &AtomicInst) -> Result<Element, Refusal> {
    let ty = inst.ty;
    let op = inst.op;
    let bits = ty.bits();
    let triple = target.triple;
    // Where the target's smallest CAS is 32 bits, 8/16-bit elements live inside a word.
    let small = bits < 32;
    let part_word_cas = Element::PartWord { needs_loop: true };
    let loop_for = |small: bool| {
        if small {
            part_word_cas
        } else {
            Element::CasLoop
        }
    };
    let small_native = triple == Triple::X86_64;

    // NVPTX system scope: only cmpxchg keeps `.sys`.
    if triple == Triple::Nvptx64 && inst.scope == Scope::System {
        return Ok(if op == AtomicOp::Cas && !small {
            Element::Native
        } else {
            loop_for(small)
        });
    }

    if op == AtomicOp::Cas {
        return Ok(if small && !small_native {
            part_word_cas
        } else {
            Element::Native
        });
    }
    if ty.is_packed() {
        return Ok(match op {
            AtomicOp::Exch => Element::Native,
            AtomicOp::Add | AtomicOp::Sub if packed_rmw_native(target) => Element::Native,
            _ => Element::CasLoop,
        });
    }
    let float = ty.class() == TypeClass::Float;
    if float && matches!(op, AtomicOp::Min | AtomicOp::Max) {
        // rule llvm.fminmax-signed-zero: atomicrmw fmin/fmax leave -0/+0 unordered.
        return Ok(loop_for(small && !small_native));
    }
    if small && !small_native {
        let native_small_float =
            float && matches!(op, AtomicOp::Add) && triple == Triple::Nvptx64 && target.major >= 22;
        let native_spirv_half =
            triple == Triple::Spirv64 && ty == ElemType::F16 && op == AtomicOp::Add;
        if native_small_float || native_spirv_half {
            return Ok(Element::Native);
        }
        return Ok(Element::PartWord {
            needs_loop: atomir_ir::expand::part_word_needs_loop(op),
        });
    }
    let old_nvptx = triple == Triple::Nvptx64 && target.major < 22;
    let native = match op {
        // rule llvm.no-uinc-wrap-before-16; SPIR-V has no bounded increment.
        // rule llvm.amdgcn-uinc-wrap-needs-19: llc 16 cannot select them on amdgcn (19 can;
        // 17 and 18 unmeasured), so the CAS loop it is.
        AtomicOp::Inc | AtomicOp::Dec => match triple {
            Triple::Spirv64 => false,
            Triple::Amdgcn => target.major >= 19,
            _ => target.major >= 16,
        },
        // rule llvm.spirv-no-nand: no SPIR-V instruction and no expansion in its backend.
        // rule llvm.nvptx-old-no-expansion: NVPTX before 22 neither selects nor expands nand.
        AtomicOp::Nand => triple != Triple::Spirv64 && !old_nvptx,
        AtomicOp::Add | AtomicOp::Sub if float => match triple {
            // SPV_EXT_shader_atomic_float_add covers f32/f64 add; bf16 has no extension.
            Triple::Spirv64 => ty != ElemType::Bf16 && op == AtomicOp::Add,
            // x86 half/bfloat arithmetic before 22 is not selectable in every version.
            Triple::X86_64 => !small || target.major >= 22,
            // rule llvm.nvptx-old-no-expansion: no fsub before 22.
            Triple::Nvptx64 if old_nvptx => op == AtomicOp::Add,
            _ => true,
        },
        _ => true,
    };
    Ok(if native {
        Element::Native
    } else {
        loop_for(small && !small_native)
    })
}

/// `atomicrmw fadd/fsub <2 x half>` (a packed element) printed as one instruction.
fn packed_rmw_native(target: &LlvmTarget) -> bool {
    // rule llvm.fp-vector-rmw-needs-19: llvm-as 16 rejects FP vector atomicrmw, 19 accepts it.
    target.major >= 19 && matches!(target.triple, Triple::Nvptx64 | Triple::Amdgcn)
}

/// Whether a whole vector node is one `atomicrmw` on an LLVM FP vector.
fn vector_rmw_native(target: &LlvmTarget, inst: &AtomicInst) -> bool {
    let bits = inst.ty.bits() * inst.shape.len() as u32;
    let fits = match target.triple {
        // <2 x half>/<2 x bfloat> (pk_add); AMDGPU rejects <4 x float>.
        Triple::Amdgcn => bits == 32,
        // llc expands it to one 32- or 64-bit CAS loop.
        Triple::Nvptx64 => bits <= 64 && inst.scope != Scope::System,
        Triple::Spirv64 | Triple::X86_64 => false,
    };
    fits && target.major >= 19
        && inst.ty.class() == TypeClass::Float
        && matches!(inst.op, AtomicOp::Add | AtomicOp::Sub)
}

fn element_as_split(element: Element, ty: ElemType) -> ElementLowering {
    match element {
        Element::Native => ElementLowering::Native,
        Element::CasLoop => ElementLowering::CasLoop { bits: ty.bits() },
        Element::PartWord { needs_loop } => ElementLowering::PartWord {
            element_bits: ty.bits(),
            needs_loop,
        },
    }
}
