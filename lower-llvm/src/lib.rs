//! atomir's LLVM IR backend: `atomicrmw` / `cmpxchg`, atomic `load`/`store` and `fence` for
//! nvptx64, amdgcn, spirv64 and x86_64 at a chosen LLVM major version, whose own `llvm-as`,
//! `opt` and `llc` must accept the output and keep its meaning.
//!
//! - [`target`]: target specs and the llc flags each assumes (registry rows); `triple` the
//!   triples, `cpu` the processors, [`spelling`] the per-triple spellings (orders, sync scopes,
//!   address spaces, `atomicrmw` keywords) that the printer writes and [`read`] reads back.
//! - `legal`: the legality table (rule ids `llvm.*`); it alone decides how a node is lowered,
//!   split by concern: `rmw`, `ld_st` (atomic loads and stores), `fence`, `candidates`,
//!   `element`, `vulkan`, `checks`, `rules`, `plan`.
//! - `emit`: the printer, whole (types, value spelling, the per-kernel emitter, the native
//!   instructions, the shared expansions, load/store printing, the Vulkan frame and the
//!   `Printer` itself), private: it is reached through [`Backend`](atomir_ir::Backend).
//! - [`read`]: the reader of LLVM IR's atomics.
//!
//! # Example
//!
//! The LLVM version and, on nvptx64 and amdgcn, the processor (llc's `-mcpu`) are part of the
//! target: a 128-bit compare-and-swap needs sm_90, so sm_80 refuses it and names the smallest
//! target that takes it; llc has a spirv64 backend only from 22 on, so an older spirv64 is no
//! target at all.
//!
//! ```
//! use atomir_ir::{
//!     AddressSpace, AtomicNode, AtomicOp, Backend, ElemType, ElementLowering, Lowering,
//! };
//! use atomir_llvm::LlvmTarget;
//!
//! let mut add = AtomicNode::new(AtomicOp::Add, ElemType::U32);
//! add.space = AddressSpace::Global;
//! let x86 = LlvmTarget::parse("x86_64")?;
//! assert_eq!(x86.target_name(), "llvm:x86_64@22");
//! assert_eq!(x86.legalize(&add).unwrap().lowering, Lowering::whole(ElementLowering::Native));
//!
//! let cas = AtomicNode::new(AtomicOp::Cas, ElemType::B128);
//! let sm80 = LlvmTarget::parse("nvptx64:sm_80@22")?;
//! assert_eq!(sm80.llc_args(), ["-march=nvptx64", "-mcpu=sm_80", "-mattr=+ptx87"]);
//! let refusal = sm80.legalize(&cas).unwrap_err();
//! assert_eq!(refusal.rule.id(), "llvm.no-128-bit-cas");
//! assert_eq!(refusal.smallest_target.as_ref().map(|t| t.name()), Some("llvm:nvptx64:sm_90@22"));
//! assert!(LlvmTarget::parse("spirv64@19").is_err());
//! # Ok::<(), atomir_ir::ParseTargetError>(())
//! ```

#![warn(missing_docs)]

mod cpu;
mod emit;
mod legal;
pub mod read;
pub mod spelling;
pub mod target;
mod triple;

use atomir_ir::expand::SoftFloatNeeds;
use atomir_ir::lower::{Passes, Table, Target};
use atomir_ir::{AtomicNode, ElemType, LowerOptions, Param, Refusal};

pub use emit::value_type_spelling;
use emit::LlvmPrinter;
pub use legal::{Form, LlvmPlan, MemSpelling};

pub use legal::LlvmRule;
pub use target::{Cpu, Knob, LlvmTarget, Triple};

