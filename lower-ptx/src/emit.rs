//! Printing PTX: one native node ([`KernelEmitter::native`]), the primitives of a shared
//! expansion ([`KernelEmitter::prim`]), and the kernel around them ([`write_kernel`]).
//!
//! Everything is written into `&mut String`s that the caller reuses; the native path allocates
//! nothing per instruction.

use std::fmt::Write;

use atomir_ir::expand::{
    BinaryOp, Block, CmpCond, Expansion, MemAttrs, Prim, PrimType, UnaryOp, Var,
};
use atomir_ir::{
    AddressSpace, AtomicInst, AtomicOp, CacheHint, ElemType, Inst, Kernel, MemoryOrder, Scalar,
    Value, ValueDef, ValueType,
};

use atomir_ir::lower::{
    append_buffer, At, Expanding, Fence, FenceBracket, FenceSide, Label, NameRules, Namer, Params,
    Printer, Unprintable, PTX_ENTRY_NAMES,
};
use atomir_ir::semantics::canonical_nan;
use atomir_ir::Module;

use crate::legal::{membar_level, scope_name, Form, PtxOp, PtxPlan};
use crate::target::{Feature, PtxTarget};

/// A register class: PTX declares registers by bit size; 8-bit data lives in 16-bit registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Pred,
    B16,
    B32,
    B64,
    B128,
}

impl Class {
    const ALL: [Class; 5] = [Class::Pred, Class::B16, Class::B32, Class::B64, Class::B128];

    const fn prefix(self) -> &'static str {
        match self {
            Class::Pred => "%_p",
            Class::B16 => "%_h",
            Class::B32 => "%_r",
            Class::B64 => "%_d",
            Class::B128 => "%_q",
        }
    }

    const fn decl(self) -> &'static str {
        match self {
            Class::Pred => ".pred",
            Class::B16 => ".b16",
            Class::B32 => ".b32",
            Class::B64 => ".b64",
            Class::B128 => ".b128",
        }
    }

    const fn bits(self) -> u32 {
        match self {
            Class::Pred => 1,
            Class::B16 => 16,
            Class::B32 => 32,
            Class::B64 => 64,
            Class::B128 => 128,
        }
    }

    const fn of_bits(bits: u32) -> Class {
        match bits {
            1 => Class::Pred,
            8 | 16 => Class::B16,
            32 => Class::B32,
            64 => Class::B64,
            _ => Class::B128,
        }
    }

    const fn of_prim(ty: PrimType) -> Class {
        Class::of_bits(ty.bits())
    }

    const fn index(self) -> usize {
        self as usize
    }
}

/// A temporary register (`%_r7`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Temp {
    class: Class,
    number: u32,
}

/// A source operand: a temporary, or (a lane of) a value of the kernel.
#[derive(Clone, Copy, Debug)]
enum Src {
    Temp(Temp),
    Value(Value, Option<usize>),
}

/// How kernel parameters reach the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ParamMode {
    /// Only the instructions (no entry, no declarations): readable output for diffs.
    Listing,
    /// A complete `.entry` whose parameters are the kernel's.
    Entry,
    /// A test entry: every parameter is a pointer to one value per thread, and every result is
    /// stored to one slot per thread of an output array (see the GPU harness).
    PerThread,
}

/// Register names: a letter first (the printer's temporaries start with `_`), no `$` (it
/// separates a vector's lanes, `%name$<i>`), not a special register or its prefix.
static REGISTER_NAMES: NameRules = NameRules {
    char_ok: |c| c.is_ascii_alphanumeric() || c == '_',
    well_formed: |name| name.starts_with(|c: char| c.is_ascii_alphabetic()),
    lead: "v",
    keywords: &[
        "tid",
        "ntid",
        "laneid",
        "warpid",
        "nwarpid",
        "ctaid",
        "nctaid",
        "smid",
        "nsmid",
        "gridid",
        "clock",
        "clock64",
        "clock_hi",
        "globaltimer",
        "globaltimer_lo",
        "globaltimer_hi",
        "total_smem_size",
        "aggr_smem_size",
        "dynamic_smem_size",
        "current_graph_exec",
        "is_explicit_cluster",
        "clusterid",
        "nclusterid",
        "cluster_ctaid",
        "cluster_nctaid",
        "cluster_ctarank",
        "cluster_nctarank",
        "warpsz",
    ],
    prefixes: &["lanemask_", "pm", "envreg", "reserved_smem"],
    suffixes: &[],
};

/// Writes the register of a value (its name from [`REGISTER_NAMES`]); lane `i` of a vector
/// value is `%name$i`.
fn write_value(out: &mut String, names: &[String], value: Value, lane: Option<usize>) {
    out.push('%');
    out.push_str(&names[value.as_u32() as usize]);
    if let Some(lane) = lane {
        let _ = write!(out, "${lane}");
    }
}

/// `.shared::cta` where the ISA spells it (7.8+), `.shared` before.
fn space_suffix(target: PtxTarget, space: AddressSpace) -> &'static str {
    match space {
        AddressSpace::Generic => "",
        AddressSpace::Global => ".global",
        AddressSpace::Shared if target.has(Feature::Cluster) => ".shared::cta",
        AddressSpace::Shared => ".shared",
        AddressSpace::SharedCluster => ".shared::cluster",
    }
}

fn hint_policy(hint: CacheHint) -> &'static str {
    match hint {
        CacheHint::EvictFirst | CacheHint::NoAllocate => "L2::evict_first",
        CacheHint::EvictLast => "L2::evict_last",
        CacheHint::EvictNormal => "L2::evict_normal",
    }
}

/// The sign bits of a float or packed-float type, or `None` for integers.
fn float_sign_mask(ty: ElemType) -> Option<u128> {
    match ty {
        ElemType::F16 | ElemType::Bf16 => Some(0x8000),
        ElemType::F32 => Some(0x8000_0000),
        ElemType::F64 => Some(0x8000_0000_0000_0000),
        ElemType::F16x2 | ElemType::Bf16x2 => Some(0x8000_8000),
        _ => None,
    }
}

fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// Emits the body of one kernel, counting the temporaries it uses.
pub(crate) struct KernelEmitter<'k> {
    pub target: PtxTarget,
    pub kernel: &'k Kernel,
    counts: [u32; 5],
    /// Per expansion variable of type `I8`: whether its register is known zero-extended.
    /// 8-bit values live in 16-bit registers whose high byte is unspecified, and are masked
    /// only where an operation reads the high byte.
    zero_extended: Vec<bool>,
    /// Per expansion variable: its masked copy, valid in the block that made it.
    masked: Vec<Option<Temp>>,
    /// The registers of the current expansion's variables.
    vars: Vec<Temp>,
    /// The native form of the current expansion's `Rmw` primitives.
    element: Option<PtxOp>,
    /// The register name of each value, by index.
    names: Vec<String>,
}

impl<'k> KernelEmitter<'k> {
    pub fn new(target: PtxTarget, kernel: &'k Kernel) -> Self {
        let mut names = Vec::new();
        let values = kernel.values.values().map(|data| &data.name[..]);
        Namer::new(&REGISTER_NAMES).assign(values, &mut names);
        KernelEmitter {
            target,
            kernel,
            counts: [0; 5],
            zero_extended: Vec::new(),
            masked: Vec::new(),
            vars: Vec::new(),
            element: None,
            names,
        }
    }

    fn temp(&mut self, class: Class) -> Temp {
        let number = self.counts[class.index()];
        self.counts[class.index()] += 1;
        Temp { class, number }
    }

    fn put_temp(out: &mut String, temp: Temp) {
        out.push_str(temp.class.prefix());
        let _ = write!(out, "{}", temp.number);
    }

