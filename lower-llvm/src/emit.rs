//! The frame of the output: LLVM types and value names, functions, kernels and modules. Atomic
//! instructions are printed by [`crate::native`] (the one place that spells `atomicrmw`,
//! `cmpxchg`, atomic loads and fences) and [`crate::expansion`] (the shared expansions' CFGs).

use std::borrow::Cow;
use std::fmt::{self, Write};

use atomir_ir::expand::{Block, Prim, PrimType, Var};
use atomir_ir::lower::{
    self, At, Expanding, Fence, FenceBracket, Fragment, FragmentResult, NameRules, Namer, Params,
    Printer, SpliceNames, Unprintable, PTX_ENTRY_NAMES,
};
use atomir_ir::{
    AtomicInst, Constant, ElemType, Inst, Kernel, Module, Operand, Scalar, Value, ValueDef,
    ValueType,
};
use cranelift_entity::SecondaryMap;

use crate::ldst_emit::{self, Builtins};
use crate::legality::{Form, LlvmPlan};
use crate::native::Mem;
use crate::target::{LlvmTarget, Triple};
use crate::{expansion, native, vulkan};

/// A scalar LLVM type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scal {
    I(u32),
    Half,
    BFloat,
    F32,
    F64,
}

impl Scal {
    /// The type that holds a value of `ty` as the program sees it (see [`PrimType::natural`]).
    pub(crate) const fn natural(ty: ElemType) -> Scal {
        match ty {
            ElemType::F16 => Scal::Half,
            ElemType::Bf16 => Scal::BFloat,
            ElemType::F32 => Scal::F32,
            ElemType::F64 => Scal::F64,
            other => Scal::I(other.bits()),
        }
    }
}

impl fmt::Display for Scal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scal::I(bits) => write!(f, "i{bits}"),
            Scal::Half => f.write_str("half"),
            Scal::BFloat => f.write_str("bfloat"),
            Scal::F32 => f.write_str("float"),
            Scal::F64 => f.write_str("double"),
        }
    }
}

/// An LLVM first-class type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    S(Scal),
    /// `<len x scal>`.
    V(u32, Scal),
    /// A pointer into `space`; `pointee` is printed only with typed pointers (LLVM 14), as
    /// `(len, scal)` with len 1 for a scalar.
    Ptr {
        space: u32,
        pointee: Option<(u32, Scal)>,
    },
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Ty::S(s) => write!(f, "{s}"),
            Ty::V(len, s) => write!(f, "<{len} x {s}>"),
            Ty::Ptr { space, pointee } => {
                match pointee {
                    None => f.write_str("ptr")?,
                    Some((1, s)) => write!(f, "{s}")?,
                    Some((len, s)) => write!(f, "<{len} x {s}>")?,
                }
                if space != 0 {
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

/// A reference to an LLVM value, printed without allocating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ref {
    /// A kernel parameter, printed by its own name.
    Param(Value),
    /// The `n`-th temporary of instruction `inst`: `%.<inst>.<n>`.
    Tmp(u32, u32),
    /// Variable `var` of instruction `inst`'s expansion.
    Var(u32, Var),
    /// A literal of a scalar type, from raw bits.
    Lit(u128, Scal),
    /// `zeroinitializer`.
    Zero,
    /// A pointer parameter of a Vulkan frame, viewed as the element type accessed through it
    /// (see [`crate::vulkan`]).
    Bound(Value, Scal),
}

/// Where the numbers of expansion variables start: an instruction prints far fewer temporaries.
const VAR_NUMBERS: u32 = 1_000_000;

/// Parameter names: any string, quoted where needed, but none starting with `.`, which every
/// name the printer makes up does (`%.<inst>.<n>`, `%.out<i>`, `.entry`, `.<inst>.b<k>`).
static VALUE_NAMES: NameRules = NameRules {
    char_ok: |_| true,
    well_formed: |name| !name.is_empty(),
    lead: "v",
    keywords: &[],
    prefixes: &["."],
    suffixes: &[],
};

/// Function names: any string, quoted where needed, but not LLVM's own `llvm.` namespace, which
/// llvm-as keeps for intrinsics. NVPTX function names become PTX symbols:
/// [`PTX_ENTRY_NAMES`] there.
static FUNCTION_NAMES: NameRules = NameRules {
    char_ok: |_| true,
    well_formed: |name| !name.is_empty(),
    lead: "k",
    keywords: &[],
    prefixes: &["llvm."],
    suffixes: &[],
};

/// Writes `name` as an LLVM identifier after `sigil`, quoting it where it has other characters.
/// Generic over the sink so that a [`Shown`] reference prints without a scratch string.
pub(crate) fn write_ident<W: Write + ?Sized>(out: &mut W, sigil: char, name: &str) -> fmt::Result {
    let plain = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '$' | '.' | '_'));
    out.write_char(sigil)?;
    if plain {
        return out.write_str(name);
    }
    out.write_char('"')?;
    for c in name.chars() {
        if c == '"' || c == '\\' || !c.is_ascii() || c.is_ascii_control() {
            let mut buf = [0u8; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                write!(out, "\\{byte:02X}")?;
            }
        } else {
            out.write_char(c)?;
        }
    }
    out.write_char('"')
}

