//! `Target.splice`: one node lowered as a fragment bound to the client's names. The binding
//! builds the one-instruction kernel the node describes, binds its values to the client's
//! names through [`atomir::SpliceNames`] and calls [`atomir::Target::splice`]; every check of
//! the names and of the node is the library's.

use atomir::ir::Node;
use atomir::{
    verify, AddressSpace, AtomicNode, Fragment as IrFragment, Kernel, Module, Operand, Predicate,
    Scalar, SpliceNames, Target as IrTarget, Value, ValueType, Verified,
};
use pyo3::prelude::*;

use crate::answers::{lower_error, Verdict};
use crate::errors::{diagnostics, invalid};
use crate::text::{optional, Text};

/// One element of an operand: a name of the client's, or an integer literal (its bits; a
/// negative one in two's complement).
#[derive(FromPyObject)]
pub(crate) enum Lane {
    Name(Text),
    Unsigned(u128),
    Signed(i128),
}

/// An operand or result as Python gives it: one name or literal, or one per element.
#[derive(FromPyObject)]
pub(crate) enum OperandArg {
    One(Lane),
    Lanes(Vec<Lane>),
}

/// The keyword arguments of `Target.splice`.
pub(crate) struct SpliceArgs {
    pub address: Option<String>,
    pub operands: Vec<OperandArg>,
    pub result: Option<OperandArg>,
    pub predicate: Option<String>,
    pub prefix: String,
    pub blocks: Option<(String, String)>,
}

impl SpliceArgs {
    /// The arguments as Python passes them; a string with a lone surrogate is the error.
    pub(crate) fn new(
        address: Option<Text>,
        operands: Vec<OperandArg>,
        result: Option<OperandArg>,
        predicate: Option<Text>,
        prefix: Text,
        blocks: Option<(Text, Text)>,
    ) -> PyResult<Self> {
        let blocks = match blocks {
            Some((predecessor, continuation)) => {
                Some((predecessor.into_string()?, continuation.into_string()?))
            }
            None => None,
        };
        Ok(SpliceArgs {
            address: optional(address)?,
            operands,
            result,
            predicate: optional(predicate)?,
            prefix: prefix.into_string()?,
            blocks,
        })
    }
}

/// One node's code for the inside of your kernel or function.
///
/// `code`: the instructions, one a line, to put where the node goes. `temporaries`: the
/// (name, type) pairs the code uses, for you to declare (PTX `.reg <type> %<name>;`, vISA
/// `.decl <name> <type>`, views after the variables they alias); names come without a sigil.
/// `results`: where the old value is, one name or one per element (None of them if the node's
/// result is unused); `result_bound` whether those are your names. `declarations`: LLVM
/// `declare`s of builtins the code calls, for your module. `verdict`: how the target carries
/// the node out. `instructions`: the code's size in instructions. `types`: the type each of your bound names must have (as you declare it);
/// `bindings`: every value the node reads or defines, its role, your names and their type.
#[pyclass(module = "atomir", frozen, get_all)]
pub struct Fragment {
    /// The code.
    pub code: String,
    /// (name, type) of each temporary to declare.
    pub temporaries: Vec<(String, String)>,
    /// The names of the old value.
    pub results: Vec<String>,
    /// Whether `results` are the client's names.
    pub result_bound: bool,
    /// Top-level declarations the code needs (LLVM).
    pub declarations: Vec<String>,
    /// The number of instructions in the code (its lines less labels and comments).
    pub instructions: u32,
    /// The target's verdict for the node.
    pub verdict: Verdict,
    /// Every value bound, with its role and type.
    pub bindings: Vec<Binding>,
    /// Each of the client's bound names (without a sigil) and the type it must have.
    pub types: std::collections::BTreeMap<String, String>,
}

/// One value a spliced node reads or defines: its role (`"address"`, `"operand"`, `"new
/// value"`, `"predicate"`, `"result"`), the client's names for it (one, or one per lane; none
/// for a result left to the fragment), the type each name must have on the target as the
/// client declares it (PTX `.b16`, vISA `v_type=G type=ud …`, LLVM `<4 x float>`), how many
/// names the target takes, the address space of a pointer, and whether it must be bound.
#[pyclass(module = "atomir", frozen, get_all)]
#[derive(Clone)]
pub struct Binding {
    /// The value's role.
    pub role: &'static str,
    /// The client's names (without a sigil).
    pub names: Vec<String>,
    /// The type of each name on the target.
    pub r#type: String,
    /// How many names the target binds the value to.
    pub count: usize,
    /// A pointer's address space, or None.
    pub space: Option<&'static str>,
    /// Whether the value must be bound (a result may be left to the fragment).
    pub required: bool,
}

#[pymethods]
impl Binding {
    fn __repr__(&self) -> String {
        format!(
            "Binding(role='{}', names={:?}, type='{}')",
            self.role, self.names, self.r#type
        )
    }
}

