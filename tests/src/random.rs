//! Random valid modules, deterministic by seed, covering what the text form allows.
//!
//! [`module`] builds a [`Module`] through the public API (`Kernel::add_param`, `constant`,
//! `vector`, `push`) and, alongside it, a text spelling of the same module that uses the text
//! form's freedoms: omitted default qualifiers, every literal spelling (decimal, hex in either
//! case with leading zeros, negative, `inf`/`nan`, float decimals with exponents), comments and
//! odd spacing. [`check_text_path`] parses that text (and the canonical print) back and compares
//! the result with the built module, field by field.
//!
//! What a module holds: 1–[`Config::max_kernels`] kernels, each of 1–[`Config::max_insts`]
//! instructions: atomics (read-modify-writes, loads and stores) of any op × type × shape ×
//! order × scope × space the verifier accepts, and fences of every order and scope; cache hints,
//! predicates and negated predicates, results read by later atomics (as scalars, vector values
//! and brace-list elements), repeated atomics, unused parameters of every type, and names chosen
//! to stress every backend's naming: `$`, `_`, numbers, keywords and special registers of PTX,
//! vISA and LLVM, names shaped like the backends' own temporaries, labels and parameter names,
//! names that differ only in `$` and `_`, and kernel names that collide after sanitising.

use std::collections::HashSet;
use std::fmt::Write as _;

use half::{bf16, f16};

use atomir_ir::semantics::width_mask;
use atomir_ir::{
    text, verify, AddressSpace, AtomicInst, AtomicOp, CacheHint, ElemType, Fence, InstData, Kernel,
    MemoryOrder, Module, Operand, Predicate, Scalar, Scope, TypeClass, Value, ValueDef, ValueType,
    VectorShape,
};

/// SplitMix64: small, fast, and the same sequence everywhere.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn wide(&mut self) -> u128 {
        (u128::from(self.next_u64()) << 64) | u128::from(self.next_u64())
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `percent` / 100.
    pub fn percent(&mut self, percent: u32) -> bool {
        self.next_u64() % 100 < u64::from(percent)
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// How big and how wild the generated modules are.
#[derive(Clone, Debug)]
pub struct Config {
    pub max_kernels: usize,
    pub max_insts: usize,
    /// Names from [`WILD_VALUE_NAMES`] and colliding kernel names; plain names otherwise.
    pub wild_names: bool,
    /// Extra parameters no instruction reads.
    pub unused_params: bool,
    /// Only the given address spaces for instructions (all when empty).
    pub spaces: Vec<AddressSpace>,
    /// Percent of instructions guarded by a predicate.
    pub predicated_percent: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_kernels: 3,
            max_insts: 12,
            wild_names: true,
            unused_params: true,
            spaces: Vec::new(),
            predicated_percent: 30,
        }
    }
}

/// A generated module and a text spelling of it (not the canonical print).
#[derive(Clone, Debug)]
pub struct Generated {
    pub seed: u64,
    pub module: Module,
    pub text: String,
}

/// Value names that collide with something in some backend: PTX special registers, reserved
/// words and register prefixes; vISA predefined variables, keywords and the printer's own
/// suffixes (`__e0`, `__f`, `__in`, …) and temporaries; LLVM keywords, numbered values and the
/// printer's labels and result parameters; our PTX temporaries (`_r0`, `_d0`, `$v0_x`).
pub const WILD_VALUE_NAMES: &[&str] = &[
    "$",
    "_",
    "$$",
    "__",
    "$_",
    "_$",
    "0",
    "1",
    "00",
    "9",
    "$0",
    "_0",
    "tid",
    "ntid",
    "laneid",
    "warpid",
    "ctaid",
    "clock",
    "clock64",
    "WARP_SZ",
    "warpsz",
    "pm0",
    "pm7",
    "envreg0",
    "envreg31",
    "lanemask_eq",
    "lanemask_lt",
    "reserved_smem_offset_0",
    "globaltimer",
    "dynamic_smem_size",
    "reg",
    "param",
    "entry",
    "func",
    "global",
    "shared",
    "local",
    "const",
    "pred",
    "u32",
    "b64",
    "f32",
    "ret",
    "exit",
    "bra",
    "atom",
    "red",
    "mov",
    "ld",
    "st",
    "cvta",
    "fence",
    "membar",
    "version",
    "target",
    "align",
    "_r0",
    "_r1",
    "_d0",
    "_d1",
    "_p0",
    "_h0",
    "_q0",
    "_b0",
    "$v0_x",
    "$v1_",
    "$v2__",
    "x$0",
    "a$1",
    "null",
    "thread_x",
    "group_id_x",
    "r0",
    "arg",
    "retval",
    "sp",
    "fp",
    "hw_id",
    "sr0",
    "cr0",
    "ce0",
    "tsc",
    "V0",
    "V32",
    "T1",
    "t1",
    "t2",
    "P1",
    "M1",
    "ud",
    "uq",
    "hf",
    "df",
    "v_type",
    "num_elts",
    "alias",
    "goto",
    "kernel",
    "input",
    "decl",
    "x__e0",
    "x__e1",
    "x__f",
    "x__d",
    "x__hf",
    "x__w",
    "x__b",
    "x__u",
    "x__q",
    "x__df",
    "x__in",
    "v_x",
    "x",
    "__e0",
    "__in",
    "in",
    "out",
    "out0",
    "define",
    "void",
    "ptr",
    "i1",
    "i32",
    "i128",
    "half",
    "bfloat",
    "float",
    "double",
    "label",
    "undef",
    "poison",
    "zeroinitializer",
    "true",
    "false",
    "addrspace",
    "b0",
    "end",
    "atomicrmw",
    "cmpxchg",
    "monotonic",
    "syncscope",
    "phi",
    "br",
    "store",
    "load",
    "tmp",
    "main",
];

