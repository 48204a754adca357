//! atomir: atomic read-modify-write instructions as a vendor-neutral IR, and their lowering to
//! NVIDIA PTX, Intel vISA and LLVM IR.
//!
//! This crate is the one entry point a client needs: the IR (re-exported from `atomir-ir`), and
//! the registry of every target the backends know, as a typed [`Target`]. A target name is
//! `<backend>:<spec>`: `ptx:sm_90@8.8`, `visa:PVC+svm`, `llvm:nvptx64@22`.
//!
//! Ask a target about one atomic node (no kernel needed), find every target that accepts it,
//! and lower a module:
//!
//! # Entry points
//!
//! 1. Build a [`Kernel`] in code (or parse the text form with [`text::parse`]).
//! 2. [`verify::verify`] it: the [`Verified`] module it returns is what every lowering takes,
//!    so no unverified kernel reaches a printer. Nothing in this API panics on a kernel built
//!    in code; a malformed one is a list of diagnostics.
//! 3. Ask a [`Target`] about a node ([`Target::legalize`], no kernel needed; the size of its
//!    code, [`Target::instructions`]; a refusal's smallest target as a [`Target`],
//!    [`Target::smallest_accepting`]), or find every target that accepts it
//!    ([`supported_targets`]).
//! 4. Lower: the whole module ([`Target::lower`], [`Target::lower_into`]), stopping at the
//!    first refusal or, with [`OnRefusal::Skip`], lowering what is accepted and reporting the
//!    rest ([`LowerReport::refusals`]); or one answer per instruction
//!    ([`Target::lower_each`]).
//! 5. Or splice: lower one instruction at a time as a fragment for the inside of a kernel or
//!    function of your own ([`Target::splice`]), its values bound to your registers or SSA
//!    values ([`SpliceNames`]); the [`Fragment`] lists the temporaries to declare and where the
//!    result is. The [`splice`] module states the contract and the naming conventions. A
//!    compiler that builds its IR through its own builders takes the expansion's control-flow
//!    graph instead ([`ir::expand`], below).
//!
//! 6. Or read PTX: [`read_ptx`] finds every atomic, ordered load and store and fence of a PTX
//!    module and gives each as the atomir node it means ([`ReadAtomic`]: where it stands, the
//!    node, the registers bound to its values, its source line); [`read_ptx_instruction`] reads
//!    one instruction for a translator with a parser of its own. Both return errors, never
//!    panic. [`ReadAtomic::module`] is the one-instruction module to lower or splice.
//!
//! ```
//! use atomir::{read_ptx_instruction, AtomicOp, ElemType, Node, PtxDeclarations, Scope};
//!
//! let read = read_ptx_instruction(
//!     "atom.global.add.f32 %f1, [%rd1], %f2;",
//!     &PtxDeclarations::new(),
//! )?;
//! let Node::Atomic(node) = read.node else { unreachable!() };
//! assert_eq!((node.op, node.ty, node.scope), (AtomicOp::Add, ElemType::F32, Scope::Device));
//! assert_eq!(read.values.result, ["%f1"]);
//! # Ok::<(), atomir::ReadError>(())
//! ```
//!
//! 7. Or read LLVM IR: [`llvm::read`] reads the atomics of a `.ll` module; [`fix`] replaces
//!    each by a target's lowering for one llc; [`audit`] checks a compiler's PTX against the IR
//!    it was made from, atomic by atomic.
//!
//! ## PTX
//!
//! ```
//! use atomir::{
//!     supported_targets, verify, AddressSpace, AtomicInst, AtomicNode, AtomicOp, ElemType,
//!     Fence, FloatLaxity, Kernel, LowerOptions, MemoryOrder, Module, Scope, Target, ValueType,
//! };
//!
//! let target: Target = "ptx:sm_90".parse()?;
//! assert_eq!(target.to_string(), "ptx:sm_90@8.8");
//!
//! // An acquire f32 add with its old value used, whose subnormals may flush (the exact add
//! // is a CAS loop where PTX's native add flushes them).
//! let mut node = AtomicNode::new(AtomicOp::Add, ElemType::F32);
//! node.order = MemoryOrder::Acquire;
//! node.space = AddressSpace::Global;
//! node.pointer_space = AddressSpace::Global;
//! node.result_used = true;
//! node.laxity = Some(FloatLaxity::MayFlushSubnormals);
//! let legality = target.legalize(&node).expect("sm_90 adds f32 natively, flushing");
//! println!("{:?}", legality.lowering);
//! assert_eq!(target.instructions(&node)?, 1); // one `atom`
//!
//! // Every target that accepts it, PTX, vISA and LLVM alike.
//! let accepting = supported_targets(&node);
//! assert!(accepting.contains(&target));
//!
//! // A fence is asked the same way (a Vulkan shader has none).
//! let fence = Fence { order: MemoryOrder::SeqCst, scope: Scope::Device };
//! assert!(target.legalize(&fence).is_ok());
//! assert!(!supported_targets(&fence).contains(&"llvm:spirv-vulkan".parse()?));
//!
//! // A kernel built in code, verified, lowered for one target.
//! let mut kernel = Kernel::new("histogram");
//! let bins = kernel.add_param("bins", ValueType::Ptr(AddressSpace::Global));
//! let x = kernel.add_param("x", ValueType::scalar(ElemType::F32));
//! let mut add = AtomicInst::new(AtomicOp::Add, ElemType::F32, bins, x.into());
//! add.space = AddressSpace::Global;
//! add.laxity = Some(FloatLaxity::MayFlushSubnormals);
//! kernel.push(add, None);
//! let module = Module { kernels: vec![kernel] };
//! let verified = verify::verify(&module).expect("the kernel is well formed");
//! let mut ptx = String::new();
//! target.lower(&verified, &LowerOptions::fragment(), &mut ptx)?;
//! assert!(ptx.contains("red.relaxed.gpu.global.add.f32"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Intel vISA
//!
//! A u8 add, which no vISA message does natively: the target widens it to a masked CAS loop
//! on its 32-bit word.
//!
//! ```
//! use atomir::{
//!     verify, AddressSpace, AtomicInst, AtomicOp, ElemType, ElementLowering, Kernel, Lowering,
//!     LowerOptions, Module, Target, ValueType,
//! };
//!
//! let target: Target = "visa:PVC".parse()?;
//! let mut kernel = Kernel::new("bytes");
//! let p = kernel.add_param("p", ValueType::Ptr(AddressSpace::Global));
//! let one = kernel.constant(1);
//! let mut add = AtomicInst::new(AtomicOp::Add, ElemType::U8, p, one.into());
//! add.space = AddressSpace::Global;
//! let inst = kernel.push(add, Some("old"));
//! let module = Module { kernels: vec![kernel] };
//! let verified = verify::verify(&module).expect("the kernel is well formed");
//!
//! use atomir::Backend;
//! let legality = target.legalize_inst(&verified.kernels[0], inst)?;
//! assert_eq!(legality.lowering, Lowering::whole(ElementLowering::MaskedCasLoop));
//! let mut visa = String::new();
//! let report = target.lower(&verified, &LowerOptions::module(), &mut visa)?;
//! assert_eq!(report.len(), 1);
//! assert!(visa.contains(".kernel \"bytes\""));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## LLVM IR
//!
//! A kernel with an atomic the target refuses: lowering stops at it by default; with
//! [`OnRefusal::Skip`] the rest is lowered and the refusal reported, with its rule and the
//! smallest target of the backend that would accept it.
//!
//! ```
//! use atomir::{
//!     verify, AddressSpace, AtomicInst, AtomicOp, ElemType, Kernel, LowerOptions, Module,
//!     OnRefusal, Refused, Target, ValueType,
//! };
//!
//! let target: Target = "llvm:nvptx64@14".parse()?;
//! let mut kernel = Kernel::new("mixed");
//! let p = kernel.add_param("p", ValueType::Ptr(AddressSpace::Global));
//! let x = kernel.add_param("x", ValueType::scalar(ElemType::U32));
//! let h = kernel.add_param("h", ValueType::scalar(ElemType::Bf16x2));
//! let global = |inst: AtomicInst| AtomicInst { space: AddressSpace::Global, ..inst };
//! kernel.push(global(AtomicInst::new(AtomicOp::Add, ElemType::U32, p, x.into())), Some("a"));
//! kernel.push(global(AtomicInst::new(AtomicOp::Add, ElemType::Bf16x2, p, h.into())), None);
//! let module = Module { kernels: vec![kernel] };
//! let verified = verify::verify(&module).expect("the kernel is well formed");
//!
//! let mut llvm = String::new();
//! let stopped = target.lower(&verified, &LowerOptions::module(), &mut llvm);
//! assert!(stopped.is_err() && llvm.is_empty());
//!
//! let options = LowerOptions::module().with_on_refusal(OnRefusal::Skip);
//! let report = target.lower(&verified, &options, &mut llvm)?;
//! assert!(llvm.contains("atomicrmw add"));
//! let refusal = &report.refusals()[0].refusal;
//! // The smallest target that accepts it, as a `Target` to lower for next.
//! let smallest: Option<Target> = refusal.smallest_target();
//! assert!(smallest.is_some_and(|target| target.backend_name() == "llvm"));
//! println!("{} (rule {}), accepted from {smallest:?}", refusal.reason, refusal.rule);
//!
//! // One answer per instruction: code, or the refusal.
//! let each = target.lower_each(&verified, &LowerOptions::fragment());
//! assert!(each[0].result.is_ok() && each[1].result.is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Splicing into your own code
//!
//! ## PTX: into a kernel of your own
//!
//! Two u8 adds (each a masked CAS loop on its word, with labels and temporaries) spliced into
//! one hand-written kernel: each fragment has its own prefix, so nothing clashes; you declare
//! what [`Fragment::temps`] lists.
//!
//! ```
//! use atomir::{
//!     verify, AddressSpace, AtomicInst, AtomicOp, ElemType, Fragment, Kernel, Module,
//!     SpliceNames, Target, ValueType,
//! };
//!
//! let mut kernel = Kernel::new("bytes");
//! let p = kernel.add_param("p", ValueType::Ptr(AddressSpace::Global));
//! let b = kernel.add_param("b", ValueType::scalar(ElemType::U8));
//! let mut add = AtomicInst::new(AtomicOp::Add, ElemType::U8, p, b.into());
//! add.space = AddressSpace::Global;
//! let first = kernel.push(add, Some("old"));
//! let second = kernel.push(add, None);
//! let module = Module { kernels: vec![kernel] };
//! let verified = verify::verify(&module).expect("the kernel is well formed");
//! let old = module.kernels[0].atomic(first).and_then(|a| a.result).unwrap();
//!
//! // My registers: %ptr, %byte, %prev; the target says their types.
//! let target: Target = "ptx:sm_70".parse()?;
//! let types = target.binding_types(&verified, 0, first)?;
//! assert_eq!(types.get(b).unwrap().splice.ty, ".b16"); // 8-bit data live in 16-bit registers
//! let mut names = SpliceNames::default();
//! let (mut decls, mut body) = (String::new(), String::new());
//! let mut fragment = Fragment::default();
//! for (number, inst) in [first, second].into_iter().enumerate() {
//!     // Bind exactly the values of the instruction spliced: `second` has no result.
//!     names.clear();
//!     names.bind(p, "ptr").bind(b, "byte");
//!     if inst == first {
//!         names.bind(old, "prev");
//!     }
//!     names.set_numbered("a", number as u32)?;
//!     target.splice(&verified, 0, inst, &names, &mut fragment)?;
//!     for temp in &fragment.temps {
//!         decls.push_str(&format!("\t.reg {} %{};\n", temp.ty, temp.name));
//!     }
//!     body.push_str(&fragment.code);
//! }
//! assert!(body.contains("$a0_b1:") && body.contains("$a1_b1:"));
//! assert!(body.contains("mov.b16 %prev, "));
//! let ptx = format!(
//!     ".version 8.8\n.target sm_70\n.address_size 64\n\
//!      .visible .entry mine(.param .u64 mine_p, .param .u8 mine_b)\n{{\n\
//!      \t.reg .b64 %ptr;\n\t.reg .b16 %byte, %prev;\n{decls}\
//!      \tld.param.u64 %ptr, [mine_p];\n\tld.param.u8 %byte, [mine_b];\n{body}\tret;\n}}\n"
//! );
//! # let _ = ptx;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## LLVM IR: into a function of your own
//!
//! You name the block the fragment starts in and the one it continues to; the fragment's
//! blocks and values carry its prefix, and it defines the result under the name you bound.
//!
//! ```
//! use atomir::{
//!     verify, AddressSpace, AtomicInst, AtomicOp, ElemType, Fragment, Kernel, Module,
//!     SpliceNames, Target, ValueType,
//! };
//!
//! let mut kernel = Kernel::new("k");
//! let p = kernel.add_param("p", ValueType::Ptr(AddressSpace::Global));
//! let x = kernel.add_param("x", ValueType::scalar(ElemType::U32));
//! let mut max = AtomicInst::new(AtomicOp::Max, ElemType::U32, p, x.into());
//! max.space = AddressSpace::Global;
//! let inst = kernel.push(max, Some("old"));
//! let module = Module { kernels: vec![kernel] };
//! let verified = verify::verify(&module).expect("the kernel is well formed");
//! let old = module.kernels[0].atomic(inst).and_then(|a| a.result).unwrap();
//!
//! let mut names = SpliceNames::new("m_")?.with_blocks("entry", "rest");
//! names.bind(p, "slot").bind(x, "value").bind(old, "before");
//! let mut fragment = Fragment::default();
//! let target: Target = "llvm:x86_64".parse()?;
//! target.splice(&verified, 0, inst, &names, &mut fragment)?;
//! let function = format!(
//!     "define i32 @mine(ptr %slot, i32 %value) {{\nentry:\n{}rest:\n  ret i32 %before\n}}\n",
//!     fragment.code
//! );
//! assert!(fragment.code.starts_with("  br label %m_b0\n"));
//! assert!(fragment.code.contains("%before = phi i32"));
//! assert!(fragment.code.ends_with("br label %rest\n"));
//! assert!(fragment.temps.is_empty() && fragment.results[0].bound);
//! # let _ = function;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Intel vISA: into a kernel of your own
//!
//! Your variables are declared as the target keeps values: one element per SIMD channel
//! (`ud` for data of 32 bits or less and shared pointers, `uq` for 64-bit data and global
//! pointers). The fragment's declarations include views (`alias=<…>`) of your variables,
//! which go after the variables they alias. On `visa:PVC`, GenX_IR gives a SIMD16 LSC message
//! the registers of SIMD32: a variable of yours wider than one register that a message writes
//! or addresses (a `uq` result, a global pointer) needs twice its size declared (`num_elts=32`),
//! or GenX_IR may crash where it allocates it in the last registers; the fragment's own
//! temporaries are declared so already.
//!
//! ```
//! use atomir::{
//!     verify, AddressSpace, AtomicInst, AtomicOp, ElemType, Fragment, Kernel, Module,
//!     SpliceNames, Target, ValueType,
//! };
//!
//! let mut kernel = Kernel::new("k");
//! let p = kernel.add_param("p", ValueType::Ptr(AddressSpace::Global));
//! let x = kernel.add_param("x", ValueType::scalar(ElemType::U32));
//! let mut add = AtomicInst::new(AtomicOp::Add, ElemType::U32, p, x.into());
//! add.space = AddressSpace::Global;
//! let inst = kernel.push(add, None);
//! let module = Module { kernels: vec![kernel] };
//! let verified = verify::verify(&module).expect("the kernel is well formed");
//!
//! let mut names = SpliceNames::new("f0_")?;
//! names.bind(p, "addr").bind(x, "amount");
//! let mut fragment = Fragment::default();
//! let target: Target = "visa:PVC".parse()?;
//! target.splice(&verified, 0, inst, &names, &mut fragment)?;
//! assert!(fragment.code.contains("flat[addr]:a64 amount"));
//! for temp in &fragment.temps {
//!     println!(".decl {} {}", temp.name, temp.ty);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Through your own IR builder: the expansion's control-flow graph
//!
//! A compiler that builds IR with its own builders (an LLVM `IRBuilder`, cranelift's
//! `FunctionBuilder`) takes no text: it asks the target how a node is carried out and, for
//! a node that is not native, builds the shared expansion itself: a small CFG of typed
//! primitives whose blocks take parameters (phis), its inputs and results named.
//!
//! ```
//! use atomir::ir::expand::{expand, Prim, Terminator};
//! use atomir::{AddressSpace, AtomicNode, AtomicOp, ElemType, ElementLowering, Lowering, Target};
//!
//! let mut node = AtomicNode::new(AtomicOp::Add, ElemType::U8);
//! node.space = AddressSpace::Global;
//! node.pointer_space = AddressSpace::Global;
//! node.result_used = true;
//! let target: Target = "visa:PVC".parse()?;
//! let legality = target.legalize(&node)?;
//! assert_eq!(legality.lowering, Lowering::whole(ElementLowering::MaskedCasLoop));
//!
//! let expansion = expand(&node, legality.lowering);
//! // Bind `expansion.addr` and `expansion.operands` to your values, make one block of yours
//! // per block (its `params` become phis), translate each primitive, then each terminator.
//! let mut cas = 0;
//! for (block, data) in &expansion.blocks {
//!     for prim in &data.prims {
//!         if let Prim::Cas { .. } = prim {
//!             cas += 1;
//!         }
//!     }
//!     match &data.terminator {
//!         Terminator::Jump(edge) => println!("{block:?} -> {:?}", edge.block),
//!         Terminator::Branch { then, otherwise, .. } => {
//!             println!("{block:?} -> {:?} | {:?}", then.block, otherwise.block)
//!         }
//!         Terminator::Return => println!("{block:?}: old value in {:?}", expansion.results),
//!     }
//! }
//! assert_eq!(cas, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//!
//! - `semantics` (default): forwarded to `atomir-ir`. It compiles the reference semantics'
//!   evaluators ([`ir::semantics::apply`], the float functions) and the interpreter of
//!   expansions ([`ir::interp`]), which a client uses to check a lowering against the
//!   definition of every op; they need the `half` crate (and its derive dependencies). A
//!   client that only builds, verifies, legalizes and lowers sets `default-features = false`:
//!   everything above still works, and `half` is not compiled.