    /// The destinations of `lanes` of an instruction's result, in braces when `braced` (one
    /// vector instruction); an unused result takes a fresh temporary per lane.
    fn result_lanes(
        &mut self,
        out: &mut String,
        inst: &AtomicInst,
        lanes: std::ops::Range<usize>,
        braced: bool,
    ) {
        let class = Class::of_bits(inst.ty.bits());
        if braced {
            out.push('{');
        }
        let first = lanes.start;
        for lane in lanes {
            if lane > first {
                out.push_str(", ");
            }
            match inst.result {
                Some(result) => {
                    let lane = inst.shape.is_vector().then_some(lane);
                    write_value(out, &self.names, result, lane);
                }
                None => {
                    let temp = self.temp(class);
                    Self::put_temp(out, temp);
                }
            }
        }
        if braced {
            out.push('}');
        }
    }

    fn put(&self, out: &mut String, src: Src) {
        match src {
            Src::Temp(temp) => Self::put_temp(out, temp),
            Src::Value(value, lane) => write_value(out, &self.names, value, lane),
        }
    }

    /// `mov` of a constant into a fresh temporary of `bits` width.
    fn constant(&mut self, out: &mut String, bits: u32, value: u128) -> Temp {
        let temp = self.temp(Class::of_bits(bits));
        self.mov_const(out, temp, bits, value);
        temp
    }

    fn mov_const(&mut self, out: &mut String, temp: Temp, bits: u32, value: u128) {
        let value = value & mask(bits);
        match temp.class {
            Class::B128 => {
                let low = self.constant(out, 64, value);
                let high = self.constant(out, 64, value >> 64);
                out.push_str("\tmov.b128 ");
                Self::put_temp(out, temp);
                out.push_str(", {");
                Self::put_temp(out, low);
                out.push_str(", ");
                Self::put_temp(out, high);
                out.push_str("};\n");
            }
            class => {
                let _ = write!(out, "\tmov.b{} ", class.bits());
                Self::put_temp(out, temp);
                let _ = writeln!(out, ", {value:#x};");
            }
        }
    }

    /// The source of element `lane` of an operand; constants are materialized, and negated
    /// first when `negate` (in registers or at compile time, never as text).
    fn operand(
        &mut self,
        out: &mut String,
        operand: atomir_ir::Operand,
        lane: usize,
        ty: ElemType,
        negate: bool,
    ) -> Src {
        let scalar = self
            .kernel
            .operand_element(operand, lane)
            .expect("verified operand");
        let bits = ty.bits();
        match scalar {
            Scalar::Const(constant) => {
                let raw = self.kernel.constants[constant];
                let value = if negate {
                    match float_sign_mask(ty) {
                        Some(sign) => raw ^ sign,
                        None => raw.wrapping_neg(),
                    }
                } else {
                    raw
                };
                Src::Temp(self.constant(out, bits, value))
            }
            Scalar::Value(value) => {
                let lane = match self.kernel.value_type(value) {
                    ValueType::Data(_, shape) if shape.is_vector() => Some(lane),
                    _ => None,
                };
                let src = Src::Value(value, lane);
                if negate {
                    Src::Temp(self.negate(out, src, ty))
                } else {
                    src
                }
            }
        }
    }

    /// `-x` in a register: integer negation, or a flip of the sign bit(s) of a float.
    fn negate(&mut self, out: &mut String, src: Src, ty: ElemType) -> Temp {
        let class = Class::of_bits(ty.bits());
        let temp = self.temp(class);
        match float_sign_mask(ty) {
            Some(sign) => {
                let _ = write!(out, "\txor.b{} ", class.bits());
                Self::put_temp(out, temp);
                out.push_str(", ");
                self.put(out, src);
                let _ = writeln!(out, ", {sign:#x};");
            }
            None => {
                let _ = write!(out, "\tneg.s{} ", class.bits());
                Self::put_temp(out, temp);
                out.push_str(", ");
                self.put(out, src);
                out.push_str(";\n");
            }
        }
        temp
    }

    /// Spells a fence of the bracket: `fence.sc`/`fence.acq_rel` where the target has `.sem`,
    /// a `membar` (sequentially consistent) before.
    fn fence(&self, out: &mut String, fence: Option<Fence>, plan: &PtxPlan) {
        let Some(fence) = fence else { return };
        if !self.target.has(Feature::Sem) {
            let _ = writeln!(out, "\tmembar.{};", membar_level(plan.scope));
        } else if fence.order == MemoryOrder::SeqCst {
            let _ = writeln!(out, "\tfence.sc.{};", scope_name(plan.scope));
        } else {
            let _ = writeln!(out, "\tfence.acq_rel.{};", scope_name(plan.scope));
        }
    }

    /// `.<sem>` of an access's own order, where the target spells orders on instructions.
    fn sem(&self, out: &mut String, order: MemoryOrder) {
        if self.target.has(Feature::Sem) {
            out.push('.');
            out.push_str(match order {
                MemoryOrder::Relaxed => "relaxed",
                MemoryOrder::Acquire => "acquire",
                MemoryOrder::Release => "release",
                MemoryOrder::AcqRel => "acq_rel",
                MemoryOrder::SeqCst => "seq_cst",
            });
        }
    }

    /// Starts a guarded region: a branch over it when the predicate does not hold.
    /// The result of a predicated node is 0 where the predicate fails (the IR defines it so):
    /// set before the node, which leaves its destination alone where it does not execute.
    fn zero_skipped_result(&mut self, out: &mut String, inst: &AtomicInst) {
        let (Some(_), Some(result)) = (inst.predicate, inst.result) else {
            return;
        };
        let class = Class::of_bits(inst.ty.bits());
        let zero128 = (class == Class::B128).then(|| {
            let zero = self.temp(Class::B64);
            out.push_str("\tmov.b64 ");
            Self::put_temp(out, zero);
            out.push_str(", 0;\n");
            zero
        });
        for lane in 0..inst.shape.len() {
            let lane = inst.shape.is_vector().then_some(lane);
            let _ = write!(out, "\tmov.b{} ", class.bits());
            write_value(out, &self.names, result, lane);
            match zero128 {
                Some(zero) => {
                    out.push_str(", {");
                    Self::put_temp(out, zero);
                    out.push_str(", ");
                    Self::put_temp(out, zero);
                    out.push_str("};\n");
                }
                None => out.push_str(", 0;\n"),
            }
        }
    }

    fn guard_begin(&self, out: &mut String, inst: &AtomicInst, id: Inst) {
        if let Some(predicate) = inst.predicate {
            out.push('\t');
            out.push_str(if predicate.negated { "@" } else { "@!" });
            write_value(out, &self.names, predicate.value, None);
            let _ = writeln!(out, " bra $L{}_end;", id.as_u32());
        }
    }

    fn guard_end(&self, out: &mut String, inst: &AtomicInst, id: Inst) {
        if inst.predicate.is_some() {
            let _ = writeln!(out, "$L{}_end:", id.as_u32());
        }
    }