/// Pairs of value names that differ only in `$` versus `_`.
const DOLLAR_UNDERSCORE_PAIRS: &[(&str, &str)] = &[
    ("a$b", "a_b"),
    ("$x", "_x"),
    ("q$", "q_"),
    ("$", "_"),
    ("$$", "__"),
    ("m$0", "m_0"),
];

/// Kernel names (words: a letter, `_` or `$`, then letters, digits, `_`, `$`) that stress
/// symbol names: reserved words, special names, and shapes of the backends' own symbols.
const WILD_KERNEL_NAMES: &[&str] = &[
    "$",
    "_",
    "$$",
    "__",
    "WARP_SZ",
    "tid",
    "entry",
    "func",
    "kernel",
    "atomic",
    "main",
    "define",
    "void",
    "ptr",
    "global",
    "shared",
    "param",
    "reg",
    "ret",
    "_Z3foov",
    "$main",
    "t1",
    "V0",
    "null",
    "k_BB_0",
    "BB_0",
    "v_k",
    "_r0",
    "$v0_x",
    "label",
    "ptx_kernel",
];

/// Kernel-name collisions a module may hold: pairs that are equal after `$` → `_`, and a kernel
/// next to kernels named like its PTX parameters (`<name>_param_<i>`, `<name>_out_<i>`) and its
/// vISA label (`<name>_BB_0`).
fn colliding_kernel_names(rng: &mut Rng, count: usize) -> Vec<String> {
    let base = ["k", "$k", "k$", "_k", "a$b", "x"][rng.below(6)].to_string();
    let sanitized = base.replace('$', "_");
    let mut candidates = vec![
        base.clone(),
        sanitized.clone(),
        format!("{sanitized}_param_0"),
        format!("{sanitized}_param_1"),
        format!("{sanitized}_out_0"),
        format!("{base}_BB_0"),
        format!("{sanitized}$"),
        format!("{sanitized}_"),
    ];
    // Keep the first (the base) and a random selection of the others, no duplicates.
    let mut names = vec![candidates.remove(0)];
    while names.len() < count && !candidates.is_empty() {
        let next = candidates.remove(rng.below(candidates.len()));
        if !names.contains(&next) {
            names.push(next);
        }
    }
    names
}

/// Hands out value names unique within one kernel.
struct Namer {
    used: HashSet<String>,
    counter: usize,
    wild: bool,
    /// The partner of a `$`/`_` pair waiting to be handed out.
    pending: Option<String>,
}

impl Namer {
    fn new(wild: bool) -> Self {
        Namer {
            used: HashSet::new(),
            counter: 0,
            wild,
            pending: None,
        }
    }

    fn plain(&mut self, prefix: &str) -> String {
        loop {
            let name = format!("{prefix}{}", self.counter);
            self.counter += 1;
            if self.used.insert(name.clone()) {
                return name;
            }
        }
    }

    fn name(&mut self, rng: &mut Rng, prefix: &str) -> String {
        if self.wild {
            if let Some(name) = self.pending.take() {
                if self.used.insert(name.clone()) {
                    return name;
                }
            }
            if rng.percent(40) {
                let name = rng.pick(WILD_VALUE_NAMES).to_string();
                if self.used.insert(name.clone()) {
                    return name;
                }
            }
            if rng.percent(8) {
                let (a, b) = *rng.pick(DOLLAR_UNDERSCORE_PAIRS);
                if !self.used.contains(a) && !self.used.contains(b) {
                    self.used.insert(a.to_string());
                    self.pending = Some(b.to_string());
                    return a.to_string();
                }
            }
        }
        self.plain(prefix)
    }
}

/// Where an operand element comes from, before the kernel is built.
#[derive(Clone, Debug)]
enum Src {
    Param(usize),
    /// The result of draft instruction `n`.
    Result(usize),
    Literal(u128, String),
}

#[derive(Clone, Debug)]
enum DraftOperand {
    Scalar(Src),
    List(Vec<Src>),
}

