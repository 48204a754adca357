//! The nodes a Python client asks about: `atomir.Atomic` (a read-modify-write, load or store)
//! and `atomir.Fence`, built from keywords whose values are the text form's spellings.

use std::str::FromStr;

use atomir::ir::node::Node;
use atomir::{
    AddressSpace, AtomicNode, AtomicOp, CacheHint, ElemType, Fence as IrFence, FloatLaxity,
    MemoryOrder, Scope, VectorShape,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::errors::invalid;
use crate::guarded;
use crate::text::{optional, Text};

/// Parses one of the text form's spellings (`"add"`, `"f32"`, `"acq_rel"`; a member of the
/// matching `atomir` enum is a string too).
pub(crate) fn spelled<T>(text: &str) -> PyResult<T>
where
    T: FromStr,
    T::Err: std::fmt::Display,
{
    text.parse()
        .map_err(|error: T::Err| invalid(error.to_string()))
}

/// An atomic access: the value-free node a target's legality table judges.
///
/// Every argument is the text form's spelling or a member of the matching enum (`atomir.Op`,
/// `atomir.Type`, `atomir.Shape`, `atomir.Order`, `atomir.Scope`, `atomir.Space`,
/// `atomir.Hint`). `result` says whether the old value is used (False: a pure reduction).
/// `pointer_space` is the space of the pointer the address comes from, where a generic node's
/// pointer is known to point into global or shared memory. A node the IR gives no meaning (an
/// op its type has no meaning for, an order its op has no part in, a load without a result)
/// raises `atomir.InvalidError`. `atomir.Load` and `atomir.Store` build loads and stores.
#[pyclass(module = "atomir", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Atomic {
    pub(crate) node: AtomicNode,
}

#[pymethods]
impl Atomic {
    #[new]
    #[pyo3(signature = (op, r#type, *, shape = Text::of("scalar"),
        order = Text::of("relaxed"), scope = Text::of("device"),
        space = Text::of("generic"), result = false, hint = None, pointer_space = None,
        laxity = None),
        text_signature = "(op, type, *, shape='scalar', order='relaxed', scope='device', \
            space='generic', result=False, hint=None, pointer_space=None, laxity=None)")]
    #[allow(clippy::too_many_arguments)]
    fn new(
        op: Text,
        r#type: Text,
        shape: Text,
        order: Text,
        scope: Text,
        space: Text,
        result: bool,
        hint: Option<Text>,
        pointer_space: Option<Text>,
        laxity: Option<Text>,
    ) -> PyResult<Self> {
        guarded(|| {
            let mut node = AtomicNode::new(
                spelled::<AtomicOp>(op.get()?)?,
                spelled::<ElemType>(r#type.get()?)?,
            );
            node.shape = spelled::<VectorShape>(shape.get()?)?;
            node.order = spelled::<MemoryOrder>(order.get()?)?;
            node.scope = spelled::<Scope>(scope.get()?)?;
            node.space = spelled::<AddressSpace>(space.get()?)?;
            node.result_used = result;
            let (hint, pointer_space, laxity) =
                (optional(hint)?, optional(pointer_space)?, optional(laxity)?);
            node.hint = hint.as_deref().map(spelled::<CacheHint>).transpose()?;
            node.laxity = laxity.as_deref().map(spelled::<FloatLaxity>).transpose()?;
            node.pointer_space = match pointer_space.as_deref() {
                Some(text) => spelled::<AddressSpace>(text)?,
                None => node.space,
            };
            if node.space != AddressSpace::Generic && node.pointer_space != node.space {
                return Err(invalid(format!(
                    "a {} access cannot go through a pointer into {} memory",
                    node.space, node.pointer_space
                )));
            }
            if let Some(reason) = Node::Atomic(node).undefined() {
                return Err(invalid(reason));
            }
            Ok(Atomic { node })
        })
    }

    /// The operation, as the text form spells it (`"add"`, `"cas"`, `"load"`).
    #[getter]
    fn op(&self) -> &'static str {
        self.node.op.as_str()
    }

    /// The element type (`"u32"`, `"f16x2"`).
    #[getter]
    fn r#type(&self) -> &'static str {
        self.node.ty.as_str()
    }

    /// `"scalar"`, `"v2"`, `"v4"` or `"v8"`.
    #[getter]
    fn shape(&self) -> &'static str {
        self.node.shape.as_str()
    }

    /// The number of elements: 1, 2, 4 or 8.
    #[getter]
    fn lanes(&self) -> usize {
        self.node.shape.len()
    }

    /// The memory order.
    #[getter]
    fn order(&self) -> &'static str {
        self.node.order.as_str()
    }

    /// The scope.
    #[getter]
    fn scope(&self) -> &'static str {
        self.node.scope.as_str()
    }

    /// The address space the access addresses.
    #[getter]
    fn space(&self) -> &'static str {
        self.node.space.as_str()
    }

    /// The space of the pointer the address comes from.
    #[getter]
    fn pointer_space(&self) -> &'static str {
        self.node.pointer_space.as_str()
    }

    /// The cache hint, or None.
    #[getter]
    fn hint(&self) -> Option<&'static str> {
        self.node.hint.map(CacheHint::as_str)
    }

    /// The looser float results the node also allows (`"ftz"`, `"ieee2008"`), or None: exact.
    #[getter]
    fn laxity(&self) -> Option<&'static str> {
        self.node.laxity.map(FloatLaxity::as_str)
    }

    /// Whether the old value is used.
    #[getter]
    fn result(&self) -> bool {
        self.node.result_used
    }

    /// How many operands the op takes: 0 for a load, 2 for cas (expected, then new), else 1.
    #[getter]
    fn operand_count(&self) -> usize {
        self.node.op.operand_count()
    }

    /// The instruction's name as the text form writes it: `atomic.add.relaxed.device.global.f32`.
    fn __str__(&self) -> String {
        let node = &self.node;
        let mut text = format!(
            "atomic.{}.{}.{}.{}",
            node.op, node.order, node.scope, node.space
        );
        if node.shape.is_vector() {
            text.push('.');
            text.push_str(node.shape.as_str());
        }
        text.push('.');
        text.push_str(node.ty.as_str());
        if let Some(laxity) = node.laxity {
            text.push('.');
            text.push_str(laxity.as_str());
        }
        if let Some(hint) = node.hint {
            text.push('.');
            text.push_str(hint.as_str());
        }
        text
    }

    fn __repr__(&self) -> String {
        let node = &self.node;
        let mut text = format!(
            "Atomic(op='{}', type='{}', shape='{}', order='{}', scope='{}', space='{}', result={}",
            node.op,
            node.ty,
            node.shape,
            node.order,
            node.scope,
            node.space,
            if node.result_used { "True" } else { "False" }
        );
        if let Some(hint) = node.hint {
            text.push_str(&format!(", hint='{hint}'"));
        }
        if node.pointer_space != node.space {
            text.push_str(&format!(", pointer_space='{}'", node.pointer_space));
        }
        if let Some(laxity) = node.laxity {
            text.push_str(&format!(", laxity='{laxity}'"));
        }
        text.push(')');
        text
    }
}

