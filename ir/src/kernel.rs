//! Kernels: typed parameters and a straight-line sequence of instructions, each an atomic access
//! ([`AtomicInst`]: a read-modify-write, a load or a store) or a [`Fence`].
//!
//! Values, instructions and constants are `cranelift-entity` ids into tables owned by the
//! [`Kernel`]; an instruction is a fixed-size record ([`InstData`], no per-instruction heap
//! allocation), and vector operands live in one pool per kernel. As in cranelift's
//! `InstructionData`, each kind of instruction carries only its own fields: a fence has an order
//! and a scope, never a type, an address or a result.

use cranelift_entity::{entity_impl, EntityRef, PrimaryMap, SecondaryMap};
use std::fmt;

use crate::types::{
    AddressSpace, AtomicOp, CacheHint, ElemType, FloatLaxity, MemoryOrder, Scope, ValueType,
    VectorShape,
};

/// An SSA value: a kernel parameter or the result of an atomic instruction.
///
/// A value is its index in its kernel's table, and it remembers which kernel handed it out
/// ([`Kernel::add_param`], [`Kernel::push`], the text reader), so that an id of another
/// kernel is an error where a client hands it back ([`Kernel::owns`]: the verifier and
/// splicing check it) rather than another value that happens to have its index. Ids compare,
/// hash and print by index alone; an id made from an index ([`EntityRef::new`],
/// [`Value::from_u32`]) belongs to no kernel in particular, and only its index is checked.
#[derive(Clone, Copy)]
pub struct Value {
    index: u32,
    kernel: KernelTag,
}

/// Which kernel handed out a [`Value`]: every kernel made has its own (its clones share it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KernelTag(u32);

impl KernelTag {
    /// A tag no kernel made before has had (0, "no kernel", is never handed out; after 2^32 - 1
    /// kernels the tags start again).
    fn fresh() -> Self {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
        loop {
            let tag = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if tag != 0 {
                return KernelTag(tag);
            }
        }
    }

    /// The tag of ids made from an index, which belong to no kernel in particular.
    const NONE: KernelTag = KernelTag(0);
}

impl Value {
    /// The value of index `x`, belonging to no kernel in particular.
    pub const fn from_u32(x: u32) -> Self {
        Value {
            index: x,
            kernel: KernelTag::NONE,
        }
    }

    /// The value's index in its kernel's table.
    pub const fn as_u32(self) -> u32 {
        self.index
    }

    /// The kernel that handed the value out, or `None` for an id made from an index.
    pub fn kernel_tag(self) -> Option<KernelTag> {
        (self.kernel != KernelTag::NONE).then_some(self.kernel)
    }

    /// This id, as kernel `kernel` hands it out.
    pub(crate) const fn of_kernel(self, kernel: KernelTag) -> Self {
        Value {
            index: self.index,
            kernel,
        }
    }
}

impl EntityRef for Value {
    #[inline]
    fn new(index: usize) -> Self {
        debug_assert!(index < u32::MAX as usize);
        Value::from_u32(index as u32)
    }

    #[inline]
    fn index(self) -> usize {
        self.index as usize
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}

impl Eq for Value {}

impl std::hash::Hash for Value {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state);
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.index.cmp(&other.index)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.index)
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// An instruction of a kernel. Ids follow program order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// A literal, stored as raw bits; its meaning comes from the instruction's element type.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Constant(u32);
entity_impl!(Constant, "const");

/// A 1-based line and column in the source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceLoc {
    /// 1-based line; 0 for an item built in code.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
}

impl SourceLoc {
    /// Line and column, both 1-based (`0, 0` means no location).
    pub const fn new(line: u32, col: u32) -> Self {
        SourceLoc { line, col }
    }

    /// Whether this location came from text (built kernels have none).
    pub const fn is_known(self) -> bool {
        self.line != 0
    }
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Where a value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// The n-th kernel parameter.
    Param(u32),
    /// The old value returned by an atomic instruction.
    Result(Inst),
}

/// The name of a value, without its `%`: read as a `&str` (it derefs to one).
///
/// A kernel of 100k atomics has 100k names of a few bytes each; one heap allocation per name
/// cost the parser more than the rest of reading a result, and a heap block (32 bytes at
/// least) several times the name. A name of up to [`Name::INLINE`] bytes is held in place, in
/// the 16 bytes a `Box<str>` took; a longer one behind one pointer.
#[derive(Clone)]
pub struct Name(NameRepr);