#[derive(Clone, Debug)]
struct DraftAccess {
    node: AtomicInst,
    addr: usize,
    predicate: Option<(usize, bool)>,
    /// `None` for a load.
    operand: Option<DraftOperand>,
    new_value: Option<DraftOperand>,
    result: Option<String>,
}

/// One drafted instruction (a test generator's few drafts: the size difference is no concern).
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
enum DraftInst {
    Access(DraftAccess),
    Fence(Fence),
}

impl DraftInst {
    fn access(&self) -> Option<&DraftAccess> {
        match self {
            DraftInst::Access(access) => Some(access),
            DraftInst::Fence(_) => None,
        }
    }
}

struct DraftParam {
    name: String,
    ty: ValueType,
}

/// Builds one kernel's draft: parameters are created on demand, instructions refer to them and
/// to earlier results by index.
struct Draft<'r> {
    rng: &'r mut Rng,
    config: &'r Config,
    namer: Namer,
    params: Vec<DraftParam>,
    insts: Vec<DraftInst>,
}

/// Every element type of a width, for the operands of an untyped `bN` node.
fn types_of_width(bits: u32) -> Vec<ElemType> {
    ElemType::ALL
        .iter()
        .copied()
        .filter(|t| t.bits() == bits)
        .collect()
}

/// Whether a value of element type `found` may feed a node of element type `wanted`.
fn feeds(wanted: ElemType, found: ElemType) -> bool {
    found == wanted || (wanted.class() == TypeClass::Bits && found.bits() == wanted.bits())
}

