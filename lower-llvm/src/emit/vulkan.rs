//! The frame of a complete Vulkan module: each kernel is a compute entry point without
//! parameters, so every parameter becomes memory the entry point binds.
//!
//! - A `ptr.global` parameter is storage buffer binding `i` (its parameter index), viewed once
//!   per element type the kernel's atomics access through it. Views of one binding alias one
//!   buffer (Vulkan allows several variables on one binding); a view of each type keeps every
//!   access typed, as logical addressing requires (llc crashes on a pointer cast there).
//! - A `ptr.shared` parameter is one Workgroup variable of the type its atomics access. Two
//!   variables would be two memories, so the table refuses an access of a shared parameter as
//!   a second type (`llvm.vulkan-shared-one-type`), and the frame never sees one.
//! - A data parameter is loaded from binding `i`; a predicate is a 32-bit word there, true
//!   where it is not zero.
//! - Each used result is stored to binding `parameters + k`, `k` its instruction's index.
//!
//! The names made up here start with `.` (as every name the printer makes up does):
//! `%.h<binding>.<type>` a buffer handle, `%.a<binding>.<type>` its element 0,
//! `%.w<binding>` a predicate's word, `@.k<kernel>.s<value>.<type>` a Workgroup variable,
//! `@.k<kernel>.n<binding>.<type>` a binding's name.

use std::collections::BTreeSet;

use atomir_ir::lower::{Spell, Unprintable};
use atomir_ir::{spell, AddressSpace, Kernel, ValueType};

use super::types::access_scal;
use super::{write_ident, Emitter, Scal};
use crate::target::STORAGE_BUFFER;

/// The StorageBuffer storage class number in a `spirv.VulkanBuffer` type.
const STORAGE_BUFFER_CLASS: u32 = 12;

/// What a Vulkan module needs declared once, after its kernels.
#[derive(Default)]
pub(crate) struct Frame {
    /// The element types of the buffers bound anywhere in the module.
    buffer_types: BTreeSet<ScalKey>,
    /// Module-level definitions: binding names and Workgroup variables.
    globals: String,
    /// A binding's name, spelled before it is printed (twice, after its length).
    tag: String,
}

/// A [`Scal`] ordered for the set of declarations.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct ScalKey(u8, u32);

impl ScalKey {
    fn of(scal: Scal) -> ScalKey {
        match scal {
            Scal::I(bits) => ScalKey(0, bits),
            Scal::Half => ScalKey(1, 16),
            Scal::BFloat => ScalKey(2, 16),
            Scal::F32 => ScalKey(3, 32),
            Scal::F64 => ScalKey(4, 64),
        }
    }

    fn scal(self) -> Scal {
        match self {
            ScalKey(0, bits) => Scal::I(bits),
            ScalKey(1, _) => Scal::Half,
            ScalKey(2, _) => Scal::BFloat,
            ScalKey(3, _) => Scal::F32,
            _ => Scal::F64,
        }
    }
}

/// The type's part of an intrinsic's mangled name.
struct Mangled(Scal);

impl Spell for Mangled {
    fn spell(&self, out: &mut String) {
        match self.0 {
            Scal::I(bits) => spell!(out, 'i', bits),
            Scal::Half => out.push_str("f16"),
            Scal::BFloat => out.push_str("bf16"),
            Scal::F32 => out.push_str("f32"),
            Scal::F64 => out.push_str("f64"),
        }
    }
}

/// The type of a storage buffer of elements of a scalar type.
struct BufferType(Scal);

impl Spell for BufferType {
    fn spell(&self, out: &mut String) {
        spell!(
            out,
            "target(\"spirv.VulkanBuffer\", [0 x ",
            self.0,
            "], ",
            STORAGE_BUFFER_CLASS,
            ", 1)"
        );
    }
}

/// The resource intrinsic that addresses an element of a buffer of a scalar type, as a call and
/// its declaration spell it: its result type and name, and its first argument's type.
struct GetPointer(Scal);

impl Spell for GetPointer {
    fn spell(&self, out: &mut String) {
        spell!(
            out,
            "ptr addrspace(",
            STORAGE_BUFFER,
            ") @llvm.spv.resource.getpointer.p",
            STORAGE_BUFFER,
            '.',
            IntrinsicSuffix(self.0),
            '(',
            BufferType(self.0)
        );
    }
}

/// The suffix of the resource intrinsics of a buffer of elements of a scalar type.
struct IntrinsicSuffix(Scal);

impl Spell for IntrinsicSuffix {
    fn spell(&self, out: &mut String) {
        spell!(
            out,
            "tspirv.VulkanBuffer_a0",
            Mangled(self.0),
            '_',
            STORAGE_BUFFER_CLASS,
            "_1t"
        );
    }
}

/// The element types each parameter is accessed as, by parameter index.
fn accessed_types(kernel: &Kernel) -> Vec<BTreeSet<ScalKey>> {
    let mut types = vec![BTreeSet::new(); kernel.params.len()];
    for inst in kernel.insts.values() {
        let Some(atomic) = inst.as_atomic() else {
            continue;
        };
        if let Some(index) = kernel.params.iter().position(|p| p.value == atomic.addr) {
            types[index].insert(ScalKey::of(access_scal(atomic.ty)));
        }
    }
    types
}

