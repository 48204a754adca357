//! Lowering one instruction as a fragment for a client's own code: the driver's side of the
//! [`splice`] contract, which checks the client's bindings before printing.
//!
//! It is apart from the module driver because a fragment has no kernel around it: no
//! prologue, no epilogue, and every value named by the client.

use crate::kernel::{Inst, InstData, Kernel, Operand, Scalar, Value};
use crate::legal::{Legality, LowerError, LowerOptions, Refusal, Site};
use crate::node::Node;
use crate::rule::KitRule;
use crate::verify::Verified;

use super::error::{error, unprintable};
use super::inst::print_inst;
use super::{legalize, splice, Fragment, Plan, Printer, SpliceNames, Target, Unprintable};

/// Lowers instruction `inst` of kernel number `kernel` of `module` for `target` as a fragment
/// to splice into the client's own code, named by `names` (the [`splice`] contract), into
/// `fragment` (cleared first; its storage, and its scratch space, are reused). A refusal, an
/// input left unbound, or a client's name in the fragment's namespace is the error, and leaves
/// `fragment` empty.
pub fn splice_inst<T: Target>(
    target: &T,
    module: &Verified<'_>,
    kernel: usize,
    inst: Inst,
    names: &SpliceNames,
    fragment: &mut Fragment,
) -> Result<Legality, LowerError> {
    fragment.clear();
    let Some(kernel) = module.module().kernels.get(kernel) else {
        let reason = format!("the module holds no kernel number {kernel}");
        return Err(LowerError {
            kernel: String::new(),
            site: Site::Inst(inst),
            loc: Default::default(),
            refusal: Refusal::new(KitRule::NoSuchInstruction, reason),
        });
    };
    let Some(data) = kernel.insts.get(inst) else {
        let reason = format!("the kernel holds no instruction {}", inst.as_u32());
        return Err(error(
            kernel,
            inst,
            Refusal::new(KitRule::NoSuchInstruction, reason),
        ));
    };
    let mut printer = target.printer(&LowerOptions::fragment());
    let node = Node::of_data(kernel, data).with_generic_params_in(printer.generic_params_space());
    let plan = legalize(target, &node).map_err(|refusal| error(kernel, inst, refusal))?;
    check_bindings::<T::Printer<'_>>(kernel, data, names)
        .map_err(|refusal| error(kernel, inst, refusal))?;
    let mut out = std::mem::take(&mut fragment.code);
    let mut scratch = std::mem::take(&mut fragment.scratch);
    let printed = printer
        .splice_begin(kernel, inst, names, &mut out)
        .and_then(|()| {
            print_inst(
                &mut printer,
                &mut scratch,
                target.passes(),
                kernel,
                inst,
                &plan,
                None,
                &mut out,
            )
        })
        .and_then(|()| printer.splice_end(&mut out, fragment));
    fragment.code = out;
    fragment.scratch = scratch;
    match printed {
        Ok(()) => Ok(plan.legality().clone()),
        Err(Unprintable(message)) => {
            fragment.clear();
            Err(unprintable(kernel, inst, message))
        }
    }
}

/// Whether every value `data` reads is bound, every binding has the shape the printer binds
/// (one name, or one per lane), and no client's name lies in the fragment's namespace.
fn check_bindings<'m, P: Printer<'m>>(
    kernel: &Kernel,
    data: &InstData,
    names: &SpliceNames,
) -> Result<(), Refusal> {
    let client_name = |name: &str| splice::plain_identifier(name) && !names.is_made(name);
    if let Some((predecessor, continuation)) = names.blocks() {
        if let Some(bad) = [predecessor, continuation]
            .into_iter()
            .find(|name| !client_name(name))
        {
            let reason = format!(
                "block `{bad}`: a client's name is an identifier ([A-Za-z_][A-Za-z0-9_]*) that \
                 does not continue the prefix `{}` with a lowercase letter",
                names.prefix()
            );
            return Err(Refusal::new(KitRule::SpliceName, reason));
        }
    }
    let InstData::Atomic(atomic) = data else {
        return Ok(());
    };
    let check = |value: Value, required: bool| -> Result<(), Refusal> {
        let name = kernel.values.get(value).map_or("?", |data| &*data.name);
        let Some(binding) = names.binding(value) else {
            if !required {
                return Ok(());
            }
            let reason = format!("`%{name}` is read but bound to no name of the client's");
            return Err(Refusal::new(KitRule::Unbound, reason));
        };
        let lanes = match kernel.value_type(value) {
            crate::types::ValueType::Data(_, shape) if P::SPLICES_LANES => shape.len(),
            _ => 1,
        };
        if binding.len() != lanes {
            let reason = format!(
                "`%{name}` is bound to {} names; the target keeps it in {lanes}",
                binding.len()
            );
            return Err(Refusal::new(KitRule::SpliceName, reason));
        }
        for bound in binding {
            if !client_name(bound) {
                let reason = format!(
                    "`%{name}` is bound to `{bound}`: a client's name is an identifier \
                     ([A-Za-z_][A-Za-z0-9_]*) that does not continue the prefix `{}` with a \
                     lowercase letter",
                    names.prefix()
                );
                return Err(Refusal::new(KitRule::SpliceName, reason));
            }
        }
        Ok(())
    };
    check(atomic.addr, true)?;
    if let Some(predicate) = atomic.predicate {
        check(predicate.value, true)?;
    }
    for operand in [atomic.operand, atomic.new_value].into_iter().flatten() {
        let elements = match operand {
            Operand::Scalar(ref scalar) => std::slice::from_ref(scalar),
            Operand::Vector(list) => kernel.checked_vector_elements(list).unwrap_or(&[]),
        };
        for scalar in elements {
            if let Scalar::Value(value) = scalar {
                check(*value, true)?;
            }
        }
    }
    if let Some(result) = atomic.result {
        check(result, false)?;
    }
    Ok(())
}