impl Draft<'_> {
    fn param(&mut self, ty: ValueType, prefix: &str) -> usize {
        let name = self.namer.name(self.rng, prefix);
        self.params.push(DraftParam { name, ty });
        self.params.len() - 1
    }

    /// An existing parameter of exactly `ty` (half the time), or a new one.
    fn param_of(&mut self, ty: ValueType, prefix: &str) -> usize {
        let existing: Vec<usize> = (0..self.params.len())
            .filter(|&i| self.params[i].ty == ty)
            .collect();
        if !existing.is_empty() && self.rng.percent(50) {
            return *self.rng.pick(&existing);
        }
        self.param(ty, prefix)
    }

    fn pointer_for(&mut self, space: AddressSpace) -> usize {
        let choices: &[AddressSpace] = match space {
            AddressSpace::Generic => &[
                AddressSpace::Generic,
                AddressSpace::Generic,
                AddressSpace::Global,
                AddressSpace::Shared,
                AddressSpace::SharedCluster,
            ],
            AddressSpace::SharedCluster => &[AddressSpace::SharedCluster, AddressSpace::Shared],
            other => match other {
                AddressSpace::Global => &[AddressSpace::Global],
                _ => &[AddressSpace::Shared],
            },
        };
        let pointer = *self.rng.pick(choices);
        self.param_of(ValueType::Ptr(pointer), "p")
    }

    /// Earlier results whose type is `ty` exactly (for vector values) or that feed `wanted`
    /// as a scalar.
    fn results_feeding(&self, wanted: ElemType, shape: VectorShape) -> Vec<usize> {
        (0..self.insts.len())
            .filter(|&i| {
                self.insts[i].access().is_some_and(|inst| {
                    inst.result.is_some() && inst.node.shape == shape && feeds(wanted, inst.node.ty)
                })
            })
            .collect()
    }

    fn scalar_src(&mut self, ty: ElemType) -> Src {
        let roll = self.rng.below(100);
        if roll < 30 {
            let results = self.results_feeding(ty, VectorShape::Scalar);
            if !results.is_empty() {
                return Src::Result(*self.rng.pick(&results));
            }
        }
        if roll < 65 {
            let found = if ty.class() == TypeClass::Bits {
                *self.rng.pick(&types_of_width(ty.bits()))
            } else {
                ty
            };
            return Src::Param(self.param_of(ValueType::scalar(found), "x"));
        }
        let (bits, spelling) = literal(self.rng, ty);
        Src::Literal(bits, spelling)
    }

    fn operand(&mut self, ty: ElemType, shape: VectorShape) -> DraftOperand {
        if !shape.is_vector() {
            return DraftOperand::Scalar(self.scalar_src(ty));
        }
        if self.rng.percent(30) {
            let results = self.results_feeding(ty, shape);
            if !results.is_empty() && self.rng.percent(50) {
                return DraftOperand::Scalar(Src::Result(*self.rng.pick(&results)));
            }
            let found = if ty.class() == TypeClass::Bits {
                *self.rng.pick(&types_of_width(ty.bits()))
            } else {
                ty
            };
            return DraftOperand::Scalar(Src::Param(
                self.param_of(ValueType::Data(found, shape), "v"),
            ));
        }
        DraftOperand::List((0..shape.len()).map(|_| self.scalar_src(ty)).collect())
    }

    fn node(&mut self) -> AtomicInst {
        let op = *self.rng.pick(AtomicOp::ALL);
        let types: Vec<ElemType> = ElemType::ALL
            .iter()
            .copied()
            .filter(|t| t.supports(op))
            .collect();
        let ty = *self.rng.pick(&types);
        let shape = if self.rng.percent(55) {
            VectorShape::Scalar
        } else {
            *self.rng.pick(&VectorShape::ALL[1..])
        };
        let spaces: &[AddressSpace] = if self.config.spaces.is_empty() {
            AddressSpace::ALL
        } else {
            &self.config.spaces
        };
        let space = *self.rng.pick(spaces);
        // A placeholder address; the real one is set when the kernel is built.
        let placeholder = Value::from_u32(0);
        let mut node = if op == AtomicOp::Load {
            AtomicInst::load(ty, placeholder)
        } else {
            AtomicInst::new(op, ty, placeholder, placeholder.into())
        };
        node.shape = shape;
        let orders: Vec<MemoryOrder> = MemoryOrder::ALL
            .iter()
            .copied()
            .filter(|order| op.admits_order(*order))
            .collect();
        node.order = *self.rng.pick(&orders);
        node.scope = *self.rng.pick(Scope::ALL);
        node.space = space;
        if matches!(space, AddressSpace::Global | AddressSpace::Generic) && self.rng.percent(25) {
            node.hint = Some(*self.rng.pick(CacheHint::ALL));
        }
        node
    }

    fn inst(&mut self) {
        // A repeated atomic: the same node on the same address with the same operands.
        if !self.insts.is_empty() && self.rng.percent(12) {
            let mut copy = self.insts[self.rng.below(self.insts.len())].clone();
            if let DraftInst::Access(copy) = &mut copy {
                copy.result = copy
                    .result
                    .is_some()
                    .then(|| self.namer.name(self.rng, "r"));
            }
            self.insts.push(copy);
            return;
        }
        if self.rng.percent(8) {
            let orders: Vec<MemoryOrder> = MemoryOrder::ALL
                .iter()
                .copied()
                .filter(|order| order.is_fence_order())
                .collect();
            let fence = Fence {
                order: *self.rng.pick(&orders),
                scope: *self.rng.pick(Scope::ALL),
            };
            self.insts.push(DraftInst::Fence(fence));
            return;
        }
        let node = self.node();
        let predicate = self.rng.percent(self.config.predicated_percent).then(|| {
            let p = self.param_of(ValueType::Pred, "q");
            (p, self.rng.percent(50))
        });
        let addr = self.pointer_for(node.space);
        let operand = (node.op.operand_count() > 0).then(|| self.operand(node.ty, node.shape));
        let new_value = (node.op == AtomicOp::Cas).then(|| self.operand(node.ty, node.shape));
        let used = if node.op.requires_result() {
            true
        } else {
            !node.op.has_no_result() && self.rng.percent(60)
        };
        let result = used.then(|| self.namer.name(self.rng, "r"));
        self.insts.push(DraftInst::Access(DraftAccess {
            node,
            addr,
            predicate,
            operand,
            new_value,
            result,
        }));
    }

    fn unused_params(&mut self) {
        for _ in 0..self.rng.below(4) {
            let ty = random_value_type(self.rng);
            let param = self.param(ty, "u");
            // Somewhere in the list, not always at the end.
            let at = self.rng.below(self.params.len());
            let moved = self.params.remove(param);
            self.params.insert(at, moved);
            for inst in &mut self.insts {
                if let DraftInst::Access(access) = inst {
                    remap_params(access, param, at);
                }
            }
        }
    }
}

/// Moves parameter `from` to position `to` in every reference of `inst`.
fn remap_params(inst: &mut DraftAccess, from: usize, to: usize) {
    let remap = |index: &mut usize| {
        if *index == from {
            *index = to;
        } else if from < to && *index > from && *index <= to {
            *index -= 1;
        } else if to < from && *index >= to && *index < from {
            *index += 1;
        }
    };
    let remap_src = |src: &mut Src| {
        if let Src::Param(index) = src {
            remap(index);
        }
    };
    let remap_operand = |operand: &mut DraftOperand| match operand {
        DraftOperand::Scalar(src) => remap_src(src),
        DraftOperand::List(list) => list.iter_mut().for_each(remap_src),
    };
    remap(&mut inst.addr);
    if let Some((pred, _)) = &mut inst.predicate {
        remap(pred);
    }
    if let Some(operand) = &mut inst.operand {
        remap_operand(operand);
    }
    if let Some(new_value) = &mut inst.new_value {
        remap_operand(new_value);
    }
}

/// Any parameter type: every pointer space, `pred`, every element type, every vector type.
pub fn random_value_type(rng: &mut Rng) -> ValueType {
    match rng.below(8) {
        0 => ValueType::Ptr(*rng.pick(AddressSpace::ALL)),
        1 => ValueType::Pred,
        2 | 3 => ValueType::Data(*rng.pick(ElemType::ALL), *rng.pick(&VectorShape::ALL[1..])),
        _ => ValueType::scalar(*rng.pick(ElemType::ALL)),
    }
}