#![warn(missing_docs)]

pub mod audit;
pub mod fix;
mod node_code;
mod splicing;
mod target;

pub use atomir_ir as ir;
pub use atomir_ir::lower::splice;
pub use atomir_ir::lower::{
    Binding, BindingTypes, Fragment, FragmentResult, FragmentTemp, SpliceNameError, SpliceNames,
    SpliceType, ValueBinding, ValueRole,
};
pub use atomir_ir::verify::Verified;
pub use atomir_ir::{
    text, verify, AddressSpace, AsNode, AtomicInst, AtomicNode, AtomicOp, Backend, CacheHint,
    Constant, Diagnostic, ElemType, ElementLowering, Fence, FloatLaxity, Inst, InstData,
    InvalidLowering, Kernel, Legality, LowerError, LowerOptions, LowerReport, Lowering,
    MemoryOrder, Module, Node, Operand, Param, Predicate, Refusal, Rewrite, RuleId, Scalar, Scope,
    Site, SourceLoc, Split, Strategy, TargetId, TypeClass, Value, ValueData, ValueDef, ValueType,
    VectorList, VectorShape, Verdict, WarpCombine, WriteError,
};
pub use atomir_ir::{GenericParams, InstLowering, KernelTag, OnRefusal, ParseTargetError};
/// The id maps and small vectors that appear in the IR's public types.
pub use cranelift_entity::{EntityRef, PrimaryMap, SecondaryMap};
pub use node_code::{node_kernel, supported_targets};
pub use smallvec::SmallVec;
pub use splicing::Refused;
pub use target::{targets_help, Target};
/// The backends, for their native forms, plans and rule ids.
pub use {atomir_llvm as llvm, atomir_ptx as ptx, atomir_visa as visa};