    /// The one place a native `atom`/`red` node is printed.
    fn native(
        &mut self,
        out: &mut String,
        id: Inst,
        inst: &AtomicInst,
        plan: &PtxPlan,
        s: PtxOp,
        bracket: FenceBracket,
    ) {
        self.zero_skipped_result(out, inst);
        let lanes = inst.shape.len();
        let single = inst.predicate.is_some()
            && !s.negate
            && !s.hint
            && bracket.is_bare()
            && operand_is_registers(self.kernel, inst);
        if !single {
            self.guard_begin(out, inst, id);
        }
        let mut operands = [Src::Temp(Temp {
            class: Class::B32,
            number: 0,
        }); 8];
        let mut new_values = operands;
        for lane in 0..lanes {
            // Every node the table prints whole has an operand (loads are refused).
            let Some(operand) = inst.operand else {
                break;
            };
            operands[lane] = self.operand(out, operand, lane, inst.ty, s.negate);
            if let Some(new_value) = inst.new_value {
                new_values[lane] = self.operand(out, new_value, lane, inst.ty, false);
            }
        }
        let addr = self.address(out, inst);
        let policy = match (s.hint, inst.hint) {
            (true, Some(hint)) => {
                let temp = self.temp(Class::B64);
                out.push_str("\tcreatepolicy.fractional.");
                out.push_str(hint_policy(hint));
                out.push_str(".b64 ");
                Self::put_temp(out, temp);
                out.push_str(", 1.0;\n");
                Some(temp)
            }
            _ => None,
        };
        self.fence(out, bracket.leading, plan);
        out.push('\t');
        if single {
            if let Some(predicate) = inst.predicate {
                out.push_str(if predicate.negated { "@!" } else { "@" });
                write_value(out, &self.names, predicate.value, None);
                out.push(' ');
            }
        }
        out.push_str(if s.reduction { "red" } else { "atom" });
        self.sem(out, bracket.order);
        out.push('.');
        out.push_str(scope_name(plan.scope));
        out.push_str(space_suffix(self.target, inst.space));
        out.push('.');
        out.push_str(s.op.as_str());
        if s.noftz {
            out.push_str(".noftz");
        }
        if policy.is_some() {
            out.push_str(".L2::cache_hint");
        }
        if inst.shape.is_vector() {
            out.push('.');
            out.push_str(inst.shape.as_str());
        }
        out.push('.');
        out.push_str(s.ty.as_str());
        out.push(' ');
        if !s.reduction {
            self.result_lanes(out, inst, 0..lanes, inst.shape.is_vector());
            out.push_str(", ");
        }
        out.push('[');
        self.put(out, addr);
        out.push_str("], ");
        self.list(out, &operands[..lanes], inst.shape.is_vector());
        if inst.new_value.is_some() {
            out.push_str(", ");
            self.list(out, &new_values[..lanes], inst.shape.is_vector());
        }
        if let Some(policy) = policy {
            out.push_str(", ");
            Self::put_temp(out, policy);
        }
        out.push_str(";\n");
        self.fence(out, bracket.trailing, plan);
        if !single {
            self.guard_end(out, inst, id);
        }
    }

    /// The one place an atomic `ld`/`st` is printed: one vector instruction, or one per
    /// element at its byte offset, each with the fences of the bracket.
    fn ld_st(
        &mut self,
        out: &mut String,
        id: Inst,
        inst: &AtomicInst,
        plan: &PtxPlan,
        vector: bool,
        bracket: FenceBracket,
    ) {
        self.zero_skipped_result(out, inst);
        let addr = self.address(out, inst);
        self.guard_begin(out, inst, id);
        let load = inst.op == AtomicOp::Load;
        let lanes = inst.shape.len();
        let mut values = [Src::Temp(Temp {
            class: Class::B32,
            number: 0,
        }); 8];
        if let Some(operand) = inst.operand {
            for (lane, value) in values.iter_mut().enumerate().take(lanes) {
                *value = self.operand(out, operand, lane, inst.ty, false);
            }
        }
        let per_instruction = if vector { lanes } else { 1 };
        for first in (0..lanes).step_by(per_instruction) {
            self.fence(out, bracket.leading, plan);
            out.push_str(if load { "\tld" } else { "\tst" });
            if self.target.has(Feature::Sem) {
                self.sem(out, bracket.order);
                out.push('.');
                out.push_str(scope_name(plan.scope));
            } else {
                out.push_str(".volatile");
            }
            out.push_str(space_suffix(self.target, inst.space));
            if vector {
                out.push('.');
                out.push_str(inst.shape.as_str());
            }
            let _ = write!(out, ".b{} ", inst.ty.bits());
            let lanes_here = first..first + per_instruction;
            if load {
                self.result_lanes(out, inst, lanes_here.clone(), vector);
                out.push_str(", ");
            }
            out.push('[');
            self.put(out, addr);
            if first > 0 {
                let _ = write!(out, "+{}", first * inst.ty.bytes() as usize);
            }
            out.push(']');
            if !load {
                out.push_str(", ");
                self.list(out, &values[lanes_here], vector);
            }
            out.push_str(";\n");
            self.fence(out, bracket.trailing, plan);
        }
        self.guard_end(out, inst, id);
    }

    fn list(&self, out: &mut String, srcs: &[Src], braces: bool) {
        if braces {
            out.push('{');
        }
        for (index, src) in srcs.iter().enumerate() {
            if index > 0 {
                out.push_str(", ");
            }
            self.put(out, *src);
        }
        if braces {
            out.push('}');
        }
    }

    /// Prints an expansion: inputs bound by `mov`, blocks as labels, block parameters as
    /// `mov`s before each jump, results moved to the node's result registers.
    /// Binds an expansion's inputs: a register per variable, the address and operands moved in.
    fn expansion_begin(
        &mut self,
        out: &mut String,
        id: Inst,
        inst: &AtomicInst,
        plan: &PtxPlan,
        expansion: &Expansion,
    ) -> Result<(), Unprintable> {
        self.element = match plan.form {
            Form::Expand { element } => element,
            Form::Native(_) | Form::LdSt { .. } | Form::Fence => None,
        };
        if self.element.is_none()
            && expansion
                .memory_prims()
                .any(|p| matches!(p, Prim::Rmw { .. }))
        {
            return Err(Unprintable(
                "an expansion with a native element the plan does not name".into(),
            ));
        }
        self.zero_skipped_result(out, inst);
        self.guard_begin(out, inst, id);
        let mut vars = std::mem::take(&mut self.vars);
        vars.clear();
        vars.extend(
            expansion
                .vars
                .values()
                .map(|ty| self.temp(Class::of_prim(*ty))),
        );
        self.vars = vars;
        self.zero_extended.clear();
        self.zero_extended.resize(self.vars.len(), false);
        self.masked.clear();
        self.masked.resize(self.vars.len(), None);
        let addr = self.address(out, inst);
        self.mov(out, self.var(expansion.addr), addr, 64);
        let natural = PrimType::natural(inst.ty).bits();
        if let Some(node_operand) = inst.operand {
            for (lane, operand) in expansion.operands.iter().enumerate() {
                let src = self.operand(out, node_operand, lane, inst.ty, false);
                self.mov(out, self.var(*operand), src, natural);
            }
        }
        if let Some(new_value) = inst.new_value {
            for (lane, target) in expansion.new_values.iter().enumerate() {
                let src = self.operand(out, new_value, lane, inst.ty, false);
                self.mov(out, self.var(*target), src, natural);
            }
        }
        Ok(())
    }

    /// The address of a node: its pointer, converted to a generic address where a generic node
    /// goes through a pointer into a shared window (a shared-window address used as a generic
    /// one names other memory).
    fn address(&mut self, out: &mut String, inst: &AtomicInst) -> Src {
        let pointer = Src::Value(inst.addr, None);
        if inst.space != AddressSpace::Generic {
            return pointer;
        }
        let window = match self.kernel.values.get(inst.addr).map(|v| v.ty) {
            Some(ValueType::Ptr(AddressSpace::Shared)) => ".shared",
            Some(ValueType::Ptr(AddressSpace::SharedCluster)) => ".shared::cluster",
            _ => return pointer,
        };
        let generic = self.temp(Class::B64);
        let _ = write!(out, "\tcvta{window}.u64 ");
        Self::put_temp(out, generic);
        out.push_str(", ");
        self.put(out, pointer);
        out.push_str(";\n");
        Src::Temp(generic)
    }

    /// The register of an expansion variable.
    fn var(&self, v: Var) -> Src {
        Src::Temp(self.vars[v.as_u32() as usize])
    }