fn draft_kernel(rng: &mut Rng, config: &Config) -> (Vec<DraftParam>, Vec<DraftInst>) {
    let mut draft = Draft {
        rng,
        config,
        namer: Namer::new(config.wild_names),
        params: Vec::new(),
        insts: Vec::new(),
    };
    let count = 1 + draft.rng.below(config.max_insts.max(1));
    for _ in 0..count {
        draft.inst();
    }
    if config.unused_params {
        draft.unused_params();
    }
    (draft.params, draft.insts)
}

/// Builds the kernel of a draft through the public API; literals are created in the order the
/// parser creates them (operand before new value, elements left to right).
fn build(name: &str, params: &[DraftParam], insts: &[DraftInst]) -> (Kernel, Vec<String>) {
    let mut kernel = Kernel::new(name);
    let values: Vec<Value> = params
        .iter()
        .map(|p| kernel.add_param(&p.name, p.ty))
        .collect();
    let mut results: Vec<Option<Value>> = Vec::with_capacity(insts.len());
    let mut spellings = Vec::new();
    for inst in insts {
        let inst = match inst {
            DraftInst::Access(access) => access,
            DraftInst::Fence(fence) => {
                kernel.push_fence(*fence);
                results.push(None);
                continue;
            }
        };
        let mut scalar = |kernel: &mut Kernel, src: &Src| -> Scalar {
            match src {
                Src::Param(index) => Scalar::Value(values[*index]),
                Src::Result(index) => Scalar::Value(results[*index].expect("a used result")),
                Src::Literal(bits, spelling) => {
                    spellings.push(spelling.clone());
                    Scalar::Const(kernel.constant(*bits))
                }
            }
        };
        let mut operand = |kernel: &mut Kernel, operand: &DraftOperand| -> Operand {
            match operand {
                DraftOperand::Scalar(src) => Operand::Scalar(scalar(kernel, src)),
                DraftOperand::List(list) => {
                    let elements: Vec<Scalar> = list.iter().map(|s| scalar(kernel, s)).collect();
                    kernel.vector(&elements)
                }
            }
        };
        let mut node = inst.node;
        node.addr = values[inst.addr];
        node.predicate = inst.predicate.map(|(p, negated)| Predicate {
            value: values[p],
            negated,
        });
        node.operand = inst.operand.as_ref().map(|o| operand(&mut kernel, o));
        node.new_value = inst.new_value.as_ref().map(|o| operand(&mut kernel, o));
        let id = kernel.push(node, inst.result.as_deref());
        results.push(kernel.insts[id].result());
    }
    (kernel, spellings)
}

/// One random valid module for `seed`.
pub fn module(seed: u64, config: &Config) -> Generated {
    let mut rng = Rng::new(seed ^ 0xA70_D1E5_EED5);
    let count = 1 + rng.below(config.max_kernels.max(1));
    let names = kernel_names(&mut rng, seed, count, config.wild_names);
    let mut module = Module::default();
    let mut text = String::new();
    for name in &names {
        let (params, insts) = draft_kernel(&mut rng, config);
        let (kernel, spellings) = build(name, &params, &insts);
        write_varied(&mut rng, &kernel, &spellings, &mut text);
        module.kernels.push(kernel);
    }
    Generated { seed, module, text }
}

/// `count` distinct kernel names: unique plain names, with (when wild) a wild name or a group
/// of names that collide after sanitising.
fn kernel_names(rng: &mut Rng, seed: u64, count: usize, wild: bool) -> Vec<String> {
    let plain = |i: usize| format!("k{seed:08x}n{i}");
    if !wild || rng.percent(40) {
        return (0..count).map(plain).collect();
    }
    let mut names = if count >= 2 && rng.percent(50) {
        colliding_kernel_names(rng, count)
    } else {
        vec![rng.pick(WILD_KERNEL_NAMES).to_string()]
    };
    let mut i = 0;
    while names.len() < count {
        names.push(plain(i));
        i += 1;
    }
    names
}

// ---- literals ----------------------------------------------------------------------------------

/// A literal of element type `ty`: its bits and one spelling of them the parser accepts.
pub fn literal(rng: &mut Rng, ty: ElemType) -> (u128, String) {
    let bits = ty.bits();
    let mask = width_mask(bits);
    match ty.class() {
        TypeClass::Unsigned | TypeClass::Signed | TypeClass::Bits => {
            let value = match rng.below(8) {
                0 => 0,
                1 => 1,
                2 => mask,
                3 => 1u128 << (bits - 1),
                4 => mask >> 1,
                5 => rng.below(300) as u128 & mask,
                _ => rng.wide() & mask,
            };
            (value, int_spelling(rng, value, ty))
        }
        TypeClass::PackedFloat => {
            let lane = ty.lane_type();
            let low = float_value(rng, lane).0;
            let high = float_value(rng, lane).0;
            let value = low | (high << 16);
            (value, hex_spelling(rng, value, bits, false))
        }
        TypeClass::Float => float_value(rng, ty),
    }
}