#[derive(Clone)]
enum NameRepr {
    /// The first `len` bytes of `bytes` are the name's UTF-8.
    Inline { len: u8, bytes: [u8; Name::INLINE] },
    /// Boxed twice, so that this variant is one pointer and the whole fits in 16 bytes.
    Heap(Box<Box<str>>),
}

impl Name {
    /// The longest name held without a heap allocation: what fits in 16 bytes beside the
    /// length and the variant tag.
    pub const INLINE: usize = 14;

    /// The name's UTF-8 bytes, without the check [`Name::as_str`] makes: for comparing and
    /// hashing names, which the parser does for every `%name` it reads.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            NameRepr::Inline { len, bytes } => &bytes[..usize::from(*len)],
            NameRepr::Heap(name) => name.as_bytes(),
        }
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            NameRepr::Inline { len, bytes } => {
                let bytes = &bytes[..usize::from(*len)];
                debug_assert!(std::str::from_utf8(bytes).is_ok());
                // SAFETY: an inline name is made only by `From<&str>`, which copies a whole
                // `&str` and records its length; the fields are private and never changed
                // after. So the bytes are that string's UTF-8. (A checked conversion here
                // cost the lowering more than the allocation it replaces: printers read every
                // name.)
                unsafe { std::str::from_utf8_unchecked(bytes) }
            }
            NameRepr::Heap(name) => name,
        }
    }
}

impl From<&str> for Name {
    fn from(name: &str) -> Self {
        match u8::try_from(name.len()) {
            Ok(len) if name.len() <= Name::INLINE => {
                let mut bytes = [0; Name::INLINE];
                bytes[..name.len()].copy_from_slice(name.as_bytes());
                Name(NameRepr::Inline { len, bytes })
            }
            _ => Name(NameRepr::Heap(Box::new(name.into()))),
        }
    }
}

impl From<String> for Name {
    fn from(name: String) -> Self {
        if name.len() <= Name::INLINE {
            Name::from(name.as_str())
        } else {
            Name(NameRepr::Heap(Box::new(name.into_boxed_str())))
        }
    }
}

impl std::ops::Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Name {}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl std::hash::Hash for Name {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

/// As a `str` prints: `Debug` output of a module reads as it did when names were `Box<str>`.
impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A value of a kernel: a parameter or an instruction's old value.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueData {
    /// The name without its `%`.
    pub name: Name,
    /// Its type: a pointer, or data of an element type and shape.
    pub ty: ValueType,
    /// The parameter or instruction that defines it.
    pub def: ValueDef,
    /// Where the text form names it (unknown for built kernels).
    pub loc: SourceLoc,
}

/// One element of an operand: a value or a literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// A parameter or an earlier result.
    Value(Value),
    /// A literal of the kernel's constant pool, read as the instruction's element type.
    Const(Constant),
}

/// A brace-enclosed list of scalars, stored in the kernel's vector pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VectorList {
    start: u32,
    len: u32,
}

impl VectorList {
    pub(crate) const fn new(start: u32, len: u32) -> Self {
        VectorList { start, len }
    }

    /// The number of scalars, which a verified kernel has equal to its node's vector width.
    pub const fn len(self) -> usize {
        self.len as usize
    }

    /// Whether the list has no scalar (never in a verified kernel).
    pub const fn is_empty(self) -> bool {
        self.len == 0
    }
}

/// A value operand of an atomic instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// One scalar, for a scalar node.
    Scalar(Scalar),
    /// `{a, b, …}`: one scalar per vector element.
    Vector(VectorList),
}

impl From<Value> for Operand {
    fn from(value: Value) -> Self {
        Operand::Scalar(Scalar::Value(value))
    }
}

impl From<Constant> for Operand {
    fn from(constant: Constant) -> Self {
        Operand::Scalar(Scalar::Const(constant))
    }
}

/// Guards an instruction: it executes only where the predicate (or its negation) holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Predicate {
    /// A `pred` value (a parameter).
    pub value: Value,
    /// Execute where the value is false (`@!%p`).
    pub negated: bool,
}

