//! Prints atomic loads, stores and stand-alone fences as their plan says: LLVM's own
//! `load atomic`, `store atomic` and `fence`, or (SPIR-V) calls of the builtins that print the
//! real instructions with explicit semantics. A vector node is one access per element.

use atomir_ir::lower::{FenceBracket, Spell};
use atomir_ir::{spell, AddressSpace, AtomicInst, AtomicOp, MemoryOrder, Scope};

use super::native::{self, Mem};
use super::{Emitter, Ref, Scal, Ty};
use crate::legal::{LlvmPlan, MemSpelling};

/// The declarations of the builtins a lowering calls, printed once each after the last kernel.
#[derive(Default)]
pub(crate) struct Builtins {
    declared: Vec<String>,
    /// The declaration being checked, reused so that a call allocates nothing once declared.
    scratch: String,
}

impl Builtins {
    /// Declares the builtin whose declaration `spell_declaration` spells.
    fn declare(&mut self, spell_declaration: impl FnOnce(&mut String)) {
        self.scratch.clear();
        spell_declaration(&mut self.scratch);
        self.scratch.push('\n');
        if !self.declared.contains(&self.scratch) {
            self.declared.push(self.scratch.clone());
        }
    }

    /// The declarations of every builtin called, one a line, and forgets them.
    pub(crate) fn take(&mut self) -> std::vec::Drain<'_, String> {
        self.declared.drain(..)
    }

    /// Prints the declarations of every builtin called.
    pub(crate) fn print(&self, out: &mut String) {
        for declaration in &self.declared {
            out.push_str(declaration);
        }
    }
}

/// An atomic load or store of `inst`, element by element; returns the loaded value.
pub(crate) fn load_store(
    em: &mut Emitter<'_>,
    out: &mut String,
    inst: &AtomicInst,
    plan: &LlvmPlan,
    bracket: FenceBracket,
    spelling: MemSpelling,
    builtins: &mut Builtins,
) -> Option<Ref> {
    let space = em.target.address_space(inst.space).unwrap_or(0);
    let base = em.node_addr(out, inst, space);
    let scal = Scal::natural(inst.ty);
    let bytes = inst.ty.bits() / 8;
    let len = inst.shape.len() as u32;
    let mem = Mem::of(em, bracket, plan, inst.space);
    let raw = em.raw_ptr(space);
    let mut loaded: Option<Ref> = None;
    for index in 0..len {
        let addr = if index == 0 {
            base
        } else {
            let dst = em.fresh();
            spell!(
                out,
                "  ",
                em.show(dst),
                " = getelementptr i8, ",
                raw,
                ' ',
                em.show(base),
                ", i64 ",
                index * bytes,
                '\n'
            );
            dst
        };
        let access = Access {
            addr,
            scal,
            bytes,
            mem: &mem,
            scope: plan.scope,
            space: inst.space,
        };
        if inst.op == AtomicOp::Store {
            let Some(operand) = inst.operand else {
                continue;
            };
            let value = em.operand_element(out, operand, index as usize, scal);
            match spelling {
                MemSpelling::Instruction => {
                    instruction(em, out, &access, Some(value));
                }
                MemSpelling::SpirvBuiltin => {
                    spirv_builtin(em, out, &access, Some(value), builtins);
                }
            }
            continue;
        }
        let element = match spelling {
            MemSpelling::Instruction => instruction(em, out, &access, None),
            MemSpelling::SpirvBuiltin => spirv_builtin(em, out, &access, None, builtins),
        };
        let Some(element) = element else {
            continue;
        };
        loaded = Some(if inst.shape.is_vector() {
            let vector = Ty::V(len, scal);
            em.insert_element(out, vector, loaded, scal, element, index as usize)
        } else {
            element
        });
    }
    loaded
}

/// One element's access.
struct Access<'m> {
    addr: Ref,
    scal: Scal,
    bytes: u32,
    mem: &'m Mem,
    scope: Scope,
    space: AddressSpace,
}

/// `load atomic` (no `value`; returns the loaded value) or `store atomic` of `value`, between
/// the fences of its bracket.
fn instruction(
    em: &mut Emitter<'_>,
    out: &mut String,
    access: &Access<'_>,
    value: Option<Ref>,
) -> Option<Ref> {
    let (ptr, ptr_ty) = native::typed_addr(em, out, access.addr, access.mem.space, 1, access.scal);
    native::fence(out, access.mem, access.mem.bracket.leading);
    let scal = access.scal;
    let loaded = match value {
        Some(value) => {
            spell!(out, "  store atomic ", scal, ' ', em.show(value), ", ");
            None
        }
        None => {
            let dst = em.fresh();
            spell!(out, "  ", em.show(dst), " = load atomic ", scal, ", ");
            Some(dst)
        }
    };
    spell!(out, ptr_ty, ' ', em.show(ptr));
    native::write_syncscope(out, access.mem.syncscope);
    spell!(
        out,
        ' ',
        native::ordering(access.mem.bracket.order),
        ", align ",
        access.bytes,
        '\n'
    );
    native::fence(out, access.mem, access.mem.bracket.trailing);
    loaded
}