/// Help text for this backend's target names, shown by `atomir lower --help`; the triples,
/// versions, options and triple-specific rules are read from the target and rule tables, so it
/// cannot disagree with what the target's `FromStr` accepts.
pub fn targets_help() -> String {
    use target::{Knob, DEFAULT_MAJOR, MAJORS, MIN_MAJOR};
    let mut text = String::from(
        "llvm:<triple>[:<cpu>][@<major>][+<option>]   LLVM IR for one triple and processor, \
         accepted by that LLVM version's tools\n",
    );
    let majors: Vec<String> = MAJORS.iter().map(u32::to_string).collect();
    wrapped(
        &mut text,
        "  major:    ",
        &format!(
            "{} (default {DEFAULT_MAJOR}): the versions whose llvm-as, opt and llc judge the \
             output; {MIN_MAJOR} prints typed pointers, the others opaque `ptr`",
            majors.join(", ")
        ),
    );
    wrapped(
        &mut text,
        "  cpu:      ",
        "llc's -mcpu, on nvptx64 and amdgcn; which atomics are native, and which scopes and \
         spaces exist, follow it",
    );
    text.push_str("  triples:\n");
    for triple in Triple::ALL {
        let lead = format!("    {} ({}): ", triple.name(), triple.triple_string());
        wrapped(&mut text, &lead, triple.note());
        wrapped(&mut text, "      ", &cpus_help(triple));
        let Some(prefix) = triple.rule_prefix() else {
            continue;
        };
        for rule in LlvmRule::ALL.iter().filter(|r| r.id().starts_with(prefix)) {
            wrapped(
                &mut text,
                &format!("      [{}] ", rule.id()),
                rule.summary(),
            );
        }
    }
    text.push_str("  options:\n");
    for knob in Knob::ALL {
        let lead = format!("    +{} ({} only): ", knob.name(), knob.triple().name());
        wrapped(&mut text, &lead, knob.help());
    }
    wrapped(
        &mut text,
        "  --module: ",
        "one kernel function per kernel (ptx_kernel / amdgpu_kernel / spir_kernel, a compute \
         entry point for spirv-vulkan) with a target triple; each used result is stored through \
         a trailing pointer parameter (a binding of its own for spirv-vulkan)",
    );
    text.truncate(text.trim_end().len());
    text
}

/// The processors of `triple` (with the version whose llc first knows each), its default, and
/// the llc flags its targets assume.
fn cpus_help(triple: Triple) -> String {
    use target::{DEFAULT_MAJOR, MAJORS};
    let cpus: Vec<String> = Cpu::ALL
        .iter()
        .filter(|cpu| cpu.triple() == triple)
        .map(|cpu| {
            let known: Vec<u32> = MAJORS.into_iter().filter(|m| cpu.known_at(*m)).collect();
            match (known.first(), known.last()) {
                (Some(&first), Some(&last)) if last < target::MAX_MAJOR => {
                    format!("{} (@{first}-{last})", cpu.name())
                }
                (Some(&first), _) if first > target::MIN_MAJOR => {
                    format!("{} (@{first}+)", cpu.name())
                }
                _ => cpu.name().to_string(),
            }
        })
        .collect();
    let flags = |major| LlvmTarget::new(triple, major).llc_args().join(" ");
    let mut text = String::new();
    if !cpus.is_empty() {
        let mut defaults: Vec<String> = Vec::new();
        for major in MAJORS {
            let name = Cpu::default_for(triple, major).map_or("", Cpu::name);
            match defaults.last_mut() {
                Some(last) if last.starts_with(name) && last.ends_with(' ') => {}
                _ => defaults.push(format!("{name} from @{major} ")),
            }
        }
        let defaults: Vec<&str> = defaults.iter().map(|d| d.trim_end()).collect();
        text.push_str(&format!(
            "cpus: {}; without one: {}. ",
            cpus.join(", "),
            defaults.join(", ")
        ));
    }
    let major = if triple.has_backend_at(target::MIN_MAJOR) {
        target::MIN_MAJOR
    } else {
        target::SPIRV_MIN_MAJOR
    };
    text.push_str(&format!(
        "llc flags assumed (the default target at @{DEFAULT_MAJOR}): `{}`",
        flags(DEFAULT_MAJOR)
    ));
    if triple == Triple::Nvptx64 {
        text.push_str(
            "; -mcpu names the target's cpu, and -mattr the newest PTX version of that llc \
             (+ptx75 at @14-15, +ptx78 at @16, +ptx85 at @19, +ptx87 from @22)",
        );
    } else if triple == Triple::Amdgcn {
        text.push_str("; -mcpu names the target's cpu");
    }
    if major > target::MIN_MAJOR {
        text.push_str(&format!("; from @{major} only (llc has no backend before)"));
    }
    text
}

/// Appends `lead` and `body`, its words wrapped before 96 columns onto lines indented by 8.
fn wrapped(text: &mut String, lead: &str, body: &str) {
    const WIDTH: usize = 96;
    const INDENT: &str = "        ";
    text.push_str(lead);
    let mut column = lead.len();
    let mut first = true;
    for word in body.split_whitespace() {
        if !first && column + 1 + word.len() > WIDTH {
            text.push('\n');
            text.push_str(INDENT);
            column = INDENT.len();
        } else if !first {
            text.push(' ');
            column += 1;
        }
        text.push_str(word);
        column += word.len();
        first = false;
    }
    text.push('\n');
}