/// The LLVM IR reader: a module's atomics ([`read_llvm`]) as atomir nodes, with where they
/// stand and the bytes of their values; [`fix`] and [`audit`] are built on it.
pub use atomir_llvm::read::{
    read as read_llvm, LlAtomic, LlModule, ReadOptions as LlvmReadOptions, Reading as LlvmReading,
};
pub use atomir_llvm::{LlvmTarget, Triple};
/// The PTX reader: a module's atomics ([`read_ptx`]) or one instruction
/// ([`read_ptx_instruction`]) as atomir nodes, with where they stand and the registers bound
/// to their values.
pub use atomir_ptx::read::{
    read_instruction as read_ptx_instruction, read_module as read_ptx, Bindings as PtxBindings,
    Declarations as PtxDeclarations, PtxAddress, PtxScalar, ReadAtomic, ReadError, ReadModule,
    RegisterType as PtxRegisterType,
};
pub use atomir_ptx::{PtxIsa, PtxTarget, Sm};
pub use atomir_visa::{Messages, Platform, VisaTarget};

#[cfg(test)]
mod tests {
    use super::*;

    /// A module of two kernels whose code is several times the streaming chunk, with results
    /// read (expansions) and not.
    fn long_module() -> Module {
        let mut source = String::from("kernel long(%p: ptr.global, %q: ptr.global) {\n");
        for index in 0..1500 {
            source.push_str("  atomic.add.relaxed.device.global.u32 [%p], 1\n");
            source.push_str(&format!(
                "  %old{index} = atomic.max.acq_rel.device.global.u32 [%q], 7\n"
            ));
        }
        source.push_str("}\nkernel short(%p: ptr.global) {\n");
        source.push_str("  atomic.add.relaxed.device.global.u32 [%p], 1\n}\n");
        text::parse(&source).expect("the module parses")
    }