/// The atomic node: everything a backend needs, as typed values.
///
/// Invariants (checked by [`crate::verify`]): `op` is meaningful for `ty` and admits `order`;
/// there are exactly [`AtomicOp::operand_count`] operands (`operand`, then `new_value` for
/// `cas`; a load has none) matching the element type and the vector shape; `addr` is a pointer
/// whose space agrees with `space`; the result, if any, has type `shape.ty`, a load has one and a
/// store none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AtomicInst {
    /// The read-modify-write (or load, store) performed on each element.
    pub op: AtomicOp,
    /// The element type, which gives the operation and the literals their meaning.
    pub ty: ElemType,
    /// Scalar, or a vector of independently atomic elements.
    pub shape: VectorShape,
    /// The memory order of the access.
    pub order: MemoryOrder,
    /// The threads the access is atomic and ordered with respect to.
    pub scope: Scope,
    /// The memory `addr` points into (`generic` when not known).
    pub space: AddressSpace,
    /// A cache-eviction hint; a target without it ignores it, recorded as a rewrite.
    pub hint: Option<CacheHint>,
    /// The looser float results the access also allows (`None`: exactly its op's); only where
    /// [`FloatLaxity::admits`] the op and type.
    pub laxity: Option<FloatLaxity>,
    /// The guard, if the instruction is predicated: a failing predicate touches no memory and
    /// gives a zero result.
    pub predicate: Option<Predicate>,
    /// The address of the first element: a pointer parameter whose space agrees with `space`.
    pub addr: Value,
    /// `b`: the operand of the operation; for `cas`, the expected value; for a store, the value
    /// stored. `None` for a load.
    pub operand: Option<Operand>,
    /// `c`: for `cas` only, the value stored when the comparison succeeds.
    pub new_value: Option<Operand>,
    /// The old value, when the program uses it. `None` means a pure reduction.
    pub result: Option<Value>,
}

impl AtomicInst {
    /// A relaxed, device-scope, generic, scalar node: the text form's defaults.
    pub fn new(op: AtomicOp, ty: ElemType, addr: Value, operand: Operand) -> Self {
        AtomicInst {
            op,
            operand: Some(operand),
            ..AtomicInst::load(ty, addr)
        }
    }

    /// A relaxed, device-scope, generic, scalar load (no operand; push it with a result name).
    pub fn load(ty: ElemType, addr: Value) -> Self {
        AtomicInst {
            op: AtomicOp::Load,
            ty,
            shape: VectorShape::Scalar,
            order: MemoryOrder::Relaxed,
            scope: Scope::Device,
            space: AddressSpace::Generic,
            hint: None,
            laxity: None,
            predicate: None,
            addr,
            operand: None,
            new_value: None,
            result: None,
        }
    }

    /// Whether the old value is used; an unused one lets a target print a reduction (`red`).
    pub const fn result_used(&self) -> bool {
        self.result.is_some()
    }

    /// The type of the old value this instruction returns.
    pub const fn result_type(&self) -> ValueType {
        ValueType::Data(self.ty, self.shape)
    }
}

/// A memory fence: orders the accesses around it, at a scope. It reads and writes nothing.
///
/// Invariant (checked by [`crate::verify`]): `order` is not relaxed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fence {
    /// acquire, release, acq_rel or seq_cst.
    pub order: MemoryOrder,
    /// The threads it orders the accesses with respect to.
    pub scope: Scope,
}

/// One instruction: an atomic access or a fence, each with only the fields it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InstData {
    /// An atomic access: read-modify-write, load or store.
    Atomic(AtomicInst),
    /// A stand-alone fence.
    Fence(Fence),
}

impl InstData {
    /// The atomic access, unless this is a fence.
    pub const fn as_atomic(&self) -> Option<&AtomicInst> {
        match self {
            InstData::Atomic(inst) => Some(inst),
            InstData::Fence(_) => None,
        }
    }

    /// The atomic access, mutably, unless this is a fence.
    pub fn as_atomic_mut(&mut self) -> Option<&mut AtomicInst> {
        match self {
            InstData::Atomic(inst) => Some(inst),
            InstData::Fence(_) => None,
        }
    }

    /// The fence, unless this is an atomic access.
    pub const fn as_fence(&self) -> Option<&Fence> {
        match self {
            InstData::Fence(fence) => Some(fence),
            InstData::Atomic(_) => None,
        }
    }

    /// The memory order, of the access or the fence.
    pub const fn order(&self) -> MemoryOrder {
        match self {
            InstData::Atomic(inst) => inst.order,
            InstData::Fence(fence) => fence.order,
        }
    }

    /// The scope, of the access or the fence.
    pub const fn scope(&self) -> Scope {
        match self {
            InstData::Atomic(inst) => inst.scope,
            InstData::Fence(fence) => fence.scope,
        }
    }

