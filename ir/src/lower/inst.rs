//! Printing one instruction as its plan says: a fence, a node whole with its fence bracket, or
//! the node's expansion, run through the target's passes and walked step by step.
//!
//! Both the module driver and the splice entry print an instruction, so this is the one place
//! that decides which fences bracket which access and in what order the passes run.

use crate::expand::{Expander, Expansion, MemAttrs, Prim, Reuse, SoftFloat};
use crate::kernel::{Inst, InstData, Kernel};
use crate::legal::Lowering;
use crate::node::AtomicNode;
use crate::types::AtomicOp;

use super::template::{Found, Templates};
use super::{
    Access, At, Expanding, Facts, FenceBracket, FencePolicy, Linear, Params, Passes, Plan, Printer,
    Step, Unprintable,
};

/// What printing reuses from one instruction to the next.
#[derive(Default)]
pub struct Scratch {
    walker: Walker,
    /// By plan (an index into a lowering's distinct plans): the expansion every instruction of
    /// that plan is printed from, its steps and its facts. A plan is one distinct node, and an expansion
    /// depends on nothing but its node, its lowering and the target's passes, so a kernel that
    /// repeats a handful of kinds of atomic expands and walks each kind once.
    walked: Vec<Option<Walked>>,
    /// The text of each plan's expansions by shape, for a printer that replays it.
    templates: Templates,
    /// By plan: its node. A plan is one distinct node, so every instruction of the plan has
    /// it, and it is made once.
    nodes: Vec<Option<AtomicNode>>,
}

/// The buffers of expanding a node, running the passes and walking the result.
#[derive(Default)]
struct Walker {
    expander: Expander,
    linear: Linear,
    reuse: Reuse,
    soft_float: SoftFloat,
    facts: Facts,
}

/// An expansion after the passes, its steps, and what a printer may know of its variables.
struct Walked {
    expansion: Expansion,
    steps: Vec<Step>,
    facts: Facts,
}

impl Walker {
    /// `node` lowered by `lowering`, expanded, through the passes in the driver's order.
    fn expansion(
        &mut self,
        node: &AtomicNode,
        lowering: Lowering,
        passes: Passes,
    ) -> &mut Expansion {
        let expansion = self.expander.expand(node, lowering);
        run_passes(&mut self.soft_float, &mut self.reuse, expansion, passes);
        expansion
    }

    /// The expansion, the steps a printer binding parameters as `params` says is handed, and
    /// the facts about the expansion's variables.
    fn walk(
        &mut self,
        node: &AtomicNode,
        lowering: Lowering,
        passes: Passes,
        params: Params,
    ) -> (&Expansion, &[Step], &Facts) {
        let expansion = self.expander.expand(node, lowering);
        run_passes(&mut self.soft_float, &mut self.reuse, expansion, passes);
        let steps = self.linear.walk(expansion, params);
        self.facts.compute(expansion);
        (expansion, steps, &self.facts)
    }
}

impl Scratch {
    /// Storage for [`Scratch::expansion`].
    pub fn new() -> Self {
        Scratch::default()
    }

    /// Forgets the templates: a template's text and shape name the registers of its kernel
    /// (its parameters', say), which another kernel numbers and names otherwise.
    pub(super) fn kernel_begin(&mut self) {
        self.templates.clear();
    }

    /// The expansion a printer is handed for `node` lowered by `lowering` on a target asking
    /// for `passes`: expanded, then the passes run in the driver's order. Valid until the next
    /// call.
    pub fn expansion(
        &mut self,
        node: &AtomicNode,
        lowering: Lowering,
        passes: Passes,
    ) -> &mut Expansion {
        self.walker.expansion(node, lowering, passes)
    }
}

/// The passes, in the one order every printer sees: soft float first, so that reuse sees the
/// rewritten primitives.
fn run_passes(
    soft_float: &mut SoftFloat,
    reuse: &mut Reuse,
    expansion: &mut Expansion,
    passes: Passes,
) {
    soft_float.run(expansion, passes.soft_float);
    if passes.reuse {
        reuse.run(expansion);
    }
}

