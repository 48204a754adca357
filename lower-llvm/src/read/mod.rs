//! A reader of the atomics of textual LLVM IR (`.ll`), LLVM 14 to 23, without LLVM's libraries.
//!
//! [`read`] finds every `atomicrmw`, `cmpxchg`, `load atomic`, `store atomic` and `fence` of a
//! module and reads each into an [`LlAtomic`]: its op, element type and shape, memory order
//! (and a cmpxchg's failure order), sync scope and address space read per the module's
//! `target triple` through the same tables the printer spells them with
//! ([`crate::spelling`]), alignment, `volatile`, `weak`, `elementwise` and the AMDGPU metadata
//! atomir knows. Everything else is left alone: an [`LlAtomic`] records the bytes it spans, so
//! a client rewrites those and copies the rest byte for byte. An atomic the reader cannot read
//! (a type, scope or address space atomir has no node for, a malformed instruction) is a
//! [`Diagnostic`] at its line and column, never a guess; [`to_module`] turns what was read into
//! atomir kernels, one per function.
//!
//! `fmin`/`fmax` (`llvm.minnum`/`maxnum`) read as `min`/`max` of laxity
//! [`FloatLaxity::Ieee2008MinMax`], which allows what they allow (any NaN for two NaNs or a
//! signalling one, either zero for -0 and +0), and print back as `fmin`/`fmax`.
//!
//! Where LLVM's meaning and the node's differ, the node is the stronger and [`LlAtomic`] says
//! so: a vector `atomicrmw`
//! without `elementwise` is one access of the whole vector ([`LlAccess::whole_vector`]; the
//! node is atomic per element, except `<2 x half>`/`<2 x bfloat>`, which read as the packed
//! `f16x2`/`bf16x2` word), AMDGPU's `-one-as` scopes order one address space
//! ([`SyncScope::one_address_space`]; the node orders all), and a cmpxchg's node order is its
//! success order joined with its failure order.
//!
//! ```
//! use atomir_ir::{AddressSpace, AtomicOp, ElemType, MemoryOrder, Scope};
//! use atomir_llvm::read::{read, ReadOptions};
//!
//! let source = r#"target triple = "amdgcn-amd-amdhsa"
//! define amdgpu_kernel void @k(ptr addrspace(1) %p, float %x) {
//!   %old = atomicrmw fadd ptr addrspace(1) %p, float %x syncscope("agent-one-as") monotonic, align 4, !amdgpu.no.fine.grained.memory !0
//!   ret void
//! }
//! !0 = !{}
//! "#;
//! let reading = read(source, &ReadOptions::default());
//! assert!(reading.diagnostics.is_empty());
//! let add = &reading.module.atomics[0];
//! let node = add.node().unwrap();
//! assert_eq!((node.op, node.ty, node.order), (AtomicOp::Add, ElemType::F32, MemoryOrder::Relaxed));
//! assert_eq!((node.scope, node.space), (Scope::Device, AddressSpace::Global));
//! assert!(add.scope.one_address_space);
//! assert!(add.access.as_ref().unwrap().metadata.no_fine_grained_memory);
//! assert_eq!(&source[add.span.clone()], &source.lines().nth(2).unwrap()[2..]);
//! ```

mod inst;
mod kernels;
mod lex;
mod scan;

use std::ops::Range;

use atomir_ir::{
    AddressSpace, AtomicNode, AtomicOp, Diagnostic, ElemType, Fence, FloatLaxity, MemoryOrder,
    SourceLoc, VectorShape,
};

pub use crate::spelling::SyncScope;
use crate::target::Triple;
pub use kernels::{atomic_module, to_module, ReadKernels, ReadParam};
pub use scan::read;

/// How to read a module.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// The triple to read sync scopes and address spaces by where the module has no
    /// `target triple` (LLVM's own tests give it on llc's command line instead).
    pub triple: Option<Triple>,
}

/// What [`read`] found: the module's atomics and the diagnostics of those it could not read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reading {
    /// The atomics read, and the functions they are in.
    pub module: LlModule,
    /// One per atomic that could not be read (that atomic is not in the module's list).
    pub diagnostics: Vec<Diagnostic>,
}

/// The atomics of a module, in source order, and its functions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LlModule {
    /// The triple its sync scopes and address spaces were read by.
    pub triple: Option<Triple>,
    /// Every function defined in the module, in source order.
    pub functions: Vec<LlFunction>,
    /// Every atomic read, in source order.
    pub atomics: Vec<LlAtomic>,
}

/// A function definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LlFunction {
    /// Its name, without `@` (a quoted name with its quotes, as written).
    pub name: String,
    /// Where its `define` is.
    pub loc: SourceLoc,
    /// The bytes of its body, from the line after its `{` to the start of its `}` line.
    pub body: Range<usize>,
    /// How a branch names its entry block: its label, or the number LLVM gives an unlabelled
    /// one (the count of numbered parameters).
    pub entry_block: String,
}

/// What an atomic instruction is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LlKind {
    /// `atomicrmw <op>`, as the atomir op it reads as.
    Rmw(AtomicOp),
    /// `cmpxchg` (atomir's `cas`).
    Cmpxchg,
    /// `load atomic`.
    Load,
    /// `store atomic`.
    Store,
    /// `fence`.
    Fence,
}

/// An LLVM first-class type as the reader knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LlType {
    /// `iN`.
    Int(u32),
    /// `half`.
    Half,
    /// `bfloat`.
    BFloat,
    /// `float`.
    Float,
    /// `double`.
    Double,
    /// `<N x T>`.
    Vector(u32, Box<LlType>),
    /// `ptr addrspace(N)`, or (LLVM 14) `T addrspace(N)*` with its pointee.
    Ptr {
        /// The numbered address space.
        space: u32,
        /// The pointee of a typed pointer.
        pointee: Option<Box<LlType>>,
    },
}