/// The Itanium mangling of a builtin's scalar argument type (OpenCL C's names for them).
const fn mangled(scal: Scal) -> &'static str {
    match scal {
        Scal::I(8) => "c",
        Scal::I(16) => "s",
        Scal::I(64) => "l",
        Scal::I(_) => "i",
        Scal::Half => "Dh",
        Scal::BFloat => "DF16b",
        Scal::F32 => "f",
        Scal::F64 => "d",
    }
}

/// SPIR-V's Scope operand.
const fn spirv_scope(scope: Scope) -> u32 {
    match scope {
        Scope::System => 0,
        Scope::Cluster | Scope::Device => 1,
        Scope::Block => 2,
    }
}

/// SPIR-V's memory-order bits of a Memory Semantics operand.
const fn spirv_order(order: MemoryOrder) -> u32 {
    match order {
        MemoryOrder::Relaxed => 0,
        MemoryOrder::Acquire => 0x2,
        MemoryOrder::Release => 0x4,
        MemoryOrder::AcqRel => 0x8,
        MemoryOrder::SeqCst => 0x10,
    }
}

/// SPIR-V's storage-class bits for the memory an address may name: WorkgroupMemory for
/// shared, CrossWorkgroupMemory for global, both for a generic address.
const fn spirv_storage(space: AddressSpace) -> u32 {
    const WORKGROUP: u32 = 0x100;
    const CROSS_WORKGROUP: u32 = 0x200;
    match space {
        AddressSpace::Shared | AddressSpace::SharedCluster => WORKGROUP,
        AddressSpace::Global => CROSS_WORKGROUP,
        AddressSpace::Generic => WORKGROUP | CROSS_WORKGROUP,
    }
}

/// The mangled name of the load or store builtin of a scalar type in an address space.
struct BuiltinName {
    store: bool,
    space: u32,
    ty: Scal,
}

impl Spell for BuiltinName {
    fn spell(&self, out: &mut String) {
        let (space, code) = (self.space, mangled(self.ty));
        if self.store {
            spell!(out, "_Z19__spirv_AtomicStorePU3AS", space, code, "ii", code);
        } else {
            spell!(out, "_Z18__spirv_AtomicLoadPU3AS", space, code, "ii");
        }
    }
}

/// The SPIR-V builtin's load (no `value`; returns the loaded value) or store of `value`, with
/// the order, scope and storage class as explicit operands.
fn spirv_builtin(
    em: &mut Emitter<'_>,
    out: &mut String,
    access: &Access<'_>,
    value: Option<Ref>,
    builtins: &mut Builtins,
) -> Option<Ref> {
    let (space, ty) = (access.mem.space, access.scal);
    let name = BuiltinName {
        store: value.is_some(),
        space,
        ty,
    };
    builtins.declare(|out| {
        match value {
            Some(_) => spell!(out, "declare spir_func void @"),
            None => spell!(out, "declare spir_func ", ty, " @"),
        }
        spell!(out, name, "(ptr addrspace(", space, "), i32, i32");
        if value.is_some() {
            spell!(out, ", ", ty);
        }
        out.push(')');
    });
    let loaded = match value {
        Some(_) => {
            spell!(out, "  call spir_func void @");
            None
        }
        None => {
            let dst = em.fresh();
            spell!(out, "  ", em.show(dst), " = call spir_func ", ty, " @");
            Some(dst)
        }
    };
    spell!(
        out,
        name,
        "(ptr addrspace(",
        space,
        ") ",
        em.show(access.addr),
        ", i32 ",
        spirv_scope(access.scope),
        ", i32 ",
        spirv_order(access.mem.bracket.order) | spirv_storage(access.space)
    );
    if let Some(value) = value {
        spell!(out, ", ", ty, ' ', em.show(value));
    }
    out.push_str(")\n");
    loaded
}

/// A stand-alone fence of `order` at the plan's scope.
pub(crate) fn fence(
    em: &Emitter<'_>,
    out: &mut String,
    order: MemoryOrder,
    plan: &LlvmPlan,
    spelling: MemSpelling,
    builtins: &mut Builtins,
) {
    match spelling {
        MemSpelling::Instruction => {
            out.push_str("  fence");
            native::write_syncscope(out, em.target.syncscope_name(plan.scope));
            spell!(out, ' ', native::ordering(order), '\n');
        }
        MemSpelling::SpirvBuiltin => {
            const NAME: &str = "_Z21__spirv_MemoryBarrierjj";
            builtins.declare(|out| spell!(out, "declare spir_func void @", NAME, "(i32, i32)"));
            // A fence orders every storage class a kernel's atomics may touch.
            let semantics = spirv_order(order) | spirv_storage(AddressSpace::Generic);
            spell!(
                out,
                "  call spir_func void @",
                NAME,
                "(i32 ",
                spirv_scope(plan.scope),
                ", i32 ",
                semantics,
                ")\n"
            );
        }
    }
}