/// Prints one kernel's instructions; holds the per-kernel naming state.
pub(crate) struct Emitter<'a> {
    pub target: LlvmTarget,
    pub kernel: &'a Kernel,
    /// Where each atomic result lives once printed.
    pub results: SecondaryMap<Value, Option<Ref>>,
    /// The instruction being printed (names its temporaries and blocks).
    pub inst: u32,
    next_tmp: u32,
    /// The label of the block being printed.
    pub label: Label,
    /// The label of the block before the current instruction.
    before: Label,
    /// The current expansion's registers, by variable.
    pub(crate) refs: Vec<Ref>,
    /// The current expansion's old value, once its return block is printed.
    pub(crate) result: Option<Ref>,
    /// The number of the node's address space.
    pub(crate) space: u32,
    /// The name of each value, by index.
    names: Vec<Cow<'a, str>>,
    /// The kernel's index in the module.
    pub(crate) kernel_index: usize,
    /// Whether addresses are the views a Vulkan frame binds (a complete Vulkan module).
    pub(crate) bound: bool,
    /// The names of a spliced fragment: every value is the client's, what the printer makes up
    /// carries the prefix.
    splice: Option<&'a SpliceNames>,
    /// The instruction a spliced fragment holds.
    spliced_inst: Option<Inst>,
    /// In a fragment, its result where the client left it unbound, with the fragment's name.
    unbound_result: Option<(Value, String)>,
}

/// A block label: the entry, or block `k` / the end of instruction `inst`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Label {
    Entry,
    Block(u32, u32),
    End(u32),
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Label::Entry => f.write_str(".entry"),
            Label::Block(inst, k) => write!(f, ".{inst}.b{k}"),
            Label::End(inst) => write!(f, ".{inst}.end"),
        }
    }
}

/// Displays a [`Label`] with the emitter's names: a kernel's (`.3.b1`), or in a spliced
/// fragment the client's blocks around it and `<prefix>b1`, `<prefix>end` inside.
pub(crate) struct ShownLabel<'e, 'a>(&'e Emitter<'a>, Label);

impl fmt::Display for ShownLabel<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(splice) = self.0.splice else {
            return self.1.fmt(f);
        };
        match (self.1, splice.blocks()) {
            // A plain identifier: the driver checked.
            (Label::Entry, Some((predecessor, _))) => f.write_str(predecessor),
            (Label::Entry, None) => splice.write_made(f, "entry", None),
            (Label::Block(_, k), _) => splice.write_made(f, "b", Some(k)),
            (Label::End(_), _) => splice.write_made(f, "end", None),
        }
    }
}

/// Displays a [`Ref`] with the emitter's names.
pub(crate) struct Shown<'e, 'a>(&'e Emitter<'a>, Ref);

impl fmt::Display for Shown<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.1, self.0.splice) {
            (Ref::Tmp(_, n), Some(splice)) => {
                f.write_char('%')?;
                splice.write_made(f, "t", Some(n))
            }
            (Ref::Var(_, var), Some(splice)) => {
                f.write_char('%')?;
                splice.write_made(f, "v", Some(var.as_u32()))
            }
            (r, _) => self.show_in_kernel(f, r),
        }
    }
}

