//! The printing side of a backend: the [`Printer`] hooks the driver calls, what each hook is
//! handed ([`At`], [`Expanding`]), and the [`Target`] that pairs a table with its printer.
//!
//! The hooks only spell what the plan decided; keeping them apart from the table makes that
//! boundary visible, and one trait for every backend is what lets one driver serve them all.

use super::LowerOptions;
use crate::expand::{Block, Expansion, Prim, Var};
use crate::kernel::{self, AtomicInst, Inst, Kernel, Module};
use crate::node::AtomicNode;
use crate::types::AddressSpace;

use super::{
    Facts, Fence, FenceBracket, Fragment, Hole, Label, Params, Plan, Recorder, SpliceNames, Table,
};

/// What shapes a printer's output beyond its hooks, in one value: how it binds block
/// parameters, whether it brackets whole expansions, whether it heads a kernel at its end, and
/// whether its templates hold an expansion's beginning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Style {
    /// How the printer binds block parameters: the shape of the steps it is given.
    pub params: Params,
    /// Whether the printer spells the fences of an expansion whose accesses are all relaxed
    /// between fences ([`FencePolicy::RelaxedBetweenFences`]) once around the whole expansion,
    /// through [`Printer::expansion_fence`], rather than around each of its accesses. Once is
    /// enough: every access of the expansion lies between the same release fence and acquire
    /// fence (LLVM's AtomicExpand brackets a CAS loop the same way), and a further element runs
    /// no fence. An expansion with a CAS retry loop is bracketed once wherever the plan says so
    /// for [`Access::Loop`], whatever this says: every printer spells
    /// [`Printer::expansion_fence`].
    ///
    /// [`FencePolicy::RelaxedBetweenFences`]: super::FencePolicy::RelaxedBetweenFences
    /// [`Access::Loop`]: super::Access::Loop
    pub brackets_expansions: bool,
    /// Whether the printer writes a kernel's code into `out` as it goes and puts what must
    /// precede it (declarations known only at the end) before it in [`Printer::kernel_end`]:
    /// the driver then hands `out` to a sink only between kernels, never within one.
    pub heads_kernel_at_end: bool,
    /// For a printer that replays templates ([`Replay`]): whether [`Replay::shape`] is asked
    /// before [`Printer::expansion_begin`], so that a template also holds the text the
    /// beginning prints (binding an expansion's inputs can cost as much as the rest of it). A
    /// replay then runs no `expansion_begin`: the holes must do what it does.
    pub shape_covers_begin: bool,
}

impl Style {
    /// A printer that binds block parameters by `params`, and nothing else set.
    pub const fn new(params: Params) -> Self {
        Style {
            params,
            brackets_expansions: false,
            heads_kernel_at_end: false,
            shape_covers_begin: false,
        }
    }

    /// With [`Style::brackets_expansions`].
    pub const fn bracketing_expansions(self) -> Self {
        Style {
            brackets_expansions: true,
            ..self
        }
    }

    /// With [`Style::heads_kernel_at_end`].
    pub const fn heading_kernels_at_end(self) -> Self {
        Style {
            heads_kernel_at_end: true,
            ..self
        }
    }

    /// With [`Style::shape_covers_begin`].
    pub const fn shape_covering_begin(self) -> Self {
        Style {
            shape_covers_begin: true,
            ..self
        }
    }
}