/// Prints one instruction of `kernel` as `plan` says: a fence, a node whole, or its expansion.
/// `plan_index` numbers the plan among the lowering's distinct plans, where it has one: the
/// expansion is then made once per plan and kept for the plan's later instructions.
#[allow(clippy::too_many_arguments)]
pub(super) fn print_inst<'m, P: Printer<'m>>(
    printer: &mut P,
    scratch: &mut Scratch,
    passes: Passes,
    kernel: &Kernel,
    inst: Inst,
    plan: &P::Plan,
    plan_index: Option<usize>,
    out: &mut String,
) -> Result<(), Unprintable> {
    let atomic = match &kernel.insts[inst] {
        InstData::Atomic(atomic) => atomic,
        InstData::Fence(fence) => return printer.fence(inst, fence, plan, out),
    };
    let node_of = |printer: &P| {
        AtomicNode::of(kernel, atomic).with_generic_params_in(printer.generic_params_space())
    };
    let node = match plan_index {
        None => node_of(printer),
        Some(index) => {
            let nodes = &mut scratch.nodes;
            if nodes.len() <= index {
                nodes.resize(index + 1, None);
            }
            *nodes[index].get_or_insert_with(|| node_of(printer))
        }
    };
    if plan.is_whole() {
        let access = match node.op {
            AtomicOp::Cas => Access::Cas,
            AtomicOp::Load => Access::Load,
            AtomicOp::Store => Access::Store,
            _ => Access::Rmw,
        };
        let bracket = FenceBracket::around(node.order, plan.fences(access));
        let at = At {
            inst,
            atomic,
            node: &node,
        };
        return printer.whole(at, plan, bracket, out);
    }
    let lowering = plan.legality().lowering;
    let Scratch {
        walker,
        walked,
        templates,
        ..
    } = scratch;
    let (expansion, steps, facts) = match plan_index {
        None => walker.walk(&node, lowering, passes, P::STYLE.params),
        Some(index) => {
            if walked.len() <= index {
                walked.resize_with(index + 1, || None);
            }
            let kept = walked[index].get_or_insert_with(|| {
                let (expansion, steps, facts) =
                    walker.walk(&node, lowering, passes, P::STYLE.params);
                Walked {
                    expansion: expansion.clone(),
                    steps: steps.to_vec(),
                    facts: facts.clone(),
                }
            });
            (&kept.expansion, &kept.steps[..], &kept.facts)
        }
    };
    let x = Expanding {
        inst,
        atomic,
        node: &node,
        plan,
        expansion,
        facts,
        expansion_key: plan_index,
    };
    let Some(index) = plan_index else {
        printer.expansion_begin(&x, out)?;
        return print_steps(printer, &x, steps, out);
    };
    // A printer whose shape covers its beginning is asked for the shape first: a template
    // then holds the beginning's text too, and a replay runs no beginning.
    let begins_in_template = P::STYLE.shape_covers_begin;
    if !begins_in_template {
        printer.expansion_begin(&x, out)?;
    }
    let begin = |printer: &mut P, out: &mut String| match begins_in_template {
        true => printer.expansion_begin(&x, out),
        false => Ok(()),
    };
    templates.shape.clear();
    let shaped = match printer.replay() {
        Some(replay) => replay.recorder().is_some() && replay.shape(&x, &mut templates.shape),
        None => false,
    };
    if !shaped {
        begin(printer, out)?;
        return print_steps(printer, &x, steps, out);
    }
    match templates.look_up(index) {
        Found::Replay(template) => {
            template.replay(inst.as_u32(), out, |hole, out| match printer.replay() {
                Some(replay) => replay.fill(&x, hole, out),
                None => Err(Unprintable("a replay without a replaying printer".into())),
            })
        }
        Found::Print => {
            begin(printer, out)?;
            print_steps(printer, &x, steps, out)
        }
        Found::Record => {
            if let Some(recorder) = printer.replay().and_then(|replay| replay.recorder()) {
                recorder.begin(out.len());
            }
            let printed = begin(printer, out).and_then(|()| print_steps(printer, &x, steps, out));
            let template = printer
                .replay()
                .and_then(|replay| replay.recorder())
                .and_then(|recorder| recorder.finish(out, inst.as_u32()));
            printed?;
            templates.keep(index, template);
            Ok(())
        }
    }
}