impl Shown<'_, '_> {
    fn show_in_kernel(&self, f: &mut fmt::Formatter<'_>, r: Ref) -> fmt::Result {
        match r {
            Ref::Param(value) => write_ident(f, '%', self.0.name(value)),
            Ref::Tmp(inst, n) => write!(f, "%.{inst}.{n}"),
            // Numbered far above the instruction's temporaries, which count from 1.
            Ref::Var(inst, var) => write!(f, "%.{inst}.{}", VAR_NUMBERS + var.as_u32()),
            Ref::Lit(bits, scal) => write_literal(f, bits, scal),
            Ref::Zero => f.write_str("zeroinitializer"),
            Ref::Bound(value, scal) => vulkan::bound_address(f, self.0, value, scal),
        }
    }
}

fn write_literal(f: &mut fmt::Formatter<'_>, bits: u128, scal: Scal) -> fmt::Result {
    match scal {
        Scal::I(width) => {
            let mask = if width >= 128 {
                u128::MAX
            } else {
                (1u128 << width) - 1
            };
            write!(f, "{}", bits & mask)
        }
        Scal::Half => write!(f, "0xH{:04X}", bits as u16),
        Scal::BFloat => write!(f, "0xR{:04X}", bits as u16),
        Scal::F32 => write!(f, "0x{:016X}", f32_bits_as_f64_bits(bits as u32)),
        Scal::F64 => write!(f, "0x{:016X}", bits as u64),
    }
}

/// LLVM writes `float` literals in `double` format; the conversion is exact and keeps NaN
/// payloads (a hardware conversion would quiet a signalling NaN).
fn f32_bits_as_f64_bits(bits: u32) -> u64 {
    let value = f32::from_bits(bits);
    if value.is_nan() {
        let sign = u64::from(bits >> 31) << 63;
        let mantissa = u64::from(bits & 0x7F_FFFF) << 29;
        sign | (0x7FFu64 << 52) | mantissa
    } else {
        f64::from(value).to_bits()
    }
}

impl<'a> Emitter<'a> {
    pub(crate) fn new(target: LlvmTarget, kernel: &'a Kernel) -> Self {
        let mut names = Vec::new();
        let values = kernel.values.values().map(|data| &data.name[..]);
        Namer::new(&VALUE_NAMES).assign_distinct(values, &mut names);
        Emitter {
            target,
            kernel,
            results: SecondaryMap::with_capacity(kernel.values.len()),
            inst: 0,
            next_tmp: 0,
            label: Label::Entry,
            before: Label::Entry,
            refs: Vec::new(),
            result: None,
            space: 0,
            names,
            kernel_index: 0,
            bound: false,
            splice: None,
            spliced_inst: None,
            unbound_result: None,
        }
    }

    /// An emitter for one instruction of `kernel` spliced into the client's function: every
    /// value is the client's SSA value, an unbound result is `%<prefix>result`.
    pub(crate) fn spliced(
        target: LlvmTarget,
        kernel: &'a Kernel,
        inst: Inst,
        splice: &'a SpliceNames,
    ) -> Self {
        let result = kernel.atomic(inst).and_then(|atomic| atomic.result);
        let unbound = result.filter(|&value| splice.name(value).is_none());
        Emitter {
            splice: Some(splice),
            spliced_inst: Some(inst),
            unbound_result: unbound.map(|value| (value, splice.made("result", None))),
            ..Emitter::new_unnamed(target, kernel)
        }
    }

    fn new_unnamed(target: LlvmTarget, kernel: &'a Kernel) -> Self {
        Emitter {
            target,
            kernel,
            results: SecondaryMap::new(),
            inst: 0,
            next_tmp: 0,
            label: Label::Entry,
            before: Label::Entry,
            refs: Vec::new(),
            result: None,
            space: 0,
            names: Vec::new(),
            kernel_index: 0,
            bound: false,
            splice: None,
            spliced_inst: None,
            unbound_result: None,
        }
    }

    pub(crate) fn show_label(&self, label: Label) -> ShownLabel<'_, 'a> {
        ShownLabel(self, label)
    }

    /// A value's name in the function.
    pub(crate) fn name(&self, value: Value) -> &str {
        match (self.splice, &self.unbound_result) {
            (_, Some((result, name))) if *result == value => name,
            (Some(splice), _) => splice.name(value).unwrap_or(""),
            (None, _) => &self.names[value.as_u32() as usize],
        }
    }

    pub(crate) fn show(&self, r: Ref) -> Shown<'_, 'a> {
        Shown(self, r)
    }