    /// The value the instruction defines, if any (a fence defines none).
    pub const fn result(&self) -> Option<Value> {
        match self {
            InstData::Atomic(inst) => inst.result,
            InstData::Fence(_) => None,
        }
    }
}

impl From<AtomicInst> for InstData {
    fn from(inst: AtomicInst) -> Self {
        InstData::Atomic(inst)
    }
}

impl From<Fence> for InstData {
    fn from(fence: Fence) -> Self {
        InstData::Fence(fence)
    }
}

/// A kernel parameter as written in the signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// The value the body refers to it by.
    pub value: Value,
    /// Its declared type.
    pub ty: ValueType,
}

/// A kernel: a name, typed parameters, and instructions in program order.
#[derive(Clone)]
pub struct Kernel {
    /// The kernel's name, without `@`; backends print it as the entry point's name.
    pub name: String,
    /// Where the text form declares it (unknown for built kernels).
    pub loc: SourceLoc,
    /// The parameters, in signature order.
    pub params: Vec<Param>,
    /// Every value: parameters and results.
    pub values: PrimaryMap<Value, ValueData>,
    /// The instructions, in program order.
    pub insts: PrimaryMap<Inst, InstData>,
    /// Where the text form writes each instruction (unknown for built kernels).
    pub inst_locs: SecondaryMap<Inst, SourceLoc>,
    /// The literal pool: raw bits, zero-extended; the element type of the instruction that
    /// reads a constant gives it its meaning.
    pub constants: PrimaryMap<Constant, u128>,
    pub(crate) vector_pool: Vec<Scalar>,
    /// The tag of the values this kernel hands out.
    tag: KernelTag,
}

impl fmt::Debug for Kernel {
    /// Every field but the tag, which differs between two kernels read from one text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name)
            .field("loc", &self.loc)
            .field("params", &self.params)
            .field("values", &self.values)
            .field("insts", &self.insts)
            .field("inst_locs", &self.inst_locs)
            .field("constants", &self.constants)
            .field("vector_pool", &self.vector_pool)
            .finish()
    }
}

impl Default for Kernel {
    /// An empty kernel with no name, and a tag of its own.
    fn default() -> Self {
        Kernel {
            name: String::new(),
            loc: SourceLoc::default(),
            params: Vec::new(),
            values: PrimaryMap::new(),
            insts: PrimaryMap::new(),
            inst_locs: SecondaryMap::new(),
            constants: PrimaryMap::new(),
            vector_pool: Vec::new(),
            tag: KernelTag::fresh(),
        }
    }
}

impl Kernel {
    /// An empty kernel named `name` (without `@`).
    pub fn new(name: impl Into<String>) -> Self {
        Kernel {
            name: name.into(),
            ..Kernel::default()
        }
    }

    /// The tag of the values this kernel hands out (shared with its clones).
    pub fn tag(&self) -> KernelTag {
        self.tag
    }

    /// Whether `value` is a value of this kernel: in range, and handed out by this kernel (or
    /// a clone of it) or made from an index. Nothing is allocated or indexed for the id.
    pub fn owns(&self, value: Value) -> bool {
        value.index() < self.values.len()
            && (value.kernel == KernelTag::NONE || value.kernel == self.tag)
    }

    /// `value` as this kernel hands it out: for readers that find a value by its index.
    pub(crate) fn id(&self, value: Value) -> Value {
        value.of_kernel(self.tag)
    }

    /// Adds a parameter named `name` (without `%`).
    pub fn add_param(&mut self, name: &str, ty: ValueType) -> Value {
        let index = self.params.len() as u32;
        let value = self.values.push(ValueData {
            name: name.into(),
            ty,
            def: ValueDef::Param(index),
            loc: SourceLoc::default(),
        });
        let value = self.id(value);
        self.params.push(Param { value, ty });
        value
    }

    /// Adds a literal to the pool: its raw bits (an f32 `1.0` is `0x3f80_0000`).
    pub fn constant(&mut self, bits: u128) -> Constant {
        self.constants.push(bits)
    }

    /// Stores `elements` in the kernel's pool and returns them as a vector operand: the
    /// operand is only meaningful in this kernel.
    pub fn vector(&mut self, elements: &[Scalar]) -> Operand {
        let list = VectorList {
            start: self.vector_pool.len() as u32,
            len: elements.len() as u32,
        };
        self.vector_pool.extend_from_slice(elements);
        Operand::Vector(list)
    }