    fn label(out: &mut String, id: Inst, label: Label) {
        match label {
            Label::Block(block) => {
                let _ = write!(out, "$L{}_b{}", id.as_u32(), block.as_u32());
            }
            Label::Edge(edge) => {
                let _ = write!(out, "$L{}_e{edge}", id.as_u32());
            }
            Label::Done => {
                let _ = write!(out, "$L{}_done", id.as_u32());
            }
        }
    }

    fn block(&mut self, out: &mut String, id: Inst, block: Block, entry: bool) {
        if !entry {
            Self::label(out, id, Label::Block(block));
            out.push_str(":\n");
        }
        // A masked copy is only known valid in the block that made it.
        self.masked.fill(None);
    }

    /// `bra.uni`, or with a guard `@p bra` / `@!p bra`.
    fn branch(&self, out: &mut String, id: Inst, guard: Option<(Var, bool)>, to: Label) {
        out.push('\t');
        match guard {
            Some((cond, negated)) => {
                out.push_str(if negated { "@!" } else { "@" });
                self.put(out, self.var(cond));
                out.push_str(" bra ");
            }
            None => out.push_str("bra.uni "),
        }
        Self::label(out, id, to);
        out.push_str(";\n");
    }

    /// Moves the old values to the instruction's result.
    fn expansion_end(
        &mut self,
        out: &mut String,
        id: Inst,
        inst: &AtomicInst,
        expansion: &Expansion,
    ) {
        if expansion.blocks.len() > 1 {
            Self::label(out, id, Label::Done);
            out.push_str(":\n");
        }
        if let Some(result) = inst.result {
            let natural = PrimType::natural(inst.ty).bits();
            for (lane, old) in expansion.results.iter().enumerate() {
                let lane = inst.shape.is_vector().then_some(lane);
                self.mov(out, Src::Value(result, lane), self.var(*old), natural);
            }
        }
        self.guard_end(out, inst, id);
    }

    fn mov(&self, out: &mut String, dst: Src, src: Src, bits: u32) {
        let class = Class::of_bits(bits);
        if class == Class::Pred {
            out.push_str("\tmov.pred ");
        } else {
            let _ = write!(out, "\tmov.b{} ", class.bits());
        }
        self.put(out, dst);
        out.push_str(", ");
        self.put(out, src);
        out.push_str(";\n");
    }

    /// `op.type d, a, b;` on temporaries and immediates.
    fn line(&self, out: &mut String, opcode: &str, operands: &[Operand]) {
        out.push('\t');
        out.push_str(opcode);
        for (index, operand) in operands.iter().enumerate() {
            out.push_str(if index == 0 { " " } else { ", " });
            match *operand {
                Operand::T(temp) => Self::put_temp(out, temp),
                Operand::Imm(value) => {
                    let _ = write!(out, "{value:#x}");
                }
            }
        }
        out.push_str(";\n");
    }

    /// The register of `v` for an operation that reads all of it: an `I8` whose high byte may
    /// be set is masked once per block (its copy reused); any other variable as is.
    fn zero_extended(
        &mut self,
        out: &mut String,
        v: Var,
        vars: &[Temp],
        expansion: &Expansion,
    ) -> Temp {
        let index = v.as_u32() as usize;
        if expansion.vars[v] != PrimType::I8 || self.zero_extended[index] {
            return vars[index];
        }
        if let Some(masked) = self.masked[index] {
            return masked;
        }
        let masked = self.temp(Class::B16);
        self.line(
            out,
            "and.b16",
            &[
                Operand::T(masked),
                Operand::T(vars[index]),
                Operand::Imm(0xff),
            ],
        );
        self.masked[index] = Some(masked);
        masked
    }

    /// One primitive of an expansion, or a copy of an equal pure one computed before it.
    fn step(
        &mut self,
        out: &mut String,
        plan: &PtxPlan,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        expansion: &Expansion,
    ) {
        let vars = std::mem::take(&mut self.vars);
        let element = self.element;
        self.prim(out, plan, element, prim, bracket, &vars, expansion);
        self.vars = vars;
    }

