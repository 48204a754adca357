//! The verifier: target-independent rules of the IR.
//!
//! It works on kernels from the parser and on kernels built in code alike, so it trusts nothing:
//! every id is looked up before use, and every violation is reported (never the first only), at
//! the instruction's source position. Built kernels have no positions; their diagnostics name the
//! kernel and the instruction instead.
//!
//! Rules:
//! - every value is defined once (parameters included) and before its use;
//! - `cas` takes an expected and a new value, every other op one operand;
//! - operands have the instruction's element type exactly, except that an untyped `bN`
//!   instruction accepts any N-bit value; a vector instruction takes a brace list of its length
//!   or a value of its vector type; a literal fits the element type;
//! - the op is meaningful on the element type ([`ElemType::supports`]);
//! - a float laxity is one its op and type have ([`crate::FloatLaxity::admits`]);
//! - a predicate is `pred`; an address is a pointer whose space agrees with the instruction's;
//! - (a cache hint is valid on every access: it is a performance hint only, which a target
//!   prints where it has a form for the node and otherwise leaves out, recording
//!   `Rewrite::CacheHintDropped`; it never makes a node invalid or refused);
//! - a result has the instruction's type (shape, element type).

use std::fmt;

use cranelift_entity::{EntityRef, SecondaryMap};
use fnv::FnvHashMap;

use crate::diag::{Diagnostic, Diagnostics};
use crate::kernel::{
    AtomicInst, Fence, Inst, InstData, Kernel, Module, Operand, Scalar, SourceLoc, Value,
    ValueData, ValueDef,
};
use crate::name_index::{distinct_names, NameIndex};
use crate::text::literal::mask;
use crate::types::{AddressSpace, AtomicOp, ElemType, TypeClass, ValueType, VectorShape};

/// A module the verifier accepted: the proof every lowering entry point asks for.
///
/// Only [`verify`] and [`verify_with_limit`] make one, and it borrows the module, so the module
/// cannot change between verification and lowering. It reads as the module (`Deref`).
#[derive(Clone, Copy, Debug)]
pub struct Verified<'m> {
    module: &'m Module,
}

impl<'m> Verified<'m> {
    /// The verified module, for as long as it is borrowed.
    pub const fn module(&self) -> &'m Module {
        self.module
    }
}

impl std::ops::Deref for Verified<'_> {
    type Target = Module;

    fn deref(&self) -> &Module {
        self.module
    }
}

/// Checks every target-independent rule, returning the module as [`Verified`] or all
/// violations found.
pub fn verify(module: &Module) -> Result<Verified<'_>, Vec<Diagnostic>> {
    verify_with_limit(module, usize::MAX).map_err(Diagnostics::into_vec)
}

/// [`verify`], keeping the first `limit` violations and only counting the rest.
pub fn verify_with_limit(module: &Module, limit: usize) -> Result<Verified<'_>, Diagnostics> {
    let mut errors = Diagnostics::with_limit(limit);
    let mut kernel_names: FnvHashMap<&str, SourceLoc> = FnvHashMap::default();
    for kernel in &module.kernels {
        if let Some(first) = kernel_names.insert(&kernel.name, kernel.loc) {
            let message = format!(
                "kernel `{}` is already defined{}",
                kernel.name,
                at_position(first)
            );
            errors.push(Diagnostic::new(kernel.loc, message));
        }
        Checker::new(kernel, &mut errors).check();
    }
    if errors.is_empty() {
        Ok(Verified { module })
    } else {
        Err(errors)
    }
}

/// Checks one kernel's rules (all but the module-wide uniqueness of kernel names).
pub fn verify_kernel(kernel: &Kernel) -> Result<(), Vec<Diagnostic>> {
    let mut errors = Diagnostics::with_limit(usize::MAX);
    Checker::new(kernel, &mut errors).check();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.into_vec())
    }
}

/// The data of `value` where it is a value of `kernel` ([`Kernel::owns`]).
fn owned(kernel: &Kernel, value: Value) -> Option<&ValueData> {
    kernel.owns(value).then(|| &kernel.values[value])
}

/// Why `value` is no value of `kernel`, in words that follow "refers to value v3, ".
fn not_owned(kernel: &Kernel, value: Value) -> &'static str {
    if value.index() < kernel.values.len() {
        "which another kernel handed out: an id of another kernel"
    } else {
        "which does not exist"
    }
}