/// Hands an expansion's steps to the printer after [`Printer::expansion_begin`], each memory
/// primitive with its fence bracket, and ends it.
fn print_steps<'m, P: Printer<'m>>(
    printer: &mut P,
    x: &Expanding<'_, P::Plan>,
    steps: &[Step],
    out: &mut String,
) -> Result<(), Unprintable> {
    if printer.expansion_done(x) {
        return Ok(());
    }
    let once = expansion_bracket(x, P::STYLE.brackets_expansions);
    if let Some(leading) = once.and_then(|bracket| bracket.leading) {
        printer.expansion_fence(x, leading, out)?;
    }
    for step in steps {
        match *step {
            Step::Block { block, entry } => printer.block(x, block, entry, out),
            Step::Prim { block, index } => {
                let prim = &x.expansion.blocks[block].prims[index as usize];
                let bracket = memory_access(prim).map(|(access, mem)| match once {
                    Some(once) => FenceBracket::bare(once.order),
                    None => FenceBracket::around(mem.order, x.plan.fences(access)),
                });
                printer.prim(x, prim, bracket, out)?;
            }
            Step::Copy { dst, src } => printer.copy(x, dst, src, out)?,
            Step::Branch { cond, negated, to } => printer.branch(x, cond, negated, to, out)?,
            Step::Jump(to) => printer.jump(x, to, out)?,
            Step::Label(label) => printer.label(x, label, out)?,
            Step::Terminator(block) => printer.terminator(x, block, out)?,
        }
    }
    if let Some(trailing) = once.and_then(|bracket| bracket.trailing) {
        printer.expansion_fence(x, trailing, out)?;
    }
    printer.expansion_end(x, out)
}

/// The one bracket around a whole expansion, if its order is carried that way:
/// - an element with a CAS retry loop ([`Lowering::has_retry_loop`]) where the plan's
///   [`Access::Loop`] policy says so: the release part once before the loop's first load, the
///   acquire part once after its exit, no fence on a retry;
/// - for a printer that `brackets` expansions, where every access of it is relaxed between
///   fences under the plan's policy (the node's order is the order of each of its accesses);
/// - a split vector whose accesses all carry the node's order under one policy: that policy's
///   fences once around all the elements, each access with the order the policy leaves on it.
///   A vector access is its elements' accesses in an unspecified order (the PTX memory
///   model's reading of a vector instruction), so this is what one vector instruction between
///   the same fences means: a seq_cst vector is one `fence.sc` and an acquire access per
///   element, as the target's own vector `atom` is.
fn expansion_bracket<P: Plan>(x: &Expanding<'_, P>, brackets: bool) -> Option<FenceBracket> {
    let lowering = x.plan.legality().lowering;
    let around = |policy| FenceBracket::around(x.node.order, policy);
    if lowering.has_retry_loop() {
        let policy = x.plan.fences(Access::Loop);
        return (policy == FencePolicy::RelaxedBetweenFences).then(|| around(policy));
    }
    let accesses = x
        .expansion
        .blocks
        .values()
        .flat_map(|block| &block.prims)
        .filter_map(memory_access);
    let between_fences = |(access, _): (Access, &MemAttrs)| {
        x.plan.fences(access) == FencePolicy::RelaxedBetweenFences
    };
    if brackets && accesses.clone().all(between_fences) {
        return Some(around(FencePolicy::RelaxedBetweenFences));
    }
    if !lowering.is_split() {
        return None;
    }
    let policy = x.plan.fences(accesses.clone().next()?.0);
    accesses
        .clone()
        .all(|(access, mem)| x.plan.fences(access) == policy && mem.order == x.node.order)
        .then(|| around(policy))
}

/// The kind of access a memory primitive is, and its attributes; `None` for any other primitive.
fn memory_access(prim: &Prim) -> Option<(Access, &MemAttrs)> {
    match prim {
        Prim::Load { mem, .. } => Some((Access::Load, mem)),
        Prim::Cas { mem, .. } => Some((Access::Cas, mem)),
        Prim::Rmw { mem, .. } => Some((Access::Rmw, mem)),
        _ => None,
    }
}
