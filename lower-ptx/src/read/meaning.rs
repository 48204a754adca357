//! What each memory instruction means: its qualifiers classified by the spelling tables (in any
//! order), PTX's defaults filled in, the op/type pair checked against what PTX has, the
//! registers against their declarations, and the atomir node built.

use std::fmt;

use atomir_ir::{
    AddressSpace, AtomicNode, AtomicOp, ElemType, Fence, FloatLaxity, MemoryOrder, Node, Scope,
    VectorShape,
};

use super::decl::Declarations;
use super::scan::Lines;
use super::syntax::{self, Syntax};
use super::{Bindings, PtxScalar, ReadAtomic, ReadError, ReadModule};
use crate::spell::{
    MembarLevel, PtxFenceForm, PtxFlag, PtxOpcode, PtxRmw, PtxScope, PtxSem, PtxSpace, PtxType,
    PtxVector,
};
use crate::target::{PtxIsa, Sm};

pub(super) use super::kernel::kernel_of;

/// What a statement is read against.
pub(super) struct Context<'a> {
    pub source: &'a str,
    pub lines: &'a Lines,
    pub decls: &'a mut Declarations,
    pub function: &'a str,
}

impl Context<'_> {
    fn error(&self, offset: usize, message: impl Into<String>) -> ReadError {
        let (line, col) = self.lines.locate(self.source, offset);
        ReadError {
            line,
            col,
            message: message.into(),
        }
    }
}

/// Reads one statement of a module: a header directive, a declaration or an instruction.
pub(super) fn statement(cx: Context<'_>, start: usize, text: &str, module: &mut ReadModule) {
    let trimmed = text.trim_start();
    let at = start + (text.len() - trimmed.len());
    let span = at..start + text.trim_end().len();
    if let Some(rest) = trimmed.strip_prefix(".version") {
        let version = rest.trim();
        match parse_isa(version) {
            Some(isa) => module.version = Some(isa),
            None => module.errors.push(cx.error(
                at,
                format!("`.version {version}`: expected a PTX ISA version such as 8.8"),
            )),
        }
        module.version_span = Some(span);
        return;
    }
    if let Some(rest) = trimmed.strip_prefix(".target") {
        let first = rest.split(',').next().unwrap_or("").trim();
        module.sm = Sm::from_name(first);
        module.target_span = Some(span);
        return;
    }
    if trimmed.starts_with('.') {
        if let Err(error) = cx.decls.statement(trimmed) {
            module.errors.push(cx.error(at, error.to_string()));
        }
        return;
    }
    instruction(cx, start, text, module);
}

fn parse_isa(text: &str) -> Option<PtxIsa> {
    let (major, minor) = text.split_once('.')?;
    Some(PtxIsa::new(major.parse().ok()?, minor.parse().ok()?))
}

/// Reads one instruction statement (`start` is its offset in the source).
pub(super) fn instruction(cx: Context<'_>, start: usize, text: &str, module: &mut ReadModule) {
    let Some(syntax) = syntax::parse(text) else {
        return;
    };
    let head = syntax.head();
    let opcode = match head {
        "createpolicy" => {
            let operands: Vec<&str> = syntax.operands.iter().map(|(text, _)| *text).collect();
            cx.decls.create_policy(syntax.opcode, &operands);
            return;
        }
        "multimem" => {
            let message = format!(
                "`{}` is not modelled: multimem accesses act on every GPU of a multicast object",
                syntax.opcode
            );
            module
                .errors
                .push(cx.error(start + syntax.opcode_at, message));
            return;
        }
        "cp" if syntax
            .opcode
            .starts_with(PtxOpcode::CpReduceAsyncBulk.as_str()) =>
        {
            let message = format!(
                "`{}` is not modelled: a bulk asynchronous reduction",
                syntax.opcode
            );
            module
                .errors
                .push(cx.error(start + syntax.opcode_at, message));
            return;
        }
        other => match PtxOpcode::from_name(other) {
            Some(opcode) => opcode,
            None => return,
        },
    };
    let reader = Reader {
        cx: &cx,
        syntax: &syntax,
        start,
    };
    let read = match opcode {
        PtxOpcode::Atom | PtxOpcode::Red => reader.rmw(opcode),
        PtxOpcode::Ld | PtxOpcode::St => reader.ld_st(opcode),
        PtxOpcode::Fence => reader.fence(),
        PtxOpcode::Membar => reader.membar(),
        PtxOpcode::Multimem | PtxOpcode::CpReduceAsyncBulk => return,
    };
    match read {
        Ok(Some((node, values))) => {
            let at = start + syntax.start;
            let (line, col) = cx.lines.locate(cx.source, at);
            module.atomics.push(ReadAtomic {
                span: at..start + text.trim_end().len(),
                line,
                col,
                function: cx.function.to_string(),
                node,
                opcode,
                values,
                raw: cx.lines.line_text(cx.source, at).to_string(),
            });
        }
        Ok(None) => {}
        Err(error) => module.errors.push(error),
    }
}