/// The AMDGPU metadata attachments atomir reads on an atomic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AmdgpuMetadata {
    /// `!amdgpu.no.fine.grained.memory`: the address is not fine-grained (host-coherent) memory.
    pub no_fine_grained_memory: bool,
    /// `!amdgpu.no.remote.memory`: the address is not memory of another device over PCIe.
    pub no_remote_memory: bool,
    /// `!amdgpu.ignore.denormal.mode`: a float add may flush subnormals.
    pub ignore_denormal_mode: bool,
}

/// The memory access of an atomic other than a fence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LlAccess {
    /// The atomir element type (integers by the op's signedness: `min` reads signed, `umin`
    /// and `add` unsigned, `xchg`, `cmpxchg`, loads and stores as bits).
    pub ty: ElemType,
    /// Scalar or vector.
    pub shape: VectorShape,
    /// The atomir space of the pointer's address space.
    pub space: AddressSpace,
    /// The pointer's numbered address space.
    pub address_space: u32,
    /// The type of the value in memory.
    pub value_type: LlType,
    /// The pointer's type.
    pub pointer_type: LlType,
    /// The bytes of the pointer value (a name, or a constant expression).
    pub pointer: Range<usize>,
    /// The bytes of each value operand: an RMW's or store's value, a cmpxchg's expected and
    /// new value.
    pub operands: Vec<Range<usize>>,
    /// `align N`, if written.
    pub align: Option<u32>,
    /// `volatile`.
    pub volatile: bool,
    /// `cmpxchg weak`: may fail spuriously (atomir's cas never does, a valid refinement).
    pub weak: bool,
    /// A vector access that LLVM makes atomic as a whole (no `elementwise`); the node is
    /// atomic per element.
    pub whole_vector: bool,
    /// The looser float results its keyword allows (`fmin`/`fmax`: IEEE 754-2008 minNum/
    /// maxNum), which the node carries.
    pub laxity: Option<FloatLaxity>,
    /// The AMDGPU metadata attached.
    pub metadata: AmdgpuMetadata,
}

/// One atomic instruction of the module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LlAtomic {
    /// Its function, an index into [`LlModule::functions`].
    pub function: usize,
    /// How a branch names the block it is in (see [`LlFunction::entry_block`]).
    pub block: String,
    /// Where it starts: its result's name, or its keyword.
    pub loc: SourceLoc,
    /// The bytes of the instruction, from its result's name (or keyword) to its last token
    /// (its comment not included).
    pub span: Range<usize>,
    /// The bytes of its result's name (`%old`), if it has one.
    pub result: Option<Range<usize>>,
    /// Whether the function reads the result.
    pub result_used: bool,
    /// What it is.
    pub kind: LlKind,
    /// The order (a cmpxchg's success order).
    pub order: MemoryOrder,
    /// A cmpxchg's failure order.
    pub failure_order: Option<MemoryOrder>,
    /// The sync scope.
    pub scope: SyncScope,
    /// The memory access (none for a fence).
    pub access: Option<LlAccess>,
}

/// The order of a cmpxchg node: the success order with the acquire (or seq_cst) of the failure
/// order added, so that the node gives every guarantee either gives.
pub const fn joined_order(success: MemoryOrder, failure: MemoryOrder) -> MemoryOrder {
    if matches!(success, MemoryOrder::SeqCst) || matches!(failure, MemoryOrder::SeqCst) {
        return MemoryOrder::SeqCst;
    }
    match (
        success.has_acquire() || failure.has_acquire(),
        success.has_release(),
    ) {
        (true, true) => MemoryOrder::AcqRel,
        (true, false) => MemoryOrder::Acquire,
        (false, true) => MemoryOrder::Release,
        (false, false) => MemoryOrder::Relaxed,
    }
}

impl LlAtomic {
    /// The node's order: [`LlAtomic::order`], joined with a cmpxchg's failure order.
    pub fn node_order(&self) -> MemoryOrder {
        match self.failure_order {
            Some(failure) => joined_order(self.order, failure),
            None => self.order,
        }
    }

    /// The atomic node of an access (`None` for a fence): what atomir's tables judge.
    pub fn node(&self) -> Option<AtomicNode> {
        let access = self.access.as_ref()?;
        let mut node = AtomicNode::new(inst::op_of(self.kind), access.ty);
        node.shape = access.shape;
        node.order = self.node_order();
        node.scope = self.scope.scope;
        node.space = access.space;
        node.pointer_space = access.space;
        node.laxity = access.laxity;
        node.result_used = match self.kind {
            LlKind::Store => false,
            LlKind::Load => true,
            _ => self.result_used,
        };
        Some(node)
    }

    /// The fence, if this is one.
    pub fn fence(&self) -> Option<Fence> {
        (self.kind == LlKind::Fence).then_some(Fence {
            order: self.order,
            scope: self.scope.scope,
        })
    }
}

/// The type as LLVM spells it (`ptr addrspace(1)`, `i32 addrspace(1)*`, `<2 x half>`).
impl std::fmt::Display for LlType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LlType::Int(bits) => write!(f, "i{bits}"),
            LlType::Half => f.write_str("half"),
            LlType::BFloat => f.write_str("bfloat"),
            LlType::Float => f.write_str("float"),
            LlType::Double => f.write_str("double"),
            LlType::Vector(len, lane) => write!(f, "<{len} x {lane}>"),
            LlType::Ptr { space, pointee } => {
                match pointee {
                    Some(pointee) => write!(f, "{pointee}")?,
                    None => f.write_str("ptr")?,
                }
                if *space != 0 {
                    write!(f, " addrspace({space})")?;
                }
                if pointee.is_some() {
                    f.write_str("*")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests;