    /// The one place the primitives of an expansion are printed.
    #[allow(clippy::too_many_arguments)]
    fn prim(
        &mut self,
        out: &mut String,
        plan: &PtxPlan,
        element: Option<PtxOp>,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        vars: &[Temp],
        expansion: &Expansion,
    ) {
        use Operand::{Imm, T};
        let bracket = |mem: MemAttrs| bracket.unwrap_or(FenceBracket::bare(mem.order));
        let t = |v: Var| vars[v.as_u32() as usize];
        let ty = |v: Var| expansion.vars[v];
        match *prim {
            Prim::Const { dst, bits } => {
                let width = ty(dst).bits();
                self.mov_const(out, t(dst), width, bits);
                self.zero_extended[dst.as_u32() as usize] = true;
            }
            Prim::Load { dst, addr, mem } => {
                self.load(out, plan, mem, bracket(mem), t(dst), t(addr));
            }
            Prim::Cas {
                dst,
                addr,
                expected,
                new,
                mem,
            } => {
                let bits = Class::of_prim(ty(dst)).bits();
                let bracket = bracket(mem);
                self.fence(out, bracket.leading, plan);
                self.atom_head(out, plan, mem, bracket.order, false);
                let _ = write!(out, ".cas.b{bits} ");
                Self::put_temp(out, t(dst));
                out.push_str(", [");
                Self::put_temp(out, t(addr));
                out.push_str("], ");
                Self::put_temp(out, t(expected));
                out.push_str(", ");
                Self::put_temp(out, t(new));
                out.push_str(";\n");
                self.fence(out, bracket.trailing, plan);
            }
            Prim::Rmw {
                dst,
                ty: elem,
                addr,
                value,
                mem,
                ..
            } => {
                // The expansion was checked to have an element form before printing began.
                let Some(spelling) = element else { return };
                let value = if spelling.negate {
                    self.negate(out, Src::Temp(t(value)), elem)
                } else {
                    t(value)
                };
                let reduction = spelling.reduction;
                let bracket = bracket(mem);
                self.fence(out, bracket.leading, plan);
                self.atom_head(out, plan, mem, bracket.order, reduction);
                out.push('.');
                out.push_str(spelling.op.as_str());
                if spelling.noftz {
                    out.push_str(".noftz");
                }
                out.push('.');
                out.push_str(spelling.ty.as_str());
                out.push(' ');
                if !reduction {
                    let dst = match dst {
                        Some(dst) => t(dst),
                        None => self.temp(Class::of_bits(elem.bits())),
                    };
                    Self::put_temp(out, dst);
                    out.push_str(", ");
                }
                out.push('[');
                Self::put_temp(out, t(addr));
                out.push_str("], ");
                Self::put_temp(out, value);
                out.push_str(";\n");
                self.fence(out, bracket.trailing, plan);
            }
            Prim::Unary { dst, op, src } => {
                let (dt, st) = (ty(dst), ty(src));
                let (dc, sc) = (Class::of_prim(dt), Class::of_prim(st));
                match op {
                    UnaryOp::Not if dc == Class::Pred => {
                        self.line(out, "not.pred", &[T(t(dst)), T(t(src))]);
                    }
                    UnaryOp::Not => {
                        let opcode = match dc {
                            Class::B16 => "not.b16",
                            Class::B32 => "not.b32",
                            Class::B64 => "not.b64",
                            _ => "not.b128",
                        };
                        self.line(out, opcode, &[T(t(dst)), T(t(src))]);
                    }
                    UnaryOp::Copy => {
                        self.mov(out, Src::Temp(t(dst)), Src::Temp(t(src)), dc.bits());
                        let known = self.zero_extended[src.as_u32() as usize];
                        self.zero_extended[dst.as_u32() as usize] = known;
                    }
                    UnaryOp::Bitcast => {
                        self.mov(out, Src::Temp(t(dst)), Src::Temp(t(src)), dc.bits())
                    }
                    UnaryOp::Zext | UnaryOp::Trunc if dc == sc => {
                        let src = if op == UnaryOp::Zext {
                            self.zero_extended(out, src, vars, expansion)
                        } else {
                            t(src)
                        };
                        self.mov(out, Src::Temp(t(dst)), Src::Temp(src), dc.bits());
                    }
                    UnaryOp::Zext | UnaryOp::Trunc => {
                        let src = if op == UnaryOp::Zext {
                            self.zero_extended(out, src, vars, expansion)
                        } else {
                            t(src)
                        };
                        let opcode = match (dc, sc) {
                            (Class::B32, Class::B16) => "cvt.u32.u16",
                            (Class::B64, Class::B16) => "cvt.u64.u16",
                            (Class::B64, Class::B32) => "cvt.u64.u32",
                            (Class::B16, Class::B32) => "cvt.u16.u32",
                            (Class::B16, Class::B64) => "cvt.u16.u64",
                            _ => "cvt.u32.u64",
                        };
                        self.line(out, opcode, &[T(t(dst)), T(src)]);
                    }
                }
            }
            Prim::Binary { dst, op, a, b } => {
                let (reads_high_a, reads_high_b) = match op {
                    BinaryOp::UMin | BinaryOp::UMax | BinaryOp::LShr => (true, true),
                    BinaryOp::Shl => (false, true),
                    _ => (false, false),
                };
                let known = |this: &Self, v: Var| this.zero_extended[v.as_u32() as usize];
                let dst_zero_extended = match op {
                    BinaryOp::UMin | BinaryOp::UMax | BinaryOp::LShr => true,
                    BinaryOp::And => known(self, a) || known(self, b),
                    BinaryOp::Or | BinaryOp::Xor => known(self, a) && known(self, b),
                    _ => false,
                };
                let a = if reads_high_a {
                    self.zero_extended(out, a, vars, expansion)
                } else {
                    t(a)
                };
                let b = if reads_high_b {
                    self.zero_extended(out, b, vars, expansion)
                } else {
                    t(b)
                };
                self.binary(out, op, ty(dst), t(dst), a, b);
                self.zero_extended[dst.as_u32() as usize] = dst_zero_extended;
            }
            Prim::Cmp { dst, cond, a, b } => {
                let bits = Class::of_prim(ty(a)).bits();
                let (a, b) = (
                    self.zero_extended(out, a, vars, expansion),
                    self.zero_extended(out, b, vars, expansion),
                );
                let cond = match cond {
                    CmpCond::Eq => "eq",
                    CmpCond::Ne => "ne",
                    CmpCond::Ult => "lo",
                    CmpCond::Ule => "ls",
                    CmpCond::Ugt => "hi",
                    CmpCond::Uge => "hs",
                };
                let _ = write!(out, "\tsetp.{cond}.u{bits} ");
                Self::put_temp(out, t(dst));
                out.push_str(", ");
                Self::put_temp(out, a);
                out.push_str(", ");
                Self::put_temp(out, b);
                out.push_str(";\n");
            }
            Prim::Select {
                dst,
                cond,
                if_true,
                if_false,
            } => {
                let bits = Class::of_prim(ty(dst)).bits();
                self.zero_extended[dst.as_u32() as usize] = self.zero_extended
                    [if_true.as_u32() as usize]
                    && self.zero_extended[if_false.as_u32() as usize];
                let _ = write!(out, "\tselp.b{bits} ");
                Self::put_temp(out, t(dst));
                out.push_str(", ");
                Self::put_temp(out, t(if_true));
                out.push_str(", ");
                Self::put_temp(out, t(if_false));
                out.push_str(", ");
                Self::put_temp(out, t(cond));
                out.push_str(";\n");
            }
            Prim::PtrAlignDown { dst, ptr, align } => {
                let keep = !(u64::from(align) - 1);
                self.line(
                    out,
                    "and.b64",
                    &[T(t(dst)), T(t(ptr)), Imm(u128::from(keep))],
                );
            }
            Prim::PtrLowBits { dst, ptr, align } => {
                self.line(out, "cvt.u32.u64", &[T(t(dst)), T(t(ptr))]);
                self.line(
                    out,
                    "and.b32",
                    &[T(t(dst)), T(t(dst)), Imm(u128::from(align - 1))],
                );
            }
            Prim::PtrAdd { dst, ptr, bytes } => {
                self.line(
                    out,
                    "add.u64",
                    &[T(t(dst)), T(t(ptr)), Imm(u128::from(bytes))],
                );
            }
        }
    }

    /// `atom{.sem}.<scope>{.space}` or `red…` of a primitive (order fences printed by the caller).
    fn atom_head(
        &self,
        out: &mut String,
        plan: &PtxPlan,
        mem: MemAttrs,
        order: MemoryOrder,
        reduction: bool,
    ) {
        out.push_str(if reduction { "\tred" } else { "\tatom" });
        self.sem(out, order);
        out.push('.');
        out.push_str(scope_name(plan.scope));
        out.push_str(space_suffix(self.target, mem.space));
    }

    /// An atomic load: `ld.relaxed`/`ld.acquire` with the scope (sm_70+), `ld.volatile` plus
    /// membars before.
    fn load(
        &self,
        out: &mut String,
        plan: &PtxPlan,
        mem: MemAttrs,
        bracket: FenceBracket,
        dst: Temp,
        addr: Temp,
    ) {
        let bits = dst.class.bits();
        self.fence(out, bracket.leading, plan);
        if self.target.has(Feature::Sem) {
            // A load has no release part: its own order is acquire or relaxed.
            let sem = if bracket.order.has_acquire() {
                "acquire"
            } else {
                "relaxed"
            };
            let _ = write!(out, "\tld.{sem}.{}", scope_name(plan.scope));
        } else {
            out.push_str("\tld.volatile");
        }
        out.push_str(space_suffix(self.target, mem.space));
        let _ = write!(out, ".b{bits} ");
        Self::put_temp(out, dst);
        out.push_str(", [");
        Self::put_temp(out, addr);
        out.push_str("];\n");
        self.fence(out, bracket.trailing, plan);
    }

