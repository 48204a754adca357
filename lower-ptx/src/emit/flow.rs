//! Control flow of an expansion: binding its inputs, labels, blocks, branches and the results
//! copied out.

use atomir_ir::expand::{Block, Expansion, Prim, PrimType, Var};
use atomir_ir::{AddressSpace, AtomicInst, AtomicOp, Inst, ValueType};

use atomir_ir::lower::{Facts, FenceBracket, Label, Unprintable};
use atomir_ir::spell;

use super::{Class, KernelEmitter, Src, Walk};
use crate::legal::{Form, PtxPlan, RmwForms};
use crate::spell::PtxSpace;

impl<'k> KernelEmitter<'k> {
    /// Binds an expansion's inputs: a register per variable, the address and operands moved in.
    /// (Blocks are printed as labels, block parameters as `mov`s before each jump, and the
    /// results moved to the node's result registers at the end.)
    pub(super) fn expansion_begin(
        &mut self,
        out: &mut String,
        id: Inst,
        inst: &AtomicInst,
        plan: &PtxPlan,
        expansion: &Expansion,
    ) -> Result<(), Unprintable> {
        // Before the variables' registers, which the skipped result's zero may precede.
        self.zero_skipped_result(out, inst);
        self.guard_begin(out, inst, id);
        self.expansion_registers(inst, plan, expansion)?;
        let addr = self.address(out, inst);
        self.mov(out, self.var(expansion.addr), addr, 64);
        // One policy for every hinted `atom` of the expansion (a split vector has one per lane).
        self.rmw_policy = self.policy(out, inst, self.rmw.hint());
        let natural = PrimType::natural(inst.ty).bits();
        if let Some(node_operand) = inst.operand {
            for (lane, operand) in expansion.operands.iter().enumerate() {
                let src = self.operand(out, node_operand, lane, inst.ty, false);
                self.mov(out, self.var(*operand), src, natural);
                self.entry_binds(*operand, src);
            }
        }
        if let Some(new_value) = inst.new_value {
            for (lane, target) in expansion.new_values.iter().enumerate() {
                let src = self.operand(out, new_value, lane, inst.ty, false);
                self.mov(out, self.var(*target), src, natural);
                self.entry_binds(*target, src);
            }
        }
        Ok(())
    }

    /// What an expansion's printing keeps from its beginning to its end, wherever its inputs
    /// come from: the native forms of its RMWs, how it reads 16-bit halves, and a fresh register
    /// per variable.
    pub(super) fn expansion_registers(
        &mut self,
        inst: &AtomicInst,
        plan: &PtxPlan,
        expansion: &Expansion,
    ) -> Result<(), Unprintable> {
        self.rmw = match plan.form {
            Form::Expand { rmw } => rmw,
            Form::Native(_) | Form::PackedHalf(_) | Form::LdSt(_) | Form::Fence => RmwForms::None,
        };
        let unnamed = expansion.memory_prims().any(|p| match *p {
            Prim::Rmw { op, ty, .. } => self.rmw.of(op, ty).is_none(),
            _ => false,
        });
        if unnamed {
            return Err(Unprintable(
                "an expansion with a native element the plan does not name".into(),
            ));
        }
        let lane = inst.ty.lane_type();
        self.unpack_float_halves = self.target.sm.number() >= 90
            && lane.is_float()
            && lane.bits() == 16
            && inst.op != AtomicOp::Cas;
        let mut vars = std::mem::take(&mut self.vars);
        vars.clear();
        vars.extend(
            expansion
                .vars
                .values()
                .map(|ty| self.temp(Class::of_prim(*ty))),
        );
        self.vars = vars;
        self.block = expansion.entry();
        self.masked.clear();
        self.masked.resize(self.vars.len(), None);
        self.entry_expansion_begin(self.vars.len());
        Ok(())
    }

    /// The address of a node: its pointer, converted to a generic address where a generic node
    /// goes through a pointer into a shared window (a shared-window address used as a generic
    /// one names other memory).
    pub(super) fn address(&mut self, out: &mut String, inst: &AtomicInst) -> Src {
        let pointer = Src::Value(inst.addr, None);
        if inst.space != AddressSpace::Generic {
            return pointer;
        }
        let window = match self.kernel.values.get(inst.addr).map(|v| v.ty) {
            Some(ValueType::Ptr(AddressSpace::Shared)) => PtxSpace::Shared,
            Some(ValueType::Ptr(AddressSpace::SharedCluster)) => PtxSpace::SharedCluster,
            _ => return pointer,
        };
        let generic = self.temp(Class::B64);
        spell!(out, "\tcvta.", window, ".u64 ");
        self.put_temp(out, generic);
        out.push_str(", ");
        self.put(out, pointer);
        out.push_str(";\n");
        Src::Temp(generic)
    }

    /// The register of an expansion variable.
    pub(super) fn var(&self, v: Var) -> Src {
        Src::Temp(self.vars[v.as_u32() as usize])
    }

    pub(super) fn label(&self, out: &mut String, id: Inst, label: Label) {
        match label {
            Label::Block(block) => self.write_label(out, id, "b", Some(block.as_u32())),
            Label::Edge(edge) => self.write_label(out, id, "e", Some(edge)),
            Label::Done => self.write_label(out, id, "done", None),
        }
    }

    pub(super) fn block(&mut self, out: &mut String, id: Inst, block: Block, entry: bool) {
        if !entry {
            self.label(out, id, Label::Block(block));
            out.push_str(":\n");
        }
        // A masked copy is only known valid in the block that made it (as a part of a word is,
        // `Facts::part`).
        self.block = block;
        self.masked.fill(None);
    }

    /// `bra.uni`, or with a guard `@p bra` / `@!p bra`.
    pub(super) fn branch(&self, out: &mut String, id: Inst, guard: Option<(Var, bool)>, to: Label) {
        out.push('\t');
        match guard {
            Some((cond, negated)) => {
                out.push_str(if negated { "@!" } else { "@" });
                self.put(out, self.var(cond));
                out.push_str(" bra ");
            }
            None => out.push_str("bra.uni "),
        }
        self.label(out, id, to);
        out.push_str(";\n");
    }

    /// Moves the old values to the instruction's result.
    pub(super) fn expansion_end(
        &mut self,
        out: &mut String,
        id: Inst,
        inst: &AtomicInst,
        expansion: &Expansion,
        facts: &Facts,
    ) {
        if expansion.blocks.len() > 1 {
            self.label(out, id, Label::Done);
            out.push_str(":\n");
        }
        if let Some(result) = inst.result {
            let natural = PrimType::natural(inst.ty).bits();
            for (lane, old) in expansion.results.iter().enumerate() {
                let lane = inst.shape.is_vector().then_some(lane);
                self.mov(out, Src::Value(result, lane), self.var(*old), natural);
            }
            self.entry_result(result, inst, expansion, facts);
        }
        self.guard_end(out, inst, id);
    }
}

impl<'k> KernelEmitter<'k> {
    /// One primitive of an expansion, or a copy of an equal pure one computed before it.
    pub(super) fn step(
        &mut self,
        out: &mut String,
        plan: &PtxPlan,
        prim: &Prim,
        bracket: Option<FenceBracket>,
        expansion: &Expansion,
        facts: &Facts,
    ) -> Result<(), Unprintable> {
        let vars = std::mem::take(&mut self.vars);
        let rmw = self.rmw;
        let walk = Walk {
            expansion,
            facts,
            vars: &vars,
        };
        let printed = self.prim(out, plan, rmw, prim, bracket, walk);
        self.vars = vars;
        printed
    }
}
