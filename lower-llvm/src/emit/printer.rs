//! The [`Printer`] of the LLVM backend: a module's target triple, each kernel's `define` with
//! its parameters and result pointers, the hooks that hand each node to the module that spells
//! it, the kernel's result stores, and a spliced fragment's frame.
//!
//! It decides no instruction itself: it routes each plan to [`super::native`],
//! [`super::expansion`] or [`super::ldst`], and a complete Vulkan module's frame to
//! [`super::vulkan`].

use std::borrow::Cow;

use atomir_ir::expand::{Block, Prim};
use atomir_ir::lower::{
    At, Expanding, Fence, FenceBracket, Fragment, FragmentResult, Hole, Namer, Params, Printer,
    Recorder, Replay, Spell, SpliceNames, Style, Unprintable, PTX_ENTRY_NAMES,
};
use atomir_ir::{spell, Inst, Kernel, Module, ValueType};

use super::ldst::{self, Builtins};
use super::native::Mem;
use super::{expansion, native, vulkan};
use crate::legal::{Form, LlvmPlan};
use crate::target::{LlvmTarget, Triple};

use super::types::type_word;
use super::values::{write_ident, Decimal, FUNCTION_NAMES};
use super::{Emitter, Label, Ty};

/// The LLVM printer of one lowering: each kernel a `define [cc] void @name(params…, results…)`.
///
/// Every used result is stored through a trailing pointer parameter (one per result, in program
/// order, in global memory), so the old values are observable by whoever launches the kernel.
pub struct LlvmPrinter<'m> {
    target: LlvmTarget,
    complete: bool,
    emitter: Option<Emitter<'m>>,
    /// The function name of each kernel of the module, by index.
    function_names: Vec<Cow<'m, str>>,
    /// The frame of a complete Vulkan module.
    vulkan: Option<vulkan::Frame>,
    /// Why the current kernel cannot be printed in its frame, if it cannot.
    unprintable: Option<Unprintable>,
    /// The builtins the module calls (SPIR-V loads, stores and fences).
    builtins: Builtins,
    /// The text around each result's pointer parameter and store.
    result_text: ResultText,
}

impl<'m> LlvmPrinter<'m> {
    pub(crate) fn new(target: LlvmTarget, complete: bool) -> Self {
        LlvmPrinter {
            target,
            complete,
            emitter: None,
            function_names: Vec::new(),
            vulkan: (complete && target.triple == Triple::SpirvVulkan).then(vulkan::Frame::default),
            unprintable: None,
            builtins: Builtins::default(),
            result_text: ResultText::default(),
        }
    }

    fn emitter(&mut self) -> Result<&mut Emitter<'m>, Unprintable> {
        if let Some(unprintable) = &self.unprintable {
            return Err(unprintable.clone());
        }
        self.emitter
            .as_mut()
            .ok_or_else(|| Unprintable("an instruction outside a kernel".into()))
    }
}