    fn binary(&mut self, out: &mut String, op: BinaryOp, ty: PrimType, d: Temp, a: Temp, b: Temp) {
        use Operand::{Imm, T};
        let class = Class::of_prim(ty);
        let bits = class.bits();
        if class == Class::Pred {
            let opcode = match op {
                BinaryOp::And => "and.pred",
                BinaryOp::Or => "or.pred",
                _ => "xor.pred",
            };
            self.line(out, opcode, &[T(d), T(a), T(b)]);
            return;
        }
        let int = |out: &mut String, name: &str, kind: char, a: Temp, b: Temp| {
            let _ = write!(out, "\t{name}.{kind}{bits} ");
            Self::put_temp(out, d);
            out.push_str(", ");
            Self::put_temp(out, a);
            out.push_str(", ");
            Self::put_temp(out, b);
            out.push_str(";\n");
        };
        match op {
            BinaryOp::Add => int(out, "add", 'u', a, b),
            BinaryOp::Sub => int(out, "sub", 'u', a, b),
            BinaryOp::And => int(out, "and", 'b', a, b),
            BinaryOp::Or => int(out, "or", 'b', a, b),
            BinaryOp::Xor => int(out, "xor", 'b', a, b),
            BinaryOp::UMin => int(out, "min", 'u', a, b),
            BinaryOp::UMax => int(out, "max", 'u', a, b),
            BinaryOp::SMin | BinaryOp::SMax if ty == PrimType::I8 => {
                let (sa, sb) = (self.temp(Class::B16), self.temp(Class::B16));
                self.line(out, "cvt.s16.s8", &[T(sa), T(a)]);
                self.line(out, "cvt.s16.s8", &[T(sb), T(b)]);
                let name = if op == BinaryOp::SMin { "min" } else { "max" };
                int(out, name, 's', sa, sb);
            }
            BinaryOp::SMin => int(out, "min", 's', a, b),
            BinaryOp::SMax => int(out, "max", 's', a, b),
            BinaryOp::Shl | BinaryOp::LShr => {
                let amount = if bits == 32 {
                    b
                } else {
                    let amount = self.temp(Class::B32);
                    let cvt = if bits == 16 {
                        "cvt.u32.u16"
                    } else {
                        "cvt.u32.u64"
                    };
                    self.line(out, cvt, &[T(amount), T(b)]);
                    amount
                };
                let name = if op == BinaryOp::Shl { "shl" } else { "shr" };
                let kind = if op == BinaryOp::Shl { 'b' } else { 'u' };
                int(out, name, kind, a, amount);
            }
            BinaryOp::FAdd | BinaryOp::FSub => {
                let name = if op == BinaryOp::FAdd { "add" } else { "sub" };
                match ty {
                    PrimType::F32 => self.line(out, &format_op(name, "f32"), &[T(d), T(a), T(b)]),
                    PrimType::F64 => self.line(out, &format_op(name, "f64"), &[T(d), T(a), T(b)]),
                    PrimType::F16 => self.line(out, &format_op(name, "f16"), &[T(d), T(a), T(b)]),
                    _ => self.bf16_arith(out, name, d, a, b),
                }
            }
            BinaryOp::FMin | BinaryOp::FMax => self.float_min_max(out, op, ty, d, a, b),
        }
        let _ = Imm;
    }

    /// bf16 add/sub computed exactly in f32 and rounded once to nearest even (innocuous double
    /// rounding: 24 >= 2 * 8 + 2).
    fn bf16_arith(&mut self, out: &mut String, name: &str, d: Temp, a: Temp, b: Temp) {
        use Operand::{Imm, T};
        let (wa, wb, sum) = (
            self.temp(Class::B32),
            self.temp(Class::B32),
            self.temp(Class::B32),
        );
        for (wide, narrow) in [(wa, a), (wb, b)] {
            self.line(out, "cvt.u32.u16", &[T(wide), T(narrow)]);
            self.line(out, "shl.b32", &[T(wide), T(wide), Imm(16)]);
        }
        self.line(out, &format_op(name, "f32"), &[T(sum), T(wa), T(wb)]);
        if self.target.has(Feature::CvtBf16) {
            self.line(out, "cvt.rn.bf16.f32", &[T(d), T(sum)]);
            return;
        }
        let (abs, lsb, rounded, quiet) = (
            self.temp(Class::B32),
            self.temp(Class::B32),
            self.temp(Class::B32),
            self.temp(Class::B32),
        );
        let nan = self.temp(Class::Pred);
        self.line(out, "and.b32", &[T(abs), T(sum), Imm(0x7fff_ffff)]);
        self.line(out, "setp.gt.u32", &[T(nan), T(abs), Imm(0x7f80_0000)]);
        self.line(out, "shr.u32", &[T(lsb), T(sum), Imm(16)]);
        self.line(out, "and.b32", &[T(lsb), T(lsb), Imm(1)]);
        self.line(out, "add.u32", &[T(lsb), T(lsb), Imm(0x7fff)]);
        self.line(out, "add.u32", &[T(rounded), T(sum), T(lsb)]);
        self.line(out, "shr.u32", &[T(rounded), T(rounded), Imm(16)]);
        self.line(out, "shr.u32", &[T(quiet), T(sum), Imm(16)]);
        self.line(out, "or.b32", &[T(quiet), T(quiet), Imm(0x40)]);
        self.line(out, "selp.b32", &[T(rounded), T(quiet), T(rounded), T(nan)]);
        self.line(out, "cvt.u16.u32", &[T(d), T(rounded)]);
    }

    /// IEEE minNum/maxNum with -0 < +0 on the bit patterns (exact for every input, NaNs
    /// included: one NaN gives the other operand, two give the canonical NaN).
    fn float_min_max(
        &mut self,
        out: &mut String,
        op: BinaryOp,
        ty: PrimType,
        d: Temp,
        a: Temp,
        b: Temp,
    ) {
        use Operand::{Imm, T};
        let class = Class::of_prim(ty);
        let bits = class.bits();
        let (infinity, float) = match ty {
            PrimType::F16 => (0x7c00u128, ElemType::F16),
            PrimType::Bf16 => (0x7f80, ElemType::Bf16),
            PrimType::F32 => (0x7f80_0000, ElemType::F32),
            _ => (0x7ff0_0000_0000_0000, ElemType::F64),
        };
        let canonical = canonical_nan(float).unwrap_or_default();
        let sign = 1u128 << (bits - 1);
        let op_b = |name: &str| format!("{name}.b{bits}");
        let mut nan = [Temp {
            class: Class::Pred,
            number: 0,
        }; 2];
        let mut key = [Temp { class, number: 0 }; 2];
        for (index, x) in [a, b].into_iter().enumerate() {
            let abs = self.temp(class);
            nan[index] = self.temp(Class::Pred);
            self.line(out, &op_b("and"), &[T(abs), T(x), Imm(sign - 1)]);
            self.line(
                out,
                &format!("setp.gt.u{bits}"),
                &[T(nan[index]), T(abs), Imm(infinity)],
            );
            let spread = self.temp(class);
            key[index] = self.temp(class);
            self.line(
                out,
                &format!("shr.s{bits}"),
                &[T(spread), T(x), Imm(u128::from(bits - 1))],
            );
            self.line(out, &op_b("or"), &[T(spread), T(spread), Imm(sign)]);
            self.line(out, &op_b("xor"), &[T(key[index]), T(x), T(spread)]);
        }
        let a_less = self.temp(Class::Pred);
        self.line(
            out,
            &format!("setp.lo.u{bits}"),
            &[T(a_less), T(key[0]), T(key[1])],
        );
        let pick = self.temp(class);
        let (first, second) = if op == BinaryOp::FMin { (a, b) } else { (b, a) };
        self.line(
            out,
            &op_b("selp"),
            &[T(pick), T(first), T(second), T(a_less)],
        );
        self.line(out, &op_b("selp"), &[T(pick), T(a), T(pick), T(nan[1])]);
        self.line(out, &op_b("selp"), &[T(pick), T(b), T(pick), T(nan[0])]);
        let both = self.temp(Class::Pred);
        self.line(out, "and.pred", &[T(both), T(nan[0]), T(nan[1])]);
        self.line(
            out,
            &op_b("selp"),
            &[T(d), Imm(canonical), T(pick), T(both)],
        );
    }

    /// Register declarations of the temporaries used so far.
    pub fn declare_temps(&self, out: &mut String) {
        for class in Class::ALL {
            let count = self.counts[class.index()];
            if count > 0 {
                let _ = writeln!(out, "\t.reg {} {}<{count}>;", class.decl(), class.prefix());
            }
        }
    }
}

fn format_op(name: &str, ty: &str) -> String {
    format!("{name}.rn.{ty}")
}

#[derive(Clone, Copy)]
enum Operand {
    T(Temp),
    Imm(u128),
}

fn operand_is_registers(kernel: &Kernel, inst: &AtomicInst) -> bool {
    let is_value = |operand: atomir_ir::Operand| match operand {
        atomir_ir::Operand::Scalar(scalar) => matches!(scalar, Scalar::Value(_)),
        atomir_ir::Operand::Vector(list) => kernel
            .vector_elements(list)
            .iter()
            .all(|s| matches!(s, Scalar::Value(_))),
    };
    inst.operand.is_none_or(is_value) && inst.new_value.is_none_or(is_value)
}