#[pymethods]
impl Fragment {
    fn __str__(&self) -> String {
        self.code.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Fragment(code={:?}, temporaries={:?}, results={:?})",
            self.code, self.temporaries, self.results
        )
    }
}

/// A client's name without its sigil: `%rd1` is bound as `rd1`.
fn bare(name: &str) -> &str {
    name.strip_prefix('%').unwrap_or(name)
}

/// The one-instruction module `node` describes, its values bound to the names of `args`.
struct Spliced {
    module: Module,
    inst: atomir::Inst,
    names: SpliceNames,
}

impl Spliced {
    fn new(node: Node, args: &SpliceArgs) -> PyResult<Self> {
        let mut names = SpliceNames::new(&args.prefix).map_err(|error| invalid(error.0))?;
        if let Some((predecessor, continuation)) = &args.blocks {
            names.set_blocks(bare(predecessor), bare(continuation));
        }
        let mut kernel = Kernel::new("spliced");
        let inst = match node {
            Node::Fence(fence) => {
                let bound = args.address.is_some()
                    || !args.operands.is_empty()
                    || args.result.is_some()
                    || args.predicate.is_some();
                if bound {
                    return Err(invalid(
                        "a fence has no address, operand, result or predicate to bind",
                    ));
                }
                kernel.push_fence(fence)
            }
            Node::Atomic(atomic) => push_atomic(&mut kernel, &mut names, atomic, args)?,
        };
        let module = Module {
            kernels: vec![kernel],
        };
        Ok(Spliced {
            module,
            inst,
            names,
        })
    }

    fn verified(&self) -> PyResult<Verified<'_>> {
        verify::verify(&self.module).map_err(|found| {
            diagnostics("the node and its names make no valid instruction", &found)
        })
    }

    /// The values the instruction binds, with the client's names and their types on `target`.
    fn bindings(&self, target: IrTarget, verified: &Verified<'_>) -> PyResult<Vec<Binding>> {
        let types = target
            .binding_types(verified, 0, self.inst)
            .map_err(|error| lower_error(&error))?;
        Ok(types
            .values
            .iter()
            .map(|value| Binding {
                role: value.role.as_str(),
                names: self
                    .names
                    .binding(value.value)
                    .map_or_else(Vec::new, <[String]>::to_vec),
                r#type: value.splice.ty.clone(),
                count: value.splice.names,
                space: value.space.map(AddressSpace::as_str),
                required: value.required,
            })
            .collect())
    }
}

/// What `Target.binding_types` answers.
pub(crate) fn binding_types(
    target: IrTarget,
    node: Node,
    args: SpliceArgs,
) -> PyResult<Vec<Binding>> {
    let spliced = Spliced::new(node, &args)?;
    let verified = spliced.verified()?;
    spliced.bindings(target, &verified)
}