/// A stand-alone memory fence: an order (acquire, release, acq_rel or seq_cst) at a scope.
#[pyclass(module = "atomir", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Fence {
    pub(crate) fence: IrFence,
}

#[pymethods]
impl Fence {
    #[new]
    #[pyo3(signature = (order, scope = Text::of("device")),
        text_signature = "(order, scope='device')")]
    fn new(order: Text, scope: Text) -> PyResult<Self> {
        guarded(|| {
            let fence = IrFence {
                order: spelled(order.get()?)?,
                scope: spelled(scope.get()?)?,
            };
            if let Some(reason) = Node::Fence(fence).undefined() {
                return Err(invalid(reason));
            }
            Ok(Fence { fence })
        })
    }

    /// The memory order.
    #[getter]
    fn order(&self) -> &'static str {
        self.fence.order.as_str()
    }

    /// The scope.
    #[getter]
    fn scope(&self) -> &'static str {
        self.fence.scope.as_str()
    }

    /// As the text form writes it: `fence.seq_cst.device`.
    fn __str__(&self) -> String {
        format!("fence.{}.{}", self.fence.order, self.fence.scope)
    }

    fn __repr__(&self) -> String {
        format!(
            "Fence(order='{}', scope='{}')",
            self.fence.order, self.fence.scope
        )
    }
}

/// The node a Python argument holds: an `Atomic` or a `Fence`.
pub(crate) fn node_of(object: &Bound<'_, PyAny>) -> PyResult<Node> {
    if let Ok(atomic) = object.extract::<PyRef<'_, Atomic>>() {
        return Ok(Node::Atomic(atomic.node));
    }
    if let Ok(fence) = object.extract::<PyRef<'_, Fence>>() {
        return Ok(Node::Fence(fence.fence));
    }
    Err(PyTypeError::new_err(format!(
        "expected an atomir.Atomic or atomir.Fence, got {}",
        object.get_type().name()?
    )))
}

/// The Python object of a node.
pub(crate) fn node_object(py: Python<'_>, node: Node) -> PyResult<Py<PyAny>> {
    Ok(match node {
        Node::Atomic(node) => Py::new(py, Atomic { node })?.into_any(),
        Node::Fence(fence) => Py::new(py, Fence { fence })?.into_any(),
    })
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Atomic>()?;
    module.add_class::<Fence>()?;
    Ok(())
}