    pub(crate) fn fresh(&mut self) -> Ref {
        self.next_tmp += 1;
        Ref::Tmp(self.inst, self.next_tmp)
    }

    /// The raw pointer type (`ptr addrspace(N)`, or `i8 addrspace(N)*` with typed pointers).
    pub(crate) fn raw_ptr(&self, space: u32) -> Ty {
        Ty::Ptr {
            space,
            pointee: self.target.typed_pointers().then_some((1, Scal::I(8))),
        }
    }

    /// A pointer to `(len, scal)` in `space`, for a memory instruction.
    pub(crate) fn elem_ptr(&self, space: u32, len: u32, scal: Scal) -> Ty {
        Ty::Ptr {
            space,
            pointee: self.target.typed_pointers().then_some((len, scal)),
        }
    }

    /// The LLVM type of a kernel value.
    pub(crate) fn value_ty(&self, ty: ValueType) -> Ty {
        match ty {
            ValueType::Ptr(space) => {
                let generic = self.target.address_space(atomir_ir::AddressSpace::Generic);
                self.raw_ptr(self.target.address_space(space).or(generic).unwrap_or(0))
            }
            ValueType::Pred => Ty::S(Scal::I(1)),
            ValueType::Data(elem, shape) if shape.is_vector() => {
                Ty::V(shape.len() as u32, Scal::natural(elem))
            }
            ValueType::Data(elem, _) => Ty::S(Scal::natural(elem)),
        }
    }

    pub(crate) fn prim_ty(&self, ty: PrimType, space: u32) -> Ty {
        match ty {
            PrimType::Pred => Ty::S(Scal::I(1)),
            PrimType::Ptr => self.raw_ptr(space),
            PrimType::F16 => Ty::S(Scal::Half),
            PrimType::Bf16 => Ty::S(Scal::BFloat),
            PrimType::F32 => Ty::S(Scal::F32),
            PrimType::F64 => Ty::S(Scal::F64),
            int => Ty::S(Scal::I(int.bits())),
        }
    }

    /// Where a kernel value lives.
    pub(crate) fn value_ref(&self, value: Value) -> Ref {
        if self.splice.is_some() {
            return Ref::Param(value);
        }
        match self.kernel.values[value].def {
            ValueDef::Param(_) => Ref::Param(value),
            ValueDef::Result(_) => self.results[value].unwrap_or(Ref::Zero),
        }
    }

    /// The node's address in the node's own space (an `addrspacecast` when the pointer's differs).
    pub(crate) fn node_addr(&mut self, out: &mut String, inst: &AtomicInst, space: u32) -> Ref {
        if self.bound {
            return Ref::Bound(inst.addr, vulkan::access_type(inst.ty));
        }
        let addr = self.value_ref(inst.addr);
        let from = self.value_ty(self.kernel.value_type(inst.addr));
        let to = self.raw_ptr(space);
        if from == to {
            return addr;
        }
        let dst = self.fresh();
        let _ = writeln!(
            out,
            "  {} = addrspacecast {from} {} to {to}",
            self.show(dst),
            self.show(addr)
        );
        dst
    }

    /// Element `index` of an operand, as a scalar of `want` (bitcast where a `bN` node takes
    /// another type of the same width; extracted where the operand is a vector value).
    pub(crate) fn operand_element(
        &mut self,
        out: &mut String,
        operand: Operand,
        index: usize,
        want: Scal,
    ) -> Ref {
        let scalar = match operand {
            Operand::Scalar(scalar) => scalar,
            Operand::Vector(list) => self.kernel.vector_elements(list)[index],
        };
        let value = match scalar {
            Scalar::Const(constant) => return Ref::Lit(self.constant(constant), want),
            Scalar::Value(value) => value,
        };
        let mut current = self.value_ref(value);
        let (elem, shape) = match self.kernel.value_type(value) {
            ValueType::Data(elem, shape) => (elem, shape),
            _ => return current,
        };
        let have = Scal::natural(elem);
        if shape.is_vector() {
            let dst = self.fresh();
            let _ = writeln!(
                out,
                "  {} = extractelement <{} x {have}> {}, i32 {index}",
                self.show(dst),
                shape.len(),
                self.show(current)
            );
            current = dst;
        }
        if have != want {
            let dst = self.fresh();
            let _ = writeln!(
                out,
                "  {} = bitcast {have} {} to {want}",
                self.show(dst),
                self.show(current)
            );
            current = dst;
        }
        current
    }