/// The register class of a value's type (one register per lane for vectors).
fn value_class(ty: ValueType) -> (Class, usize) {
    match ty {
        ValueType::Ptr(_) => (Class::B64, 1),
        ValueType::Pred => (Class::Pred, 1),
        ValueType::Data(elem, shape) => (Class::of_bits(elem.bits()), shape.len()),
    }
}

/// The `ld`/`st` type of one lane of a value of class `class` holding `elem`.
fn memory_type(elem_bits: u32) -> &'static str {
    match elem_bits {
        8 => "u8",
        16 => "b16",
        32 => "b32",
        _ => "b64",
    }
}

/// The PTX printer of one lowering: a listing, `.entry`s, or per-thread test entries.
pub struct PtxPrinter<'m> {
    target: PtxTarget,
    mode: ParamMode,
    /// The current kernel's body, printed after its declarations.
    body: String,
    kernel: Option<KernelState<'m>>,
    /// The `.entry` name of each kernel of the module, by index.
    entry_names: Vec<String>,
}

/// What the printer keeps while it prints one kernel.
struct KernelState<'m> {
    emitter: KernelEmitter<'m>,
    /// The `.entry`'s name.
    name: String,
    /// The kernel's used results, stored through trailing pointers.
    results: Vec<Value>,
    /// This thread's index, in a per-thread test entry.
    thread: Option<Temp>,
}

impl<'m> PtxPrinter<'m> {
    pub(crate) fn new(target: PtxTarget, mode: ParamMode) -> Self {
        PtxPrinter {
            target,
            mode,
            body: String::new(),
            kernel: None,
            entry_names: Vec::new(),
        }
    }

    /// The current kernel and where its instructions go: `out` for a listing, the body else.
    fn current<'a>(
        &'a mut self,
        out: &'a mut String,
    ) -> Result<(&'a mut KernelEmitter<'m>, &'a mut String), Unprintable> {
        let listing = self.mode == ParamMode::Listing;
        let state = self
            .kernel
            .as_mut()
            .ok_or_else(|| Unprintable("an instruction outside a kernel".into()))?;
        let sink = if listing { out } else { &mut self.body };
        Ok((&mut state.emitter, sink))
    }
}

impl<'m> Printer<'m> for PtxPrinter<'m> {
    type Plan = PtxPlan;

    fn module_begin(&mut self, module: &'m Module, out: &mut String) {
        let kernels = module.kernels.iter().map(|kernel| kernel.name.as_str());
        Namer::new(&PTX_ENTRY_NAMES).assign(kernels, &mut self.entry_names);
        if self.mode != ParamMode::Listing {
            let _ = writeln!(out, "// Generated by atomir for ptx:{}", self.target);
            let _ = writeln!(out, ".version {}", self.target.isa);
            let _ = writeln!(out, ".target {}", self.target.sm.name());
            out.push_str(".address_size 64\n\n");
        }
    }

    fn kernel_begin(&mut self, kernel: &'m Kernel, index: usize, out: &mut String) {
        if index > 0 {
            out.push('\n');
        }
        let mut emitter = KernelEmitter::new(self.target, kernel);
        self.body.clear();
        let name = self.entry_names.get(index).cloned().unwrap_or_default();
        let (results, thread) = if self.mode == ParamMode::Listing {
            let _ = writeln!(out, "// kernel {} (ptx:{})", kernel.name, self.target);
            (Vec::new(), None)
        } else {
            entry_begin(&mut emitter, &name, self.mode, &mut self.body, out)
        };
        self.kernel = Some(KernelState {
            emitter,
            name,
            results,
            thread,
        });
    }

    fn whole(
        &mut self,
        at: At<'_>,
        plan: &PtxPlan,
        bracket: FenceBracket,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let (emitter, sink) = self.current(out)?;
        match plan.form {
            Form::Native(op) => emitter.native(sink, at.inst, at.atomic, plan, op, bracket),
            Form::LdSt { vector } => emitter.ld_st(sink, at.inst, at.atomic, plan, vector, bracket),
            Form::Expand { .. } | Form::Fence => {
                return Err(Unprintable("a whole node without a native form".into()))
            }
        }
        Ok(())
    }

    fn fence(
        &mut self,
        _inst: Inst,
        fence: &atomir_ir::Fence,
        plan: &PtxPlan,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        if plan.form != Form::Fence {
            return Err(Unprintable("a fence without a fence plan".into()));
        }
        let (emitter, sink) = self.current(out)?;
        // Spelled as the leading fence of an access of the fence's order would be.
        let spelled = Fence {
            side: FenceSide::Leading,
            order: fence.order,
        };
        emitter.fence(sink, Some(spelled), plan);
        Ok(())
    }

    const PARAMS: Params = Params::Copies;

    fn expansion_begin(
        &mut self,
        x: &Expanding<'_, PtxPlan>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let (emitter, sink) = self.current(out)?;
        emitter.expansion_begin(sink, x.inst, x.atomic, x.plan, x.expansion)
    }

    fn block(&mut self, x: &Expanding<'_, PtxPlan>, block: Block, entry: bool, out: &mut String) {
        if let Ok((emitter, sink)) = self.current(out) {
            emitter.block(sink, x.inst, block, entry);
        }
    }

    fn prim(
        &mut self,
        x: &Expanding<'_, PtxPlan>,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let (emitter, sink) = self.current(out)?;
        emitter.step(sink, x.plan, prim, bracket, x.expansion);
        Ok(())
    }

    fn copy(&mut self, x: &Expanding<'_, PtxPlan>, dst: Var, src: Var, out: &mut String) {
        if let Ok((emitter, sink)) = self.current(out) {
            let bits = Class::of_prim(x.expansion.vars[dst]).bits();
            emitter.mov(sink, emitter.var(dst), emitter.var(src), bits);
        }
    }

    fn branch(
        &mut self,
        x: &Expanding<'_, PtxPlan>,
        cond: Var,
        negated: bool,
        to: Label,
        out: &mut String,
    ) {
        if let Ok((emitter, sink)) = self.current(out) {
            emitter.branch(sink, x.inst, Some((cond, negated)), to);
        }
    }

    fn jump(&mut self, x: &Expanding<'_, PtxPlan>, to: Label, out: &mut String) {
        if let Ok((emitter, sink)) = self.current(out) {
            emitter.branch(sink, x.inst, None, to);
        }
    }

    fn label(&mut self, x: &Expanding<'_, PtxPlan>, label: Label, out: &mut String) {
        if let Ok((_, sink)) = self.current(out) {
            KernelEmitter::label(sink, x.inst, label);
            sink.push_str(":\n");
        }
    }

    fn expansion_end(
        &mut self,
        x: &Expanding<'_, PtxPlan>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let (emitter, sink) = self.current(out)?;
        emitter.expansion_end(sink, x.inst, x.atomic, x.expansion);
        Ok(())
    }

    fn kernel_end(&mut self, out: &mut String) {
        let Some(mut state) = self.kernel.take() else {
            return;
        };
        if self.mode != ParamMode::Listing {
            entry_end(&mut state, &mut self.body, out);
        }
    }

    fn module_end(&mut self, _out: &mut String) {}
}