type Read = Result<Option<(Node, Bindings)>, ReadError>;

pub(super) struct Reader<'r, 'c, 's> {
    pub(super) cx: &'r Context<'c>,
    pub(super) syntax: &'r Syntax<'s>,
    pub(super) start: usize,
}

/// The qualifiers of a memory instruction, by kind.
#[derive(Default)]
struct Qualifiers {
    sem: Option<PtxSem>,
    scope: Option<PtxScope>,
    space: Option<PtxSpace>,
    op: Option<PtxRmw>,
    ty: Option<PtxType>,
    vector: Option<PtxVector>,
    noftz: bool,
    hint: bool,
    mmio: bool,
    /// The first qualifier that is none of these, with its offset.
    other: Option<(String, usize)>,
}

/// The kind of a qualifier of which an instruction may carry one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum QualifierKind {
    Sem,
    Scope,
    StateSpace,
    Operation,
    Type,
    Vector,
}

impl fmt::Display for QualifierKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QualifierKind::Sem => "sem",
            QualifierKind::Scope => "scope",
            QualifierKind::StateSpace => "state-space",
            QualifierKind::Operation => "operation",
            QualifierKind::Type => "type",
            QualifierKind::Vector => "vector",
        })
    }
}

/// Why a qualifier is refused where it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
enum QualifierError {
    /// A second qualifier of a kind the instruction carries one of, after the first.
    Twice {
        kind: QualifierKind,
        first: String,
        second: String,
    },
    /// A qualifier `fence` has no use for.
    UnknownOnFence(String),
}

impl fmt::Display for QualifierError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QualifierError::Twice {
                kind,
                first,
                second,
            } => write!(f, "two {kind} qualifiers, `.{first}` and `.{second}`"),
            QualifierError::UnknownOnFence(text) => write!(
                f,
                "unknown qualifier `.{text}` on `fence`; expected a sem (.sc, .acq_rel, .acquire, \
                 .release) and a scope ({})",
                spellings(PtxScope::ALL.iter())
            ),
        }
    }
}

fn set<T: Copy + fmt::Display>(
    slot: &mut Option<T>,
    value: T,
    kind: QualifierKind,
) -> Result<(), QualifierError> {
    match slot {
        Some(old) => Err(QualifierError::Twice {
            kind,
            first: old.to_string(),
            second: value.to_string(),
        }),
        None => {
            *slot = Some(value);
            Ok(())
        }
    }
}