fn hex_spelling(rng: &mut Rng, value: u128, bits: u32, negative: bool) -> String {
    let mut digits = if rng.percent(50) {
        format!("{value:x}")
    } else {
        format!("{value:X}")
    };
    if rng.percent(30) {
        let width = (bits / 4) as usize;
        while digits.len() < width {
            digits.insert(0, '0');
        }
    }
    let prefix = if rng.percent(80) { "0x" } else { "0X" };
    format!("{}{prefix}{digits}", if negative { "-" } else { "" })
}

fn int_spelling(rng: &mut Rng, value: u128, ty: ElemType) -> String {
    let bits = ty.bits();
    let sign_bit = 1u128 << (bits - 1);
    let negative_magnitude = value.wrapping_neg() & width_mask(bits);
    let can_be_negative = value & sign_bit != 0 && ty.class() != TypeClass::Unsigned;
    match rng.below(4) {
        // Raw bits in hex: valid for every integer class.
        0 => hex_spelling(rng, value, bits, false),
        // A negative hex magnitude, where the class allows a negative literal.
        1 if can_be_negative && negative_magnitude != 0 => {
            hex_spelling(rng, negative_magnitude, bits, true)
        }
        _ if ty.class() == TypeClass::Signed && can_be_negative => {
            format!("-{negative_magnitude}")
        }
        2 if can_be_negative && ty.class() == TypeClass::Bits => format!("-{negative_magnitude}"),
        _ => format!("{value}"),
    }
}

/// Decimal spellings whose bits come from the same conversions the parser documents: f32 parses
/// directly (correctly rounded), f16/bf16/f64 through f64.
const FLOAT_DECIMALS: &[&str] = &[
    "0.0",
    "-0.0",
    "1.0",
    "-1.5",
    "0.1",
    "1e-3",
    "1E+2",
    "2.5e-40",
    "1.0e-45",
    "-3.4028235e38",
    "6.1e-5",
    "5.96e-8",
    "65504.0",
    "1e-310",
    "5e-324",
    "123456789.125",
    "0.333",
    "7",
    "-8",
    "1e0",
    "9.2E-41",
];

fn decimal_bits(text: &str, ty: ElemType) -> Option<u128> {
    let bits = match ty {
        ElemType::F32 => u128::from(text.parse::<f32>().ok()?.to_bits()),
        ElemType::F16 => u128::from(f16::from_f64(text.parse().ok()?).to_bits()),
        ElemType::Bf16 => u128::from(bf16::from_f64(text.parse().ok()?).to_bits()),
        _ => u128::from(text.parse::<f64>().ok()?.to_bits()),
    };
    let (inf, _) = float_specials(ty);
    // A decimal that overflows is an error in the text form.
    (bits & !(1u128 << (ty.bits() - 1)) != inf).then_some(bits)
}

/// (positive infinity, canonical quiet NaN) of a scalar float type.
fn float_specials(ty: ElemType) -> (u128, u128) {
    match ty {
        ElemType::F16 => (0x7c00, 0x7e00),
        ElemType::Bf16 => (0x7f80, 0x7fc0),
        ElemType::F32 => (0x7f80_0000, 0x7fc0_0000),
        _ => (0x7ff0_0000_0000_0000, 0x7ff8_0000_0000_0000),
    }
}

/// The shortest decimal Rust gives for the value of `bits` (exact for every f16/bf16/f32/f64),
/// when it spells a finite number.
fn shortest_decimal(bits: u128, ty: ElemType) -> Option<String> {
    let text = match ty {
        ElemType::F32 => format!("{:?}", f32::from_bits(bits as u32)),
        ElemType::F16 => format!("{:?}", f16::from_bits(bits as u16).to_f64()),
        ElemType::Bf16 => format!("{:?}", bf16::from_bits(bits as u16).to_f64()),
        _ => format!("{:?}", f64::from_bits(bits as u64)),
    };
    (decimal_bits(&text, ty) == Some(bits)).then_some(text)
}