fn count_word(count: usize) -> &'static str {
    match count {
        0 => "none",
        1 => "one",
        _ => "two",
    }
}

fn at_position(loc: SourceLoc) -> String {
    if loc.is_known() {
        format!(" at {loc}")
    } else {
        String::new()
    }
}

/// `atomic.add.v4.f32`: enough of the opcode to say which rule applies. Written only into a
/// message that is reported, never for an instruction that is fine.
#[derive(Clone, Copy)]
struct ShortName<'a>(&'a AtomicInst);

impl fmt::Display for ShortName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inst = self.0;
        if inst.shape.is_vector() {
            write!(f, "atomic.{}.{}.{}", inst.op, inst.shape, inst.ty)
        } else {
            write!(f, "atomic.{}.{}", inst.op, inst.ty)
        }
    }
}

/// "operand element 2": one element of a brace list, for messages.
struct ElementNoun {
    noun: &'static str,
    index: usize,
}

impl fmt::Display for ElementNoun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} element {}", self.noun, self.index)
    }
}

/// Whether an element of type `found` may feed an instruction of element type `wanted`.
fn accepts(wanted: ElemType, found: ElemType) -> bool {
    found == wanted || (wanted.class() == TypeClass::Bits && found.bits() == wanted.bits())
}

/// How an instruction's element wants to be fed, for messages.
fn element_wanted(ty: ElemType) -> String {
    if ty.class() == TypeClass::Bits {
        format!(
            "a {}-bit value ({ty} takes any {}-bit type)",
            ty.bits(),
            ty.bits()
        )
    } else {
        ty.to_string()
    }
}

fn op_type_message(inst: &AtomicInst) -> String {
    let (op, ty) = (inst.op, inst.ty);
    let why = match op {
        AtomicOp::And | AtomicOp::Or | AtomicOp::Xor | AtomicOp::Nand if ty.is_float() => {
            format!("`{op}` is bitwise and not meaningful on float type {ty}; use a bN type")
        }
        AtomicOp::And | AtomicOp::Or | AtomicOp::Xor | AtomicOp::Nand => {
            format!("`{op}` is defined on integer and bit types up to 64 bits, not {ty}")
        }
        AtomicOp::Inc | AtomicOp::Dec => {
            format!("`{op}` is a bounded counter defined on unsigned types only, not {ty}")
        }
        AtomicOp::UsubCond | AtomicOp::UsubSat => format!(
            "`{op}` is an unsigned subtraction defined on unsigned types only (u8, u16, u32, \
             u64), not {ty}"
        ),
        AtomicOp::FMinimum | AtomicOp::FMaximum | AtomicOp::FMinimumNum | AtomicOp::FMaximumNum => {
            format!(
                "`{op}` is defined on float types only (f16, bf16, f32, f64, f16x2, bf16x2), not \
                 {ty}"
            )
        }
        _ => format!(
            "`{op}` needs a numeric type, and {ty} is untyped bits; {}",
            numeric_alternatives(op, ty.bits())
        ),
    };
    format!("{}: {why}", ShortName(inst))
}

/// "use u32, s32 or f32": the types of one width that `op` takes, or why there are none.
fn numeric_alternatives(op: AtomicOp, bits: u32) -> String {
    let names: Vec<&str> = ElemType::ALL
        .iter()
        .filter(|ty| ty.bits() == bits && ty.supports(op))
        .map(|ty| ty.as_str())
        .collect();
    match names.as_slice() {
        [] => format!(
            "no numeric type is {bits} bits wide (a b{bits} access takes exch, cas, load and store)"
        ),
        [one] => format!("use {one}"),
        [init @ .., last] => format!("use {} or {last}", init.join(", ")),
    }
}

struct Checker<'k, 'e> {
    kernel: &'k Kernel,
    errors: &'e mut Diagnostics,
    /// Where each value defined so far was (last) defined.
    defined: SecondaryMap<Value, Option<SourceLoc>>,
    /// The value that last defined each name; only kept when names repeat.
    names: NameIndex,
    /// Whether the kernel's values have pairwise distinct names. Then a name is defined twice
    /// only when its value is, and the check needs no table of names.
    distinct_names: bool,
}

/// The part of an instruction an operand plays, for messages.
#[derive(Clone, Copy)]
enum Role {
    Operand,
    Expected,
    New,
    Stored,
}