    /// The elements of `list`, or `None` when it does not belong to this kernel's pool (a list
    /// copied from another kernel); for the verifier and printer, which must not panic.
    pub fn checked_vector_elements(&self, list: VectorList) -> Option<&[Scalar]> {
        let start = list.start as usize;
        self.vector_pool
            .get(start..start.checked_add(list.len as usize)?)
    }

    /// The elements of `list`, a list of this kernel.
    ///
    /// # Panics
    /// On a list of another kernel's pool; [`Kernel::checked_vector_elements`] answers `None`
    /// instead. The verifier rejects such a list, so printers of a verified kernel use this.
    pub fn vector_elements(&self, list: VectorList) -> &[Scalar] {
        &self.vector_pool[list.start as usize..(list.start + list.len) as usize]
    }

    /// Appends an atomic access; when `result_name` is given, defines its result value.
    pub fn push(&mut self, mut inst: AtomicInst, result_name: Option<&str>) -> Inst {
        let id = self.insts.next_key();
        inst.result = result_name.map(|name| {
            let value = self.values.push(ValueData {
                name: name.into(),
                ty: inst.result_type(),
                def: ValueDef::Result(id),
                loc: SourceLoc::default(),
            });
            self.id(value)
        });
        self.insts.push(InstData::Atomic(inst))
    }

    /// Appends a fence.
    pub fn push_fence(&mut self, fence: Fence) -> Inst {
        self.insts.push(InstData::Fence(fence))
    }

    /// The atomic access `inst`, or `None` for a fence (or an id of another kernel).
    pub fn atomic(&self, inst: Inst) -> Option<&AtomicInst> {
        self.insts.get(inst).and_then(InstData::as_atomic)
    }

    /// The atomic access `inst`, to change it, or `None` for a fence.
    pub fn atomic_mut(&mut self, inst: Inst) -> Option<&mut AtomicInst> {
        self.insts.get_mut(inst).and_then(InstData::as_atomic_mut)
    }

    /// Every atomic access with its id, in program order (fences skipped).
    pub fn atomics(&self) -> impl Iterator<Item = (Inst, &AtomicInst)> + '_ {
        self.insts
            .iter()
            .filter_map(|(id, data)| data.as_atomic().map(|inst| (id, inst)))
    }

    /// The name of `value`, without its `%`.
    ///
    /// # Panics
    /// On a value of another kernel (`self.values.get(value)` answers `None` instead).
    pub fn value_name(&self, value: Value) -> &str {
        &self.values[value].name
    }

    /// The type of `value`.
    ///
    /// # Panics
    /// On a value of another kernel (`self.values.get(value)` answers `None` instead).
    pub fn value_type(&self, value: Value) -> ValueType {
        self.values[value].ty
    }

    /// The scalar that feeds vector element `index` of an operand. A scalar operand feeds every
    /// element; a vector-typed value has no per-element scalar and yields `None`.
    pub fn operand_element(&self, operand: Operand, index: usize) -> Option<Scalar> {
        match operand {
            Operand::Scalar(scalar) => Some(scalar),
            Operand::Vector(list) => self.checked_vector_elements(list)?.get(index).copied(),
        }
    }

    /// Source position of an instruction, or of the kernel when the instruction has none.
    pub fn loc_of(&self, inst: Inst) -> SourceLoc {
        let loc = self.inst_locs[inst];
        if loc.is_known() {
            loc
        } else {
            self.loc
        }
    }
}

/// A translation unit: one or more kernels.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// The kernels, in source order; names are unique.
    pub kernels: Vec<Kernel>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name reads back as it was given, held in place or on the heap, and compares, hashes
    /// and prints as its text does.
    #[test]
    fn names_read_back_as_given() {
        assert_eq!(std::mem::size_of::<Name>(), 16);
        let long = "n".repeat(Name::INLINE + 1);
        let most = "n".repeat(Name::INLINE);
        for text in ["", "x", "r99999", "é_ü", &most, &long, "x\u{1F600}y"] {
            for name in [Name::from(text), Name::from(text.to_string())] {
                assert_eq!(name.as_str(), text);
                assert_eq!(name.as_bytes(), text.as_bytes());
                assert_eq!(&*name, text);
                assert_eq!(name, text);
                assert_eq!(format!("{name}"), text);
                assert_eq!(format!("{name:?}"), format!("{text:?}"));
                assert_eq!(name, name.clone());
            }
        }
        assert_ne!(Name::from("r1"), Name::from("r10"));
        assert_ne!(Name::from(long.as_str()), Name::from(&long[1..]));
    }
}
