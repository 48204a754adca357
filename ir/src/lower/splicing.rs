//! Lowering one instruction as a fragment for a client's own code: the driver's side of the
//! [`splice`] contract, which checks the client's bindings before printing.
//!
//! It is apart from the module driver because a fragment has no kernel around it: no
//! prologue, no epilogue, and every value named by the client.

use super::{LowerError, LowerOptions};
use crate::kernel::{Inst, InstData, Kernel};
use crate::legal::{Legality, Refusal};
use crate::node::Node;
use crate::rule::KitRule;
use crate::verify::Verified;

use super::error::{error, not_held, unprintable};
use super::inst::print_inst;
use super::{
    legalize, splice, BindingTypes, Fragment, Plan, Printer, SpliceNames, Target, Unprintable,
};

/// Lowers instruction `inst` of kernel number `kernel` of `module` for `target` as a fragment
/// to splice into the client's own code, named by `names` (the [`splice`] contract), into
/// `fragment` (cleared first; its storage, and its scratch space, are reused). A refusal, an
/// input left unbound, a binding of a value the instruction neither reads nor defines (an id
/// of another kernel or instruction, or out of range), a binding of the wrong number of names,
/// or a client's name in the fragment's namespace is the error, and leaves `fragment` empty.
pub fn splice_inst<T: Target>(
    target: &T,
    module: &Verified<'_>,
    kernel: usize,
    inst: Inst,
    names: &SpliceNames,
    fragment: &mut Fragment,
) -> Result<Legality, LowerError> {
    fragment.clear();
    let (kernel, data) = instruction(module, kernel, inst)?;
    let mut printer = target.printer(&LowerOptions::fragment());
    let node = Node::of_data(kernel, data).with_generic_params_in(printer.generic_params_space());
    let types = BindingTypes::of(kernel, data, |ty| target.splice_type(ty));
    check_bindings(kernel, inst, &types, names).map_err(|refusal| error(kernel, inst, refusal))?;
    let plan = legalize(target, &node).map_err(|refusal| error(kernel, inst, refusal))?;
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
    fragment.instructions = count_instructions(&out);
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

/// What a client binds to splice instruction `inst` of kernel number `kernel` of `module` for
/// `target` ([`BindingTypes`]); an id the module does not hold is the error.
pub fn binding_types<T: Target>(
    target: &T,
    module: &Verified<'_>,
    kernel: usize,
    inst: Inst,
) -> Result<BindingTypes, LowerError> {
    let (kernel, data) = instruction(module, kernel, inst)?;
    Ok(BindingTypes::of(kernel, data, |ty| target.splice_type(ty)))
}

/// Kernel number `kernel` of `module` and its instruction `inst`, or the error naming the id
/// the module does not hold.
fn instruction<'m>(
    module: &Verified<'m>,
    kernel: usize,
    inst: Inst,
) -> Result<(&'m Kernel, &'m InstData), LowerError> {
    let kernels = &module.module().kernels;
    let Some(kernel) = kernels.get(kernel) else {
        let reason = format!(
            "the module holds no kernel number {kernel}; it has {}",
            kernels.len()
        );
        return Err(not_held(
            None,
            inst,
            Refusal::new(KitRule::NoSuchKernel, reason),
        ));
    };
    let Some(data) = kernel.insts.get(inst) else {
        let reason = format!(
            "kernel `{}` holds no instruction {}; it has {} (an id of another kernel?)",
            kernel.name,
            inst.as_u32(),
            kernel.insts.len()
        );
        let refusal = Refusal::new(KitRule::NoSuchInstruction, reason);
        return Err(not_held(Some(kernel), inst, refusal));
    };
    Ok((kernel, data))
}

/// The number of instructions in `code` as a printer spells it: its lines less blank lines,
/// labels (`name:`) and comments (`//`, `;`). The one place a verdict's code is measured.
pub(crate) fn count_instructions(code: &str) -> u32 {
    code.lines()
        .map(str::trim)
        .filter(|line| {
            !line.is_empty()
                && !line.ends_with(':')
                && !line.starts_with("//")
                && !line.starts_with(';')
        })
        .count() as u32
}

/// Whether every value the instruction reads is bound, every binding is of a value the
/// instruction reads or defines and has the number of names the target keeps it in, and no
/// client's name lies in the fragment's namespace. An id another kernel handed out is refused
/// first, whatever its index. Ids are compared, never used as indices, so a binding of any id
/// costs nothing.
fn check_bindings(
    kernel: &Kernel,
    inst: Inst,
    types: &BindingTypes,
    names: &SpliceNames,
) -> Result<(), Refusal> {
    let client_name = |name: &str| splice::plain_identifier(name) && !names.is_made(name);
    let naming_rule = |what: String| {
        let reason = format!(
            "{what}: a client's name is an identifier ([A-Za-z_][A-Za-z0-9_]*) that does not \
             continue the prefix `{}` with a lowercase letter",
            names.prefix()
        );
        Refusal::new(KitRule::SpliceName, reason)
    };
    if let Some((predecessor, continuation)) = names.blocks() {
        if let Some(bad) = [predecessor, continuation]
            .into_iter()
            .find(|name| !client_name(name))
        {
            return Err(naming_rule(format!("block `{bad}`")));
        }
    }
    for (value, _) in names.bindings() {
        if value.kernel_tag().is_some_and(|tag| tag != kernel.tag()) {
            let reason = format!(
                "{value} is bound, but kernel `{}` did not hand it out: an id of another kernel",
                kernel.name
            );
            return Err(Refusal::new(KitRule::SpliceValue, reason));
        }
        if types.get(value).is_some() {
            continue;
        }
        let reason = match kernel.values.get(value) {
            None => format!(
                "{value} is bound, but kernel `{}` has {} values: an id of another kernel, or \
                 none at all",
                kernel.name,
                kernel.values.len()
            ),
            Some(data) => format!(
                "`%{}` ({value}) is bound, but instruction {} of kernel `{}` neither reads nor \
                 defines it: bind only the values of the instruction spliced (a value of \
                 another instruction, or of another kernel whose id lies in this one?)",
                data.name,
                inst.as_u32(),
                kernel.name
            ),
        };
        return Err(Refusal::new(KitRule::SpliceValue, reason));
    }
    for value in &types.values {
        let Some(binding) = names.binding(value.value) else {
            if !value.required {
                continue;
            }
            let reason = format!(
                "`%{}` (the {}) is read but bound to no name of the client's",
                value.name, value.role
            );
            return Err(Refusal::new(KitRule::Unbound, reason));
        };
        if binding.len() != value.splice.names {
            let how = if value.splice.names == 1 {
                "bind it to one name (SpliceNames::bind)"
            } else {
                "bind its lanes, lane 0 first (SpliceNames::bind_lanes)"
            };
            let reason = format!(
                "`%{}` (the {}, {}) is bound to {} names; the target keeps it in {} of type \
                 {}: {how}",
                value.name,
                value.role,
                value.ir_type,
                binding.len(),
                value.splice.names,
                value.splice.ty
            );
            return Err(Refusal::new(KitRule::SpliceName, reason));
        }
        if let Some(bad) = binding.iter().find(|bound| !client_name(bound)) {
            return Err(naming_rule(format!(
                "`%{}` is bound to `{bad}`",
                value.name
            )));
        }
    }
    Ok(())
}