impl Role {
    fn noun(self) -> &'static str {
        match self {
            Role::Operand => "operand",
            Role::Expected => "expected value",
            Role::New => "new value",
            Role::Stored => "value stored",
        }
    }
}

impl<'k, 'e> Checker<'k, 'e> {
    fn new(kernel: &'k Kernel, errors: &'e mut Diagnostics) -> Self {
        // An entry for every value up front, so that marking one never grows the map.
        let mut defined = SecondaryMap::new();
        defined.resize(kernel.values.len());
        Checker {
            kernel,
            errors,
            defined,
            names: NameIndex::default(),
            distinct_names: distinct_names(&kernel.values),
        }
    }

    /// Reports at `loc`; a position-less (built) kernel names the kernel and instruction.
    fn report(&mut self, loc: SourceLoc, inst: Option<Inst>, message: String) {
        if !self.errors.keeps_next() {
            self.errors.count_omitted();
            return;
        }
        let message = if loc.is_known() {
            message
        } else {
            match inst {
                Some(inst) => format!(
                    "{message} (kernel `{}`, instruction {})",
                    self.kernel.name,
                    inst.as_u32()
                ),
                None => format!("{message} (kernel `{}`)", self.kernel.name),
            }
        };
        self.errors.push(Diagnostic::new(loc, message));
    }

    fn check(mut self) {
        self.check_params();
        for (id, inst) in self.kernel.insts.iter() {
            match inst {
                InstData::Atomic(inst) => self.check_inst(id, inst),
                InstData::Fence(fence) => self.check_fence(id, fence),
            }
        }
    }

    fn check_fence(&mut self, id: Inst, fence: &Fence) {
        if !fence.order.is_fence_order() {
            let message = format!(
                "fence.{}.{}: a relaxed fence orders nothing; expected acquire, release, acq_rel \
                 or seq_cst",
                fence.order, fence.scope
            );
            self.report(self.kernel.loc_of(id), Some(id), message);
        }
    }

    /// Defines `name`, reporting a redefinition.
    fn define(&mut self, value: Value, data: &'k ValueData, loc: SourceLoc, inst: Option<Inst>) {
        let kind = if inst.is_some() { "value" } else { "parameter" };
        let before = if self.distinct_names {
            Some(value)
        } else {
            self.names
                .insert(data.name.as_bytes(), value, &self.kernel.values)
        };
        if let Some(first) = before.and_then(|before| self.defined[before]) {
            let message = format!(
                "{kind} `%{}` is already defined{}; each value is defined once",
                data.name,
                at_position(first)
            );
            self.report(loc, inst, message);
        }
        self.defined[value] = Some(loc);
    }

    fn check_params(&mut self) {
        let kernel = self.kernel;
        for (index, param) in kernel.params.iter().enumerate() {
            let Some(data) = owned(kernel, param.value) else {
                let message = format!(
                    "parameter {index} refers to value {}, {}",
                    param.value,
                    not_owned(kernel, param.value)
                );
                self.report(kernel.loc, None, message);
                continue;
            };
            let loc = if data.loc.is_known() {
                data.loc
            } else {
                kernel.loc
            };
            if data.def != ValueDef::Param(index as u32) || data.ty != param.ty {
                let message = format!(
                    "parameter {index} `%{}`: its value is recorded as {:?} of type {}, not \
                     parameter {index} of type {}",
                    data.name, data.def, data.ty, param.ty
                );
                self.report(loc, None, message);
            }
            self.define(param.value, data, loc, None);
        }
    }

