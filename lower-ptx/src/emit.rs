//! Printing PTX: one native node ([`KernelEmitter::native`]), the primitives of a shared
//! expansion ([`KernelEmitter::prim`]), and the kernel around them ([`write_kernel`]).
//!
//! Everything is written into `&mut String`s that the caller reuses; the native path allocates
//! nothing per instruction.

use std::fmt::Write;

use atomir_ir::expand::{
    self, BinaryOp, Block, CmpCond, Expansion, MemAttrs, Prim, PrimType, Terminator, UnaryOp, Var,
};
use atomir_ir::{
    AddressSpace, AtomicInst, CacheHint, ElemType, Inst, Kernel, MemoryOrder, Scalar, Value,
    ValueDef, ValueType,
};

use crate::legal::{
    membar_level, order_form, reduction_allowed, scope_name, Fence, Form, Plan, Spelling,
};
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

/// PTX special registers and register prefixes a value name must not take.
const RESERVED: [&str; 28] = [
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
];
const RESERVED_PREFIXES: [&str; 4] = ["lanemask_", "pm", "envreg", "reserved_smem"];

/// Writes the register of a value: `%name` when the name is a plain identifier that clashes with
/// nothing, `%$v<index>_<sanitized>` otherwise; lane `i` of a vector value is `%name$i`.
fn write_value(out: &mut String, kernel: &Kernel, value: Value, lane: Option<usize>) {
    let name = kernel.value_name(value);
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !RESERVED.contains(&name)
        && !RESERVED_PREFIXES.iter().any(|p| name.starts_with(p));
    out.push('%');
    if plain {
        out.push_str(name);
    } else {
        let _ = write!(out, "$v{}_", value.as_u32());
        out.extend(
            name.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }),
        );
    }
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
    reuse: Reuse,
}

/// A pure primitive by what it computes, its operands named by their [`Reuse::same`] variable.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PureKey {
    Unary(UnaryOp, Var, PrimType),
    Binary(BinaryOp, Var, Var),
    Cmp(CmpCond, Var, Var),
}

/// Pure primitives already printed, so that a block entered by one edge reuses what the block
/// before it computed instead of computing it again (a CAS loop's exit block extracts the old
/// element from the word the loop body already extracted it from: on the exit edge the word
/// the CAS returned equals the one it expected).
#[derive(Default)]
struct Reuse {
    /// Per variable: a variable known to hold the same value where the current block runs.
    same: Vec<Var>,
    /// Per `Cmp eq` result: its operands.
    equal_operands: Vec<Option<(Var, Var)>>,
    computed: Vec<(PureKey, Var, Block)>,
    /// The one predecessor of the current block, whose results it may reuse.
    from: Option<Block>,
    /// Variables of the predecessor rewritten on the way to the current block.
    clobbered: Vec<Var>,
}

impl Reuse {
    fn reset(&mut self, vars: usize) {
        self.same.clear();
        self.same.extend((0..vars as u32).map(Var::from_u32));
        self.equal_operands.clear();
        self.equal_operands.resize(vars, None);
        self.computed.clear();
        self.from = None;
        self.clobbered.clear();
    }

    /// Enters `block`: with a single incoming edge, its parameters are copies of the edge's
    /// arguments (or, on the taken side of an equality test, of the other operand).
    fn enter(&mut self, expansion: &Expansion, block: Block) {
        self.from = None;
        self.clobbered.clear();
        let mut incoming = None;
        let mut count = 0;
        for (source, data) in &expansion.blocks {
            for target in data.terminator.successors() {
                if target.block == block {
                    count += 1;
                    incoming = Some((source, &data.terminator, target));
                }
            }
        }
        let Some((source, terminator, edge)) = incoming else {
            return;
        };
        if count != 1 || source == block {
            return;
        }
        let equal = match terminator {
            Terminator::Branch { cond, then, .. } if std::ptr::eq(then, edge) => {
                self.equal_operands[cond.as_u32() as usize]
            }
            _ => None,
        };
        let params = &expansion.blocks[block].params;
        for (param, arg) in params.iter().zip(&edge.args) {
            let mut same = self.same[arg.as_u32() as usize];
            if let Some((x, y)) = equal {
                if *arg == x {
                    same = self.same[y.as_u32() as usize];
                } else if *arg == y {
                    same = self.same[x.as_u32() as usize];
                }
            }
            self.same[param.as_u32() as usize] = same;
        }
        if let Terminator::Branch {
            cond,
            then,
            otherwise,
        } = terminator
        {
            if binds_independently(expansion, *cond, then, otherwise) {
                // The other edge's parameters were set before the branch.
                let other = if std::ptr::eq(then, edge) {
                    otherwise
                } else {
                    then
                };
                let other_params = &expansion.blocks[other.block].params;
                for (param, arg) in other_params.iter().zip(&other.args) {
                    let unchanged = equal.is_some_and(|(x, y)| {
                        (*arg == x && *param == y) || (*arg == y && *param == x)
                    });
                    if !unchanged {
                        self.clobbered.push(*param);
                    }
                }
            }
        }
        self.from = Some(source);
    }