/// A backend's printer, for one lowering of a module whose kernels live for `'m`.
///
/// Every hook appends to `out` or to the printer's own buffers; a hook that cannot print what
/// the plan says returns [`Unprintable`] (a disagreement between table and printer, never a
/// property of the input), which the driver reports as a refusal of that instruction.
///
/// A printer implements eleven hooks: the module and kernel frames (`module_begin`,
/// `kernel_begin`, `kernel_end`, `module_end`), a node printed whole and a fence (`whole`,
/// `fence`), and an expansion (`expansion_begin`, `block`, `prim`, `expansion_fence`,
/// `expansion_end`); then the walk hooks of its [`Style::params`]: `copy`, `branch`, `jump` and
/// `label` for [`Params::Copies`], `terminator` for [`Params::Phis`]. The rest is optional:
/// splicing (`splice_begin`, `splice_end`), template replay ([`Printer::replay`]) and code
/// shared between the instructions of one expansion ([`Printer::expansion_done`]).
pub trait Printer<'m> {
    /// The plan of the backend's table, which tells each hook what to print.
    type Plan: Plan;

    /// The printer's constants.
    const STYLE: Style;

    /// The memory a kernel parameter of type `ptr.generic` points into in the code this printer
    /// frames: [`AddressSpace::Generic`] (nothing known) unless that code can only be handed
    /// addresses of one space. A generic node through such a parameter is then planned and
    /// printed as a node of that space ([`AtomicNode::with_generic_params_in`]), and the
    /// printer converts the parameter to that space where it binds it.
    fn generic_params_space(&self) -> AddressSpace {
        AddressSpace::Generic
    }

    /// The text an instruction's code is being written into: `out` itself, unless the printer
    /// gathers a kernel's body in a buffer of its own. The driver measures an instruction's
    /// code there ([`LowerOptions::count_instructions`]).
    fn code<'a>(&'a self, out: &'a str) -> &'a str {
        out
    }

    /// Before the first kernel.
    fn module_begin(&mut self, module: &'m Module, out: &mut String);

    /// Before the instructions of kernel number `index`.
    fn kernel_begin(&mut self, kernel: &'m Kernel, index: usize, out: &mut String);

    /// One node printed whole, in the plan's native form, with the fences of `bracket` spelled
    /// around its one access.
    fn whole(
        &mut self,
        at: At<'_>,
        plan: &Self::Plan,
        bracket: FenceBracket,
        out: &mut String,
    ) -> Result<(), Unprintable>;

    /// One stand-alone fence, in the plan's form.
    fn fence(
        &mut self,
        inst: Inst,
        fence: &kernel::Fence,
        plan: &Self::Plan,
        out: &mut String,
    ) -> Result<(), Unprintable>;

    /// Before the steps of an expansion: bind its inputs to the instruction's operands.
    fn expansion_begin(
        &mut self,
        x: &Expanding<'_, Self::Plan>,
        out: &mut String,
    ) -> Result<(), Unprintable>;

    /// A block begins (the entry is no jump target).
    fn block(&mut self, x: &Expanding<'_, Self::Plan>, block: Block, entry: bool, out: &mut String);

    /// Whether [`Printer::expansion_begin`] carried out the whole expansion: a call of code the
    /// printer printed once for an earlier instruction of the same expansion
    /// ([`Expanding::expansion_key`]), say. The driver then hands it neither fences nor steps
    /// nor [`Printer::expansion_end`]. A printer that prints every expansion where it stands
    /// keeps the default, `false`.
    fn expansion_done(&mut self, _x: &Expanding<'_, Self::Plan>) -> bool {
        false
    }

    /// One primitive; a memory primitive with the fences of its bracket spelled around it.
    fn prim(
        &mut self,
        x: &Expanding<'_, Self::Plan>,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        out: &mut String,
    ) -> Result<(), Unprintable>;

    /// `dst = src` on an edge ([`Params::Copies`]; a printer of phis keeps this refusal).
    fn copy(
        &mut self,
        _x: &Expanding<'_, Self::Plan>,
        _dst: Var,
        _src: Var,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        Err(walk_refusal("copy"))
    }

    /// Jump to `to` where `cond` holds (`negated`: where it does not) ([`Params::Copies`]).
    fn branch(
        &mut self,
        _x: &Expanding<'_, Self::Plan>,
        _cond: Var,
        _negated: bool,
        _to: Label,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        Err(walk_refusal("branch"))
    }

    /// Jump to `to` ([`Params::Copies`]).
    fn jump(
        &mut self,
        _x: &Expanding<'_, Self::Plan>,
        _to: Label,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        Err(walk_refusal("jump"))
    }

    /// An edge block begins ([`Params::Copies`]).
    fn label(
        &mut self,
        _x: &Expanding<'_, Self::Plan>,
        _label: Label,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        Err(walk_refusal("label"))
    }

    /// A block's terminator ([`Params::Phis`]: the printer reads the edges itself). The walk
    /// gives it only to a printer of phis; one that binds by copies keeps this refusal.
    fn terminator(
        &mut self,
        _x: &Expanding<'_, Self::Plan>,
        _block: Block,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        Err(walk_refusal("terminator"))
    }

    /// One fence of the bracket around a whole expansion (a CAS retry loop under
    /// [`Access::Loop`], or [`Style::brackets_expansions`]): the leading one after
    /// [`Printer::expansion_begin`], before the first step; the trailing one after the last
    /// step (the exit block's, which ends the expansion without a jump), before
    /// [`Printer::expansion_end`].
    ///
    /// [`Access::Loop`]: super::Access::Loop
    fn expansion_fence(
        &mut self,
        x: &Expanding<'_, Self::Plan>,
        fence: Fence,
        out: &mut String,
    ) -> Result<(), Unprintable>;

    /// After the last step: the old values to the instruction's result.
    fn expansion_end(
        &mut self,
        x: &Expanding<'_, Self::Plan>,
        out: &mut String,
    ) -> Result<(), Unprintable>;

    /// The printer's template replay, for a printer that keeps the text of an expansion
    /// printed once and replays it for later instructions ([`Replay`]); `None` (the default)
    /// for one that prints every expansion afresh.
    fn replay(&mut self) -> Option<&mut (dyn Replay<Self::Plan> + '_)> {
        None
    }

    /// After the instructions of the current kernel.
    fn kernel_end(&mut self, out: &mut String);

    /// After the last kernel.
    fn module_end(&mut self, out: &mut String);

    /// Before the one instruction of `kernel` a spliced fragment holds: its values are named
    /// by `names` (every value it reads is bound; the driver checked), what it makes up by the
    /// prefix, and nothing of a kernel around it is printed.
    fn splice_begin(
        &mut self,
        _kernel: &'m Kernel,
        _inst: Inst,
        _names: &'m SpliceNames,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        Err(Unprintable("the printer does not splice".into()))
    }

    /// After a spliced instruction: the temporaries it used and where its result is, into
    /// `fragment` (whose code is `out`).
    fn splice_end(
        &mut self,
        _out: &mut String,
        _fragment: &mut Fragment,
    ) -> Result<(), Unprintable> {
        Err(Unprintable("the printer does not splice".into()))
    }
}

/// The refusal of a walk hook the printer's [`Style::params`] never asks for.
fn walk_refusal(hook: &str) -> Unprintable {
    Unprintable(format!(
        "the walk asked for `{hook}`, which this printer's way of binding block parameters \
         never takes"
    ))
}

/// Template replay, the optional extension of a [`Printer`] ([`Printer::replay`]): the
/// printer records the text of an expansion printed once, with holes where the names of the
/// instruction go ([`Template`](super::Template)), and later instructions of the same plan
/// and shape replay it with their names.
///
/// The contract: two instructions of one plan with equal shapes print the same text but for
/// the holes, and a replay with the holes filled prints what printing afresh would, byte for
/// byte. The workspace's `templates` test checks it for every backend, against the same
/// printer with replay off.
pub trait Replay<P> {
    /// The recorder through which the printer marks the holes of an expansion's text; `None`
    /// where it has none now (outside a kernel it can print), and then replays nothing.
    fn recorder(&mut self) -> Option<&Recorder>;

    /// After [`Printer::expansion_begin`] of an expansion with a key
    /// ([`Expanding::expansion_key`]), or before it where [`Style::shape_covers_begin`]:
    /// appends to `shape` everything the rest of its text (its fences, steps and
    /// [`Printer::expansion_end`]; and its beginning, where the shape covers it) and that
    /// text's side effects depend on, beyond the expansion and plan and what the printer
    /// writes through holes; `false` where it is not to be replayed.
    fn shape(&mut self, x: &Expanding<'_, P>, shape: &mut Vec<u64>) -> bool;

    /// Writes hole `hole` of a template being replayed for the current expansion, and does
    /// what it stands for.
    fn fill(
        &mut self,
        x: &Expanding<'_, P>,
        hole: Hole,
        out: &mut String,
    ) -> Result<(), Unprintable>;
}

/// The instruction being printed.
#[derive(Clone, Copy, Debug)]
pub struct At<'a> {
    /// The instruction's id in its kernel.
    pub inst: Inst,
    /// The instruction itself.
    pub atomic: &'a AtomicInst,
    /// Its node, with the kernel's facts.
    pub node: &'a AtomicNode,
}

/// The expansion being printed, with its instruction and plan.
#[derive(Clone, Copy, Debug)]
pub struct Expanding<'a, P> {
    /// The instruction expanded.
    pub inst: Inst,
    /// Its atomic access, as written.
    pub atomic: &'a AtomicInst,
    /// Its node, with the kernel's facts.
    pub node: &'a AtomicNode,
    /// The table's plan for it.
    pub plan: &'a P,
    /// The expansion, after the passes the target asked for.
    pub expansion: &'a Expansion,
    /// What is known of the expansion's variables, computed once per plan with its walk: what
    /// a printer may choose other instructions by (every fact about a value is checked by the
    /// interpreter where it is read, [`crate::interp::Interpreter::check_facts`]).
    pub facts: &'a Facts,
    /// The expansion's number among those the lowering keeps: every instruction printed from
    /// one expansion has the same, so a printer may keep what it derives from the expansion
    /// alone under it. `None` for an expansion printed once (a spliced fragment's).
    pub expansion_key: Option<usize>,
}

/// Why a printer could not print what its table accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unprintable(pub String);

/// A table and the printer of its backend: everything a [`Backend`] needs.
///
/// [`Backend`]: crate::lower::Backend
pub trait Target: Table {
    /// The backend's printer, over a module that lives for `'m`.
    type Printer<'m>: Printer<'m, Plan = Self::Plan>;

    /// A printer for one lowering with `options`.
    fn printer<'m>(&self, options: &LowerOptions) -> Self::Printer<'m>;

    /// How a spliced fragment of this target takes a value of type `ty`: the names the
    /// client binds it to and the type each has ([`super::BindingTypes`]).
    fn splice_type(&self, ty: crate::types::ValueType) -> super::SpliceType;

    /// This target with the lowering choices of `options` its table makes
    /// ([`LowerOptions::plain_loops`]), or `None` where they change nothing.
    fn with_options(&self, _options: &LowerOptions) -> Option<Self> {
        None
    }
}

/// Moves the text `out` holds from `end` on to `start`, in front of `out[start..end]`: for a
/// head printed after the code it heads (declarations known only at the code's end). `start <=
/// end` are ends of earlier appends to `out`, so character boundaries.
///
/// Where `out` holds no more before `start` than from it (one kernel, or a lowering that hands
/// each kernel to a sink), the two parts are rotated in place, so that no second buffer holds
/// either. Otherwise, so that a module of many kernels lowered into one string does not move
/// every earlier kernel's text once per kernel, the head is split off and inserted.
pub fn move_to_front(out: &mut String, start: usize, end: usize) {
    assert!(
        start <= end && out.is_char_boundary(start) && out.is_char_boundary(end),
        "a head moves between character boundaries"
    );
    if start > out.len() - start {
        let head = out.split_off(end);
        out.insert_str(start, &head);
        return;
    }
    // SAFETY: `out[start..end]` and `out[end..]` are each valid UTF-8, as both ends are
    // character boundaries (asserted above); rotating swaps the two whole parts, and two valid
    // UTF-8 strings one after the other in either order are valid UTF-8. Checking the text
    // again instead would be a pass over the whole kernel.
    let bytes = unsafe { out.as_mut_vec() };
    bytes[start..].rotate_left(end - start);
}

/// Appends a printer's `buffer` (a kernel's body, say) to `out` and empties it, moving the
/// buffer rather than copying it where `out` holds less, so a long body is not held twice.
pub fn append_buffer(out: &mut String, buffer: &mut String) {
    if out.len() < buffer.len() {
        buffer.insert_str(0, out);
        std::mem::swap(out, buffer);
    } else {
        out.push_str(buffer);
    }
    buffer.clear();
}

#[cfg(test)]
mod tests {
    use super::move_to_front;

    #[test]
    fn a_head_moves_in_front_of_its_code_either_way() {
        // Little before the kernel: rotated in place.
        let mut out = String::from("k0\ncode é\nhead\n");
        move_to_front(&mut out, 3, 11);
        assert_eq!(out, "k0\nhead\ncode é\n");
        // Much before the kernel: split off and inserted.
        let mut out = String::from("earlier kernels\ncode\nhead\n");
        move_to_front(&mut out, 16, 21);
        assert_eq!(out, "earlier kernels\nhead\ncode\n");
        // Nothing to move.
        let mut out = String::from("code\n");
        move_to_front(&mut out, 0, 5);
        assert_eq!(out, "code\n");
    }
}