impl Reader<'_, '_, '_> {
    pub(super) fn error(
        &self,
        offset_in_statement: usize,
        message: impl Into<String>,
    ) -> ReadError {
        self.cx.error(self.start + offset_in_statement, message)
    }

    fn opcode_error(&self, message: impl Into<String>) -> ReadError {
        self.error(self.syntax.opcode_at, message)
    }

    /// The error of an instruction whose operands are not `form`, at its opcode.
    fn operand_count_error(&self, form: &str) -> ReadError {
        self.opcode_error(format!(
            "`{}` takes {form}; found {} operands",
            self.syntax.opcode,
            self.syntax.operands.len()
        ))
    }

    /// The instruction's bindings before its operands are read: its guard alone.
    fn guarded(&self) -> Result<Bindings, ReadError> {
        Ok(Bindings {
            guard: self.guard()?,
            ..Bindings::default()
        })
    }

    /// Sorts the qualifiers by kind; with `rmw`, the operations and types of `atom`/`red`.
    fn qualifiers(&self, rmw: bool) -> Result<Qualifiers, ReadError> {
        let mut q = Qualifiers::default();
        for (text, at) in self.syntax.qualifiers() {
            let result = if text == PtxSem::Mmio.as_str() {
                // `.mmio.relaxed`: memory-mapped I/O on top of a sem.
                q.mmio = true;
                Ok(())
            } else if let Some(sem) = PtxSem::from_name(text) {
                set(&mut q.sem, sem, QualifierKind::Sem)
            } else if let Some(scope) = PtxScope::from_name(text) {
                set(&mut q.scope, scope, QualifierKind::Scope)
            } else if let Some(space) = PtxSpace::from_name(text) {
                set(&mut q.space, space, QualifierKind::StateSpace)
            } else if let (true, Some(op)) = (rmw, PtxRmw::from_name(text)) {
                set(&mut q.op, op, QualifierKind::Operation)
            } else if let Some(ty) = PtxType::from_name(text) {
                set(&mut q.ty, ty, QualifierKind::Type)
            } else if let Some(vector) = PtxVector::from_name(text) {
                set(&mut q.vector, vector, QualifierKind::Vector)
            } else if text == PtxFlag::Noftz.as_str() {
                q.noftz = true;
                Ok(())
            } else if text == PtxFlag::CacheHint.as_str() {
                q.hint = true;
                Ok(())
            } else {
                if q.other.is_none() {
                    q.other = Some((text.to_string(), at));
                }
                Ok(())
            };
            result.map_err(|error| self.error(at, error.to_string()))?;
        }
        Ok(q)
    }

    /// `atom` and `red`.
    fn rmw(&self, opcode: PtxOpcode) -> Read {
        let q = self.qualifiers(true)?;
        let name = opcode.as_str();
        if let Some((other, at)) = &q.other {
            let message = match other.as_str() {
                "async" => format!("`{name}.async` is not modelled: an asynchronous reduction completing on an mbarrier"),
                _ => format!(
                    "unknown qualifier `.{other}` on `{name}`; expected a sem ({}), scope ({}), \
                     space ({}), operation ({}), type ({}), vector ({}), `.noftz` or `.L2::cache_hint`",
                    spellings(PtxSem::ALL[..4].iter()),
                    spellings(PtxScope::ALL.iter()),
                    spellings(PtxSpace::ALL[..4].iter()),
                    spellings(PtxRmw::ALL.iter().filter(|op| opcode == PtxOpcode::Atom || op.has_reduction())),
                    spellings(PtxType::ALL[..14].iter()),
                    spellings(PtxVector::ALL.iter()),
                ),
            };
            return Err(self.error(*at, message));
        }
        if q.sem == Some(PtxSem::Mmio) {
            return Err(
                self.opcode_error(format!("`{name}.mmio` is not modelled: memory-mapped I/O"))
            );
        }
        let Some(op) = q.op else {
            return Err(self.opcode_error(format!(
                "`{name}` without an operation; expected one of {}",
                spellings(PtxRmw::ALL.iter())
            )));
        };
        let Some(ty) = q.ty else {
            return Err(self.opcode_error(format!("`{name}.{op}` without a type")));
        };
        let reduction = opcode == PtxOpcode::Red;
        if reduction && !op.has_reduction() {
            return Err(self.opcode_error(format!(
                "PTX has no `red.{op}`; `{op}` exists only as `atom`"
            )));
        }
        let order = match q.sem {
            None => MemoryOrder::Relaxed,
            Some(sem @ (PtxSem::Relaxed | PtxSem::Acquire | PtxSem::Release | PtxSem::AcqRel)) => {
                sem.order().unwrap_or(MemoryOrder::Relaxed)
            }
            Some(sem) => {
                return Err(self.opcode_error(format!(
                    "`.{sem}` is not a sem of `{name}`; expected .relaxed, .acquire, .release or .acq_rel (seq_cst is `fence.sc` then `.acquire`)"
                )))
            }
        };
        if reduction && order.has_acquire() {
            return Err(self.opcode_error(format!("`red` has no `.{}`: a reduction returns nothing to acquire; expected .relaxed or .release", PtxSem::of(order))));
        }
        let space = self.space(&q, name)?;
        let shape = q.vector.map_or(VectorShape::Scalar, PtxVector::shape);
        if shape.is_vector() && !matches!(space, AddressSpace::Global | AddressSpace::Generic) {
            return Err(self.opcode_error(format!(
                "a vector `{name}` addresses `.global` (or a generic address pointing there) only"
            )));
        }
        let (op, elem, laxity) = rmw_meaning(op, ty, q.noftz, shape)
            .map_err(|error| self.opcode_error(error.to_string()))?;
        let operands = op.operand_count();
        let expected = usize::from(!reduction) + 1 + operands + usize::from(q.hint);
        let found = &self.syntax.operands;
        if found.len() != expected {
            let form = match (reduction, operands, q.hint) {
                (true, _, false) => "[a], b",
                (true, _, true) => "[a], b, cache-policy",
                (false, 2, _) => "d, [a], b, c",
                (false, _, false) => "d, [a], b",
                (false, _, true) => "d, [a], b, cache-policy",
            };
            return Err(self.operand_count_error(form));
        }
        let mut values = self.guarded()?;
        let mut next = 0;
        if !reduction {
            values.result = self
                .lanes(found[0], shape, elem, true)?
                .into_iter()
                .map(|s| match s {
                    PtxScalar::Register(name) => name,
                    PtxScalar::Literal { text, .. } => text,
                })
                .collect();
            next = 1;
        }
        let address = self.address(found[next], space)?;
        values.address = Some(address);
        values.operand = self.lanes(found[next + 1], shape, elem, false)?;
        if operands == 2 {
            values.new_value = self.lanes(found[next + 2], shape, elem, false)?;
        }
        let hint = if q.hint {
            Some(self.policy(found[expected - 1], &mut values)?)
        } else {
            None
        };
        let mut node = AtomicNode::new(op, elem);
        node.shape = shape;
        node.order = order;
        node.scope = q.scope.map_or(Scope::Device, PtxScope::scope);
        node.space = space;
        node.pointer_space = space;
        node.hint = hint;
        node.laxity = laxity.filter(|laxity| flushes_in(*laxity, space));
        node.result_used = !reduction && values.result.iter().any(|lane| lane != "_");
        node.literal = uniform_literal(&values.operand, elem);
        Ok(Some((Node::Atomic(node), values)))
    }

    /// The node's space from the state-space qualifier (none: generic).
    fn space(&self, q: &Qualifiers, name: &str) -> Result<AddressSpace, ReadError> {
        match q.space {
            None => Ok(AddressSpace::Generic),
            Some(space) => space.space().ok_or_else(|| {
                self.opcode_error(format!("`.{space}` is not a space of an atomic `{name}`; expected .global, .shared, .shared::cta or .shared::cluster"))
            }),
        }
    }

    /// `ld`/`st` with a sem: atomic loads and stores. Without one they are weak and not read.
    fn ld_st(&self, opcode: PtxOpcode) -> Read {
        let q = self.qualifiers(false)?;
        let load = opcode == PtxOpcode::Ld;
        let name = opcode.as_str();
        if q.mmio {
            return Err(
                self.opcode_error(format!("`{name}.mmio` is not modelled: memory-mapped I/O"))
            );
        }
        let Some(sem) = q.sem else {
            return Ok(None);
        };
        if sem == PtxSem::Mmio {
            return Err(
                self.opcode_error(format!("`{name}.mmio` is not modelled: memory-mapped I/O"))
            );
        }
        if sem == PtxSem::Volatile
            && matches!(
                q.space,
                Some(PtxSpace::Local | PtxSpace::Param | PtxSpace::Const)
            )
        {
            // Thread-private or read-only memory: no other thread can observe the order.
            return Ok(None);
        }
        if let Some((other, at)) = &q.other {
            return Err(self.error(*at, format!(
                "`.{other}` on an ordered `{name}` is not modelled; expected a sem, scope, space, vector, type or `.L2::cache_hint`"
            )));
        }
        let order = match (sem, load) {
            (PtxSem::Relaxed | PtxSem::Volatile, _) => MemoryOrder::Relaxed,
            (PtxSem::Acquire, true) => MemoryOrder::Acquire,
            (PtxSem::Release, false) => MemoryOrder::Release,
            _ => {
                let expected = if load {
                    ".relaxed, .acquire or .volatile"
                } else {
                    ".relaxed, .release or .volatile"
                };
                return Err(self.opcode_error(format!(
                    "`{name}.{sem}` does not exist; expected {expected}"
                )));
            }
        };
        let scope = match (sem, q.scope) {
            (PtxSem::Volatile, Some(scope)) => {
                return Err(self.opcode_error(format!(
                    "`{name}.volatile` takes no scope (found `.{scope}`)"
                )));
            }
            (PtxSem::Volatile, None) => Scope::System,
            (_, scope) => scope.map_or(Scope::Device, PtxScope::scope),
        };
        let space = self.space(&q, name)?;
        let Some(ty) = q.ty else {
            return Err(self.opcode_error(format!("`{}` without a type", self.syntax.opcode)));
        };
        if q.noftz {
            return Err(self.opcode_error(format!("`{name}` has no `.noftz`")));
        }
        let elem = ty.elem();
        let shape = q.vector.map_or(VectorShape::Scalar, PtxVector::shape);
        let found = &self.syntax.operands;
        let expected = 2 + usize::from(q.hint);
        if found.len() != expected {
            let form = match (load, q.hint) {
                (true, false) => "d, [a]",
                (true, true) => "d, [a], cache-policy",
                (false, false) => "[a], b",
                (false, true) => "[a], b, cache-policy",
            };
            return Err(self.operand_count_error(form));
        }
        let mut values = self.guarded()?;
        let (address_at, data_at) = if load { (1, 0) } else { (0, 1) };
        values.address = Some(self.address(found[address_at], space)?);
        let data = self.lanes(found[data_at], shape, elem, load)?;
        if load {
            values.result = data
                .into_iter()
                .map(|s| match s {
                    PtxScalar::Register(name) => name,
                    PtxScalar::Literal { text, .. } => text,
                })
                .collect();
        } else {
            values.operand = data;
        }
        let hint = if q.hint {
            Some(self.policy(found[expected - 1], &mut values)?)
        } else {
            None
        };
        let op = if load {
            AtomicOp::Load
        } else {
            AtomicOp::Store
        };
        let mut node = AtomicNode::new(op, elem);
        node.shape = shape;
        node.order = order;
        node.scope = scope;
        node.space = space;
        node.pointer_space = space;
        node.hint = hint;
        node.result_used = load;
        node.literal = uniform_literal(&values.operand, elem);
        Ok(Some((Node::Atomic(node), values)))
    }

    /// `fence{.sem}.scope`; its other forms are reported.
    fn fence(&self) -> Read {
        let mut sem = None;
        let mut scope = None;
        for (text, at) in self.syntax.qualifiers() {
            if let Some(form) = PtxFenceForm::from_name(text) {
                return Err(self.error(
                    at,
                    format!("`fence.{form}` is not modelled (`{}`)", self.syntax.opcode),
                ));
            }
            let result = if let Some(value) =
                PtxSem::from_name(text).filter(|s| s.order().is_some() && *s != PtxSem::Volatile)
            {
                set(&mut sem, value, QualifierKind::Sem)
            } else if let Some(value) = PtxScope::from_name(text) {
                set(&mut scope, value, QualifierKind::Scope)
            } else {
                Err(QualifierError::UnknownOnFence(text.to_owned()))
            };
            result.map_err(|error| self.error(at, error.to_string()))?;
        }
        let Some(scope) = scope else {
            return Err(
                self.opcode_error("`fence` without a scope; expected .cta, .cluster, .gpu or .sys")
            );
        };
        if PtxSem::Relaxed == sem.unwrap_or(PtxSem::AcqRel) {
            return Err(self.opcode_error("`fence.relaxed` does not exist"));
        }
        if !self.syntax.operands.is_empty() {
            return Err(self.opcode_error("`fence` takes no operands"));
        }
        let order = sem.and_then(PtxSem::order).unwrap_or(MemoryOrder::AcqRel);
        let fence = Fence {
            order,
            scope: scope.scope(),
        };
        let values = self.guarded()?;
        Ok(Some((Node::Fence(fence), values)))
    }

    /// `membar.level`: a seq_cst fence.
    fn membar(&self) -> Read {
        let qualifiers: Vec<_> = self.syntax.qualifiers().collect();
        let level = match qualifiers.as_slice() {
            [(text, at)] => MembarLevel::from_name(text).ok_or_else(|| {
                self.error(
                    *at,
                    format!("unknown `membar` level `.{text}`; expected .cta, .gl or .sys"),
                )
            })?,
            [(first, at), ..] if *first == "proxy" => {
                return Err(self.error(
                    *at,
                    format!("`{}` is not modelled: a proxy fence", self.syntax.opcode),
                ));
            }
            _ => return Err(self.opcode_error("`membar` takes one level: .cta, .gl or .sys")),
        };
        let fence = Fence {
            order: MemoryOrder::SeqCst,
            scope: level.scope(),
        };
        let values = self.guarded()?;
        Ok(Some((Node::Fence(fence), values)))
    }
}