/// A scalar float literal: specials (±0, ±inf, NaNs quiet and signalling with payloads,
/// subnormals, extremes), decimals, or random bits; spelled as decimal, `inf`/`nan` or hex bits.
fn float_value(rng: &mut Rng, ty: ElemType) -> (u128, String) {
    let bits = ty.bits();
    let sign = 1u128 << (bits - 1);
    let (inf, qnan) = float_specials(ty);
    match rng.below(6) {
        0 => {
            let text = *rng.pick(FLOAT_DECIMALS);
            let value = decimal_bits(text, ty).unwrap_or(0);
            let text = if decimal_bits(text, ty).is_some() {
                text.to_string()
            } else {
                "0.0".into()
            };
            (value, text)
        }
        1 => {
            let negative = rng.percent(50);
            let value = inf | if negative { sign } else { 0 };
            let text = if rng.percent(70) {
                (if negative { "-inf" } else { "inf" }).to_string()
            } else {
                hex_spelling(rng, value, bits, false)
            };
            (value, text)
        }
        2 => {
            let negative = rng.percent(30);
            let value = qnan | if negative { sign } else { 0 };
            let text = if rng.percent(70) {
                (if negative { "-nan" } else { "nan" }).to_string()
            } else {
                hex_spelling(rng, value, bits, false)
            };
            (value, text)
        }
        3 => {
            // NaNs with payloads (signalling when the quiet bit is clear) and subnormals.
            let payload = (rng.wide() & (qnan - inf - 1)) | 1;
            let significand = (inf & inf.wrapping_neg()) - 1;
            let value = match rng.below(3) {
                0 => inf | payload,
                1 => qnan | payload,
                _ => (rng.wide() & significand) | 1,
            } | if rng.percent(50) { sign } else { 0 };
            (value, hex_spelling(rng, value, bits, false))
        }
        _ => {
            let value = rng.wide() & width_mask(bits);
            let text = match shortest_decimal(value, ty) {
                Some(text) if rng.percent(60) => text,
                _ => hex_spelling(rng, value, bits, false),
            };
            (value, text)
        }
    }
}

// ---- the varied text ----------------------------------------------------------------------------

fn name_of(kernel: &Kernel, value: Value) -> &str {
    kernel.value_name(value)
}

/// Writes `kernel` with the given literal spellings (in creation order), omitting default
/// qualifiers at random, with comments, blank lines and odd spacing.
fn write_varied(rng: &mut Rng, kernel: &Kernel, spellings: &[String], out: &mut String) {
    if rng.percent(30) {
        out.push_str("# generated\n\n");
    }
    let _ = write!(out, "kernel {}(", kernel.name);
    for (index, param) in kernel.params.iter().enumerate() {
        if index > 0 {
            out.push_str(if rng.percent(20) { ",\n    " } else { ", " });
        }
        let _ = write!(out, "%{}: {}", name_of(kernel, param.value), param.ty);
    }
    out.push_str(if rng.percent(20) { ")\n{\n" } else { ") {\n" });
    let mut next_literal = 0;
    for inst in kernel.insts.values() {
        out.push_str(if rng.percent(10) { "\t" } else { "  " });
        let inst = match inst {
            InstData::Atomic(inst) => inst,
            InstData::Fence(fence) => {
                let _ = write!(out, "fence.{}", fence.order);
                if !(rng.percent(40) && fence.scope == Scope::Device) {
                    let _ = write!(out, ".{}", fence.scope);
                }
                out.push('\n');
                continue;
            }
        };
        if let Some(predicate) = inst.predicate {
            let bang = if predicate.negated { "!" } else { "" };
            let _ = write!(out, "@{bang}%{} ", name_of(kernel, predicate.value));
        }
        if let Some(result) = inst.result {
            let _ = write!(out, "%{} = ", name_of(kernel, result));
        }
        let _ = write!(out, "atomic.{}", inst.op);
        let omit = rng.percent(40);
        if !(omit && inst.order == MemoryOrder::Relaxed) {
            let _ = write!(out, ".{}", inst.order);
        }
        if !(omit && inst.scope == Scope::Device) {
            let _ = write!(out, ".{}", inst.scope);
        }
        if !(omit && inst.space == AddressSpace::Generic) {
            let _ = write!(out, ".{}", inst.space);
        }
        if inst.shape.is_vector() {
            let _ = write!(out, ".{}", inst.shape);
        }
        let _ = write!(out, ".{}", inst.ty);
        if let Some(hint) = inst.hint {
            let _ = write!(out, ".{hint}");
        }
        let _ = write!(out, " [%{}]", name_of(kernel, inst.addr));
        if let Some(operand) = inst.operand {
            out.push_str(", ");
            write_operand(out, kernel, operand, spellings, &mut next_literal);
        }
        if let Some(new_value) = inst.new_value {
            out.push_str(if rng.percent(20) { " , " } else { ", " });
            write_operand(out, kernel, new_value, spellings, &mut next_literal);
        }
        if rng.percent(10) {
            out.push_str("   # a comment");
        }
        out.push('\n');
        if rng.percent(5) {
            out.push('\n');
        }
    }
    out.push_str("}\n\n");
}

fn write_operand(
    out: &mut String,
    kernel: &Kernel,
    operand: Operand,
    spellings: &[String],
    next_literal: &mut usize,
) {
    let mut scalar = |out: &mut String, scalar: Scalar| match scalar {
        Scalar::Value(value) => {
            let _ = write!(out, "%{}", name_of(kernel, value));
        }
        Scalar::Const(_) => {
            out.push_str(&spellings[*next_literal]);
            *next_literal += 1;
        }
    };
    match operand {
        Operand::Scalar(s) => scalar(out, s),
        Operand::Vector(list) => {
            out.push('{');
            for (index, &element) in kernel.vector_elements(list).iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                scalar(out, element);
            }
            out.push('}');
        }
    }
}