    /// A value used by instruction `inst` in `role`: it must exist and be defined already.
    fn use_value(
        &mut self,
        inst: Inst,
        loc: SourceLoc,
        value: Value,
        role: &dyn fmt::Display,
    ) -> Option<&'k ValueData> {
        let kernel = self.kernel;
        let Some(data) = owned(kernel, value) else {
            self.report(
                loc,
                Some(inst),
                format!(
                    "{role} refers to value {value}, {}",
                    not_owned(kernel, value)
                ),
            );
            return None;
        };
        if self.defined[value].is_none() {
            let message = format!("{role} `%{}` is used before it is defined", data.name);
            self.report(loc, Some(inst), message);
            return None;
        }
        Some(data)
    }

    fn check_inst(&mut self, id: Inst, inst: &'k AtomicInst) {
        let kernel = self.kernel;
        let loc = kernel.loc_of(id);
        let name = ShortName(inst);

        if let Some(predicate) = inst.predicate {
            if let Some(data) = self.use_value(id, loc, predicate.value, &"predicate") {
                if data.ty != ValueType::Pred {
                    let message = format!(
                        "predicate `%{}` has type {}; a guard must be `pred`",
                        data.name, data.ty
                    );
                    self.report(loc, Some(id), message);
                }
            }
        }

        if let Some(data) = self.use_value(id, loc, inst.addr, &"address") {
            match data.ty {
                ValueType::Ptr(pointer) => self.check_space(id, loc, inst, &data.name, pointer),
                other => {
                    let message = format!(
                        "address `%{}` has type {other}; {name} needs a pointer (ptr.<space>)",
                        data.name
                    );
                    self.report(loc, Some(id), message);
                }
            }
        }

        if !inst.ty.supports(inst.op) {
            self.report(loc, Some(id), op_type_message(inst));
        }

        if let Some(laxity) = inst.laxity.filter(|lax| !lax.admits(inst.op, inst.ty)) {
            let message = format!(
                "{name} cannot be `{laxity}`: `ftz` is defined on float add and sub, `ieee2008` \
                 on float min and max"
            );
            self.report(loc, Some(id), message);
        }

        if !inst.op.admits_order(inst.order) {
            let (part, orders) = if inst.op == AtomicOp::Load {
                ("release", "relaxed, acquire or seq_cst")
            } else {
                ("acquire", "relaxed, release or seq_cst")
            };
            let message = format!(
                "{name} cannot be {}: a {} has no {part} part; expected {orders}",
                inst.order, inst.op
            );
            self.report(loc, Some(id), message);
        }

        let found = usize::from(inst.operand.is_some()) + usize::from(inst.new_value.is_some());
        if found != inst.op.operand_count() || (inst.operand.is_none() && found > 0) {
            let (expected, note) = match inst.op {
                AtomicOp::Load => ("no operand (a load only reads)", ""),
                AtomicOp::Cas => ("two operands, the expected value then the new value", ""),
                AtomicOp::Store => ("one operand, the value stored", ""),
                _ => ("one operand", " (only cas takes expected and new)"),
            };
            let message = format!("{name} takes {expected}; found {}{note}", count_word(found));
            self.report(loc, Some(id), message);
        }
        let first_role = match inst.op {
            AtomicOp::Cas => Role::Expected,
            AtomicOp::Store => Role::Stored,
            _ => Role::Operand,
        };
        if let Some(operand) = inst.operand {
            self.check_operand(id, loc, inst, operand, first_role);
        }
        if let Some(new_value) = inst.new_value {
            self.check_operand(id, loc, inst, new_value, Role::New);
        }

        match inst.result {
            None if inst.op.requires_result() => {
                let message = format!(
                    "{name} returns the value it reads and needs a result: `%v = atomic.load…`"
                );
                self.report(loc, Some(id), message);
            }
            Some(result) if inst.op.has_no_result() => {
                let message = format!(
                    "{name} returns nothing; remove the result `%{} =`",
                    kernel.values.get(result).map_or("?", |data| &*data.name)
                );
                self.report(loc, Some(id), message);
            }
            _ => {}
        }

        if let Some(result) = inst.result {
            let Some(data) = owned(kernel, result) else {
                self.report(
                    loc,
                    Some(id),
                    format!(
                        "result refers to value {result}, {}",
                        not_owned(kernel, result)
                    ),
                );
                return;
            };
            let result_loc = if data.loc.is_known() { data.loc } else { loc };
            if data.def != ValueDef::Result(id) {
                let message = format!(
                    "result `%{}` is recorded as defined by {:?}, not by this instruction",
                    data.name, data.def
                );
                self.report(result_loc, Some(id), message);
            }
            if data.ty != inst.result_type() {
                let message = format!(
                    "result `%{}` has type {}; {name} returns {}",
                    data.name,
                    data.ty,
                    inst.result_type()
                );
                self.report(result_loc, Some(id), message);
            }
            self.define(result, data, result_loc, Some(id));
        }
    }

    fn check_space(
        &mut self,
        id: Inst,
        loc: SourceLoc,
        inst: &AtomicInst,
        name: &str,
        pointer: AddressSpace,
    ) {
        let space = inst.space;
        let agrees = space == AddressSpace::Generic
            || space == pointer
            // The CTA's shared window lies inside the cluster's.
            || (space == AddressSpace::SharedCluster && pointer == AddressSpace::Shared);
        if agrees {
            return;
        }
        let message = if pointer == AddressSpace::Generic {
            format!(
                "address `%{name}` is a generic pointer (ptr.generic) but the instruction accesses \
                 {space} memory; use the generic instruction (atomic.{}.generic.…) for a generic pointer",
                inst.op
            )
        } else {
            format!(
                "address `%{name}` points into {pointer} memory (ptr.{pointer}) but the instruction \
                 accesses {space} memory"
            )
        };
        self.report(loc, Some(id), message);
    }

    fn check_operand(
        &mut self,
        id: Inst,
        loc: SourceLoc,
        inst: &AtomicInst,
        operand: Operand,
        role: Role,
    ) {
        let (ty, shape) = (inst.ty, inst.shape);
        let name = ShortName(inst);
        let noun = role.noun();
        match operand {
            Operand::Scalar(Scalar::Value(value)) => {
                let Some(data) = self.use_value(id, loc, value, &noun) else {
                    return;
                };
                let fits = match data.ty {
                    ValueType::Data(found, found_shape) => {
                        found_shape == shape && accepts(ty, found)
                    }
                    _ => false,
                };
                if !fits {
                    let wanted = if shape.is_vector() {
                        format!(
                            "a brace list of {} elements of {} or a {shape} value of {}",
                            shape.len(),
                            element_wanted(ty),
                            element_wanted(ty)
                        )
                    } else {
                        element_wanted(ty)
                    };
                    let message = format!(
                        "{noun} `%{}` has type {}; {name} needs {wanted}",
                        data.name, data.ty
                    );
                    self.report(loc, Some(id), message);
                }
            }
            Operand::Scalar(Scalar::Const(constant)) => {
                if shape.is_vector() {
                    let message = format!(
                        "{noun} is a single literal; {name} needs a brace list of {} elements",
                        shape.len()
                    );
                    self.report(loc, Some(id), message);
                } else {
                    self.check_constant(id, loc, name, constant, ty, &noun);
                }
            }
            Operand::Vector(list) => {
                if !shape.is_vector() {
                    let message = format!(
                        "{noun} is a brace list of {}; {name} is scalar and takes a single value",
                        list.len()
                    );
                    self.report(loc, Some(id), message);
                    return;
                }
                if list.len() != shape.len() {
                    let message = format!(
                        "{noun} has {} elements; {name} needs {}",
                        list.len(),
                        shape.len()
                    );
                    self.report(loc, Some(id), message);
                }
                let Some(elements) = self.kernel.checked_vector_elements(list) else {
                    self.report(
                        loc,
                        Some(id),
                        format!("{noun} refers to a vector list outside this kernel"),
                    );
                    return;
                };
                for (index, &element) in elements.iter().enumerate() {
                    let element_noun = ElementNoun { noun, index };
                    match element {
                        Scalar::Value(value) => {
                            let Some(data) = self.use_value(id, loc, value, &element_noun) else {
                                continue;
                            };
                            let fits = matches!(data.ty,
                                ValueType::Data(found, VectorShape::Scalar) if accepts(ty, found));
                            if !fits {
                                let message = format!(
                                    "{element_noun} `%{}` has type {}; {name} needs {}",
                                    data.name,
                                    data.ty,
                                    element_wanted(ty)
                                );
                                self.report(loc, Some(id), message);
                            }
                        }
                        Scalar::Const(constant) => {
                            self.check_constant(id, loc, name, constant, ty, &element_noun)
                        }
                    }
                }
            }
        }
    }

    fn check_constant(
        &mut self,
        id: Inst,
        loc: SourceLoc,
        name: ShortName<'_>,
        constant: crate::kernel::Constant,
        ty: ElemType,
        noun: &dyn fmt::Display,
    ) {
        match self.kernel.constants.get(constant) {
            None => {
                let message = format!("{noun} refers to literal {constant}, which does not exist");
                self.report(loc, Some(id), message);
            }
            Some(&bits) if bits & !mask(ty.bits()) != 0 => {
                let message = format!("{noun}: literal {bits:#x} does not fit {ty} ({name})");
                self.report(loc, Some(id), message);
            }
            Some(_) => {}
        }
    }
}
