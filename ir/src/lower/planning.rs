//! Legalizing a whole module before anything is printed: one plan per distinct node, the plan
//! each printed instruction takes, and (where refusals are skipped) what is left out.
//!
//! Planning first is what lets a refusal leave the output untouched, and deduplicating nodes
//! is what lets a million refused atomics search their smallest target once.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use cranelift_entity::SecondaryMap;

use super::{LowerError, LowerReport, OnRefusal};
use crate::kernel::{Inst, InstData, Kernel, Module, Operand, Scalar, Value};
use crate::legal::Refusal;
use crate::node::Node;
use crate::rule::KitRule;
use crate::types::{AddressSpace, ElemType};

use super::error::{error, param_error};
use super::{legalize, legalize_beside, legalize_signature, Plan, Table};

/// A module legalized: one plan per distinct node, the plan of every instruction that is
/// printed (in program order), the report, and, where instructions are left out
/// ([`OnRefusal::Skip`]), which are kept.
pub(super) struct Planned<P> {
    pub(super) plans: Vec<P>,
    pub(super) chosen: Vec<u32>,
    pub(super) report: LowerReport,
    /// Per kernel, whether each instruction is kept (`None`: all of them); a kernel left out
    /// whole keeps none and is not printed.
    kept: Option<Vec<KernelKept>>,
}

struct KernelKept {
    whole_kernel_refused: bool,
    insts: SecondaryMap<Inst, bool>,
}

impl<P> Planned<P> {
    /// The module to print: `module` itself, or its slices of kept instructions.
    pub(super) fn kept_module(&self, module: &Module) -> Option<Module> {
        let kept = self.kept.as_ref()?;
        let kernels = module
            .kernels
            .iter()
            .zip(kept)
            .filter(|(_, kept)| !kept.whole_kernel_refused)
            .map(|(kernel, kept)| kernel.slice(|inst| kept.insts[inst]))
            .collect();
        Some(Module { kernels })
    }
}

/// Legalizes every instruction and kernel signature of `module`, each node as code whose
/// `ptr.generic` parameters point into `generic_params` sees it ([`Printer::generic_params_space`]):
/// the first refusal is the error ([`OnRefusal::Stop`]), or every refusal is reported and its
/// instruction (or kernel) left out ([`OnRefusal::Skip`]).
///
/// [`Printer::generic_params_space`]: super::Printer::generic_params_space
pub(super) fn plan<T: Table>(
    table: &T,
    module: &Module,
    on_refusal: OnRefusal,
    generic_params: AddressSpace,
) -> Result<Planned<T::Plan>, LowerError> {
    let skip = on_refusal == OnRefusal::Skip;
    let mut report = LowerReport::default();
    let mut plans: Vec<T::Plan> = Vec::new();
    // By plan: the number the report records its verdict by, from the plan's first record
    // on (so that the report numbers its verdicts in program order, as recording them does).
    let mut verdicts: Vec<Option<u32>> = Vec::new();
    // Refusals too: a million refused atomics search their smallest target once.
    let mut plan_of: HashMap<Node, Result<u32, Refusal>, BuildHasherDefault<NodeHasher>> =
        HashMap::default();
    let mut chosen: Vec<u32> = Vec::new();
    let mut kept: Vec<KernelKept> = Vec::new();
    let mut any_left_out = false;
    for (index, kernel) in module.kernels.iter().enumerate() {
        let (kernel_chosen, kernel_decisions) = (chosen.len(), report.len());
        report.reserve(kernel.insts.len());
        chosen.reserve(kernel.insts.len());
        // Which instructions are kept matters only where some may be left out.
        let mut kernel_kept = KernelKept {
            whole_kernel_refused: false,
            insts: match skip {
                true => SecondaryMap::with_capacity(kernel.insts.len()),
                false => SecondaryMap::new(),
            },
        };
        let mut left_out: SecondaryMap<Value, bool> = SecondaryMap::new();
        // The element type of each pointer parameter's first accepted access.
        let mut first_type: SecondaryMap<Value, Option<ElemType>> = SecondaryMap::new();
        for (inst, data) in kernel.insts.iter() {
            if skip {
                if let Some(value) = reads_any(kernel, data, &left_out) {
                    let name = kernel.values.get(value).map_or("?", |data| &*data.name);
                    let reason = format!("reads `%{name}`, the result of an instruction left out");
                    report.refuse(error(
                        kernel,
                        inst,
                        Refusal::new(KitRule::ReadsRefused, reason),
                    ));
                    if let Some(result) = data.result() {
                        left_out[result] = true;
                    }
                    any_left_out = true;
                    continue;
                }
            }
            let node = Node::of_data(kernel, data).with_generic_params_in(generic_params);
            let answer = match plan_of.get(&node) {
                Some(answer) => answer,
                None => {
                    let answer = legalize(table, &node).map(|plan| {
                        verdicts.push(None);
                        plans.push(plan);
                        plans.len() as u32 - 1
                    });
                    plan_of.entry(node).or_insert(answer)
                }
            };
            let answer = match answer {
                Ok(plan) => beside_earlier(table, &node, data, &first_type).map(|()| *plan),
                Err(refusal) => Err(refusal.clone()),
            };
            let plan = match answer {
                Ok(plan) => plan,
                Err(refusal) if skip => {
                    report.refuse(error(kernel, inst, refusal));
                    if let Some(result) = data.result() {
                        left_out[result] = true;
                    }
                    any_left_out = true;
                    continue;
                }
                Err(refusal) => return Err(error(kernel, inst, refusal)),
            };
            if let InstData::Atomic(atomic) = data {
                first_type[atomic.addr].get_or_insert(atomic.ty);
            }
            let verdict = *verdicts[plan as usize]
                .get_or_insert_with(|| report.verdict(plans[plan as usize].legality()));
            report.record_verdict(index, inst, verdict);
            chosen.push(plan);
            if skip {
                kernel_kept.insts[inst] = true;
            }
        }
        // After the instructions: a refused instruction is the more precise answer, and the
        // parameters it reads usually share its reason.
        if let Err((param, refusal)) = legalize_signature(table, &kernel.params) {
            let error = param_error(kernel, param, refusal);
            if !skip {
                return Err(error);
            }
            report.refuse(error);
            report.truncate_decisions(kernel_decisions);
            chosen.truncate(kernel_chosen);
            kernel_kept.whole_kernel_refused = true;
            any_left_out = true;
        }
        kept.push(kernel_kept);
    }
    Ok(Planned {
        plans,
        chosen,
        report,
        kept: any_left_out.then_some(kept),
    })
}