// ---- comparing modules ------------------------------------------------------------------------

/// A kernel's content with ids resolved to names and bits: equal for equal kernels however
/// their ids were assigned.
fn describe_kernel(kernel: &Kernel) -> String {
    let mut out = format!("kernel {}\n", kernel.name);
    let name = |value: Value| {
        kernel
            .values
            .get(value)
            .map_or_else(|| format!("<{value}>"), |d| d.name.to_string())
    };
    for param in &kernel.params {
        let _ = writeln!(out, "param %{}: {}", name(param.value), param.ty);
    }
    for (value, data) in kernel.values.iter() {
        let def = match data.def {
            ValueDef::Param(i) => format!("param {i}"),
            ValueDef::Result(inst) => format!("result of {}", inst.as_u32()),
        };
        let _ = writeln!(out, "value %{} = {def}: {}", name(value), data.ty);
    }
    let scalar = |s: Scalar| match s {
        Scalar::Value(v) => format!("%{}", name(v)),
        Scalar::Const(c) => format!("{:#x}", kernel.constants[c]),
    };
    let operand = |o: Operand| match o {
        Operand::Scalar(s) => scalar(s),
        Operand::Vector(list) => {
            let elements: Vec<String> = kernel
                .vector_elements(list)
                .iter()
                .map(|&s| scalar(s))
                .collect();
            format!("{{{}}}", elements.join(", "))
        }
    };
    for inst in kernel.insts.values() {
        let inst = match inst {
            InstData::Atomic(inst) => inst,
            InstData::Fence(fence) => {
                let _ = writeln!(out, "fence {} {}", fence.order, fence.scope);
                continue;
            }
        };
        let _ = writeln!(
            out,
            "{:?} {} {} {} {} {} {} pred={:?} addr=%{} operand={:?} new={:?} result={:?}",
            inst.op,
            inst.ty,
            inst.shape,
            inst.order,
            inst.scope,
            inst.space,
            inst.hint.map_or("-", |h| h.as_str()),
            inst.predicate.map(|p| format!(
                "{}%{}",
                if p.negated { "!" } else { "" },
                name(p.value)
            )),
            name(inst.addr),
            inst.operand.map(operand),
            inst.new_value.map(operand),
            inst.result.map(name),
        );
    }
    out
}

/// Whether two modules hold the same kernels (names, parameters, values, instructions and
/// literal bits); the first difference otherwise.
pub fn same_module(expected: &Module, found: &Module) -> Result<(), String> {
    if expected.kernels.len() != found.kernels.len() {
        return Err(format!(
            "{} kernels, expected {}",
            found.kernels.len(),
            expected.kernels.len()
        ));
    }
    for (a, b) in expected.kernels.iter().zip(&found.kernels) {
        let (a, b) = (describe_kernel(a), describe_kernel(b));
        if a != b {
            let line = a
                .lines()
                .zip(b.lines())
                .find(|(x, y)| x != y)
                .map(|(x, y)| format!("expected `{x}`\n   found `{y}`"))
                .unwrap_or_else(|| "different lengths".into());
            return Err(line);
        }
    }
    Ok(())
}

/// The checks every generated module must pass: it verifies; its varied text and its canonical
/// print both parse back to the same module; the canonical print is a fixed point.
pub fn check_text_path(generated: &Generated) -> Result<(), String> {
    let module = &generated.module;
    let seed = generated.seed;
    verify::verify(module).map_err(|errors| {
        format!(
            "seed {seed}: generated module does not verify: {}\n{}",
            errors[0],
            text::print(module)
        )
    })?;
    let varied = text::parse(&generated.text).map_err(|errors| {
        format!(
            "seed {seed}: varied text does not parse: {}\n{}",
            errors[0], generated.text
        )
    })?;
    same_module(module, &varied).map_err(|e| {
        format!(
            "seed {seed}: varied text parses to another module: {e}\n{}",
            generated.text
        )
    })?;
    let printed = text::print(module);
    let reparsed = text::parse(&printed).map_err(|errors| {
        format!(
            "seed {seed}: canonical print does not parse: {}\n{printed}",
            errors[0]
        )
    })?;
    same_module(module, &reparsed)
        .map_err(|e| format!("seed {seed}: canonical print parses to another module: {e}"))?;
    if text::print(&reparsed) != printed {
        return Err(format!("seed {seed}: canonical print is not a fixed point"));
    }
    verify::verify(&reparsed).map(|_| ()).map_err(|errors| {
        format!(
            "seed {seed}: re-parsed module does not verify: {}",
            errors[0]
        )
    })
}