fn spellings<T: std::fmt::Display>(values: impl Iterator<Item = T>) -> String {
    values
        .map(|v| format!(".{v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a laxity [`rmw_meaning`] gives holds in `space`: `atom.add.f32` flushes subnormals
/// on `.global` memory only (PTX ISA, `atom`: "on shared memory [it] supports subnormal inputs
/// and results"), so it is `ftz` on `.global` and generic addresses (which may point there) and
/// exact on shared memory; the NaN rule of min/max holds everywhere.
fn flushes_in(laxity: FloatLaxity, space: AddressSpace) -> bool {
    laxity != FloatLaxity::MayFlushSubnormals
        || matches!(space, AddressSpace::Global | AddressSpace::Generic)
}

/// Why PTX has no `atom`/`red` of an operation and type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RmwError {
    /// No such instruction, in any form.
    Absent {
        op: PtxRmw,
        vector: Option<PtxVector>,
        ty: PtxType,
    },
    /// An f16/bf16 operation written without `.noftz`.
    NoftzRequired { op: PtxRmw, ty: PtxType },
    /// `.noftz` on an operation that has no such form.
    NoftzAbsent { op: PtxRmw, ty: PtxType },
}

impl fmt::Display for RmwError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RmwError::Absent { op, vector, ty } => {
                let vector = vector.map_or(String::new(), |v| format!(".{v}"));
                write!(f, "PTX has no `atom.{op}{vector}.{ty}`")
            }
            RmwError::NoftzRequired { op, ty } => write!(
                f,
                "`{op}.{ty}` requires `.noftz` (PTX keeps f16/bf16 subnormals only so)"
            ),
            RmwError::NoftzAbsent { op, ty } => {
                write!(f, "`.noftz` does not exist on `{op}.{ty}`")
            }
        }
    }
}