impl Frame {
    /// Declares binding `binding` viewed as `scal` and prints its element-0 pointer.
    fn bind(&mut self, out: &mut String, kernel_index: usize, binding: usize, scal: Scal) {
        self.buffer_types.insert(ScalKey::of(scal));
        let tag = &mut self.tag;
        tag.clear();
        spell!(tag, 'k', kernel_index, ".n", binding, '.', Mangled(scal));
        let tag = &*tag;
        let bytes = tag.len() + 1;
        spell!(
            &mut self.globals,
            "@.",
            tag,
            " = private unnamed_addr constant [",
            bytes,
            " x i8] c\"",
            tag,
            "\\00\", align 1\n"
        );
        let (ty, suffix) = (BufferType(scal), IntrinsicSuffix(scal));
        spell!(
            out,
            "  %.h",
            binding,
            '.',
            scal,
            " = call ",
            ty,
            " @llvm.spv.resource.handlefrombinding.",
            suffix,
            "(i32 0, i32 ",
            binding,
            ", i32 1, i32 0, ptr @.",
            tag,
            ")\n"
        );
        spell!(
            out,
            "  %.a",
            binding,
            '.',
            scal,
            " = call ",
            GetPointer(scal),
            " %.h",
            binding,
            '.',
            scal,
            ", i32 0)\n"
        );
    }

    /// Opens kernel `index` as an entry point and binds its parameters. Returns why the frame
    /// cannot express the kernel, if it cannot (one shared parameter accessed as two types).
    pub(crate) fn kernel_begin(
        &mut self,
        em: &Emitter<'_>,
        name: &str,
        index: usize,
        out: &mut String,
    ) -> Option<Unprintable> {
        let kernel = em.kernel;
        out.push_str("define void ");
        write_ident(out, '@', name);
        out.push_str("() #0 {\n.entry:\n");
        let mut unprintable = None;
        let types = accessed_types(kernel);
        for (binding, (param, types)) in kernel.params.iter().zip(&types).enumerate() {
            match param.ty {
                ValueType::Ptr(AddressSpace::Shared) => {
                    if types.len() > 1 {
                        let mut message = String::from("shared parameter ");
                        write_ident(&mut message, '%', em.name(param.value));
                        message.push_str(
                            " is accessed as more than one type; a Vulkan Workgroup variable \
                             has one type, and a second variable would be other memory",
                        );
                        unprintable = Some(Unprintable(message));
                    }
                    for key in types {
                        let scal = key.scal();
                        spell!(
                            &mut self.globals,
                            "@.k",
                            index,
                            ".s",
                            param.value.as_u32(),
                            '.',
                            scal,
                            " = internal addrspace(3) global ",
                            scal,
                            " poison, align ",
                            scal_bytes(scal),
                            '\n'
                        );
                    }
                }
                ValueType::Ptr(_) => {
                    for key in types {
                        self.bind(out, index, binding, key.scal());
                    }
                }
                ValueType::Pred => {
                    self.bind(out, index, binding, Scal::I(32));
                    spell!(
                        out,
                        "  %.w",
                        binding,
                        " = load i32, ptr addrspace(",
                        STORAGE_BUFFER,
                        ") %.a",
                        binding,
                        ".i32, align 4\n"
                    );
                    out.push_str("  ");
                    write_ident(out, '%', em.name(param.value));
                    spell!(out, " = icmp ne i32 %.w", binding, ", 0\n");
                }
                ValueType::Data(elem, _) => {
                    let scal = Scal::natural(elem);
                    self.bind(out, index, binding, scal);
                    out.push_str("  ");
                    write_ident(out, '%', em.name(param.value));
                    let element = BoundElement(binding, scal);
                    spell!(out, " = load ", scal, ", ", element, '\n');
                }
            }
        }
        unprintable
    }

    /// Stores each used result to its own binding and closes the entry point.
    pub(crate) fn kernel_end(&mut self, em: &Emitter<'_>, index: usize, out: &mut String) {
        let kernel = em.kernel;
        for (position, inst) in kernel.insts.values().enumerate() {
            let Some((inst, value)) = inst
                .as_atomic()
                .and_then(|inst| inst.result.map(|value| (inst, value)))
            else {
                continue;
            };
            let scal = Scal::natural(inst.ty);
            let binding = kernel.params.len() + position;
            self.bind(out, index, binding, scal);
            let r = em.value_ref(value);
            let element = BoundElement(binding, scal);
            spell!(out, "  store ", scal, ' ', em.show(r), ", ", element, '\n');
        }
        out.push_str("  ret void\n}\n\n");
    }

    /// The declarations, binding names and Workgroup variables, and the entry-point attributes.
    pub(crate) fn module_end(&self, out: &mut String) {
        for key in &self.buffer_types {
            let scal = key.scal();
            let (ty, suffix) = (BufferType(scal), IntrinsicSuffix(scal));
            spell!(
                out,
                "declare ",
                ty,
                " @llvm.spv.resource.handlefrombinding.",
                suffix,
                "(i32, i32, i32, i32, ptr)\n"
            );
            spell!(out, "declare ", GetPointer(scal), ", i32)\n");
        }
        out.push('\n');
        out.push_str(&self.globals);
        out.push_str(
            "\nattributes #0 = { \"hlsl.numthreads\"=\"1,1,1\" \"hlsl.shader\"=\"compute\" }\n",
        );
    }
}

/// Element 0 of binding `.0` viewed as `.1`, as an access through it takes it:
/// `ptr addrspace(<storage buffer>) %.a<binding>.<type>, align <bytes>`.
struct BoundElement(usize, Scal);

impl Spell for BoundElement {
    fn spell(&self, out: &mut String) {
        let BoundElement(binding, scal) = *self;
        spell!(
            out,
            "ptr addrspace(",
            STORAGE_BUFFER,
            ") %.a",
            binding,
            '.',
            scal,
            ", align ",
            scal_bytes(scal)
        );
    }
}

const fn scal_bytes(scal: Scal) -> u32 {
    match scal {
        Scal::I(bits) => bits.div_ceil(8),
        Scal::Half | Scal::BFloat => 2,
        Scal::F32 => 4,
        Scal::F64 => 8,
    }
}