/// The `.entry` signature (into `out`) and the loads of its parameters (into `body`); returns
/// the used results and, for a per-thread test entry, the thread's index.
fn entry_begin(
    emitter: &mut KernelEmitter<'_>,
    name: &str,
    mode: ParamMode,
    body: &mut String,
    out: &mut String,
) -> (Vec<Value>, Option<Temp>) {
    let kernel = emitter.kernel;
    let _ = write!(out, ".visible .entry {name}(");
    let mut first = true;
    let mut param = |out: &mut String, decl: &str, index: usize, suffix: &str| {
        out.push_str(if first { "\n\t" } else { ",\n\t" });
        first = false;
        let _ = write!(out, ".param {decl} {name}_{suffix}{index}");
    };
    let results: Vec<Value> = kernel
        .values
        .iter()
        .filter(|(_, data)| matches!(data.def, ValueDef::Result(_)))
        .map(|(value, _)| value)
        .collect();
    for (index, p) in kernel.params.iter().enumerate() {
        match mode {
            ParamMode::PerThread => param(out, ".u64", index, "param_"),
            _ => match p.ty {
                ValueType::Ptr(_) => param(out, ".u64", index, "param_"),
                ValueType::Pred => param(out, ".u32", index, "param_"),
                ValueType::Data(elem, shape) if shape.is_vector() || elem.bits() == 128 => {
                    let bytes = elem.bytes() as usize * shape.len();
                    param(out, ".align 16 .b8", index, "param_");
                    let _ = write!(out, "[{bytes}]");
                }
                ValueType::Data(elem, _) => {
                    let decl = match elem.bits() {
                        8 => ".u8",
                        16 => ".b16",
                        32 => ".b32",
                        _ => ".b64",
                    };
                    param(out, decl, index, "param_");
                }
            },
        }
    }
    // Every used result is stored through a trailing pointer, so that it is observable.
    for index in 0..results.len() {
        param(out, ".u64", index, "out_");
    }
    out.push_str("\n)\n{\n");

    // Prologue: parameters into value registers.
    let thread = (mode == ParamMode::PerThread).then(|| {
        let (ctaid, ntid, tid) = (
            emitter.temp(Class::B32),
            emitter.temp(Class::B32),
            emitter.temp(Class::B32),
        );
        let index = emitter.temp(Class::B64);
        let _ = writeln!(body, "\tmov.u32 %_r{}, %ctaid.x;", ctaid.number);
        let _ = writeln!(body, "\tmov.u32 %_r{}, %ntid.x;", ntid.number);
        let _ = writeln!(body, "\tmov.u32 %_r{}, %tid.x;", tid.number);
        let _ = writeln!(
            body,
            "\tmad.lo.u32 %_r{0}, %_r{1}, %_r{2}, %_r{0};",
            tid.number, ctaid.number, ntid.number
        );
        let _ = writeln!(
            body,
            "\tcvt.u64.u32 %_d{}, %_r{};",
            index.number, tid.number
        );
        index
    });
    for (index, p) in kernel.params.iter().enumerate() {
        let (class, lanes) = value_class(p.ty);
        let elem_bits = match p.ty {
            ValueType::Data(elem, _) => elem.bits(),
            ValueType::Ptr(_) => 64,
            ValueType::Pred => 32,
        };
        let stride = (elem_bits.max(8) / 8) as usize * lanes;
        // The address the value is read from: the parameter itself, or this thread's slot.
        let (space, base) = match thread {
            Some(thread) => {
                let slot = emitter.temp(Class::B64);
                let _ = writeln!(
                    body,
                    "\tld.param.u64 %_d{}, [{name}_param_{index}];",
                    slot.number
                );
                let _ = writeln!(
                    body,
                    "\tmad.lo.u64 %_d{0}, %_d{1}, {stride}, %_d{0};",
                    slot.number, thread.number
                );
                ("global", format!("%_d{}", slot.number))
            }
            None => ("param", format!("{name}_param_{index}")),
        };
        for lane in 0..lanes {
            let offset = lane * (elem_bits.max(8) / 8) as usize;
            let lane_index = (lanes > 1).then_some(lane);
            match class {
                Class::Pred => {
                    let raw = emitter.temp(Class::B32);
                    let _ = writeln!(body, "\tld.{space}.u32 %_r{}, [{base}];", raw.number);
                    body.push_str("\tsetp.ne.u32 ");
                    write_value(body, &emitter.names, p.value, None);
                    let _ = writeln!(body, ", %_r{}, 0;", raw.number);
                }
                // Never read where the target has no `.b128` registers: nothing there can read
                // a 128-bit value (see `legal::param`).
                Class::B128 if !emitter.target.has(Feature::B128Register) => {}
                Class::B128 => {
                    let (low, high) = (emitter.temp(Class::B64), emitter.temp(Class::B64));
                    let _ = writeln!(
                        body,
                        "\tld.{space}.v2.b64 {{%_d{}, %_d{}}}, [{base}+{offset}];",
                        low.number, high.number
                    );
                    body.push_str("\tmov.b128 ");
                    write_value(body, &emitter.names, p.value, lane_index);
                    let _ = writeln!(body, ", {{%_d{}, %_d{}}};", low.number, high.number);
                }
                _ => {
                    let _ = write!(body, "\tld.{space}.{} ", memory_type(elem_bits));
                    write_value(body, &emitter.names, p.value, lane_index);
                    let _ = writeln!(body, ", [{base}+{offset}];");
                }
            }
        }
        if p.ty == ValueType::Ptr(AddressSpace::Global) {
            body.push_str("\tcvta.to.global.u64 ");
            write_value(body, &emitter.names, p.value, None);
            body.push_str(", ");
            write_value(body, &emitter.names, p.value, None);
            body.push_str(";\n");
        }
    }
    (results, thread)
}

/// The stores of the used results (into `body`), the declarations (into `out`), then the body.
fn entry_end(state: &mut KernelState<'_>, body: &mut String, out: &mut String) {
    let emitter = &mut state.emitter;
    let kernel = emitter.kernel;
    let name = &state.name;
    let thread = state.thread;
    let results = &state.results;
    for (index, result) in results.iter().enumerate() {
        let ty = kernel.value_type(*result);
        let (class, lanes) = value_class(ty);
        let ValueType::Data(elem, _) = ty else {
            continue;
        };
        let bytes = elem.bytes().max(1) as usize;
        let slot = emitter.temp(Class::B64);
        let _ = writeln!(
            body,
            "\tld.param.u64 %_d{0}, [{name}_out_{index}];\n\tcvta.to.global.u64 %_d{0}, %_d{0};",
            slot.number
        );
        if let Some(thread) = &thread {
            let _ = writeln!(
                body,
                "\tmad.lo.u64 %_d{0}, %_d{1}, {2}, %_d{0};",
                slot.number,
                thread.number,
                bytes * lanes
            );
        }
        for lane in 0..lanes {
            let lane_index = (lanes > 1).then_some(lane);
            if class == Class::B128 {
                let (low, high) = (emitter.temp(Class::B64), emitter.temp(Class::B64));
                let _ = write!(
                    body,
                    "\tmov.b128 {{%_d{}, %_d{}}}, ",
                    low.number, high.number
                );
                write_value(body, &emitter.names, *result, lane_index);
                body.push_str(";\n");
                let _ = writeln!(
                    body,
                    "\tst.global.v2.b64 [%_d{}+{}], {{%_d{}, %_d{}}};",
                    slot.number,
                    lane * bytes,
                    low.number,
                    high.number
                );
            } else {
                let _ = write!(
                    body,
                    "\tst.global.{} [%_d{}+{}], ",
                    memory_type(elem.bits()),
                    slot.number,
                    lane * bytes
                );
                write_value(body, &emitter.names, *result, lane_index);
                body.push_str(";\n");
            }
        }
    }
    // Declarations, then the body.
    for (value, data) in kernel.values.iter() {
        let (class, lanes) = value_class(data.ty);
        if class == Class::B128 && !emitter.target.has(Feature::B128Register) {
            continue;
        }
        for lane in 0..lanes {
            let _ = write!(out, "\t.reg {} ", class.decl());
            write_value(out, &emitter.names, value, (lanes > 1).then_some(lane));
            out.push_str(";\n");
        }
    }
    emitter.declare_temps(out);
    append_buffer(out, body);
    out.push_str("\tret;\n}\n");
}