impl<'m> Printer<'m> for LlvmPrinter<'m> {
    type Plan = LlvmPlan;
    /// Binding an instruction's inputs and beginning its first block cost as much as the
    /// rest of a replay: the template holds them.
    const STYLE: Style = Style::new(Params::Phis).shape_covering_begin();

    fn module_begin(&mut self, module: &'m Module, out: &mut String) {
        let kernels = module.kernels.iter().map(|kernel| kernel.name.as_str());
        let rules = match self.target.triple {
            Triple::Nvptx64 => &PTX_ENTRY_NAMES,
            _ => &FUNCTION_NAMES,
        };
        Namer::new(rules).assign_distinct(kernels, &mut self.function_names);
        if self.complete {
            // The flags the legality table assumed: llc with others may reject or change it.
            out.push_str("; llc ");
            out.push_str(&self.target.llc_args().join(" "));
            out.push('\n');
            out.push_str("target triple = \"");
            out.push_str(self.target.triple.triple_string());
            out.push_str("\"\n\n");
        }
    }

    fn kernel_begin(&mut self, kernel: &'m Kernel, index: usize, out: &mut String) {
        let target = &self.target;
        let mut em = Emitter::new(*target, kernel);
        if let Some(frame) = &mut self.vulkan {
            em.kernel_index = index;
            em.bound = true;
            let name = self.function_names.get(index).map_or("", |name| &**name);
            self.unprintable = frame.kernel_begin(&em, name, index, out);
            self.emitter = Some(em);
            return;
        }
        out.push_str("define ");
        if self.complete {
            if let Some(cc) = target.triple.kernel_cc() {
                out.push_str(cc);
                out.push(' ');
            }
        }
        out.push_str("void ");
        let name = self.function_names.get(index).map_or("", |name| &**name);
        write_ident(out, '@', name);
        out.push('(');
        let mut first = true;
        for param in &kernel.params {
            if !first {
                out.push_str(", ");
            }
            first = false;
            spell!(out, em.value_ty(param.ty), ' ');
            write_ident(out, '%', em.name(param.value));
        }
        let mut number = Decimal::default();
        for (index, inst) in kernel.insts.values().enumerate() {
            number.set(index as u32);
            let Some(inst) = inst.as_atomic().filter(|inst| inst.result.is_some()) else {
                continue;
            };
            let text = self.result_text.of(&em, inst.result_type(), None);
            // The pointer's text begins with the `, ` that follows an earlier parameter.
            let pointer = if first { &text.tail[2..] } else { &text.tail };
            first = false;
            spell!(out, pointer, number);
        }
        out.push_str(") {\n.entry:\n");
        self.emitter = Some(em);
    }

    fn whole(
        &mut self,
        at: At<'_>,
        plan: &LlvmPlan,
        bracket: FenceBracket,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let builtins = &mut self.builtins;
        let em = self
            .emitter
            .as_mut()
            .ok_or_else(|| Unprintable("an instruction outside a kernel".into()))?;
        em.instruction_begin(out, at.inst.as_u32(), at.atomic);
        let result = match plan.form {
            Form::VectorRmw => native::vector_rmw(em, out, at.atomic, plan, bracket),
            Form::LoadStore { spelling, .. } => {
                ldst::load_store(em, out, at.atomic, plan, bracket, spelling, builtins)
            }
            Form::Expand(_) | Form::Fence(_) => {
                return Err(Unprintable(format!("{:?} is not printed whole", plan.form)))
            }
        };
        em.instruction_end(out, at.atomic, result);
        Ok(())
    }

    fn fence(
        &mut self,
        _inst: Inst,
        fence: &atomir_ir::Fence,
        plan: &LlvmPlan,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let Form::Fence(spelling) = plan.form else {
            return Err(Unprintable(format!("{:?} is not a fence", plan.form)));
        };
        let builtins = &mut self.builtins;
        let em = self
            .emitter
            .as_ref()
            .ok_or_else(|| Unprintable("a fence outside a kernel".into()))?;
        if em.splice.is_some() {
            // A fragment begins with its predecessor's terminator, a fence's too.
            let first = em.show_label(Label::Block(0, 0));
            spell!(out, "  br label %", first, '\n', first, ":\n");
        }
        ldst::fence(em, out, fence.order, plan, spelling, builtins);
        Ok(())
    }

    fn expansion_begin(
        &mut self,
        x: &Expanding<'_, LlvmPlan>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let em = self.emitter()?;
        em.instruction_begin(out, x.inst.as_u32(), x.atomic);
        expansion::bind(em, out, x.atomic, x.expansion);
        Ok(())
    }

    fn block(&mut self, x: &Expanding<'_, LlvmPlan>, block: Block, entry: bool, out: &mut String) {
        if let Ok(em) = self.emitter() {
            expansion::block(em, out, x.expansion, block, entry);
        }
    }

    fn prim(
        &mut self,
        x: &Expanding<'_, LlvmPlan>,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let em = self.emitter()?;
        expansion::primitive(em, out, x.plan, x.expansion, prim, bracket)
    }

    fn terminator(
        &mut self,
        x: &Expanding<'_, LlvmPlan>,
        block: Block,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let em = self.emitter()?;
        expansion::terminator(em, out, x.atomic, x.expansion, block);
        Ok(())
    }

    fn expansion_fence(
        &mut self,
        x: &Expanding<'_, LlvmPlan>,
        fence: Fence,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let em = self.emitter()?;
        let mem = Mem::of(em, FenceBracket::bare(fence.order), x.plan, x.atomic.space);
        native::fence(out, &mem, Some(fence));
        Ok(())
    }

    fn expansion_end(
        &mut self,
        x: &Expanding<'_, LlvmPlan>,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        let em = self.emitter()?;
        let result = em.result.take();
        em.instruction_end(out, x.atomic, result);
        Ok(())
    }

    fn replay(&mut self) -> Option<&mut dyn Replay<LlvmPlan>> {
        Some(self)
    }

    fn kernel_end(&mut self, out: &mut String) {
        let Some(em) = self.emitter.take() else {
            return;
        };
        self.unprintable = None;
        if let Some(frame) = &mut self.vulkan {
            frame.kernel_end(&em, em.kernel_index, out);
            return;
        }
        let mut number = Decimal::default();
        for (index, inst) in em.kernel.insts.values().enumerate() {
            number.set(index as u32);
            let Some((inst, value)) = inst
                .as_atomic()
                .and_then(|inst| inst.result.map(|value| (inst, value)))
            else {
                continue;
            };
            let r = em.value_ref(value);
            let own = r.register().filter(|&(of, _)| of == index as u32);
            let text = self
                .result_text
                .of(&em, inst.result_type(), own.map(|(_, n)| n));
            out.push_str(&text.store);
            match own {
                Some(_) => number.spell(out),
                None => em.spell_numbered(r, index as u32, &number, out),
            }
            spell!(out, text.tail, number, '\n');
        }
        out.push_str("  ret void\n}\n\n");
    }

    fn splice_begin(
        &mut self,
        kernel: &'m Kernel,
        inst: Inst,
        names: &'m SpliceNames,
        _out: &mut String,
    ) -> Result<(), Unprintable> {
        if self.complete {
            return Err(Unprintable(
                "a spliced fragment in a complete module".into(),
            ));
        }
        self.emitter = Some(Emitter::spliced(self.target, kernel, inst, names));
        Ok(())
    }

    fn splice_end(&mut self, out: &mut String, fragment: &mut Fragment) -> Result<(), Unprintable> {
        let em = self
            .emitter
            .take()
            .ok_or_else(|| Unprintable("a fragment's end outside a fragment".into()))?;
        let splice = em
            .splice
            .ok_or_else(|| Unprintable("a fragment's end outside a fragment".into()))?;
        fragment
            .declarations
            .extend(self.builtins.take().map(|line| line.trim_end().to_owned()));
        out.push_str("  br label %");
        match splice.blocks() {
            Some((_, continuation)) => out.push_str(continuation),
            None => splice.write_made(out, "cont", None),
        }
        out.push('\n');
        let result = em
            .spliced_inst
            .and_then(|inst| em.kernel.atomic(inst))
            .and_then(|atomic| atomic.result);
        if let Some(value) = result {
            fragment.results.push(FragmentResult {
                value,
                names: smallvec::smallvec![em.name(value).to_owned()],
                bound: splice.binding(value).is_some(),
            });
        }
        Ok(())
    }

    fn module_end(&mut self, out: &mut String) {
        if let Some(frame) = &self.vulkan {
            frame.module_end(out);
        }
        self.builtins.print(out);
        if self.target.coarse_grained {
            out.push_str("!0 = !{}\n");
        }
    }
}