    #[test]
    fn lowering_into_a_writer_writes_what_lowering_into_a_string_builds() {
        let module = long_module();
        let module = verify::verify(&module).expect("the module verifies");
        let mut compared = 0;
        for target in Target::all() {
            for complete_module in [false, true] {
                let options = LowerOptions::fragment().with_complete_module(complete_module);
                let mut whole = String::new();
                let built = target.lower(&module, &options, &mut whole);
                let mut written = Vec::new();
                let streamed = target.lower_into(&module, &options, &mut written);
                match (built, streamed) {
                    (Ok(_), Ok(_)) => {
                        assert!(
                            whole.as_bytes() == written.as_slice(),
                            "{target} (module {complete_module}): the streamed code differs"
                        );
                        assert!(whole.len() > ir::lower::CHUNK, "{target}: code too short");
                        compared += 1;
                    }
                    (Err(built), Err(WriteError::Lower(streamed))) => {
                        assert_eq!(built, streamed, "{target}");
                        assert!(written.is_empty(), "{target}: a refusal wrote code");
                    }
                    (built, streamed) => {
                        panic!("{target}: into a string {built:?}, into a writer {streamed:?}")
                    }
                }
            }
        }
        assert!(compared > 0, "every target refused the module");
    }

    #[test]
    fn a_writer_that_fails_is_reported() {
        struct Broken;
        impl std::io::Write for Broken {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("gone"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let target: Target = "ptx:sm_90".parse().unwrap();
        let options = LowerOptions::fragment();
        let module = long_module();
        let module = verify::verify(&module).expect("the module verifies");
        match target.lower_into(&module, &options, &mut Broken) {
            Err(WriteError::Io(error)) => assert_eq!(error.to_string(), "gone"),
            other => panic!("a failing writer gave {other:?}"),
        }
    }

    #[test]
    fn every_target_prints_a_name_that_parses_back_to_it() {
        let all = Target::all();
        for target in &all {
            let name = target.to_string();
            assert_eq!(name.parse::<Target>().as_ref(), Ok(target), "{name}");
            assert!(name.starts_with(&format!("{}:", target.backend_name())));
        }
        let mut names: Vec<String> = all.iter().map(Target::to_string).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), all.len(), "a target listed twice");
    }