    fn constant(&self, constant: Constant) -> u128 {
        self.kernel.constants[constant]
    }

    /// Starts instruction `index`: a branch over it where it is predicated, and its first block.
    pub(crate) fn instruction_begin(&mut self, out: &mut String, index: u32, inst: &AtomicInst) {
        self.inst = index;
        self.next_tmp = 0;
        self.before = self.label;
        let first = Label::Block(index, 0);
        let end = Label::End(index);
        match inst.predicate {
            Some(predicate) => {
                let (then, otherwise) = if predicate.negated {
                    (end, first)
                } else {
                    (first, end)
                };
                let cond = self.value_ref(predicate.value);
                let _ = writeln!(
                    out,
                    "  br i1 {}, label %{}, label %{}",
                    self.show(cond),
                    self.show_label(then),
                    self.show_label(otherwise)
                );
            }
            None => {
                let _ = writeln!(out, "  br label %{}", self.show_label(first));
            }
        }
        let _ = writeln!(out, "{}:", self.show_label(first));
        self.label = first;
    }

    /// Ends the current instruction: its end block, where a predicated result meets zero.
    pub(crate) fn instruction_end(
        &mut self,
        out: &mut String,
        inst: &AtomicInst,
        result: Option<Ref>,
    ) {
        let index = self.inst;
        let end = Label::End(index);
        let end = self.show_label(end);
        let _ = writeln!(out, "  br label %{end}\n{end}:");
        let from = self.label;
        self.label = Label::End(index);
        let (Some(value), Some(mut result)) = (inst.result, result) else {
            return;
        };
        // A fragment defines the result under its name, which only a phi can do in SSA.
        if inst.predicate.is_some() || self.splice.is_some() {
            let ty = self.value_ty(inst.result_type());
            let dst = match self.splice {
                Some(_) => Ref::Param(value),
                None => self.fresh(),
            };
            let _ = write!(
                out,
                "  {} = phi {ty} [ {}, %{} ]",
                self.show(dst),
                self.show(result),
                self.show_label(from)
            );
            if inst.predicate.is_some() {
                let before = self.show_label(self.before);
                let _ = write!(out, ", [ zeroinitializer, %{before} ]");
            }
            out.push('\n');
            result = dst;
        }
        self.results[value] = Some(result);
    }
}

/// The LLVM printer of one lowering: each kernel a `define [cc] void @name(params…, results…)`.
///
/// Every used result is stored through a trailing pointer parameter (one per result, in program
/// order, in global memory), so the old values are observable by whoever launches the kernel.
pub struct LlvmPrinter<'m> {
    target: LlvmTarget,
    complete: bool,
    emitter: Option<Emitter<'m>>,
    /// The function name of each kernel of the module, by index.
    function_names: Vec<Cow<'m, str>>,
    /// The frame of a complete Vulkan module.
    vulkan: Option<vulkan::Frame>,
    /// Why the current kernel cannot be printed in its frame, if it cannot.
    unprintable: Option<String>,
    /// The builtins the module calls (SPIR-V loads, stores and fences).
    builtins: Builtins,
}

impl<'m> LlvmPrinter<'m> {
    pub(crate) fn new(target: LlvmTarget, complete: bool) -> Self {
        LlvmPrinter {
            target,
            complete,
            emitter: None,
            function_names: Vec::new(),
            vulkan: (complete && target.triple == Triple::SpirvVulkan).then(vulkan::Frame::default),
            unprintable: None,
            builtins: Builtins::default(),
        }
    }

    fn emitter(&mut self) -> Result<&mut Emitter<'m>, Unprintable> {
        if let Some(message) = &self.unprintable {
            return Err(Unprintable(message.clone()));
        }
        self.emitter
            .as_mut()
            .ok_or_else(|| Unprintable("an instruction outside a kernel".into()))
    }
}