/// What `atom`/`red` `.op.type` means in atomir (op, element type, and the laxity of its float
/// results on global memory), or why PTX has no such instruction.
fn rmw_meaning(
    op: PtxRmw,
    ty: PtxType,
    noftz: bool,
    shape: VectorShape,
) -> Result<(AtomicOp, ElemType, Option<FloatLaxity>), RmwError> {
    use PtxType::*;
    let half = matches!(ty, F16 | Bf16 | F16x2 | Bf16x2);
    let atomic_op = match op {
        PtxRmw::Add => AtomicOp::Add,
        PtxRmw::Inc => AtomicOp::Inc,
        PtxRmw::Dec => AtomicOp::Dec,
        PtxRmw::Min => AtomicOp::Min,
        PtxRmw::Max => AtomicOp::Max,
        PtxRmw::And => AtomicOp::And,
        PtxRmw::Or => AtomicOp::Or,
        PtxRmw::Xor => AtomicOp::Xor,
        PtxRmw::Exch => AtomicOp::Exch,
        PtxRmw::Cas => AtomicOp::Cas,
    };
    let exists = match op {
        PtxRmw::Add if shape.is_vector() => matches!(ty, F32) || half,
        PtxRmw::Add => matches!(ty, U32 | S32 | U64 | F32 | F64) || half,
        PtxRmw::Inc | PtxRmw::Dec => matches!(ty, U32) && !shape.is_vector(),
        PtxRmw::Min | PtxRmw::Max if shape.is_vector() => half,
        PtxRmw::Min | PtxRmw::Max => matches!(ty, U32 | S32 | U64 | S64),
        PtxRmw::And | PtxRmw::Or | PtxRmw::Xor | PtxRmw::Exch => {
            matches!(ty, B32 | B64) || (op == PtxRmw::Exch && ty == B128)
        }
        PtxRmw::Cas => matches!(ty, B16 | B32 | B64 | B128),
    } && (!shape.is_vector()
        || !matches!(op, PtxRmw::Exch | PtxRmw::Cas | PtxRmw::Inc | PtxRmw::Dec))
        && (shape != VectorShape::V8 || matches!(ty, F16 | Bf16));
    if !exists {
        return Err(RmwError::Absent {
            op,
            vector: PtxVector::of(shape),
            ty,
        });
    }
    if half && !noftz {
        return Err(RmwError::NoftzRequired { op, ty });
    }
    if noftz && !(half || (ty == F32 && op == PtxRmw::Add)) {
        return Err(RmwError::NoftzAbsent { op, ty });
    }
    // f16/bf16 min/max give a NaN other than the canonical one for two NaNs; `add.f32` without
    // `.noftz` flushes subnormals (on global memory, see `flushes_in`).
    let laxity = match op {
        PtxRmw::Min | PtxRmw::Max if half => Some(FloatLaxity::Ieee2008MinMax),
        PtxRmw::Add if ty == F32 && !noftz => Some(FloatLaxity::MayFlushSubnormals),
        _ => None,
    };
    Ok((atomic_op, ty.elem(), laxity))
}