    /// What a pure primitive computes, and the variable it defines.
    fn key(&self, prim: &Prim, expansion: &Expansion) -> Option<(PureKey, Var)> {
        let same = |v: Var| self.same[v.as_u32() as usize];
        match *prim {
            Prim::Unary { dst, op, src } => {
                Some((PureKey::Unary(op, same(src), expansion.vars[dst]), dst))
            }
            Prim::Binary { dst, op, a, b } => Some((PureKey::Binary(op, same(a), same(b)), dst)),
            Prim::Cmp { dst, cond, a, b } => Some((PureKey::Cmp(cond, same(a), same(b)), dst)),
            _ => None,
        }
    }

    fn find(&self, key: PureKey, block: Block) -> Option<Var> {
        let mentions = |v: Var| self.clobbered.contains(&v);
        let clobbered = match key {
            PureKey::Unary(_, a, _) => mentions(a),
            PureKey::Binary(_, a, b) | PureKey::Cmp(_, a, b) => mentions(a) || mentions(b),
        };
        self.computed
            .iter()
            .find(|(k, _, at)| {
                *k == key && (*at == block || (Some(*at) == self.from && !clobbered))
            })
            .map(|(_, dst, _)| *dst)
    }
}

impl<'k> KernelEmitter<'k> {
    pub fn new(target: PtxTarget, kernel: &'k Kernel) -> Self {
        KernelEmitter {
            target,
            kernel,
            counts: [0; 5],
            zero_extended: Vec::new(),
            masked: Vec::new(),
            reuse: Reuse::default(),
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

    fn put(&self, out: &mut String, src: Src) {
        match src {
            Src::Temp(temp) => Self::put_temp(out, temp),
            Src::Value(value, lane) => write_value(out, self.kernel, value, lane),
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

    fn fence(&self, out: &mut String, fence: Fence, plan: &Plan) {
        match fence {
            Fence::Sc => {
                let _ = writeln!(out, "\tfence.sc.{};", scope_name(plan.scope));
            }
            Fence::Membar => {
                let _ = writeln!(out, "\tmembar.{};", membar_level(plan.scope));
            }
        }
    }

    /// Starts a guarded region: a branch over it when the predicate does not hold.
    fn guard_begin(&self, out: &mut String, inst: &AtomicInst, id: Inst) {
        if let Some(predicate) = inst.predicate {
            out.push('\t');
            out.push_str(if predicate.negated { "@" } else { "@!" });
            write_value(out, self.kernel, predicate.value, None);
            let _ = writeln!(out, " bra $L{}_end;", id.as_u32());
        }
    }

    fn guard_end(&self, out: &mut String, inst: &AtomicInst, id: Inst) {
        if inst.predicate.is_some() {
            let _ = writeln!(out, "$L{}_end:", id.as_u32());
        }
    }

    /// Emits one node by its plan.
    pub fn inst(&mut self, out: &mut String, id: Inst, plan: &Plan) {
        // Only atomic nodes get a plan (`legal::supported_node` refuses the rest).
        let Some(inst) = self.kernel.atomic(id) else {
            return;
        };
        match plan.form {
            Form::Native(spelling) => self.native(out, id, inst, plan, spelling),
            Form::Expand(emulation) => {
                let expansion = expand::expand(inst, emulation);
                self.expansion(out, id, inst, plan, &expansion);
            }
        }
    }

    /// The one place a native `atom`/`red` node is printed.
    fn native(&mut self, out: &mut String, id: Inst, inst: &AtomicInst, plan: &Plan, s: Spelling) {
        let lanes = inst.shape.len();
        let single = inst.predicate.is_some()
            && !s.negate
            && !s.hint
            && plan_is_single(self.target, inst.order)
            && operand_is_registers(self.kernel, inst);
        if !single {
            self.guard_begin(out, inst, id);
        }
        let mut operands = [Src::Temp(Temp {
            class: Class::B32,
            number: 0,
        }); 8];
        let mut new_values = operands;
        // Every op the table accepts has an operand (loads are refused).
        let Some(operand) = inst.operand else {
            return;
        };
        for lane in 0..lanes {
            operands[lane] = self.operand(out, operand, lane, inst.ty, s.negate);
            if let Some(new_value) = inst.new_value {
                new_values[lane] = self.operand(out, new_value, lane, inst.ty, false);
            }
        }
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
        let order = order_form(self.target, inst.order);
        if let Some(fence) = order.before {
            self.fence(out, fence, plan);
        }
        out.push('\t');
        if single {
            if let Some(predicate) = inst.predicate {
                out.push_str(if predicate.negated { "@!" } else { "@" });
                write_value(out, self.kernel, predicate.value, None);
                out.push(' ');
            }
        }
        out.push_str(if s.reduction { "red" } else { "atom" });
        if let Some(sem) = order.sem {
            out.push('.');
            out.push_str(sem);
        }
        out.push('.');
        out.push_str(scope_name(plan.scope));
        out.push_str(space_suffix(self.target, inst.space));
        out.push('.');
        out.push_str(s.op);
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
        out.push_str(s.ty);
        out.push(' ');
        if !s.reduction {
            let class = Class::of_bits(inst.ty.bits());
            if inst.shape.is_vector() {
                out.push('{');
            }
            for lane in 0..lanes {
                if lane > 0 {
                    out.push_str(", ");
                }
                match inst.result {
                    Some(result) => {
                        let lane = inst.shape.is_vector().then_some(lane);
                        write_value(out, self.kernel, result, lane);
                    }
                    None => {
                        let temp = self.temp(class);
                        Self::put_temp(out, temp);
                    }
                }
            }
            if inst.shape.is_vector() {
                out.push('}');
            }
            out.push_str(", ");
        }
        out.push('[');
        write_value(out, self.kernel, inst.addr, None);
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
        if let Some(fence) = order.after {
            self.fence(out, fence, plan);
        }
        if !single {
            self.guard_end(out, inst, id);
        }
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
    fn expansion(
        &mut self,
        out: &mut String,
        id: Inst,
        inst: &AtomicInst,
        plan: &Plan,
        expansion: &Expansion,
    ) {
        self.guard_begin(out, inst, id);
        let vars: Vec<Temp> = expansion
            .vars
            .values()
            .map(|ty| self.temp(Class::of_prim(*ty)))
            .collect();
        self.zero_extended.clear();
        self.zero_extended.resize(vars.len(), false);
        self.masked.clear();
        self.masked.resize(vars.len(), None);
        self.reuse.reset(vars.len());
        let var = |v: Var| Src::Temp(vars[v.as_u32() as usize]);
        self.mov(out, var(expansion.addr), Src::Value(inst.addr, None), 64);
        let natural = PrimType::natural(inst.ty).bits();
        if let Some(node_operand) = inst.operand {
            for (lane, operand) in expansion.operands.iter().enumerate() {
                let src = self.operand(out, node_operand, lane, inst.ty, false);
                self.mov(out, var(*operand), src, natural);
            }
        }
        if let Some(new_value) = inst.new_value {
            for (lane, target) in expansion.new_values.iter().enumerate() {
                let src = self.operand(out, new_value, lane, inst.ty, false);
                self.mov(out, var(*target), src, natural);
            }
        }
        let label = |out: &mut String, block: u32| {
            let _ = write!(out, "$L{}_b{}", id.as_u32(), block);
        };
        let last = expansion.blocks.len() as u32 - 1;
        let mut edge = 0u32;
        for (block, data) in &expansion.blocks {
            if block != expansion.entry() {
                label(out, block.as_u32());
                out.push_str(":\n");
            }
            self.masked.fill(None);
            self.reuse.enter(expansion, block);
            for prim in &data.prims {
                self.pure_or_prim(out, inst, plan, prim, &vars, expansion, block);
            }
            let next = block.as_u32() + 1;
            let bind = |this: &mut Self, out: &mut String, target: &expand::Target| {
                let params = &expansion.blocks[target.block].params;
                for (param, arg) in params.iter().zip(&target.args) {
                    let bits = Class::of_prim(expansion.vars[*param]).bits();
                    this.mov(out, var(*param), var(*arg), bits);
                }
            };
            let branch_to = |this: &Self,
                             out: &mut String,
                             guard: Option<(Var, bool)>,
                             target: expand::Block| {
                out.push('\t');
                match guard {
                    Some((cond, negated)) => {
                        out.push_str(if negated { "@!" } else { "@" });
                        this.put(out, var(cond));
                        out.push_str(" bra ");
                    }
                    None => out.push_str("bra.uni "),
                }
                label(out, target.as_u32());
                out.push_str(";\n");
            };
            match &data.terminator {
                Terminator::Jump(target) => {
                    bind(self, out, target);
                    if target.block.as_u32() != next {
                        branch_to(self, out, None, target.block);
                    }
                }
                Terminator::Branch {
                    cond,
                    then,
                    otherwise,
                } if binds_independently(expansion, *cond, then, otherwise) => {
                    // Both edges' block parameters can be set before the branch: then one
                    // conditional branch, falling through to the next block where it is a target
                    // (a CAS loop becomes one backward branch, as ptxas expects of a loop).
                    bind(self, out, then);
                    bind(self, out, otherwise);
                    if otherwise.block.as_u32() == next {
                        branch_to(self, out, Some((*cond, false)), then.block);
                    } else if then.block.as_u32() == next {
                        branch_to(self, out, Some((*cond, true)), otherwise.block);
                    } else {
                        branch_to(self, out, Some((*cond, false)), then.block);
                        branch_to(self, out, None, otherwise.block);
                    }
                }
                Terminator::Branch {
                    cond,
                    then,
                    otherwise,
                } => {
                    out.push_str("\t@");
                    self.put(out, var(*cond));
                    let _ = writeln!(out, " bra $L{}_e{edge};", id.as_u32());
                    bind(self, out, otherwise);
                    branch_to(self, out, None, otherwise.block);
                    let _ = writeln!(out, "$L{}_e{edge}:", id.as_u32());
                    bind(self, out, then);
                    branch_to(self, out, None, then.block);
                    edge += 1;
                }
                Terminator::Return => {
                    if block.as_u32() != last {
                        let _ = writeln!(out, "\tbra.uni $L{}_done;", id.as_u32());
                    }
                }
            }
        }
        if expansion.blocks.len() > 1 {
            let _ = writeln!(out, "$L{}_done:", id.as_u32());
        }
        if let Some(result) = inst.result {
            for (lane, old) in expansion.results.iter().enumerate() {
                let lane = inst.shape.is_vector().then_some(lane);
                self.mov(out, Src::Value(result, lane), var(*old), natural);
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

    /// The one place the primitives of an expansion are printed.
    fn prim(
        &mut self,
        out: &mut String,
        inst: &AtomicInst,
        plan: &Plan,
        prim: &Prim,
        vars: &[Temp],
        expansion: &Expansion,
    ) {
        use Operand::{Imm, T};
        let t = |v: Var| vars[v.as_u32() as usize];
        let ty = |v: Var| expansion.vars[v];
        match *prim {
            Prim::Const { dst, bits } => {
                let width = ty(dst).bits();
                self.mov_const(out, t(dst), width, bits);
                self.zero_extended[dst.as_u32() as usize] = true;
            }
            Prim::Load { dst, addr, mem } => {
                let bits = Class::of_prim(ty(dst)).bits();
                self.load(out, plan, mem, t(dst), t(addr), bits);
            }
            Prim::Cas {
                dst,
                addr,
                expected,
                new,
                mem,
            } => {
                let bits = Class::of_prim(ty(dst)).bits();
                let order = order_form(self.target, mem.order);
                if let Some(fence) = order.before {
                    self.fence(out, fence, plan);
                }
                self.atom_head(out, plan, mem, false);
                let _ = write!(out, ".cas.b{bits} ");
                Self::put_temp(out, t(dst));
                out.push_str(", [");
                Self::put_temp(out, t(addr));
                out.push_str("], ");
                Self::put_temp(out, t(expected));
                out.push_str(", ");
                Self::put_temp(out, t(new));
                out.push_str(";\n");
                if let Some(fence) = order.after {
                    self.fence(out, fence, plan);
                }
            }
            Prim::Rmw {
                dst,
                op,
                ty: elem,
                addr,
                value,
                mem,
            } => {
                let spelling = crate::legal::rmw_spelling(op, elem, self.target)
                    .expect("legality chose a native element");
                let value = if spelling.negate {
                    self.negate(out, Src::Temp(t(value)), elem)
                } else {
                    t(value)
                };
                let reduction =
                    reduction_allowed(inst) && spelling.op != "exch" && spelling.op != "cas";
                let order = order_form(self.target, mem.order);
                if let Some(fence) = order.before {
                    self.fence(out, fence, plan);
                }
                self.atom_head(out, plan, mem, reduction);
                out.push('.');
                out.push_str(spelling.op);
                if spelling.noftz {
                    out.push_str(".noftz");
                }
                out.push('.');
                out.push_str(spelling.ty);
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
                if let Some(fence) = order.after {
                    self.fence(out, fence, plan);
                }
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

    /// Prints a primitive, or a copy of an equal pure one already computed where it may be read.
    #[allow(clippy::too_many_arguments)]
    fn pure_or_prim(
        &mut self,
        out: &mut String,
        inst: &AtomicInst,
        plan: &Plan,
        prim: &Prim,
        vars: &[Temp],
        expansion: &Expansion,
        block: Block,
    ) {
        let Some((key, dst)) = self.reuse.key(prim, expansion) else {
            self.prim(out, inst, plan, prim, vars, expansion);
            return;
        };
        let index = dst.as_u32() as usize;
        if let Some(earlier) = self.reuse.find(key, block) {
            let bits = Class::of_prim(expansion.vars[dst]).bits();
            let earlier_index = earlier.as_u32() as usize;
            self.mov(
                out,
                Src::Temp(vars[index]),
                Src::Temp(vars[earlier_index]),
                bits,
            );
            self.zero_extended[index] = self.zero_extended[earlier_index];
            self.reuse.same[index] = self.reuse.same[earlier_index];
            self.reuse.equal_operands[index] = self.reuse.equal_operands[earlier_index];
            return;
        }
        self.prim(out, inst, plan, prim, vars, expansion);
        if let Prim::Cmp {
            cond: CmpCond::Eq,
            a,
            b,
            ..
        } = *prim
        {
            self.reuse.equal_operands[index] = Some((a, b));
        }
        self.reuse.computed.push((key, dst, block));
    }

    /// `atom{.sem}.<scope>{.space}` or `red…` of a primitive (order fences printed by the caller).
    fn atom_head(&self, out: &mut String, plan: &Plan, mem: MemAttrs, reduction: bool) {
        out.push_str(if reduction { "\tred" } else { "\tatom" });
        if let Some(sem) = order_form(self.target, mem.order).sem {
            out.push('.');
            out.push_str(sem);
        }
        out.push('.');
        out.push_str(scope_name(plan.scope));
        out.push_str(space_suffix(self.target, mem.space));
    }

    /// An atomic load: `ld.relaxed`/`ld.acquire` with the scope (sm_70+), `ld.volatile` plus
    /// membars before.
    fn load(&self, out: &mut String, plan: &Plan, mem: MemAttrs, dst: Temp, addr: Temp, bits: u32) {
        let order = if mem.order.has_acquire() {
            MemoryOrder::Acquire
        } else {
            MemoryOrder::Relaxed
        };
        if mem.order == MemoryOrder::SeqCst {
            let fence = if self.target.has(Feature::Sem) {
                Fence::Sc
            } else {
                Fence::Membar
            };
            self.fence(out, fence, plan);
        }
        if self.target.has(Feature::Sem) {
            let sem = if order == MemoryOrder::Acquire {
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
        if order == MemoryOrder::Acquire && !self.target.has(Feature::Sem) {
            self.fence(out, Fence::Membar, plan);
        }
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
        let (infinity, canonical) = match ty {
            PrimType::F16 => (0x7c00u128, 0x7e00u128),
            PrimType::Bf16 => (0x7f80, 0x7fc0),
            PrimType::F32 => (0x7f80_0000, 0x7fc0_0000),
            _ => (0x7ff0_0000_0000_0000, 0x7ff8_0000_0000_0000),
        };
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

/// Whether the order is spelled on the instruction alone (no fence or membar around it).
fn plan_is_single(target: PtxTarget, order: MemoryOrder) -> bool {
    let form = order_form(target, order);
    form.before.is_none() && form.after.is_none()
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

/// Whether a branch's two edges can bind their block parameters one after the other, before the
/// branch: the two targets' parameters are distinct, no argument or the condition is one of them.
fn binds_independently(
    expansion: &Expansion,
    cond: Var,
    then: &expand::Target,
    otherwise: &expand::Target,
) -> bool {
    let params_of = |target: &expand::Target| &expansion.blocks[target.block].params;
    let written = || params_of(then).iter().chain(params_of(otherwise).iter());
    then.block != otherwise.block
        && !written().any(|param| *param == cond)
        && !then
            .args
            .iter()
            .chain(otherwise.args.iter())
            .any(|arg| written().any(|param| param == arg))
}

/// Writes one whole kernel: a listing, an `.entry`, or a per-thread test entry.
pub(crate) fn write_kernel(
    target: PtxTarget,
    kernel: &Kernel,
    plans: &[Plan],
    chosen: &[u32],
    mode: ParamMode,
    body: &mut String,
    out: &mut String,
) {
    let mut emitter = KernelEmitter::new(target, kernel);
    body.clear();
    if mode == ParamMode::Listing {
        let _ = writeln!(out, "// kernel {} (ptx:{target})", kernel.name);
        for (id, &plan) in kernel.insts.keys().zip(chosen) {
            emitter.inst(out, id, &plans[plan as usize]);
        }
        return;
    }
    // Parameters are loaded into the value registers first.
    let name = sanitize_name(&kernel.name);
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
                    write_value(body, kernel, p.value, None);
                    let _ = writeln!(body, ", %_r{}, 0;", raw.number);
                }
                Class::B128 => {
                    let (low, high) = (emitter.temp(Class::B64), emitter.temp(Class::B64));
                    let _ = writeln!(
                        body,
                        "\tld.{space}.v2.b64 {{%_d{}, %_d{}}}, [{base}+{offset}];",
                        low.number, high.number
                    );
                    body.push_str("\tmov.b128 ");
                    write_value(body, kernel, p.value, lane_index);
                    let _ = writeln!(body, ", {{%_d{}, %_d{}}};", low.number, high.number);
                }
                _ => {
                    let _ = write!(body, "\tld.{space}.{} ", memory_type(elem_bits));
                    write_value(body, kernel, p.value, lane_index);
                    let _ = writeln!(body, ", [{base}+{offset}];");
                }
            }
        }
        if p.ty == ValueType::Ptr(AddressSpace::Global) {
            body.push_str("\tcvta.to.global.u64 ");
            write_value(body, kernel, p.value, None);
            body.push_str(", ");
            write_value(body, kernel, p.value, None);
            body.push_str(";\n");
        }
    }
    for (id, &plan) in kernel.insts.keys().zip(chosen) {
        emitter.inst(body, id, &plans[plan as usize]);
    }
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
                write_value(body, kernel, *result, lane_index);
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
                write_value(body, kernel, *result, lane_index);
                body.push_str(";\n");
            }
        }
    }
    // Declarations, then the body.
    for (value, data) in kernel.values.iter() {
        let (class, lanes) = value_class(data.ty);
        for lane in 0..lanes {
            let _ = write!(out, "\t.reg {} ", class.decl());
            write_value(out, kernel, value, (lanes > 1).then_some(lane));
            out.push_str(";\n");
        }
    }
    emitter.declare_temps(out);
    out.push_str(body);
    out.push_str("\tret;\n}\n");
}

/// A kernel name as a PTX identifier.
pub(crate) fn sanitize_name(name: &str) -> String {
    let mut text: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        text.insert(0, '_');
    }
    text
}