/// Hashes the node of every instruction planned, a word at a time (as rustc's `FxHasher`):
/// FNV takes a node's fields a byte at a time, which was a tenth of lowering a program that
/// repeats a few kinds of atomic. Nodes are small and their kinds few, so the weaker mixing
/// costs nothing.
#[derive(Default)]
struct NodeHasher(u64);

impl NodeHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for NodeHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_u128(&mut self, i: u128) {
        self.add(i as u64);
        self.add((i >> 64) as u64);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The table's answer for `node` (the node of `data`) beside the first accepted access of its
/// pointer parameter, if an earlier instruction made one ([`Table::beside`]).
fn beside_earlier<T: Table>(
    table: &T,
    node: &Node,
    data: &InstData,
    first_type: &SecondaryMap<Value, Option<ElemType>>,
) -> Result<(), Refusal> {
    match (node, data) {
        (Node::Atomic(node), InstData::Atomic(atomic)) => match first_type[atomic.addr] {
            Some(earlier) => legalize_beside(table, node, earlier),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// The first value `data` reads that `left_out` marks, if any.
fn reads_any(
    kernel: &Kernel,
    data: &InstData,
    left_out: &SecondaryMap<Value, bool>,
) -> Option<Value> {
    let InstData::Atomic(atomic) = data else {
        return None;
    };
    let scalar = |scalar: &Scalar| match scalar {
        Scalar::Value(value) if left_out[*value] => Some(*value),
        _ => None,
    };
    let operand = |operand: &Option<Operand>| match operand {
        Some(Operand::Scalar(s)) => scalar(s),
        Some(Operand::Vector(list)) => kernel
            .checked_vector_elements(*list)
            .and_then(|elements| elements.iter().find_map(scalar)),
        None => None,
    };
    let predicate = atomic.predicate.map(|p| p.value).filter(|v| left_out[*v]);
    let addr = Some(atomic.addr).filter(|v| left_out[*v]);
    addr.or(predicate)
        .or_else(|| operand(&atomic.operand))
        .or_else(|| operand(&atomic.new_value))
}