/// Lowers `node` for `target` as a fragment bound to the names of `args`.
pub(crate) fn splice(target: IrTarget, node: Node, args: SpliceArgs) -> PyResult<Fragment> {
    let spliced = Spliced::new(node, &args)?;
    let verified = spliced.verified()?;
    let mut fragment = IrFragment::default();
    let legality = target
        .splice(&verified, 0, spliced.inst, &spliced.names, &mut fragment)
        .map_err(|error| lower_error(&error))?;
    let bindings = spliced.bindings(target, &verified)?;
    let types = bindings
        .iter()
        .flat_map(|binding| {
            binding
                .names
                .iter()
                .map(|name| (name.clone(), binding.r#type.clone()))
        })
        .collect();
    let result = fragment.results.first();
    Ok(Fragment {
        code: std::mem::take(&mut fragment.code),
        temporaries: fragment
            .temps
            .iter()
            .map(|temp| (temp.name.clone(), temp.ty.clone()))
            .collect(),
        results: result.map_or_else(Vec::new, |result| result.names.to_vec()),
        result_bound: result.is_some_and(|result| result.bound),
        declarations: std::mem::take(&mut fragment.declarations),
        verdict: Verdict::accepted(target, node, &legality)
            .with_instructions(fragment.instructions),
        instructions: fragment.instructions,
        bindings,
        types,
    })
}

/// Pushes the instruction `node` describes onto `kernel`, its values parameters bound to the
/// client's names.
fn push_atomic(
    kernel: &mut Kernel,
    names: &mut SpliceNames,
    node: AtomicNode,
    args: &SpliceArgs,
) -> PyResult<atomir::Inst> {
    let Some(address) = &args.address else {
        return Err(invalid(
            "an atomic needs the name of its address (address=\"%rd1\")",
        ));
    };
    let addr = kernel.add_param("address", ValueType::Ptr(node.pointer_space));
    names.bind(addr, bare(address));
    let count = node.op.operand_count();
    if args.operands.len() != count {
        let which = match node.op {
            atomir::AtomicOp::Cas => " (the expected value, then the new one)",
            atomir::AtomicOp::Load => "",
            atomir::AtomicOp::Store => " (the value stored)",
            _ => "",
        };
        return Err(invalid(format!(
            "a {} takes {count} operand(s){which}; got {}",
            node.op,
            args.operands.len()
        )));
    }
    let labels = match node.op {
        atomir::AtomicOp::Cas => ["expected", "new"],
        _ => ["operand", "unused"],
    };
    let mut operands = Vec::with_capacity(count);
    for (arg, label) in args.operands.iter().zip(labels) {
        operands.push(operand(kernel, names, &node, arg, label)?);
    }
    let mut inst = node.instruction(addr);
    inst.operand = operands.first().copied();
    inst.new_value = operands.get(1).copied();
    if let Some(predicate) = &args.predicate {
        let (negated, name) = match predicate.strip_prefix('!') {
            Some(name) => (true, name),
            None => (false, predicate.as_str()),
        };
        let value = kernel.add_param("predicate", ValueType::Pred);
        names.bind(value, bare(name));
        inst.predicate = Some(Predicate { value, negated });
    }
    let id = kernel.push(inst, node.result_used.then_some("result"));
    if let Some(result) = &args.result {
        let Some(value) = kernel.atomic(id).and_then(|atomic| atomic.result) else {
            return Err(invalid(
                "the node's old value is unused (result=False): there is no result to name",
            ));
        };
        bind_result(names, value, result)?;
    }
    Ok(id)
}

/// Binds the result to the client's name, or names, one per element.
fn bind_result(names: &mut SpliceNames, value: Value, result: &OperandArg) -> PyResult<()> {
    let name = |lane: &Lane| match lane {
        Lane::Name(name) => Ok(bare(name.get()?).to_string()),
        _ => Err(invalid("a result is named, not a literal")),
    };
    match result {
        OperandArg::One(lane) => {
            names.bind(value, &name(lane)?);
        }
        OperandArg::Lanes(lanes) => {
            let lanes = lanes.iter().map(name).collect::<PyResult<Vec<_>>>()?;
            names.bind_lanes(value, lanes.iter().map(String::as_str));
        }
    }
    Ok(())
}

/// The bits of an integer literal of the node's element type (a negative one in two's
/// complement), or why it does not fit.
fn literal_bits(lane: &Lane, node: &AtomicNode) -> PyResult<u128> {
    let bits = node.ty.bits();
    let mask = if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    };
    let value = match *lane {
        Lane::Name(_) => return Err(invalid("expected an integer literal")),
        Lane::Unsigned(value) => value,
        Lane::Signed(value) => value as u128 & mask,
    };
    if value & !mask != 0 {
        return Err(invalid(format!(
            "the literal {value} does not fit in {bits} bits ({})",
            node.ty
        )));
    }
    Ok(value)
}

/// One operand: a parameter bound to the client's name, a literal, or one of those per
/// element of a vector.
fn operand(
    kernel: &mut Kernel,
    names: &mut SpliceNames,
    node: &AtomicNode,
    arg: &OperandArg,
    label: &str,
) -> PyResult<Operand> {
    let scalar = |kernel: &mut Kernel, names: &mut SpliceNames, lane: &Lane, label: &str| {
        Ok::<_, PyErr>(match lane {
            Lane::Name(name) => {
                let value = kernel.add_param(label, ValueType::scalar(node.ty));
                names.bind(value, bare(name.get()?));
                Scalar::Value(value)
            }
            literal => Scalar::Const(kernel.constant(literal_bits(literal, node)?)),
        })
    };
    match arg {
        OperandArg::One(Lane::Name(name)) => {
            // A whole value of the node's type: a vector one on LLVM, which has vector values.
            let value = kernel.add_param(label, ValueType::Data(node.ty, node.shape));
            names.bind(value, bare(name.get()?));
            Ok(value.into())
        }
        OperandArg::One(literal) if node.shape.is_vector() => {
            let element = scalar(kernel, names, literal, label)?;
            Ok(kernel.vector(&vec![element; node.shape.len()]))
        }
        OperandArg::One(literal) => Ok(Operand::Scalar(scalar(kernel, names, literal, label)?)),
        OperandArg::Lanes(lanes) if !node.shape.is_vector() && lanes.len() == 1 => {
            Ok(Operand::Scalar(scalar(kernel, names, &lanes[0], label)?))
        }
        OperandArg::Lanes(lanes) => {
            if lanes.len() != node.shape.len() {
                return Err(invalid(format!(
                    "a {} operand has {} element(s); got {}",
                    node.shape,
                    node.shape.len(),
                    lanes.len()
                )));
            }
            let mut elements = Vec::with_capacity(lanes.len());
            for (index, lane) in lanes.iter().enumerate() {
                elements.push(scalar(kernel, names, lane, &format!("{label}{index}"))?);
            }
            Ok(kernel.vector(&elements))
        }
    }
}

pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Fragment>()?;
    module.add_class::<Binding>()
}