impl Table for LlvmTarget {
    type Plan = LlvmPlan;

    fn name(&self) -> String {
        self.to_string()
    }

    fn plan(&self, node: &AtomicNode) -> Result<LlvmPlan, Refusal> {
        legal::plan(self, node)
    }

    fn beside(&self, node: &AtomicNode, earlier: ElemType) -> Result<(), Refusal> {
        legal::beside(self, node, earlier)
    }

    fn signature(&self, params: &[Param]) -> Result<(), (usize, Refusal)> {
        for (index, param) in params.iter().enumerate() {
            legal::param(self, param.ty).map_err(|refusal| (index, refusal))?;
        }
        Ok(())
    }

    fn plan_fence(&self, fence: &atomir_ir::Fence) -> Result<LlvmPlan, Refusal> {
        legal::fence_plan(self, fence)
    }

    fn candidates(&self) -> Vec<LlvmTarget> {
        legal::candidates(self)
    }

    /// Float min/max as integer compare and select on a total-order key: no LLVM intrinsic
    /// every version and triple lowers is exact on signed zeros and NaNs (`llvm.minnum` leaves
    /// the sign of a zero open, `llvm.minimumnum` is missing before LLVM 20).
    fn passes(&self) -> Passes {
        Passes {
            soft_float: SoftFloatNeeds {
                min_max: true,
                ..SoftFloatNeeds::default()
            },
            ..Passes::default()
        }
    }
}

impl Target for LlvmTarget {
    type Printer<'m> = LlvmPrinter<'m>;

    fn printer<'m>(&self, options: &LowerOptions) -> LlvmPrinter<'m> {
        LlvmPrinter::new(*self, options.complete_module)
    }