/// LLVM replays its templates (`emitter.rs` keeps the contract: a replay prints what printing
/// afresh would).
impl Replay<LlvmPlan> for LlvmPrinter<'_> {
    fn recorder(&mut self) -> Option<&Recorder> {
        self.emitter.as_ref().map(|em| &em.recorder)
    }

    fn shape(&mut self, x: &Expanding<'_, LlvmPlan>, shape: &mut Vec<u64>) -> bool {
        match self.emitter() {
            Ok(em) => em.shape(x.atomic, shape),
            Err(_) => false,
        }
    }

    #[inline]
    fn fill(
        &mut self,
        x: &Expanding<'_, LlvmPlan>,
        hole: Hole,
        out: &mut String,
    ) -> Result<(), Unprintable> {
        // Not `emitter()`: a template is replayed only where `shape` found a kernel this
        // printer can print, and a replay fills many holes.
        self.emitter
            .as_mut()
            .ok_or_else(|| Unprintable("a hole outside a kernel".into()))?
            .fill(x.inst.as_u32(), x.atomic, hole, out)
            .map_err(Unprintable::from)
    }
}

/// How a kernel stores a result of one type, held in a register of the result's instruction
/// numbered `own` or elsewhere (`None`): `store` before the instruction's number (`  store
/// <type> %.`) or before the value (`  store <type> `), and `tail` after them and before the
/// result's number (`.<own>, <pointer type> %.out`, or `, <pointer type> %.out`). With `own`
/// `None`, `tail` is also the text of the result's pointer parameter after an earlier one.
struct ResultStoreText {
    /// The type's [`type_word`], and one more than `own` (0 for `None`).
    key: (u64, u32),
    store: String,
    tail: String,
}

/// The [`ResultStoreText`] of each result type and register met: a kernel stores many results
/// of few types from few registers of their instructions, and spelling a type (a pointer's
/// address space, say) or a register's number costs more than copying its text.
#[derive(Default)]
struct ResultText {
    known: Vec<ResultStoreText>,
    /// By a hash of a key: one more than where in `known` it was last found (0: none). Results
    /// alternate between their types, so a search from the start would run past several.
    recent: [usize; 32],
}

impl ResultText {
    fn of(&mut self, em: &Emitter<'_>, ty: ValueType, own: Option<u32>) -> &ResultStoreText {
        let key = (type_word(ty), own.map_or(0, |number| number + 1));
        let hash = (key.0 ^ u64::from(key.1) << 24).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let slot = (hash >> 59) as usize;
        let recent = self.recent[slot].checked_sub(1);
        let known = recent
            .filter(|&at| self.known.get(at).is_some_and(|text| text.key == key))
            .or_else(|| self.known.iter().position(|text| text.key == key));
        let at = known.unwrap_or_else(|| {
            let value = em.value_ty(ty);
            let space = em.target.triple.result_space();
            let pointer = match value {
                Ty::S(s) => em.elem_ptr(space, 1, s),
                Ty::V(len, s) => em.elem_ptr(space, len, s),
                ptr => ptr,
            };
            let mut text = ResultStoreText {
                key,
                store: String::new(),
                tail: String::new(),
            };
            spell!(&mut text.store, "  store ", value, ' ');
            if let Some(number) = own {
                spell!(&mut text.store, "%.");
                spell!(&mut text.tail, '.', number);
            }
            spell!(&mut text.tail, ", ", pointer, " %.out");
            self.known.push(text);
            self.known.len() - 1
        });
        self.recent[slot] = at + 1;
        &self.known[at]
    }
}