impl<'m> Printer<'m> for LlvmPrinter<'m> {
    type Plan = LlvmPlan;

    fn module_begin(&mut self, module: &'m Module, out: &mut String) {
        let kernels = module.kernels.iter().map(|kernel| kernel.name.as_str());
        let rules = match self.target.triple {
            Triple::Nvptx64 => &PTX_ENTRY_NAMES,
            _ => &FUNCTION_NAMES,
        };
        Namer::new(rules).assign_distinct(kernels, &mut self.function_names);
        if self.complete {
            out.push_str("target triple = \"");
            out.push_str(self.target.triple.triple_string());
            out.push_str("\"\n\n");
        }
    }

    fn kernel_begin(&mut self, kernel: &'m Kernel, index: usize, out: &mut String) {
        let target = &self.target;
        let mut em = Emitter::new(*target, kernel);
        if let Some(frame) = &mut self.vulkan {
            em.kernel_index = index;
            em.bound = true;
            let name = self.function_names.get(index).map_or("", |name| &**name);
            self.unprintable = frame.kernel_begin(&em, name, index, out);
            self.emitter = Some(em);
            return;
        }
        out.push_str("define ");
        if self.complete {
            if let Some(cc) = target.triple.kernel_cc() {
                out.push_str(cc);
                out.push(' ');
            }
        }
        out.push_str("void ");
        let name = self.function_names.get(index).map_or("", |name| &**name);
        let _ = write_ident(out, '@', name);
        out.push('(');
        let mut first = true;
        for param in &kernel.params {
            if !first {
                out.push_str(", ");
            }
            first = false;
            let _ = write!(out, "{} ", em.value_ty(param.ty));
            let _ = write_ident(out, '%', em.name(param.value));
        }
        let result_space = target.triple.result_space();
        for (index, inst) in kernel.insts.values().enumerate() {
            let Some(inst) = inst.as_atomic().filter(|inst| inst.result.is_some()) else {
                continue;
            };
            if !first {
                out.push_str(", ");
            }
            first = false;
            let _ = write!(out, "{} %.out{index}", result_ptr(&em, inst, result_space));
        }
        out.push_str(") {\n.entry:\n");
        self.emitter = Some(em);
    }

    fn whole(
        &mut self,
        at: At<'_>,
        plan: &LlvmPlan,
        bracket: FenceBracket,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let builtins = &mut self.builtins;
        let em = self
            .emitter
            .as_mut()
            .ok_or_else(|| Unprintable("an instruction outside a kernel".into()))?;
        em.instruction_begin(out, at.inst.as_u32(), at.atomic);
        let result = match plan.form {
            Form::VectorRmw => native::vector_rmw(em, out, at.atomic, plan, bracket),
            Form::LoadStore { spelling, .. } => {
                ldst_emit::load_store(em, out, at.atomic, plan, bracket, spelling, builtins)
            }
            Form::Expand(_) | Form::Fence(_) => {
                return Err(Unprintable(format!("{:?} is not printed whole", plan.form)))
            }
        };
        em.instruction_end(out, at.atomic, result);
        Ok(())
    }

    fn fence(
        &mut self,
        _inst: Inst,
        fence: &atomir_ir::Fence,
        plan: &LlvmPlan,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let Form::Fence(spelling) = plan.form else {
            return Err(Unprintable(format!("{:?} is not a fence", plan.form)));
        };
        let builtins = &mut self.builtins;
        let em = self
            .emitter
            .as_ref()
            .ok_or_else(|| Unprintable("a fence outside a kernel".into()))?;
        if em.splice.is_some() {
            // A fragment begins with its predecessor's terminator, a fence's too.
            let first = em.show_label(Label::Block(0, 0));
            let _ = writeln!(out, "  br label %{first}\n{first}:");
        }
        ldst_emit::fence(em, out, fence.order, plan, spelling, builtins);
        Ok(())
    }

    const PARAMS: Params = Params::Phis;

    fn expansion_begin(
        &mut self,
        x: &Expanding<'_, LlvmPlan>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let em = self.emitter()?;
        em.instruction_begin(out, x.inst.as_u32(), x.atomic);
        expansion::bind(em, out, x.atomic, x.expansion);
        Ok(())
    }

    fn block(&mut self, x: &Expanding<'_, LlvmPlan>, block: Block, entry: bool, out: &mut String) {
        if let Ok(em) = self.emitter() {
            expansion::block(em, out, x.expansion, block, entry);
        }
    }

    fn prim(
        &mut self,
        x: &Expanding<'_, LlvmPlan>,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let em = self.emitter()?;
        expansion::primitive(em, out, x.plan, x.expansion, prim, bracket)
    }

    fn copy(&mut self, _x: &Expanding<'_, LlvmPlan>, _dst: Var, _src: Var, _out: &mut String) {}

    fn branch(
        &mut self,
        _x: &Expanding<'_, LlvmPlan>,
        _cond: Var,
        _negated: bool,
        _to: lower::Label,
        _out: &mut String,
    ) {
    }

    fn jump(&mut self, _x: &Expanding<'_, LlvmPlan>, _to: lower::Label, _out: &mut String) {}

    fn label(&mut self, _x: &Expanding<'_, LlvmPlan>, _label: lower::Label, _out: &mut String) {}

    fn terminator(
        &mut self,
        x: &Expanding<'_, LlvmPlan>,
        block: Block,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let em = self.emitter()?;
        expansion::terminator(em, out, x.atomic, x.expansion, block);
        Ok(())
    }

    fn expansion_fence(
        &mut self,
        x: &Expanding<'_, LlvmPlan>,
        fence: Fence,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let em = self.emitter()?;
        let mem = Mem::of(em, FenceBracket::bare(fence.order), x.plan, x.atomic.space);
        native::fence(out, &mem, Some(fence));
        Ok(())
    }

    fn expansion_end(
        &mut self,
        x: &Expanding<'_, LlvmPlan>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let em = self.emitter()?;
        let result = em.result.take();
        em.instruction_end(out, x.atomic, result);
        Ok(())
    }

    fn kernel_end(&mut self, out: &mut String) {
        let Some(em) = self.emitter.take() else {
            return;
        };
        self.unprintable = None;
        if let Some(frame) = &mut self.vulkan {
            frame.kernel_end(&em, em.kernel_index, out);
            return;
        }
        let result_space = self.target.triple.result_space();
        for (index, inst) in em.kernel.insts.values().enumerate() {
            let Some((inst, value)) = inst
                .as_atomic()
                .and_then(|inst| inst.result.map(|value| (inst, value)))
            else {
                continue;
            };
            let ty = em.value_ty(inst.result_type());
            let r = em.value_ref(value);
            let _ = writeln!(
                out,
                "  store {ty} {}, {} %.out{index}",
                em.show(r),
                result_ptr(&em, inst, result_space)
            );
        }
        out.push_str("  ret void\n}\n\n");
    }

    const SPLICES_LANES: bool = false;

    fn splice_begin(
        &mut self,
        kernel: &'m Kernel,
        inst: Inst,
        names: &'m SpliceNames,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        if self.complete {
            return Err(Unprintable(
                "a spliced fragment in a complete module".into(),
            ));
        }
        self.emitter = Some(Emitter::spliced(self.target, kernel, inst, names));
        Ok(())
    }

    fn splice_end(&mut self, out: &mut String, fragment: &mut Fragment) -> Result<(), Unprintable> {
        let em = self
            .emitter
            .take()
            .ok_or_else(|| Unprintable("a fragment's end outside a fragment".into()))?;
        let splice = em
            .splice
            .ok_or_else(|| Unprintable("a fragment's end outside a fragment".into()))?;
        fragment
            .declarations
            .extend(self.builtins.take().map(|line| line.trim_end().to_owned()));
        out.push_str("  br label %");
        let _ = match splice.blocks() {
            Some((_, continuation)) => out.write_str(continuation),
            None => splice.write_made(out, "cont", None),
        };
        out.push('\n');
        let result = em
            .spliced_inst
            .and_then(|inst| em.kernel.atomic(inst))
            .and_then(|atomic| atomic.result);
        if let Some(value) = result {
            fragment.results.push(FragmentResult {
                value,
                names: smallvec::smallvec![em.name(value).to_owned()],
                bound: splice.binding(value).is_some(),
            });
        }
        Ok(())
    }

    fn module_end(&mut self, out: &mut String) {
        if let Some(frame) = &self.vulkan {
            frame.module_end(out);
        }
        self.builtins.print(out);
        if self.target.coarse_grained {
            out.push_str("!0 = !{}\n");
        }
    }
}

fn result_ptr(em: &Emitter<'_>, inst: &AtomicInst, space: u32) -> Ty {
    match em.value_ty(inst.result_type()) {
        Ty::S(s) => em.elem_ptr(space, 1, s),
        Ty::V(len, s) => em.elem_ptr(space, len, s),
        ptr => ptr,
    }
}