    /// One SSA value of the type the printer reads or defines, a vector whole.
    fn splice_type(&self, ty: atomir_ir::ValueType) -> atomir_ir::lower::SpliceType {
        atomir_ir::lower::SpliceType {
            names: 1,
            ty: emit::value_type_spelling(self, ty),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atomir_ir::matrix::all_cells;
    use atomir_ir::Backend;
    use atomir_ir::Module;

    /// NVPTX from LLVM 23 carries the order and scope on `atomicrmw` itself; 22 needs fences
    /// around a monotonic one and widens the scope.
    #[test]
    fn nvptx_23_keeps_the_order_on_atomicrmw() {
        use atomir_ir::matrix::Cell;
        use atomir_ir::{AddressSpace, AtomicOp, ElemType, MemoryOrder, Scope, VectorShape};
        let cell = Cell {
            op: AtomicOp::Add,
            ty: ElemType::U32,
            shape: VectorShape::Scalar,
            order: MemoryOrder::Acquire,
            scope: Scope::Block,
            space: AddressSpace::Global,
            result_used: true,
            laxity: None,
        };
        let module = Module {
            kernels: vec![cell.kernel()],
        };
        let lowered = |spec| {
            let mut out = String::new();
            LlvmTarget::parse(spec)
                .unwrap()
                .lower(
                    &atomir_ir::verify::verify(&module).unwrap(),
                    &LowerOptions::default(),
                    &mut out,
                )
                .unwrap();
            out
        };
        let at23 = lowered("nvptx64@23");
        assert!(at23.contains("syncscope(\"block\") acquire"), "{at23}");
        assert!(!at23.contains("fence"), "{at23}");
        let at22 = lowered("nvptx64@22");
        assert!(at22.contains("fence"), "{at22}");
    }

    fn vulkan_cell(
        order: atomir_ir::MemoryOrder,
        scope: atomir_ir::Scope,
    ) -> atomir_ir::matrix::Cell {
        use atomir_ir::{AddressSpace, AtomicOp, ElemType, VectorShape};
        atomir_ir::matrix::Cell {
            op: AtomicOp::Add,
            ty: ElemType::U32,
            shape: VectorShape::Scalar,
            order,
            scope,
            space: AddressSpace::Global,
            result_used: true,
            laxity: None,
        }
    }

    fn lowered(spec: &str, module: &Module) -> Result<String, atomir_ir::LowerError> {
        let mut out = String::new();
        let verified = atomir_ir::verify::verify(module).expect("the test's module verifies");
        LlvmTarget::parse(spec)
            .unwrap()
            .lower(&verified, &LowerOptions::module(), &mut out)
            .map(|_| out)
    }

    /// The Vulkan rules: seq_cst and system scope refused at every version, a non-relaxed order
    /// refused at 22, relaxed printed acquire at 23 (and monotonic at 22).
    #[test]
    fn vulkan_orders_and_scopes() {
        use atomir_ir::{MemoryOrder, Rewrite, Scope};
        let rule = |spec: &str, order, scope| {
            LlvmTarget::parse(spec)
                .unwrap()
                .legalize(&vulkan_cell(order, scope).node())
                .err()
                .map(|refusal| refusal.rule.id())
        };
        for spec in ["spirv-vulkan@22", "spirv-vulkan@23"] {
            let seq_cst = rule(spec, MemoryOrder::SeqCst, Scope::Device);
            assert_eq!(seq_cst, Some("llvm.vulkan-no-seq-cst"));
            let system = rule(spec, MemoryOrder::Relaxed, Scope::System);
            assert_eq!(system, Some("llvm.vulkan-no-system-scope"));
        }
        let acquire22 = rule("spirv-vulkan@22", MemoryOrder::Acquire, Scope::Device);
        assert_eq!(acquire22, Some("llvm.vulkan-ordered-needs-23"));
        assert_eq!(
            rule("spirv-vulkan@23", MemoryOrder::Acquire, Scope::Device),
            None
        );

        let module = Module {
            kernels: vec![vulkan_cell(MemoryOrder::Relaxed, Scope::Block).kernel()],
        };
        let at23 = lowered("spirv-vulkan@23", &module).unwrap();
        assert!(at23.contains("syncscope(\"workgroup\") acquire"), "{at23}");
        assert!(at23.contains("define void @"), "{at23}");
        assert!(at23.contains("\"hlsl.shader\"=\"compute\""), "{at23}");
        let legality = LlvmTarget::parse("spirv-vulkan@23")
            .unwrap()
            .legalize(&vulkan_cell(MemoryOrder::Relaxed, Scope::Block).node())
            .unwrap();
        assert!(legality.rewrites.contains(&Rewrite::OrderStrengthened {
            from: MemoryOrder::Relaxed,
            to: MemoryOrder::Acquire
        }));
        let at22 = lowered("spirv-vulkan@22", &module).unwrap();
        assert!(
            at22.contains("syncscope(\"workgroup\") monotonic"),
            "{at22}"
        );
    }

    /// One shared parameter accessed as two types would need two Workgroup variables, which
    /// are two memories: the table refuses the access of the second type (before the frame
    /// sees it, so the others are still lowered where refusals are skipped); one global buffer
    /// accessed as two types is two views of one binding.
    #[test]
    fn vulkan_frame_views_and_shared_types() {
        use atomir_ir::{AddressSpace, AtomicInst, AtomicOp, ElemType, MemoryOrder, ValueType};
        let kernel_through = |space: AddressSpace| {
            let mut kernel = atomir_ir::Kernel::new("k");
            let p = kernel.add_param("p", ValueType::Ptr(space));
            let x = kernel.add_param("x", ValueType::scalar(ElemType::U32));
            let f = kernel.add_param("f", ValueType::scalar(ElemType::F32));
            for (ty, operand) in [(ElemType::U32, x), (ElemType::F32, f)] {
                let mut inst = AtomicInst::new(AtomicOp::Add, ty, p, operand.into());
                inst.space = space;
                inst.order = MemoryOrder::Acquire;
                kernel.push(inst, None);
            }
            Module {
                kernels: vec![kernel],
            }
        };
        let global = lowered("spirv-vulkan@23", &kernel_through(AddressSpace::Global)).unwrap();
        assert!(global.contains("%.a0.i32 = call"), "{global}");
        assert!(global.contains("%.a0.float = call"), "{global}");
        let shared_module = kernel_through(AddressSpace::Shared);
        let shared = lowered("spirv-vulkan@23", &shared_module);
        let error = shared.expect_err("two Workgroup variables for one parameter");
        assert!(error.to_string().contains("Workgroup variable"), "{error}");
        assert_eq!(error.refusal.rule.id(), "llvm.vulkan-shared-one-type");
        let second = shared_module.kernels[0].insts.keys().nth(1).unwrap();
        assert_eq!(error.site, atomir_ir::Site::Inst(second), "{error}");
        assert!(error.refusal.smallest_target.is_some(), "{error}");
        let verified = atomir_ir::verify::verify(&shared_module).unwrap();
        let vulkan = LlvmTarget::parse("spirv-vulkan@23").unwrap();
        let mut out = String::new();
        let skipping = LowerOptions::module().with_on_refusal(atomir_ir::OnRefusal::Skip);
        let report = vulkan.lower(&verified, &skipping, &mut out).unwrap();
        assert_eq!(report.refusals().len(), 1, "{out}");
        assert!(out.contains("atomicrmw add ptr addrspace(3)"), "{out}");
        assert!(!out.contains("fadd"), "{out}");
        // Logical addressing has no pointer cast in a fragment either.
        let mut fragment = String::new();
        let error = vulkan
            .lower(&verified, &LowerOptions::fragment(), &mut fragment)
            .expect_err("one Workgroup pointer accessed as two types");
        assert_eq!(error.refusal.rule.id(), "llvm.vulkan-shared-one-type");
        // Other triples access one shared pointer as any type.
        assert!(lowered("spirv64@23", &shared_module).is_ok());
    }

    /// On SPIR-V an integer operation of literals is printed as its value (llc 22 and 23 fold
    /// it into a constant that breaks an earlier `extractvalue`); other triples print it as is.
    #[test]
    fn spirv_prints_literal_integer_operations_as_values() {
        let source = "kernel k(%p: ptr.global, %q: ptr.global) {
          %old = atomic.cas.relaxed.device.global.u32 [%p], 0, 1
          atomic.min.relaxed.device.global.f16x2 [%q], 0x00000001
          atomic.sub.relaxed.device.global.u16 [%q], 5
        }";
        let module = atomir_ir::text::parse(source).unwrap();
        let is_literal = |operand: &str| operand.trim().parse::<i128>().is_ok();
        let literal_operations = |code: &str| -> Vec<String> {
            let ops = ["add", "sub", "and", "or", "xor", "shl", "lshr"];
            code.lines()
                .filter(|line| {
                    let Some((_, rhs)) = line.split_once(" = ") else {
                        return false;
                    };
                    let mut words = rhs.splitn(3, ' ');
                    let (Some(op), Some(ty), Some(operands)) =
                        (words.next(), words.next(), words.next())
                    else {
                        return false;
                    };
                    ops.contains(&op)
                        && ty.starts_with('i')
                        && operands
                            .split_once(',')
                            .is_some_and(|(a, b)| is_literal(a) && is_literal(b))
                })
                .map(String::from)
                .collect()
        };
        let x86 = lowered("x86_64@22", &module).unwrap();
        assert!(!literal_operations(&x86).is_empty(), "{x86}");
        for spec in ["spirv64@22", "spirv64@23"] {
            let spirv = lowered(spec, &module).unwrap();
            assert_eq!(literal_operations(&spirv), Vec::<String>::new(), "{spirv}");
            assert!(spirv.contains("extractvalue"), "{spirv}");
        }
    }

    /// `legalize` and `lower` agree on every cell (loads, stores and fences among them): a
    /// refused cell fails to lower with the same rule, an accepted one lowers to one function.
    #[test]
    fn legalize_and_lower_agree() {
        for spec in [
            "spirv64@22",
            "nvptx64@14",
            "nvptx64@22",
            "spirv-vulkan@22",
            "spirv-vulkan@23",
        ] {
            let target = LlvmTarget::parse(spec).unwrap();
            let mut out = String::new();
            for cell in all_cells().step_by(7) {
                let module = Module {
                    kernels: vec![cell.kernel()],
                };
                let verdict = target.legalize_node(&cell.node());
                out.clear();
                let lowered = target.lower(
                    &atomir_ir::verify::verify(&module).unwrap(),
                    &LowerOptions::default(),
                    &mut out,
                );
                match (verdict, lowered) {
                    (Ok(legality), Ok(report)) => {
                        assert_eq!(
                            report.decisions().next().map(|d| d.2),
                            Some(&legality),
                            "{cell}"
                        );
                        assert_eq!(out.matches("define ").count(), 1, "{cell}");
                    }
                    (Err(refusal), Err(error)) => assert_eq!(refusal, error.refusal),
                    (verdict, lowered) => panic!("{cell}: {verdict:?} vs {lowered:?}"),
                }
            }
        }
    }
}