/// The literal every lane of the operand holds, if they all hold the same one.
fn uniform_literal(operand: &[PtxScalar], _elem: ElemType) -> Option<u128> {
    let mut bits = None;
    for lane in operand {
        match lane {
            PtxScalar::Literal {
                bits: lane_bits, ..
            } if bits.is_none_or(|b| b == *lane_bits) => bits = Some(*lane_bits),
            _ => return None,
        }
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_type_pairs() {
        assert!(rmw_meaning(PtxRmw::Add, PtxType::S64, false, VectorShape::Scalar).is_err());
        assert!(rmw_meaning(PtxRmw::Add, PtxType::F16, false, VectorShape::Scalar).is_err());
        assert_eq!(
            rmw_meaning(PtxRmw::Add, PtxType::F16, true, VectorShape::Scalar),
            Ok((AtomicOp::Add, ElemType::F16, None))
        );
        assert_eq!(
            rmw_meaning(PtxRmw::Add, PtxType::F32, false, VectorShape::V4),
            Ok((
                AtomicOp::Add,
                ElemType::F32,
                Some(FloatLaxity::MayFlushSubnormals)
            ))
        );
        assert_eq!(
            rmw_meaning(PtxRmw::Add, PtxType::F32, true, VectorShape::Scalar),
            Ok((AtomicOp::Add, ElemType::F32, None))
        );
        assert_eq!(
            rmw_meaning(PtxRmw::Max, PtxType::Bf16, true, VectorShape::V8),
            Ok((
                AtomicOp::Max,
                ElemType::Bf16,
                Some(FloatLaxity::Ieee2008MinMax)
            ))
        );
        assert!(rmw_meaning(PtxRmw::Max, PtxType::Bf16, false, VectorShape::V8).is_err());
        assert!(rmw_meaning(PtxRmw::Max, PtxType::Bf16, true, VectorShape::Scalar).is_err());
        assert!(flushes_in(
            FloatLaxity::MayFlushSubnormals,
            AddressSpace::Generic
        ));
        assert!(!flushes_in(
            FloatLaxity::MayFlushSubnormals,
            AddressSpace::Shared
        ));
        assert!(rmw_meaning(PtxRmw::Exch, PtxType::B32, false, VectorShape::V2).is_err());
    }
}