    #[test]
    fn the_registry_knows_every_backends_targets() {
        let all = Target::all();
        for name in [
            "ptx:sm_60@5.0",
            "ptx:sm_90a@9.1",
            "ptx:sm_90@8.8+packed-half-add",
            "ptx:sm_60@6.2+packed-half-add",
            "ptx:sm_70@8.8+reassociate-float-add",
            "ptx:sm_90@8.8+plain-loops",
            "ptx:sm_120",
            "visa:TGLLP",
            "visa:PVC+svm",
            "llvm:amdgcn@15+coarse-grained",
            "llvm:x86_64@14",
            "llvm:spirv64",
        ] {
            let target: Target = name.parse().unwrap();
            assert!(all.contains(&target), "{name}");
        }
        // Every table's candidates (where a refusal's smallest target is searched) are listed.
        let node = AtomicNode::new(AtomicOp::Add, ElemType::U32);
        for target in &all {
            if let Err(refusal) = target.legalize(&node) {
                if let Some(smallest) = &refusal.smallest_target {
                    let typed = refusal.smallest_target();
                    assert!(typed.is_some_and(|t| all.contains(&t)), "{smallest}");
                    // The typed target and the refusal's text name the same target.
                    assert_eq!(typed.unwrap().to_string(), smallest.name());
                }
            }
        }
    }

    #[test]
    fn bad_names_say_what_is_expected() {
        let error = "spirv:1.5".parse::<Target>().unwrap_err().to_string();
        assert!(error.contains("unknown backend `spirv`"), "{error}");
        assert!(error.contains("ptx, visa, llvm"), "{error}");
        let error = "sm_90".parse::<Target>().unwrap_err().to_string();
        assert!(error.contains("expected `<backend>:<target>`"), "{error}");
        let error = "ptx:sm_91".parse::<Target>().unwrap_err().to_string();
        assert!(error.contains("unknown PTX architecture"), "{error}");
    }

    #[test]
    fn supported_targets_are_exactly_those_that_accept() {
        let mut node = AtomicNode::new(AtomicOp::Exch, ElemType::B128);
        node.space = AddressSpace::Global;
        node.pointer_space = AddressSpace::Global;
        let accepting = supported_targets(&node);
        for target in Target::all() {
            assert_eq!(
                accepting.contains(&target),
                target.legalize(&node).is_ok(),
                "{target}"
            );
        }
    }
}
